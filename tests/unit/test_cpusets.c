/* CPU sets: the ids cores and cpus choose on synthetic Windows machines
 * (a 6P+8E hybrid, one kind of core, 2 groups of 44, 4 groups of 64,
 * 64 + 24), the numbering of cpus across groups, and the call that hands
 * a choice over several groups to old and new systems. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "cpusets.h"
#include "util.h"

#define WIN10 19045ul /* Windows 10 22H2 */
#define WIN11 22631ul /* Windows 11 23H2 */

enum test_machine {
	TEST_MACHINE_HYBRID,   /* 6 P-cores with SMT (class 1), 8 E-cores */
	TEST_MACHINE_ONE_KIND, /* 8 cores with SMT, all class 0 */
	TEST_MACHINE_2X44,     /* 2 groups of 44: 2 x 22 cores with SMT */
	TEST_MACHINE_4X64,     /* 4 groups of 64 */
	TEST_MACHINE_64_24,    /* groups of 64 and 24 */
};

struct machine {
	struct cpusets_entry e[256];
	size_t count;
};

/* Ids as Windows gives them: 256 up, one per logical processor. */
static void machine_add(struct machine *m, unsigned group, unsigned processor,
			unsigned core, unsigned efficiency)
{
	m->e[m->count] = (struct cpusets_entry){
		.id = 256 + (unsigned long)m->count,
		.group = (unsigned short)group,
		.processor = (unsigned char)processor,
		.core = (unsigned char)core,
		.node = (unsigned char)group,
		.efficiency = (unsigned char)efficiency,
	};
	m->count++;
}

static void machine_groups(struct machine *m, const unsigned *sizes,
			   size_t groups)
{
	for (size_t g = 0; g < groups; g++)
		for (unsigned p = 0; p < sizes[g]; p++)
			machine_add(m, (unsigned)g, p, p / 2, 0);
}

static void machine_make(struct machine *m, enum test_machine which)
{
	static const unsigned two[] = {44, 44}, four[] = {64, 64, 64, 64},
			      unequal[] = {64, 24}, one[] = {16};

	m->count = 0;
	switch (which) {
	case TEST_MACHINE_HYBRID:
		for (unsigned p = 0; p < 12; p++)
			machine_add(m, 0, p, p / 2, 1);
		for (unsigned p = 12; p < 20; p++)
			machine_add(m, 0, p, p - 6, 0);
		return;
	case TEST_MACHINE_ONE_KIND:
		machine_groups(m, one, 1);
		return;
	case TEST_MACHINE_2X44:
		machine_groups(m, two, 2);
		return;
	case TEST_MACHINE_4X64:
		machine_groups(m, four, 4);
		return;
	case TEST_MACHINE_64_24:
		machine_groups(m, unequal, 2);
		return;
	}
}

struct cpusets_case {
	const char *name;
	enum test_machine machine;
	enum rule_cores cores;
	const char *cpus; /* NULL: none */
	enum rule_spread spread;
	unsigned long build;
	/* expected */
	enum cpusets_call call;
	size_t count;
	const char *masks; /* "group:processors ..."; NULL: no plan */
	bool spans, limited, one_kind;
};

#define P	 RULE_CORES_PERFORMANCE
#define E	 RULE_CORES_EFFICIENCY
#define ALL	 RULE_CORES_ALL
#define NONE	 RULE_CORES_UNSET
#define GROUP	 RULE_SPREAD_GROUP
#define NOSPREAD RULE_SPREAD_UNSET

static const struct cpusets_case cpusets_cases[] = {
	{"hybrid: performance is the P-cores' 12 processors",
	 TEST_MACHINE_HYBRID, P, NULL, NOSPREAD, WIN11, CPUSETS_CALL_IDS, 12,
	 "0:0-11", false, false, false},
	{"hybrid: efficiency is the 8 E-cores", TEST_MACHINE_HYBRID, E, NULL,
	 NOSPREAD, WIN11, CPUSETS_CALL_IDS, 8, "0:12-19", false, false, false},
	{"hybrid: all", TEST_MACHINE_HYBRID, ALL, NULL, NOSPREAD, WIN10,
	 CPUSETS_CALL_IDS, 20, "0:0-19", false, false, false},
	{"hybrid: cpus across the kinds", TEST_MACHINE_HYBRID, NONE, "10-13",
	 NOSPREAD, WIN11, CPUSETS_CALL_IDS, 4, "0:10-13", false, false, false},
	{"one kind: performance is all", TEST_MACHINE_ONE_KIND, P, NULL,
	 NOSPREAD, WIN11, CPUSETS_CALL_IDS, 16, "0:0-15", false, false, true},
	{"one kind: efficiency is all", TEST_MACHINE_ONE_KIND, E, NULL,
	 NOSPREAD, WIN10, CPUSETS_CALL_IDS, 16, "0:0-15", false, false, true},
	{"2 groups of 44, Windows 11: all, by masks", TEST_MACHINE_2X44, ALL,
	 NULL, NOSPREAD, WIN11, CPUSETS_CALL_MASKS, 88, "0:0-43 1:0-43", true,
	 false, true},
	{"2 groups of 44, Server 2022: all, by masks", TEST_MACHINE_2X44, P,
	 NULL, NOSPREAD, GROUPS_SPAN_BUILD, CPUSETS_CALL_MASKS, 88,
	 "0:0-43 1:0-43", true, false, true},
	{"2 groups of 44, Windows 10: all, cut to group 0", TEST_MACHINE_2X44,
	 ALL, NULL, NOSPREAD, WIN10, CPUSETS_CALL_IDS, 44, "0:0-43", true, true,
	 true},
	{"2 groups of 44, Windows 10 with spread group: per thread",
	 TEST_MACHINE_2X44, ALL, NULL, GROUP, WIN10, CPUSETS_CALL_THREADS, 88,
	 "0:0-43 1:0-43", true, false, true},
	{"2 groups of 44: cpus 44-87 are group 1", TEST_MACHINE_2X44, NONE,
	 "44-87", NOSPREAD, WIN10, CPUSETS_CALL_IDS, 44, "1:0-43", false, false,
	 true},
	{"2 groups of 44, Windows 11: cpus over the seam", TEST_MACHINE_2X44,
	 NONE, "40-47", NOSPREAD, WIN11, CPUSETS_CALL_MASKS, 8, "0:40-43 1:0-3",
	 true, false, true},
	{"2 groups of 44, Windows 10: cpus cut to the larger part",
	 TEST_MACHINE_2X44, NONE, "40-50", NOSPREAD, WIN10, CPUSETS_CALL_IDS, 7,
	 "1:0-6", true, true, true},
	{"2 groups of 44, Windows 10: a tie keeps the lower group",
	 TEST_MACHINE_2X44, NONE, "42-45", NOSPREAD, WIN10, CPUSETS_CALL_IDS, 2,
	 "0:42-43", true, true, true},
	{"4 groups of 64, Windows 11: all, by masks", TEST_MACHINE_4X64, ALL,
	 NULL, NOSPREAD, WIN11, CPUSETS_CALL_MASKS, 256,
	 "0:0-63 1:0-63 2:0-63 3:0-63", true, false, true},
	{"4 groups of 64: cpus 128-191 are group 2", TEST_MACHINE_4X64, NONE,
	 "128-191", NOSPREAD, WIN10, CPUSETS_CALL_IDS, 64, "2:0-63", false,
	 false, true},
	{"4 groups of 64, Windows 10: cpus 60-70 cut to group 1",
	 TEST_MACHINE_4X64, NONE, "60-70", NOSPREAD, WIN10, CPUSETS_CALL_IDS, 7,
	 "1:0-6", true, true, true},
	{"4 groups of 64, Windows 10 with spread group: three groups",
	 TEST_MACHINE_4X64, NONE, "0-3,100-103,255", GROUP, WIN10,
	 CPUSETS_CALL_THREADS, 9, "0:0-3 1:36-39 3:63", true, false, true},
	{"64 + 24: cpus 64-87 are group 1", TEST_MACHINE_64_24, NONE, "64-87",
	 NOSPREAD, WIN11, CPUSETS_CALL_IDS, 24, "1:0-23", false, false, true},
	{"spread alone chooses no CPU set", TEST_MACHINE_2X44, NONE, NULL,
	 GROUP, WIN10, CPUSETS_CALL_NONE, 88, "0:0-43 1:0-43", true, false,
	 true},
	{"cpus the machine lacks", TEST_MACHINE_2X44, NONE, "88-100", NOSPREAD,
	 WIN11, CPUSETS_CALL_NONE, 0, NULL, false, false, false},
};

static void masks_format(const struct cpusets_plan *plan, char *buf,
			 size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t m = 0; m < plan->mask_count; m++) {
		uint64_t mask = plan->masks[m].mask;

		used += (size_t)snprintf(buf + used, size - used,
					 "%s%u:", m ? " " : "",
					 plan->masks[m].group);
		for (unsigned p = 0, first = 1; p < 64; p++) {
			unsigned last = p;

			if (!(mask >> p & 1))
				continue;
			while (last + 1 < 64 && (mask >> (last + 1) & 1))
				last++;
			used += (size_t)snprintf(buf + used, size - used,
						 first ? "%u" : ",%u", p);
			if (last > p)
				used += (size_t)snprintf(
					buf + used, size - used, "-%u", last);
			first = 0;
			p = last;
		}
	}
}

/* Every id is an entry chosen: its bit is set in its group's mask, and
 * the masks hold exactly as many processors as there are ids. */
static void check_ids(const struct machine *m, const struct cpusets_plan *p)
{
	size_t bits = 0;

	for (size_t k = 0; k < p->mask_count; k++)
		for (uint64_t mask = p->masks[k].mask; mask; mask &= mask - 1)
			bits++;
	assert_int_equal(bits, p->count);
	for (size_t i = 0; i < p->count; i++) {
		const struct cpusets_entry *e = &m->e[p->ids[i] - 256];
		bool found = false;

		for (size_t k = 0; k < p->mask_count; k++)
			found = found ||
				(p->masks[k].group == e->group &&
				 (p->masks[k].mask >> e->processor & 1));
		assert_true(found);
	}
}

static void test_cpusets_case(void **state)
{
	const struct cpusets_case *c = *state;
	struct rule_placement rule = {.cores = c->cores, .spread = c->spread};
	struct cpusets_plan plan;
	struct machine m;
	char why[256], masks[256];
	int status;

	machine_make(&m, c->machine);
	if (c->cpus) {
		assert_int_equal(
			cpulist_parse(c->cpus, &rule.cpus, why, sizeof(why)),
			0);
		rule.has_cpus = true;
	}
	status = cpusets_plan_make(m.e, m.count, &rule, c->build, &plan, why,
				   sizeof(why));
	cpulist_free(&rule.cpus);
	if (!c->masks) {
		assert_int_equal(status, -1);
		assert_string_equal(why, "none of the rule's CPUs is on this "
					 "machine (logical processors 0-87, "
					 "numbered across 2 processor groups)");
		return;
	}
	assert_int_equal(status, 0);
	masks_format(&plan, masks, sizeof(masks));
	assert_string_equal(masks, c->masks);
	assert_int_equal(plan.call, c->call);
	assert_int_equal(plan.count, c->count);
	assert_int_equal(plan.spans_groups, c->spans);
	assert_int_equal(plan.limited, c->limited);
	assert_int_equal(plan.one_kind, c->one_kind);
	check_ids(&m, &plan);
	cpusets_plan_free(&plan);
}

/* Group 0's processors first, then group 1's, each group as wide as its
 * highest processor index + 1. */
static void test_numbering(void **state)
{
	struct machine m;

	(void)state;
	machine_make(&m, TEST_MACHINE_64_24);
	assert_int_equal(cpusets_number(m.e, m.count, 0), 0);
	assert_int_equal(cpusets_number(m.e, m.count, 63), 63);
	assert_int_equal(cpusets_number(m.e, m.count, 64 + 5), 69);
	machine_make(&m, TEST_MACHINE_4X64);
	assert_int_equal(cpusets_number(m.e, m.count, 255), 255);
	/* A gap in group 0 (processor 4 absent) still counts. */
	m.count = 0;
	for (unsigned p = 0; p < 6; p++)
		if (p != 4)
			machine_add(&m, 0, p, p, 0);
	machine_add(&m, 1, 0, 0, 0);
	assert_int_equal(cpusets_number(m.e, m.count, 4), 5);
	assert_int_equal(cpusets_number(m.e, m.count, 5), 6);
}

/* A groups plan over the masks of a per-thread choice deals the threads
 * in the share each group has of the chosen processors. */
static void test_threads_over_masks(void **state)
{
	struct rule_placement rule = {.cores = RULE_CORES_ALL,
				      .spread = RULE_SPREAD_GROUP};
	uint64_t masks[2];
	struct groups_plan groups;
	struct cpusets_plan plan;
	size_t held[2] = {0};
	struct machine m;
	char why[128];

	(void)state;
	machine_make(&m, TEST_MACHINE_64_24);
	assert_int_equal(cpusets_plan_make(m.e, m.count, &rule, WIN10, &plan,
					   why, sizeof(why)),
			 0);
	assert_int_equal(plan.call, CPUSETS_CALL_THREADS);
	for (size_t k = 0; k < plan.mask_count; k++)
		masks[plan.masks[k].group] = plan.masks[k].mask;
	assert_int_equal(groups_plan_make(masks, 2, &groups), 2);
	for (size_t t = 0; t < 88; t++)
		held[groups_plan_thread(&groups, t)->group]++;
	assert_int_equal(held[0], 64);
	assert_int_equal(held[1], 24);
	groups_plan_free(&groups);
	cpusets_plan_free(&plan);
}

static void test_no_entries(void **state)
{
	struct rule_placement rule = {.cores = RULE_CORES_ALL};
	struct cpusets_plan plan;
	char why[128];

	(void)state;
	assert_int_equal(cpusets_plan_make(NULL, 0, &rule, WIN11, &plan, why,
					   sizeof(why)),
			 -1);
	assert_string_equal(why, "none of the rule's CPUs is on this machine: "
				 "it lists no CPU sets");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbering),
		cmocka_unit_test(test_threads_over_masks),
		cmocka_unit_test(test_no_entries),
	};

	return unit_run("cpusets", UNIT_TABLE(cpusets_cases, test_cpusets_case),
			UNIT_TESTS(tests), NULL, NULL);
}
