/* Windows priority without the system: GetPriorityClass's values and the
 * core's states, and what a rule made for Windows asks of a thread (its
 * class, its level, its process's EcoQoS), each in the rule's direction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "prio.h"
#include "win.h"

static const DWORD classes[] = {
	IDLE_PRIORITY_CLASS,   BELOW_NORMAL_PRIORITY_CLASS,
	NORMAL_PRIORITY_CLASS, ABOVE_NORMAL_PRIORITY_CLASS,
	HIGH_PRIORITY_CLASS,   REALTIME_PRIORITY_CLASS,
};

static void test_classes_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++) {
		struct prio_state s = {0};

		apply_prio_state_of_class(classes[i], &s);
		assert_true(s.windows);
		assert_int_equal(apply_prio_class_of_state(&s), classes[i]);
	}
}

static void test_class_values(void **state)
{
	struct prio_state s = {0};

	(void)state;
	apply_prio_state_of_class(HIGH_PRIORITY_CLASS, &s);
	assert_int_equal(s.nice, -10);
	assert_int_equal(s.policy, RULE_POLICY_OTHER);
	apply_prio_state_of_class(IDLE_PRIORITY_CLASS, &s);
	assert_int_equal(s.policy, RULE_POLICY_IDLE);
	apply_prio_state_of_class(REALTIME_PRIORITY_CLASS, &s);
	assert_int_equal(s.policy, RULE_POLICY_RR);
	assert_int_equal(s.rt_priority, 1);
	/* An unknown value reads as normal. */
	apply_prio_state_of_class(0x12345, &s);
	assert_int_equal(apply_prio_class_of_state(&s), NORMAL_PRIORITY_CLASS);
}

/* A nice between the classes' goes to the nearest class, a tie to the
 * lower one. */
static void test_nearest_class(void **state)
{
	static const struct {
		int nice;
		DWORD klass;
	} cases[] = {
		{19, IDLE_PRIORITY_CLASS},
		{15, IDLE_PRIORITY_CLASS},
		{14, BELOW_NORMAL_PRIORITY_CLASS},
		{5, BELOW_NORMAL_PRIORITY_CLASS},
		{4, NORMAL_PRIORITY_CLASS},
		{-2, NORMAL_PRIORITY_CLASS},
		{-3, ABOVE_NORMAL_PRIORITY_CLASS},
		{-7, ABOVE_NORMAL_PRIORITY_CLASS},
		{-8, HIGH_PRIORITY_CLASS},
		{-20, HIGH_PRIORITY_CLASS},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct prio_state s = {.nice = cases[i].nice,
				       .policy = RULE_POLICY_OTHER};

		if (apply_prio_class_of_state(&s) != cases[i].klass)
			fail_msg("nice %d: class 0x%lx", cases[i].nice,
				 (unsigned long)apply_prio_class_of_state(&s));
	}
}

struct expect_case {
	const char *name;
	struct rule_priority rule;
	DWORD before_class;
	int before_level;
	enum rule_efficiency before_efficiency;
	DWORD class;
	int level;
	enum rule_efficiency efficiency;
};

#define RULE_OF(c, t, e)                                                       \
	{                                                                      \
		.class = RULE_CLASS_##c, .thread = RULE_THREAD_##t,            \
		.efficiency_mode = RULE_EFFICIENCY_##e, .io_level = -1         \
	}

static const struct expect_case expect_cases[] = {
	{"the inference engine's H group: high, highest",
	 RULE_OF(HIGH, HIGHEST, UNSET), NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_UNSET, HIGH_PRIORITY_CLASS, 2, RULE_EFFICIENCY_UNSET},
	{"the 24H2 cure without a class: EcoQoS off",
	 RULE_OF(UNSET, UNSET, OFF), NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_SYSTEM, NORMAL_PRIORITY_CLASS, 0, RULE_EFFICIENCY_OFF},
	{"above-normal keeps a higher class",
	 RULE_OF(ABOVE_NORMAL, UNSET, UNSET), HIGH_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_UNSET, HIGH_PRIORITY_CLASS, 0, RULE_EFFICIENCY_UNSET},
	{"idle lowers", RULE_OF(IDLE, LOWEST, UNSET), NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_UNSET, IDLE_PRIORITY_CLASS, -2, RULE_EFFICIENCY_UNSET},
	{"a lowering level keeps a lower one",
	 RULE_OF(UNSET, BELOW_NORMAL, UNSET), NORMAL_PRIORITY_CLASS, -15,
	 RULE_EFFICIENCY_UNSET, NORMAL_PRIORITY_CLASS, -15,
	 RULE_EFFICIENCY_UNSET},
	{"a raising level keeps a higher one",
	 RULE_OF(UNSET, ABOVE_NORMAL, UNSET), NORMAL_PRIORITY_CLASS, 2,
	 RULE_EFFICIENCY_UNSET, NORMAL_PRIORITY_CLASS, 2,
	 RULE_EFFICIENCY_UNSET},
	{"time-critical", RULE_OF(UNSET, TIME_CRITICAL, UNSET),
	 NORMAL_PRIORITY_CLASS, 0, RULE_EFFICIENCY_UNSET, NORMAL_PRIORITY_CLASS,
	 15, RULE_EFFICIENCY_UNSET},
	{"EcoQoS on lowers, an opt-out too", RULE_OF(UNSET, UNSET, ON),
	 NORMAL_PRIORITY_CLASS, 0, RULE_EFFICIENCY_OFF, NORMAL_PRIORITY_CLASS,
	 0, RULE_EFFICIENCY_ON},
	{"EcoQoS off raises the system's choice", RULE_OF(UNSET, UNSET, OFF),
	 NORMAL_PRIORITY_CLASS, 0, RULE_EFFICIENCY_ON, NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_OFF},
	{"system lowers nothing below it", RULE_OF(UNSET, UNSET, SYSTEM),
	 NORMAL_PRIORITY_CLASS, 0, RULE_EFFICIENCY_ON, NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_ON},
	{"realtime", RULE_OF(REALTIME, UNSET, UNSET), NORMAL_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_UNSET, REALTIME_PRIORITY_CLASS, 0,
	 RULE_EFFICIENCY_UNSET},
};

static void test_expect_case(void **state)
{
	const struct expect_case *c = *state;
	struct prio_target target;
	struct prio_state before = {0}, after;

	prio_target_for_system(&c->rule, RULES_SYSTEM_WINDOWS, &target);
	assert_false(prio_target_empty(&target));
	apply_prio_state_of_class(c->before_class, &before);
	before.thread_level = c->before_level;
	before.efficiency = c->before_efficiency;
	prio_expected(&target, &before, &after);
	if (apply_prio_class_of_state(&after) != c->class ||
	    after.thread_level != c->level || after.efficiency != c->efficiency)
		fail_msg("%s: class 0x%lx, level %d, efficiency %d", c->name,
			 (unsigned long)apply_prio_class_of_state(&after),
			 after.thread_level, after.efficiency);
}

/* The same rule for Linux moves nice and leaves the Windows fields. */
static void test_linux_target_unchanged(void **state)
{
	const struct rule_priority rule = RULE_OF(HIGH, HIGHEST, OFF);
	struct prio_target linux_target, from_rule;
	struct prio_state before = {0}, after;

	(void)state;
	prio_target_for_system(&rule, RULES_SYSTEM_LINUX, &linux_target);
	prio_target_from_rule(&rule, &from_rule);
	assert_memory_equal(&linux_target, &from_rule, sizeof(from_rule));
	assert_false(linux_target.windows);
	assert_int_equal(linux_target.nice, -14);
	prio_expected(&linux_target, &before, &after);
	assert_int_equal(after.thread_level, 0);
	assert_int_equal(after.efficiency, RULE_EFFICIENCY_UNSET);
}

static void test_describe(void **state)
{
	struct prio_state s = {0};
	char text[128];

	(void)state;
	apply_prio_state_of_class(HIGH_PRIORITY_CLASS, &s);
	s.thread_level = 2;
	s.efficiency = RULE_EFFICIENCY_OFF;
	prio_describe_state(&s, text, sizeof(text));
	assert_string_equal(text,
			    "class high, thread highest, efficiency_mode off");
}

static void test_describe_target(void **state)
{
	const struct rule_priority h = RULE_OF(HIGH, HIGHEST, UNSET),
				   eco = RULE_OF(UNSET, UNSET, OFF);
	struct prio_target t;
	char text[128];

	(void)state;
	prio_target_for_system(&h, RULES_SYSTEM_WINDOWS, &t);
	prio_describe_target(&t, text, sizeof(text));
	assert_string_equal(text, "class high, thread highest");
	prio_target_for_system(&eco, RULES_SYSTEM_WINDOWS, &t);
	prio_describe_target(&t, text, sizeof(text));
	assert_string_equal(text, "efficiency_mode off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_round_trip),
		cmocka_unit_test(test_class_values),
		cmocka_unit_test(test_nearest_class),
		cmocka_unit_test(test_linux_target_unchanged),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_describe_target),
	};

	return unit_run("apply_prio",
			UNIT_TABLE(expect_cases, test_expect_case),
			UNIT_TESTS(tests), NULL, NULL);
}
