/* Power: system-wide settings held while matching processes live. The
 * wants of every hold combine into one (the more performant value wins,
 * OS-neutral, power.c); the backend maps that to knobs (os.h, knobs.c),
 * which apply_power.c holds, journaled first so that originals survive a
 * crash. */
#ifndef CPUPOLICY_POWER_H
#define CPUPOLICY_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "journal.h"
#include "os.h"
#include "rules.h"

/* What the holds together ask for. Strings point to the rule tables'
 * static names. */
struct power_want {
	bool all_online;
	int min_online;	      /* percent; -1: none */
	long idle_latency_us; /* -1: none */
	const char *governor, *epp, *profile;
	enum rule_turbo turbo;
	char plan[RULE_PLAN_MAX]; /* "": none; as in struct rule_power */
};

/* A knob the wants map to (os.h), and the value they want there. */
struct power_setting {
	char *key;
	char value[JOURNAL_VALUE_MAX];
};

/* What the wants map to on this machine, as knobs_plan found it. */
struct power_plan {
	struct power_setting *settings;
	size_t count;
};

/* A knob held, as knobs_plan is told of it: the original the journal
 * keeps (NULL: none recorded), and whether it was yielded. */
struct power_held {
	const char *key;
	const char *original;
	bool yielded;
};

/* One setting the daemon holds: where, the value it keeps there. */
struct power_knob {
	char *path; /* its key (os.h): a sysfs path on Linux */
	char value[JOURNAL_VALUE_MAX];
	bool yielded; /* someone else changed it; theirs now */
};

struct power {
	struct knobs os; /* the backend's */
	struct journal journal;
	bool journal_ok;
	struct power_knob *knobs;
	size_t knob_count;
	int latency_fd; /* the idle-latency hold (knobs_latency_hold): its
			   descriptor, /dev/cpu_dma_latency; -1: none */
	long latency_us;
	bool reassert;		 /* on a change by someone else */
	long parking_latency_us; /* idle cap that parking = "off" implies */
	unsigned refusals_said;	 /* wants refused (and logged): owned */
	/* Tests stop here to simulate a crash between two steps. */
	void (*step_hook)(const char *step);
};

/* power.c */
void power_want_init(struct power_want *want);
void power_want_add(struct power_want *want, const struct rule_power *rule,
		    long parking_latency_us);
void power_want_of(struct power_want *want, const struct rule_power *rule,
		   long parking_latency_us);
bool power_want_empty(const struct power_want *want);
void power_want_describe(const struct power_want *want, char *buf, size_t size);
void power_plan_add(struct power_plan *plan, const char *key,
		    const char *value);
const char *power_plan_find(const struct power_plan *plan, const char *key);
void power_plan_free(struct power_plan *plan);

/* apply_power.c */
int apply_power_open(struct power *pw, const char *state_dir);
void apply_power_close(struct power *pw);
int apply_power_restore_all(struct power *pw);
void apply_power_set(struct power *pw, const struct power_want *want);
void apply_power_check(struct power *pw);

#endif
