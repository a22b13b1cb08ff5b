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

/* One process's record under the default limits, its first sample taken
 * at 1 s: at_ms the time of its latest, when_ms that of the latest
 * verdict run saw that was not KEEP. */
struct sim {
	struct restraint_limits l;
	struct restraint_proc p;
	unsigned long long at_ms, when_ms;
};

static int sim_setup(void **state)
{
	static struct sim sim;

	sim = (struct sim){.at_ms = 1000};
	restraint_limits_default(&sim.l);
	/* The default is half a second (a PSI window's shortest); the
	 * figures below are a second's, as ProBalance's. */
	assert_int_equal(sim.l.qualify_ms, 500);
	sim.l.qualify_ms = 1000;
	restraint_judge(&sim.l, &sim.p, sim.at_ms * MS, 0, 2, true);
	*state = &sim;
	return 0;
}

/* The process using cpu_share of one CPU on a machine of cpus, sampled
 * every 250 ms for ms: the last verdict that was not KEEP, or KEEP. */
static enum restraint_verdict run(struct sim *s, unsigned cpus,
				  double cpu_share, bool pressure,
				  unsigned long long ms)
{
	enum restraint_verdict last = RESTRAINT_KEEP;
	const unsigned step_ms = 250;

	for (unsigned long long t = 0; t < ms; t += step_ms) {
		enum restraint_verdict v;

		s->at_ms += step_ms;
		v = restraint_judge(
			&s->l, &s->p, s->at_ms * MS,
			s->p.cpu_ns + (unsigned long long)(cpu_share * step_ms *
							   (double)MS),
			cpus, pressure);
		if (v != RESTRAINT_KEEP) {
			last = v;
			s->when_ms = s->at_ms;
		}
	}
	return last;
}

static void test_hogs_sharing_two_cpus_qualify(void **state)
{
	struct sim *s = *state;

	/* 0.4 CPU of 2, 20 %: restrained once a second of it is over. */
	assert_int_equal(run(s, 2, 0.4, true, 2000), RESTRAINT_RESTRAIN);
	assert_int_equal(s->when_ms, 2000);
	assert_true(s->p.restrained);
}

static void test_half_that_does_not(void **state)
{
	struct sim *s = *state;

	assert_int_equal(run(s, 2, 0.2, true, 5000), RESTRAINT_KEEP);
	assert_false(s->p.restrained);
}

static void test_no_pressure_no_restraint(void **state)
{
	struct sim *s = *state;

	assert_int_equal(run(s, 2, 1.0, false, 5000), RESTRAINT_KEEP);
	/* Pressure comes: the second starts then, not before. */
	assert_int_equal(run(s, 2, 1.0, true, 750), RESTRAINT_KEEP);
	assert_int_equal(run(s, 2, 1.0, true, 250), RESTRAINT_RESTRAIN);
}

/* One whole CPU of 128 is under 1 %: it qualifies still; half of one
 * does not. */
static void test_whole_cpu_on_a_large_machine(void **state)
{
	struct sim *s = *state;

	assert_int_equal(run(s, 128, 0.5, true, 3000), RESTRAINT_KEEP);
	assert_int_equal(run(s, 128, 1.0, true, 1000), RESTRAINT_RESTRAIN);
}

/* A sample under the share starts the second again. */
static void test_qualify_is_continuous(void **state)
{
	struct sim *s = *state;

	for (int i = 0; i < 4; i++) {
		assert_int_equal(run(s, 2, 1.0, true, 750), RESTRAINT_KEEP);
		assert_int_equal(run(s, 2, 0.0, true, 250), RESTRAINT_KEEP);
	}
}

/* Calm at once after its restraint: released after the hold (5 s), not
 * at the end of the calm (3 s); busy again, the calm starts over. */
static void test_release_after_calm_and_hold(void **state)
{
	struct sim *s = *state;
	unsigned long long restrained;

	run(s, 2, 1.0, true, 1000);
	restrained = s->when_ms;
	assert_true(s->p.restrained);
	assert_int_equal(run(s, 2, 0.02, false, 4750), RESTRAINT_KEEP);
	assert_int_equal(run(s, 2, 0.02, false, 250), RESTRAINT_RELEASE);
	assert_int_equal(s->when_ms - restrained, 5000);
	assert_false(s->p.restrained);
	/* Again: busy then calm for less than the calm, busy again. */
	run(s, 2, 1.0, true, 1000);
	assert_true(s->p.restrained);
	run(s, 2, 0.02, true, 6000);
	assert_false(s->p.restrained);
	run(s, 2, 1.0, true, 1000);
	assert_int_equal(run(s, 2, 0.02, true, 2000), RESTRAINT_KEEP);
	assert_int_equal(run(s, 2, 0.6, true, 250), RESTRAINT_KEEP);
	assert_int_equal(run(s, 2, 0.02, true, 2750), RESTRAINT_KEEP);
	assert_true(s->p.restrained);
}

/* Four restraints in a minute, then none until the first is a minute
 * old: the refusal counted once. */
static void test_rate_limit(void **state)
{
	struct sim *s = *state;
	unsigned long long first = 0;

	for (int i = 0; i < 4; i++) {
		assert_int_equal(run(s, 2, 1.0, true, 1000),
				 RESTRAINT_RESTRAIN);
		if (!first)
			first = s->when_ms;
		assert_int_equal(run(s, 2, 0.0, true, 5000), RESTRAINT_RELEASE);
	}
	assert_int_equal(run(s, 2, 1.0, true, 30000), RESTRAINT_KEEP);
	assert_int_equal(s->p.refused, 1);
	assert_int_equal(run(s, 2, 1.0, true, first + 60000 - s->at_ms),
			 RESTRAINT_RESTRAIN);
	assert_int_equal(s->when_ms, first + 60000);
}

/* The first sample, and one whose CPU time went back (another process
 * under the record), decide nothing. */
static void test_fresh_samples(void **state)
{
	struct sim *s = *state;
	const struct restraint_limits *l = &s->l;
	struct restraint_proc p = {0};

	assert_int_equal(restraint_judge(l, &p, 5000 * MS, 4000 * MS, 2, true),
			 RESTRAINT_KEEP);
	assert_int_equal(restraint_judge(l, &p, 7000 * MS, 1 * MS, 2, true),
			 RESTRAINT_KEEP);
	/* A second over the share from the new start. */
	assert_int_equal(restraint_judge(l, &p, 7500 * MS, 501 * MS, 2, true),
			 RESTRAINT_KEEP);
	assert_int_equal(restraint_judge(l, &p, 8000 * MS, 1001 * MS, 2, true),
			 RESTRAINT_RESTRAIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hogs_sharing_two_cpus_qualify,
				       sim_setup),
		cmocka_unit_test_setup(test_half_that_does_not, sim_setup),
		cmocka_unit_test_setup(test_no_pressure_no_restraint,
				       sim_setup),
		cmocka_unit_test_setup(test_whole_cpu_on_a_large_machine,
				       sim_setup),
		cmocka_unit_test_setup(test_qualify_is_continuous, sim_setup),
		cmocka_unit_test_setup(test_release_after_calm_and_hold,
				       sim_setup),
		cmocka_unit_test_setup(test_rate_limit, sim_setup),
		cmocka_unit_test_setup(test_fresh_samples, sim_setup),
	};

	return cmocka_run_group_tests_name("restraint", tests, NULL, NULL);
}
