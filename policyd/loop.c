/* The daemon's one loop: epoll over the proc connector, a signalfd
 * (TERM/INT stop, HUP reload), a timerfd (rescans) and the control socket
 * with its clients. Nothing runs in signal context. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "policyd.h"

/* epoll data: small numbers name the fixed sources, anything else is a
 * client. */
enum loop_source {
	LOOP_SOURCE_EVENTS = 1,
	LOOP_SOURCE_SIGNAL,
	LOOP_SOURCE_TIMER,
	LOOP_SOURCE_LISTEN,
};

/* Without process events, polling /proc is all there is: do it often. */
#define LOOP_POLL_MS 1000
/* Renames and changes of ids a second, at most, before the daemon stops
 * asking for them for a second: any user can rename a process a million
 * times a second, and each one wakes the daemon. */
#define LOOP_RENAMES_PER_S 1000

static int loop_watch(struct daemon *d, int fd, uint64_t data)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = data};

	return epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* Milliseconds between rescans; 0: none. */
static unsigned loop_rescan_ms(const struct daemon *d)
{
	unsigned ms = d->conf.rescan_interval_ms;

	if (d->polling && (!ms || ms > LOOP_POLL_MS))
		ms = LOOP_POLL_MS;
	return ms;
}

/* One tick a second at most apart: rescans fall due on it, and control
 * clients that stall are dropped on it. */
static int loop_arm_timer(struct daemon *d)
{
	unsigned ms = loop_rescan_ms(d);
	struct itimerspec its = {0};

	if (!ms || ms > 1000)
		ms = 1000;
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_interval = its.it_value;
	clock_gettime(CLOCK_MONOTONIC, &d->last_rescan);
	return timerfd_settime(d->timer_fd, 0, &its, NULL);
}

static void loop_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGHUP);
}

/* First thing at start: the signals the loop handles wait for it. */
int loop_block_signals(void)
{
	sigset_t mask;

	loop_signals(&mask);
	signal(SIGPIPE, SIG_IGN);
	return sigprocmask(SIG_BLOCK, &mask, NULL);
}

int loop_setup(struct daemon *d)
{
	sigset_t mask;

	loop_signals(&mask);
	d->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	d->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (d->signal_fd < 0 || d->timer_fd < 0 || d->epoll_fd < 0)
		return -1;
	if (loop_watch(d, d->signal_fd, LOOP_SOURCE_SIGNAL) < 0 ||
	    loop_watch(d, d->timer_fd, LOOP_SOURCE_TIMER) < 0 ||
	    loop_watch(d, d->listen_fd, LOOP_SOURCE_LISTEN) < 0 ||
	    (!d->polling &&
	     loop_watch(d, d->events.fd, LOOP_SOURCE_EVENTS) < 0))
		return -1;
	return loop_arm_timer(d);
}

void loop_teardown(struct daemon *d)
{
	if (d->epoll_fd >= 0)
		close(d->epoll_fd);
	if (d->signal_fd >= 0)
		close(d->signal_fd);
	if (d->timer_fd >= 0)
		close(d->timer_fd);
}

/* Renames and changes of ids wait until the queue is read: a process
 * renaming itself a million times costs one evaluation per reading, not
 * one per rename; those no rule could care about are dropped (kernels
 * before 6.6 send them whatever the daemon asked for). */
static void loop_event(void *ctx, const struct events_event *e)
{
	struct daemon *d = ctx;
	struct manage *m = &d->manage;

	switch (e->kind) {
	case EVENTS_KIND_EXEC:
		manage_exec(m, e->pid);
		break;
	case EVENTS_KIND_FORK:
		manage_fork(m, e->parent, e->parent_tid, e->pid);
		break;
	case EVENTS_KIND_THREAD:
		manage_thread_new(m, e->pid, e->tid, e->parent_tid);
		break;
	case EVENTS_KIND_RENAME:
		d->renames_counted++;
		if (d->facts_used & MATCH_FACT_COMM)
			pidmap_put(&d->renamed, e->pid, (void *)1);
		break;
	case EVENTS_KIND_IDS:
		d->renames_counted++;
		if (d->facts_used & MATCH_FACT_CREDS)
			pidmap_put(&d->renamed, e->pid, (void *)1);
		break;
	case EVENTS_KIND_EXIT:
		manage_exit(m, e->pid, e->tid);
		break;
	}
}

static void loop_renamed(struct daemon *d)
{
	struct pidmap renamed = d->renamed;

	if (!renamed.count)
		return;
	pidmap_init(&d->renamed);
	for (size_t i = 0; i < renamed.capacity; i++) {
		if (renamed.slots[i].key)
			manage_rename(&d->manage, renamed.slots[i].key);
	}
	pidmap_free(&renamed);
}

static long long loop_ms_since(const struct timespec *then)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - then->tv_sec) * 1000LL +
	       (now.tv_nsec - then->tv_nsec) / 1000000L;
}

/* A flood of renames: the kernel is told to keep them for a second (it
 * filters for Linux 6.6 and later; before, they still come, and cost a
 * wakeup each, but not a match each). */
static void loop_limit_renames(struct daemon *d)
{
	if (loop_ms_since(&d->renames_since) >= 1000) {
		clock_gettime(CLOCK_MONOTONIC, &d->renames_since);
		d->renames_counted = 0;
		return;
	}
	if (d->renames_counted <= LOOP_RENAMES_PER_S || d->renames_paused ||
	    !d->events.filtering)
		return;
	if (!d->renames_pauses)
		log_info("more than %d renames or changes of ids a second: "
			 "left to a rescan a second later while it lasts",
			 LOOP_RENAMES_PER_S);
	d->renames_pauses++;
	d->renames_paused = true;
	clock_gettime(CLOCK_MONOTONIC, &d->renames_paused_at);
	daemon_events_update(d, d->rules);
}

/* The second is over: renames are asked for again, and a rescan matches
 * every process, the renamed ones among them. */
static void loop_resume_renames(struct daemon *d)
{
	if (!d->renames_paused || loop_ms_since(&d->renames_paused_at) < 1000)
		return;
	d->renames_paused = false;
	clock_gettime(CLOCK_MONOTONIC, &d->renames_since);
	d->renames_counted = 0;
	daemon_events_update(d, d->rules);
	manage_rescan(&d->manage);
}

static void loop_events(struct daemon *d)
{
	int status = events_read(&d->events, loop_event, d);

	loop_renamed(d);
	loop_limit_renames(d);

	/* Let the next events gather: one wakeup then handles them all. */
	if (d->conf.batch_ms && status >= 0)
		nanosleep(&(struct timespec){.tv_nsec = (long)d->conf.batch_ms *
							1000000L},
			  NULL);

	if (status > 0) {
		log_info("the kernel dropped process events: rescanning");
		manage_rescan(&d->manage);
	} else if (status < 0) {
		log_warn("process events failed; polling /proc from now on");
		epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, d->events.fd, NULL);
		events_close(&d->events);
		d->polling = true;
		d->manage.options.polling = true;
		loop_arm_timer(d);
	}
}

static void loop_signal(struct daemon *d)
{
	struct signalfd_siginfo si;
	struct diag diag;
	char line[1024];

	while (read(d->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			diag_init(&diag);
			if (daemon_reload(d, &diag) < 0)
				log_error("reload failed; the previous rules "
					  "stay in force");
			for (size_t i = 0; i < diag.count; i++) {
				diag_format(&diag.entries[i], line,
					    sizeof(line));
				log_error("%s", line);
			}
			diag_free(&diag);
		} else {
			log_info("signal %u: stopping", si.ssi_signo);
			d->stop = true;
		}
	}
}

static void loop_timer(struct daemon *d)
{
	unsigned ms = loop_rescan_ms(d);
	uint64_t expirations;
	struct timespec now;
	long long elapsed_ms;

	if (read(d->timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	control_expire(d);
	loop_resume_renames(d);
	if (!d->conf.dry_run)
		apply_power_check(&d->power);
	clock_gettime(CLOCK_MONOTONIC, &now);
	elapsed_ms = (now.tv_sec - d->last_rescan.tv_sec) * 1000LL +
		     (now.tv_nsec - d->last_rescan.tv_nsec) / 1000000L;
	/* A tick early by a hair still counts. */
	if (ms && elapsed_ms + 10 >= ms) {
		manage_rescan(&d->manage);
		d->last_rescan = now;
	}
}

int loop_run(struct daemon *d)
{
	struct epoll_event events[32];

	while (!d->stop) {
		int n = epoll_wait(d->epoll_fd, events, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_warn("epoll_wait");
			return -1;
		}
		for (int i = 0; i < n; i++) {
			uint64_t source = events[i].data.u64;

			if (source == LOOP_SOURCE_EVENTS)
				loop_events(d);
			else if (source == LOOP_SOURCE_SIGNAL)
				loop_signal(d);
			else if (source == LOOP_SOURCE_TIMER)
				loop_timer(d);
			else if (source == LOOP_SOURCE_LISTEN)
				control_accept(d);
			else
				control_client_io(
					d,
					(struct control_client *)(uintptr_t)
						source,
					events[i].events);
		}
	}
	return 0;
}
