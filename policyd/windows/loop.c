/* Windows: the daemon's one loop is a WaitForMultipleObjects over a stop
 * and a reload event (set by the service manager's handler or the
 * console's, both on threads of their own), a waitable timer (the tick),
 * the events backend's handle (ETW's, or its poll timer), the pipe
 * instance waiting for a client and each client's I/O; what each wake-up
 * does is loop_common.c's, as on Linux. */
#include <stdio.h>
#include <stdlib.h>

#include <windows.h>

#include "internal.h"
#include "log.h"
#include "os.h"
#include "util.h"
#include "win.h"

struct loop {
	HANDLE timer;
	HANDLE sample; /* restraint's passes */
};

enum loop_source {
	LOOP_SOURCE_STOP,
	LOOP_SOURCE_RELOAD,
	LOOP_SOURCE_TIMER,
	LOOP_SOURCE_SAMPLE,
	LOOP_SOURCE_LISTEN,
	LOOP_SOURCE_EVENTS,
	LOOP_SOURCE_CLIENT,
};

struct loop_wait {
	HANDLE handles[MAXIMUM_WAIT_OBJECTS];
	enum loop_source sources[MAXIMUM_WAIT_OBJECTS];
	struct control_client *clients[MAXIMUM_WAIT_OBJECTS];
	const struct listen_conn *conns[MAXIMUM_WAIT_OBJECTS];
	DWORD count;
};

/* Made before anything else and never closed: other threads set them
 * until the process ends. The stop event stays set (manual reset). */
static HANDLE loop_stop_event, loop_reload_event, loop_exited_event;
static const char *volatile loop_stop_why = "stop";

void loop_request_stop(const char *why)
{
	loop_stop_why = why;
	SetEvent(loop_stop_event);
}

void loop_request_reload(void)
{
	SetEvent(loop_reload_event);
}

static void loop_exited(void)
{
	SetEvent(loop_exited_event);
}

/* Ctrl+C and Ctrl+Break stop the daemon as TERM does on Linux. A closed
 * console or a shutdown ends the process once the handler returns: it
 * waits (Windows allows 5 s) for the daemon to restore and exit. A
 * logoff is not the daemon's business. */
static BOOL WINAPI loop_console(DWORD type)
{
	switch (type) {
	case CTRL_C_EVENT:
		loop_request_stop("Ctrl+C");
		return TRUE;
	case CTRL_BREAK_EVENT:
		loop_request_stop("Ctrl+Break");
		return TRUE;
	case CTRL_CLOSE_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		loop_request_stop(type == CTRL_CLOSE_EVENT ? "console closed"
							   : "system shutdown");
		WaitForSingleObject(loop_exited_event, 4500);
		return TRUE;
	default:
		return FALSE;
	}
}

/* First thing at start: a Ctrl+C during the start waits for the loop,
 * which stops cleanly. */
enum os_status loop_prepare(void)
{
	loop_stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	loop_reload_event = CreateEventW(NULL, FALSE, FALSE, NULL);
	loop_exited_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!loop_stop_event || !loop_reload_event || !loop_exited_event)
		return status_of_win32(GetLastError());
	atexit(loop_exited);
	return SetConsoleCtrlHandler(loop_console, TRUE)
		       ? OS_OK
		       : status_of_win32(GetLastError());
}

/* The tick restarts from now, and so do the rescans. */
enum os_status loop_arm(struct daemon *d)
{
	unsigned ms = loop_tick_ms(d);
	LARGE_INTEGER due;

	due.QuadPart = -(LONGLONG)ms * 10000; /* 100 ns units, relative */
	d->last_rescan_ns = timing_now_ns();
	return SetWaitableTimer(d->loop->timer, &due, (LONG)ms, NULL, NULL,
				FALSE)
		       ? OS_OK
		       : status_of_win32(GetLastError());
}

enum os_status loop_sample_arm(struct daemon *d, unsigned ms)
{
	LARGE_INTEGER due;

	if (!d->loop)
		return OS_OK;
	if (!ms)
		return CancelWaitableTimer(d->loop->sample)
			       ? OS_OK
			       : status_of_win32(GetLastError());
	due.QuadPart = -(LONGLONG)ms * 10000;
	return SetWaitableTimer(d->loop->sample, &due, (LONG)ms, NULL, NULL,
				FALSE)
		       ? OS_OK
		       : status_of_win32(GetLastError());
}

enum os_status loop_setup(struct daemon *d)
{
	struct loop *l = xcalloc(1, sizeof(*l));

	d->loop = l;
	l->timer = CreateWaitableTimerW(NULL, FALSE, NULL);
	l->sample = CreateWaitableTimerW(NULL, FALSE, NULL);
	if (!l->timer || !l->sample)
		return status_of_win32(GetLastError());
	return loop_arm(d);
}

void loop_teardown(struct daemon *d)
{
	struct loop *l = d->loop;

	if (!l)
		return;
	if (l->timer)
		CloseHandle(l->timer);
	if (l->sample)
		CloseHandle(l->sample);
	free(l);
	d->loop = NULL;
}

/* The events failed for good: d->polling keeps their handle out of the
 * wait from now on. */
void loop_events_gone(struct daemon *d)
{
	(void)d;
}

/* ETW filters by itself, and a poll reads snapshots: nothing to leave
 * unread. */
void loop_events_read(struct daemon *d, bool on)
{
	(void)d;
	(void)on;
}

/* No exec filter on Windows (execfilter_open says nothing). */
void loop_execs_gone(struct daemon *d)
{
	(void)d;
}

/* ETW where its session opened, else the backend's poll of snapshots
 * (events_poll_ms); "polling" alone when the events failed for good and
 * the rescans do everything. */
const char *loop_events_source(const struct daemon *d)
{
	if (d->polling)
		return "rescans only (no process events)";
	return events_etw(&d->events, NULL, 0)
		       ? "an ETW session"
		       : "snapshots polled every events_poll_ms";
}

const char *loop_events_word(const struct daemon *d)
{
	if (d->polling)
		return "rescans";
	return events_etw(&d->events, NULL, 0) ? "etw" : "polling";
}

/* Every client with a connection is waited on, each time round: its
 * handle is signalled when its pending read or write completes. */
enum os_status loop_watch_client(struct daemon *d, struct control_client *c,
				 bool sending)
{
	(void)d;
	(void)c;
	(void)sending;
	return OS_OK;
}

void loop_unwatch_client(struct daemon *d, struct control_client *c)
{
	(void)d;
	(void)c;
}

static void loop_add(struct loop_wait *w, HANDLE h, enum loop_source source,
		     struct control_client *c)
{
	if (!h || w->count == MAXIMUM_WAIT_OBJECTS)
		return;
	w->handles[w->count] = h;
	w->sources[w->count] = source;
	w->clients[w->count] = c;
	w->conns[w->count] = c ? c->conn : NULL;
	w->count++;
}

static void loop_gather(struct daemon *d, struct loop_wait *w)
{
	HANDLE events;

	w->count = 0;
	loop_add(w, loop_stop_event, LOOP_SOURCE_STOP, NULL);
	loop_add(w, loop_reload_event, LOOP_SOURCE_RELOAD, NULL);
	loop_add(w, d->loop->timer, LOOP_SOURCE_TIMER, NULL);
	loop_add(w, d->loop->sample, LOOP_SOURCE_SAMPLE, NULL);
	listen_rearm(d);
	loop_add(w, listen_handle(d->listen), LOOP_SOURCE_LISTEN, NULL);
	events = d->polling ? NULL : events_handle(&d->events);
	loop_add(w, events, LOOP_SOURCE_EVENTS, NULL);
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		struct control_client *c = &d->clients[i];

		if (c->conn)
			loop_add(w, listen_conn_handle(c->conn),
				 LOOP_SOURCE_CLIENT, c);
	}
}

static void loop_dispatch(struct daemon *d, const struct loop_wait *w, DWORD i)
{
	switch (w->sources[i]) {
	case LOOP_SOURCE_STOP:
		loop_on_stop(d, loop_stop_why);
		break;
	case LOOP_SOURCE_RELOAD:
		loop_on_reload(d);
		break;
	case LOOP_SOURCE_TIMER:
		loop_on_tick(d);
		break;
	case LOOP_SOURCE_SAMPLE:
		restrain_on_sample(d);
		break;
	case LOOP_SOURCE_LISTEN:
		control_accept(d);
		break;
	case LOOP_SOURCE_EVENTS:
		if (!d->polling)
			loop_on_events(d);
		break;
	case LOOP_SOURCE_CLIENT:
		control_client_io(d, w->clients[i], true);
		break;
	}
}

/* Whether a source after the one the wait named is signalled too, and
 * still the same: a client dropped by an earlier dispatch had its handle
 * closed (the slot may hold a new client by now: it is asked afresh). */
static bool loop_ready(struct daemon *d, const struct loop_wait *w, DWORD i)
{
	HANDLE h = w->handles[i];

	switch (w->sources[i]) {
	case LOOP_SOURCE_CLIENT:
		if (w->clients[i]->conn != w->conns[i] || !w->conns[i])
			return false;
		h = listen_conn_handle(w->clients[i]->conn);
		break;
	case LOOP_SOURCE_LISTEN:
		h = listen_handle(d->listen);
		break;
	case LOOP_SOURCE_EVENTS:
		if (d->polling)
			return false;
		h = events_handle(&d->events);
		break;
	case LOOP_SOURCE_STOP:
	case LOOP_SOURCE_RELOAD:
	case LOOP_SOURCE_TIMER:
	case LOOP_SOURCE_SAMPLE:
		break;
	}
	return h && WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
}

/* WaitForMultipleObjects names the first source signalled; the others
 * signalled with it are served in the same round, so that a busy source
 * early in the list cannot starve the later ones. */
enum os_status loop_run(struct daemon *d)
{
	struct loop_wait w;

	while (!d->stop) {
		DWORD r, first;

		loop_gather(d, &w);
		r = WaitForMultipleObjects(w.count, w.handles, FALSE, INFINITE);
		if (r >= WAIT_OBJECT_0 + w.count) {
			DWORD error = GetLastError();
			char why[256];

			status_message(error, why, sizeof(why));
			log_error("WaitForMultipleObjects: %s", why);
			return status_of_win32(error);
		}
		first = r - WAIT_OBJECT_0;
		loop_dispatch(d, &w, first);
		for (DWORD i = first + 1; i < w.count && !d->stop; i++) {
			if (loop_ready(d, &w, i))
				loop_dispatch(d, &w, i);
		}
		loop_batch(d);
	}
	return OS_OK;
}
