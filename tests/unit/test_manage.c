/* The managed processes against a stub backend: the seam's process,
 * priority and placement calls (os.h) answered from a table of fake
 * processes, so that what the kernel makes rare happens on demand: a PID
 * reused while a rule is applied, a thread gone mid-write, a write the
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
#include "rules.h"
#include "rulesfix.h"

/* The stub system. */

enum {
	STUB_PROCS = 8,
	STUB_THREADS = 16384 /* a pool's worth: the cost test's largest */
};

struct stub_thread {
	pid_t tid;
	struct prio_state prio;
};

struct stub_proc {
	pid_t pid;
	unsigned long long start;
	const char *exe;
	bool zombie;		     /* its main thread ended, others run on */
	struct stub_thread *threads; /* its slot of stub_pool */
	size_t thread_count;
	/* As Windows keeps the class and EcoQoS: once, for the process
	 * (process_wide), laid over what each thread reads. */
	bool shared_set;
	struct prio_state shared;
};

/* Threads outside struct stub, which tests copy by value. */
static struct stub_thread stub_pool[STUB_PROCS][STUB_THREADS];

static struct stub {
	struct stub_proc procs[STUB_PROCS];
	size_t count;
	/* One-shot troubles, armed by a test. */
	pid_t reuse_on_write;  /* this pid ends and a new process takes it
				  while its first write happens */
	pid_t gone_on_write;   /* this thread ends at its first write */
	enum os_status refuse; /* every priority write answers this */
	unsigned writes;       /* priority writes that reached the system */
	unsigned reads;	       /* priority reads */
	/* As Windows: nice, policy and EcoQoS (the class) are the
	 * process's, a write through one thread sets them for all. */
	bool process_wide;
} stub;

static struct stub_proc *stub_proc(pid_t pid)
{
	for (size_t i = 0; i < stub.count; i++) {
		if (stub.procs[i].pid == pid)
			return &stub.procs[i];
	}
	return NULL;
}

/* Found at once where stub_start put it (tid pid + i), else looked for:
 * the cost test's thousands of threads must not make the stub the
 * quadratic part. */
static struct stub_thread *stub_thread(pid_t pid, pid_t tid)
{
	struct stub_proc *p = stub_proc(pid);
	size_t at = (size_t)(tid - pid);

	if (p && tid >= pid && at < p->thread_count &&
	    p->threads[at].tid == tid)
		return &p->threads[at];
	for (size_t i = 0; p && i < p->thread_count; i++) {
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	}
	return NULL;
}

static struct stub_proc *stub_start(pid_t pid, const char *exe, size_t threads)
{
	static unsigned long long clock = 1000;
	struct stub_proc *p = stub_proc(pid);

	if (!p)
		p = &stub.procs[stub.count++];
	assert_true(threads <= STUB_THREADS);
	*p = (struct stub_proc){.pid = pid,
				.start = ++clock,
				.exe = exe,
				.threads = stub_pool[p - stub.procs]};
	/* As the kernel starts them: nice 0, SCHED_OTHER, no I/O class. */
	for (size_t i = 0; i < threads; i++)
		p->threads[p->thread_count++] = (struct stub_thread){
			.tid = i ? pid + (pid_t)i : pid,
			.prio = {.policy = RULE_POLICY_OTHER}};
	return p;
}

static void stub_drop_thread(struct stub_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->thread_count; i++) {
		if (p->threads[i].tid == tid) {
			p->threads[i] = p->threads[--p->thread_count];
			return;
		}
	}
}

/* The seam (os.h), as the stub system answers it. */

void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	const struct procinfo *pi = ctx;
	struct stub_proc *p = stub_proc(pi->pid);

	if (!p || p->zombie) {
		facts->failed |= wanted;
		return;
	}
	if (wanted & MATCH_FACT_EXE)
		snprintf(facts->exe, sizeof(facts->exe), "%s", p->exe);
	if (wanted & MATCH_FACT_EXE_FILE)
		facts->exe_file = MATCH_FILE_SAME;
	if (wanted & MATCH_FACT_COMM)
		snprintf(facts->comm, sizeof(facts->comm), "%s",
			 strrchr(p->exe, '/') + 1);
	if (wanted & MATCH_FACT_CMDLINE)
		snprintf(facts->cmdline, sizeof(facts->cmdline), "%s", p->exe);
	if (wanted & MATCH_FACT_CREDS) {
		facts->uid = facts->gid = 0;
		facts->group_count = 0;
	}
	if (wanted & MATCH_FACT_CGROUP)
		facts->cgroups[0] = '\0';
	facts->have |= wanted & ~(unsigned)MATCH_FACT_PARENT_EXE &
		       ~(unsigned)MATCH_FACT_PARENT_EXE_FILE;
	facts->failed |=
		wanted & (MATCH_FACT_PARENT_EXE | MATCH_FACT_PARENT_EXE_FILE);
}

static pid_t *stub_list(size_t *count, pid_t pid)
{
	struct stub_proc *p = pid ? stub_proc(pid) : NULL;
	size_t n = pid ? (p ? p->thread_count : 0) : stub.count;
	pid_t *list = calloc(n + 1, sizeof(*list));

	for (size_t i = 0; i < n; i++)
		list[i] = pid ? p->threads[i].tid : stub.procs[i].pid;
	*count = n;
	return list;
}

enum os_status procinfo_pids(pid_t **pids, size_t *count)
{
	*pids = stub_list(count, 0);
	return OS_OK;
}

enum os_status procinfo_threads(pid_t pid, pid_t **tids, size_t *count)
{
	if (!stub_proc(pid))
		return OS_GONE;
	*tids = stub_list(count, pid);
	return OS_OK;
}

void procinfo_scan_begin(void)
{
}

void procinfo_scan_end(void)
{
}

enum os_status procinfo_start_time(pid_t pid, pid_t tid,
				   unsigned long long *start)
{
	struct stub_proc *p = stub_proc(pid);

	(void)tid;
	if (!p)
		return OS_GONE;
	*start = p->start;
	return OS_OK;
}

bool procinfo_zombie(pid_t pid)
{
	struct stub_proc *p = stub_proc(pid);

	return p && p->zombie;
}

enum os_status procinfo_thread_name(pid_t pid, pid_t tid, char *name,
				    size_t size)
{
	(void)pid;
	(void)tid;
	snprintf(name, size, "stub");
	return OS_OK;
}

/* A pin holds the start time it saw: a process with another start under
 * the same pid is another process. The pin's fields are the system's
 * (ostypes.h): what it saw is kept here, as manage.c holds one pin at a
 * time. */
static struct {
	pid_t pid;
	unsigned long long start;
} pinned;

enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin)
{
	struct stub_proc *p = stub_proc(pid);

	(void)pin;
	if (!p)
		return OS_GONE;
	pinned.pid = pid;
	pinned.start = p->start;
	return OS_OK;
}

bool procinfo_pin_ended(const struct procinfo_pin *pin)
{
	struct stub_proc *p = stub_proc(pinned.pid);

	(void)pin;
	return !p || p->start != pinned.start;
}

void procinfo_unpin(struct procinfo_pin *pin)
{
	(void)pin;
	pinned.pid = 0;
}

bool procinfo_ended(pid_t pid)
{
	struct stub_proc *p = stub_proc(pid);

	return !p || !p->thread_count;
}

bool procinfo_thread_in(pid_t pid, pid_t tid)
{
	return stub_thread(pid, tid) != NULL;
}

bool procinfo_task_exists(pid_t tid)
{
	for (size_t i = 0; i < stub.count; i++) {
		if (stub_thread(stub.procs[i].pid, tid))
			return true;
	}
	return false;
}

enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state)
{
	struct stub_thread *t = stub_thread(pid, tid);
	struct stub_proc *p = stub_proc(pid);

	if (!t)
		return OS_GONE;
	stub.reads++;
	*state = t->prio;
	if (stub.process_wide && p->shared_set) {
		state->nice = p->shared.nice;
		state->policy = p->shared.policy;
		state->rt_priority = p->shared.rt_priority;
		state->efficiency = p->shared.efficiency;
	}
	return OS_OK;
}

enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	struct stub_thread *t = stub_thread(pid, tid);
	struct stub_proc *p = stub_proc(pid);

	(void)now;
	if (!t)
		return OS_GONE;
	if (stub.refuse != OS_OK)
		return stub.refuse;
	stub.writes++;
	t->prio = *wanted;
	if (stub.process_wide) {
		p->shared = *wanted;
		p->shared_set = true;
	}
	if (stub.gone_on_write == tid) {
		stub.gone_on_write = 0;
		stub_drop_thread(p, tid);
	}
	if (stub.reuse_on_write == pid) {
		/* The process ends; another one gets its pid at once, with
		 * the values the write left on the thread of that id. */
		struct prio_state left = t->prio;

		stub.reuse_on_write = 0;
		stub_start(pid, "/usr/bin/other", 1)->threads[0].prio = left;
	}
	return OS_OK;
}

enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set)
{
	(void)set;
	return stub_thread(pid, tid) ? OS_OK : OS_GONE;
}

enum os_status apply_place_write(pid_t pid, pid_t tid, hwloc_const_bitmap_t set)
{
	(void)set;
	return stub_thread(pid, tid) ? OS_OK : OS_GONE;
}

enum os_status apply_place_allowed(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	(void)set;
	return OS_GONE;
}

enum os_status apply_place_current(pid_t pid, hwloc_bitmap_t set)
{
	return apply_place_allowed(pid, set);
}

enum os_status apply_place_process(pid_t pid, hwloc_const_bitmap_t set)
{
	(void)pid;
	(void)set;
	return OS_UNSUPPORTED;
}

enum os_status apply_place_process_read(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	hwloc_bitmap_zero(set);
	return OS_UNSUPPORTED;
}

hwloc_bitmap_t *apply_place_kinds(size_t *count)
{
	*count = 0;
	return NULL;
}

enum os_status apply_place_online(hwloc_bitmap_t set)
{
	(void)set;
	return OS_FAILED;
}

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

/* The stub backend is Linux's unless a test says: nice per thread. */
static void load(struct rules *r, const char *text)
{
	rulesfix_load(r, RULES_SYSTEM_LINUX, text);
}

static int setup(void **state)
{
	(void)state;
	stub = (struct stub){.refuse = OS_OK};
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
	unsigned reads = stub.reads;

	assert_int_equal(apply_prio_read(pid, tid, &now), OS_OK);
	stub.reads = reads;
	return now.nice;
}

static void test_exec_applies(void **state)
{
	(void)state;
	stub_start(100, "/usr/bin/raised", 3);
	manage_exec(&m, 100);
	for (pid_t t = 100; t < 103; t++) {
		assert_int_equal(nice_of(100, t), -6);
		assert_int_equal(stub_thread(100, t)->prio.policy,
				 RULE_POLICY_BATCH);
	}
	assert_non_null(manage_find(&m, 100));
}

/* The pid ends during the first write and another process gets it: the
 * other process must not keep the rule's values. */
static void test_pid_reused_mid_write(void **state)
{
	(void)state;
	stub_start(200, "/usr/bin/raised", 1);
	stub.reuse_on_write = 200;
	manage_exec(&m, 200);
	assert_int_equal(nice_of(200, 200), 0);
	assert_string_equal(stub_proc(200)->exe, "/usr/bin/other");
	assert_null(manage_find(&m, 200));
	assert_int_equal(m.counters.pid_reuse, 1);
}

/* A thread that ends during its write is forgotten, the others keep
 * theirs, and a rescan does not bring it back. */
static void test_thread_gone_mid_write(void **state)
{
	const struct manage_proc *p;

	(void)state;
	stub_start(300, "/usr/bin/raised", 3);
	stub.gone_on_write = 301;
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
	stub_start(400, "/usr/bin/raised", 1);
	stub.refuse = OS_DENIED;
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
	stub = (struct stub){.procs = {stub.procs[0]},
			     .count = stub.count,
			     .refuse = OS_FAILED};
	stub_start(401, "/usr/bin/raised", 1);
	manage_exec(&m, 401);
	stub.refuse = OS_OK;
	manage_rescan(&m);
	assert_int_equal(nice_of(401, 401), -6);
}

/* A reload that drops the rule gives every thread its original back,
 * threads created after the match included, setting by setting. */
static void test_restore_on_reload(void **state)
{
	struct stub_proc *p;

	(void)state;
	p = stub_start(500, "/usr/bin/raised", 1);
	p->threads[0].prio.nice = 2; /* its own, before any rule */
	manage_exec(&m, 500);
	assert_int_equal(nice_of(500, 500), -6);
	/* A thread created since inherits the rule's values. */
	p->threads[p->thread_count++] =
		(struct stub_thread){.tid = 501, .prio = p->threads[0].prio};
	manage_thread_new(&m, 500, 501, 500);
	/* Someone changes the policy of the first one only. */
	p->threads[0].prio.policy = RULE_POLICY_IDLE;
	load(&other_rules, "rules = ( { name = \"lowered\"; match = { exe = "
			   "\"/usr/bin/lowered\"; }; priority = { nice = 5; "
			   "}; } );\n");
	manage_set_rules(&m, &other_rules);
	assert_null(manage_find(&m, 500));
	assert_int_equal(nice_of(500, 500), 2);
	assert_int_equal(stub_thread(500, 500)->prio.policy, RULE_POLICY_IDLE);
	assert_int_equal(nice_of(500, 501), 2);
	assert_int_equal(stub_thread(500, 501)->prio.policy, RULE_POLICY_OTHER);
}

/* A child forked by a managed process execs a program no rule matches:
 * it gets back what it would have had without its parent's rule. */
static void test_child_exec_unmatched(void **state)
{
	struct stub_proc *child;

	(void)state;
	stub_start(600, "/usr/bin/raised", 1);
	manage_exec(&m, 600);
	child = stub_start(700, "/usr/bin/raised", 1);
	child->threads[0].prio = stub_thread(600, 600)->prio;
	manage_fork(&m, 600, 600, 700);
	child->exe = "/usr/bin/plain";
	manage_exec(&m, 700);
	assert_int_equal(nice_of(700, 700), 0);
	assert_int_equal(stub_thread(700, 700)->prio.policy, RULE_POLICY_OTHER);
	assert_null(manage_find(&m, 700));
	assert_int_equal(m.counters.inherited_restored, 1);
}

/* The main thread ends while another runs: the process stays managed
 * until its last thread ends. */
static void test_leader_exits_first(void **state)
{
	struct stub_proc *p;

	(void)state;
	p = stub_start(800, "/usr/bin/raised", 2);
	manage_exec(&m, 800);
	p->zombie = true;
	stub_drop_thread(p, 800);
	manage_exit(&m, 800, 800);
	assert_non_null(manage_find(&m, 800));
	manage_rescan(&m); /* its facts are gone: it keeps its rule */
	assert_non_null(manage_find(&m, 800));
	stub_drop_thread(p, 801);
	manage_exit(&m, 800, 801);
	assert_null(manage_find(&m, 800));
}

/* The main thread ended, and a rescan or a reload reads /proc before its
 * exit event arrives: the facts are gone, yet the process keeps its rule
 * (and its hold) rather than be restored as one no rule matches. */
static void test_leader_exit_event_late(void **state)
{
	struct stub_proc *p;

	(void)state;
	p = stub_start(810, "/usr/bin/raised", 2);
	manage_exec(&m, 810);
	p->zombie = true;
	stub_drop_thread(p, 810);
	manage_rescan(&m);
	assert_non_null(manage_find(&m, 810));
	manage_set_rules(&m, &rules);
	assert_non_null(manage_find(&m, 810));
	assert_int_equal(nice_of(810, 811), -6);
	manage_exit(&m, 810, 810); /* the late event */
	assert_non_null(manage_find(&m, 810));
	stub_drop_thread(p, 811);
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
	struct stub_proc *p;

	(void)state;
	manage_free(&m);
	manage_init(&m, &(struct manage_options){.respect_changes = false},
		    NULL);
	manage_set_rules(&m, &rules);
	p = stub_start(900, "/usr/bin/lowered", 1);
	manage_exec(&m, 900);
	assert_int_equal(nice_of(900, 900), 5);
	p->threads[0].prio.nice = 15;
	p->threads[0].prio.io_class = RULE_IO_CLASS_IDLE;
	manage_rescan(&m);
	assert_int_equal(nice_of(900, 900), 15);
	assert_int_equal(stub_thread(900, 900)->prio.io_class,
			 RULE_IO_CLASS_IDLE);
	p->threads[0].prio.nice = 0;
	manage_rescan(&m);
	assert_int_equal(nice_of(900, 900), 5);
	assert_int_equal(stub_thread(900, 900)->prio.io_class,
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
	stub.process_wide = true;
	manage_free(&m);
	rules_free(&rules);
	rulesfix_load(&rules, RULES_SYSTEM_WINDOWS, high);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
	stub_start(700, "C:/x/w.exe", 3);
	manage_exec(&m, 700);
	for (pid_t t = 700; t < 703; t++) {
		assert_int_equal(nice_of(700, t), -10);
		assert_int_equal(stub_thread(700, t)->prio.thread_level, 2);
	}
	rulesfix_load(&other_rules, RULES_SYSTEM_WINDOWS, levels);
	manage_set_rules(&m, &other_rules);
	for (pid_t t = 700; t < 703; t++) {
		assert_int_equal(nice_of(700, t), 0);
		assert_int_equal(stub_thread(700, t)->prio.thread_level, 1);
	}
}

/* A daemon fresh on the Windows rules, with no process yet. */
static void manage_fresh(void)
{
	manage_free(&m);
	stub = (struct stub){.refuse = OS_OK, .process_wide = true};
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
		stub_start(10000, "C:/x/many.exe", count);
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
	stub_start(10000, "C:/x/many.exe", N);
	manage_exec(&m, 10000);
	assert_int_equal(manage_find(&m, 10000)->thread_count, N);
	for (pid_t t = 10000; t < 10000 + N; t++) {
		assert_int_equal(nice_of(10000, t), -10);
		assert_int_equal(stub_thread(10000, t)->prio.thread_level, 2);
	}
	assert_in_range(stub.writes, N, N);
	assert_in_range(stub.reads, N, 3 * N);
	writes = stub.writes;
	manage_rescan(&m);
	assert_int_equal(m.counters.left_alone, 0);
	assert_int_equal(stub.writes, writes);
	assert_in_range(stub.reads, N, 4 * N);
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
		cmocka_unit_test_setup_teardown(test_leader_exit_event_late,
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
