/* saturate --compare --restraint's pure half (ctl/saturate_restraint_report.c):
 * the option sets it refuses, a trial's figures from fed frames and
 * counts, the arms' medians and paired differences, what counts as
 * lowered, and the report's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "saturate_compare.h"

struct refusal_case {
	const char *name;
	struct saturate_opts o;
	const char *want; /* a word of the refusal; NULL: accepted */
};

static const struct refusal_case refusal_cases[] = {
	{"refusal: --restraint alone is accepted", {.restraint = true}, NULL},
	{"refusal: --restraint with --pairs 1 and --user",
	 {.restraint = true, .pairs = 1, .user = "u"},
	 NULL},
	{"refusal: --user without --restraint", {.user = "u"}, "--user"},
	{"refusal: a body and --restraint",
	 {.restraint = true, .compare = "priority = {};"},
	 "not both"},
	{"refusal: --threads", {.restraint = true, .threads = 2}, "--threads"},
	{"refusal: --work", {.restraint = true, .work_set = true}, "--work"},
	{"refusal: --background",
	 {.restraint = true, .background = 1},
	 "--background"},
	{"refusal: --probe", {.restraint = true, .probe = true}, "--probe"},
	{"refusal: --seconds under 3",
	 {.restraint = true, .seconds = 2.9},
	 "3 s at least"},
	{"refusal: --seconds 3 is enough",
	 {.restraint = true, .seconds = 3},
	 NULL},
	{"refusal: a plain --compare is not its affair",
	 {.compare = "x", .pairs = 3},
	 NULL},
};

static void test_refusal_case(void **state)
{
	const struct refusal_case *c = *state;
	const char *got = saturate_restraint_report_refusal(&c->o, false);

	if (!c->want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	if (!strstr(got, c->want))
		fail_msg("'%s' does not say '%s'", got, c->want);
}

static void test_times(void **state)
{
	struct saturate_restraint_times t;

	(void)state;
	saturate_restraint_report_times(1000000000LL, 6, &t);
	assert_true(t.start == 1050000000LL);
	assert_true(t.hogs == t.start + 1000000000LL);
	assert_true(t.from == t.hogs + 1000000000LL);
	assert_true(t.stop == t.start + 6000000000LL);
}

static void test_lowered(void **state)
{
	struct prio_state p = {.nice = 0, .policy = RULE_POLICY_OTHER};

	(void)state;
	assert_false(saturate_restraint_report_lowered(&p));
	p.nice = 10;
	assert_true(saturate_restraint_report_lowered(&p));
	p = (struct prio_state){.policy = RULE_POLICY_BATCH};
	assert_true(saturate_restraint_report_lowered(&p));
	p = (struct prio_state){.policy = RULE_POLICY_IDLE};
	assert_true(saturate_restraint_report_lowered(&p));
	p = (struct prio_state){.nice = -5, .policy = RULE_POLICY_OTHER};
	assert_false(saturate_restraint_report_lowered(&p));
}

/* Ten frames a period of 10 ns apart from 0; the window [40, 100): the
 * frames due at 40 .. 90, of which the one due at 50 is 7 late, the one
 * at 70 unfinished (late by the stop, 100 - 70), the rest on time. */
static void test_trial(void **state)
{
	struct frames_frame f[10];
	struct saturate_restraint_times t = {0, 20, 40, 100};
	struct saturate_restraint_counts from = {1000, 500000000LL};
	struct saturate_restraint_counts to = {1000 + 6000, 500000000LL + 90};
	struct saturate_restraint_trial out;

	(void)state;
	for (int i = 0; i < 10; i++)
		f[i] = (struct frames_frame){(i + 1) * 10, (i + 1) * 10 - 1};
	f[4].finish_ns = 57; /* due 50 */
	f[6].finish_ns = 0;  /* due 70 */
	saturate_restraint_report_trial(f, 10, &t, &from, &to, 35, &out);
	assert_int_equal(out.frames, 6);
	assert_int_equal(out.missed, 2);
	assert_true(out.p50_ns == 0); /* 0 0 0 0 7 30: index 6 * 0.5 */
	assert_true(out.p99_ns == 30);
	assert_true(out.relief_ns == 15);
	/* 6000 spins and 90 ns of CPU over 60 ns. */
	assert_true(out.spins_s > 0.99e11 && out.spins_s < 1.01e11);
	assert_true(out.cpus > 1.49 && out.cpus < 1.51);
	saturate_restraint_report_trial(f, 10, &t, &from, &to, 0, &out);
	assert_true(out.relief_ns == -1);
}

static struct saturate_restraint_trial trial(int missed, double p99_ms,
					     long long relief_ns)
{
	return (struct saturate_restraint_trial){
		.frames = 100,
		.missed = missed,
		.p50_ns = 1000000,
		.p99_ns = (long long)(p99_ms * 1e6),
		.spins_s = 2e6,
		.cpus = 1.5,
		.relief_ns = relief_ns,
	};
}

/* Three pairs: the medians of each arm and of the differences. */
static void test_summary(void **state)
{
	struct saturate_restraint_trial a[3] = {
		trial(90, 800, -1), trial(95, 900, -1), trial(99, 1000, -1)};
	struct saturate_restraint_trial b[3] = {trial(10, 50, 800000000),
						trial(0, 30, 1200000000),
						trial(5, 40, -1)};
	struct saturate_restraint_summary s;

	(void)state;
	assert_int_equal(saturate_restraint_report_summarise(a, b, 0, &s), -1);
	assert_int_equal(saturate_restraint_report_summarise(a, b, 3, &s), 0);
	assert_true(s.median[0][SATURATE_RESTRAINT_MISSED] == 95);
	assert_true(s.median[1][SATURATE_RESTRAINT_MISSED] == 5);
	/* b - a: -80 -95 -94: the median -94, the whole range with 3 pairs
	 * (a 75 % interval). */
	assert_true(s.diff[SATURATE_RESTRAINT_MISSED].median == -94);
	assert_true(s.diff[SATURATE_RESTRAINT_MISSED].low == -95);
	assert_true(s.diff[SATURATE_RESTRAINT_MISSED].high == -80);
	assert_true(s.diff[SATURATE_RESTRAINT_MISSED].level == 0.75);
	assert_true(s.median[1][SATURATE_RESTRAINT_P99] == 40);
	assert_true(s.diff[SATURATE_RESTRAINT_SPINS].median == 0);
	assert_int_equal(s.frames[0], 300);
	assert_int_equal(s.missed[0], 284);
	assert_int_equal(s.missed[1], 15);
	assert_int_equal(s.relief_trials[0], 0);
	assert_int_equal(s.relief_trials[1], 2);
	assert_true(s.relief_s[1] == 1.0); /* of 0.8 and 1.2 */
	assert_int_equal(s.task_restrained, 0);
}

static void test_text(void **state)
{
	struct saturate_restraint_trial a[1] = {trial(90, 800, -1)};
	struct saturate_restraint_trial b[1] = {trial(10, 50, 500000000)};
	struct saturate_restraint_setup su = {1, 4, 6, "someone", false};
	struct saturate_restraint_summary s;
	char buf[4096] = "";
	FILE *out = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	assert_non_null(out);
	saturate_restraint_report_summarise(a, b, 1, &s);
	saturate_restraint_report_text(&su, &s, out);
	fclose(out);
	assert_non_null(strstr(buf, "A restraint paused, B restraint on"));
	assert_non_null(strstr(buf, "1 pair of 6.0 s trials"));
	assert_non_null(strstr(buf, "A first in 1, B first in 0"));
	assert_non_null(strstr(buf, "frames missed     A    90.0 %, B    10.0 "
				    "%; B-A -80.0 points"));
	assert_non_null(strstr(buf, "A none in 1 trial; B 0.50 s"));
	assert_non_null(strstr(buf, "never restrained"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times), cmocka_unit_test(test_lowered),
		cmocka_unit_test(test_trial), cmocka_unit_test(test_summary),
		cmocka_unit_test(test_text),
	};

	return unit_run("saturate_restraint",
			UNIT_TABLE(refusal_cases, test_refusal_case),
			UNIT_TESTS(tests), NULL, NULL);
}
