/* Process events from the system (on Linux the netlink proc connector):
 * exec, forks and new threads, renames and id changes, exits. Lost events
 * are reported as an overflow, for the caller to rescan. Part of the
 * seam: each backend implements it (lib/OS/events.c). */
#ifndef CPUPOLICY_EVENTS_H
#define CPUPOLICY_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "osstatus.h"
#include "ostypes.h"

enum events_kind {
	EVENTS_KIND_EXEC,
	EVENTS_KIND_FORK,   /* a new process; parent, parent_tid: its forker */
	EVENTS_KIND_THREAD, /* a new thread; parent_tid: the creating thread */
	EVENTS_KIND_RENAME, /* the name of a process changed */
	EVENTS_KIND_IDS,    /* the user or group of a process changed */
	EVENTS_KIND_EXIT,   /* a thread exited; the main one when tid == pid */
	EVENTS_KIND_END,    /* the last thread (tid) exited: the process ended;
			     * start: its start time (procinfo_start_time) */
};

struct events_event {
	enum events_kind kind;
	pid_t pid; /* the process (thread group) */
	pid_t tid;
	pid_t parent, parent_tid;
	/* EVENTS_KIND_END; EVENTS_KIND_EXEC when the system's report says
	 * it (an exec filter's), else 0 */
	unsigned long long start;
	/* EVENTS_KIND_EXEC: the name the exec gave it, when the report
	 * says it; else "" */
	char comm[OS_NAME_MAX];
};

/* What a listener may ask the kernel for (Linux 6.6 and later filter
 * for it; older kernels send everything). */
enum events_want {
	EVENTS_WANT_THREADS = 1 << 0, /* forks and exits */
	EVENTS_WANT_RENAMES = 1 << 1,
	EVENTS_WANT_IDS = 1 << 2,
	EVENTS_WANT_EXECS = 1 << 3, /* not when an exec filter sends them */
};

typedef void (*events_fn)(void *ctx, const struct events_event *event);

/* What events_open is given: each system takes what it has use for. */
struct events_options {
	unsigned buffer_kb; /* Linux: the socket's receive buffer */
	/* Windows: the poll's interval when ETW is not there (0: the
	 * default). */
	unsigned poll_ms;
};

struct events {
	bool filtering;	 /* the system filters events for us */
	unsigned wanted; /* enum events_want bits subscribed */
	unsigned long long received, overflows;
	/* The backend's own (ostypes.h): its socket or session, and the
	 * code of its last failure for events_why_not. */
	EVENTS_PRIVATE_FIELDS
};

/* events.c. events_open and events_adopt say why they failed through
 * events_why_not, given their status: the event holds the detail.
 * events_adopt takes what a service manager passed as the system's
 * handle, as policyd's service_passed holds it (Linux: a descriptor). */
/* Events not open, which events_close leaves alone. */
void events_init(struct events *ev);
enum os_status events_open(struct events *ev, const struct events_options *opt);
enum os_status events_adopt(struct events *ev, long passed,
			    const struct events_options *opt);
void events_close(struct events *ev);
/* Reads what is there; *lost: events were lost, and the caller rescans. */
enum os_status events_read(struct events *ev, events_fn fn, void *ctx,
			   bool *lost);
enum os_status events_want(struct events *ev, unsigned wanted);
/* Why events_open or events_adopt failed with status, and what would
 * make it work. */
void events_why_not(const struct events *ev, enum os_status status, char *buf,
		    size_t size);

#endif
