/* Linux: the daemon's one loop is an epoll over the proc connector, a
 * signalfd (TERM/INT stop, HUP reload), a timerfd (the tick) and the
 * control socket with its clients; what each wake-up does is
 * loop_common.c's. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "linux.h"
#include "log.h"
#include "os.h"
#include "util.h"

struct loop {
	int epoll_fd, signal_fd, timer_fd;
	int sample_fd; /* restraint's passes */
};

/* epoll data: small numbers name the fixed sources, anything else is a
 * client. */
enum loop_source {
	LOOP_SOURCE_EVENTS = 1,
	LOOP_SOURCE_SIGNAL,
	LOOP_SOURCE_TIMER,
	LOOP_SOURCE_LISTEN,
	LOOP_SOURCE_EXECS,
	LOOP_SOURCE_WATCH,
	LOOP_SOURCE_PRESSURE,
	LOOP_SOURCE_SAMPLE,
	LOOP_SOURCE_BUS,
};

static int loop_watch(struct loop *l, int fd, uint64_t data)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = data};

	return epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* A PSI trigger polls with POLLPRI (and POLLERR once its file is gone). */
static int loop_watch_pressure(struct loop *l, long fd)
{
	struct epoll_event ev = {.events = EPOLLPRI,
				 .data.u64 = LOOP_SOURCE_PRESSURE};

	return fd < 0 ? 0 : epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, (int)fd, &ev);
}

static struct itimerspec loop_every(unsigned ms)
{
	struct itimerspec its = {0};

	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_interval = its.it_value;
	return its;
}

enum os_status loop_sample_arm(struct daemon *d, unsigned ms)
{
	struct itimerspec its = loop_every(ms);

	if (!d->loop)
		return OS_OK;
	return status_of_result(
		timerfd_settime(d->loop->sample_fd, 0, &its, NULL));
}

/* The tick restarts from now, and so do the rescans. */
enum os_status loop_arm(struct daemon *d)
{
	struct itimerspec its = loop_every(loop_tick_ms(d));

	d->last_rescan_ns = timing_now_ns();
	return status_of_result(
		timerfd_settime(d->loop->timer_fd, 0, &its, NULL));
}

static void loop_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGHUP);
}

/* First thing at start: the signals the loop handles wait for it. */
enum os_status loop_prepare(void)
{
	sigset_t mask;

	loop_signals(&mask);
	signal(SIGPIPE, SIG_IGN);
	return status_of_result(sigprocmask(SIG_BLOCK, &mask, NULL));
}

enum os_status loop_setup(struct daemon *d)
{
	struct loop *l = xmalloc(sizeof(*l));
	sigset_t mask;

	d->loop = l;
	loop_signals(&mask);
	l->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	l->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	l->sample_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (l->signal_fd < 0 || l->timer_fd < 0 || l->sample_fd < 0 ||
	    l->epoll_fd < 0)
		return status_of_errno(errno);
	if (loop_watch(l, l->signal_fd, LOOP_SOURCE_SIGNAL) < 0 ||
	    loop_watch(l, l->timer_fd, LOOP_SOURCE_TIMER) < 0 ||
	    loop_watch(l, l->sample_fd, LOOP_SOURCE_SAMPLE) < 0 ||
	    loop_watch_pressure(l, pressure_fd(d->pressure)) < 0 ||
	    (fgsource_fd(d) >= 0 &&
	     loop_watch(l, (int)fgsource_fd(d), LOOP_SOURCE_BUS) < 0) ||
	    loop_watch(l, listen_fd(d->listen), LOOP_SOURCE_LISTEN) < 0 ||
	    (!d->polling &&
	     loop_watch(l, d->events.fd, LOOP_SOURCE_EVENTS) < 0) ||
	    (d->execfilter && loop_watch(l, execfilter_fd(d->execfilter),
					 LOOP_SOURCE_EXECS) < 0) ||
	    (d->execfilter && execfilter_watch_fd(d->execfilter) >= 0 &&
	     loop_watch(l, execfilter_watch_fd(d->execfilter),
			LOOP_SOURCE_WATCH) < 0))
		return status_of_errno(errno);
	return loop_arm(d);
}

void loop_teardown(struct daemon *d)
{
	struct loop *l = d->loop;

	if (!l)
		return;
	if (l->epoll_fd >= 0)
		close(l->epoll_fd);
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	if (l->timer_fd >= 0)
		close(l->timer_fd);
	if (l->sample_fd >= 0)
		close(l->sample_fd);
	free(l);
	d->loop = NULL;
}

/* The proc connector failed for good: polling from now on. */
void loop_events_gone(struct daemon *d)
{
	epoll_ctl(d->loop->epoll_fd, EPOLL_CTL_DEL, d->events.fd, NULL);
}

/* The proc connector read, or left unread for a while: the kernel then
 * drops what does not fit its buffer, at its own cost, not the daemon's.
 * Out of the epoll set, not only without EPOLLIN: an overflow is an
 * error on the socket, which epoll reports whatever it was asked. */
void loop_events_read(struct daemon *d, bool on)
{
	if (on)
		loop_watch(d->loop, d->events.fd, LOOP_SOURCE_EVENTS);
	else
		epoll_ctl(d->loop->epoll_fd, EPOLL_CTL_DEL, d->events.fd, NULL);
}

/* The exec filter gone: its ring buffer and its directories are no
 * longer watched (before it closes; also before the loop is set up). */
void loop_execs_gone(struct daemon *d)
{
	if (!d->loop || !d->execfilter)
		return;
	epoll_ctl(d->loop->epoll_fd, EPOLL_CTL_DEL,
		  execfilter_fd(d->execfilter), NULL);
	if (execfilter_watch_fd(d->execfilter) >= 0)
		epoll_ctl(d->loop->epoll_fd, EPOLL_CTL_DEL,
			  execfilter_watch_fd(d->execfilter), NULL);
}

const char *loop_events_source(const struct daemon *d)
{
	if (d->polling)
		return d->conf.events == CONF_EVENTS_POLL
			       ? "polling /proc (events = poll)"
			       : "polling /proc (no proc connector)";
	return d->execfilter ? "a BPF exec filter, with the proc connector "
			       "for forks, exits and renames"
			     : "the proc connector";
}

const char *loop_events_word(const struct daemon *d)
{
	return d->polling ? "polling" : d->execfilter ? "bpf" : "netlink";
}

/* A client is watched for its request, then, while its answer does not
 * fit the socket's buffer, for room to send the rest. */
enum os_status loop_watch_client(struct daemon *d, struct control_client *c,
				 bool sending)
{
	struct epoll_event ev = {.events = sending ? EPOLLOUT : EPOLLIN,
				 .data.u64 = (uint64_t)(uintptr_t)c};

	return status_of_result(epoll_ctl(
		d->loop->epoll_fd, sending ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
		listen_conn_fd(c->conn), &ev));
}

/* Also after the loop's teardown: the clients go last. */
void loop_unwatch_client(struct daemon *d, struct control_client *c)
{
	if (d->loop)
		epoll_ctl(d->loop->epoll_fd, EPOLL_CTL_DEL,
			  listen_conn_fd(c->conn), NULL);
}

static void loop_signal(struct daemon *d)
{
	struct signalfd_siginfo si;
	char why[32];

	while (read(d->loop->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			loop_on_reload(d);
		} else {
			snprintf(why, sizeof(why), "signal %u", si.ssi_signo);
			loop_on_stop(d, why);
		}
	}
}

/* A timerfd's expirations read, then what it is for (the tick, a
 * restraint pass); nothing where none were there. */
static void loop_timer(struct daemon *d, int fd, void (*on)(struct daemon *))
{
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) >= 0)
		on(d);
}

enum os_status loop_run(struct daemon *d)
{
	struct epoll_event events[32];

	while (!d->stop) {
		int n = epoll_wait(d->loop->epoll_fd, events, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_warn("epoll_wait");
			return status_of_errno(errno);
		}
		for (int i = 0; i < n; i++) {
			uint64_t source = events[i].data.u64;

			if (source == LOOP_SOURCE_EVENTS)
				loop_on_events(d);
			else if (source == LOOP_SOURCE_EXECS)
				loop_on_execs(d);
			else if (source == LOOP_SOURCE_WATCH)
				loop_on_watch(d);
			else if (source == LOOP_SOURCE_SIGNAL)
				loop_signal(d);
			else if (source == LOOP_SOURCE_TIMER)
				loop_timer(d, d->loop->timer_fd, loop_on_tick);
			else if (source == LOOP_SOURCE_SAMPLE)
				loop_timer(d, d->loop->sample_fd,
					   restrain_on_sample);
			else if (source == LOOP_SOURCE_PRESSURE)
				restrain_on_pressure(d);
			else if (source == LOOP_SOURCE_BUS)
				fgsource_process(d);
			else if (source == LOOP_SOURCE_LISTEN)
				control_accept(d);
			else
				control_client_io(
					d,
					(struct control_client *)(uintptr_t)
						source,
					events[i].events &
						(EPOLLOUT | EPOLLERR |
						 EPOLLHUP));
		}
		loop_batch(d);
	}
	return OS_OK;
}
