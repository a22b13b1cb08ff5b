/* Power holds: the knobs the wants map to (os.h, knobs.c), held while
 * wanted. OS-neutral; the backend plans, reads and writes.
 *
 * Before the first write to a knob its original value goes into the
 * journal (synced); release puts the original back where the knob still
 * holds our value, then forgets the journal entry. After a crash the
 * journal is replayed before anything else, the same way: only where the
 * knob still has what we set, only knobs we write (knobs_valid), and in
 * the backend's order (a CPU online last, so that its cpufreq knobs go
 * back while it is online); of the journal of an earlier boot, only the
 * settings that outlive a reboot are replayed (knobs_lasting, journal.c).
 * The idle-latency limit is a request the system drops by
 * itself when the daemon ends (knobs_latency_hold), never journaled.
 * Where another power manager runs, the settings it owns are not touched:
 * the rule's key is refused with a log line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "power.h"
#include "util.h"

static void apply_power_step(struct power *pw, const char *step)
{
	if (pw->step_hook)
		pw->step_hook(step);
}

static struct power_knob *apply_power_knob(struct power *pw, const char *key)
{
	for (size_t i = 0; i < pw->knob_count; i++) {
		if (strcmp(pw->knobs[i].path, key) == 0)
			return &pw->knobs[i];
	}
	return NULL;
}

static void apply_power_drop_knob(struct power *pw, struct power_knob *k)
{
	free(k->path);
	*k = pw->knobs[--pw->knob_count];
}

/* Said once per key until the owner goes away. */
static bool apply_power_owned(struct power *pw, const char *key, unsigned bit,
			      const char *owner)
{
	if (!owner) {
		pw->refusals_said &= ~bit;
		return false;
	}
	if (!(pw->refusals_said & bit))
		log_warnx("power.%s refused: %s manages it on this machine "
			  "(use its own tools for it)",
			  key, owner);
	pw->refusals_said |= bit;
	return true;
}

/* The wants another power manager owns here are left out of the plan. */
static void apply_power_unowned(struct power *pw, struct power_want *want)
{
	struct knobs_owners by;

	if (!want->governor && !want->epp && !want->profile && !want->turbo)
		return;
	knobs_owned(&pw->os, &by);
	if (want->governor && apply_power_owned(pw, "governor", 1, by.governor))
		want->governor = NULL;
	if (want->epp && apply_power_owned(pw, "epp", 2, by.epp))
		want->epp = NULL;
	if (want->profile && apply_power_owned(pw, "profile", 4, by.profile))
		want->profile = NULL;
	if (want->turbo && apply_power_owned(pw, "turbo", 8, by.turbo))
		want->turbo = RULE_TURBO_UNSET;
}

static void apply_power_plan(struct power *pw, const struct power_want *want,
			     struct power_plan *plan)
{
	struct power_held *held = xcalloc(pw->knob_count, sizeof(*held));
	struct power_want left = *want;

	apply_power_unowned(pw, &left);
	for (size_t i = 0; i < pw->knob_count; i++) {
		const struct power_knob *k = &pw->knobs[i];
		struct journal_entry *e = journal_find(&pw->journal, k->path);

		held[i] = (struct power_held){
			.key = k->path,
			.original = e ? e->original : NULL,
			.yielded = k->yielded,
		};
	}
	knobs_plan(&pw->os, &left, held, pw->knob_count, plan);
	free(held);
}

/* What giving a journaled setting back came to. */
enum apply_power_back {
	APPLY_POWER_BACK_RESTORED, /* the original written back */
	APPLY_POWER_BACK_HAD,	   /* it had the original already */
	APPLY_POWER_BACK_LEFT,	   /* someone else's value: theirs */
	APPLY_POWER_BACK_GONE,	   /* the knob is gone: never again */
	APPLY_POWER_BACK_KEPT,	   /* not now: the journal keeps it */
};

static enum apply_power_back apply_power_unreadable(
	const struct journal_entry *e, enum os_status status)
{
	switch (status) {
	case OS_GONE:
		/* The CPU is gone (unplugged), or the driver that had the
		 * knob: it cannot be restored, ever. */
		log_warn("%s: gone; cannot restore %s", e->path, e->original);
		return APPLY_POWER_BACK_GONE;
	case OS_OK:
	case OS_DENIED:
	case OS_UNSUPPORTED:
	case OS_FAILED:
		/* Busy (a cpufreq policy whose CPUs are all offline: the
		 * kernel keeps its values until one is back, and so does
		 * the journal), refused, failed: perhaps not next time. */
		break;
	}
	log_warn("%s: cannot read; %s stays in the journal", e->path,
		 e->original);
	return APPLY_POWER_BACK_KEPT;
}

/* Puts a setting's original back, but only where it still has the value
 * we set: a value someone else set since is theirs (an administrator's
 * fix, another tool's), and overwriting it would undo their change. */
static enum apply_power_back apply_power_give_back(
	struct power *pw, const struct journal_entry *e)
{
	char now[JOURNAL_VALUE_MAX];
	enum os_status status = knobs_read(e->path, now, sizeof(now));

	if (status != OS_OK)
		return apply_power_unreadable(e, status);
	if (strcmp(now, e->original) == 0) {
		log_debug("%s: has its original %s already", e->path,
			  e->original);
		return APPLY_POWER_BACK_HAD;
	}
	if (!journal_ours(e, now)) {
		log_info("%s: someone else set %s (the daemon set %s): left "
			 "to them, %s not restored",
			 e->path, now, e->ours, e->original);
		return APPLY_POWER_BACK_LEFT;
	}
	if (knobs_write(e->path, e->original) != OS_OK) {
		/* A CPU the kernel will not take offline now, a value no
		 * longer offered, one read back as another. The journal
		 * keeps it, for the next start or "cpupolicyctl restore". */
		log_warn("%s: cannot restore %s", e->path, e->original);
		apply_power_step(pw, "restored");
		return APPLY_POWER_BACK_KEPT;
	}
	log_info("%s: restored %s (was %s)", e->path, e->original, now);
	apply_power_step(pw, "restored");
	return APPLY_POWER_BACK_RESTORED;
}

/* Gives a knob back: the original where it still has our value. */
static void apply_power_release(struct power *pw, struct power_knob *k)
{
	struct journal_entry *e = journal_find(&pw->journal, k->path);

	apply_power_step(pw, "releasing");
	/* Yielded: someone else's since apply_power_check said so. */
	if (e && (k->yielded ||
		  apply_power_give_back(pw, e) != APPLY_POWER_BACK_KEPT)) {
		journal_forget(&pw->journal, k->path);
		apply_power_step(pw, "forgotten");
	}
	apply_power_drop_knob(pw, k);
}

/* A write that failed: the knob stays ours at the value held before, or,
 * with nothing of ours there, is dropped (and nothing is restored). */
static void apply_power_take_failed(struct power *pw, struct power_knob *k,
				    const struct journal_entry *e,
				    const char *before)
{
	if (before[0]) {
		/* Journaled only if it was ever written. */
		snprintf(k->value, sizeof(k->value), "%s", before);
		if (e)
			journal_record(&pw->journal, k->path, e->original,
				       before);
		else
			journal_forget(&pw->journal, k->path);
		return;
	}
	if (!e)
		journal_forget(&pw->journal, k->path);
	apply_power_drop_knob(pw, k);
}

/* Takes (or changes) a knob: journal first, then the write. */
static void apply_power_take(struct power *pw, const char *key,
			     const char *value)
{
	struct power_knob *k = apply_power_knob(pw, key);
	struct journal_entry *e;
	char now[JOURNAL_VALUE_MAX];
	char before[JOURNAL_VALUE_MAX] = "";

	if (k && (k->yielded || strcmp(k->value, value) == 0))
		return;
	if (knobs_read(key, now, sizeof(now)) != OS_OK) {
		log_warn("%s: cannot read", key);
		return;
	}
	if (k)
		snprintf(before, sizeof(before), "%s", k->value);
	if (!k) {
		pw->knobs = xreallocarray(pw->knobs, pw->knob_count + 1,
					  sizeof(*pw->knobs));
		k = &pw->knobs[pw->knob_count++];
		*k = (struct power_knob){.path = xstrdup(key)};
	}
	snprintf(k->value, sizeof(k->value), "%s", value);
	if (strcmp(now, value) == 0)
		return; /* held, nothing to write, nothing to restore */
	apply_power_step(pw, "taking");
	e = journal_find(&pw->journal, key);
	if (!pw->journal_ok ||
	    journal_record(&pw->journal, key, e ? e->original : now, value) <
		    0) {
		log_warnx("%s: not changed: its original could not be "
			  "recorded first",
			  key);
		apply_power_drop_knob(pw, k);
		return;
	}
	apply_power_step(pw, "journaled");
	if (knobs_write(key, value) != OS_OK) {
		log_warn("%s: cannot set %s", key, value);
		apply_power_take_failed(pw, k, e, before);
		return;
	}
	apply_power_step(pw, "written");
	journal_settle(&pw->journal, key);
	log_info("%s: %s (was %s)", key, value, now);
}

static void apply_power_latency(struct power *pw, long latency_us)
{
	if (latency_us < 0)
		knobs_latency_release(&pw->os, &pw->latency_fd);
	else if (latency_us != pw->latency_us)
		knobs_latency_hold(&pw->os, &pw->latency_fd, latency_us);
	pw->latency_us = pw->latency_fd >= 0 ? latency_us : -1;
}

/* Gives back what the plan no longer wants, in the backend's order. */
static void apply_power_release_unwanted(struct power *pw,
					 const struct power_plan *plan)
{
	for (enum knobs_order order = KNOBS_ORDER_FIRST;
	     order <= KNOBS_ORDER_LAST; order++) {
		for (size_t i = 0; i < pw->knob_count;) {
			struct power_knob *k = &pw->knobs[i];

			if (knobs_order(k->path) == order &&
			    !power_plan_find(plan, k->path)) {
				apply_power_release(pw, k);
				continue; /* the last knob moved here */
			}
			i++;
		}
	}
}

void apply_power_set(struct power *pw, const struct power_want *want)
{
	struct power_plan plan = {0};

	apply_power_plan(pw, want, &plan);
	apply_power_release_unwanted(pw, &plan);
	for (size_t i = 0; i < plan.count; i++)
		apply_power_take(pw, plan.settings[i].key,
				 plan.settings[i].value);
	apply_power_latency(pw, want->idle_latency_us);
	power_plan_free(&plan);
}

/* Someone else changed a held knob: set it again, or leave it to them
 * (and then never restore it). */
void apply_power_check(struct power *pw)
{
	for (size_t i = 0; i < pw->knob_count; i++) {
		struct power_knob *k = &pw->knobs[i];
		struct journal_entry *e;
		char now[JOURNAL_VALUE_MAX];

		if (k->yielded ||
		    knobs_read(k->path, now, sizeof(now)) != OS_OK ||
		    strcmp(now, k->value) == 0)
			continue;
		if (pw->reassert) {
			e = journal_find(&pw->journal, k->path);
			if (!pw->journal_ok ||
			    journal_record(&pw->journal, k->path,
					   e ? e->original : k->value,
					   k->value) < 0 ||
			    knobs_write(k->path, k->value) != OS_OK)
				log_warn("%s: changed by someone else to %s; "
					 "cannot set %s again",
					 k->path, now, k->value);
			else
				log_info("%s: changed by someone else to %s; "
					 "set to %s again",
					 k->path, now, k->value);
			continue;
		}
		log_info("%s: changed by someone else to %s while held at %s: "
			 "theirs now, not restored later",
			 k->path, now, k->value);
		k->yielded = true;
		journal_forget(&pw->journal, k->path);
	}
}

/* One journal entry at replay: given back where it is a knob we write,
 * and forgotten unless it must be tried again. */
static void apply_power_replay(struct power *pw, const char *key, int *restored,
			       int *failed)
{
	struct journal_entry *e = journal_find(&pw->journal, key);
	char why[512];

	if (!e)
		return;
	if (!knobs_valid(&pw->os, key, why, sizeof(why))) {
		log_warnx("%s: journal entry refused: %s; %s not written", key,
			  why, e->original);
	} else {
		switch (apply_power_give_back(pw, e)) {
		case APPLY_POWER_BACK_RESTORED:
			(*restored)++;
			break;
		case APPLY_POWER_BACK_KEPT:
			(*failed)++;
			return;
		case APPLY_POWER_BACK_HAD:
		case APPLY_POWER_BACK_LEFT:
		case APPLY_POWER_BACK_GONE:
			break;
		}
	}
	if (journal_forget(&pw->journal, key) < 0)
		(*failed)++;
	apply_power_step(pw, "forgotten");
}

/* Every original in the journal back in place, where the setting still
 * has our value: at start, before anything else, and by "cpupolicyctl
 * restore". In the backend's order, as at release. */
int apply_power_restore_all(struct power *pw)
{
	size_t count = pw->journal.count;
	char **keys = xcalloc(count ? count : 1, sizeof(*keys));
	int restored = 0, failed = 0;

	for (size_t i = 0; i < count; i++)
		keys[i] = xstrdup(pw->journal.entries[i].path);
	for (enum knobs_order order = KNOBS_ORDER_FIRST;
	     order <= KNOBS_ORDER_LAST; order++) {
		for (size_t i = 0; i < count; i++) {
			if (knobs_order(keys[i]) == order)
				apply_power_replay(pw, keys[i], &restored,
						   &failed);
		}
	}
	for (size_t i = 0; i < count; i++)
		free(keys[i]);
	free(keys);
	return failed ? -1 : restored;
}

int apply_power_open(struct power *pw, const char *state_dir)
{
	*pw = (struct power){
		.latency_fd = -1,
		.latency_us = -1,
	};
	pw->journal_ok =
		journal_open(&pw->journal, state_dir, knobs_lasting) == 0;
	return pw->journal_ok ? 0 : -1;
}

/* Everything held is given back. */
void apply_power_close(struct power *pw)
{
	struct power_want none;

	power_want_init(&none);
	apply_power_set(pw, &none);
	journal_close(&pw->journal);
	free(pw->knobs);
	*pw = (struct power){.latency_fd = -1};
}
