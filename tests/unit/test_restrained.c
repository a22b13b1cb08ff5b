/* The processes restraint holds, on the fake process table: a user's hog
 * under pressure is lowered on every thread and given back what each had
 * once calm; what is excluded (root's, a name the config exempts, a
 * priority its user set, a realtime thread, the daemon's word) is left
 * as it is and says why; a thread its user changed meanwhile stays
 * theirs; a thread started meanwhile and a child forked meanwhile get
 * back what the process had; a dry run writes nothing; a pid another
 * process took is not given anything back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "procfake.h"
#include "restrained.h"

#define MS   1000000LL
#define USER 1000
#define HOG  500

/* The set under the default limits on a machine of 2 CPUs, lowering to
 * nice 10 and SCHED_BATCH; now_ms the time of its latest pass. */
struct fix {
	struct restrained r;
	struct restrained_options o;
	long long now_ms;
	const char *exclude_why; /* the daemon's word on every process */
	int own_nice; /* ... and settings of its own (a rule's restrain) */
};

static const char *fix_exclude(void *ctx, pid_t pid, unsigned long long start,
			       struct prio_target *target)
{
	const struct fix *f = ctx;

	(void)pid;
	(void)start;
	if (f->own_nice) {
		target->nice = f->own_nice;
		target->policy = RULE_POLICY_IDLE;
	}
	return f->exclude_why;
}

static char *fix_exempt[] = {"pipewire"};

static int fix_setup(void **state)
{
	static struct fix f;

	procfake_reset();
	f = (struct fix){.now_ms = 10000};
	restraint_limits_default(&f.o.limits);
	f.o.target = (struct prio_target){.set_nice = true,
					  .nice = 10,
					  .policy = RULE_POLICY_BATCH,
					  .io_level = -1};
	f.o.pressure_pct = 10;
	f.o.exempt = fix_exempt;
	f.o.exempt_count = 1;
	f.o.exclude = fix_exclude;
	f.o.ctx = &f;
	restrained_init(&f.r, &f.o, 2);
	*state = &f;
	return 0;
}

static int fix_teardown(void **state)
{
	struct fix *f = *state;

	restrained_free(&f->r, "the test's end");
	return 0;
}

/* A user's process of threads threads, running for a minute already. */
static struct procfake_proc *start(pid_t pid, const char *exe, size_t threads)
{
	struct procfake_proc *p = procfake_start(pid, exe, threads);

	p->uid = USER;
	p->age_ns = 60000ULL * MS;
	return p;
}

/* Passes every 250 ms for ms, pid using cpus_used CPUs meanwhile; true
 * when the last pass asked for more. */
static bool run(struct fix *f, pid_t pid, double cpus_used, unsigned pressure,
		long long ms)
{
	bool more = true;

	for (long long t = 0; t < ms; t += 250) {
		struct procfake_proc *p = procfake_proc(pid);

		f->now_ms += 250;
		if (p) {
			p->cpu_ns += (unsigned long long)(cpus_used * 250 * MS);
			p->age_ns += 250ULL * MS;
		}
		more = restrained_pass(&f->r, f->now_ms * MS, pressure);
	}
	return more;
}

static int nice_of(pid_t pid, pid_t tid)
{
	return procfake_thread(pid, tid)->prio.nice;
}

static void test_hog_restrained_on_every_thread(void **state)
{
	struct fix *f = *state;
	const struct restrained_proc *p;

	start(HOG, "/usr/bin/hog", 3);
	run(f, HOG, 1.0, 100, 1500);
	p = restrained_find(&f->r, HOG);
	assert_non_null(p);
	assert_true(p->held);
	assert_string_equal(p->name, "hog");
	assert_in_range(p->share_pct, 45, 55);
	for (pid_t tid = HOG; tid < HOG + 3; tid++) {
		assert_int_equal(nice_of(HOG, tid), 10);
		assert_int_equal(procfake_thread(HOG, tid)->prio.policy,
				 RULE_POLICY_BATCH);
	}
	assert_int_equal(f->r.counters.restraints, 1);
}

static void test_no_pressure_nothing(void **state)
{
	struct fix *f = *state;

	start(HOG, "/usr/bin/hog", 1);
	assert_false(run(f, HOG, 1.0, 5, 3000));
	assert_null(restrained_find(&f->r, HOG));
	assert_int_equal(nice_of(HOG, HOG), 0);
	assert_int_equal(procfake.writes, 0);
}

static void test_released_when_calm(void **state)
{
	struct fix *f = *state;

	start(HOG, "/usr/bin/hog", 2);
	run(f, HOG, 1.0, 100, 1500);
	assert_int_equal(nice_of(HOG, HOG + 1), 10);
	/* Calm, but not for the hold yet: kept. */
	run(f, HOG, 0.0, 0, 3000);
	assert_true(restrained_find(&f->r, HOG)->held);
	/* Then released: no more passes are asked for. */
	assert_false(run(f, HOG, 0.0, 0, 3000));
	assert_int_equal(nice_of(HOG, HOG), 0);
	assert_int_equal(nice_of(HOG, HOG + 1), 0);
	assert_int_equal(procfake_thread(HOG, HOG)->prio.policy,
			 RULE_POLICY_OTHER);
	assert_int_equal(f->r.counters.releases, 1);
	assert_int_equal(f->r.held_count, 0);
}

/* Restrained and starved by busier work: it waits, runnable, as long as
 * it is held, and is not released as calm. */
static void test_starved_is_not_calm(void **state)
{
	struct fix *f = *state;

	start(HOG, "/usr/bin/hog", 1);
	run(f, HOG, 1.0, 100, 1500);
	for (int i = 0; i < 40; i++) {
		procfake_proc(HOG)->wait_ns += 250ULL * MS;
		run(f, HOG, 0.0, 100, 250);
	}
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_int_equal(f->r.counters.releases, 0);
}

static void test_changed_thread_stays_theirs(void **state)
{
	struct fix *f = *state;

	start(HOG, "/usr/bin/hog", 2);
	run(f, HOG, 1.0, 100, 1500);
	procfake_thread(HOG, HOG + 1)->prio.nice = 15;
	restrained_release_all(&f->r, "the test");
	assert_int_equal(nice_of(HOG, HOG), 0);
	assert_int_equal(nice_of(HOG, HOG + 1), 15);
	assert_int_equal(f->r.counters.left_alone, 1);
}

static void test_new_thread_and_child_given_back(void **state)
{
	struct fix *f = *state;
	struct procfake_proc *child;

	start(HOG, "/usr/bin/hog", 1);
	run(f, HOG, 1.0, 100, 1500);
	/* A thread and a child started from the restrained one inherit
	 * its values, as the kernel gives them. */
	procfake_proc(HOG)->threads[procfake_proc(HOG)->thread_count++] =
		(struct procfake_thread){
			.tid = HOG + 7,
			.prio = procfake_thread(HOG, HOG)->prio};
	child = start(HOG + 100, "/usr/bin/hog", 1);
	child->ppid = HOG;
	child->age_ns = 100ULL * MS;
	child->threads[0].prio = procfake_thread(HOG, HOG)->prio;
	restrained_release(&f->r, HOG, "the test");
	assert_int_equal(nice_of(HOG, HOG + 7), 0);
	assert_int_equal(nice_of(HOG + 100, HOG + 100), 0);
	assert_int_equal(procfake_thread(HOG + 100, HOG + 100)->prio.policy,
			 RULE_POLICY_OTHER);
}

/* Each exclusion leaves the process as it was and says why. */
static void assert_excluded(struct fix *f, const char *why)
{
	const struct restrained_proc *p;

	run(f, HOG, 1.0, 100, 1500);
	p = restrained_find(&f->r, HOG);
	assert_non_null(p);
	assert_false(p->held);
	assert_non_null(strstr(p->why_not, why));
	assert_int_equal(procfake.writes, 0);
	assert_int_equal(f->r.counters.restraints, 0);
}

static void test_root_excluded(void **state)
{
	start(HOG, "/usr/bin/hog", 1)->uid = 0;
	assert_excluded(*state, "root");
}

static void test_exempt_name_excluded(void **state)
{
	start(HOG, "/usr/bin/pipewire", 1);
	assert_excluded(*state, "exempt");
}

static void test_users_priority_excluded(void **state)
{
	start(HOG, "/usr/bin/hog", 1)->threads[0].prio.nice = 5;
	assert_excluded(*state, "set by its user");
}

static void test_realtime_excluded(void **state)
{
	struct procfake_proc *p = start(HOG, "/usr/bin/hog", 2);

	p->threads[1].prio.policy = RULE_POLICY_FIFO;
	p->threads[1].prio.rt_priority = 10;
	assert_excluded(*state, "realtime");
}

static void test_daemons_word_excluded(void **state)
{
	struct fix *f = *state;

	f->exclude_why = "foreground";
	start(HOG, "/usr/bin/hog", 1);
	assert_excluded(f, "foreground");
}

/* A rule's restrain gives its processes settings of their own. */
static void test_settings_of_their_own(void **state)
{
	struct fix *f = *state;

	f->own_nice = 19;
	start(HOG, "/usr/bin/hog", 1);
	run(f, HOG, 1.0, 100, 1500);
	assert_int_equal(nice_of(HOG, HOG), 19);
	assert_int_equal(procfake_thread(HOG, HOG)->prio.policy,
			 RULE_POLICY_IDLE);
}

static void test_dry_run_writes_nothing(void **state)
{
	struct fix *f = *state;

	restrained_free(&f->r, "the test");
	f->o.dry_run = true;
	restrained_init(&f->r, &f->o, 2);
	start(HOG, "/usr/bin/hog", 2);
	run(f, HOG, 1.0, 100, 1500);
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_int_equal(procfake.writes, 0);
	assert_int_equal(nice_of(HOG, HOG), 0);
}

/* A hog started just before the pressure is judged from its start: it
 * qualifies as soon as one that ran all along. */
static void test_young_hog_judged_from_its_start(void **state)
{
	struct fix *f = *state;
	struct procfake_proc *p = start(HOG, "/usr/bin/hog", 1);

	p->age_ns = 400ULL * MS;
	p->cpu_ns = 400ULL * MS;
	run(f, HOG, 1.0, 100, 250);
	assert_true(restrained_find(&f->r, HOG)->held);
	/* Its figures are its start's: 650 ms of a CPU over 650 ms. */
	assert_in_range(restrained_find(&f->r, HOG)->share_pct, 45, 55);
}

static void test_pid_taken_by_another(void **state)
{
	struct fix *f = *state;

	start(HOG, "/usr/bin/hog", 1);
	run(f, HOG, 1.0, 100, 1500);
	/* It ends, and another process takes its pid with nice 10. */
	start(HOG, "/usr/bin/other", 1)->threads[0].prio.nice = 10;
	procfake.writes = 0;
	run(f, HOG, 0.0, 100, 250);
	assert_false(restrained_find(&f->r, HOG) &&
		     restrained_find(&f->r, HOG)->held);
	restrained_release_all(&f->r, "the test");
	assert_int_equal(nice_of(HOG, HOG), 10);
	assert_int_equal(procfake.writes, 0);
}

/* A journal in a directory of the test's own. */
static char journal_dir[512];

static void journal_in_tmp(struct journal *j)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR")
			   : getenv("TEMP") ? getenv("TEMP")
					    : ".";

	snprintf(journal_dir, sizeof(journal_dir), "%s/restrained-%ld", base,
		 (long)getpid());
	files_remove_dir(journal_dir);
	assert_int_equal(files_make_dir(journal_dir), OS_OK);
	*j = (struct journal){0};
	j->file = malloc(sizeof(journal_dir) + 16);
	snprintf(j->file, sizeof(journal_dir) + 16, "%s/restraint",
		 journal_dir);
}

static void journal_done(struct journal *j)
{
	files_remove(j->file);
	files_remove_dir(journal_dir);
	journal_close(j);
}

/* The fixture's set again, writing to a journal of the test's own. */
static void fix_journaled(struct fix *f, struct journal *j)
{
	journal_in_tmp(j);
	restrained_free(&f->r, "the test");
	f->o.journal = j;
	restrained_init(&f->r, &f->o, 2);
}

/* Written before the lowering, forgotten at the release. */
static void test_journaled_while_held(void **state)
{
	struct fix *f = *state;
	struct journal j;

	fix_journaled(f, &j);
	start(HOG, "/usr/bin/hog", 2);
	run(f, HOG, 1.0, 100, 1500);
	assert_int_equal(j.count, 1);
	assert_non_null(strstr(j.entries[0].path, "/restraint/500/"));
	assert_string_equal(j.entries[0].original, "0 1 0 0 0 0 0 0 0 0");
	assert_string_equal(j.entries[0].ours, "10 2 0 0 0 0 0 0 0 0");
	restrained_release(&f->r, HOG, "the test");
	assert_int_equal(j.count, 0);
	restrained_free(&f->r, "the test");
	journal_done(&j);
}

/* The crash: nothing released; the records are lost with it. */
static void crash(struct fix *f)
{
	for (size_t i = 0; i < f->r.procs.capacity; i++) {
		struct restrained_proc *p = f->r.procs.slots[i].value;

		if (f->r.procs.slots[i].key) {
			free(p->threads);
			free(p->group);
			free(p);
		}
	}
	free(f->r.groups);
	f->r.groups = NULL;
	f->r.group_count = 0;
	f->r.held_count = 0;
	pidmap_free(&f->r.procs);
	pidmap_init(&f->r.procs);
}

/* A daemon killed while it held a restraint: the next start gives each
 * thread that still holds it the original back, leaves a thread its user
 * changed, and gives nothing to a process that took the pid since. */
static void test_replay_after_a_crash(void **state)
{
	struct fix *f = *state;
	struct journal j;

	fix_journaled(f, &j);
	start(HOG, "/usr/bin/hog", 3);
	start(HOG + 1000, "/usr/bin/hog", 1);
	run(f, HOG, 1.0, 100, 1500);
	procfake_proc(HOG + 1000)->cpu_ns = 10000ULL * MS;
	run(f, HOG + 1000, 1.0, 100, 1500);
	assert_int_equal(j.count, 2);
	crash(f);
	procfake_thread(HOG, HOG + 2)->prio.nice = 3;
	start(HOG + 1000, "/usr/bin/other", 1)->threads[0].prio.nice = 10;
	procfake_thread(HOG + 1000, HOG + 1000)->prio.policy =
		RULE_POLICY_BATCH;
	assert_int_equal(restrained_replay(&j), 1);
	assert_int_equal(nice_of(HOG, HOG), 0);
	assert_int_equal(nice_of(HOG, HOG + 1), 0);
	assert_int_equal(nice_of(HOG, HOG + 2), 3);
	assert_int_equal(nice_of(HOG + 1000, HOG + 1000), 10);
	assert_int_equal(j.count, 0);
	journal_done(&j);
}

/* Passes every 250 ms for ms, each process of the table using cpus_used
 * CPUs meanwhile. */
static void run_all(struct fix *f, double cpus_used, unsigned pressure,
		    long long ms)
{
	for (long long t = 0; t < ms; t += 250) {
		f->now_ms += 250;
		for (size_t i = 0; i < procfake.count; i++) {
			procfake.procs[i].cpu_ns +=
				(unsigned long long)(cpus_used * 250 * MS);
			procfake.procs[i].age_ns += 250ULL * MS;
		}
		restrained_pass(&f->r, f->now_ms * MS, pressure);
	}
}

#define SESSION 77

/* Two hogs alone in session SESSION, whose autogroup (group 1) is at its
 * default, nice 0; kind CGROUP makes it a cgroup of theirs (weight 100). */
static struct procfake_group *two_hogs_in_a_group(enum cpugroup_kind kind)
{
	struct procfake_group *g = &procfake.groups[0];

	*g = (struct procfake_group){
		.kind = kind,
		.id = kind == CPUGROUP_AUTOGROUP ? "/autogroup-77"
						 : "/cg/user/hogs/cpu.weight",
		.value = kind == CPUGROUP_AUTOGROUP ? 0 : 100,
		.leaf = true};
	for (pid_t pid = HOG; pid < HOG + 2; pid++) {
		struct procfake_proc *p = start(pid, "/usr/bin/hog", 1);

		p->session = SESSION;
		p->group = 1;
	}
	return g;
}

/* Every member restrained: the autogroup is lowered to the restraint's
 * nice, and given back before the first member is released. */
static void test_autogroup_lowered_when_all_are(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);

	run_all(f, 1.0, 100, 1500);
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_true(restrained_find(&f->r, HOG + 1)->held);
	assert_int_equal(g->value, 10);
	assert_int_equal(f->r.group_count, 1);
	assert_int_equal(f->r.counters.groups, 1);
	restrained_release(&f->r, HOG, "the test");
	assert_int_equal(g->value, 0);
	assert_int_equal(f->r.group_count, 0);
	assert_int_equal(g->writes, 2);
}

/* The system said not now (one autogroup write in 100 ms): the group is
 * given back at the next pass, and at a stop before the daemon ends. */
static void test_group_given_back_when_the_system_lets(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);

	g->busy = 1;
	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	g->busy = 1;
	restrained_release(&f->r, HOG, "the test");
	assert_int_equal(g->value, 10);
	assert_int_equal(f->r.group_count, 1);
	run(f, HOG, 0.0, 100, 250);
	assert_int_equal(g->value, 0);
	assert_int_equal(f->r.group_count, 0);
	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	g->busy = 2;
	restrained_free(&f->r, "the test");
	assert_int_equal(g->value, 0);
	restrained_init(&f->r, &f->o, 2);
}

/* A member that is not a hog (the foreground, a shell) would lose as much
 * as the hogs: the group is left alone. */
static void test_autogroup_shared_left_alone(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);
	struct procfake_proc *calm = start(HOG + 2, "/usr/bin/game", 1);

	calm->session = SESSION;
	calm->group = 1;
	for (int i = 0; i < 6; i++) {
		procfake_proc(HOG)->cpu_ns += 500ULL * MS;
		procfake_proc(HOG + 1)->cpu_ns += 500ULL * MS;
		run(f, HOG + 2, 0.0, 100, 250);
	}
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_true(restrained_find(&f->r, HOG + 1)->held);
	assert_int_equal(g->value, 0);
	assert_int_equal(g->writes, 0);
}

/* A process that joins the session later, under pressure or after it,
 * gives the group back at the next pass. */
static void test_autogroup_given_back_when_one_joins(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);
	struct procfake_proc *joined;

	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	joined = start(HOG + 2, "/usr/bin/sh", 1);
	joined->session = SESSION;
	joined->group = 1;
	run(f, HOG, 1.0, 0, 250);
	assert_int_equal(g->value, 0);
	assert_true(restrained_find(&f->r, HOG)->held);
	/* Gone again: lowered again, the pressure over or not. */
	procfake_drop_thread(joined, HOG + 2);
	run_all(f, 1.0, 0, 250);
	assert_int_equal(g->value, 10);
}

/* A group whose weight someone set is theirs; one changed while lowered
 * stays as they changed it. */
static void test_group_set_by_others_left_alone(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);

	g->value = 5;
	run_all(f, 1.0, 100, 1500);
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_int_equal(g->writes, 0);
	restrained_release_all(&f->r, "the test");
	g->value = 0;
	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	g->value = 3;
	restrained_release_all(&f->r, "the test");
	assert_int_equal(g->value, 3);
	assert_int_equal(f->r.counters.left_alone, 1);
}

/* A cgroup of the hogs' own is lowered by its weight; one with cgroups
 * below it weighs others too, and is left alone. */
static void test_cgroup_of_their_own(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_CGROUP);

	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	restrained_free(&f->r, "the test");
	assert_int_equal(g->value, 100);
	restrained_init(&f->r, &f->o, 2);
	g->leaf = false;
	run_all(f, 1.0, 100, 1500);
	assert_true(restrained_find(&f->r, HOG)->held);
	assert_int_equal(g->value, 100);
}

static void test_group_dry_run_writes_nothing(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);

	restrained_free(&f->r, "the test");
	f->o.dry_run = true;
	restrained_init(&f->r, &f->o, 2);
	run_all(f, 1.0, 100, 1500);
	assert_int_equal(f->r.group_count, 1);
	restrained_release_all(&f->r, "the test");
	assert_int_equal(g->writes, 0);
}

/* The group is journaled with its members, and a crash's next start
 * gives it back through one of them. */
static void test_group_replay_after_a_crash(void **state)
{
	struct fix *f = *state;
	struct procfake_group *g = two_hogs_in_a_group(CPUGROUP_AUTOGROUP);
	struct journal j;

	fix_journaled(f, &j);
	run_all(f, 1.0, 100, 1500);
	assert_int_equal(g->value, 10);
	assert_int_equal(j.count, 3);
	assert_non_null(journal_find(&j, "/cpugroup/autogroup-77"));
	crash(f);
	/* The member it was lowered through ended meanwhile. */
	procfake_proc(HOG)->group = 0;
	assert_int_equal(restrained_replay(&j), 3);
	assert_int_equal(g->value, 0);
	assert_int_equal(nice_of(HOG + 1, HOG + 1), 0);
	journal_done(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, fix_setup, fix_teardown)
		T(test_hog_restrained_on_every_thread),
		T(test_no_pressure_nothing),
		T(test_released_when_calm),
		T(test_starved_is_not_calm),
		T(test_changed_thread_stays_theirs),
		T(test_new_thread_and_child_given_back),
		T(test_root_excluded),
		T(test_exempt_name_excluded),
		T(test_users_priority_excluded),
		T(test_realtime_excluded),
		T(test_daemons_word_excluded),
		T(test_settings_of_their_own),
		T(test_dry_run_writes_nothing),
		T(test_young_hog_judged_from_its_start),
		T(test_pid_taken_by_another),
		T(test_journaled_while_held),
		T(test_replay_after_a_crash),
		T(test_autogroup_lowered_when_all_are),
		T(test_autogroup_shared_left_alone),
		T(test_group_given_back_when_the_system_lets),
		T(test_autogroup_given_back_when_one_joins),
		T(test_group_set_by_others_left_alone),
		T(test_cgroup_of_their_own),
		T(test_group_dry_run_writes_nothing),
		T(test_group_replay_after_a_crash),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
