/* Times in power-of-two buckets: each time lands in the bucket whose
 * bound is the first at or above it, a percentile is that bound or the
 * worst time when lower, and times past the last bound are the worst. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "latency.h"
#include "unit.h"

static void test_buckets(void **state)
{
	struct latency l = {0};

	(void)state;
	latency_add(&l, 0);	/* up to 1 µs */
	latency_add(&l, 1000);	/* 1 µs exactly: still the first */
	latency_add(&l, 1001);	/* just over: up to 2 µs */
	latency_add(&l, 40000); /* 40 µs: up to 64 */
	latency_add(&l, 64000); /* 64 µs: up to 64 */
	assert_int_equal(l.count[0], 2);
	assert_int_equal(l.count[1], 1);
	assert_int_equal(l.count[6], 2);
	assert_int_equal(l.total, 5);
	assert_int_equal(l.max_ns, 64000);
	assert_int_equal(l.sum_ns, 1000 + 1001 + 40000 + 64000);
	assert_int_equal(latency_bound_us(6), 64);
	assert_int_equal(latency_bound_us(LATENCY_BUCKETS - 1), 0);
}

static void test_percentiles(void **state)
{
	struct latency l = {0};

	(void)state;
	assert_int_equal(latency_percentile_us(&l, 0.5), 0);
	for (int i = 0; i < 98; i++)
		latency_add(&l, 20000);	 /* 20 µs: up to 32 */
	latency_add(&l, 3000000);	 /* 3 ms: up to 4096 µs */
	latency_add(&l, 90000000000ULL); /* 90 s: past every bound */
	assert_int_equal(latency_percentile_us(&l, 0.5), 32);
	assert_int_equal(latency_percentile_us(&l, 0.98), 32);
	assert_int_equal(latency_percentile_us(&l, 0.99), 4096);
	assert_int_equal(latency_percentile_us(&l, 1.0), 90000000);
	/* One time alone: every percentile is it, not its bucket's bound. */
	l = (struct latency){0};
	latency_add(&l, 20000);
	assert_int_equal(latency_percentile_us(&l, 0.5), 20);
	assert_int_equal(latency_percentile_us(&l, 0.99), 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_percentiles),
	};

	return unit_run("latency", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
