/* Windows power settings' portable logic (winpower.c) against an
 * in-memory power-scheme store, natively and under Wine: the wants as
 * scheme settings, the overlay and the plan; the keys read, written and
 * checked; the parking figure. The holds engine over the Windows
 * backend's own glue (knobs.c) runs on the model of Windows:
 * tests/unit/windows/test_model_power.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* Every power mode GUID the code writes is one Microsoft documents, as
 * its page spells them (customize-power-slider, winpower.h), and each
 * profile maps to the mode of its name. */
static void test_overlays_documented(void **state_)
{
	static const struct {
		const char *profile, *documented;
	} modes[] = {
		{"max-power", "ded574b5-45a0-4f42-8737-46345c09c238"},
		{"performance", "ded574b5-45a0-4f42-8737-46345c09c238"},
		{"balanced-performance",
		 "3af9B8d9-7c97-431d-ad78-34a8bfea439f"},
		{"cool", "961CC777-2547-4F9D-8174-7D86181b8A7A"},
		{"quiet", "961CC777-2547-4F9D-8174-7D86181b8A7A"},
		{"low-power", "961CC777-2547-4F9D-8174-7D86181b8A7A"},
		/* No overlay: not on that page (winpower.h). */
		{"balanced", "00000000-0000-0000-0000-000000000000"},
	};

	(void)state_;
	assert_true(strcasecmp(WINPOWER_OVERLAY_BEST_PERFORMANCE,
			       modes[0].documented) == 0);
	assert_true(strcasecmp(WINPOWER_OVERLAY_BETTER_PERFORMANCE,
			       modes[2].documented) == 0);
	assert_true(strcasecmp(WINPOWER_OVERLAY_BEST_EFFICIENCY,
			       modes[3].documented) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct rule_power a = powerfix_want();
		struct power_plan plan = {0};
		const char *overlay;

		mem_reset();
		a.profile = modes[i].profile;
		plan_of(&a, &plan);
		overlay = power_plan_find(&plan, WINPOWER_KEY_OVERLAY);
		assert_non_null(overlay);
		if (strcasecmp(overlay, modes[i].documented) != 0)
			fail_msg("profile %s: overlay %s, documented %s",
				 modes[i].profile, overlay,
				 modes[i].documented);
		power_plan_free(&plan);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_overlays_documented),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_min_cores),
	};

	log_init("test_winpower", LOG_LEVEL_ERROR);
	return unit_run("winpower", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
