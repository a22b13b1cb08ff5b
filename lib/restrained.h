/* The processes restraint holds, and the passes that find them: while
 * the machine is under CPU pressure, every process's CPU time is sampled
 * and judged (restraint.h); a hog that is not excluded gets the lowering
 * on every thread, and gets back what each thread had when it calms down,
 * when the daemon reloads or stops, or when told to. OS-neutral: it
 * reads and writes through the seam (os.h). */
#ifndef CPUPOLICY_RESTRAINED_H
#define CPUPOLICY_RESTRAINED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "journal.h"
#include "os.h"
#include "match.h"
#include "pidmap.h"
#include "prio.h"
#include "restraint.h"

/* What the daemon says of a process before it is restrained: NULL, or
 * why not ("foreground", "rule 'x' raises it"); it may give the process
 * other settings than the config's in *target (a rule's restrain). */
typedef const char *(*restrained_exclude_fn)(void *ctx, pid_t pid,
					     unsigned long long start,
					     struct prio_target *target);

struct restrained_options {
	struct restraint_limits limits;
	/* What a restrained thread gets, each setting only lowered. */
	struct prio_target target;
	/* Work waiting this share of the time, in percent: pressure. */
	unsigned pressure_pct;
	bool dry_run;
	bool system; /* root's and system accounts' processes too */
	/* Names never restrained (the compositor, the audio server). */
	char **exempt;
	size_t exempt_count;
	restrained_exclude_fn exclude;
	void *ctx;
	/* Where each restraint is written before it is applied, and
	 * forgotten at its release (NULL: nowhere): a daemon killed while
	 * it holds one puts it back at its next start (restrained_replay). */
	struct journal *journal;
};

/* One thread's priority before the restraint and after it. */
struct restrained_thread {
	pid_t tid;
	struct prio_state original, applied;
};

struct restrained_proc {
	pid_t pid;
	unsigned long long start;
	unsigned long generation; /* the last pass that saw it */
	struct restraint_proc judge;
	char name[MATCH_COMM_MAX];
	/* Held: the restraint is on its threads (or, in a dry run, would
	 * be), since since_ns; what made it: its share of all CPUs over the
	 * samples that qualified it, and the pressure then. */
	bool held;
	struct prio_target target; /* what it gets */
	long long since_ns;
	unsigned share_pct, pressure_pct;
	unsigned long long over_cpu_ns, over_from_ns;
	struct restrained_thread *threads;
	size_t thread_count;
	bool exempted; /* by cpupolicyctl restraint exempt, while it runs */
	/* Why it was not restrained the last time it qualified; "": it
	 * was, or never qualified. */
	char why_not[96];
	long session;
	/* Held: the group its CPU share is weighed in (NULL: none, or the
	 * restraint does not lower the nice). */
	struct cpugroup *group;
};

/* A group lowered with its members (restrained_group.c). */
struct restrained_group {
	struct cpugroup group;
	long original, applied;
	long long since_ns;
	bool restoring; /* given back, the system said not now: again */
};

struct restrained_counters {
	unsigned long long passes, restraints, releases, refused, excluded;
	unsigned long long left_alone; /* threads changed by others meanwhile */
	unsigned long long groups;     /* groups lowered */
};

struct restrained {
	struct restrained_options options;
	struct pidmap procs; /* pid -> struct restrained_proc */
	unsigned long generation;
	long long now_ns; /* the latest pass's time: releases between passes */
	unsigned cpus;
	unsigned held_count;
	struct restrained_group *groups;
	size_t group_count;
	bool paused;
	struct restrained_counters counters;
};

/* restrained.c */
void restrained_init(struct restrained *r,
		     const struct restrained_options *options, unsigned cpus);
/* Every restraint given back, and the records freed. */
void restrained_free(struct restrained *r, const char *why);
/* One pass at now_ns with the pressure since the last: true while more
 * passes are needed (under pressure, or something is held). */
bool restrained_pass(struct restrained *r, long long now_ns,
		     unsigned pressure_pct);
/* Given back at once, by the daemon's word (a reload, foreground, an
 * exemption): 0, or -1 where pid holds nothing. */
int restrained_release(struct restrained *r, pid_t pid, const char *why);
void restrained_release_all(struct restrained *r, const char *why);
/* Never restrained while it runs, and given back now: -1 where there is
 * no such process. */
int restrained_exempt(struct restrained *r, pid_t pid);
const struct restrained_proc *restrained_find(const struct restrained *r,
					      pid_t pid);
/* What an earlier run's journal says it held, given back where the
 * process still runs and its threads still hold it; the journal emptied.
 * The number of processes given back. */
size_t restrained_replay(struct journal *journal);

/* restrained_group.c: the group lowered with a held process (NULL:
 * none), and what kind it is ("autogroup", "cgroup"), for status. */
const struct restrained_group *restrained_group_of(
	const struct restrained *r, const struct restrained_proc *p);
const char *restrained_group_kind(const struct cpugroup *group);
/* For restrained.c: a held process's group found
 * (after its threads are lowered), left (before they are given back),
 * and every pass's look at which groups are whole; a journal entry of a
 * group given back after a crash. */
void restrained_group_find(struct restrained_proc *p);
void restrained_group_leave(struct restrained *r,
			    const struct restrained_proc *p, const char *why);
void restrained_group_pass(struct restrained *r, long long now_ns, bool under);
void restrained_group_free(struct restrained *r, const char *why);
bool restrained_group_replay(struct journal *journal,
			     const struct journal_entry *entry);

#endif
