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

enum events_kind {
	EVENTS_KIND_EXEC,
	EVENTS_KIND_FORK,   /* a new process; parent, parent_tid: its forker */
	EVENTS_KIND_THREAD, /* a new thread; parent_tid: the creating thread */
	EVENTS_KIND_RENAME, /* the name of a process changed */
	EVENTS_KIND_IDS,    /* the user or group of a process changed */
	EVENTS_KIND_EXIT,   /* a thread exited; the main one when tid == pid */
};

struct events_event {
	enum events_kind kind;
	pid_t pid; /* the process (thread group) */
	pid_t tid;
	pid_t parent, parent_tid;
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

struct events {
	int fd;
	bool filtering;	 /* the kernel filters events for us */
	unsigned wanted; /* enum events_want bits subscribed */
	struct events_acks {
		unsigned count;
		int last_error; /* the kernel's answer to a subscription */
	} acks;
	unsigned long long received, overflows;
	/* The backend's own code of the last failure (Linux: an errno),
	 * for events_why_not. */
	int error;
	/* The backend's own state (Windows: the ETW session or the poll);
	 * NULL on Linux. */
	void *os;
	/* Windows: the poll's interval when ETW is not there, set by the
	 * caller before events_open (0: the default); Linux ignores it. */
	unsigned poll_ms;
};

/* events.c. events_open and events_adopt say why they failed through
 * events_why_not, given their status: the event holds the detail. */
enum os_status events_open(struct events *ev, unsigned buffer_kb);
enum os_status events_adopt(struct events *ev, int fd, unsigned buffer_kb);
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
