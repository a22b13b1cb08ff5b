/* The loop's dispatch (policyd/loop_common.c) with the exec filter, its two
 * sources stubbed: the ring buffer's execs and the proc connector's
 * forks, fed in the order the kernel cannot prevent (the child's exec in
 * the ring, its fork still in the connector's queue, the ring named
 * first by epoll); and the tick's making up for a map of followed
 * processes that had no room. The managed processes are lib/manage.c's
 * own, over a stub system of one-thread processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "log.h"
#include "manage.h"
#include "os.h"
#include "policyd.h"
#include "rules.h"
#include "procfake.h"
#include "rulesfix.h"

/* The fake system (procfake.c): processes of one thread. */

enum {
	STUB_EVENTS = 8
};

/* What each source holds: the proc connector's queue, the ring. */
static struct stub {
	struct events_event connector[STUB_EVENTS], ring[STUB_EVENTS],
		taken[STUB_EVENTS];
	size_t connector_count, ring_count, taken_count;
} stub;

static struct procfake_proc *stub_start(pid_t pid, const char *exe)
{
	return procfake_start(pid, exe, 1);
}

/* The nice value and the rest of a process's one thread. */
static struct prio_state *stub_prio(pid_t pid)
{
	return &procfake_thread(pid, pid)->prio;
}

/* The two sources, and the rest of the daemon loop_common.c calls. */

enum os_status events_read(struct events *ev, events_fn fn, void *ctx,
			   bool *lost)
{
	size_t count = stub.connector_count;

	(void)ev;
	*lost = false;
	stub.connector_count = 0;
	for (size_t i = 0; i < count; i++)
		fn(ctx, &stub.connector[i]);
	return OS_OK;
}

void events_close(struct events *ev)
{
	ev->fd = -1;
}

enum os_status execfilter_take(struct execfilter *f)
{
	(void)f;
	memcpy(stub.taken + stub.taken_count, stub.ring,
	       stub.ring_count * sizeof(*stub.ring));
	stub.taken_count += stub.ring_count;
	stub.ring_count = 0;
	return OS_OK;
}

void execfilter_deliver(struct execfilter *f, events_fn fn, void *ctx)
{
	size_t count = stub.taken_count;

	(void)f;
	stub.taken_count = 0;
	for (size_t i = 0; i < count; i++)
		fn(ctx, &stub.taken[i]);
}

enum os_status execfilter_refresh(struct execfilter *f, bool *changed)
{
	(void)f;
	*changed = false;
	return OS_OK;
}

/* Literal exes' files the watch of their directories found replaced. */
static size_t watch_changed;

enum os_status execfilter_watch_read(struct execfilter *f, size_t *changed)
{
	(void)f;
	*changed = watch_changed;
	watch_changed = 0;
	return OS_OK;
}

/* The followed processes' map: its counts as the kernel keeps them, the
 * processes the daemon followed itself, the count it made up for. */
static struct stub_map {
	struct execfilter_stats st;
	pid_t followed[PROCFAKE_PROCS];
	size_t count;
	unsigned long long acked;
	unsigned unfulls;
	bool refuse; /* no room, whatever the count says */
} map;

enum os_status execfilter_stats(const struct execfilter *f,
				struct execfilter_stats *st)
{
	(void)f;
	*st = map.st;
	return OS_OK;
}

enum os_status execfilter_follow(struct execfilter *f, int pid, unsigned how,
				 bool *added)
{
	(void)f;
	(void)how;
	*added = false;
	for (size_t i = 0; i < map.count; i++) {
		if (map.followed[i] == pid)
			return OS_OK;
	}
	if (map.refuse || map.st.following >= map.st.follow_max) {
		map.st.follow_failed++;
		map.st.full = true;
		return OS_FAILED;
	}
	map.followed[map.count++] = pid;
	map.st.following++;
	*added = true;
	return OS_OK;
}

void execfilter_unfull(struct execfilter *f, unsigned long long failed)
{
	(void)f;
	map.acked = failed;
	map.st.full = map.st.follow_failed != failed;
	map.unfulls++;
}

void ifeo_exec(struct daemon *d, pid_t pid)
{
	(void)d;
	(void)pid;
}

void daemon_events_update(struct daemon *d, const struct rules *rules)
{
	(void)d;
	(void)rules;
}

void daemon_filter_update(struct daemon *d, const struct rules *rules)
{
	(void)d;
	(void)rules;
}

void daemon_filter_drop(struct daemon *d, const char *why)
{
	(void)why;
	d->execfilter = NULL;
}

int daemon_reload(struct daemon *d, struct diag *diag)
{
	(void)d;
	(void)diag;
	return 0;
}

void control_expire(struct daemon *d)
{
	(void)d;
}

void apply_power_check(struct power *pw)
{
	(void)pw;
}

void restrain_on_tick(struct daemon *d)
{
	(void)d;
}

void fgsource_process(struct daemon *d)
{
	(void)d;
}

enum os_status loop_arm(struct daemon *d)
{
	(void)d;
	return OS_OK;
}

void loop_events_gone(struct daemon *d)
{
	(void)d;
}

void loop_events_read(struct daemon *d, bool on)
{
	(void)d;
	(void)on;
}

/* The tests. */

static const char rules_text[] =
	"rules = ( { name = \"raised\"; match = { exe = \"/usr/bin/raised\"; "
	"}; priority = { nice = -6; }; } );\n";

static struct rules rules;
static struct daemon d;
static int filter; /* stands for the loaded filter: only its address */

static int setup(void **state)
{
	(void)state;
	stub = (struct stub){0};
	procfake_reset();
	map = (struct stub_map){.st = {.follow_max = 16}};
	d = (struct daemon){.execfilter = (struct execfilter *)&filter};
	d.events.fd = 3;
	rulesfix_load(&rules, RULES_SYSTEM_LINUX, rules_text);
	manage_init(&d.manage,
		    &(struct manage_options){.respect_changes = true}, NULL);
	manage_set_rules(&d.manage, &rules);
	d.rules = &rules;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	manage_free(&d.manage);
	pidmap_free(&d.renamed);
	rules_free(&rules);
	return 0;
}

static void ring_exec(pid_t pid)
{
	stub.ring[stub.ring_count++] = (struct events_event){
		.kind = EVENTS_KIND_EXEC, .pid = pid, .tid = pid};
}

/* A fork as either source reports it. */
static struct events_event fork_event(pid_t parent, pid_t child)
{
	return (struct events_event){.kind = EVENTS_KIND_FORK,
				     .pid = child,
				     .tid = child,
				     .parent = parent,
				     .parent_tid = parent};
}

static void connector_fork(pid_t parent, pid_t child)
{
	stub.connector[stub.connector_count++] = fork_event(parent, child);
}

/* A managed process posix_spawns a program no rule matches: the child's
 * exec is in the ring, its fork still in the connector's queue, and the
 * ring's readiness is handled first. The child is still the managed
 * process's child when its exec is judged: what it inherited is undone,
 * and nothing is left waiting for an exec that already happened. */
static void test_exec_before_fork(void **state)
{
	struct procfake_proc *child;

	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	assert_int_equal(stub_prio(600)->nice, -6);
	child = stub_start(700, "/usr/bin/plain");
	child->threads[0].prio = *stub_prio(600);
	connector_fork(600, 700);
	ring_exec(700);
	loop_on_execs(&d);
	loop_on_events(&d); /* the connector's turn, as epoll names it next */
	assert_int_equal(stub_prio(700)->nice, 0);
	assert_int_equal(d.manage.counters.inherited_restored, 1);
	assert_null(manage_find(&d.manage, 700));
	assert_int_equal(d.manage.heirs.count, 0);
	assert_int_equal(stub_prio(600)->nice, -6);
}

/* The same child when the connector was read first, before its fork
 * was queued: the ring's turn reads the connector again. */
static void test_connector_read_before(void **state)
{
	struct procfake_proc *child;

	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	loop_on_events(&d); /* nothing queued yet */
	child = stub_start(701, "/usr/bin/plain");
	child->threads[0].prio = *stub_prio(600);
	connector_fork(600, 701);
	ring_exec(701);
	loop_on_execs(&d);
	assert_int_equal(stub_prio(701)->nice, 0);
	assert_int_equal(d.manage.heirs.count, 0);
}

static void ring_fork(pid_t parent, pid_t child)
{
	stub.ring[stub.ring_count++] = fork_event(parent, child);
}

/* The fork is in the ring ahead of the exec, and the connector is not
 * read at all (a rename flood on a kernel that cannot filter): the ring
 * alone makes the child known as the managed process's child, and the
 * connector's report of the fork, read later, restores nothing twice. */
static void test_fork_in_the_ring(void **state)
{
	struct procfake_proc *child;

	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	child = stub_start(702, "/usr/bin/plain");
	child->threads[0].prio = *stub_prio(600);
	connector_fork(600, 702);
	d.events_unread = true;
	ring_fork(600, 702);
	ring_exec(702);
	loop_on_execs(&d);
	assert_int_equal(stub_prio(702)->nice, 0);
	assert_int_equal(d.manage.counters.inherited_restored, 1);
	d.events_unread = false;
	loop_on_events(&d);
	ring_exec(702);
	loop_on_execs(&d);
	assert_int_equal(stub_prio(702)->nice, 0);
	assert_int_equal(d.manage.counters.inherited_restored, 1);
}

/* Both sources report the same fork before the child's exec: one fork,
 * one record, one restore. */
static void test_fork_reported_twice(void **state)
{
	struct procfake_proc *child;

	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	child = stub_start(703, "/usr/bin/plain");
	child->threads[0].prio = *stub_prio(600);
	connector_fork(600, 703);
	ring_fork(600, 703);
	loop_on_execs(&d);
	assert_int_equal(d.manage.heirs.count, 1);
	assert_int_equal(d.manage.counters.forks, 1);
	ring_exec(703);
	loop_on_execs(&d);
	assert_int_equal(stub_prio(703)->nice, 0);
	assert_int_equal(d.manage.heirs.count, 0);
}

/* The map had no room for a child (the kernel counted it, and sends
 * every exec): said once; nothing changes while the map stays full;
 * with room, the daemon follows again what it must, and only a tick that
 * finds all of it followed already lets the filter judge again, with the
 * count of refusals it read before looking. A child its managed parent
 * forked before the daemon followed the parent comes from the connector,
 * and holds the filter back one more tick. */
static void test_full_map_made_up_for(void **state)
{
	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	map.st = (struct execfilter_stats){.following = 16,
					   .follow_max = 16,
					   .follow_failed = 3,
					   .full = true};
	loop_on_tick(&d);
	assert_true(d.filter_full);
	assert_int_equal(d.filter_fulls, 1);
	assert_int_equal(map.count, 0);
	loop_on_tick(&d);
	assert_int_equal(d.filter_fulls, 1);
	map.st.following = 10; /* children ended */
	loop_on_tick(&d);
	assert_int_equal(map.count, 1); /* the managed one, followed again */
	assert_int_equal(map.unfulls, 0);
	stub_start(700, "/usr/bin/raised")->threads[0].prio = *stub_prio(600);
	connector_fork(600, 700);
	loop_on_tick(&d);
	assert_int_equal(map.count, 2);
	assert_int_equal(map.unfulls, 0);
	assert_true(d.filter_full);
	loop_on_tick(&d);
	assert_int_equal(map.unfulls, 1);
	assert_int_equal(map.acked, 3);
	assert_false(d.filter_full);
	assert_false(map.st.full);
}

/* Room by the count, but the map refuses the daemon's own follow (it
 * filled again meanwhile): that refusal is counted, and the filter goes
 * on sending every exec. */
static void test_full_map_refused_again(void **state)
{
	(void)state;
	stub_start(600, "/usr/bin/raised");
	ring_exec(600);
	loop_on_execs(&d);
	map.st = (struct execfilter_stats){.following = 14,
					   .follow_max = 16,
					   .follow_failed = 1,
					   .full = true};
	map.refuse = true;
	loop_on_tick(&d);
	loop_on_tick(&d);
	assert_int_equal(map.unfulls, 0);
	assert_int_equal(map.st.follow_failed, 3);
	assert_true(d.filter_full);
	assert_int_equal(d.filter_fulls, 1);
}

/* A rule's program replaced: the filter follows the new file (the
 * stub's part), and a rescan finds what started before it did. */
static void test_replaced_file_rescan(void **state)
{
	(void)state;
	stub_start(900, "/usr/bin/raised"); /* its exec went unsent */
	watch_changed = 1;
	loop_on_watch(&d);
	assert_int_equal(stub_prio(900)->nice, -6);
	assert_int_equal(d.manage.counters.rescans, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exec_before_fork, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_in_the_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_reported_twice, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_connector_read_before,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_map_made_up_for,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_map_refused_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_file_rescan,
						setup, teardown),
	};

	log_init("test_loop", LOG_LEVEL_ERROR);
	return unit_run("loop", (struct unit_table){0}, UNIT_TESTS(tests), NULL,
			NULL);
}
