/* The Windows power backend (lib/windows/knobs.c): the seam over the
 * model of Windows's power schemes (tests/windows/model/) without the
 * overlay calls, and over the real powrprof.dll, which under Wine 8
 * lacks the value index calls: nothing is planned then, and the rest of
 * a rule is not held up by it. The holds engine over the same glue is
 * tests/unit/windows/test_model_power.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "log.h"
#include "model.h"
#include "power.h"
#include "win.h"
#include "winpower.h"

static void plan_of(struct power_plan *plan)
{
	struct rule_power rule = {.min_online = -1, .idle_latency_us = -1};
	struct power_want want;
	struct knobs kn = {0};

	rule.parking = RULE_PARKING_OFF;
	rule.profile = "performance";
	power_want_of(&want, &rule, 20);
	knobs_plan(&kn, &want, NULL, 0, plan);
}

static void test_store(void **state_)
{
	struct power_plan plan = {0};
	char value[JOURNAL_VALUE_MAX], why[256];

	(void)state_;
	model_install(&(struct model_config){.version = MODEL_WINDOWS_10_22H2});
	/* No overlay calls: as on Windows before 10 1709. */
	winapi.PowerGetEffectiveOverlayScheme = NULL;
	winapi.PowerGetActualOverlayScheme = NULL;
	winapi.PowerSetActiveOverlayScheme = NULL;
	plan_of(&plan);
	/* CPMINCORES and CPMINCORES1, AC and DC; no overlay offered. */
	assert_int_equal(plan.count, 4);
	for (size_t i = 0; i < plan.count; i++) {
		assert_true(knobs_valid(NULL, plan.settings[i].key, why,
					sizeof(why)));
		assert_int_equal(
			knobs_read(plan.settings[i].key, value, sizeof(value)),
			OS_OK);
		/* Balanced's core parking: 10 % on AC, 5 % on DC. */
		assert_string_equal(value, strstr(plan.settings[i].key, "/ac")
						   ? "10"
						   : "5");
		assert_int_equal(knobs_write(plan.settings[i].key, "100"),
				 OS_OK);
		assert_int_equal(
			knobs_read(plan.settings[i].key, value, sizeof(value)),
			OS_OK);
		assert_string_equal(value, "100");
	}
	/* Each write to the active scheme set it active again. */
	assert_int_equal(model_calls("PowerSetActiveScheme"), 4);
	assert_int_equal(knobs_read(WINPOWER_KEY_OVERLAY, value, sizeof(value)),
			 OS_UNSUPPORTED);
	assert_int_equal(knobs_order(WINPOWER_KEY_ACTIVE), KNOBS_ORDER_LAST);
	power_plan_free(&plan);
	model_uninstall();
}

/* powrprof as this system has it: where its value index calls are
 * missing (Wine 8), nothing is planned. */
static void test_powrprof(void **state_)
{
	struct power_plan plan = {0};
	char value[JOURNAL_VALUE_MAX];
	enum os_status status;

	(void)state_;
	model_uninstall();
	plan_of(&plan);
	status = knobs_read("/scheme/" WINPOWER_PLAN_BALANCED
			    "/" WINPOWER_SUB_PROCESSOR "/" WINPOWER_CPMINCORES
			    "/ac",
			    value, sizeof(value));
	if (status == OS_UNSUPPORTED)
		assert_int_equal(plan.count, 0);
	power_plan_free(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_powrprof),
	};

	log_init("test_knobs", LOG_LEVEL_ERROR);
	return unit_run("knobs", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
