/* The saturation check's load and latency probe: what the workers run
 * (work_common.c), and the worker processes as the system makes them
 * (linux/work.c, windows/work.c). */
#ifndef CPUPOLICY_WORK_H
#define CPUPOLICY_WORK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "osstatus.h"

#define WORK_MAX_THREADS 1024
#define WORK_PROBE_MAX	 (1u << 20)

enum work_kind {
	WORK_KIND_TAN,
	WORK_KIND_INT,
	WORK_KIND_MEM,
};

/* Shared between cpupolicyctl and the worker process. */
struct work_shared {
	volatile int ready, start, stop;
	volatile int failed; /* a worker thread's own setup failed */
	unsigned started;
	pid_t tid[WORK_MAX_THREADS]; /* for their CPU time */
	unsigned long long count[WORK_MAX_THREADS];
	double cpu_s[WORK_MAX_THREADS];
	unsigned long long sink; /* keeps the work from being optimised out */
};

struct work_spec {
	unsigned threads;
	enum work_kind kind;
	/* In the worker process, before its threads start (its priority):
	 * -1 to fail; and for each thread (its placement), in place of
	 * work_spread: its status, as work_pin's. */
	int (*setup)(void *ctx);
	enum os_status (*thread_setup)(void *ctx, pthread_t thread,
				       unsigned index);
	/* In each worker thread as it starts, for what is the thread's own
	 * and not inherited from its creator (a Windows thread's level). */
	int (*thread_start)(void *ctx);
	void *setup_ctx;
	/* The same setup said as data, for a system whose worker process is
	 * a fresh copy of the program (Windows) rather than a fork: the
	 * --compare rule body, or the CPUs the threads are pinned to in
	 * turn. */
	const char *policy;
	const int *pins;
	unsigned pin_count;
};

#define WORK_POLICY_MAX 4096
#define WORK_PINS_MAX	64

/* A step as the worker program reads it (work_attach). */
struct work_order {
	unsigned threads;
	enum work_kind kind;
	char policy[WORK_POLICY_MAX];
	int pins[WORK_PINS_MAX];
	unsigned pin_count;
};

struct work_probe {
	volatile int stop;
	long long period_ns;
	unsigned count;
	long long at[WORK_PROBE_MAX];	/* when each wake-up was due */
	long long late[WORK_PROBE_MAX]; /* how late it came, ns */
};

/* work_common.c: in the worker process, its threads, the probe */
unsigned long long work_total(const struct work_shared *sh, unsigned threads);
int work_child(const struct work_spec *spec, struct work_shared *sh);
void work_probe_run(struct work_probe *probe);

/* linux/work.c, windows/work.c: worker processes and their memory shared
 * with cpupolicyctl; a thread's id (for its CPU time) and placement.
 * What can fail returns the status the backend made of the system's
 * error; a worker that ended before it was ready, or that failed a step
 * (its exit status), is OS_FAILED. work_start and work_probe_start: the
 * worker's pid in *pid, -1 when it did not start. */
struct work_shared *work_shared_new(void);
void work_shared_free(struct work_shared *sh);
enum os_status work_start(const struct work_spec *spec, struct work_shared *sh,
			  pid_t *pid);
enum os_status work_stop(pid_t pid, struct work_shared *sh);
struct work_probe *work_probe_new(void);
void work_probe_free(struct work_probe *probe);
enum os_status work_probe_start(struct work_probe *probe, long period_us,
				pid_t *pid);
void work_probe_stop(pid_t pid, struct work_probe *probe);
pid_t work_thread_id(void);
enum os_status work_pin(pthread_t thread, hwloc_const_bitmap_t set);
/* A worker without a placement of its own, where the system needs one
 * for the threads to reach every CPU (Windows' processor groups). */
enum os_status work_spread(pthread_t thread, unsigned index, unsigned threads);
/* Whether this system has worker processes yet; why not when not. */
bool work_supported(char *why, size_t size);
/* In a worker program started by work_start (Windows; `saturate --worker
 * ARG`): the step it is to run and the memory it shares; NULL with a
 * message where ARG names none (and always where workers are forks). */
struct work_shared *work_attach(const char *arg, struct work_order *order);

/* linux/hogs.c, windows/hogs.c: saturate --compare --restraint's CPU
 * hogs, processes that spin, counting, until stopped or until_ns
 * (timing_now_ns's clock) whatever happens to cpupolicyctl. They are not
 * its children: the daemon counts a foreground process's descendants as
 * foreground. hogs_user: the account they run as, the caller's own, or
 * as root the one named (NULL: the user who ran sudo); -1 and why where
 * there is none restraint would lower. */
struct hogs;
struct hogs_user {
	unsigned uid, gid;
	bool root; /* cpupolicyctl runs as root: the hogs change user */
	char name[64];
};
bool hogs_supported(char *why, size_t size);
int hogs_user(const char *name, struct hogs_user *u, char *why, size_t size);
struct hogs *hogs_start(unsigned count, const struct hogs_user *u,
			long long until_ns, char *why, size_t size);
pid_t hogs_pid(const struct hogs *h, unsigned i);
void hogs_counts(const struct hogs *h, unsigned long long *spins,
		 long long *cpu_ns);
/* Killed, each waited for until a deadline; false when one outlived it. */
bool hogs_stop(struct hogs *h);

#endif
