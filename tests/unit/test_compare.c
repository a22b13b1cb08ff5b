/* The statistics of saturate --compare against answers computed apart:
 * Student's t for every number of degrees of freedom from 1 to 1000
 * (tests/data/t975.txt, computed by tests/data/t975.py two ways at 40
 * digits), the interval of fed paired trials, pooled percentiles, and
 * the median paired difference and its sign-test interval, and the
 * order of the arms. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "unit.h"

#include "compare.h"

static void expect_near(double got, double want, double tolerance)
{
	if (!(fabs(got - want) <= tolerance))
		fail_msg("%.10f, not %.10f (+- %g)", got, want, tolerance);
}

struct t_case {
	const char *name;
	double p, df, want;
};

/* Values of the standard tables, beyond the 97.5 % of the file. */
static const struct t_case t_cases[] = {
	{"t: 95 % one-sided, 1 df", 0.95, 1, 6.313751515},
	{"t: 99.5 %, 10 df", 0.995, 10, 3.169272673},
	{"t: 97.5 %, 30 df: the last row of a short table", 0.975, 30,
	 2.042272456},
	{"t: 97.5 %, 31 df: not 1.96", 0.975, 31, 2.039513446},
	{"t: 97.5 %, 1e6 df: the normal's 1.959964 and a bit", 0.975, 1e6,
	 1.9599664},
	{"t: the median is 0", 0.5, 7, 0},
	{"t: 2.5 % is minus 97.5 %", 0.025, 4, -2.776445105},
	{"t: half a degree of freedom", 0.975, 0.5, 164.557673},
};

static void test_t_case(void **state)
{
	const struct t_case *c = *state;

	expect_near(compare_t_quantile(c->p, c->df), c->want,
		    fabs(c->want) > 10 ? 5e-4 : 5e-6);
}

/* Every df from 1 to 1000, right to 3 decimals (in fact to 1e-6). */
static void test_t_table(void **state)
{
	FILE *f = fopen(SRCDIR "/tests/data/t975.txt", "r");
	unsigned df, rows = 0;
	double want;

	(void)state;
	assert_non_null(f);
	while (fscanf(f, "%u %lf", &df, &want) == 2) {
		double got = compare_t_quantile(0.975, df);

		if (!(fabs(got - want) < 1e-6))
			fail_msg("df %u: %.9f, not %.9f", df, got, want);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, 1000);
}

static void test_t_cdf(void **state)
{
	(void)state;
	expect_near(compare_t_cdf(0, 3), 0.5, 1e-15);
	/* df 1 is Cauchy: 1/2 + atan(t)/pi. */
	expect_near(compare_t_cdf(1, 1), 0.75, 1e-12);
	expect_near(compare_t_cdf(-2.570581836, 5), 0.025, 1e-9);
	assert_true(isnan(compare_t_quantile(1, 5)));
	assert_true(isnan(compare_t_quantile(0.975, 0)));
}

/* Six pairs whose answer was computed apart (mpmath, 30 digits): the
 * mean log ratio 0.1826139073, sd 0.0243308781, t 2.570581836 with
 * 5 df. */
static void test_paired_interval(void **state)
{
	const double a[] = {100, 104, 98, 102, 101, 99};
	const double b[] = {120, 121, 119, 125, 118, 122};
	struct compare_summary s;

	(void)state;
	assert_int_equal(compare_paired(a, b, 6, 0.95, &s), 0);
	expect_near(s.mean_log, 0.1826139073, 1e-10);
	expect_near(s.sd_log, 0.0243308781, 1e-10);
	expect_near(s.t, 2.570581836, 1e-8);
	expect_near(s.geo_a, 100.6474306320, 1e-8);
	expect_near(s.geo_b, 120.8122311156, 1e-8);
	expect_near(s.change, 0.2003508719, 1e-10);
	expect_near(s.low, 0.1700894709, 1e-9);
	expect_near(s.high, 0.2313949075, 1e-9);
	/* One estimator: the change is B/A of the throughputs printed. */
	expect_near(s.geo_b / s.geo_a - 1, s.change, 1e-12);
}

static void test_paired_refuses(void **state)
{
	const double a[] = {1, 2}, b[] = {1, 0};
	struct compare_summary s;

	(void)state;
	assert_int_equal(compare_paired(a, a, 1, 0.95, &s), -1);
	assert_int_equal(compare_paired(a, b, 2, 0.95, &s), -1);
	assert_int_equal(compare_paired(a, a, 2, 0.95, &s), 0);
	expect_near(s.change, 0, 0);
	expect_near(s.low, 0, 0);
}

/* Differences 1..6 in shuffled pairs: the median is 3.5; no pair of
 * inner order statistics covers 95 % with 6 pairs, the whole range
 * does 1 - 2/64. */
static void test_median_six(void **state)
{
	const double a[] = {10, 0, 2, 0, 1, 0}, b[] = {15, 1, 5, 2, 5, 6};
	struct compare_median m;

	(void)state;
	assert_int_equal(compare_median_diff(a, b, 6, 0.95, &m), 0);
	assert_int_equal(m.pairs, 6);
	expect_near(m.median, 3.5, 0);
	expect_near(m.low, 1, 0);
	expect_near(m.high, 6, 0);
	expect_near(m.level, 1 - 2.0 / 64, 1e-12);
}

/* With 10 pairs the second and ninth cover 1 - 2 * 11/1024 (97.9 %);
 * the third and eighth only 89 %. B below A: the differences are
 * negative. */
static void test_median_ten(void **state)
{
	double a[10], b[10];
	struct compare_median m;

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = 100;
		b[i] = 100 - (10 - i);
	}
	assert_int_equal(compare_median_diff(a, b, 10, 0.95, &m), 0);
	expect_near(m.median, -5.5, 0);
	expect_near(m.low, -9, 0);
	expect_near(m.high, -2, 0);
	expect_near(m.level, 1 - 2 * 11.0 / 1024, 1e-12);
}

/* Too few pairs for the level: the whole range, and what it covers. */
static void test_median_few(void **state)
{
	const double a[] = {0, 0, 0, 0, 0}, b[] = {4, -1, 2, 8, 3};
	struct compare_median m;

	(void)state;
	assert_int_equal(compare_median_diff(a, b, 2, 0.95, &m), 0);
	expect_near(m.median, 1.5, 0);
	expect_near(m.low, -1, 0);
	expect_near(m.high, 4, 0);
	expect_near(m.level, 0.5, 1e-12);
	assert_int_equal(compare_median_diff(a, b, 5, 0.95, &m), 0);
	expect_near(m.median, 3, 0);
	expect_near(m.low, -1, 0);
	expect_near(m.high, 8, 0);
	expect_near(m.level, 1 - 2.0 / 32, 1e-12);
}

static void test_median_refuses(void **state)
{
	const double a[] = {1, 2}, b[] = {1, NAN};
	struct compare_median m;

	(void)state;
	assert_int_equal(compare_median_diff(a, a, 0, 0.95, &m), -1);
	assert_int_equal(compare_median_diff(a, a, 2, 1, &m), -1);
	assert_int_equal(compare_median_diff(a, b, 2, 0.95, &m), -1);
	assert_int_equal(compare_median_diff(a, a, 2, 0.95, &m), 0);
	expect_near(m.median, 0, 0);
}

/* Nearest rank: p99 of 1..1000 is 990, p99.9 is 999, p99 of 100
 * samples the 99th. */
static void test_percentile(void **state)
{
	double x[1000];

	(void)state;
	for (int i = 0; i < 1000; i++)
		x[i] = i + 1;
	expect_near(compare_percentile(x, 1000, 0.99), 990, 0);
	expect_near(compare_percentile(x, 1000, 0.999), 999, 0);
	expect_near(compare_percentile(x, 100, 0.99), 99, 0);
	expect_near(compare_percentile(x, 1, 0.99), 1, 0);
	expect_near(compare_percentile(x, 0, 0.99), 0, 0);
}

/* Two trials of 100 wake-ups: one steady at 10 us, one with two late by
 * 5 ms. Pooled, the p99 of the 200 is 10 us; the worst trial's is
 * 5000 us, shown apart; the maximum of the trials' p99 would say 5000. */
static void test_pool(void **state)
{
	double steady[100], late[100];
	struct compare_pool pool = {0};

	(void)state;
	for (int i = 0; i < 100; i++) {
		steady[i] = 10;
		late[i] = i < 2 ? 5000 : 10;
	}
	compare_pool_add(&pool, steady, 100);
	compare_pool_add(&pool, late, 100);
	assert_int_equal(pool.count, 200);
	expect_near(compare_pool_percentile(&pool, 0.99), 10, 0);
	expect_near(compare_pool_percentile(&pool, 0.999), 5000, 0);
	expect_near(pool.worst_p99, 5000, 0);
	compare_pool_free(&pool);
}

/* A B, B A, ...: with an even number of pairs, each arm first in half. */
static void test_order(void **state)
{
	unsigned first[2] = {0};

	(void)state;
	assert_int_equal(compare_arm(0, 0), 0);
	assert_int_equal(compare_arm(0, 1), 1);
	assert_int_equal(compare_arm(1, 0), 1);
	assert_int_equal(compare_arm(1, 1), 0);
	for (unsigned pair = 0; pair < 6; pair++)
		first[compare_arm(pair, 0)]++;
	assert_int_equal(first[0], 3);
	assert_int_equal(first[1], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_t_cdf),
		cmocka_unit_test(test_paired_interval),
		cmocka_unit_test(test_paired_refuses),
		cmocka_unit_test(test_median_six),
		cmocka_unit_test(test_median_ten),
		cmocka_unit_test(test_median_few),
		cmocka_unit_test(test_median_refuses),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_order),
	};

	return unit_run("compare", UNIT_TABLE(t_cases, test_t_case),
			UNIT_TESTS(tests), NULL, NULL);
}
