/* Power wants, OS-neutral: several holds combined, the more performant
 * value winning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit.h"

#include "power.h"

static struct rule_power want_of(void)
{
	return (struct rule_power){.min_online = -1, .idle_latency_us = -1};
}

static void test_combine(void **state_)
{
	struct rule_power a = want_of(), b = want_of();
	struct power_want w;

	(void)state_;
	a.governor = "powersave";
	a.epp = "power";
	a.min_online = 50;
	a.turbo = RULE_TURBO_OFF;
	a.idle_latency_us = 100;
	b.governor = "schedutil";
	b.profile = "balanced";
	b.parking = RULE_PARKING_OFF;
	b.turbo = RULE_TURBO_ON;
	power_want_init(&w);
	assert_true(power_want_empty(&w));
	power_want_add(&w, &a, 20);
	power_want_add(&w, &b, 20);
	assert_string_equal(w.governor, "schedutil");
	assert_string_equal(w.epp, "power");
	assert_string_equal(w.profile, "balanced");
	assert_true(w.all_online);
	assert_int_equal(w.min_online, 50);
	assert_int_equal(w.idle_latency_us, 20); /* parking off's cap */
	assert_int_equal(w.turbo, RULE_TURBO_ON);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combine),
	};

	return unit_run("power", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
