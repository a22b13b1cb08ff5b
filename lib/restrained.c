/* The processes restraint holds. A pass lists the processes and samples
 * each one's CPU time (procinfo_usage) while the machine is under
 * pressure, and only the held ones after it; restraint_judge says when
 * one is to be restrained or released. A process is restrained through
 * every thread (new threads inherit it from their creator, and children
 * forked meanwhile from their parent) and given back thread by thread
 * what each had, unless someone changed it since: then it is theirs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgprio.h"
#include "log.h"
#include "os.h"
#include "restrained.h"
#include "util.h"

#define RESTRAINED_MS 1000000LL
/* A process younger than this is judged from its start. */
#define RESTRAINED_YOUNG_MS 2000LL

void restrained_init(struct restrained *r,
		     const struct restrained_options *options, unsigned cpus)
{
	*r = (struct restrained){.options = *options, .cpus = cpus ? cpus : 1};
	r->options.exempt =
		options->exempt_count
			? xcalloc(options->exempt_count, sizeof(char *))
			: NULL;
	for (size_t i = 0; i < options->exempt_count; i++)
		r->options.exempt[i] = xstrdup(options->exempt[i]);
	pidmap_init(&r->procs);
}

static void restrained_proc_free(struct restrained_proc *p)
{
	free(p->threads);
	free(p->group);
	free(p);
}

static struct restrained_proc *restrained_get(const struct restrained *r,
					      pid_t pid)
{
	return pidmap_get(&r->procs, pid);
}

const struct restrained_proc *restrained_find(const struct restrained *r,
					      pid_t pid)
{
	return restrained_get(r, pid);
}

static void restrained_forget(struct restrained *r, struct restrained_proc *p)
{
	if (p->held)
		r->held_count--;
	pidmap_remove(&r->procs, p->pid);
	restrained_proc_free(p);
}

/* A restraint's line in the journal: the process by pid and start. */
static void restrained_key(const struct restrained_proc *p, char *key,
			   size_t size)
{
	snprintf(key, size, "/restraint/%d/%llu", (int)p->pid, p->start);
}

/* The main thread's original and what it holds now, before the write
 * and again where the kernel took less. */
static bool restrained_journal(struct restrained *r,
			       const struct restrained_proc *p,
			       const struct prio_state *ours)
{
	char key[64], original[JOURNAL_VALUE_MAX], held[JOURNAL_VALUE_MAX];

	if (!r->options.journal || r->options.dry_run)
		return true;
	restrained_key(p, key, sizeof(key));
	prio_state_encode(&p->threads[0].original, original, sizeof(original));
	prio_state_encode(ours, held, sizeof(held));
	return journal_record(r->options.journal, key, original, held) == 0;
}

static void restrained_unjournal(struct restrained *r,
				 const struct restrained_proc *p)
{
	char key[64];

	if (!r->options.journal)
		return;
	restrained_key(p, key, sizeof(key));
	journal_forget(r->options.journal, key);
}

/* A name the config exempts. */
static bool restrained_exempt_name(const struct restrained *r, const char *name)
{
	for (size_t i = 0; i < r->options.exempt_count; i++) {
		if (strcmp(r->options.exempt[i], name) == 0)
			return true;
	}
	return false;
}

/* Why a qualifying process is left alone, or NULL: the daemon's word
 * first (foreground, a rule), then the config's names, the accounts of
 * the system, a priority its user chose. A kernel thread has no exe. */
static const char *restrained_excluded(struct restrained *r,
				       struct restrained_proc *p,
				       const struct procinfo_usage *u)
{
	static struct facts facts;
	struct procinfo pi = {.pid = p->pid};
	const char *why;

	if (p->pid == procinfo_self())
		return "the daemon itself";
	if (p->exempted)
		return "exempt by cpupolicyctl restraint exempt";
	p->target = r->options.target;
	if (r->options.exclude &&
	    (why = r->options.exclude(r->options.ctx, p->pid, p->start,
				      &p->target)))
		return why;
	memset(&facts, 0, sizeof(facts));
	procinfo_fetch(&pi, MATCH_FACT_COMM | MATCH_FACT_CREDS | MATCH_FACT_EXE,
		       &facts);
	if (facts.have & MATCH_FACT_COMM)
		snprintf(p->name, sizeof(p->name), "%s", facts.comm);
	if (!(facts.have & MATCH_FACT_EXE))
		return "a kernel thread, or gone";
	if (restrained_exempt_name(r, p->name))
		return "exempt by name ([restraint] exempt)";
	if (!(facts.have & MATCH_FACT_CREDS))
		return "its user cannot be read";
	if (!r->options.system && accounts_system(facts.uid))
		return "a process of root or of a system account";
	if (u->nice != 0)
		return "its priority was set by its user";
	return NULL;
}

static bool restrained_realtime(const struct prio_state *s)
{
	return s->policy == RULE_POLICY_FIFO || s->policy == RULE_POLICY_RR;
}

/* Every thread's priority now; false (why set) where one runs under a
 * realtime policy, which is someone's choice for a reason. */
static bool restrained_read(struct restrained_proc *p, const char **why)
{
	pid_t *tids = NULL;
	size_t count = 0;

	*why = NULL;
	if (procinfo_threads(p->pid, &tids, &count) != OS_OK || !count) {
		free(tids);
		*why = "its threads cannot be listed";
		return false;
	}
	p->threads = xcalloc(count, sizeof(*p->threads));
	for (size_t i = 0; i < count; i++) {
		struct restrained_thread *t = &p->threads[p->thread_count];

		if (apply_prio_read(p->pid, tids[i], &t->original) != OS_OK)
			continue; /* ended meanwhile */
		/* What the system cannot read back (EcoQoS before Windows
		 * 11 22H2) is its default, as for a rule (manage.c). */
		prio_original_default(&t->original, &p->target);
		if (restrained_realtime(&t->original)) {
			*why = "a realtime thread";
			break;
		}
		t->tid = tids[i];
		t->applied = t->original;
		p->thread_count++;
	}
	free(tids);
	if (!*why && !p->thread_count)
		*why = "gone";
	return !*why;
}

/* The lowering on each thread read; a refusal of the first write (not
 * allowed) leaves the process as it was. */
static bool restrained_write(struct restrained *r, struct restrained_proc *p,
			     const char **why)
{
	struct prio_state main;

	prio_expected(&p->target, &p->threads[0].original, &main);
	if (!restrained_journal(r, p, &main)) {
		*why = "the journal cannot be written";
		return false;
	}
	for (size_t i = 0; i < p->thread_count; i++) {
		struct restrained_thread *t = &p->threads[i];
		struct prio_state wanted, taken;
		enum os_status os;

		prio_expected(&p->target, &t->original, &wanted);
		if (r->options.dry_run ||
		    prio_state_equal(&wanted, &t->original))
			continue;
		os = apply_prio_write(p->pid, t->tid, &t->original, &wanted);
		if (os == OS_DENIED && i == 0) {
			*why = "the system refused the lowering";
			restrained_unjournal(r, p);
			return false;
		}
		if (os != OS_OK)
			continue;
		if (apply_prio_taken(&t->original, &wanted, &taken))
			t->applied = taken;
		else if (apply_prio_read(p->pid, t->tid, &taken) == OS_OK)
			t->applied = taken;
	}
	if (!prio_state_equal(&main, &p->threads[0].applied))
		restrained_journal(r, p, &p->threads[0].applied);
	return true;
}

/* One thread given back what it had, where it still holds what the
 * restraint left (else its user changed it: theirs now). */
static void restrained_restore(struct restrained *r, pid_t pid, pid_t tid,
			       const struct prio_state *original,
			       const struct prio_state *applied)
{
	struct prio_state now;

	if (r->options.dry_run || prio_state_equal(original, applied) ||
	    apply_prio_read(pid, tid, &now) != OS_OK)
		return;
	if (!prio_state_equal(&now, applied)) {
		r->counters.left_alone++;
		return;
	}
	apply_prio_write(pid, tid, &now, original);
}

static const struct restrained_thread *restrained_thread(
	const struct restrained_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->thread_count; i++) {
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	}
	return NULL;
}

/* Every thread of pid: its own record, or (started meanwhile, from a
 * restrained creator) the main thread's. */
static void restrained_restore_threads(struct restrained *r,
				       const struct restrained_proc *p,
				       pid_t pid)
{
	const struct restrained_thread *main = &p->threads[0], *t;
	pid_t *tids = NULL;
	size_t count = 0;

	if (procinfo_threads(pid, &tids, &count) != OS_OK) {
		free(tids);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		t = pid == p->pid ? restrained_thread(p, tids[i]) : NULL;
		if (!t)
			t = main;
		restrained_restore(r, pid, tids[i], &t->original, &t->applied);
	}
	free(tids);
}

/* Its children forked while it was restrained inherited it: they get
 * back what it had, and so do theirs. */
static void restrained_restore_children(struct restrained *r,
					const struct restrained_proc *p,
					long long now_ns)
{
	pid_t *pids = NULL, family[64];
	size_t count = 0, members = 1;
	unsigned long long held_ns = (unsigned long long)(now_ns - p->since_ns);

	family[0] = p->pid;
	if (procinfo_pids(&pids, &count) != OS_OK) {
		free(pids);
		return;
	}
	for (size_t round = 0; round < 4; round++) {
		size_t before = members;

		for (size_t i = 0; i < count && members < 64; i++) {
			struct procinfo_usage u;
			bool known = false;

			for (size_t k = 0; k < members; k++)
				known |= family[k] == pids[i];
			if (known || procinfo_usage(pids[i], &u) != OS_OK ||
			    u.age_ns > held_ns)
				continue;
			for (size_t k = 0; k < members; k++) {
				if (u.ppid == family[k]) {
					family[members++] = pids[i];
					restrained_restore_threads(r, p,
								   pids[i]);
					break;
				}
			}
		}
		if (members == before)
			break;
	}
	free(pids);
}

static void restrained_unhold(struct restrained *r, struct restrained_proc *p,
			      long long now_ns, const char *why)
{
	if (!p->held)
		return;
	restrained_group_leave(r, p, why);
	free(p->group);
	p->group = NULL;
	if (p->thread_count) {
		restrained_restore_threads(r, p, p->pid);
		restrained_restore_children(r, p, now_ns);
	}
	log_info("%s %d (%s) after %lld ms: %s",
		 r->options.dry_run ? "would release" : "released", (int)p->pid,
		 p->name, (now_ns - p->since_ns) / RESTRAINED_MS, why);
	restrained_unjournal(r, p);
	free(p->threads);
	p->threads = NULL;
	p->thread_count = 0;
	p->held = false;
	/* Its judgement too, where the release is the daemon's word (the
	 * judge's own release has already said so). */
	restraint_released(&p->judge);
	r->held_count--;
	r->counters.releases++;
}

/* Its share of all CPUs over the samples that qualified it. */
static unsigned restrained_share(const struct restrained *r,
				 const struct restrained_proc *p,
				 long long now_ns)
{
	unsigned long long span = (unsigned long long)now_ns - p->over_from_ns;
	unsigned long long used = p->judge.cpu_ns - p->over_cpu_ns;

	if (!span || p->judge.cpu_ns < p->over_cpu_ns)
		return 0;
	return (unsigned)(used * 100 / (span * r->cpus));
}

static void restrained_hold(struct restrained *r, struct restrained_proc *p,
			    const struct procinfo_usage *u, long long now_ns,
			    unsigned pressure_pct)
{
	const char *why = restrained_excluded(r, p, u);

	p->share_pct = restrained_share(r, p, now_ns);
	if (!why && restrained_read(p, &why))
		restrained_write(r, p, &why);
	if (why) {
		if (strcmp(p->why_not, why) != 0)
			log_debug("not restrained: %d (%s), %u%% of the CPUs: "
				  "%s",
				  (int)p->pid, p->name, p->share_pct, why);
		snprintf(p->why_not, sizeof(p->why_not), "%s", why);
		free(p->threads);
		p->threads = NULL;
		p->thread_count = 0;
		restraint_released(&p->judge);
		r->counters.excluded++;
		return;
	}
	p->why_not[0] = '\0';
	p->held = true;
	restrained_group_find(p);
	p->since_ns = now_ns;
	p->pressure_pct = pressure_pct;
	r->held_count++;
	r->counters.restraints++;
	log_info("%s %d (%s): %u%% of the CPUs for %lld ms with the CPUs "
		 "%u%% contended",
		 r->options.dry_run ? "would restrain" : "restrained",
		 (int)p->pid, p->name, p->share_pct,
		 (now_ns - (long long)p->over_from_ns) / RESTRAINED_MS,
		 pressure_pct);
}

/* A new record. A process started in the last two seconds is judged
 * from its start, as if sampled then with nothing used: a hog started
 * just before the pressure qualifies as soon as one that ran longer. */
static struct restrained_proc *restrained_add(struct restrained *r, pid_t pid,
					      const struct procinfo_usage *u,
					      long long now_ns)
{
	struct restrained_proc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->start = u->start;
	if (u->age_ns <
		    (unsigned long long)(RESTRAINED_YOUNG_MS * RESTRAINED_MS) &&
	    (unsigned long long)now_ns > u->age_ns) {
		p->judge.sampled = true;
		p->judge.at_ns = (unsigned long long)now_ns - u->age_ns;
	}
	pidmap_put(&r->procs, pid, p);
	return p;
}

/* What a process asks of the CPUs: what it used, and while restrained
 * also what it waited for, runnable: one starved by busier work is not
 * calm, and releasing it would restrain it again at once. */
static unsigned long long restrained_demand(const struct restrained_proc *p,
					    const struct procinfo_usage *u)
{
	unsigned long long waited;

	if (!p->held || procinfo_waited(p->pid, &waited) != OS_OK)
		return u->cpu_ns;
	return u->cpu_ns + waited;
}

static void restrained_sample(struct restrained *r, struct restrained_proc *p,
			      const struct procinfo_usage *u, long long now_ns,
			      unsigned pressure_pct)
{
	unsigned long long before_cpu = p->judge.cpu_ns,
			   before_at = p->judge.at_ns;
	unsigned long long refused = p->judge.refused;
	bool was_over = p->judge.over_since_ns != 0;
	bool under = pressure_pct >= r->options.pressure_pct && !r->paused;
	enum restraint_verdict v = restraint_judge(
		&r->options.limits, &p->judge, (unsigned long long)now_ns,
		restrained_demand(p, u), r->cpus, under);

	/* Qualified at its first judged sample (a young process), the
	 * judge has already cleared over_since_ns. */
	if ((p->judge.over_since_ns || v == RESTRAINT_RESTRAIN) && !was_over) {
		p->over_cpu_ns = before_cpu;
		p->over_from_ns = before_at;
	}
	r->counters.refused += p->judge.refused - refused;
	if (v == RESTRAINT_RESTRAIN)
		restrained_hold(r, p, u, now_ns, pressure_pct);
	else if (v == RESTRAINT_RELEASE)
		restrained_unhold(r, p, now_ns, "calm again");
}

/* A record whose process ended, or whose pid another took. */
static void restrained_gone(struct restrained *r, struct restrained_proc *p)
{
	if (p->held) {
		log_info("restrained %d (%s) ended", (int)p->pid, p->name);
		restrained_unjournal(r, p);
	}
	restrained_forget(r, p);
}

static void restrained_one(struct restrained *r, pid_t pid, long long now_ns,
			   unsigned pressure_pct, bool under)
{
	struct restrained_proc *p = restrained_get(r, pid);
	struct procinfo_usage u;

	if (procinfo_usage(pid, &u) != OS_OK)
		return;
	if (p && p->start != u.start) {
		restrained_gone(r, p);
		p = NULL;
	}
	if (!p && !under)
		return;
	if (!p)
		p = restrained_add(r, pid, &u, now_ns);
	p->generation = r->generation;
	p->session = u.session;
	restrained_sample(r, p, &u, now_ns, pressure_pct);
}

/* Whether a record that holds nothing is kept after the pressure: its
 * restraints of the last minute count against the rate limit. */
static bool restrained_recent(const struct restrained_proc *p, long long now_ns)
{
	const struct restraint_proc *j = &p->judge;

	return j->recent_count &&
	       (unsigned long long)now_ns - j->recent_ns[j->recent_count - 1] <
		       60000ULL * (unsigned long long)RESTRAINED_MS;
}

/* Records no pass saw: ended. When the pressure is over, those that
 * hold nothing are dropped as well (their counts start again at the
 * next pressure), but for the rate limit's. */
static void restrained_prune(struct restrained *r, long long now_ns, bool under)
{
	struct restrained_proc **drop =
		xcalloc(r->procs.count + 1, sizeof(*drop));
	size_t count = 0;

	for (size_t i = 0; i < r->procs.capacity; i++) {
		struct restrained_proc *p = r->procs.slots[i].value;

		if (r->procs.slots[i].key &&
		    (p->generation != r->generation ||
		     (!under && !p->held && !p->exempted &&
		      !restrained_recent(p, now_ns))))
			drop[count++] = p;
	}
	for (size_t i = 0; i < count; i++) {
		if (drop[i]->generation != r->generation)
			restrained_gone(r, drop[i]);
		else
			restrained_forget(r, drop[i]);
	}
	free(drop);
}

/* Under pressure every process is sampled; after it only the held ones,
 * until they are released. */
bool restrained_pass(struct restrained *r, long long now_ns,
		     unsigned pressure_pct)
{
	bool under = pressure_pct >= r->options.pressure_pct && !r->paused;
	pid_t *pids = NULL;
	size_t count = 0;

	r->generation++;
	r->counters.passes++;
	r->now_ns = now_ns;
	procinfo_scan_begin();
	if (under) {
		if (procinfo_pids(&pids, &count) == OS_OK) {
			for (size_t i = 0; i < count; i++)
				restrained_one(r, pids[i], now_ns, pressure_pct,
					       true);
		}
		free(pids);
	} else {
		pids = xcalloc(r->procs.count + 1, sizeof(*pids));
		for (size_t i = 0; i < r->procs.capacity; i++) {
			if (r->procs.slots[i].key)
				pids[count++] = r->procs.slots[i].key;
		}
		for (size_t i = 0; i < count; i++)
			restrained_one(r, pids[i], now_ns, pressure_pct, false);
		free(pids);
	}
	procinfo_scan_end();
	restrained_prune(r, now_ns, under);
	restrained_group_pass(r, now_ns, under);
	return under || r->held_count;
}

int restrained_release(struct restrained *r, pid_t pid, const char *why)
{
	struct restrained_proc *p = restrained_get(r, pid);

	if (!p || !p->held)
		return -1;
	restrained_unhold(r, p, r->now_ns, why);
	return 0;
}

int restrained_exempt(struct restrained *r, pid_t pid)
{
	struct restrained_proc *p = restrained_get(r, pid);
	struct procinfo_usage u;

	if (procinfo_usage(pid, &u) != OS_OK)
		return -1;
	if (p && p->start != u.start) {
		restrained_gone(r, p);
		p = NULL;
	}
	if (!p) {
		p = restrained_add(r, pid, &u, r->now_ns);
		p->generation = r->generation;
	}
	p->exempted = true;
	snprintf(p->why_not, sizeof(p->why_not), "%s",
		 "exempt by cpupolicyctl restraint exempt");
	restrained_unhold(r, p, r->now_ns, "exempted");
	return 0;
}

void restrained_release_all(struct restrained *r, const char *why)
{
	for (size_t i = 0; i < r->procs.capacity; i++) {
		struct restrained_proc *p = r->procs.slots[i].value;

		if (r->procs.slots[i].key)
			restrained_unhold(r, p, r->now_ns, why);
	}
}

void restrained_free(struct restrained *r, const char *why)
{
	restrained_release_all(r, why);
	restrained_group_free(r, why);
	for (size_t i = 0; i < r->procs.capacity; i++) {
		if (r->procs.slots[i].key)
			restrained_proc_free(r->procs.slots[i].value);
	}
	pidmap_free(&r->procs);
	for (size_t i = 0; i < r->options.exempt_count; i++)
		free(r->options.exempt[i]);
	free(r->options.exempt);
	*r = (struct restrained){0};
}

/* One journaled process (restrained, or given a rule's foreground
 * settings: fgprio.c): every thread that holds what the daemon left
 * gets the original back (threads and children it started since
 * are not known here: they keep what they inherited). */
static bool restrained_replay_one(const struct journal_entry *e)
{
	struct prio_state original, ours, now;
	struct procinfo_usage u;
	unsigned long long start;
	pid_t *tids = NULL;
	size_t count = 0;
	int pid, given = 0;

	if ((sscanf(e->path, "/restraint/%d/%llu", &pid, &start) != 2 &&
	     sscanf(e->path, FGPRIO_KEY, &pid, &start) != 2) ||
	    pid <= 0 || !prio_state_decode(e->original, &original) ||
	    !prio_state_decode(e->ours, &ours) ||
	    procinfo_usage(pid, &u) != OS_OK || u.start != start ||
	    procinfo_threads(pid, &tids, &count) != OS_OK) {
		free(tids);
		return false;
	}
	for (size_t i = 0; i < count; i++) {
		if (apply_prio_read(pid, tids[i], &now) == OS_OK &&
		    prio_state_equal(&now, &ours) &&
		    apply_prio_write(pid, tids[i], &now, &original) == OS_OK)
			given++;
	}
	free(tids);
	return given > 0;
}

size_t restrained_replay(struct journal *j)
{
	size_t given = 0;

	/* The groups first: a process the journal names finds each. */
	for (size_t i = 0; i < j->count; i++) {
		if (strncmp(j->entries[i].path, "/cpugroup/", 10) == 0 &&
		    restrained_group_replay(j, &j->entries[i])) {
			log_info("restraint of an earlier run given back: %s",
				 j->entries[i].path);
			given++;
		}
	}
	while (j->count) {
		char *path = xstrdup(j->entries[0].path);

		if (strncmp(path, "/cpugroup/", 10) != 0 &&
		    restrained_replay_one(&j->entries[0])) {
			log_info("restraint of an earlier run given back: %s",
				 path);
			given++;
		}
		journal_forget(j, path);
		free(path);
	}
	return given;
}
