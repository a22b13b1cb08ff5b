/* cpupolicyd --uninstall (policyd/windows/install.c) on the model of
 * Windows: after a crash and a reboot, the power settings the journal
 * holds go back as the service is removed, AC and DC, the plan with
 * them; the journal the config names is the one used. The service
 * manager is Wine's (no such service: nothing to stop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "powerfix.h"
#include "unit.h"

#include "log.h"
#include "model.h"
#include "os.h"
#include "power.h"
#include "win.h"
#include "winpower.h"

static const struct model_config model_win10 = {
	.version = MODEL_WINDOWS_10_22H2,
	.machine = MODEL_MACHINE_64_24,
};

static DWORD value_of(const GUID *scheme, const GUID *setting, bool ac)
{
	DWORD *v = model_power_value(scheme, &model_sub_processor, setting, ac);

	assert_non_null(v);
	return *v;
}

static void assert_parking(const GUID *scheme, DWORD ac, DWORD dc)
{
	/* Both parking settings: CPMINCORES and CPMINCORES1. */
	for (int i = MODEL_POWER_CPMINCORES; i <= MODEL_POWER_CPMINCORES1;
	     i++) {
		const GUID *setting = &model_power_settings[i];

		assert_int_equal(value_of(scheme, setting, true), ac);
		assert_int_equal(value_of(scheme, setting, false), dc);
	}
}

/* The config --uninstall reads, where the service's is, naming the
 * test's state directory; the folder made if the prefix lacks it. */
static void write_conf(void)
{
	const char *conf = paths_conf_file();
	char dir[MAX_PATH * 3];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", conf);
	*strrchr(dir, '\\') = '\0';
	assert_int_equal(statefile_mkdir(dir), OS_OK);
	f = fopen(conf, "wb");
	assert_non_null(f);
	fprintf(f, "[daemon]\nstate_dir = %s\n", powerfix_state);
	assert_int_equal(fclose(f), 0);
}

static void test_uninstall_restores_power(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	model_install(&model_win10);
	powerfix_open(&pw);
	a.parking = RULE_PARKING_OFF;
	a.epp = "performance";
	snprintf(a.plan, sizeof(a.plan), "high-performance");
	powerfix_set(&pw, &a, NULL);
	assert_true(IsEqualGUID(model_power_active(), &model_scheme_high));
	assert_parking(&model_scheme_high, 100, 100);
	powerfix_crash_now(&pw);
	model_reboot();
	assert_parking(&model_scheme_high, 100, 100);
	write_conf();
	assert_int_equal(install_remove(), 0);
	unlink(paths_conf_file());
	assert_parking(&model_scheme_high, 10, 5);
	assert_true(IsEqualGUID(model_power_active(), &model_scheme_balanced));
	assert_false(powerfix_journal_exists());
	/* Again: nothing left to do. */
	assert_int_equal(install_restore_power(paths_conf_file()), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uninstall_restores_power),
	};

	log_init("test_uninstall", LOG_LEVEL_ERROR);
	return unit_run("uninstall", (struct unit_table){0}, UNIT_TESTS(tests),
			powerfix_setup, powerfix_teardown);
}
