/* Processor groups: dealing threads over Windows's groups in proportion to
 * their sizes, on synthetic machines, and when Windows does it itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "procgroups.h"
#include "util.h"

#define PROCGROUPS_MAX_CASE 8

struct deal_case {
	const char *name;
	unsigned sizes[PROCGROUPS_MAX_CASE]; /* processors of each group */
	size_t count;
	size_t threads;
	size_t held[PROCGROUPS_MAX_CASE]; /* threads each group gets */
	const char *first;		  /* groups of the first threads */
};

static const struct deal_case deal_cases[] = {
	{"88 CPUs in 2 groups of 44: all 88 threads",
	 {44, 44},
	 2,
	 88,
	 {44, 44},
	 "0101"},
	{"88 CPUs in 2 groups of 44: a pool of 64",
	 {44, 44},
	 2,
	 64,
	 {32, 32},
	 "0101"},
	{"88 CPUs in 2 groups of 44: an odd thread goes to group 0",
	 {44, 44},
	 2,
	 7,
	 {4, 3},
	 "0101010"},
	{"4 groups of 64: 256 threads",
	 {64, 64, 64, 64},
	 4,
	 256,
	 {64, 64, 64, 64},
	 "01230123"},
	{"4 groups of 64: 10 threads",
	 {64, 64, 64, 64},
	 4,
	 10,
	 {3, 3, 2, 2},
	 "0123012301"},
	{"64 + 24: all 88 threads", {64, 24}, 2, 88, {64, 24}, "00100010001"},
	{"64 + 24: 11 threads, 8 and 3",
	 {64, 24},
	 2,
	 11,
	 {8, 3},
	 "00100010001"},
	{"64 + 24: twice round", {64, 24}, 2, 176, {128, 48}, NULL},
	{"a single group of 20: every thread in it",
	 {20},
	 1,
	 50,
	 {50},
	 "00000"},
	{"an empty group is left out", {44, 0, 44}, 3, 10, {5, 0, 5}, "0202"},
	{"64 + 64 + 16: the small one every ninth",
	 {64, 64, 16},
	 3,
	 18,
	 {8, 8, 2},
	 "010101012"},
};

static void test_deal_case(void **state)
{
	const struct deal_case *c = *state;
	uint64_t masks[PROCGROUPS_MAX_CASE];
	size_t held[PROCGROUPS_MAX_CASE] = {0};
	struct procgroups_plan plan;
	size_t groups = 0;

	for (size_t g = 0; g < c->count; g++) {
		masks[g] = procgroups_mask(c->sizes[g]);
		groups += c->sizes[g] != 0;
	}
	assert_int_equal(procgroups_plan_make(masks, c->count, &plan), groups);
	for (size_t t = 0; t < c->threads; t++) {
		const struct procgroups_affinity *a =
			procgroups_plan_thread(&plan, t);

		assert_non_null(a);
		/* The whole group: every processor of it. */
		assert_true(a->mask == masks[a->group]);
		if (c->first && t < strlen(c->first))
			assert_int_equal(a->group, c->first[t] - '0');
		held[a->group]++;
	}
	for (size_t g = 0; g < c->count; g++)
		assert_int_equal(held[g], c->held[g]);
	procgroups_plan_free(&plan);
}

/* Every prefix of the dealing holds the quota, on many machines: after n
 * threads each group has floor(n * size / total) or ceil of it. */
static void test_quota_always(void **state)
{
	unsigned long long seed = 12345;

	(void)state;
	for (int machine = 0; machine < 5000; machine++) {
		uint64_t masks[PROCGROUPS_MAX_CASE];
		size_t sizes[PROCGROUPS_MAX_CASE],
			held[PROCGROUPS_MAX_CASE] = {0};
		size_t count, total = 0;
		struct procgroups_plan plan;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		count = 1 + (size_t)(seed >> 33) % PROCGROUPS_MAX_CASE;
		for (size_t g = 0; g < count; g++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			sizes[g] = 1 + (size_t)(seed >> 33) % 64;
			masks[g] = procgroups_mask((unsigned)sizes[g]);
			total += sizes[g];
		}
		assert_int_equal(procgroups_plan_make(masks, count, &plan),
				 count);
		for (size_t n = 1; n <= 3 * total; n++) {
			held[procgroups_plan_thread(&plan, n - 1)->group]++;
			for (size_t g = 0; g < count; g++) {
				size_t lo = n * sizes[g] / total;
				size_t hi = (n * sizes[g] + total - 1) / total;

				if (held[g] < lo || held[g] > hi)
					fail_msg("machine %d, group %zu of %zu "
						 "(%zu of %zu CPUs): %zu "
						 "threads after %zu, not "
						 "%zu..%zu",
						 machine, g, count, sizes[g],
						 total, held[g], n, lo, hi);
			}
		}
		procgroups_plan_free(&plan);
	}
}

/* The groups' masks may be the processors a rule chose in each: a thread
 * gets those, in the group's share of their number. */
static void test_chosen_processors(void **state)
{
	const uint64_t masks[] = {0x0f0f, 0xff00000000000000ull};
	const struct procgroups_affinity *a;
	struct procgroups_plan plan;

	(void)state;
	assert_int_equal(procgroups_plan_make(masks, 2, &plan), 2);
	a = procgroups_plan_thread(&plan, 0);
	assert_int_equal(a->group, 0);
	assert_true(a->mask == 0x0f0f);
	a = procgroups_plan_thread(&plan, 1);
	assert_int_equal(a->group, 1);
	assert_true(a->mask == 0xff00000000000000ull);
	procgroups_plan_free(&plan);

	/* No processors anywhere: no plan. */
	assert_int_equal(
		procgroups_plan_make((const uint64_t[]){0, 0}, 2, &plan), 0);
	assert_null(procgroups_plan_thread(&plan, 0));
	procgroups_plan_free(&plan);
}

static void test_mask(void **state)
{
	(void)state;
	assert_true(procgroups_mask(0) == 0);
	assert_true(procgroups_mask(1) == 1);
	assert_true(procgroups_mask(44) == 0xfffffffffffull);
	assert_true(procgroups_mask(64) == UINT64_MAX);
}

struct need_case {
	const char *name;
	size_t groups;
	unsigned long build;
	bool spans_all;
	enum procgroups_need need;
	const char *said;
};

static const struct need_case need_cases[] = {
	{"one group, Windows 10", 1, 19045, false, PROCGROUPS_NEED_ONE_GROUP,
	 "one processor group: nothing to deal"},
	{"one group, Windows 11", 1, 22631, true, PROCGROUPS_NEED_ONE_GROUP,
	 NULL},
	{"Windows 10 22H2 keeps a process in one group", 2, 19045, false,
	 PROCGROUPS_NEED_DEAL,
	 "Windows build 19045 keeps a process in one of the 2 processor "
	 "groups: threads dealt over all of them"},
	{"Server 2019 deals even when it says all groups", 4, 17763, true,
	 PROCGROUPS_NEED_DEAL, NULL},
	{"Server 2022 spreads the process itself", 2, 20348, true,
	 PROCGROUPS_NEED_SYSTEM_SPANS,
	 "Windows build 20348 spreads the process over all 2 processor groups "
	 "itself: threads left where it puts them"},
	{"Windows 11 spreads the process itself", 4, 22000, true,
	 PROCGROUPS_NEED_SYSTEM_SPANS, NULL},
	{"Windows 11 with a narrowed affinity", 2, 26100, false,
	 PROCGROUPS_NEED_DEAL,
	 "the process's affinity covers part of the 2 processor groups: "
	 "threads dealt over all of them"},
	{"the build before Server 2022", 2, 20347, true, PROCGROUPS_NEED_DEAL,
	 NULL},
};

static void test_need_case(void **state)
{
	const struct need_case *c = *state;
	enum procgroups_need need =
		procgroups_need(c->groups, c->build, c->spans_all);
	char said[256];

	assert_int_equal(need, c->need);
	procgroups_describe_need(need, c->groups, c->build, said, sizeof(said));
	if (c->said)
		assert_string_equal(said, c->said);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quota_always),
		cmocka_unit_test(test_chosen_processors),
		cmocka_unit_test(test_mask),
	};
	int failed;

	failed = unit_run("procgroups", UNIT_TABLE(deal_cases, test_deal_case),
			  UNIT_TESTS(tests), NULL, NULL);
	return failed | unit_run("groups: needed",
				 UNIT_TABLE(need_cases, test_need_case), NULL,
				 0, NULL, NULL);
}
