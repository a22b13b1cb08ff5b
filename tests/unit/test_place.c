/* Placement planning on real machine topologies (hwloc XML exports in
 * ../shared/topologies, copied under tests/data/topologies) and hwloc
 * synthetic ones: CPU kinds for cores, even dealing for spread, always
 * within the cpuset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "place.h"

#define TOPO(name) SRCDIR "/tests/data/topologies/" name

struct place_case {
	const char *name;
	const char *xml, *synthetic;
	struct rule_placement rule;
	const char *allowed; /* NULL: the whole machine */
	unsigned threads;    /* dealt */
	const char *base;    /* expected CPUs of the plan */
	size_t domains;
	unsigned per_domain; /* threads each domain must get */
};

static const struct place_case place_cases[] = {
	{"hybrid: performance is the P-cores and their siblings",
	 TOPO("Intel-RaptorLake-Corei7-1370P.xml"),
	 NULL,
	 {.cores = RULE_CORES_PERFORMANCE},
	 NULL,
	 0,
	 "0-11",
	 0,
	 0},
	{"hybrid: efficiency is the E-cores",
	 TOPO("Intel-RaptorLake-Corei7-1370P.xml"),
	 NULL,
	 {.cores = RULE_CORES_EFFICIENCY},
	 NULL,
	 0,
	 "12-19",
	 0,
	 0},
	{"hybrid: spread over kinds",
	 TOPO("Intel-RaptorLake-Corei7-1370P.xml"),
	 NULL,
	 {.spread = RULE_SPREAD_KIND},
	 NULL,
	 20,
	 "0-19",
	 2,
	 10},
	{"three kinds: performance is the top one",
	 TOPO("Intel-ArrowLake-CoreUltra5-225U.xml"),
	 NULL,
	 {.cores = RULE_CORES_PERFORMANCE},
	 NULL,
	 0,
	 "0-3",
	 0,
	 0},
	{"three kinds: efficiency is every other",
	 TOPO("Intel-ArrowLake-CoreUltra5-225U.xml"),
	 NULL,
	 {.cores = RULE_CORES_EFFICIENCY},
	 NULL,
	 0,
	 "4-13",
	 0,
	 0},
	{"80-CPU dual Xeon: spread over both packages evenly",
	 TOPO("Intel-CascadeLake-2xXeon6230.xml"),
	 NULL,
	 {.spread = RULE_SPREAD_PACKAGE},
	 NULL,
	 80,
	 "0-79",
	 2,
	 40},
	{"72-CPU dual Xeon: spread over both packages evenly",
	 TOPO("Intel-Skylake-2xXeon6140.xml"),
	 NULL,
	 {.spread = RULE_SPREAD_PACKAGE},
	 NULL,
	 72,
	 "0-71",
	 2,
	 36},
	/* The packages interleave: even CPUs on one, odd on the other. */
	{"72-CPU dual Xeon: spread within a cpuset of one package",
	 TOPO("Intel-Skylake-2xXeon6140.xml"),
	 NULL,
	 {.spread = RULE_SPREAD_PACKAGE},
	 "0x00000055,0x55555555,0x55555555",
	 8,
	 "=allowed",
	 1,
	 8},
	{"384 CPUs: spread over 24 NUMA nodes",
	 TOPO("192em64t-12gr2n8c2t.xml"),
	 NULL,
	 {.spread = RULE_SPREAD_NUMA},
	 NULL,
	 384,
	 "0-383",
	 24,
	 16},
	{"384 CPUs: one kind, performance means all",
	 TOPO("192em64t-12gr2n8c2t.xml"),
	 NULL,
	 {.cores = RULE_CORES_PERFORMANCE},
	 NULL,
	 0,
	 "0-383",
	 0,
	 0},
	{"synthetic 88-CPU dual Xeon: numa spread",
	 NULL,
	 "pack:2 numa:1 core:22 pu:2",
	 {.spread = RULE_SPREAD_NUMA},
	 NULL,
	 88,
	 "0-87",
	 2,
	 44},
	/* One package of four nodes: group deals over the nodes, as numa. */
	{"synthetic: spread group is numa on Linux",
	 NULL,
	 "pack:1 numa:4 core:4 pu:2",
	 {.spread = RULE_SPREAD_GROUP},
	 NULL,
	 32,
	 "0-31",
	 4,
	 8},
	{"synthetic: cpus within the allowed set",
	 NULL,
	 "pack:2 numa:1 core:22 pu:2",
	 {.has_cpus = true},
	 "40-50",
	 0,
	 "40-47",
	 0,
	 0},
	{"synthetic: nothing allowed",
	 NULL,
	 "pack:2 numa:1 core:22 pu:2",
	 {.has_cpus = true},
	 "60-70",
	 0,
	 NULL,
	 0,
	 0},
};

static struct cpulist_range place_cpus_0_47 = {0, 47};

static void test_place_case(void **state)
{
	const struct place_case *c = *state;
	struct rule_placement rule = c->rule;
	struct place_topology topo;
	struct place_plan plan;
	hwloc_bitmap_t allowed;
	unsigned *per = NULL;
	char why[128], text[256];
	int status;

	if (rule.has_cpus) {
		rule.cpus.ranges = &place_cpus_0_47;
		rule.cpus.count = 1;
	}
	assert_int_equal(place_topology_load(&topo, c->xml, c->synthetic), 0);
	allowed =
		c->allowed ? hwloc_bitmap_alloc() : hwloc_bitmap_dup(topo.all);
	if (c->allowed && strncmp(c->allowed, "0x", 2) == 0)
		assert_int_equal(hwloc_bitmap_sscanf(allowed, c->allowed), 0);
	else if (c->allowed)
		assert_int_equal(hwloc_bitmap_list_sscanf(allowed, c->allowed),
				 0);
	status = place_plan_make(&topo, &rule, allowed, NULL, &plan, why,
				 sizeof(why));
	if (!c->base) {
		assert_int_equal(status, -1);
		assert_non_null(strstr(why, "cpuset"));
		goto out;
	}
	assert_int_equal(status, 0);
	assert_true(plan.active);
	place_format(plan.base, text, sizeof(text));
	if (strcmp(c->base, "=allowed") == 0)
		assert_true(hwloc_bitmap_isequal(plan.base, allowed));
	else
		assert_string_equal(text, c->base);
	assert_int_equal(plan.domains.count, c->domains);
	per = calloc(c->domains + 1, sizeof(*per));
	for (unsigned t = 0; t < c->threads; t++) {
		hwloc_const_bitmap_t set = place_plan_thread(&plan, (int)t);

		assert_true(hwloc_bitmap_isincluded(set, plan.base));
		for (size_t d = 0; d < plan.domains.count; d++)
			per[d] +=
				hwloc_bitmap_isequal(set, plan.domains.sets[d]);
	}
	for (size_t d = 0; c->threads && d < c->domains; d++)
		assert_int_equal(per[d], c->per_domain);
	/* Domains do not overlap: each CPU is in one. */
	for (size_t a = 0; a < plan.domains.count; a++)
		for (size_t b = a + 1; b < plan.domains.count; b++)
			assert_false(hwloc_bitmap_intersects(
				plan.domains.sets[a], plan.domains.sets[b]));
	place_plan_free(&plan);
out:
	free(per);
	hwloc_bitmap_free(allowed);
	place_topology_free(&topo);
}

/* No placement keys: no plan, nothing to apply. */
static void test_no_placement(void **state)
{
	struct rule_placement rule = {0};
	struct place_topology topo;
	struct place_plan plan;
	char why[64];

	(void)state;
	assert_int_equal(place_topology_load(&topo, NULL, "pack:1 pu:4"), 0);
	assert_int_equal(place_plan_make(&topo, &rule, topo.all, NULL, &plan,
					 why, sizeof(why)),
			 0);
	assert_false(plan.active);
	place_topology_free(&topo);
}

/* Threads per processor group of a spread = "group" plan over slots
 * 0..threads-1, on a topology with Windows's processor groups. */
static void deal_groups(const char *synthetic,
			const struct rule_placement *rule, unsigned threads,
			size_t groups, const unsigned *want)
{
	struct place_topology topo;
	struct place_plan plan;
	unsigned got[8] = {0};
	char why[128];

	assert_int_equal(place_topology_load(&topo, NULL, synthetic), 0);
	place_topology_groups(&topo);
	assert_int_equal(place_plan_make(&topo, rule, topo.all, NULL, &plan,
					 why, sizeof(why)),
			 0);
	assert_true(plan.active);
	assert_int_equal(plan.domains.count, groups > 1 ? groups : 0);
	for (unsigned s = 0; s < threads; s++) {
		hwloc_const_bitmap_t set = place_plan_thread(&plan, (int)s);
		int g = hwloc_bitmap_first(set) / 64;

		/* One group's processors each, never straddling two. */
		assert_int_equal(hwloc_bitmap_last(set) / 64, g);
		got[g]++;
	}
	for (size_t g = 0; g < groups; g++)
		if (got[g] != want[g])
			fail_msg("%s, %u threads: group %zu got %u, not %u",
				 synthetic, threads, g, got[g], want[g]);
	place_plan_free(&plan);
	place_topology_free(&topo);
}

static void test_processor_groups(void **state)
{
	const struct rule_placement group = {.spread = RULE_SPREAD_GROUP};
	const struct rule_placement first = {
		.spread = RULE_SPREAD_GROUP,
		.has_cpus = true,
		.cpus = {.ranges = (struct cpulist_range[]){{0, 10}},
			 .count = 1},
	};

	(void)state;
	/* 88 in one node: groups of 64 and 24, in proportion. */
	deal_groups("pack:2 core:44 pu:1", &group, 88, 2,
		    (const unsigned[]){64, 24});
	deal_groups("pack:2 core:44 pu:1", &group, 11, 2,
		    (const unsigned[]){8, 3});
	/* 4 groups of 64: a quarter each. */
	deal_groups("pack:4 core:64 pu:1", &group, 256, 4,
		    (const unsigned[]){64, 64, 64, 64});
	/* The rule's CPUs in one group: nothing to deal. */
	deal_groups("pack:2 core:44 pu:1", &first, 20, 1,
		    (const unsigned[]){20});
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processor_groups),
		cmocka_unit_test(test_no_placement),
	};

	return unit_run("place", UNIT_TABLE(place_cases, test_place_case),
			UNIT_TESTS(tests), NULL, NULL);
}
