/* The saturation check's analysis and report on machines this one is not:
 * real topologies (hwloc XML) with a fake /proc/stat, e.g. the 8 E-cores
 * of a 6P+8E laptop busy while its P-cores idle; and each finding from
 * the measurements that show it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saturate.h"
#include "util.h"

#define TOPO(name) SRCDIR "/tests/data/topologies/" name

/* /proc/stat lines for CPUs 0..n-1: busy ticks b[i] of 1000 each. */
static char *fake_stat(unsigned n, const unsigned *busy, const unsigned *steal)
{
	size_t cap = 64 + n * 96, used = 0;
	char *text = xmalloc(cap);

	used += (size_t)snprintf(text, cap, "cpu  0 0 0 0 0 0 0 0 0 0\n");
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(
			text + used, cap - used,
			"cpu%u %u 0 0 %u 0 0 0 %u 0 0\n", i, busy[i],
			1000 - busy[i] - (steal ? steal[i] : 0),
			steal ? steal[i] : 0);
	snprintf(text + used, cap - used, "intr 1 2 3\nctxt 42\n");
	return text;
}

struct run {
	struct place_topology topo;
	struct saturate_input in;
	struct procstat before, after;
	struct saturate_findings findings;
	char *text;
	size_t text_len;
};

static const char *zero_stat(unsigned n)
{
	static char text[65536];
	size_t used = 0;

	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "cpu%u 0 0 0 0 0 0 0 0 0 0\n", i);
	return text;
}

static void run_on(struct run *r, const char *xml, unsigned n,
		   const unsigned *busy, const unsigned *steal)
{
	char *after = fake_stat(n, busy, steal);
	FILE *out;

	memset(r, 0, sizeof(*r));
	assert_int_equal(place_topology_load(&r->topo, xml, NULL), 0);
	assert_int_equal(procstat_parse(zero_stat(n), &r->before), 0);
	assert_int_equal(procstat_parse(after, &r->after), 0);
	free(after);
	r->in.cpus = xcalloc(n, sizeof(*r->in.cpus));
	r->in.cpu_count = procstat_diff(&r->before, &r->after, r->in.cpus, n);
	assert_int_equal(r->in.cpu_count, n);
	r->in.threads = n;
	r->in.seconds = 5;
	r->in.work = "tan";
	r->in.threshold = 0.9;
	r->in.single_rate = 1e6;
	r->in.total_rate = 1e6 * n * 0.5;
	r->in.quota_cpus = -1;
	r->in.possible = hwloc_bitmap_dup(r->topo.all);
	r->in.online = hwloc_bitmap_dup(r->topo.all);
	saturate_diagnose(&r->in, &r->topo, &r->findings);
	out = open_memstream(&r->text, &r->text_len);
	saturate_render_text(&r->in, &r->topo, &r->findings, out);
	fclose(out);
}

static void run_free(struct run *r)
{
	saturate_findings_free(&r->findings);
	procstat_free(&r->before);
	procstat_free(&r->after);
	free(r->in.cpus);
	hwloc_bitmap_free(r->in.possible);
	hwloc_bitmap_free(r->in.online);
	place_topology_free(&r->topo);
	free(r->text);
}

static bool has_finding(const struct run *r, enum saturate_kind kind)
{
	for (size_t i = 0; i < r->findings.count; i++) {
		if (r->findings.list[i].kind == kind)
			return true;
	}
	return false;
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
	run_on(&r, TOPO("Intel-RaptorLake-Corei7-1370P.xml"), 20, busy, NULL);
	assert_true(has_finding(&r, SATURATE_KIND_CORE_KINDS));
	assert_non_null(strstr(r.text, "the 12 performance CPUs were 0 % busy "
				       "while the 8 efficiency CPUs were 99 % "
				       "busy"));
	assert_non_null(strstr(r.text, "cores = \"performance\""));
	/* Grouped: the P-cores' heading, then the E-cores'. */
	assert_non_null(strstr(r.text, "NUMA node 0, performance:\n    cpu0 "));
	assert_non_null(strstr(r.text, "NUMA node 0, efficiency:\n    cpu12"));
	assert_non_null(strstr(r.text, "cpu19   [#######################"
				       "#################]  99 %"));
	run_free(&r);
}

static void test_hybrid_balanced(void **state)
{
	unsigned busy[20];
	struct run r;

	(void)state;
	for (unsigned i = 0; i < 20; i++)
		busy[i] = 1000;
	run_on(&r, TOPO("Intel-RaptorLake-Corei7-1370P.xml"), 20, busy, NULL);
	assert_false(has_finding(&r, SATURATE_KIND_CORE_KINDS));
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
	run_on(&r, TOPO("192em64t-12gr2n8c2t.xml"), 384, busy, NULL);
	for (char *p = r.text; (p = strstr(p, "NUMA node ")); p++)
		headings++;
	for (char *p = r.text; (p = strstr(p, "    cpu")); p++)
		bars++;
	assert_int_equal(headings, 24);
	assert_int_equal(bars, 384);
	assert_non_null(strstr(r.text, "NUMA node 23:\n"));
	run_free(&r);
}

static void test_steal(void **state)
{
	unsigned busy[2] = {700, 700}, steal[2] = {300, 250};
	struct run r;

	(void)state;
	run_on(&r, NULL, 2, busy, steal);
	assert_true(has_finding(&r, SATURATE_KIND_STEAL));
	assert_non_null(strstr(r.text, "the hypervisor took 28 %"));
	assert_non_null(strstr(r.text, "steal 30 %"));
	run_free(&r);
}

/* Limits: an offline CPU, a narrow affinity, a cpuset, a quota. */
static void test_limits(void **state)
{
	unsigned busy[80] = {0};
	struct run r;

	(void)state;
	run_on(&r, TOPO("Intel-CascadeLake-2xXeon6230.xml"), 80, busy, NULL);
	saturate_findings_free(&r.findings);
	hwloc_bitmap_clr(r.in.online, 79);
	r.in.affinity = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(r.in.affinity, 0, 63);
	r.in.cpuset = hwloc_bitmap_dup(r.in.online);
	hwloc_bitmap_clr_range(r.in.cpuset, 40, 78);
	snprintf(r.in.cgroup, sizeof(r.in.cgroup), "/batch");
	snprintf(r.in.cpuset_cgroup, sizeof(r.in.cpuset_cgroup), "/pinned");
	r.in.quota_cpus = 8;
	saturate_diagnose(&r.in, &r.topo, &r.findings);
	assert_true(has_finding(&r, SATURATE_KIND_OFFLINE));
	assert_true(has_finding(&r, SATURATE_KIND_AFFINITY));
	assert_true(has_finding(&r, SATURATE_KIND_CPUSET));
	assert_true(has_finding(&r, SATURATE_KIND_QUOTA));
	assert_non_null(strstr(r.findings.list[0].evidence,
			       "CPUs 79 are offline (parked): 79 of 80"));
	assert_non_null(strstr(r.findings.list[1].evidence,
			       "may run only on CPUs 0-63 (64 of 79 online)"));
	assert_non_null(strstr(r.findings.list[2].evidence,
			       "the cpuset of cgroup /pinned allows only CPUs "
			       "0-39"));
	assert_non_null(strstr(r.findings.list[3].evidence,
			       "cgroup /batch limits CPU time to 8.00 CPUs for "
			       "80 threads"));
	hwloc_bitmap_free(r.in.affinity);
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
	run_on(&r, NULL, 2, busy, NULL);
	saturate_findings_free(&r.findings);
	r.in.competitors = c;
	r.in.competitor_count = 2;
	saturate_diagnose(&r.in, NULL, &r.findings);
	assert_true(has_finding(&r, SATURATE_KIND_CONTENTION));
	assert_true(has_finding(&r, SATURATE_KIND_PRIORITY));
	assert_non_null(strstr(r.findings.list[0].evidence,
			       "other processes took 1.50 CPUs during the run: "
			       "pid 10 (make, nice -5) 90 %"));
	run_free(&r);
}

static void test_frequency_and_unexplained(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_on(&r, NULL, 2, busy, NULL);
	assert_true(has_finding(&r, SATURATE_KIND_UNEXPLAINED));
	saturate_findings_free(&r.findings);
	snprintf(r.in.governor, sizeof(r.in.governor), "powersave");
	saturate_diagnose(&r.in, NULL, &r.findings);
	assert_true(has_finding(&r, SATURATE_KIND_FREQUENCY));
	assert_false(has_finding(&r, SATURATE_KIND_UNEXPLAINED));
	run_free(&r);
}

static void test_oversubscribed(void **state)
{
	unsigned busy[2] = {1000, 1000};
	struct run r;

	(void)state;
	run_on(&r, NULL, 2, busy, NULL);
	saturate_findings_free(&r.findings);
	r.in.threads = 3;
	saturate_diagnose(&r.in, NULL, &r.findings);
	assert_true(has_finding(&r, SATURATE_KIND_OVERSUBSCRIBED));
	assert_false(has_finding(&r, SATURATE_KIND_UNEXPLAINED));
	assert_non_null(strstr(r.findings.list[0].evidence,
			       "3 threads for 2 online CPUs: at most 67 %"));
	run_free(&r);
}

static void test_json(void **state)
{
	unsigned busy[20] = {0};
	struct run r;
	char *json = NULL;
	size_t len;
	FILE *out;

	(void)state;
	for (unsigned i = 12; i < 20; i++)
		busy[i] = 1000;
	run_on(&r, TOPO("Intel-RaptorLake-Corei7-1370P.xml"), 20, busy, NULL);
	out = open_memstream(&json, &len);
	saturate_render_json(&r.in, &r.topo, &r.findings, out);
	fclose(out);
	assert_non_null(strstr(json, "\"efficiency\":0.5000"));
	assert_non_null(strstr(json, "\"ok\":false"));
	assert_non_null(strstr(json, "{\"cpu\":12,\"numa\":0,\"kind\":"
				     "\"efficiency\",\"busy\":1.0000"));
	assert_non_null(strstr(json, "\"kind\":\"core-kinds\""));
	free(json);
	run_free(&r);
}

/* Counters that go backwards (a CPU offlined and back) count nothing. */
static void test_procstat_diff(void **state)
{
	struct procstat a, b;
	struct procstat_share s[4];

	(void)state;
	assert_int_equal(procstat_parse("cpu0 10 0 0 90 0 0 0 0\ncpu1 50 0 0 "
					"50 0 0 0 0\n",
					&a),
			 0);
	assert_int_equal(procstat_parse("cpu0 60 0 0 90 0 0 0 0\ncpu1 10 0 0 "
					"20 0 0 0 0\ncpu2 1 1 1 1 1 1 1 1\n",
					&b),
			 0);
	assert_int_equal(procstat_diff(&a, &b, s, 4), 2);
	assert_true(s[0].busy > 0.99);
	assert_int_equal(s[1].cpu, 1);
	assert_true(s[1].busy == 0 && s[1].idle == 1);
	procstat_free(&a);
	assert_int_equal(procstat_parse("intr 1\n", &a), -1);
	procstat_free(&a);
	procstat_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hybrid_kind_imbalance),
		cmocka_unit_test(test_hybrid_balanced),
		cmocka_unit_test(test_many_nodes),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_competition_and_priority),
		cmocka_unit_test(test_frequency_and_unexplained),
		cmocka_unit_test(test_oversubscribed),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_procstat_diff),
	};

	return cmocka_run_group_tests_name("saturate", tests, NULL, NULL);
}
