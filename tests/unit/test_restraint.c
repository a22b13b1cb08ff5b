/* Restraint's judgement, sample by sample, on the figures the issue
 * names: four hogs sharing two CPUs qualify, a process at half that does
 * not, nothing is restrained without pressure, one whole CPU qualifies
 * on a large machine, a release waits for calm and the minimum hold, and
 * a process that flaps is left alone by the rate limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "restraint.h"

#define MS 1000000ULL

/* A process using cpu_share of one CPU, sampled every step_ms from
 * *at_ms for ms: the last verdict that was not KEEP, or KEEP, and when
 * (*when_ms). */
static enum restraint_verdict run(const struct restraint_limits *l,
				  struct restraint_proc *p, unsigned cpus,
				  double cpu_share, bool pressure,
				  unsigned long long *at_ms, unsigned ms,
				  unsigned long long *when_ms)
{
	enum restraint_verdict last = RESTRAINT_KEEP;
	const unsigned step_ms = 250;

	for (unsigned t = 0; t < ms; t += step_ms) {
		enum restraint_verdict v;

		*at_ms += step_ms;
		v = restraint_judge(
			l, p, *at_ms * MS,
			p->cpu_ns + (unsigned long long)(cpu_share * step_ms *
							 (double)MS),
			cpus, pressure);
		if (v != RESTRAINT_KEEP) {
			last = v;
			*when_ms = *at_ms;
		}
	}
	return last;
}

static void start(const struct restraint_limits *l, struct restraint_proc *p,
		  unsigned long long at_ms)
{
	*p = (struct restraint_proc){0};
	restraint_judge(l, p, at_ms * MS, 0, 2, true);
}

static void test_hogs_sharing_two_cpus_qualify(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	/* 0.4 CPU of 2, 20 %: restrained once a second of it is over. */
	assert_int_equal(run(&l, &p, 2, 0.4, true, &at, 2000, &when),
			 RESTRAINT_RESTRAIN);
	assert_int_equal(when, 2000);
	assert_true(p.restrained);
}

static void test_half_that_does_not(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	assert_int_equal(run(&l, &p, 2, 0.2, true, &at, 5000, &when),
			 RESTRAINT_KEEP);
	assert_false(p.restrained);
}

static void test_no_pressure_no_restraint(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	assert_int_equal(run(&l, &p, 2, 1.0, false, &at, 5000, &when),
			 RESTRAINT_KEEP);
	/* Pressure comes: the second starts then, not before. */
	assert_int_equal(run(&l, &p, 2, 1.0, true, &at, 750, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(run(&l, &p, 2, 1.0, true, &at, 250, &when),
			 RESTRAINT_RESTRAIN);
}

/* One whole CPU of 128 is under 1 %: it qualifies still; half of one
 * does not. */
static void test_whole_cpu_on_a_large_machine(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	assert_int_equal(run(&l, &p, 128, 0.5, true, &at, 3000, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(run(&l, &p, 128, 1.0, true, &at, 1000, &when),
			 RESTRAINT_RESTRAIN);
}

/* A sample under the share starts the second again. */
static void test_qualify_is_continuous(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(run(&l, &p, 2, 1.0, true, &at, 750, &when),
				 RESTRAINT_KEEP);
		assert_int_equal(run(&l, &p, 2, 0.0, true, &at, 250, &when),
				 RESTRAINT_KEEP);
	}
}

/* Calm at once after its restraint: released after the hold (5 s), not
 * at the end of the calm (3 s); busy again, the calm starts over. */
static void test_release_after_calm_and_hold(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0, restrained;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	run(&l, &p, 2, 1.0, true, &at, 1000, &when);
	restrained = when;
	assert_true(p.restrained);
	assert_int_equal(run(&l, &p, 2, 0.02, false, &at, 4750, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(run(&l, &p, 2, 0.02, false, &at, 250, &when),
			 RESTRAINT_RELEASE);
	assert_int_equal(when - restrained, 5000);
	assert_false(p.restrained);
	/* Again: busy then calm for less than the calm, busy again. */
	run(&l, &p, 2, 1.0, true, &at, 1000, &when);
	assert_true(p.restrained);
	run(&l, &p, 2, 0.02, true, &at, 6000, &when);
	assert_false(p.restrained);
	run(&l, &p, 2, 1.0, true, &at, 1000, &when);
	assert_int_equal(run(&l, &p, 2, 0.02, true, &at, 2000, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(run(&l, &p, 2, 0.6, true, &at, 250, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(run(&l, &p, 2, 0.02, true, &at, 2750, &when),
			 RESTRAINT_KEEP);
	assert_true(p.restrained);
}

/* Four restraints in a minute, then none until the first is a minute
 * old: the refusal counted once. */
static void test_rate_limit(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at = 1000, when = 0, first = 0;

	(void)state;
	restraint_limits_default(&l);
	start(&l, &p, at);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(run(&l, &p, 2, 1.0, true, &at, 1000, &when),
				 RESTRAINT_RESTRAIN);
		if (!first)
			first = when;
		assert_int_equal(run(&l, &p, 2, 0.0, true, &at, 5000, &when),
				 RESTRAINT_RELEASE);
	}
	assert_int_equal(run(&l, &p, 2, 1.0, true, &at, 30000, &when),
			 RESTRAINT_KEEP);
	assert_int_equal(p.refused, 1);
	assert_int_equal(
		run(&l, &p, 2, 1.0, true, &at, first + 60000 - at, &when),
		RESTRAINT_RESTRAIN);
	assert_int_equal(when, first + 60000);
}

/* The first sample, and one whose CPU time went back (another process
 * under the record), decide nothing. */
static void test_fresh_samples(void **state)
{
	struct restraint_limits l;
	struct restraint_proc p = {0};

	(void)state;
	restraint_limits_default(&l);
	assert_int_equal(restraint_judge(&l, &p, 5000 * MS, 4000 * MS, 2, true),
			 RESTRAINT_KEEP);
	assert_int_equal(restraint_judge(&l, &p, 7000 * MS, 1 * MS, 2, true),
			 RESTRAINT_KEEP);
	/* A second over the share from the new start. */
	assert_int_equal(restraint_judge(&l, &p, 7500 * MS, 501 * MS, 2, true),
			 RESTRAINT_KEEP);
	assert_int_equal(restraint_judge(&l, &p, 8000 * MS, 1001 * MS, 2, true),
			 RESTRAINT_RESTRAIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hogs_sharing_two_cpus_qualify),
		cmocka_unit_test(test_half_that_does_not),
		cmocka_unit_test(test_no_pressure_no_restraint),
		cmocka_unit_test(test_whole_cpu_on_a_large_machine),
		cmocka_unit_test(test_qualify_is_continuous),
		cmocka_unit_test(test_release_after_calm_and_hold),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_fresh_samples),
	};

	return cmocka_run_group_tests_name("restraint", tests, NULL, NULL);
}
