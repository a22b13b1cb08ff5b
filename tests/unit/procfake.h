/* A fake process table behind the seam's process, priority and placement
 * calls (os.h), for the tests of the managed processes and of the loop
 * that drives them (tests/unit/procfake.c). Its state is one variable, as
 * the seam's calls carry no context: a test resets it in its set-up,
 * starts processes, arms a trouble and reads the counts. */
#ifndef PROCFAKE_H
#define PROCFAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "os.h"

enum {
	PROCFAKE_PROCS = 8,
	PROCFAKE_THREADS = 16384 /* a pool's worth: the cost test's largest */
};

struct procfake_thread {
	pid_t tid;
	struct prio_state prio;
};

struct procfake_proc {
	pid_t pid;
	unsigned long long start;
	const char *exe;
	const char *comm; /* its name, when it renamed itself; NULL: exe's */
	bool zombie;	  /* its main thread ended, others run on */
	/* What restraint samples (procinfo_usage): its user, CPU time and
	 * age in ns, its parent. A test moves them on. */
	unsigned uid;
	unsigned long long cpu_ns, age_ns, wait_ns;
	pid_t ppid;
	long session;
	int group; /* 1 + its index in procfake.groups; 0: none */
	struct procfake_thread *threads; /* its slot of the fake's pool */
	size_t thread_count;
	/* As Windows keeps the class and EcoQoS: once, for the process
	 * (process_wide), laid over what each thread reads. */
	bool shared_set;
	struct prio_state shared;
};

/* A group the scheduler weighs its members in (os.h, cpugroup_of): an
 * autogroup's members are its session's, a cgroup's its processes'. */
struct procfake_group {
	enum cpugroup_kind kind;
	const char *id;
	long value;
	bool leaf;
	unsigned writes;
	unsigned busy; /* writes to answer OS_FAILED, as Linux's 100 ms limit */
};

struct procfake {
	struct procfake_proc procs[PROCFAKE_PROCS];
	size_t count;
	struct procfake_group groups[4];
	/* One-shot troubles, armed by a test. */
	pid_t reuse_on_write;  /* this pid ends and a new process takes it
				  while its first write happens */
	pid_t gone_on_write;   /* this thread ends at its first write */
	enum os_status refuse; /* every priority write answers this */
	unsigned writes;       /* priority writes that reached the system */
	unsigned reads;	       /* priority reads */
	unsigned mask_reads;   /* affinity reads */
	unsigned exe_checks;   /* reads of a process's exe file identity */
	unsigned comm_reads;   /* reads of a process's name */
	unsigned listings;     /* listings of a process's threads */
	unsigned usages;       /* samples of a process's CPU time */
	/* As Windows: nice, policy and EcoQoS (the class) are the
	 * process's, a write through one thread sets them for all. */
	bool process_wide;
};

extern struct procfake procfake;

/* No process, no trouble armed, nice per thread (as Linux). */
void procfake_reset(void);
/* A process of THREADS threads (tids PID, PID + 1, ...), started now, as
 * the kernel starts them: nice 0, SCHED_OTHER; it takes the slot of a
 * process of the same pid. */
struct procfake_proc *procfake_start(pid_t pid, const char *exe,
				     size_t threads);
struct procfake_proc *procfake_proc(pid_t pid);
struct procfake_thread *procfake_thread(pid_t pid, pid_t tid);
void procfake_drop_thread(struct procfake_proc *p, pid_t tid);

#endif
