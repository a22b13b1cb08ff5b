/* The managed processes: what each matched, what was applied to each of
 * its threads, and the reactions to process events (exec, new thread,
 * rename, exit), rescans and rule reloads. Shared by the daemon and the
 * one-shot "cpupolicyctl apply". */
#ifndef CPUPOLICY_MANAGE_H
#define CPUPOLICY_MANAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "match.h"
#include "pidmap.h"
#include "place.h"
#include "prio.h"
#include "rules.h"

struct manage_proc;

/* What of a followed process must reach the daemon besides its execs:
 * its children's execs (the rule's rules_follows_children), its end at
 * once (it holds power, given back when it ends). */
enum manage_follow_how {
	MANAGE_FOLLOW_CHILDREN = 1 << 0,
	MANAGE_FOLLOW_EXIT = 1 << 1,
};

/* A process whose next exec must reach the daemon, and what else. */
struct manage_followed {
	pid_t pid;
	unsigned how; /* enum manage_follow_how */
};

struct manage_options {
	bool dry_run;
	bool respect_changes; /* leave alone what someone else changed */
	bool polling;	      /* no exec events: rescans match everything */
	/* Told before the first process is managed and after the last one
	 * went: the daemon then needs (or no longer needs) thread events. */
	void (*tracking)(void *ctx, bool on);
	/* Told when a managed process starts or stops holding its rule's
	 * power settings (also on a change of rule). */
	void (*hold)(void *ctx, const struct manage_proc *p, bool on);
	/* Told when a process is about to be managed, before anything is
	 * applied to it, and when its rule changes: its later execs must be
	 * seen whatever they run (an exec filter must let them through),
	 * and what how says (enum manage_follow_how). */
	void (*follow)(void *ctx, pid_t pid, unsigned how);
	void *hook_ctx;
};

/* Threads tracked per process, at most: a process with more keeps the
 * rule's values on these, and the rest is said once (cpupolicyd(8)). */
#define MANAGE_THREADS_MAX 65536
/* Children of managed processes followed until their exec, at most. */
#define MANAGE_HEIRS_MAX 65536

/* Priority or placement as the kernel took it; "original" is what the
 * thread would have without any rule, "applied" what it held after our
 * last write (read back: only what the kernel took). */
struct manage_thread {
	pid_t tid;
	bool prio_done;	 /* applied, or already as wanted */
	bool left_alone; /* changed by someone else after we applied */
	bool prio_failed, place_failed; /* refused for good: said once */
	bool inherited; /* its original is what its creator had unruled */
	struct prio_state original, applied;
	int slot; /* spread domain */
	bool place_done;
	hwloc_bitmap_t original_mask, applied_mask; /* NULL until placed */
	unsigned long shared_stamp; /* the process's write "applied" has */
};

struct manage_proc {
	pid_t pid;
	unsigned long long start_time; /* with pid: the identity */
	const struct rule *rule;
	struct prio_target prio;
	struct place_plan place;
	char exe[256];
	unsigned next_slot;
	bool holds_power;
	bool leader_exited; /* its main thread ended; others may run on */
	bool threads_capped;
	/* The process-wide placement (apply_place_process) tried for the
	 * current plan; set on the system, to be given back. */
	bool process_tried, process_placed;
	/* The process's own default before the first placement (empty:
	 * none), and what was set: given back while it still holds. */
	hwloc_bitmap_t process_original, process_applied;
	unsigned long generation; /* last rescan that saw it */
	/* The leader's original and what the rule gave it: threads created
	 * later inherit "applied" and get "original" as theirs, and so do
	 * the children it forks. */
	struct prio_state original, applied;
	bool have_prio;
	hwloc_bitmap_t original_mask, applied_mask;
	/* Where the process ran by its own choice when first planned (its
	 * processor groups on Windows), before any write of ours changed
	 * it: later plans judge by it, not by what the rule did. */
	hwloc_bitmap_t own_mask;
	/* Windows: what the last write through any thread left of the
	 * process's own values (class, EcoQoS), and its stamp; a thread
	 * takes them into its "applied" when it is next looked at. */
	struct prio_state shared;
	unsigned long shared_stamp;
	struct manage_thread *threads;
	size_t thread_count, thread_capacity;
	struct pidmap thread_index; /* tid -> index + 1 into threads */
};

/* A child a managed process forked that has not exec'd yet: it carries
 * the rule's values by inheritance, and gets back what it would have had
 * without the rule when it execs a program no rule matches. */
struct manage_heir {
	unsigned long long start_time;
	bool have_prio;
	struct prio_state original, inherited;
	hwloc_bitmap_t original_mask, inherited_mask; /* NULL: not placed */
};

struct manage_counters {
	unsigned long long execs, threads, renames, exits, forks;
	unsigned long long matches, applies, failures, left_alone;
	unsigned long long rescans, pid_reuse, inherited_restored;
};

struct manage {
	struct manage_options options;
	const struct rules *rules;
	struct match_index index;
	struct place_topology *topology; /* NULL: placement not needed */
	struct pidmap procs;		 /* pid -> struct manage_proc */
	struct pidmap heirs;		 /* pid -> struct manage_heir */
	bool heirs_capped;
	unsigned long generation;
	struct manage_counters counters;
};

/* What an exec's report said of the process (an events_event's start and
 * comm). */
struct manage_known {
	unsigned long long start;  /* its start time; 0: not said */
	char comm[MATCH_COMM_MAX]; /* its name; "": not said */
};

/* manage.c */
void manage_init(struct manage *m, const struct manage_options *options,
		 struct place_topology *topology);
void manage_free(struct manage *m);
void manage_set_rules(struct manage *m, const struct rules *rules);
void manage_exec(struct manage *m, pid_t pid);
void manage_fork(struct manage *m, pid_t parent, pid_t parent_tid, pid_t child);
void manage_thread_new(struct manage *m, pid_t pid, pid_t tid, pid_t creator);
void manage_rename(struct manage *m, pid_t pid);
void manage_exec_sent(struct manage *m, pid_t pid);
void manage_exec_known(struct manage *m, pid_t pid,
		       const struct manage_known *known);
void manage_exit(struct manage *m, pid_t pid, pid_t tid);
void manage_end(struct manage *m, pid_t pid, pid_t tid,
		unsigned long long start);
void manage_rescan(struct manage *m);
const struct manage_proc *manage_find(const struct manage *m, pid_t pid);
size_t manage_followed(const struct manage *m,
		       struct manage_followed **followed);

#endif
