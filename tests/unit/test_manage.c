/* The managed processes against a fake backend: the seam's process,
 * priority and placement calls (os.h) answered from a table of fake
 * processes (procfake.c), so that what the kernel makes rare happens on demand:
 * a PID reused while a rule is applied, a thread gone mid-write, a write the
 * system refuses, a reload that drops a rule, a child of a managed process
 * that execs something unmatched, a main thread that ends first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "log.h"
#include "manage.h"
#include "os.h"
#include "procfake.h"
#include "rules.h"
#include "rulesfix.h"

/* The tests. */

static const char rules_text[] =
	"rules = (\n"
	"  { name = \"raised\"; match = { exe = \"/usr/bin/raised\"; };\n"
	"    priority = { nice = -6; policy = \"batch\"; }; },\n"
	"  { name = \"lowered\"; match = { exe = \"/usr/bin/lowered\"; };\n"
	"    priority = { nice = 5; }; }\n"
	");\n";

static struct rules rules, other_rules;
static struct manage m;

/* The fake backend is Linux's unless a test says: nice per thread. */
static void load(struct rules *r, const char *text)
{
	rulesfix_load(r, RULES_SYSTEM_LINUX, text);
}

static int setup(void **state)
{
	(void)state;
	procfake_reset();
	load(&rules, rules_text);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	manage_free(&m);
	rules_free(&rules);
	rules_free(&other_rules);
	memset(&other_rules, 0, sizeof(other_rules));
	return 0;
}

/* As the system answers (unread: the counts stay the backend's). */
static int nice_of(pid_t pid, pid_t tid)
{
	struct prio_state now;
	unsigned reads = procfake.reads;

	assert_int_equal(apply_prio_read(pid, tid, &now), OS_OK);
	procfake.reads = reads;
	return now.nice;
}

static void test_exec_applies(void **state)
{
	(void)state;
	procfake_start(100, "/usr/bin/raised", 3);
	manage_exec(&m, 100);
	for (pid_t t = 100; t < 103; t++) {
		assert_int_equal(nice_of(100, t), -6);
		assert_int_equal(procfake_thread(100, t)->prio.policy,
				 RULE_POLICY_BATCH);
	}
	assert_non_null(manage_find(&m, 100));
}

/* A matched exec reads each thread's priority once: the read that makes
 * its record serves the apply, and a write the system's answer says was
 * taken is not read back. */
static void test_exec_reads_once(void **state)
{
	unsigned reads = procfake.reads, mask_reads = procfake.mask_reads;

	(void)state;
	procfake_start(150, "/usr/bin/raised", 2);
	manage_exec(&m, 150);
	assert_int_equal(nice_of(150, 151), -6);
	assert_int_equal(procfake.reads - reads, 2);
	/* A rule that places nothing reads no thread's CPUs. */
	assert_int_equal(procfake.mask_reads, mask_reads);
	/* The record holds what the kernel holds: a rescan writes nothing
	 * and sees no change by someone else. */
	reads = procfake.writes;
	manage_rescan(&m);
	assert_int_equal(procfake.writes, reads);
	assert_false(manage_find(&m, 150)->threads[0].left_alone);
}

/* An exec the exec filter sent is pinned before its facts are read, and
 * they are read once: the exe's identity is checked once, not at a first
 * match and again after the pin. One the proc connector reported (any
 * exec) is matched first and read again once pinned. */
static void test_sent_exec_checked_once(void **state)
{
	(void)state;
	procfake_start(160, "/usr/bin/raised", 1);
	manage_exec_sent(&m, 160);
	assert_int_equal(nice_of(160, 160), -6);
	assert_int_equal(procfake.exe_checks, 1);
	procfake_start(170, "/usr/bin/raised", 1);
	manage_exec(&m, 170);
	assert_int_equal(nice_of(170, 170), -6);
	assert_int_equal(procfake.exe_checks, 3);
}

static const char name_rules_text[] =
	"rules = (\n"
	"  { name = \"named\"; match = { name = \"named\"; };\n"
	"    priority = { nice = 4; }; }\n"
	");\n";

/* The rules of the known-exec tests: one by name. */
static void use_name_rules(void)
{
	load(&other_rules, name_rules_text);
	manage_set_rules(&m, &other_rules);
}

/* An exec the filter sent with the name and start it knew: the name is
 * not read again from the system. */
static void test_known_exec_name_unread(void **state)
{
	struct manage_known known = {.comm = "named"};

	(void)state;
	use_name_rules();
	known.start = procfake_start(230, "/usr/bin/named", 1)->start;
	manage_exec_known(&m, 230, &known);
	assert_int_equal(nice_of(230, 230), 4);
	assert_int_equal(procfake.comm_reads, 0);
	/* Without them, the name is read. */
	procfake_start(231, "/usr/bin/named", 1);
	manage_exec_sent(&m, 231);
	assert_int_equal(nice_of(231, 231), 4);
	assert_int_equal(procfake.comm_reads, 1);
}

/* A known exec whose main thread is alone when it is followed: its
 * threads are not listed (a thread it starts later is reported); one
 * with more threads has them listed, each one set. */
static void test_known_exec_alone(void **state)
{
	struct manage_known known = {.comm = "named"};
	unsigned listings;

	(void)state;
	use_name_rules();
	known.start = procfake_start(250, "/usr/bin/named", 1)->start;
	manage_exec_known(&m, 250, &known);
	assert_int_equal(nice_of(250, 250), 4);
	assert_int_equal(procfake.listings, 0);
	listings = procfake.listings;
	known.start = procfake_start(251, "/usr/bin/named", 3)->start;
	manage_exec_known(&m, 251, &known);
	for (pid_t t = 251; t < 254; t++)
		assert_int_equal(nice_of(251, t), 4);
	assert_int_equal(procfake.listings, listings + 1);
}

/* Renamed between its exec and its turn: the name the report gave is
 * no longer its own, and it is judged by the name it has now (here none
 * of a rule's), which is read again. */
static void test_known_exec_renamed(void **state)
{
	struct manage_known known = {.comm = "named"};
	struct procfake_proc *p;

	(void)state;
	use_name_rules();
	p = procfake_start(270, "/usr/bin/named", 1);
	known.start = p->start;
	p->comm = "renamed";
	manage_exec_known(&m, 270, &known);
	assert_int_equal(nice_of(270, 270), 0);
	assert_null(manage_find(&m, 270));
	assert_int_equal(procfake.comm_reads, 1);
}

/* A record of an earlier process under the same pid and rule (its end
 * was lost): the new one is followed only once that record is dropped,
 * after its stat was read, so its threads are listed, alone or not. */
static void test_known_exec_stale_record(void **state)
{
	struct manage_known known = {.comm = "named"};
	unsigned listings;

	(void)state;
	use_name_rules();
	known.start = procfake_start(260, "/usr/bin/named", 1)->start;
	manage_exec_known(&m, 260, &known);
	listings = procfake.listings;
	known.start = procfake_start(260, "/usr/bin/named", 1)->start;
	manage_exec_known(&m, 260, &known);
	assert_int_equal(nice_of(260, 260), 4);
	assert_int_equal(procfake.listings, listings + 1);
}

/* The process that exec'd ended before it was pinned, and another one
 * holds its pid now: what the report said is not that one's, and nothing
 * is applied to it (its own exec comes with its own report). */
static void test_known_exec_other_process(void **state)
{
	struct manage_known known = {.comm = "named"};

	(void)state;
	use_name_rules();
	known.start = procfake_start(240, "/usr/bin/named", 1)->start;
	procfake_start(240, "/usr/bin/other", 1);
	manage_exec_known(&m, 240, &known);
	assert_int_equal(nice_of(240, 240), 0);
	assert_null(manage_find(&m, 240));
}

/* The pid ends during the first write and another process gets it: the
 * other process must not keep the rule's values, whichever way the exec
 * was reported. */
static void pid_reused_mid_write(pid_t pid,
				 void (*exec)(struct manage *m, pid_t pid))
{
	procfake_start(pid, "/usr/bin/raised", 1);
	procfake.reuse_on_write = pid;
	exec(&m, pid);
	assert_int_equal(nice_of(pid, pid), 0);
	assert_string_equal(procfake_proc(pid)->exe, "/usr/bin/other");
	assert_null(manage_find(&m, pid));
	assert_int_equal(m.counters.pid_reuse, 1);
}

/* An exec the filter sent: pinned before its facts are read. */
static void test_sent_exec_pid_reused(void **state)
{
	(void)state;
	pid_reused_mid_write(210, manage_exec_sent);
}

static void test_pid_reused_mid_write(void **state)
{
	(void)state;
	pid_reused_mid_write(200, manage_exec);
}

/* A thread that ends during its write is forgotten, the others keep
 * theirs, and a rescan does not bring it back. */
static void test_thread_gone_mid_write(void **state)
{
	const struct manage_proc *p;

	(void)state;
	procfake_start(300, "/usr/bin/raised", 3);
	procfake.gone_on_write = 301;
	manage_exec(&m, 300);
	p = manage_find(&m, 300);
	assert_non_null(p);
	assert_int_equal(p->thread_count, 2);
	assert_int_equal(nice_of(300, 300), -6);
	assert_int_equal(nice_of(300, 302), -6);
	manage_rescan(&m);
	assert_int_equal(manage_find(&m, 300)->thread_count, 2);
	assert_int_equal(m.counters.left_alone, 0);
}

/* A refused write is said once, recorded as not taken, not tried again at
 * rescans, and never taken for someone else's change. */
static void test_refused_write(void **state)
{
	const struct manage_proc *p;

	(void)state;
	procfake_start(400, "/usr/bin/raised", 1);
	procfake.refuse = OS_DENIED;
	manage_exec(&m, 400);
	p = manage_find(&m, 400);
	assert_non_null(p);
	assert_true(p->threads[0].prio_failed);
	assert_int_equal(nice_of(400, 400), 0);
	assert_int_equal(m.counters.failures, 1);
	manage_rescan(&m);
	manage_rescan(&m);
	assert_int_equal(m.counters.failures, 1);
	assert_int_equal(m.counters.left_alone, 0);
	/* A refusal for now is tried again. */
	procfake = (struct procfake){.procs = {procfake.procs[0]},
				     .count = procfake.count,
				     .refuse = OS_FAILED};
	procfake_start(401, "/usr/bin/raised", 1);
	manage_exec(&m, 401);
	procfake.refuse = OS_OK;
	manage_rescan(&m);
	assert_int_equal(nice_of(401, 401), -6);
}

/* A reload that drops the rule gives every thread its original back,
 * threads created after the match included, setting by setting. */
static void test_restore_on_reload(void **state)
{
	struct procfake_proc *p;

	(void)state;
	p = procfake_start(500, "/usr/bin/raised", 1);
	p->threads[0].prio.nice = 2; /* its own, before any rule */
	manage_exec(&m, 500);
	assert_int_equal(nice_of(500, 500), -6);
	/* A thread created since inherits the rule's values. */
	p->threads[p->thread_count++] = (struct procfake_thread){
		.tid = 501, .prio = p->threads[0].prio};
	manage_thread_new(&m, 500, 501, 500);
	/* Someone changes the policy of the first one only. */
	p->threads[0].prio.policy = RULE_POLICY_IDLE;
	load(&other_rules, "rules = ( { name = \"lowered\"; match = { exe = "
			   "\"/usr/bin/lowered\"; }; priority = { nice = 5; "
			   "}; } );\n");
	manage_set_rules(&m, &other_rules);
	assert_null(manage_find(&m, 500));
	assert_int_equal(nice_of(500, 500), 2);
	assert_int_equal(procfake_thread(500, 500)->prio.policy,
			 RULE_POLICY_IDLE);
	assert_int_equal(nice_of(500, 501), 2);
	assert_int_equal(procfake_thread(500, 501)->prio.policy,
			 RULE_POLICY_OTHER);
}

/* A child forked by a managed process execs a program no rule matches:
 * it gets back what it would have had without its parent's rule. */
static void test_child_exec_unmatched(void **state)
{
	struct procfake_proc *child;

	(void)state;
	procfake_start(600, "/usr/bin/raised", 1);
	manage_exec(&m, 600);
	child = procfake_start(700, "/usr/bin/raised", 1);
	child->threads[0].prio = procfake_thread(600, 600)->prio;
	manage_fork(&m, 600, 600, 700);
	child->exe = "/usr/bin/plain";
	manage_exec(&m, 700);
	assert_int_equal(nice_of(700, 700), 0);
	assert_int_equal(procfake_thread(700, 700)->prio.policy,
			 RULE_POLICY_OTHER);
	assert_null(manage_find(&m, 700));
	assert_int_equal(m.counters.inherited_restored, 1);
}

/* A child of a process a lowering rule matched keeps the lowering at an
 * unmatched exec, as under nice(1): it is not followed, and nothing is
 * read or written for it. */
static void test_child_of_lowering_keeps_it(void **state)
{
	struct procfake_proc *child;
	unsigned writes;

	(void)state;
	procfake_start(610, "/usr/bin/lowered", 1);
	manage_exec(&m, 610);
	assert_int_equal(nice_of(610, 610), 5);
	child = procfake_start(710, "/usr/bin/lowered", 1);
	child->threads[0].prio = procfake_thread(610, 610)->prio;
	manage_fork(&m, 610, 610, 710);
	assert_int_equal(m.heirs.count, 0);
	child->exe = "/usr/bin/plain";
	writes = procfake.writes;
	manage_exec(&m, 710);
	assert_int_equal(nice_of(710, 710), 5);
	assert_int_equal(procfake.writes, writes);
	assert_int_equal(m.counters.inherited_restored, 0);
}

/* follow_children = true: the lowering rule's child gets back the
 * parent's original at its unmatched exec. */
static void test_child_of_lowering_followed_when_asked(void **state)
{
	struct procfake_proc *child;

	(void)state;
	load(&other_rules,
	     "rules = ( { name = \"lowered\"; match = { exe = "
	     "\"/usr/bin/lowered\"; }; priority = { nice = 5; };\n"
	     "follow_children = true; } );\n");
	manage_set_rules(&m, &other_rules);
	procfake_start(620, "/usr/bin/lowered", 1);
	manage_exec(&m, 620);
	child = procfake_start(720, "/usr/bin/lowered", 1);
	child->threads[0].prio = procfake_thread(620, 620)->prio;
	manage_fork(&m, 620, 620, 720);
	child->exe = "/usr/bin/plain";
	manage_exec(&m, 720);
	assert_int_equal(nice_of(720, 720), 0);
	assert_int_equal(m.counters.inherited_restored, 1);
}

/* The exec filter is told which processes' children it follows: a
 * raising rule's, not a lowering rule's; and told again when a reload
 * changes that. */
static struct {
	pid_t pid;
	bool children;
	int calls;
} followed;

static void record_follow(void *ctx, pid_t pid, unsigned how)
{
	(void)ctx;
	followed.pid = pid;
	followed.children = how & MANAGE_FOLLOW_CHILDREN;
	followed.calls++;
}

static void test_filter_told_children(void **state)
{
	struct manage_followed *list;
	size_t count;

	(void)state;
	memset(&followed, 0, sizeof(followed));
	m.options.follow = record_follow;
	procfake_start(630, "/usr/bin/raised", 1);
	manage_exec(&m, 630);
	assert_int_equal(followed.pid, 630);
	assert_true(followed.children);
	procfake_start(640, "/usr/bin/lowered", 1);
	manage_exec(&m, 640);
	assert_int_equal(followed.pid, 640);
	assert_false(followed.children);
	count = manage_followed(&m, &list);
	assert_int_equal(count, 2);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(list[i].how & MANAGE_FOLLOW_CHILDREN,
				 list[i].pid == 630 ? MANAGE_FOLLOW_CHILDREN
						    : 0);
	free(list);
	load(&other_rules,
	     "rules = ( { name = \"lowered\"; match = { exe = "
	     "\"/usr/bin/lowered\"; }; priority = { nice = 5; };\n"
	     "follow_children = true; } );\n");
	followed.calls = 0;
	manage_set_rules(&m, &other_rules);
	assert_int_equal(followed.pid, 640);
	assert_true(followed.children);
	assert_int_equal(followed.calls, 1);
}

/* The end of a process's last thread, as the exec filter tells it: the
 * process has ended, though /proc shows it a while yet (the exit is not
 * done). A record of another process that got the pid meanwhile stays. */
static void test_end_before_proc_says(void **state)
{
	struct procfake_proc *p;

	(void)state;
	p = procfake_start(820, "/usr/bin/raised", 1);
	manage_exec(&m, 820);
	assert_non_null(manage_find(&m, 820));
	manage_end(&m, 820, 820, p->start + 1); /* another process's */
	assert_non_null(manage_find(&m, 820));
	manage_end(&m, 820, 820, p->start);
	assert_null(manage_find(&m, 820));
	assert_int_equal(m.counters.exits, 1);
}

/* The main thread ends while another runs: the process stays managed
 * until its last thread ends. */
static void test_leader_exits_first(void **state)
{
	struct procfake_proc *p;

	(void)state;
	p = procfake_start(800, "/usr/bin/raised", 2);
	manage_exec(&m, 800);
	p->zombie = true;
	procfake_drop_thread(p, 800);
	manage_exit(&m, 800, 800);
	assert_non_null(manage_find(&m, 800));
	manage_rescan(&m); /* its facts are gone: it keeps its rule */
	assert_non_null(manage_find(&m, 800));
	procfake_drop_thread(p, 801);
	manage_exit(&m, 800, 801);
	assert_null(manage_find(&m, 800));
}

/* The main thread ended, and a rescan or a reload reads /proc before its
 * exit event arrives: the facts are gone, yet the process keeps its rule
 * (and its hold) rather than be restored as one no rule matches. */
static void test_leader_exit_event_late(void **state)
{
	struct procfake_proc *p;

	(void)state;
	p = procfake_start(810, "/usr/bin/raised", 2);
	manage_exec(&m, 810);
	p->zombie = true;
	procfake_drop_thread(p, 810);
	manage_rescan(&m);
	assert_non_null(manage_find(&m, 810));
	/* As the daemon's rule sets are: their map of names is freed once
	 * their files are loaded. */
	strmap_free(&rules.by_name);
	strmap_init(&rules.by_name);
	manage_set_rules(&m, &rules);
	assert_non_null(manage_find(&m, 810));
	assert_int_equal(nice_of(810, 811), -6);
	manage_exit(&m, 810, 810); /* the late event */
	assert_non_null(manage_find(&m, 810));
	procfake_drop_thread(p, 811);
	manage_exit(&m, 810, 811);
	assert_null(manage_find(&m, 810));
}

/* respect_changes = false: the rule is enforced over someone else's
 * change, yet only in its own direction and only on its own keys. A
 * thread lowered further than a lowering rule (nice 5) stays where it
 * was put, one raised back gets the rule's value again, and an I/O class
 * the rule does not set is not taken back. */
static void test_enforced_in_its_direction(void **state)
{
	struct procfake_proc *p;

	(void)state;
	manage_free(&m);
	manage_init(&m, &(struct manage_options){.respect_changes = false},
		    NULL);
	manage_set_rules(&m, &rules);
	p = procfake_start(900, "/usr/bin/lowered", 1);
	manage_exec(&m, 900);
	assert_int_equal(nice_of(900, 900), 5);
	p->threads[0].prio.nice = 15;
	p->threads[0].prio.io_class = RULE_IO_CLASS_IDLE;
	manage_rescan(&m);
	assert_int_equal(nice_of(900, 900), 15);
	assert_int_equal(procfake_thread(900, 900)->prio.io_class,
			 RULE_IO_CLASS_IDLE);
	p->threads[0].prio.nice = 0;
	manage_rescan(&m);
	assert_int_equal(nice_of(900, 900), 5);
	assert_int_equal(procfake_thread(900, 900)->prio.io_class,
			 RULE_IO_CLASS_IDLE);
	assert_int_equal(m.counters.left_alone, 0);
	/* What its end gives back is still its own: nice 0. */
	assert_int_equal(manage_find(&m, 900)->threads[0].original.nice, 0);
}

/* Windows: the class is the process's. Threads read after the first was
 * written show the rule's class, yet their original is the class the
 * process had: a rule that then sets only thread levels gives the class
 * back, on every thread. */
static void test_windows_class_is_the_process(void **state)
{
	static const char high[] =
		"rules = ( { name = \"w\"; match = { exe = \"C:/x/w.exe\"; }; "
		"priority = { class = \"high\"; thread = \"highest\"; }; } "
		");\n";
	static const char levels[] =
		"rules = ( { name = \"w\"; match = { exe = \"C:/x/w.exe\"; }; "
		"priority = { thread = \"above-normal\"; }; } );\n";

	(void)state;
	procfake.process_wide = true;
	manage_free(&m);
	rules_free(&rules);
	rulesfix_load(&rules, RULES_SYSTEM_WINDOWS, high);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
	procfake_start(700, "C:/x/w.exe", 3);
	manage_exec(&m, 700);
	for (pid_t t = 700; t < 703; t++) {
		assert_int_equal(nice_of(700, t), -10);
		assert_int_equal(procfake_thread(700, t)->prio.thread_level, 2);
	}
	rulesfix_load(&other_rules, RULES_SYSTEM_WINDOWS, levels);
	manage_set_rules(&m, &other_rules);
	for (pid_t t = 700; t < 703; t++) {
		assert_int_equal(nice_of(700, t), 0);
		assert_int_equal(procfake_thread(700, t)->prio.thread_level, 1);
	}
}

/* A daemon fresh on the Windows rules, with no process yet. */
static void manage_fresh(void)
{
	manage_free(&m);
	procfake_reset();
	procfake.process_wide = true;
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
}

/* The CPU time (this thread's) one manage_exec of a process of count
 * threads takes under the `thread` rule: the mean over runs that add up
 * to 200 ms at least, as the clock may tick coarsely (10 ms under Wine);
 * each run on a fresh daemon and process. */
static long long exec_cpu_ns(size_t count)
{
	long long total = 0;
	int runs = 0;

	while (runs < 3 || total < 200 * 1000000ll) {
		long long start;

		manage_fresh();
		procfake_start(10000, "C:/x/many.exe", count);
		start = timing_thread_cpu_ns();
		manage_exec(&m, 10000);
		total += timing_thread_cpu_ns() - start;
		runs++;
		assert_int_equal(manage_find(&m, 10000)->thread_count, count);
	}
	return total / runs;
}

/* A `thread` rule writes every thread, and on Windows each write sets
 * the process's class for all: applying it to 2,000 threads takes a
 * read, a write and a read back per thread (counted), a rescan after it
 * writes nothing and takes nothing for someone else's change, and eight
 * times the threads cost about eight times the CPU (a walk of every
 * thread after each write, quadratic, made it over sixty). */
static void test_thread_rule_linear(void **state)
{
	static const char many[] =
		"rules = ( { name = \"many\"; match = { exe = "
		"\"C:/x/many.exe\"; "
		"}; priority = { class = \"high\"; thread = \"highest\"; }; } "
		");\n";
	enum {
		N = 2000,
		BIG = 8 * N
	};
	long long small_ns, big_ns;
	unsigned writes;

	(void)state;
	rules_free(&rules);
	rulesfix_load(&rules, RULES_SYSTEM_WINDOWS, many);
	manage_fresh();
	procfake_start(10000, "C:/x/many.exe", N);
	manage_exec(&m, 10000);
	assert_int_equal(manage_find(&m, 10000)->thread_count, N);
	for (pid_t t = 10000; t < 10000 + N; t++) {
		assert_int_equal(nice_of(10000, t), -10);
		assert_int_equal(procfake_thread(10000, t)->prio.thread_level,
				 2);
	}
	assert_in_range(procfake.writes, N, N);
	assert_in_range(procfake.reads, N, 3 * N);
	writes = procfake.writes;
	manage_rescan(&m);
	assert_int_equal(m.counters.left_alone, 0);
	assert_int_equal(procfake.writes, writes);
	assert_in_range(procfake.reads, N, 4 * N);
	small_ns = exec_cpu_ns(N);
	big_ns = exec_cpu_ns(BIG);
	print_message("# %d threads: %lld us, %d threads: %lld us (%.1fx)\n", N,
		      small_ns / 1000, BIG, big_ns / 1000,
		      (double)big_ns / (double)(small_ns ? small_ns : 1));
	assert_true(big_ns < 24 * small_ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exec_applies, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exec_reads_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sent_exec_checked_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sent_exec_pid_reused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_exec_name_unread,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_exec_other_process,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_exec_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_known_exec_stale_record,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_exec_renamed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pid_reused_mid_write,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_gone_mid_write,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_restore_on_reload, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_windows_class_is_the_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_rule_linear, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_child_exec_unmatched,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_of_lowering_keeps_it,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_child_of_lowering_followed_when_asked, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_filter_told_children,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_leader_exit_event_late,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_before_proc_says,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_leader_exits_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enforced_in_its_direction,
						setup, teardown),
	};

	log_init("test_manage", LOG_LEVEL_ERROR);
	return unit_run("manage", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
