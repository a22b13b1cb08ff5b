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

static void assert_parking(DWORD ac, DWORD dc)
{
	const char *const parking[] = {WINPOWER_CPMINCORES,
				       WINPOWER_CPMINCORES1};

	for (size_t i = 0; i < ARRAYSIZE(parking); i++) {
		assert_int_equal(
			value_of(&model_scheme_balanced, parking[i], true), ac);
		assert_int_equal(
			value_of(&model_scheme_balanced, parking[i], false),
			dc);
	}
}

/* The parking cure across a power loss: parking off held, the daemon
 * gone without giving it back, the machine rebooted (Windows keeps the
 * power settings in the registry, so CPMINCORES stays at 100 %), the
 * daemon started: every core parking minimum back to its original, AC
 * and DC. */
static void test_parking_across_reboot(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	ULONGLONG boot;

	(void)state_;
	open_power(&pw);
	a.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, NULL);
	assert_parking(100, 100);
	powerfix_crash_now(&pw);
	boot = model_boot_of();
	model_reboot();
	assert_true(model_boot_of() != boot);
	assert_parking(100, 100);
	assert_int_equal(powerfix_replay(), 4);
	assert_parking(10, 5);
	assert_originals();
	assert_true(model_calls("NtQuerySystemInformation("
				"SystemTimeOfDayInformation)") > 0);
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
	b.turbo = RULE_TURBO_ON;
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

/* A crash at every step of the same run, then a reboot, then the next
 * start: the journal is an earlier boot's, and every setting in it
 * outlives a reboot on Windows, so all are restored: parking, EPP and
 * boost AC and DC, the overlay and the plan. */
static void test_crash_and_reboot_at_each_step(void **state_)
{
	int steps;

	(void)state_;
	crash_run(-1);
	steps = powerfix_crash.steps;
	for (int step = 1; step <= steps; step++) {
		crash_run(step);
		assert_true(powerfix_crash.kept);
		powerfix_crash_restore();
		model_reboot();
		assert_true(powerfix_replay() >= 0);
		assert_originals();
		assert_int_equal(powerfix_replay(), 0);
	}
}

/* The overlay read through the getter of what its setter sets: with
 * battery saver on, the mode in force (Better Battery) is not the one
 * set, and is neither journaled as the original nor left behind. */
static void test_overlay_battery_saver(void **state_)
{
	struct model_config saver = model_win11;
	struct rule_power a = powerfix_want();
	struct journal_entry *e;
	struct power pw;

	(void)state_;
	saver.on_battery = true;
	saver.battery_saver = true;
	model_install(&saver);
	powerfix_open(&pw);
	a.profile = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_true(IsEqualGUID(model_power_overlay(false),
				&model_overlay_best_performance));
	e = journal_find(&pw.journal, WINPOWER_KEY_OVERLAY);
	assert_non_null(e);
	assert_string_equal(e->original, WINPOWER_NULL_GUID);
	assert_true(model_calls("PowerGetActualOverlayScheme") > 0);
	powerfix_set(&pw, NULL, NULL);
	assert_true(
		IsEqualGUID(model_power_overlay(false), &model_overlay_none));
	assert_false(powerfix_journal_exists());
	apply_power_close(&pw);
}

/* Different modes on AC and DC: the one of the power source in use is
 * held and given back, the other is left as it was. */
static void test_overlay_ac_dc(void **state_)
{
	struct model_config dc = model_win11;
	struct rule_power a = powerfix_want();
	struct journal_entry *e;
	struct power pw;

	(void)state_;
	dc.on_battery = true;
	model_install(&dc);
	model_power_set_overlay(true, &model_overlay_best_performance);
	model_power_set_overlay(false, &model_overlay_better_battery);
	powerfix_open(&pw);
	a.profile = "balanced-performance";
	powerfix_set(&pw, &a, NULL);
	e = journal_find(&pw.journal, WINPOWER_KEY_OVERLAY);
	assert_non_null(e);
	assert_string_equal(e->original, WINPOWER_OVERLAY_BEST_EFFICIENCY);
	assert_string_equal(e->ours, WINPOWER_OVERLAY_BETTER_PERFORMANCE);
	assert_true(IsEqualGUID(model_power_overlay(true),
				&model_overlay_best_performance));
	powerfix_set(&pw, NULL, NULL);
	assert_true(IsEqualGUID(model_power_overlay(false),
				&model_overlay_better_battery));
	assert_true(IsEqualGUID(model_power_overlay(true),
				&model_overlay_best_performance));
	assert_false(powerfix_journal_exists());
	apply_power_close(&pw);
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
		cmocka_unit_test(test_parking_across_reboot),
		cmocka_unit_test(test_crash_and_reboot_at_each_step),
		cmocka_unit_test(test_overlay_battery_saver),
		cmocka_unit_test(test_overlay_ac_dc),
		cmocka_unit_test(test_min_cores),
	};

	log_init("test_model_power", LOG_LEVEL_ERROR);
	return unit_run("model_power", (struct unit_table){0},
			UNIT_TESTS(tests), powerfix_setup, powerfix_teardown);
}
