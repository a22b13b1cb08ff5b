/* Restraint's judgement of one process over time: from samples of its
 * CPU time and of whether the system is under CPU pressure, when it is
 * to be restrained (a hog: over a share of the machine for a while,
 * while the machine is busy) and when released (calm again for a while,
 * after a minimum hold), with a limit on how often one process is
 * restrained. Nothing here knows an OS: the daemon samples, and applies
 * what it says. */
#ifndef CPUPOLICY_RESTRAINT_H
#define CPUPOLICY_RESTRAINT_H

#include <stdbool.h>

/* The times of a process's latest restraints kept for the rate limit:
 * at most this many a minute can be asked for. */
#define RESTRAINT_RATE_MAX 16

struct restraint_limits {
	/* A candidate uses at least share_pct percent of all the machine's
	 * CPUs, or one whole CPU (on a large machine one CPU is a small
	 * share), for qualify_ms while the machine is under pressure. */
	unsigned share_pct;
	unsigned qualify_ms;
	/* Released once under release_pct (and under half a CPU) for
	 * calm_ms, restrained for hold_ms at least. */
	unsigned release_pct;
	unsigned calm_ms;
	unsigned hold_ms;
	/* Restraints of one process a minute, at most (RESTRAINT_RATE_MAX
	 * at most): one that flaps is left alone meanwhile. */
	unsigned per_minute;
};

/* One process's record. Zeroed: not sampled yet. */
struct restraint_proc {
	unsigned long long cpu_ns, at_ns; /* the last sample */
	bool sampled;
	bool restrained;
	unsigned long long over_since_ns;  /* 0: not over the share */
	unsigned long long under_since_ns; /* 0: not under the release */
	unsigned long long restrained_ns;  /* when it was */
	unsigned long long recent_ns[RESTRAINT_RATE_MAX]; /* restraints */
	unsigned recent_count;
	/* Times the rate limit kept it from a restraint (once each time it
	 * qualified), and whether the present one was. */
	unsigned long long refused;
	bool refusing;
};

enum restraint_verdict {
	RESTRAINT_KEEP,	    /* as it is, restrained or not */
	RESTRAINT_RESTRAIN, /* restrain it now */
	RESTRAINT_RELEASE,  /* give it back what it had */
};

/* restraint.c */
void restraint_limits_default(struct restraint_limits *limits);
enum restraint_verdict restraint_judge(const struct restraint_limits *limits,
				       struct restraint_proc *p,
				       unsigned long long now_ns,
				       unsigned long long cpu_ns, unsigned cpus,
				       bool pressure);
/* A restraint undone from outside (the process became foreground, it
 * was exempted): the record says released, its history stays. */
void restraint_released(struct restraint_proc *p);

#endif
