/* The Windows power backend (lib/windows/knobs.c): the seam over an
 * in-memory store put in its place (knobs_store_use), and over the real
 * powrprof.dll, which under Wine 8 lacks the value index calls: nothing
 * is planned then, and the rest of a rule is not held up by it. The
 * holds engine over the same logic is tests/unit/test_winpower.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "log.h"
#include "power.h"
#include "win.h"
#include "winpower.h"

/* One scheme, Balanced, active; every setting starts at 10. */
static struct {
	char keys[16][160];
	unsigned long values[16];
	size_t count;
	unsigned activations;
	char overlay[WINPOWER_GUID_LEN];
} mem;

static unsigned long *mem_value(const char *scheme, const char *sub,
				const char *setting, bool ac)
{
	char key[160];

	snprintf(key, sizeof(key), "%s/%s/%s/%d", scheme, sub, setting, ac);
	for (size_t i = 0; i < mem.count; i++) {
		if (strcmp(mem.keys[i], key) == 0)
			return &mem.values[i];
	}
	if (mem.count == 16 || strcmp(scheme, WINPOWER_PLAN_BALANCED) != 0)
		return NULL;
	snprintf(mem.keys[mem.count], sizeof(mem.keys[0]), "%s", key);
	mem.values[mem.count] = 10;
	return &mem.values[mem.count++];
}

static enum os_status mem_active(void *ctx, char *guid)
{
	(void)ctx;
	snprintf(guid, WINPOWER_GUID_LEN, "%s", WINPOWER_PLAN_BALANCED);
	return OS_OK;
}

static enum os_status mem_activate(void *ctx, const char *guid)
{
	(void)ctx;
	mem.activations++;
	return strcmp(guid, WINPOWER_PLAN_BALANCED) == 0 ? OS_OK : OS_GONE;
}

static enum os_status mem_read(void *ctx, const char *scheme, const char *sub,
			       const char *setting, bool ac,
			       unsigned long *value)
{
	unsigned long *v = mem_value(scheme, sub, setting, ac);

	(void)ctx;
	if (!v)
		return OS_GONE;
	*value = *v;
	return OS_OK;
}

static enum os_status mem_write(void *ctx, const char *scheme, const char *sub,
				const char *setting, bool ac,
				unsigned long value)
{
	unsigned long *v = mem_value(scheme, sub, setting, ac);

	(void)ctx;
	if (!v)
		return OS_GONE;
	*v = value;
	return OS_OK;
}

static const struct winpower_store mem_store = {
	.active = mem_active,
	.activate = mem_activate,
	.read = mem_read,
	.write = mem_write,
	/* No overlay calls: as on Windows before 10 1709. */
};

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
	memset(&mem, 0, sizeof(mem));
	knobs_store_use(&mem_store);
	plan_of(&plan);
	/* CPMINCORES and CPMINCORES1, AC and DC; no overlay offered. */
	assert_int_equal(plan.count, 4);
	for (size_t i = 0; i < plan.count; i++) {
		assert_true(knobs_valid(NULL, plan.settings[i].key, why,
					sizeof(why)));
		assert_int_equal(
			knobs_read(plan.settings[i].key, value, sizeof(value)),
			OS_OK);
		assert_string_equal(value, "10");
		assert_int_equal(knobs_write(plan.settings[i].key, "100"),
				 OS_OK);
		assert_int_equal(
			knobs_read(plan.settings[i].key, value, sizeof(value)),
			OS_OK);
		assert_string_equal(value, "100");
	}
	assert_int_equal(mem.activations, 4);
	assert_int_equal(knobs_read(WINPOWER_KEY_OVERLAY, value, sizeof(value)),
			 OS_UNSUPPORTED);
	assert_int_equal(knobs_order(WINPOWER_KEY_ACTIVE), KNOBS_ORDER_LAST);
	power_plan_free(&plan);
	knobs_store_use(NULL);
}

/* powrprof as this system has it: where its value index calls are
 * missing (Wine 8), nothing is planned. */
static void test_powrprof(void **state_)
{
	struct power_plan plan = {0};
	char value[JOURNAL_VALUE_MAX];
	enum os_status status;

	(void)state_;
	knobs_store_use(NULL);
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
