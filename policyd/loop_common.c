/* What the daemon's one loop does when it wakes: process events, the
 * tick (rescans, stalled control clients, power settings changed by
 * others), a reload, a stop. The wait itself is the system's
 * (linux/loop.c: epoll, a signalfd, a timerfd). Nothing runs in signal
 * context. */
#include <stdlib.h>

#include "log.h"
#include "os.h"
#include "policyd.h"

/* Without process events, polling /proc is all there is: do it often. */
#define LOOP_POLL_MS 1000
/* Renames and changes of ids a second, at most, before the daemon stops
 * asking for them for a second: any user can rename a process a million
 * times a second, and each one wakes the daemon. */
#define LOOP_RENAMES_PER_S 1000

#define LOOP_MS 1000000LL

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
unsigned loop_tick_ms(const struct daemon *d)
{
	unsigned ms = loop_rescan_ms(d);

	return !ms || ms > 1000 ? 1000 : ms;
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
		/* The exec filter sends those some rule may match (kernels
		 * before 6.6 send the connector's anyway). */
		if (d->execfilter)
			break;
		ifeo_exec(d, e->pid);
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
	case EVENTS_KIND_END:
		manage_end(m, e->pid, e->tid, e->start);
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

static long long loop_ms_since(long long then_ns)
{
	return (timing_now_ns() - then_ns) / LOOP_MS;
}

/* A rescan that also covers every event lost until now. */
static void loop_rescan(struct daemon *d)
{
	manage_rescan(&d->manage);
	d->loss_rescan_ns = timing_now_ns();
	d->loss_rescan_due = false;
}

/* Events were lost (a burst, or a flood someone makes on purpose): a
 * rescan, at once unless one ran less than a second ago; then at the
 * tick a second after it. A full scan of /proc costs far more than an
 * event: one a second at most, whatever the rate of losses. */
static void loop_lost(struct daemon *d, const char *what)
{
	if (d->loss_rescan_ns && loop_ms_since(d->loss_rescan_ns) < 1000) {
		d->loss_rescan_due = true;
		return;
	}
	log_info("%s: rescanning", what);
	loop_rescan(d);
}

static void loop_lost_due(struct daemon *d)
{
	if (d->loss_rescan_due && loop_ms_since(d->loss_rescan_ns) + 10 >= 1000)
		loop_rescan(d);
}

/* A flood of renames: the kernel is told to keep them for a second (it
 * filters for Linux 6.6 and later). Before, it sends them whatever it is
 * told, and reading them all would cost the daemon as much as the flood
 * costs its maker: the events are not read for that second, and what
 * the kernel drops meanwhile is the rescan's. */
static void loop_limit_renames(struct daemon *d)
{
	if (loop_ms_since(d->renames_since_ns) >= 1000) {
		d->renames_since_ns = timing_now_ns();
		d->renames_counted = 0;
		return;
	}
	if (d->renames_counted <= LOOP_RENAMES_PER_S || d->renames_paused)
		return;
	if (!d->renames_pauses)
		log_info("more than %d renames or changes of ids a second: "
			 "left to a rescan a second later while it lasts%s",
			 LOOP_RENAMES_PER_S,
			 d->events.filtering
				 ? ""
				 : " (this kernel cannot filter process "
				   "events: none are read meanwhile)");
	d->renames_pauses++;
	d->renames_paused = true;
	d->renames_paused_ns = timing_now_ns();
	if (d->events.filtering) {
		daemon_events_update(d, d->rules);
	} else {
		d->events_unread = true;
		loop_events_read(d, false);
	}
}

/* The second is over: renames are asked for (or read) again, and a
 * rescan matches every process, the renamed ones among them. */
static void loop_resume_renames(struct daemon *d)
{
	if (!d->renames_paused || loop_ms_since(d->renames_paused_ns) < 1000)
		return;
	d->renames_paused = false;
	d->renames_since_ns = timing_now_ns();
	d->renames_counted = 0;
	if (d->events_unread) {
		d->events_unread = false;
		loop_events_read(d, true);
	}
	daemon_events_update(d, d->rules);
	loop_rescan(d);
}

void loop_on_events(struct daemon *d)
{
	enum os_status status;
	bool lost = false;

	if (d->events_unread)
		return;
	status = events_read(&d->events, loop_event, d, &lost);

	loop_renamed(d);
	loop_limit_renames(d);
	d->gather |= status == OS_OK;
	if (status == OS_OK && lost) {
		loop_lost(d, "the kernel dropped process events");
	} else if (status != OS_OK) {
		log_warn("process events failed; polling /proc from now on");
		loop_events_gone(d);
		events_close(&d->events);
		d->polling = true;
		d->manage.options.polling = true;
		loop_arm(d);
	}
}

/* The exec filter's records: execs, and the forks, new threads and
 * ends of threads of followed processes (where the proc connector
 * reports those too, while the followed map is full or on a kernel
 * that cannot filter its events, the second report is known as such). */
static void loop_filtered_exec(void *ctx, const struct events_event *e)
{
	struct daemon *d = ctx;

	switch (e->kind) {
	case EVENTS_KIND_FORK:
		manage_fork(&d->manage, e->parent, e->parent_tid, e->pid);
		break;
	case EVENTS_KIND_THREAD:
		manage_thread_new(&d->manage, e->pid, e->tid, e->parent_tid);
		break;
	case EVENTS_KIND_EXIT:
		manage_exit(&d->manage, e->pid, e->tid);
		break;
	case EVENTS_KIND_END:
		manage_end(&d->manage, e->pid, e->tid, e->start);
		break;
	case EVENTS_KIND_EXEC: {
		struct manage_known known = {.start = e->start};

		snprintf(known.comm, sizeof(known.comm), "%s", e->comm);
		ifeo_exec(d, e->pid);
		manage_exec_known(&d->manage, e->pid, &known);
		break;
	}
	default:
		break;
	}
}

/* Execs some rule may match, from the exec filter in the kernel, after
 * the proc connector's events that came before them: the ring's records
 * are taken, the connector's queue is read, and only then are the
 * records handled. The forks of followed processes are in the ring as
 * well, ahead of their children's execs (the kernel sends them before
 * the child runs): a child that execs at once (posix_spawn) is known as
 * a managed process's child when its exec is judged, whichever source
 * epoll named first, and also when the connector's report of the fork is
 * still unread (a flood on a kernel that cannot filter) or was dropped. */
void loop_on_execs(struct daemon *d)
{
	if (execfilter_take(d->execfilter) != OS_OK) {
		daemon_filter_drop(d, "the exec filter's ring buffer failed");
		manage_rescan(&d->manage);
		return;
	}
	if (!d->polling)
		loop_on_events(d);
	if (d->execfilter)
		execfilter_deliver(d->execfilter, loop_filtered_exec, d);
	d->gather = true;
}

/* The rescan for what started between a file's replacing and the
 * filter's following it: at once, or at a tick when one was less than a
 * second ago (a directory others may write can be renamed into all day
 * long). */
static void loop_rescan_for_filter(struct daemon *d)
{
	if (d->filter_rescan_ns && loop_ms_since(d->filter_rescan_ns) < 1000) {
		d->filter_rescan_due = true;
		return;
	}
	d->filter_rescan_ns = timing_now_ns();
	d->filter_rescan_due = false;
	manage_rescan(&d->manage);
}

/* A directory of a literal exe changed: a file put in place there (an
 * upgrade's rename) has the filter's key at once, so that a start right
 * after it is seen at its exec, as any start; a key that cannot be
 * written has the whole plan written again. */
void loop_on_watch(struct daemon *d)
{
	size_t changed;
	enum os_status status = execfilter_watch_read(d->execfilter, &changed);

	if (status != OS_OK) {
		log_info("a file a rule names changed, and the exec filter "
			 "cannot write its key alone: all of them again");
		daemon_filter_update(d, d->rules);
	}
	if (status != OS_OK || changed)
		loop_rescan_for_filter(d);
}

/* After a wakeup that handled process events (from the proc connector,
 * the exec filter or both): batch_ms for the next ones to gather, once,
 * so that one wakeup then handles them all. */
void loop_batch(struct daemon *d)
{
	if (d->gather && d->conf.batch_ms)
		timing_sleep_ns((long long)d->conf.batch_ms * LOOP_MS);
	d->gather = false;
}

static void loop_say_full(struct daemon *d, const struct execfilter_stats *st)
{
	d->filter_full = true;
	daemon_events_update(d, d->rules);
	if (d->filter_fulls++)
		log_debug("the exec filter has no room to follow processes "
			  "again: every exec goes to the daemon");
	else
		log_warnx("the exec filter had no room to follow a process "
			  "(%llu followed, filter_follow_max = %llu): every "
			  "exec goes to the daemon until there is room again",
			  st->following, st->follow_max);
}

/* manage's enum manage_follow_how as the exec filter's. */
unsigned loop_follow_how(unsigned how)
{
	return (how & MANAGE_FOLLOW_CHILDREN ? EXECFILTER_FOLLOWS_CHILDREN
					     : 0) |
	       (how & MANAGE_FOLLOW_EXIT ? EXECFILTER_FOLLOWS_EXIT : 0);
}

/* The processes it must follow, followed: 1 when all were already, 0
 * when some had to be added now, -1 when the map had no room. */
static int loop_follow_all(struct daemon *d)
{
	struct manage_followed *followed;
	size_t count = manage_followed(&d->manage, &followed);
	int all_there = 1;

	for (size_t i = 0; i < count && all_there >= 0; i++) {
		bool added;

		if (execfilter_follow(d->execfilter, (int)followed[i].pid,
				      loop_follow_how(followed[i].how),
				      &added) != OS_OK)
			all_there = -1;
		else if (added)
			all_there = 0;
	}
	free(followed);
	return all_there;
}

/* The map of followed processes had no room for one: the kernel sends
 * every exec meanwhile. With an eighth of it free, the daemon reads the
 * proc connector (the forks the map refused: their children are known
 * now) and follows again every process it must; a tick that finds them
 * all followed already, with no refusal since it read the counts, lets
 * the filter judge again. One the daemon had to add may have forked
 * before it was added: its children come from the connector by the next
 * tick, which checks them too. */
static void loop_filter_room(struct daemon *d,
			     const struct execfilter_stats *st)
{
	if (!d->filter_full)
		loop_say_full(d, st);
	if (st->following > st->follow_max - st->follow_max / 8)
		return;
	if (!d->polling)
		loop_on_events(d);
	if (!d->execfilter || loop_follow_all(d) <= 0)
		return;
	execfilter_unfull(d->execfilter, st->follow_failed);
	d->filter_full = false;
	daemon_events_update(d, d->rules);
	if (d->filter_fulls == 1)
		log_info("the exec filter has room again (%llu of %llu "
			 "processes followed): it judges execs again",
			 st->following, st->follow_max);
	else
		log_debug("the exec filter has room again");
}

/* Once a tick: the ring's records that woke nobody are handled; a
 * literal exe's file replaced or created means new maps
 * (and a rescan for what started meanwhile); execs the ring buffer had
 * no room for, a rescan; processes the followed map had no room for,
 * made up for once there is room. */
static void loop_check_filter(struct daemon *d)
{
	struct execfilter_stats st;
	bool changed;

	if (!d->execfilter)
		return;
	/* Ends of threads wait in the ring without waking the daemon: a
	 * second at most. */
	loop_on_execs(d);
	if (!d->execfilter)
		return;
	if (d->filter_rescan_due)
		loop_rescan_for_filter(d);
	if (execfilter_refresh(d->execfilter, &changed) == OS_OK && changed) {
		log_info("a file a rule names changed: the exec filter "
			 "follows, and a rescan");
		daemon_filter_update(d, d->rules);
		manage_rescan(&d->manage);
	}
	if (d->execfilter && execfilter_stats(d->execfilter, &st) == OS_OK &&
	    st.lost != d->execfilter_lost) {
		d->execfilter_lost = st.lost;
		d->events.overflows++;
		loop_lost(d, "the exec filter's ring buffer overflowed");
	}
	if (d->execfilter && execfilter_stats(d->execfilter, &st) == OS_OK &&
	    st.full)
		loop_filter_room(d, &st);
}

void loop_on_reload(struct daemon *d)
{
	struct diag diag;
	char line[1024];

	diag_init(&diag);
	if (daemon_reload(d, &diag) < 0)
		log_error("reload failed; the previous rules stay in force");
	for (size_t i = 0; i < diag.count; i++) {
		diag_format(&diag.entries[i], line, sizeof(line));
		log_error("%s", line);
	}
	diag_free(&diag);
}

void loop_on_stop(struct daemon *d, const char *why)
{
	log_info("%s: stopping", why);
	d->stop = true;
}

void loop_on_tick(struct daemon *d)
{
	unsigned ms = loop_rescan_ms(d);
	long long now;

	control_expire(d);
	loop_resume_renames(d);
	loop_lost_due(d);
	loop_check_filter(d);
	if (!d->conf.dry_run)
		apply_power_check(&d->power);
	restrain_on_tick(d);
	fgsource_process(d); /* what a wakeup left, the bus's timeouts */
	now = timing_now_ns();
	/* A tick early by a hair still counts. */
	if (ms && (now - d->last_rescan_ns) / LOOP_MS + 10 >= ms) {
		manage_rescan(&d->manage);
		d->last_rescan_ns = now;
	}
}
