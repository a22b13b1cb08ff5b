/* The holds engine (apply_power.c) with the real journal over the
 * Windows backend's own power glue (lib/windows/knobs.c), which calls
 * powrprof through winapi.h's table, here the model of Windows's power
 * schemes (tests/windows/model/): conflicting holds, a plan switched
 * and given back, an unwritable setting, someone else's change, and a
 * crash at every step followed by replay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "powerfix.h"
#include "unit.h"

#include "log.h"
#include "model.h"
#include "os.h"
#include "power.h"
#include "win.h"
#include "winpower.h"

static const struct model_config model_win11 = {
	.version = MODEL_WINDOWS_11_24H2,
	.machine = MODEL_MACHINE_HYBRID_6P8E,
};

static GUID guid_of(const char *text)
{
	unsigned long d1;
	unsigned d2, d3, d4[8];
	GUID g;

	assert_int_equal(sscanf(text, "%8lx-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x",
				&d1, &d2, &d3, &d4[0], &d4[1], &d4[2], &d4[3],
				&d4[4], &d4[5], &d4[6], &d4[7]),
			 11);
	g.Data1 = d1;
	g.Data2 = (WORD)d2;
	g.Data3 = (WORD)d3;
	for (int i = 0; i < 8; i++)
		g.Data4[i] = (BYTE)d4[i];
	return g;
}

static DWORD value_of(const GUID *scheme, const char *setting, bool ac)
{
	GUID s = guid_of(setting);
	DWORD *v = model_power_value(scheme, &model_sub_processor, &s, ac);

	assert_non_null(v);
	return *v;
}

static void open_power(struct power *pw)
{
	model_install(&model_win11);
	powerfix_open(pw);
}

static const char *const settings[] = {
	WINPOWER_CPMINCORES, WINPOWER_CPMINCORES1,   WINPOWER_PERFEPP,
	WINPOWER_PERFEPP1,   WINPOWER_PERFBOOSTMODE,
};
/* The model's defaults, AC then DC (model_power.c). */
static const DWORD defaults[][2] = {
	{10, 5}, {10, 5}, {25, 50}, {25, 50}, {1, 1},
};

/* Every scheme's settings as the model starts, Balanced active, no
 * overlay, and no journal. */
static void assert_originals(void)
{
	const GUID *schemes[] = {&model_scheme_balanced, &model_scheme_high,
				 &model_scheme_saver};

	for (size_t s = 0; s < ARRAYSIZE(schemes); s++) {
		for (size_t i = 0; i < ARRAYSIZE(settings); i++) {
			assert_int_equal(
				value_of(schemes[s], settings[i], true),
				defaults[i][0]);
			assert_int_equal(
				value_of(schemes[s], settings[i], false),
				defaults[i][1]);
		}
	}
	assert_true(IsEqualGUID(model_power_active(), &model_scheme_balanced));
	assert_true(
		IsEqualGUID(model_power_overlay(true), &model_overlay_none));
	assert_false(powerfix_journal_exists());
}

/* Two holds: the more performant value wins; each given back as its
 * last holder goes, the originals at the end. */
static void test_conflicting_holds(void **state_)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.min_online = 30;
	a.epp = "power";
	snprintf(a.plan, sizeof(a.plan), "balanced");
	b.parking = RULE_PARKING_OFF;
	b.epp = "performance";
	snprintf(b.plan, sizeof(b.plan), "high-performance");
	powerfix_set(&pw, &a, &b);
	assert_true(IsEqualGUID(model_power_active(), &model_scheme_high));
	assert_int_equal(
		value_of(&model_scheme_high, WINPOWER_CPMINCORES1, false), 100);
	assert_int_equal(value_of(&model_scheme_high, WINPOWER_PERFEPP, true),
			 0);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_PERFEPP, true), 25);
	powerfix_set(&pw, &a, NULL);
	assert_true(IsEqualGUID(model_power_active(), &model_scheme_balanced));
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_CPMINCORES, true),
		30);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_PERFEPP, false), 100);
	/* High performance's settings went back as the plan did. */
	assert_int_equal(
		value_of(&model_scheme_high, WINPOWER_CPMINCORES1, false), 5);
	assert_int_equal(value_of(&model_scheme_high, WINPOWER_PERFEPP, true),
			 25);
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

/* A setting that refuses writes is left as it is; the rest applies, and
 * nothing of it stays in the journal. */
static void test_unwritable(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	GUID cpmincores = guid_of(WINPOWER_CPMINCORES);

	(void)state_;
	open_power(&pw);
	model_power_refuse(&cpmincores, true);
	a.parking = RULE_PARKING_OFF;
	a.turbo = RULE_TURBO_ON;
	powerfix_set(&pw, &a, NULL);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_CPMINCORES, true),
		10);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_CPMINCORES1, true),
		100);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_PERFBOOSTMODE, false),
		2);
	assert_int_equal(pw.journal.count, 4); /* CPMINCORES1, boost */
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

/* Someone else's value is theirs: not restored. */
static void test_someone_else(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	GUID epp = guid_of(WINPOWER_PERFEPP);
	DWORD *slot;

	(void)state_;
	open_power(&pw);
	a.epp = "performance";
	powerfix_set(&pw, &a, NULL);
	slot = model_power_value(&model_scheme_balanced, &model_sub_processor,
				 &epp, true);
	*slot = 33;
	apply_power_check(&pw);
	powerfix_set(&pw, NULL, NULL);
	assert_int_equal(*slot, 33);
	assert_int_equal(
		value_of(&model_scheme_balanced, WINPOWER_PERFEPP, false), 50);
	*slot = 25;
	assert_originals();
	apply_power_close(&pw);
}

static void crash_run(int at)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power pw;

	open_power(&pw);
	powerfix_crash_arm(at, model_power_keep, model_power_put_back);
	pw.step_hook = powerfix_crash_hook;
	a.min_online = 50;
	a.profile = "performance";
	b.parking = RULE_PARKING_OFF;
	b.epp = "performance";
	powerfix_set(&pw, &a, NULL);
	powerfix_set(&pw, &a, &b);
	snprintf(b.plan, sizeof(b.plan), "high-performance");
	powerfix_set(&pw, &a, &b);
	powerfix_set(&pw, &a, NULL);
	powerfix_set(&pw, NULL, NULL);
	apply_power_close(&pw);
}

/* A crash at every step of a run, then the next start's replay: the
 * originals back, AC and DC, the overlay and the plan included. */
static void test_crash_at_each_step(void **state_)
{
	int steps;

	(void)state_;
	crash_run(-1);
	steps = powerfix_crash.steps;
	assert_originals();
	assert_true(steps > 10);
	for (int step = 1; step <= steps; step++) {
		crash_run(step);
		assert_true(powerfix_crash.kept);
		powerfix_crash_restore();
		assert_true(powerfix_replay() >= 0);
		assert_originals();
		assert_int_equal(powerfix_replay(), 0);
	}
}

/* The parking finding's figure through knobs.c: the active scheme's
 * CPMINCORES on the power source GetSystemPowerStatus reports. */
static void test_min_cores(void **state_)
{
	struct model_config dc = model_win11;
	int percent = -1;

	(void)state_;
	model_install(&model_win11);
	assert_true(knobs_min_cores(&percent));
	assert_int_equal(percent, 10);
	dc.on_battery = true;
	model_install(&dc);
	assert_true(knobs_min_cores(&percent));
	assert_int_equal(percent, 5);
	assert_true(model_calls("GetSystemPowerStatus") > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conflicting_holds),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_someone_else),
		cmocka_unit_test(test_crash_at_each_step),
		cmocka_unit_test(test_min_cores),
	};

	log_init("test_model_power", LOG_LEVEL_ERROR);
	return unit_run("model_power", (struct unit_table){0},
			UNIT_TESTS(tests), powerfix_setup, powerfix_teardown);
}
