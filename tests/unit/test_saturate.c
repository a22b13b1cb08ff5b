/* The saturation check's judgement and report on machines this one is
 * not: real topologies (hwloc XML) with fed rates and fake CPU times,
 * e.g. the 8 E-cores of a 6P+8E laptop busy while its P-cores idle, a
 * dual Xeon with SMT healthy, with its siblings parked, or confined to
 * one NUMA node; the arithmetic of the rates, and each finding from the
 * measurements that show it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "os.h" /* memstream */
#include "saturate.h"
#include "util.h"

#define TOPO(name) SRCDIR "/tests/data/topologies/" name
#define CASCADE	   TOPO("Intel-CascadeLake-2xXeon6230.xml")
#define SKYLAKE	   TOPO("Intel-Skylake-2xXeon6140.xml")
#define MANY	   TOPO("192em64t-12gr2n8c2t.xml")
#define RAPTOR	   TOPO("Intel-RaptorLake-Corei7-1370P.xml")

/* A sample of CPUs 0..n-1 (as cputimes_read takes one): busy ticks
 * busy[i] of 1000 each, steal[i] of them stolen; CPUs whose busy is ~0u
 * are offline (not in it). No busy: every CPU, all counters 0. */
#define OFF (~0u)
static void fake_sample(struct procstat *stat, unsigned n, const unsigned *busy,
			const unsigned *steal)
{
	*stat = (struct procstat){.cpus = xcalloc(n, sizeof(*stat->cpus))};
	for (unsigned i = 0; i < n; i++) {
		unsigned stolen = steal ? steal[i] : 0;

		if (busy && busy[i] == OFF)
			continue;
		stat->cpus[stat->count++] = (struct procstat_cpu){
			.cpu = (int)i,
			.busy = busy ? busy[i] : 0,
			.idle = busy ? 1000 - busy[i] - stolen : 0,
			.steal = stolen,
		};
	}
}

struct run {
	struct place_topology topo;
	struct saturate_machine machine;
	struct saturate_input in;
	struct procstat before, after;
	struct saturate_result r;
	char *text;
	size_t text_len;
};

/* A step of `threads` threads doing `rate` units a second for `wall`
 * seconds, each on a CPU `share` of the time. */
static struct saturate_step step(unsigned threads, double rate, double wall,
				 double share)
{
	return (struct saturate_step){
		.threads = threads,
		.units = rate * wall,
		.wall_s = wall,
		.cpu_s = share * threads * wall,
	};
}

/* The machine of `xml` (NULL: n CPUs, each a core), all n CPUs present
 * and those busy[i] != OFF online; one thread 1e6 units/s, all threads
 * half of n times that, unless the case sets them. */
static void run_setup(struct run *r, const char *xml, unsigned n,
		      const unsigned *busy, const unsigned *steal)
{
	memset(r, 0, sizeof(*r));
	if (xml)
		assert_int_equal(place_topology_load(&r->topo, xml, NULL), 0);
	fake_sample(&r->before, n, NULL, NULL);
	fake_sample(&r->after, n, busy, steal);
	r->in.cpus = xcalloc(n, sizeof(*r->in.cpus));
	r->in.cpu_count = procstat_diff(&r->before, &r->after, r->in.cpus, n);
	r->in.present = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r->in.present, 0, (int)n - 1);
	r->in.online = hwloc_bitmap_alloc();
	for (unsigned i = 0; i < n; i++) {
		if (busy[i] != OFF)
			hwloc_bitmap_set(r->in.online, i);
	}
	assert_int_equal(saturate_machine_load(&r->machine,
					       xml ? &r->topo : NULL,
					       r->in.present),
			 0);
	r->in.machine = &r->machine;
	r->in.threads = n;
	r->in.seconds = 5;
	r->in.work = "tan";
	r->in.threshold = 0.9;
	r->in.single = step(1, 1e6, 1, 1);
	r->in.run = step(n, 1e6 * n * 0.5, 5, 1);
	r->in.quota_cpus = -1;
}

static void run_judge(struct run *r)
{
	struct memstream ms;
	FILE *out;

	saturate_result_free(&r->r);
	free(r->text);
	saturate_judge(&r->in, &r->r);
	out = memstream_open(&ms);
	saturate_render_text(&r->in, &r->r, out);
	r->text = memstream_close(&ms, &r->text_len);
}

static void run_on(struct run *r, const char *xml, unsigned n,
		   const unsigned *busy, const unsigned *steal)
{
	run_setup(r, xml, n, busy, steal);
	run_judge(r);
}

static void run_free(struct run *r)
{
	saturate_result_free(&r->r);
	procstat_free(&r->before);
	procstat_free(&r->after);
	free(r->in.cpus);
	hwloc_bitmap_free(r->in.present);
	hwloc_bitmap_free(r->in.online);
	hwloc_bitmap_free(r->in.affinity);
	saturate_machine_free(&r->machine);
	if (r->topo.topology)
		place_topology_free(&r->topo);
	free(r->text);
}

static void expect_text(const struct run *r, const char *needle)
{
	if (!strstr(r->text, needle))
		fail_msg("no '%s' in:\n%s", needle, r->text);
}

static void expect_near(double got, double want, double tolerance)
{
	if (!(fabs(got - want) <= tolerance))
		fail_msg("%.6f, not %.6f (+- %g)", got, want, tolerance);
}

/* The default number of threads: the machine's CPUs, parked or not. */
struct threads_case {
	const char *name;
	unsigned present, online, max, want;
};

static const struct threads_case threads_cases[] = {
	{"threads: cpu1 of 2 parked: still 2", 2, 1, 1024, 2},
	{"threads: all online", 2, 2, 1024, 2},
	{"threads: present unknown: the online ones", 0, 4, 1024, 4},
	{"threads: 2048 CPUs: at most the workers' limit", 2048, 2048, 1024,
	 1024},
	{"threads: nothing known: one", 0, 0, 1024, 1},
};

static void test_threads_case(void **state)
{
	const struct threads_case *c = *state;

	assert_int_equal(
		saturate_default_threads(c->present, c->online, c->max),
		c->want);
}

/* What n threads can get from the cores, in one thread's rates. */
struct capacity_case {
	const char *name;
	const char *xml; /* NULL: cpus CPUs, each a core */
	unsigned cpus, threads;
	double yield, want;
};

static const struct capacity_case capacity_cases[] = {
	{"capacity: 2 cores, 2 threads", NULL, 2, 2, 0, 2},
	{"capacity: 2 cores, 1 thread", NULL, 2, 1, 0, 1},
	{"capacity: 2 cores, 3 threads: still 2", NULL, 2, 3, 0, 2},
	{"capacity: 40 cores x 2, 40 threads: one a core", CASCADE, 80, 40,
	 0.25, 40},
	{"capacity: 40 cores x 2, 60 threads", CASCADE, 80, 60, 0.25, 45},
	{"capacity: 40 cores x 2, 80 threads", CASCADE, 80, 80, 0.25, 50},
	{"capacity: 40 cores x 2, 100 threads", CASCADE, 80, 100, 0.25, 50},
	{"capacity: a negative yield counts as none", CASCADE, 80, 80, -0.1,
	 40},
	/* 6 P-cores with two threads, 8 E-cores with one. */
	{"capacity: hybrid 6x2 + 8, 20 threads", RAPTOR, 20, 20, 0.3, 15.8},
	{"capacity: hybrid, 14 threads: one a core", RAPTOR, 20, 14, 0.3, 14},
};

static void test_capacity_case(void **state)
{
	const struct capacity_case *c = *state;
	unsigned busy[80] = {0};
	struct run r;

	run_setup(&r, c->xml, c->cpus, busy, NULL);
	expect_near(saturate_capacity(&r.machine, c->threads, c->yield),
		    c->want, 1e-9);
	run_free(&r);
}

/* Why an efficiency above 100 % reads so: each case feeds the two steps
 * and the cause the report must give. */
struct above_case {
	const char *name;
	struct saturate_step single, run;
	double single_se, run_se;
	enum saturate_above want;
	const char *says;
};

static const struct above_case above_cases[] = {
	{"above 100 %: within the noise",
	 {1, 1e6, 1, 1, 0},
	 {2, 4.04e6, 2, 4, 0},
	 0.01,
	 0.01,
	 SATURATE_ABOVE_NOISE,
	 "within the measurement's noise (2.8 % at 95 %)"},
	{"above 100 %: the baseline shared its CPU",
	 {1, 0.8e6, 1, 0.8, 0},
	 {2, 4e6, 2, 4, 0},
	 0.001,
	 0.001,
	 SATURATE_ABOVE_BASELINE,
	 "the one thread alone was on a CPU 80 % of the time, the run's "
	 "threads 100 %"},
	{"above 100 %: more work per CPU second in the run",
	 {1, 1e6, 1, 1, 0},
	 {2, 4.4e6, 2, 4, 0},
	 0.001,
	 0.001,
	 SATURATE_ABOVE_CLOCK,
	 "each thread did 10.0 % more per second of CPU time"},
	{"above 100 %: no cause found",
	 {1, 1e6, 1, 1, 0},
	 {2, 4.4e6, 2, 4.4, 0},
	 0.001,
	 0.001,
	 SATURATE_ABOVE_UNKNOWN,
	 "more than the noise (0.3 % at 95 %), with no cause found"},
};

static void test_above_case(void **state)
{
	const struct above_case *c = *state;
	unsigned busy[2] = {1000, 1000};
	struct run r;

	run_setup(&r, NULL, 2, busy, NULL);
	r.in.single = c->single;
	r.in.run = c->run;
	r.in.single.rel_se = c->single_se;
	r.in.run.rel_se = c->run_se;
	run_judge(&r);
	assert_true(r.r.efficiency > 1);
	assert_int_equal(r.r.above, c->want);
	expect_text(&r, "above 100 %:");
	expect_text(&r, c->says);
	run_free(&r);
}

/* One clock: both rates per second of wall-clock time, over their
 * windows; CPU time is evidence beside them, not the baseline's clock. */
static void test_one_clock(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	/* The one thread had its CPU 80 % of its second (0.8e6 units); the
	 * two threads did 3.2e6 units in 2 s, each on a CPU all the time. */
	r.in.single = step(1, 0.8e6, 1, 0.8);
	r.in.run = step(2, 1.6e6, 2, 1);
	run_judge(&r);
	expect_near(saturate_step_rate(&r.in.single), 0.8e6, 1e-6);
	expect_near(saturate_step_rate_cpu(&r.in.single), 1e6, 1e-6);
	expect_near(saturate_step_share(&r.in.single), 0.8, 1e-12);
	expect_near(saturate_step_rate_cpu(&r.in.run), 0.8e6, 1e-6);
	/* 1.6e6 / (0.8e6 x 2), not 1.6e6 / (1e6 x 2). */
	expect_near(r.r.efficiency, 1.0, 1e-12);
	assert_true(saturate_found(&r.r, SATURATE_KIND_BASELINE));
	expect_text(&r, "one thread alone:      0.800 M units/s of "
			"wall-clock time over 1.0 s; 1.000 M per CPU second, "
			"on a CPU 80 % of the time");
	expect_text(&r, "all 2 threads:         1.600 M units/s of "
			"wall-clock time over 2.0 s; 0.800 M per CPU second, "
			"on a CPU 100 % of the time");
	expect_text(&r, "the one thread alone was on a CPU 80 % of its 1.0 s");
	expect_text(&r, "the efficiency up to 25 % high");
	run_free(&r);
}

/* The rates of 100 ms intervals: their standard error, relative. */
static void test_rel_se(void **state)
{
	const double flat[] = {5, 5, 5, 5};
	const double wobbly[] = {0.9, 1.1, 0.9, 1.1};

	(void)state;
	expect_near(saturate_rel_se(flat, 4), 0, 1e-15);
	/* sd = sqrt(4 * 0.01 / 3) = 0.115470, over mean 1 and sqrt(4). */
	expect_near(saturate_rel_se(wobbly, 4), 0.0577350, 1e-7);
	expect_near(saturate_rel_se(wobbly, 1), 0, 0);
}

static void test_noise_bound(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	r.in.single.rel_se = 0.03;
	r.in.run.rel_se = 0.04;
	run_judge(&r);
	/* 1.96 x sqrt(0.03^2 + 0.04^2) */
	expect_near(r.r.noise, 0.098, 1e-12);
	expect_text(&r, "efficiency:             50.0 % +- 9.8 % (BELOW 90 %)");
	run_free(&r);
}

/* The machine from hwloc: present CPUs, their cores and nodes. */
static void test_machine(void **state)
{
	unsigned busy[384] = {0};
	struct run r;

	(void)state;
	run_setup(&r, CASCADE, 80, busy, NULL);
	assert_int_equal(r.machine.cpu_count, 80);
	assert_int_equal(r.machine.core_count, 40);
	assert_int_equal(r.machine.cpus[0].core, r.machine.cpus[40].core);
	assert_int_not_equal(r.machine.cpus[0].core, r.machine.cpus[1].core);
	assert_true(saturate_machine_smt(&r.machine));
	run_free(&r);
	run_setup(&r, MANY, 384, busy, NULL);
	assert_int_equal(r.machine.core_count, 192);
	assert_int_equal(r.machine.numa_count, 24);
	assert_int_equal(r.machine.cpus[0].core, r.machine.cpus[192].core);
	assert_int_equal(r.machine.cpus[199].numa, 0);
	assert_int_equal(r.machine.cpus[8].numa, 1);
	run_free(&r);
	run_setup(&r, NULL, 2, busy, NULL);
	assert_int_equal(r.machine.core_count, 2);
	assert_false(saturate_machine_smt(&r.machine));
	run_free(&r);
}

/* Where the SMT step measures: a core with all its threads usable. */
static void test_smt_core(void **state)
{
	unsigned busy[80] = {0};
	hwloc_bitmap_t usable = hwloc_bitmap_alloc();
	int cpus[8];
	unsigned n;
	struct run r;

	(void)state;
	run_setup(&r, CASCADE, 80, busy, NULL);
	hwloc_bitmap_set_range(usable, 0, 79);
	assert_true(saturate_machine_smt_core(&r.machine, usable, cpus, &n, 8));
	assert_int_equal(n, 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 40);
	/* cpu40 parked: the next core whose two threads both run. */
	hwloc_bitmap_clr(usable, 40);
	assert_true(saturate_machine_smt_core(&r.machine, usable, cpus, &n, 8));
	assert_int_not_equal(cpus[0], 0);
	/* One thread a core usable: nowhere to measure. */
	hwloc_bitmap_clr_range(usable, 40, 79);
	assert_false(
		saturate_machine_smt_core(&r.machine, usable, cpus, &n, 8));
	hwloc_bitmap_free(usable);
	run_free(&r);
}

/* The measured SMT step of a core of two threads: one 1e6 units/s,
 * both together 1.25e6. */
static void smt_measured(struct run *r)
{
	r->in.smt.source = SATURATE_YIELD_MEASURED;
	r->in.smt.one = step(1, 1e6, 1, 1);
	r->in.smt.all = step(2, 1.25e6, 1, 1);
	snprintf(r->in.smt.core_cpus, sizeof(r->in.smt.core_cpus), "0,40");
}

/* A healthy dual Xeon with SMT: 80 threads on 40 cores do 40 x 1.25 one
 * thread's rate. Against 80 times one thread's, it would read 62.5 %. */
static void test_smt_healthy(void **state)
{
	unsigned busy[80];
	struct run r;

	(void)state;
	for (unsigned i = 0; i < 80; i++)
		busy[i] = 1000;
	run_setup(&r, CASCADE, 80, busy, NULL);
	smt_measured(&r);
	r.in.run = step(80, 50e6, 5, 1);
	run_judge(&r);
	expect_near(saturate_smt_yield(&r.in.smt), 0.25, 1e-12);
	expect_near(r.r.capacity, 50, 1e-9);
	expect_near(r.r.efficiency, 1.0, 1e-9);
	assert_true(r.r.ok);
	assert_int_equal(r.r.findings.count, 0);
	assert_int_equal(r.r.core_count, 40);
	expect_near(r.r.cores[0].capacity, 1.25, 1e-12);
	expect_near(r.r.cores[0].used, 1.25, 1e-12);
	expect_text(&r, "SMT yield:             +25.0 %, measured on the core "
			"of CPUs 0,40: one thread 1.000, 2 threads 1.250 M "
			"units/s");
	expect_text(&r, "capacity:              50.00 one-thread rates");
	expect_text(&r, "  core 0    CPUs 0,40       2/2 online  busy 2.00  "
			"capacity 1.25  used 1.25  100 %");
	expect_text(&r, "findings: none");
	run_free(&r);
}

/* Every other core of the 384-CPU machine parked, both its threads: the
 * offline CPUs are the finding, not SMT, nor NUMA. */
static void test_smt_half_cores_parked(void **state)
{
	unsigned busy[384];
	struct run r;

	(void)state;
	run_setup(&r, MANY, 384, (unsigned[384]){0}, NULL);
	for (unsigned i = 0; i < 384; i++)
		busy[i] = r.machine.cpus[i].core % 2 ? OFF : 1000;
	run_free(&r);
	run_setup(&r, MANY, 384, busy, NULL);
	smt_measured(&r);
	r.in.run = step(384, 96 * 1.25e6, 5, 0.5);
	run_judge(&r);
	expect_near(r.r.capacity, 240, 1e-9);
	expect_near(r.r.efficiency, 0.5, 1e-9);
	assert_false(r.r.ok);
	assert_true(saturate_found(&r.r, SATURATE_KIND_OFFLINE));
	assert_false(saturate_found(&r.r, SATURATE_KIND_SMT));
	assert_false(saturate_found(&r.r, SATURATE_KIND_NUMA));
	expect_text(&r, "192 of 384 CPUs can run anything");
	expect_text(&r, "  core 1    CPUs 1,193      0/2 online  busy 0.00  "
			"capacity 1.25  used 0.00    0 %");
	run_free(&r);
}

/* SMT turned off: the second thread of every core offline, so that the
 * yield cannot be measured and is assumed; 80 threads do 40 cores' work. */
static void test_smt_siblings_offline(void **state)
{
	unsigned busy[80];
	struct run r;

	(void)state;
	for (unsigned i = 0; i < 80; i++)
		busy[i] = i < 40 ? 1000 : OFF;
	run_setup(&r, CASCADE, 80, busy, NULL);
	r.in.smt.source = SATURATE_YIELD_ASSUMED;
	r.in.smt.yield = SATURATE_SMT_YIELD_ASSUMED;
	r.in.run = step(80, 40e6, 5, 0.5);
	run_judge(&r);
	expect_near(r.r.efficiency, 0.8, 1e-9);
	assert_false(r.r.ok);
	assert_true(saturate_found(&r.r, SATURATE_KIND_OFFLINE));
	assert_true(saturate_found(&r.r, SATURATE_KIND_SMT));
	expect_text(&r, "smt-siblings-idle: on 40 of 40 busy cores only one "
			"hardware thread worked: their siblings, CPUs 40-79, "
			"were idle (40-79 offline); with them the cores do "
			"+25 % (SMT yield, assumed)");
	expect_text(&r, "echo on > /sys/devices/system/cpu/smt/control");
	expect_text(&r, "SMT yield:             +25.0 %, assumed");
	run_free(&r);
}

/* The threads confined to one thread a core by their affinity: the
 * placement is the fix, with the affinity found too. */
static void test_smt_one_sibling_affinity(void **state)
{
	unsigned busy[72];
	struct run r;

	(void)state;
	run_setup(&r, SKYLAKE, 72, (unsigned[72]){0}, NULL);
	for (unsigned i = 0; i < 72; i++)
		busy[i] = r.machine.cpus[i].cpu == r.machine.cpus[i].cpu % 36 &&
					  i < 36
				  ? 1000
				  : 0;
	run_free(&r);
	run_setup(&r, SKYLAKE, 72, busy, NULL);
	r.in.affinity = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r.in.affinity, 0, 35);
	r.in.smt.source = SATURATE_YIELD_ASSUMED;
	r.in.smt.yield = SATURATE_SMT_YIELD_ASSUMED;
	r.in.run = step(72, 36e6, 5, 0.5);
	run_judge(&r);
	expect_near(r.r.efficiency, 0.8, 1e-9);
	assert_true(saturate_found(&r.r, SATURATE_KIND_AFFINITY));
	assert_true(saturate_found(&r.r, SATURATE_KIND_SMT));
	assert_false(saturate_found(&r.r, SATURATE_KIND_OFFLINE));
	expect_text(&r, "on 36 of 36 busy cores only one hardware thread "
			"worked: their siblings, CPUs 36-71, were idle (none "
			"offline)");
	expect_text(&r, "placement = { cores = \"all\"; }");
	run_free(&r);
}

/* Threads bound to one NUMA node of 24. */
static void test_numa_confined(void **state)
{
	unsigned busy[384] = {0};
	struct run r;

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		busy[i] = busy[192 + i] = 1000;
	run_setup(&r, MANY, 384, busy, NULL);
	smt_measured(&r);
	r.in.affinity = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r.in.affinity, 0, 7);
	hwloc_bitmap_set_range(r.in.affinity, 192, 199);
	r.in.run = step(384, 8 * 1.25e6, 5, 16.0 / 384);
	run_judge(&r);
	expect_near(r.r.efficiency, 10.0 / 240, 1e-9);
	assert_true(saturate_found(&r.r, SATURATE_KIND_NUMA));
	assert_true(saturate_found(&r.r, SATURATE_KIND_AFFINITY));
	assert_false(saturate_found(&r.r, SATURATE_KIND_SMT));
	expect_text(&r, "numa-nodes-idle: the threads ran on NUMA node 0 only: "
			"16 CPUs 100 % busy, while the 368 CPUs of the 23 "
			"other nodes were 0 % busy");
	expect_text(&r, "spread = \"numa\"");
	run_free(&r);
}

/* The Windows 11 24H2 laptop: E-cores busy, P-cores idle. */
static void test_hybrid_kind_imbalance(void **state)
{
	unsigned busy[20] = {0};
	struct run r;

	(void)state;
	for (unsigned i = 12; i < 20; i++)
		busy[i] = 990;
	busy[0] = 50;
	run_on(&r, RAPTOR, 20, busy, NULL);
	assert_true(saturate_found(&r.r, SATURATE_KIND_CORE_KINDS));
	expect_text(&r, "the 12 performance CPUs were 0 % busy while the 8 "
			"efficiency CPUs were 99 % busy");
	expect_text(&r, "cores = \"performance\"");
	/* Grouped: the P-cores' heading, then the E-cores'. */
	expect_text(&r, "NUMA node 0, performance:\n    cpu0 ");
	expect_text(&r, "NUMA node 0, efficiency:\n    cpu12");
	expect_text(&r, "cpu19   [#######################"
			"#################]  99 %");
	run_free(&r);
}

static void test_hybrid_balanced(void **state)
{
	unsigned busy[20];
	struct run r;

	(void)state;
	for (unsigned i = 0; i < 20; i++)
		busy[i] = 1000;
	run_on(&r, RAPTOR, 20, busy, NULL);
	assert_false(saturate_found(&r.r, SATURATE_KIND_CORE_KINDS));
	run_free(&r);
}

/* 384 CPUs in 24 NUMA nodes: a heading per node, every CPU drawn. */
static void test_many_nodes(void **state)
{
	unsigned busy[384];
	struct run r;
	size_t headings = 0, bars = 0;

	(void)state;
	for (unsigned i = 0; i < 384; i++)
		busy[i] = i < 192 ? 1000 : 0;
	run_on(&r, MANY, 384, busy, NULL);
	for (char *p = r.text; (p = strstr(p, "NUMA node ")); p++)
		headings++;
	for (char *p = r.text; (p = strstr(p, "    cpu")); p++)
		bars++;
	assert_int_equal(headings, 24);
	assert_int_equal(bars, 384);
	expect_text(&r, "NUMA node 23:\n");
	run_free(&r);
}

static void test_steal(void **state)
{
	unsigned busy[2] = {700, 700}, steal[2] = {300, 250};
	struct run r;

	(void)state;
	run_on(&r, NULL, 2, busy, steal);
	assert_true(saturate_found(&r.r, SATURATE_KIND_STEAL));
	expect_text(&r, "the hypervisor took 28 %");
	expect_text(&r, "steal 30 %");
	run_free(&r);
}

/* Limits: an offline CPU, a narrow affinity, a cpuset, a quota. */
static void test_limits(void **state)
{
	unsigned busy[80] = {0};
	struct run r;

	(void)state;
	busy[79] = OFF;
	run_setup(&r, CASCADE, 80, busy, NULL);
	r.in.affinity = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r.in.affinity, 0, 63);
	r.in.cpuset = hwloc_bitmap_dup(r.in.online);
	hwloc_bitmap_clr_range(r.in.cpuset, 40, 78);
	snprintf(r.in.cgroup, sizeof(r.in.cgroup), "/batch");
	snprintf(r.in.cpuset_cgroup, sizeof(r.in.cpuset_cgroup), "/pinned");
	r.in.quota_cpus = 8;
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_OFFLINE));
	assert_true(saturate_found(&r.r, SATURATE_KIND_AFFINITY));
	assert_true(saturate_found(&r.r, SATURATE_KIND_CPUSET));
	assert_true(saturate_found(&r.r, SATURATE_KIND_QUOTA));
	assert_non_null(strstr(r.r.findings.list[0].evidence,
			       "CPUs 79 are offline (parked): 79 of 80"));
	assert_non_null(strstr(r.r.findings.list[1].evidence,
			       "may run only on CPUs 0-63 (64 of 79 online)"));
	assert_non_null(strstr(r.r.findings.list[2].evidence,
			       "the cpuset of cgroup /pinned allows only CPUs "
			       "0-39"));
	assert_non_null(strstr(r.r.findings.list[3].evidence,
			       "cgroup /batch limits CPU time to 8.00 CPUs for "
			       "80 threads"));
	hwloc_bitmap_free(r.in.cpuset);
	run_free(&r);
}

static void test_competition_and_priority(void **state)
{
	struct saturate_competitor c[2] = {
		{.pid = 10, .name = "make", .cpus = 0.9, .nice = -5},
		{.pid = 11, .name = "cc1", .cpus = 0.6, .nice = 0},
	};
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	r.in.competitors = c;
	r.in.competitor_count = 2;
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_CONTENTION));
	assert_true(saturate_found(&r.r, SATURATE_KIND_PRIORITY));
	assert_non_null(strstr(r.r.findings.list[0].evidence,
			       "other processes took 1.50 CPUs during the run: "
			       "pid 10 (make, nice -5) 90 %"));
	run_free(&r);
}

/* Processes that came and went in the run: no pid to name, but the CPUs
 * were busier than the workers. */
static void test_short_lived_competition(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	r.in.run = step(2, 1.3e6, 5, 0.65);
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_CONTENTION));
	assert_non_null(
		strstr(r.r.findings.list[0].evidence,
		       "other processes took 0.70 CPUs during the run: "
		       "short-lived ones 0.70 CPUs (the CPUs' busy time "
		       "less the workers')"));
	run_free(&r);
}

static void test_frequency_and_unexplained(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_on(&r, NULL, 2, busy, NULL);
	assert_true(saturate_found(&r.r, SATURATE_KIND_UNEXPLAINED));
	snprintf(r.in.governor, sizeof(r.in.governor), "powersave");
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_FREQUENCY));
	assert_false(saturate_found(&r.r, SATURATE_KIND_UNEXPLAINED));
	run_free(&r);
}

/* More threads than the machine has CPUs: said, and judged against what
 * its CPUs can do, not against one CPU per thread. */
static void test_oversubscribed(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	r.in.threads = 3;
	r.in.run = step(3, 2e6, 5, 2.0 / 3);
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_OVERSUBSCRIBED));
	assert_false(saturate_found(&r.r, SATURATE_KIND_UNEXPLAINED));
	expect_near(r.r.efficiency, 1, 1e-12);
	assert_non_null(strstr(r.r.findings.list[0].evidence,
			       "3 threads for the machine's 2 CPUs"));
	run_free(&r);
}

/* cpu1 of 2 parked, one thread a CPU the machine has: half. */
static void test_parked_half(void **state)
{
	unsigned busy[2] = {1000, OFF};
	struct run r;

	(void)state;
	run_setup(&r, NULL, 2, busy, NULL);
	r.in.run = step(2, 1e6, 5, 0.5);
	run_judge(&r);
	expect_near(r.r.efficiency, 0.5, 1e-12);
	assert_false(r.r.ok);
	assert_true(saturate_found(&r.r, SATURATE_KIND_OFFLINE));
	assert_false(saturate_found(&r.r, SATURATE_KIND_OVERSUBSCRIBED));
	expect_text(&r, "  core 1    CPUs 1          0/1 online  busy 0.00  "
			"capacity 1.00  used 0.00    0 %");
	run_free(&r);
}

static void test_json(void **state)
{
	struct memstream ms;
	unsigned busy[20] = {0};
	struct run r;
	char *json = NULL;
	size_t len;
	FILE *out;

	(void)state;
	for (unsigned i = 12; i < 20; i++)
		busy[i] = 1000;
	run_setup(&r, RAPTOR, 20, busy, NULL);
	r.in.smt.source = SATURATE_YIELD_GIVEN;
	r.in.smt.yield = 0.3;
	r.in.run = step(20, 7.9e6, 5, 1);
	run_judge(&r);
	out = memstream_open(&ms);
	saturate_render_json(&r.in, &r.r, out);
	json = memstream_close(&ms, &len);
	if (!strstr(json, "\"efficiency\":0.5000") ||
	    !strstr(json, "\"capacity\":15.8000") ||
	    !strstr(json, "\"ok\":false") ||
	    !strstr(json, "\"smt\":{\"source\":\"given\",\"yield\":0.3000}") ||
	    !strstr(json, "\"single\":{\"threads\":1,\"units\":1000000,"
			  "\"wall_s\":1.0000,\"cpu_s\":1.0000,\"rate\":"
			  "1000000.0,\"rate_per_cpu_s\":1000000.0,"
			  "\"cpu_share\":1.0000,\"rel_se\":0.00000}") ||
	    !strstr(json, "{\"cpu\":12,\"core\":6,\"numa\":0,\"kind\":"
			  "\"efficiency\",\"busy\":1.0000") ||
	    !strstr(json, "{\"core\":0,\"cpus\":\"0-1\",\"siblings\":2,"
			  "\"online\":2,\"busy\":0.0000,\"capacity\":1.3000,"
			  "\"used\":0.0000}") ||
	    !strstr(json, "\"above_100\":null") ||
	    !strstr(json, "\"kind\":\"core-kinds\""))
		fail_msg("%s", json);
	free(json);
	run_free(&r);
}

/* The Prometheus series: every finding kind, 0 or 1; a series per core. */
static void test_metrics(void **state)
{
	struct memstream ms;
	unsigned busy[80];
	struct run r;
	char *text = NULL;
	size_t len;
	FILE *out;

	(void)state;
	for (unsigned i = 0; i < 80; i++)
		busy[i] = i < 40 ? 1000 : OFF;
	run_setup(&r, CASCADE, 80, busy, NULL);
	r.in.smt.source = SATURATE_YIELD_ASSUMED;
	r.in.smt.yield = 0.25;
	r.in.run = step(80, 40e6, 5, 0.5);
	run_judge(&r);
	out = memstream_open(&ms);
	saturate_render_metrics(&r.in, &r.r, 1796003359, out);
	text = memstream_close(&ms, &len);
	if (!strstr(text, "\ncpupolicy_saturate_efficiency 0.8000\n") ||
	    !strstr(text, "\ncpupolicy_saturate_ok 0\n") ||
	    !strstr(text, "\ncpupolicy_saturate_capacity 50.0000\n") ||
	    !strstr(text, "\ncpupolicy_saturate_smt_yield{source=\"assumed\"} "
			  "0.2500\n") ||
	    !strstr(text, "\ncpupolicy_saturate_core_use{core=\"0\",cpus=\"0,"
			  "40\"} 0.8000\n") ||
	    !strstr(text, "\ncpupolicy_saturate_finding{kind=\"offline-cpus\"}"
			  " 1\n") ||
	    !strstr(text, "\ncpupolicy_saturate_finding{kind=\"smt-siblings-"
			  "idle\"} 1\n") ||
	    !strstr(text, "\ncpupolicy_saturate_finding{kind=\"steal\"} 0\n") ||
	    !strstr(text, "\ncpupolicy_saturate_timestamp_seconds "
			  "1796003359\n") ||
	    !strstr(text, "# TYPE cpupolicy_saturate_finding gauge\n"))
		fail_msg("%s", text);
	free(text);
	out = memstream_open(&ms);
	saturate_render_attempt(true, 0.374, 0.1, 1796003360, out);
	text = memstream_close(&ms, &len);
	if (!strstr(text, "\ncpupolicy_saturate_skipped 1\n") ||
	    !strstr(text, "\ncpupolicy_saturate_attempt_busy 0.3740\n"))
		fail_msg("%s", text);
	free(text);
	run_free(&r);
}

/* Counters that go backwards (a CPU offlined and back) count nothing. */
static void test_procstat_diff(void **state)
{
	struct procstat_cpu before[] = {{0, 10, 90, 0}, {1, 50, 50, 0}};
	struct procstat_cpu after[] = {
		{0, 60, 90, 0}, {1, 10, 20, 0}, {2, 5, 2, 1}};
	struct procstat a = {before, 2}, b = {after, 3};
	struct procstat_share s[4];

	(void)state;
	assert_int_equal(procstat_diff(&a, &b, s, 4), 2);
	assert_true(s[0].busy > 0.99);
	assert_int_equal(s[1].cpu, 1);
	assert_true(s[1].busy == 0 && s[1].idle == 1);
	/* --if-idle: (1 + 0) / 2 */
	expect_near(procstat_mean_busy(s, 2), 0.5, 1e-12);
}

/* The run's JSON report has `needle`. */
static void expect_json(const struct run *r, const char *needle)
{
	struct memstream ms;
	FILE *out = memstream_open(&ms);
	char *json;

	saturate_render_json(&r->in, &r->r, out);
	json = memstream_close(&ms, NULL);
	if (!strstr(json, needle))
		fail_msg("no '%s' in:\n%s", needle, json);
	free(json);
}

/* Windows: 2 processor groups of 44 (hwloc numbers group 1's processors
 * 64..107), each CPU a core; the first busy_cpus of group `busy_group`
 * busy, every other CPU idle. */
static void run_groups(struct run *r, int busy_group, unsigned busy_cpus)
{
	memset(r, 0, sizeof(*r));
	r->in.present = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r->in.present, 0, 43);
	hwloc_bitmap_set_range(r->in.present, 64, 107);
	r->in.online = hwloc_bitmap_dup(r->in.present);
	r->in.cpus = xcalloc(88, sizeof(*r->in.cpus));
	for (int g = 0; g < 2; g++) {
		for (unsigned i = 0; i < 44; i++) {
			bool busy = g == busy_group && i < busy_cpus;

			r->in.cpus[r->in.cpu_count++] = (struct procstat_share){
				.cpu = g * 64 + (int)i,
				.busy = busy ? 0.99 : 0.01,
				.idle = busy ? 0.01 : 0.99,
			};
		}
	}
	assert_int_equal(
		saturate_machine_load(&r->machine, NULL, r->in.present), 0);
	saturate_machine_groups(&r->machine, 64);
	r->in.machine = &r->machine;
	r->in.system = SATURATE_SYSTEM_WINDOWS;
	r->in.threads = 88;
	r->in.seconds = 5;
	r->in.work = "tan";
	r->in.threshold = 0.9;
	r->in.single = step(1, 1e6, 1, 1);
	r->in.run = step(88, 1e6 * busy_cpus, 5, busy_cpus / 88.0);
	r->in.quota_cpus = -1;
	run_judge(r);
}

/* The thread-pool case: 88 threads that all stayed in group 0. */
static void test_windows_one_group(void **state)
{
	struct run r;

	(void)state;
	run_groups(&r, 0, 44);
	assert_int_equal(r.machine.group_count, 2);
	expect_near(r.r.efficiency, 0.5, 1e-9);
	assert_false(r.r.ok);
	assert_true(saturate_found(&r.r, SATURATE_KIND_GROUPS));
	expect_text(&r, "the work stayed in processor group 0: its 44 CPUs "
			"were 99 % busy while the other group's 44 CPUs "
			"were 1 % busy");
	expect_text(&r, "placement = { spread = \"group\"; }");
	/* Bars by processor group. */
	expect_text(&r, "  processor group 0:\n  NUMA node 0:\n    cpu0 ");
	expect_text(&r, "  processor group 1:\n  NUMA node 0:\n    cpu64 ");
	assert_false(saturate_found(&r.r, SATURATE_KIND_CPUSET));
	expect_json(&r, "{\"cpu\":64,\"core\":44,");
	expect_json(&r, "\"group\":1,\"parked\":false}");
	expect_json(&r, "\"processor-group\"");
	run_free(&r);
}

/* Both groups at work: no group finding. */
static void test_windows_groups_spread(void **state)
{
	struct run r;

	(void)state;
	run_groups(&r, 0, 44);
	for (size_t i = 44; i < 88; i++)
		r.in.cpus[i].busy = 0.99;
	r.in.run = step(88, 88e6, 5, 0.99);
	run_judge(&r);
	assert_true(r.r.ok);
	assert_false(saturate_found(&r.r, SATURATE_KIND_GROUPS));
	run_free(&r);
}

/* Half the cores busy in group 1 only: under 75 %, not the pool case. */
static void test_windows_group_half(void **state)
{
	struct run r;

	(void)state;
	run_groups(&r, 1, 22);
	assert_false(saturate_found(&r.r, SATURATE_KIND_GROUPS));
	run_free(&r);
}

/* An affinity inside one group of two: the fix spreads over groups. */
static void test_windows_group_affinity(void **state)
{
	struct run r;

	(void)state;
	run_groups(&r, 0, 44);
	r.in.affinity = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r.in.affinity, 0, 43);
	r.in.cpuset = hwloc_bitmap_dup(r.in.affinity);
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_AFFINITY));
	expect_text(&r, "the threads may run only on CPUs 0-43 (44 of 88");
	expect_text(&r, "or spread = \"group\";");
	/* The process's affinity is no cpuset on Windows. */
	assert_false(saturate_found(&r.r, SATURATE_KIND_CPUSET));
	hwloc_bitmap_free(r.in.cpuset);
	run_free(&r);
}

/* Hybrid 6P+8E on Windows: the E-cores busy, the P-cores idle; the fix
 * is a raised class and EcoQoS off. */
static void test_windows_hybrid(void **state)
{
	unsigned busy[20] = {0};
	struct run r;

	(void)state;
	for (unsigned i = 12; i < 20; i++)
		busy[i] = 990;
	run_setup(&r, RAPTOR, 20, busy, NULL);
	r.in.system = SATURATE_SYSTEM_WINDOWS;
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_CORE_KINDS));
	expect_text(&r, "the 12 performance CPUs were 0 % busy while the 8 "
			"efficiency CPUs were 99 % busy");
	expect_text(&r, "efficiency_mode = \"off\"");
	expect_text(&r, "class = \"above-normal\"");
	assert_false(saturate_found(&r.r, SATURATE_KIND_PARKED));
	assert_false(saturate_found(&r.r, SATURATE_KIND_ECOQOS));
	/* EcoQoS in force: said, with its fix. */
	r.in.ecoqos = true;
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_ECOQOS));
	expect_text(&r, "the workers ran with EcoQoS on");
	expect_text(&r, "priority = { efficiency_mode = \"off\"; }");
	run_free(&r);
}

/* Hybrid 6P+8E with its P-cores parked (the Parked flag) and CPMINCORES
 * at 10 %: the fix is parking = "off". */
static void test_windows_parked(void **state)
{
	unsigned busy[20] = {0};
	hwloc_bitmap_t parked = hwloc_bitmap_alloc();
	struct run r;

	(void)state;
	for (unsigned i = 12; i < 20; i++)
		busy[i] = 990;
	run_setup(&r, RAPTOR, 20, busy, NULL);
	r.in.system = SATURATE_SYSTEM_WINDOWS;
	r.in.min_cores_known = true;
	r.in.min_cores = 10;
	hwloc_bitmap_set_range(parked, 2, 11);
	saturate_machine_park(&r.machine, parked);
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_PARKED));
	expect_text(&r, "CPUs 2-11 were parked (10 of 20; the Parked flag of "
			"GetSystemCpuSetInformation); the power scheme's "
			"CPMINCORES is 10 %, so up to 90 % of the cores may "
			"be parked");
	expect_text(&r, "power = { parking = \"off\"; }");
	/* None parked now, but CPMINCORES allows it and CPUs idled. */
	hwloc_bitmap_zero(parked);
	saturate_machine_park(&r.machine, parked);
	run_judge(&r);
	expect_text(&r, "12 of 20 CPUs were less than half busy; the power "
			"scheme's CPMINCORES is 10 %");
	/* At 100 % and none parked: nothing to say of parking. */
	r.in.min_cores = 100;
	run_judge(&r);
	assert_false(saturate_found(&r.r, SATURATE_KIND_PARKED));
	hwloc_bitmap_free(parked);
	run_free(&r);
}

/* A job object's CPU rate: what limits, in CPUs, and the finding named
 * for Windows with its fix. */
static void test_windows_job_rate(void **state)
{
	const unsigned on = SATURATE_JOB_RATE_ENABLE;
	unsigned busy[8] = {500, 500, 500, 500, 500, 500, 500, 500};
	struct run r;

	(void)state;
	assert_true(saturate_job_quota(0, 2500, 0, 8) < 0);
	assert_true(saturate_job_quota(on, 2500, 0, 8) < 0); /* soft */
	assert_true(saturate_job_quota(on | SATURATE_JOB_RATE_WEIGHT, 5, 0, 8) <
		    0);
	assert_float_equal(
		saturate_job_quota(on | SATURATE_JOB_RATE_HARD_CAP, 2500, 0, 8),
		2.0, 1e-9);
	assert_float_equal(saturate_job_quota(on | SATURATE_JOB_RATE_MIN_MAX,
					      100, 5000, 8),
			   4.0, 1e-9);
	assert_true(saturate_job_quota(on | SATURATE_JOB_RATE_HARD_CAP, 10000,
				       0, 8) < 0);
	run_setup(&r, NULL, 8, busy, NULL);
	r.in.system = SATURATE_SYSTEM_WINDOWS;
	r.in.quota_cpus = 4;
	snprintf(r.in.cgroup, sizeof(r.in.cgroup), "the job object");
	run_judge(&r);
	assert_true(saturate_found(&r.r, SATURATE_KIND_QUOTA));
	expect_text(&r, "the job object limits CPU time to 4.00 CPUs for 8 "
			"threads");
	expect_text(&r, "JobObjectCpuRateControlInformation");
	run_free(&r);
}

/* The four Windows cases as a person sees them, on synthetic machines
 * and times: the whole text report, against the stored one
 * (tests/data/saturate/; GOLDEN_UPDATE=1 in the environment rewrites
 * them). docs/windows.md points readers to them. */
static void golden_compare(const struct run *r, const char *name)
{
	char path[512];
	char *want;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/saturate/%s.txt", SRCDIR,
		 name);
	if (getenv("GOLDEN_UPDATE")) {
		f = fopen(path, "wb");
		assert_non_null(f);
		fwrite(r->text, 1, r->text_len, f);
		fclose(f);
		return;
	}
	f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: cannot be read", path);
	want = xcalloc(1, 1 << 16);
	len = fread(want, 1, (1 << 16) - 1, f);
	fclose(f);
	if (len != r->text_len || memcmp(want, r->text, len) != 0)
		fail_msg("%s differs; the report now:\n%s", path, r->text);
	free(want);
}

static void golden_hybrid(struct run *r)
{
	unsigned busy[20] = {0};

	for (unsigned i = 12; i < 20; i++)
		busy[i] = 990;
	run_setup(r, RAPTOR, 20, busy, NULL);
	r->in.system = SATURATE_SYSTEM_WINDOWS;
	r->in.smt.source = SATURATE_YIELD_ASSUMED;
	r->in.smt.yield = SATURATE_SMT_YIELD_ASSUMED;
	r->in.run = step(20, 4.4e6, 5, 0.4);
	r->in.ecoqos = true;
}

static void golden_parked(struct run *r)
{
	unsigned busy[8] = {990, 990};
	hwloc_bitmap_t parked = hwloc_bitmap_alloc();

	run_setup(r, NULL, 8, busy, NULL);
	r->in.system = SATURATE_SYSTEM_WINDOWS;
	r->in.run = step(8, 2e6, 5, 0.25);
	r->in.min_cores_known = true;
	r->in.min_cores = 10;
	hwloc_bitmap_set_range(parked, 2, 7);
	saturate_machine_park(&r->machine, parked);
	hwloc_bitmap_free(parked);
}

static void golden_inference(struct run *r)
{
	static struct saturate_competitor c[] = {
		{.pid = 5120, .name = "cl.exe", .cpus = 2.9, .nice = 0},
		{.pid = 7344, .name = "link.exe", .cpus = 0.8, .nice = 0},
		{.pid = 2212, .name = "backup.exe", .cpus = 0.3, .nice = -5},
	};
	unsigned busy[8] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};

	run_setup(r, NULL, 8, busy, NULL);
	r->in.system = SATURATE_SYSTEM_WINDOWS;
	r->in.run = step(8, 4.1e6, 5, 0.51);
	r->in.competitors = c;
	r->in.competitor_count = ARRAY_SIZE(c);
}

static void golden_groups(struct run *r)
{
	run_groups(r, 0, 44);
}

static void test_windows_golden(void **state)
{
	static const struct {
		const char *name;
		void (*setup)(struct run *r);
		enum saturate_kind kind;
	} cases[] = {
		{"windows-hybrid-24h2", golden_hybrid,
		 SATURATE_KIND_CORE_KINDS},
		{"windows-parking", golden_parked, SATURATE_KIND_PARKED},
		{"windows-inference", golden_inference,
		 SATURATE_KIND_CONTENTION},
		{"windows-processor-groups", golden_groups,
		 SATURATE_KIND_GROUPS},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct run r;

		cases[i].setup(&r);
		run_judge(&r);
		assert_true(saturate_found(&r.r, cases[i].kind));
		golden_compare(&r, cases[i].name);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_clock),
		cmocka_unit_test(test_rel_se),
		cmocka_unit_test(test_noise_bound),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_smt_core),
		cmocka_unit_test(test_smt_healthy),
		cmocka_unit_test(test_smt_half_cores_parked),
		cmocka_unit_test(test_smt_siblings_offline),
		cmocka_unit_test(test_smt_one_sibling_affinity),
		cmocka_unit_test(test_numa_confined),
		cmocka_unit_test(test_parked_half),
		cmocka_unit_test(test_hybrid_kind_imbalance),
		cmocka_unit_test(test_hybrid_balanced),
		cmocka_unit_test(test_many_nodes),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_competition_and_priority),
		cmocka_unit_test(test_short_lived_competition),
		cmocka_unit_test(test_frequency_and_unexplained),
		cmocka_unit_test(test_oversubscribed),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_procstat_diff),
		cmocka_unit_test(test_windows_one_group),
		cmocka_unit_test(test_windows_groups_spread),
		cmocka_unit_test(test_windows_group_half),
		cmocka_unit_test(test_windows_group_affinity),
		cmocka_unit_test(test_windows_hybrid),
		cmocka_unit_test(test_windows_parked),
		cmocka_unit_test(test_windows_job_rate),
		cmocka_unit_test(test_windows_golden),
	};
	int failed;

	failed = unit_run("saturate",
			  UNIT_TABLE(threads_cases, test_threads_case),
			  UNIT_TESTS(tests), NULL, NULL);
	failed |= unit_run("saturate: capacity",
			   UNIT_TABLE(capacity_cases, test_capacity_case), NULL,
			   0, NULL, NULL);
	failed |= unit_run("saturate: above 100 %",
			   UNIT_TABLE(above_cases, test_above_case), NULL, 0,
			   NULL, NULL);
	return failed;
}
