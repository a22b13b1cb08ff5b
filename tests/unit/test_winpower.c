/* Windows power settings (winpower.c) against an in-memory power-scheme
 * store, natively and under Wine: the wants as scheme settings, the
 * overlay and the plan; the keys read, written and checked; and the
 * holds engine (apply_power.c) over them with the real journal, the
 * seam (os.h, knobs.c) answered by winpower.c as the Windows backend
 * answers it: conflicting holds, a plan switched and given back, an
 * unwritable setting, someone else's change, and a crash at every step
 * followed by replay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "powerfix.h"
#include "unit.h"

#include "log.h"
#include "os.h"
#include "power.h"
#include "util.h"
#include "winpower.h"

#define HIGH		 "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c"
#define BEST_PERFORMANCE "ded574b5-45a0-4f42-8737-46345c09c238"

/* The store: two schemes, each with the processor settings. */

enum {
	MEM_SCHEMES = 2,
	MEM_SETTINGS = 5
};

static const char *const mem_scheme_ids[MEM_SCHEMES] = {
	WINPOWER_PLAN_BALANCED,
	HIGH,
};
static const char *const mem_setting_ids[MEM_SETTINGS] = {
	WINPOWER_CPMINCORES, WINPOWER_CPMINCORES1,   WINPOWER_PERFEPP,
	WINPOWER_PERFEPP1,   WINPOWER_PERFBOOSTMODE,
};
/* Balanced's defaults, AC then DC: parking at 10 %, EPP 25/50,
 * boost enabled. */
static const unsigned long mem_defaults[MEM_SETTINGS][2] = {
	{10, 5}, {10, 5}, {25, 50}, {25, 50}, {1, 1},
};

static struct mem {
	unsigned long value[MEM_SCHEMES][MEM_SETTINGS][2];
	bool missing[MEM_SETTINGS]; /* not in this Windows */
	bool refuse[MEM_SETTINGS];  /* writes: OS_DENIED */
	char active[WINPOWER_GUID_LEN], overlay[WINPOWER_GUID_LEN];
	unsigned activations;
} mem;

static void mem_reset(void)
{
	mem = (struct mem){0};
	for (int s = 0; s < MEM_SCHEMES; s++) {
		for (int i = 0; i < MEM_SETTINGS; i++) {
			mem.value[s][i][0] = mem_defaults[i][0];
			mem.value[s][i][1] = mem_defaults[i][1];
		}
	}
	snprintf(mem.active, sizeof(mem.active), "%s", WINPOWER_PLAN_BALANCED);
	snprintf(mem.overlay, sizeof(mem.overlay), "%s", WINPOWER_NULL_GUID);
}

static int mem_find(const char *const *ids, int count, const char *id)
{
	for (int i = 0; i < count; i++) {
		if (strcmp(ids[i], id) == 0)
			return i;
	}
	return -1;
}

static unsigned long *mem_slot(const char *scheme, const char *sub,
			       const char *setting, bool ac)
{
	int s = mem_find(mem_scheme_ids, MEM_SCHEMES, scheme);
	int i = mem_find(mem_setting_ids, MEM_SETTINGS, setting);

	if (s < 0 || i < 0 || mem.missing[i] ||
	    strcmp(sub, WINPOWER_SUB_PROCESSOR) != 0)
		return NULL;
	return &mem.value[s][i][ac ? 0 : 1];
}

static enum os_status mem_active(void *ctx, char *guid)
{
	(void)ctx;
	snprintf(guid, WINPOWER_GUID_LEN, "%s", mem.active);
	return OS_OK;
}

static enum os_status mem_activate(void *ctx, const char *guid)
{
	(void)ctx;
	if (mem_find(mem_scheme_ids, MEM_SCHEMES, guid) < 0)
		return OS_GONE;
	snprintf(mem.active, sizeof(mem.active), "%s", guid);
	mem.activations++;
	return OS_OK;
}

static enum os_status mem_read(void *ctx, const char *scheme, const char *sub,
			       const char *setting, bool ac,
			       unsigned long *value)
{
	unsigned long *slot = mem_slot(scheme, sub, setting, ac);

	(void)ctx;
	if (!slot)
		return OS_GONE;
	*value = *slot;
	return OS_OK;
}

static enum os_status mem_write(void *ctx, const char *scheme, const char *sub,
				const char *setting, bool ac,
				unsigned long value)
{
	unsigned long *slot = mem_slot(scheme, sub, setting, ac);
	int i = mem_find(mem_setting_ids, MEM_SETTINGS, setting);

	(void)ctx;
	if (!slot)
		return OS_GONE;
	if (mem.refuse[i])
		return OS_DENIED;
	*slot = value;
	return OS_OK;
}

static enum os_status mem_overlay(void *ctx, char *guid)
{
	(void)ctx;
	snprintf(guid, WINPOWER_GUID_LEN, "%s", mem.overlay);
	return OS_OK;
}

static enum os_status mem_set_overlay(void *ctx, const char *guid)
{
	(void)ctx;
	snprintf(mem.overlay, sizeof(mem.overlay), "%s", guid);
	return OS_OK;
}

static const struct winpower_store mem_store = {
	.active = mem_active,
	.activate = mem_activate,
	.read = mem_read,
	.write = mem_write,
	.overlay = mem_overlay,
	.set_overlay = mem_set_overlay,
};

static unsigned long value_of(const char *scheme, const char *setting, bool ac)
{
	return *mem_slot(scheme, WINPOWER_SUB_PROCESSOR, setting, ac);
}

/* The seam (os.h) as the Windows backend answers it, over the store. */

void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan)
{
	winpower_plan(&mem_store, kn->refused, sizeof(kn->refused), want, held,
		      held_count, plan);
}

void knobs_owned(const struct knobs *kn, struct knobs_owners *owners)
{
	(void)kn;
	*owners = (struct knobs_owners){0};
}

enum os_status knobs_read(const char *key, char *value, size_t size)
{
	return winpower_read(&mem_store, key, value, size);
}

enum os_status knobs_write(const char *key, const char *value)
{
	return winpower_write(&mem_store, key, value);
}

enum knobs_order knobs_order(const char *key)
{
	return winpower_order(key);
}

bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size)
{
	(void)kn;
	return winpower_valid(key, why, size);
}

void knobs_latency_hold(const struct knobs *kn, int *handle, long latency_us)
{
	(void)kn;
	(void)latency_us;
	*handle = -1;
}

void knobs_latency_release(const struct knobs *kn, int *handle)
{
	(void)kn;
	*handle = -1;
}

static void open_power(struct power *pw)
{
	mem_reset();
	powerfix_open(pw);
}

/* Everything as mem_reset left it, and no journal. */
static void assert_originals(void)
{
	for (int s = 0; s < MEM_SCHEMES; s++) {
		for (int i = 0; i < MEM_SETTINGS; i++) {
			assert_int_equal(mem.value[s][i][0],
					 mem_defaults[i][0]);
			assert_int_equal(mem.value[s][i][1],
					 mem_defaults[i][1]);
		}
	}
	assert_string_equal(mem.active, WINPOWER_PLAN_BALANCED);
	assert_string_equal(mem.overlay, WINPOWER_NULL_GUID);
	assert_false(powerfix_journal_exists());
}

static void plan_of(const struct rule_power *a, struct power_plan *plan)
{
	struct power_want want;
	struct knobs kn = {0};

	power_want_of(&want, a, 20);
	winpower_plan(&mem_store, kn.refused, sizeof(kn.refused), &want, NULL,
		      0, plan);
}

static void key_of(char *key, size_t size, const char *scheme,
		   const char *setting, bool ac)
{
	snprintf(key, size, "/scheme/%s/%s/%s/%s", scheme,
		 WINPOWER_SUB_PROCESSOR, setting, ac ? "ac" : "dc");
}

static void assert_planned(const struct power_plan *plan, const char *scheme,
			   const char *setting, const char *value)
{
	char key[160];

	for (int ac = 0; ac < 2; ac++) {
		key_of(key, sizeof(key), scheme, setting, ac);
		assert_non_null(power_plan_find(plan, key));
		assert_string_equal(power_plan_find(plan, key), value);
	}
}

/* The mapping, key by key. */
static void test_plan(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power_plan plan = {0};

	(void)state_;
	mem_reset();
	a.parking = RULE_PARKING_OFF;
	a.epp = "balance_power";
	a.turbo = RULE_TURBO_ON;
	a.profile = "performance";
	plan_of(&a, &plan);
	assert_planned(&plan, WINPOWER_PLAN_BALANCED, WINPOWER_CPMINCORES,
		       "100");
	assert_planned(&plan, WINPOWER_PLAN_BALANCED, WINPOWER_CPMINCORES1,
		       "100");
	assert_planned(&plan, WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP, "75");
	assert_planned(&plan, WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP1, "75");
	assert_planned(&plan, WINPOWER_PLAN_BALANCED, WINPOWER_PERFBOOSTMODE,
		       "2");
	assert_string_equal(power_plan_find(&plan, WINPOWER_KEY_OVERLAY),
			    BEST_PERFORMANCE);
	assert_null(power_plan_find(&plan, WINPOWER_KEY_ACTIVE));
	assert_int_equal(plan.count, 11);
	power_plan_free(&plan);

	/* min_online, turbo off; the overlay not under High performance,
	 * the settings in the plan switched to, the switch first. */
	a = powerfix_want();
	a.min_online = 60;
	a.turbo = RULE_TURBO_OFF;
	a.profile = "low-power";
	snprintf(a.plan, sizeof(a.plan), "high-performance");
	plan_of(&a, &plan);
	assert_string_equal(plan.settings[0].key, WINPOWER_KEY_ACTIVE);
	assert_string_equal(plan.settings[0].value, HIGH);
	assert_planned(&plan, HIGH, WINPOWER_CPMINCORES, "60");
	assert_planned(&plan, HIGH, WINPOWER_PERFBOOSTMODE, "0");
	assert_null(power_plan_find(&plan, WINPOWER_KEY_OVERLAY));
	assert_int_equal(plan.count, 7);
	power_plan_free(&plan);

	/* A setting this Windows lacks is left out. */
	mem.missing[1] = true;
	a = powerfix_want();
	a.parking = RULE_PARKING_OFF;
	plan_of(&a, &plan);
	assert_int_equal(plan.count, 2);
	power_plan_free(&plan);
}

static void test_keys(void **state_)
{
	char key[160], value[JOURNAL_VALUE_MAX], why[256];
	struct winpower_store none = {0};

	(void)state_;
	mem_reset();
	key_of(key, sizeof(key), WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP,
	       false);
	assert_int_equal(winpower_read(&mem_store, key, value, sizeof(value)),
			 OS_OK);
	assert_string_equal(value, "50");
	/* The active scheme's setting takes effect: set active again. */
	assert_int_equal(winpower_write(&mem_store, key, "0"), OS_OK);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP, false), 0);
	assert_int_equal(mem.activations, 1);
	key_of(key, sizeof(key), HIGH, WINPOWER_PERFEPP, true);
	assert_int_equal(winpower_write(&mem_store, key, "7"), OS_OK);
	assert_int_equal(mem.activations, 1);
	assert_int_equal(winpower_write(&mem_store, key, "x"), OS_FAILED);
	assert_true(winpower_valid(key, why, sizeof(why)));
	assert_true(winpower_valid(WINPOWER_KEY_ACTIVE, why, sizeof(why)));
	assert_true(winpower_valid(WINPOWER_KEY_OVERLAY, why, sizeof(why)));
	assert_false(winpower_valid("/sys/devices/system/cpu/cpu1/online", why,
				    sizeof(why)));
	key[strlen(key) - 2] = 'x';
	assert_false(winpower_valid(key, why, sizeof(why)));
	assert_int_equal(winpower_read(&mem_store, key, value, sizeof(value)),
			 OS_GONE);
	assert_int_equal(
		winpower_write(&mem_store, WINPOWER_KEY_ACTIVE, "not-a-guid"),
		OS_FAILED);
	assert_int_equal(winpower_order(WINPOWER_KEY_ACTIVE), KNOBS_ORDER_LAST);
	assert_int_equal(winpower_order(WINPOWER_KEY_OVERLAY),
			 KNOBS_ORDER_FIRST);
	assert_false(winpower_offered(&none, why, sizeof(why)));
	assert_non_null(strstr(why, "PowerGetActiveScheme"));
	assert_true(winpower_offered(&mem_store, why, sizeof(why)));
	assert_string_equal(winpower_plan_guid("balanced"),
			    WINPOWER_PLAN_BALANCED);
	assert_string_equal(winpower_plan_name(HIGH), "high-performance");
	assert_null(winpower_plan_guid("fast"));
	assert_true(
		winpower_plan_parse("{8C5E7FDA-E8BF-4A96-9A85-A6E23A8C635C}",
				    value, sizeof(value)));
	assert_string_equal(value, "high-performance");
	assert_true(winpower_plan_parse("Power-Saver", value, sizeof(value)));
	assert_string_equal(value, "power-saver");
	assert_false(winpower_plan_parse("fast", value, sizeof(value)));
	assert_null(winpower_plan_guid("8C5E7FDA-E8BF-4A96-9A85-A6E23A8C635C"));
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
	assert_string_equal(mem.active, HIGH);
	assert_int_equal(value_of(HIGH, WINPOWER_CPMINCORES1, false), 100);
	assert_int_equal(value_of(HIGH, WINPOWER_PERFEPP, true), 0);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP, true), 25);
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(mem.active, WINPOWER_PLAN_BALANCED);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_CPMINCORES, true),
		30);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP, false), 100);
	/* High performance's settings went back as the plan did. */
	assert_int_equal(value_of(HIGH, WINPOWER_CPMINCORES1, false), 5);
	assert_int_equal(value_of(HIGH, WINPOWER_PERFEPP, true), 25);
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

	(void)state_;
	open_power(&pw);
	mem.refuse[0] = true; /* CPMINCORES */
	a.parking = RULE_PARKING_OFF;
	a.turbo = RULE_TURBO_ON;
	powerfix_set(&pw, &a, NULL);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_CPMINCORES, true),
		10);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_CPMINCORES1, true),
		100);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_PERFBOOSTMODE, false),
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
	unsigned long *slot;

	(void)state_;
	open_power(&pw);
	a.epp = "performance";
	powerfix_set(&pw, &a, NULL);
	slot = mem_slot(WINPOWER_PLAN_BALANCED, WINPOWER_SUB_PROCESSOR,
			WINPOWER_PERFEPP, true);
	*slot = 33;
	apply_power_check(&pw);
	powerfix_set(&pw, NULL, NULL);
	assert_int_equal(*slot, 33);
	assert_int_equal(
		value_of(WINPOWER_PLAN_BALANCED, WINPOWER_PERFEPP, false), 50);
	*slot = 25;
	assert_originals();
	apply_power_close(&pw);
}

/* What a crash at a step leaves of the store (the journal is the
 * fixture's to keep). */
static struct mem crash_mem;

static void crash_keep(void)
{
	crash_mem = mem;
}

static void crash_put_back(void)
{
	mem = crash_mem;
}

static void crash_run(int at)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power pw;

	open_power(&pw);
	powerfix_crash_arm(at, crash_keep, crash_put_back);
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

/* The parking finding's figure: the active scheme's lower class, on the
 * power source asked for, and nothing where neither setting exists. */
static void test_min_cores(void **state_)
{
	const struct winpower_store none = {0};
	int percent = -1;

	(void)state_;
	mem_reset();
	mem.value[0][1][0] = 100; /* Balanced, CPMINCORES1, AC */
	assert_true(winpower_min_cores(&mem_store, true, &percent));
	assert_int_equal(percent, 10);
	assert_true(winpower_min_cores(&mem_store, false, &percent));
	assert_int_equal(percent, 5);
	snprintf(mem.active, sizeof(mem.active), "%s", HIGH);
	mem.value[1][0][0] = 100;
	mem.value[1][1][0] = 60;
	assert_true(winpower_min_cores(&mem_store, true, &percent));
	assert_int_equal(percent, 60);
	mem.missing[1] = true; /* a Windows before hybrid parking */
	assert_true(winpower_min_cores(&mem_store, true, &percent));
	assert_int_equal(percent, 100);
	mem.missing[0] = true;
	assert_false(winpower_min_cores(&mem_store, true, &percent));
	assert_false(winpower_min_cores(&none, true, &percent));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_conflicting_holds),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_someone_else),
		cmocka_unit_test(test_crash_at_each_step),
		cmocka_unit_test(test_min_cores),
	};

	log_init("test_winpower", LOG_LEVEL_ERROR);
	return unit_run("winpower", (struct unit_table){0}, UNIT_TESTS(tests),
			powerfix_setup, powerfix_teardown);
}
