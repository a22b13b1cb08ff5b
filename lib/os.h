/* The seam: what the portable core (lib/, policyd/, ctl/) asks of the
 * system, implemented once per system under the same file names in
 * lib/linux/ and lib/windows/ (the Makefile picks the folder). The events
 * of events.h are part of it. A call that can fail returns enum
 * os_status, decided in the backend: no errno or GetLastError is judged
 * outside it. errno is still set (translated on Windows) for the message
 * the caller logs. */
#ifndef CPUPOLICY_OS_H
#define CPUPOLICY_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "events.h"
#include "match.h"
#include "prio.h"

enum os_status {
	OS_OK,
	OS_GONE,	/* the process or thread has ended */
	OS_DENIED,	/* refused for good: a privilege, a limit, a policy */
	OS_UNSUPPORTED, /* this system, or this value here, cannot do it */
	OS_FAILED,	/* anything else: it may work later */
};

/* A process's facts are read through procinfo_fetch with this context. */
struct procinfo {
	const char *procfs;
	pid_t pid;
};

/* A process held against the reuse of its id (a pidfd, a handle). */
struct procinfo_pin {
	long handle;
};

/* procinfo.c: processes and threads */
void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts);
int procinfo_pids(const char *procfs, pid_t **pids, size_t *count);
int procinfo_threads(const char *procfs, pid_t pid, pid_t **tids,
		     size_t *count);
int procinfo_start_time(const char *procfs, pid_t pid, pid_t tid,
			unsigned long long *start);
bool procinfo_zombie(const char *procfs, pid_t pid);
int procinfo_thread_name(const char *procfs, pid_t pid, pid_t tid, char *name,
			 size_t size);
enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin);
bool procinfo_pin_ended(const struct procinfo_pin *pin);
void procinfo_unpin(struct procinfo_pin *pin);
bool procinfo_ended(pid_t pid);
bool procinfo_thread_in(pid_t pid, pid_t tid);
bool procinfo_task_exists(pid_t tid);

/* apply_prio.c: a thread's priority */
enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state);
enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted);

/* apply_place.c: a thread's CPUs */
enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set);
enum os_status apply_place_write(pid_t pid, pid_t tid,
				 hwloc_const_bitmap_t set);
int apply_place_allowed(const char *procfs, const char *sysfs, pid_t pid,
			hwloc_bitmap_t set);
int apply_place_online(const char *sysfs, hwloc_bitmap_t set);

/* The blocks below serve the front ends (cpupolicyd's set-up, the config
 * and rules they load, cpupolicyctl's checks) as much as the core. */

/* accounts.c: user and group names as the rules and the config give them
 * (on Windows, account names and their SIDs). false: no such name. */
bool accounts_user(const char *name, unsigned *id);
bool accounts_group(const char *name, unsigned *id);

/* endpoint.c: the control endpoint (a UNIX socket, a named pipe) */
size_t endpoint_path_max(void);

/* timing.c: a monotonic clock, this thread's CPU time, sleeps */
long long timing_now_ns(void);
long long timing_thread_cpu_ns(void);
void timing_sleep_ns(long long ns);
void timing_sleep_until_ns(long long when);

/* memstream.c: a stream into memory (open_memstream where the C library
 * has one). memstream_close: the text written, NUL-terminated and the
 * caller's to free, its length in *len; NULL when the stream failed. */
struct memstream {
	FILE *file;
	char *text;
	size_t len;
};
FILE *memstream_open(struct memstream *m);
char *memstream_close(struct memstream *m, size_t *len);

/* procinfo.c: this process */
pid_t procinfo_self(void);

/* apply_place.c: the CPUs this machine has, online or not */
int apply_place_present(const char *sysfs, hwloc_bitmap_t set);

#endif
