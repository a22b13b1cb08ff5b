/* A rule's foreground settings on a declared foreground process
 * (fgprio.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fgprio.h"
#include "os.h"
#include "util.h"

static void fgprio_key(const struct fgprio *f, char *key, size_t size)
{
	snprintf(key, size, FGPRIO_KEY, (int)f->pid, f->start);
}

/* The main thread's original and what it is to hold. */
static bool fgprio_journal(const struct fgprio *f, struct journal *j,
			   const struct prio_state *ours)
{
	char key[64], original[JOURNAL_VALUE_MAX], held[JOURNAL_VALUE_MAX];

	if (!j)
		return true;
	fgprio_key(f, key, sizeof(key));
	prio_state_encode(&f->threads[0].original, original, sizeof(original));
	prio_state_encode(ours, held, sizeof(held));
	return journal_record(j, key, original, held) == 0;
}

/* What a thread is to hold: the target over what it has; a raise of
 * the nice reset on fork, as it is the foreground's alone (Windows has
 * no such flag: its children take their own class). */
static void fgprio_wanted(const struct prio_target *target,
			  const struct prio_state *original,
			  struct prio_state *wanted)
{
	prio_expected(target, original, wanted);
	if (!wanted->windows && wanted->nice < original->nice)
		wanted->reset_on_fork = true;
}

static void fgprio_write(struct fgprio *f, struct fgprio_thread *t,
			 const struct prio_target *target)
{
	struct prio_state wanted, taken;

	fgprio_wanted(target, &t->original, &wanted);
	if (prio_state_equal(&wanted, &t->original) ||
	    apply_prio_write(f->pid, t->tid, &t->original, &wanted) != OS_OK)
		return;
	if (apply_prio_taken(&t->original, &wanted, &taken) ||
	    apply_prio_read(f->pid, t->tid, &taken) == OS_OK)
		t->applied = taken;
}

/* Every thread's priority now, realtime ones left out: a realtime
 * thread is someone's choice for a reason. */
static void fgprio_read(struct fgprio *f, const struct prio_target *target)
{
	pid_t *tids = NULL;
	size_t count = 0;

	if (procinfo_threads(f->pid, &tids, &count) != OS_OK || !count) {
		free(tids);
		return;
	}
	f->threads = xcalloc(count, sizeof(*f->threads));
	for (size_t i = 0; i < count; i++) {
		struct fgprio_thread *t = &f->threads[f->count];

		if (apply_prio_read(f->pid, tids[i], &t->original) != OS_OK)
			continue; /* ended meanwhile */
		prio_original_default(&t->original, target);
		if (t->original.policy == RULE_POLICY_FIFO ||
		    t->original.policy == RULE_POLICY_RR)
			continue;
		t->tid = tids[i];
		t->applied = t->original;
		f->count++;
	}
	free(tids);
}

static void fgprio_forget(struct fgprio *f)
{
	free(f->threads);
	*f = (struct fgprio){0};
}

int fgprio_give(struct fgprio *f, pid_t pid, unsigned long long start,
		const struct prio_target *target, struct journal *j,
		const char **why)
{
	struct prio_state main;

	*f = (struct fgprio){.pid = pid, .start = start};
	fgprio_read(f, target);
	if (!f->count) {
		*why = "it has no thread to give them to";
		fgprio_forget(f);
		return -1;
	}
	fgprio_wanted(target, &f->threads[0].original, &main);
	if (!fgprio_journal(f, j, &main)) {
		*why = "the journal cannot be written";
		fgprio_forget(f);
		return -1;
	}
	for (size_t i = 0; i < f->count; i++)
		fgprio_write(f, &f->threads[i], target);
	if (!prio_state_equal(&main, &f->threads[0].applied))
		fgprio_journal(f, j, &f->threads[0].applied);
	return 0;
}

void fgprio_give_back(struct fgprio *f, struct journal *j)
{
	struct procinfo_usage u;
	char key[64];

	if (!f->pid)
		return;
	if (procinfo_usage(f->pid, &u) == OS_OK && u.start == f->start) {
		for (size_t i = 0; i < f->count; i++) {
			const struct fgprio_thread *t = &f->threads[i];
			struct prio_state now;

			if (!prio_state_equal(&t->original, &t->applied) &&
			    apply_prio_read(f->pid, t->tid, &now) == OS_OK &&
			    prio_state_equal(&now, &t->applied))
				apply_prio_write(f->pid, t->tid, &now,
						 &t->original);
		}
	}
	if (j) {
		fgprio_key(f, key, sizeof(key));
		journal_forget(j, key);
	}
	fgprio_forget(f);
}
