/* Power: system-wide settings held while matching processes live. The
 * wants of every hold combine into one (the more performant value wins,
 * OS-neutral, power.c); the Linux applier (apply_power.c) turns that into
 * sysfs writes, journaled first so that originals survive a crash. */
#ifndef CPUPOLICY_POWER_H
#define CPUPOLICY_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "journal.h"
#include "rules.h"

/* What the holds together ask for. Strings point to the rule tables'
 * static names. */
struct power_want {
	bool all_online;
	int min_online;	      /* percent; -1: none */
	long idle_latency_us; /* -1: none */
	const char *governor, *epp, *profile;
	enum rule_turbo turbo;
};

/* One setting the daemon holds: where, the value it keeps there. */
struct power_knob {
	char *path;
	char value[JOURNAL_VALUE_MAX];
	bool yielded; /* someone else changed it; theirs now */
};

struct power {
	char *sysfs, *dev, *procfs;
	struct journal journal;
	bool journal_ok;
	struct power_knob *knobs;
	size_t knob_count;
	int latency_fd; /* /dev/cpu_dma_latency, held open while wanted */
	long latency_us;
	bool reassert;		 /* on a change by someone else */
	long parking_latency_us; /* idle cap that parking = "off" implies */
	unsigned owners;	 /* POWER_OWNER_* seen running */
	unsigned refusals_said;	 /* keys refused (and logged) for them */
	char refused[512];	 /* the last "not offered" said */
	/* Tests stop here to simulate a crash between two steps. */
	void (*step_hook)(const char *step);
};

enum power_owner {
	POWER_OWNER_PPD = 1 << 0,   /* power-profiles-daemon */
	POWER_OWNER_TUNED = 1 << 1, /* tuned */
};

/* power.c */
void power_want_init(struct power_want *want);
void power_want_add(struct power_want *want, const struct rule_power *rule,
		    long parking_latency_us);
void power_want_of(struct power_want *want, const struct rule_power *rule,
		   long parking_latency_us);
bool power_want_empty(const struct power_want *want);
void power_want_describe(const struct power_want *want, char *buf, size_t size);

/* apply_power.c */
int apply_power_open(struct power *pw, const char *sysfs, const char *dev,
		     const char *procfs, const char *state_dir);
void apply_power_close(struct power *pw);
int apply_power_restore_all(struct power *pw);
void apply_power_set(struct power *pw, const struct power_want *want);
void apply_power_check(struct power *pw);

#endif
