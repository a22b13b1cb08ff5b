/* Windows: process and thread events. An ETW real-time session on the
 * Microsoft-Windows-Kernel-Process provider (process and thread start and
 * stop) where one can be opened: an administrator's, and not under Wine,
 * whose OpenTrace fails. Otherwise a poll: a Toolhelp snapshot of every
 * process and thread each poll_ms, diffed against the one before. Which
 * is used, and why, is logged once. Either way the loop waits on one
 * handle, events_handle: a synchronization waitable timer, periodic for
 * the poll, set to fire at once by the ETW consumer thread when it has
 * queued events. A new process is an exec (with its parent), a new
 * thread a thread, an end an exit (tid == pid for the process). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <evntcons.h>
#include <evntrace.h>
#include <tlhelp32.h>

#include "log.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define EVENTS_POLL_DEFAULT_MS 250
#define EVENTS_POLL_MIN_MS     10
/* Events queued by the consumer thread and not yet read: beyond this the
 * loop is behind, and a rescan serves better than more memory. */
#define EVENTS_QUEUE_MAX 65536

/* {22FB2CD6-0E7B-422B-A0C7-2FAD1FD0E716} */
static const GUID events_kernel_process = {
	0x22fb2cd6,
	0x0e7b,
	0x422b,
	{0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16},
};
/* Not in the SDK's evntrace.h (phnt's ntwmi.h: events_props). */
#define EVENTS_TRACE_USE_MS_FLUSH_TIMER 0x00000010
/* How late a start may reach the consumer: well inside the 100 ms the
 * class is to be applied in (check.ps1's LatencyLimitMs). */
#define EVENTS_FLUSH_MS	       20
#define EVENTS_KEYWORD_PROCESS 0x10ull
#define EVENTS_KEYWORD_THREAD  0x20ull
static const wchar_t events_session[] = L"cpupolicyd-process-events";

struct events_win {
	HANDLE timer;
	bool etw;
	char why_not[160]; /* why the poll, when it is */
	unsigned poll_ms;
	/* The poll's last snapshot. */
	struct events_snapshot last;
	/* ETW: the session, its consumer thread and what it queued. */
	TRACEHANDLE session, consumer;
	HANDLE thread;
	CRITICAL_SECTION lock;
	struct events_event *queue;
	size_t queued, cap;
	bool overflowed, ended;
	unsigned long lost_buffers;
	union {
		EVENT_TRACE_PROPERTIES props;
		unsigned char bytes[sizeof(EVENT_TRACE_PROPERTIES) +
				    2 * sizeof(events_session)];
	} props;
};

static struct events_win *events_win(const struct events *ev)
{
	return ev->os;
}

HANDLE events_handle(const struct events *ev)
{
	const struct events_win *w = events_win(ev);

	return w ? w->timer : NULL;
}

bool events_etw(const struct events *ev, char *why, size_t size)
{
	const struct events_win *w = events_win(ev);

	if (size)
		snprintf(why, size, "%s", w ? w->why_not : "not open");
	return w && w->etw;
}

/* -- snapshots and their diff (pure) -- */

void events_snapshot_add(struct events_snapshot *s, DWORD pid, DWORD tid,
			 DWORD parent, unsigned long long start)
{
	if (s->count == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->entries =
			xreallocarray(s->entries, s->cap, sizeof(*s->entries));
	}
	s->entries[s->count++] = (struct events_entry){
		.pid = pid, .tid = tid, .parent = parent, .start = start};
}

static int events_entry_compare(const void *a, const void *b)
{
	const struct events_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

void events_snapshot_sort(struct events_snapshot *s)
{
	if (s->count > 1)
		qsort(s->entries, s->count, sizeof(*s->entries),
		      events_entry_compare);
}

void events_snapshot_free(struct events_snapshot *s)
{
	free(s->entries);
	*s = (struct events_snapshot){0};
}

static void events_emit(events_fn fn, void *ctx, enum events_kind kind,
			DWORD pid, DWORD tid, DWORD parent)
{
	struct events_event e = {
		.kind = kind,
		.pid = (pid_t)pid,
		.tid = (pid_t)tid,
		.parent = (pid_t)parent,
	};

	fn(ctx, &e);
}

/* A process is the same one while its id, parent and start stamp are. */
static bool events_same(const struct events_entry *a,
			const struct events_entry *b)
{
	return a->pid == b->pid && a->tid == b->tid &&
	       (a->tid != 0 ||
		(a->parent == b->parent && a->start == b->start));
}

static void events_gone(const struct events_entry *e, events_fn fn, void *ctx)
{
	if (e->tid == 0)
		events_emit(fn, ctx, EVENTS_KIND_EXIT, e->pid, e->pid, 0);
	else
		events_emit(fn, ctx, EVENTS_KIND_EXIT, e->pid, e->tid, 0);
}

/* Ends first, then starts: a process that ended and began anew under the
 * same id in one interval is told as an exit and an exec. A new
 * process's threads are not told apart: the exec applies to them all. */
void events_diff(const struct events_snapshot *before,
		 const struct events_snapshot *after, events_fn fn, void *ctx)
{
	size_t i = 0, j = 0;
	DWORD fresh = 0; /* a process new in after: its threads are its own */
	bool fresh_set = false;

	while (i < before->count || j < after->count) {
		const struct events_entry *b =
			i < before->count ? &before->entries[i] : NULL;
		const struct events_entry *a =
			j < after->count ? &after->entries[j] : NULL;
		int order = !a ? -1 : !b ? 1 : events_entry_compare(b, a);

		if (order == 0 && events_same(b, a)) {
			i++;
			j++;
			continue;
		}
		if (order <= 0) {
			events_gone(b, fn, ctx);
			i++;
			if (order < 0)
				continue;
		}
		/* a is new (or a process anew). */
		if (a->tid == 0) {
			events_emit(fn, ctx, EVENTS_KIND_EXEC, a->pid, a->pid,
				    a->parent);
			fresh = a->pid;
			fresh_set = true;
		} else if (!fresh_set || fresh != a->pid) {
			events_emit(fn, ctx, EVENTS_KIND_THREAD, a->pid, a->tid,
				    0);
		}
		j++;
	}
}

/* The start stamp of a Toolhelp process: no start time there, so its
 * image name stands in (with its parent): an id reused within one
 * interval by another program, or by another parent's child, is told
 * as a new process. */
static unsigned long long events_name_stamp(const wchar_t *name)
{
	unsigned long long h = 1469598103934665603ull;

	for (; *name; name++)
		h = (h ^ (unsigned long long)*name) * 1099511628211ull;
	return h ? h : 1;
}

/* ERROR_SUCCESS, or the Win32 error that kept the snapshot from being
 * taken. */
static DWORD events_snapshot_take(struct events_snapshot *s)
{
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	THREADENTRY32 te = {.dwSize = sizeof(te)};
	HANDLE snap;

	*s = (struct events_snapshot){0};
	snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS | TH32CS_SNAPTHREAD,
					0);
	if (snap == INVALID_HANDLE_VALUE)
		return GetLastError();
	for (BOOL more = Process32FirstW(snap, &pe); more;
	     more = Process32NextW(snap, &pe)) {
		if (pe.th32ProcessID != 0)
			events_snapshot_add(s, pe.th32ProcessID, 0,
					    pe.th32ParentProcessID,
					    events_name_stamp(pe.szExeFile));
	}
	for (BOOL more = Thread32First(snap, &te); more;
	     more = Thread32Next(snap, &te)) {
		if (te.th32OwnerProcessID != 0)
			events_snapshot_add(s, te.th32OwnerProcessID,
					    te.th32ThreadID, 0, 0);
	}
	CloseHandle(snap);
	events_snapshot_sort(s);
	return ERROR_SUCCESS;
}

/* -- ETW records (pure) -- */

static bool events_u32(const unsigned char *data, size_t len, size_t at,
		       DWORD *out)
{
	if (at + 4 > len)
		return false;
	memcpy(out, data + at, 4);
	return true;
}

bool events_etw_parse(unsigned id, unsigned version, const void *data,
		      size_t len, struct events_event *out)
{
	const unsigned char *d = data;
	DWORD pid, tid, parent;

	*out = (struct events_event){0};
	if (!events_u32(d, len, 0, &pid) || pid == 0 || pid > 0x7fffffff)
		return false;
	switch (id) {
	case 1: /* ProcessStart: ProcessID, (v3: ProcessSequenceNumber),
		 * CreateTime, ParentProcessID, ... */
		if (!events_u32(d, len, version >= 3 ? 20 : 12, &parent))
			return false;
		*out = (struct events_event){.kind = EVENTS_KIND_EXEC,
					     .pid = (pid_t)pid,
					     .tid = (pid_t)pid,
					     .parent = (pid_t)parent};
		return parent <= 0x7fffffff;
	case 2: /* ProcessStop: ProcessID, ... */
		*out = (struct events_event){.kind = EVENTS_KIND_EXIT,
					     .pid = (pid_t)pid,
					     .tid = (pid_t)pid};
		return true;
	case 3: /* ThreadStart: ProcessID, ThreadID, ... */
	case 4: /* ThreadStop */
		if (!events_u32(d, len, 4, &tid) || tid == 0 ||
		    tid > 0x7fffffff)
			return false;
		*out = (struct events_event){
			.kind = id == 3 ? EVENTS_KIND_THREAD : EVENTS_KIND_EXIT,
			.pid = (pid_t)pid,
			.tid = (pid_t)tid};
		return true;
	}
	return false;
}

/* -- the ETW session -- */

static void events_queue(struct events_win *w, const struct events_event *e)
{
	EnterCriticalSection(&w->lock);
	if (w->queued >= EVENTS_QUEUE_MAX) {
		w->overflowed = true;
	} else {
		if (w->queued == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 256;
			w->queue = xreallocarray(w->queue, w->cap,
						 sizeof(*w->queue));
		}
		w->queue[w->queued++] = *e;
	}
	LeaveCriticalSection(&w->lock);
}

/* Fires the timer at once: the loop wakes and reads. */
static void events_wake(struct events_win *w)
{
	LARGE_INTEGER due = {.QuadPart = -1};

	SetWaitableTimer(w->timer, &due, 0, NULL, NULL, FALSE);
}

static VOID WINAPI events_record(PEVENT_RECORD rec)
{
	struct events_win *w = rec->UserContext;
	struct events_event e;

	if (!IsEqualGUID(&rec->EventHeader.ProviderId, &events_kernel_process))
		return;
	if (!events_etw_parse(rec->EventHeader.EventDescriptor.Id,
			      rec->EventHeader.EventDescriptor.Version,
			      rec->UserData, rec->UserDataLength, &e))
		return;
	events_queue(w, &e);
	events_wake(w);
}

/* A buffer's worth of events the session could not deliver: a rescan. */
static ULONG WINAPI events_buffer(PEVENT_TRACE_LOGFILEW log)
{
	struct events_win *w = log->Context;

	if (log->EventsLost) {
		EnterCriticalSection(&w->lock);
		w->overflowed = true;
		LeaveCriticalSection(&w->lock);
		events_wake(w);
	}
	return TRUE;
}

static DWORD WINAPI events_consume(LPVOID arg)
{
	struct events_win *w = arg;

	winapi_get()->ProcessTrace(&w->consumer, 1, NULL, NULL);
	/* Until CloseTrace, or the session was stopped by someone else. */
	EnterCriticalSection(&w->lock);
	w->ended = true;
	LeaveCriticalSection(&w->lock);
	events_wake(w);
	return 0;
}

static void events_props(struct events_win *w, unsigned buffer_kb)
{
	EVENT_TRACE_PROPERTIES *p = &w->props.props;

	memset(&w->props, 0, sizeof(w->props));
	p->Wnode.BufferSize = sizeof(w->props);
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	p->Wnode.ClientContext = 1; /* QueryPerformanceCounter stamps */
	/* Real-time events reach the consumer when a buffer is flushed
	 * ("Events are delivered when the buffers are flushed, not at the
	 * time the provider writes the event",
	 * https://learn.microsoft.com/windows/win32/etw/logging-mode-constants),
	 * and FlushTimer counts seconds, at least 1
	 * (sdk-api-src/content/evntrace/ns-evntrace-event_trace_properties.md):
	 * a process would run up to a second unruled. With
	 * EVENT_TRACE_USE_MS_FLUSH_TIMER it counts milliseconds. Microsoft
	 * documents that mode bit nowhere; phnt's ntwmi.h has it
	 * ("LoggerMode flags on Win7 and above", "FlushTimer value in
	 * milliseconds"), so on every Windows this supports. The cost is
	 * a flush of each buffer holding events every EVENTS_FLUSH_MS. */
	p->LogFileMode =
		EVENT_TRACE_REAL_TIME_MODE | EVENTS_TRACE_USE_MS_FLUSH_TIMER;
	p->FlushTimer = EVENTS_FLUSH_MS;
	p->BufferSize = 64; /* KB */
	p->MinimumBuffers = 4;
	p->MaximumBuffers = buffer_kb / 64 > 4 ? buffer_kb / 64 : 16;
	p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
}

/* A session of ours left by a daemon that did not stop cleanly goes
 * first: its name is taken otherwise. */
static void events_stop_stale(struct events_win *w)
{
	events_props(w, 0);
	winapi_get()->ControlTraceW(0, events_session, &w->props.props,
				    EVENT_TRACE_CONTROL_STOP);
}

static bool events_etw_open(struct events_win *w, unsigned buffer_kb)
{
	EVENT_TRACE_LOGFILEW log = {0};
	ULONG error;

	events_stop_stale(w);
	events_props(w, buffer_kb);
	error = winapi_get()->StartTraceW(&w->session, events_session,
					  &w->props.props);
	if (error != ERROR_SUCCESS) {
		snprintf(w->why_not, sizeof(w->why_not),
			 "StartTrace failed (error %lu%s)",
			 (unsigned long)error,
			 error == ERROR_ACCESS_DENIED ? ": not an administrator"
						      : "");
		return false;
	}
	error = winapi_get()->EnableTraceEx2(
		w->session, &events_kernel_process,
		EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_INFORMATION,
		EVENTS_KEYWORD_PROCESS | EVENTS_KEYWORD_THREAD, 0, 0, NULL);
	if (error != ERROR_SUCCESS) {
		snprintf(w->why_not, sizeof(w->why_not),
			 "EnableTraceEx2 of Microsoft-Windows-Kernel-Process "
			 "failed (error %lu)",
			 (unsigned long)error);
		goto stop;
	}
	log.LoggerName = (LPWSTR)events_session;
	log.ProcessTraceMode =
		PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
	log.EventRecordCallback = events_record;
	log.BufferCallback = events_buffer;
	log.Context = w;
	w->consumer = winapi_get()->OpenTraceW(&log);
	if (w->consumer == (TRACEHANDLE)INVALID_HANDLE_VALUE) {
		snprintf(w->why_not, sizeof(w->why_not),
			 "OpenTrace failed (error %lu)",
			 (unsigned long)GetLastError());
		w->consumer = 0;
		goto stop;
	}
	w->thread = CreateThread(NULL, 0, events_consume, w, 0, NULL);
	if (!w->thread) {
		snprintf(w->why_not, sizeof(w->why_not),
			 "no thread for the consumer (error %lu)",
			 (unsigned long)GetLastError());
		winapi_get()->CloseTrace(w->consumer);
		w->consumer = 0;
		goto stop;
	}
	return true;
stop:
	winapi_get()->ControlTraceW(w->session, NULL, &w->props.props,
				    EVENT_TRACE_CONTROL_STOP);
	w->session = 0;
	return false;
}

static void events_etw_close(struct events_win *w)
{
	if (w->session) {
		events_props(w, 0);
		winapi_get()->ControlTraceW(w->session, NULL, &w->props.props,
					    EVENT_TRACE_CONTROL_STOP);
		w->session = 0;
	}
	if (w->consumer) {
		winapi_get()->CloseTrace(w->consumer);
		w->consumer = 0;
	}
	if (w->thread) {
		WaitForSingleObject(w->thread, 5000);
		CloseHandle(w->thread);
		w->thread = NULL;
	}
}

/* ERROR_SUCCESS, or the Win32 error that kept the poll from starting. */
static DWORD events_poll_start(struct events_win *w)
{
	LARGE_INTEGER due = {.QuadPart = -(LONGLONG)w->poll_ms * 10000};
	DWORD error = events_snapshot_take(&w->last);

	if (error != ERROR_SUCCESS)
		return error;
	if (!SetWaitableTimer(w->timer, &due, (LONG)w->poll_ms, NULL, NULL,
			      FALSE))
		return GetLastError();
	return ERROR_SUCCESS;
}

/* events_open failed with a Win32 error: its status, the error kept for
 * events_why_not. */
static enum os_status events_failed(struct events *ev, DWORD error)
{
	ev->error = error;
	return status_of_win32(error);
}

static void events_free(struct events_win *w)
{
	events_etw_close(w);
	events_snapshot_free(&w->last);
	if (w->timer)
		CloseHandle(w->timer);
	DeleteCriticalSection(&w->lock);
	free(w->queue);
	free(w);
}

void events_init(struct events *ev)
{
	*ev = (struct events){0};
}

/* opt->poll_ms: 0 is the default; opt->buffer_kb: ETW's buffers. */
enum os_status events_open(struct events *ev, const struct events_options *opt)
{
	unsigned poll_ms = opt->poll_ms ? opt->poll_ms : EVENTS_POLL_DEFAULT_MS;
	struct events_win *w = xcalloc(1, sizeof(*w));
	DWORD error;

	*ev = (struct events){0};
	InitializeCriticalSection(&w->lock);
	w->poll_ms =
		poll_ms < EVENTS_POLL_MIN_MS ? EVENTS_POLL_MIN_MS : poll_ms;
	w->timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
	if (!w->timer) {
		error = GetLastError();
		events_free(w);
		return events_failed(ev, error);
	}
	ev->os = w;
	w->etw = events_etw_open(w, opt->buffer_kb);
	if (w->etw) {
		log_info("process events: ETW real-time session on "
			 "Microsoft-Windows-Kernel-Process (delivered as its "
			 "buffers flush, every %u ms)",
			 (unsigned)EVENTS_FLUSH_MS);
		ev->filtering = true;
		return OS_OK;
	}
	if ((error = events_poll_start(w)) != ERROR_SUCCESS) {
		ev->os = NULL;
		events_free(w);
		return events_failed(ev, error);
	}
	log_info("process events: no ETW session (%s): polling processes "
		 "and threads every %u ms",
		 w->why_not, w->poll_ms);
	return OS_OK;
}

/* No handle to adopt on Windows (no socket activation). */
enum os_status events_adopt(struct events *ev, long passed,
			    const struct events_options *opt)
{
	(void)passed;
	return events_open(ev, opt);
}

void events_close(struct events *ev)
{
	struct events_win *w = events_win(ev);

	if (w)
		events_free(w);
	ev->os = NULL;
}

static bool events_wanted(const struct events *ev, enum events_kind kind)
{
	switch (kind) {
	case EVENTS_KIND_EXEC:
		return true;
	case EVENTS_KIND_FORK:
	case EVENTS_KIND_THREAD:
	case EVENTS_KIND_EXIT:
	case EVENTS_KIND_END:
		return ev->wanted & EVENTS_WANT_THREADS;
	case EVENTS_KIND_RENAME:
	case EVENTS_KIND_IDS:
		break;
	}
	return false;
}

struct events_filter {
	struct events *ev;
	events_fn fn;
	void *ctx;
};

static void events_pass(void *ctx, const struct events_event *e)
{
	struct events_filter *f = ctx;

	if (!events_wanted(f->ev, e->kind))
		return;
	f->ev->received++;
	f->fn(f->ctx, e);
}

/* The session ended under us (stopped by someone else): the poll from
 * now on, on the same handle, and a rescan for what was missed. */
static enum os_status events_to_poll(struct events *ev, struct events_win *w,
				     bool *lost)
{
	DWORD error;

	events_etw_close(w);
	w->etw = false;
	ev->filtering = false;
	snprintf(w->why_not, sizeof(w->why_not), "the ETW session ended");
	if ((error = events_poll_start(w)) != ERROR_SUCCESS)
		return status_of_win32(error);
	log_warnx("process events: the ETW session ended: polling every %u ms",
		  w->poll_ms);
	ev->overflows++;
	*lost = true;
	return OS_OK;
}

static enum os_status events_read_etw(struct events *ev, struct events_win *w,
				      struct events_filter *f, bool *lost)
{
	struct events_event *batch;
	size_t count;
	bool overflowed, ended;

	EnterCriticalSection(&w->lock);
	batch = w->queue;
	count = w->queued;
	overflowed = w->overflowed;
	ended = w->ended;
	w->queue = NULL;
	w->queued = w->cap = 0;
	w->overflowed = false;
	LeaveCriticalSection(&w->lock);
	for (size_t i = 0; i < count; i++)
		events_pass(f, &batch[i]);
	free(batch);
	if (ended)
		return events_to_poll(ev, w, lost);
	if (overflowed) {
		ev->overflows++;
		*lost = true;
	}
	return OS_OK;
}

enum os_status events_read(struct events *ev, events_fn fn, void *ctx,
			   bool *lost)
{
	struct events_win *w = events_win(ev);
	struct events_filter f = {ev, fn, ctx};
	struct events_snapshot now;
	DWORD error;

	*lost = false;
	if (!w)
		return OS_FAILED; /* not open */
	if (w->etw)
		return events_read_etw(ev, w, &f, lost);
	if ((error = events_snapshot_take(&now)) != ERROR_SUCCESS)
		return status_of_win32(error);
	events_diff(&w->last, &now, events_pass, &f);
	events_snapshot_free(&w->last);
	w->last = now;
	return OS_OK;
}

/* Renames and id changes have no events on Windows (an image name is
 * fixed at start, a token's user too): threads and exits are all there
 * is to ask for, and both sources give them. */
enum os_status events_want(struct events *ev, unsigned wanted)
{
	ev->wanted = wanted;
	return OS_OK;
}

void events_why_not(const struct events *ev, enum os_status status, char *buf,
		    size_t size)
{
	char message[256];

	(void)status;
	status_message((DWORD)ev->error, message, sizeof(message));
	snprintf(buf, size,
		 "process events could not be set up (%s): neither an ETW "
		 "session nor a Toolhelp snapshot",
		 message);
}
