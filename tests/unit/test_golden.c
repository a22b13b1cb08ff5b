/* Golden tests: every shipped rule file and the shipped config parse
 * cleanly, directory precedence holds, and the normalised form of a rule
 * file matches the stored one. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf.h"
#include "os.h" /* memstream */
#include "rules.h"
#include "util.h"

static void test_shipped_rules_strict(void **state)
{
	char *dirs[] = {SRCDIR "/rules"};
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* the shipped rules are Linux's */
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, dirs, 1, true, &diag), 0);
	diag_print(&diag, stderr, true);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(diag.warnings, 0);
	assert_true(rules.files_read >= 3);
	assert_true(rules.count >= 4);
	diag_free(&diag);
	rules_free(&rules);
}

/* Examples name users that do not exist here (a warning), nothing worse. */
static void test_examples(void **state)
{
	const char *dir = SRCDIR "/rules/examples";
	struct dirent *d;
	size_t files = 0;
	DIR *dp;

	(void)state;
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		char *path = xasprintf("%s/%s", dir, d->d_name);
		struct rules rules;
		struct diag diag;

		if (d->d_name[0] != '.') {
			rules_init(&rules);
			/* windows-*.rules are for Windows, the rest for
			 * Linux, whichever system the test runs on. */
			rules.system = strncmp(d->d_name, "windows-", 8) == 0
					       ? RULES_SYSTEM_WINDOWS
					       : RULES_SYSTEM_LINUX;
			diag_init(&diag);
			assert_int_equal(rules_load_file(&rules, path, &diag),
					 0);
			diag_print(&diag, stderr, false);
			assert_int_equal(diag.errors, 0);
			assert_int_equal(rules.count, 1);
			diag_free(&diag);
			rules_free(&rules);
			files++;
		}
		free(path);
	}
	closedir(dp);
	assert_true(files >= 5);
}

/* The shipped file documents the defaults: it must say what conf_init
 * says. */
static void test_shipped_conf(void **state)
{
	struct conf shipped, defaults;
	struct diag diag;

	(void)state;
	/* The shipped file is Linux's (/etc, /run): Windows's config is the
	 * one cpupolicyd.exe --install writes, with its own places. */
	if (system_native() != RULES_SYSTEM_LINUX)
		skip();
	conf_init(&shipped);
	conf_init(&defaults);
	diag_init(&diag);
	assert_int_equal(conf_load_file(&shipped,
					SRCDIR "/conf/cpupolicyd.conf", true,
					&diag),
			 0);
	diag_print(&diag, stderr, true);
	assert_int_equal(diag.errors + diag.warnings, 0);
	assert_int_equal(shipped.rules_dir_count, defaults.rules_dir_count);
	for (size_t i = 0; i < shipped.rules_dir_count; i++)
		assert_string_equal(shipped.rules_dirs[i],
				    defaults.rules_dirs[i]);
	assert_string_equal(shipped.socket, defaults.socket);
	assert_null(shipped.socket_group);
	assert_string_equal(shipped.state_dir, defaults.state_dir);
	assert_int_equal(shipped.rescan_interval_ms,
			 defaults.rescan_interval_ms);
	assert_int_equal(shipped.events_poll_ms, defaults.events_poll_ms);
	assert_int_equal(shipped.ifeo_mode, defaults.ifeo_mode);
	assert_int_equal(shipped.log_level, defaults.log_level);
	assert_int_equal(shipped.dry_run, defaults.dry_run);
	assert_int_equal(shipped.respect_changes, defaults.respect_changes);
	assert_int_equal(shipped.self_realtime, defaults.self_realtime);
	assert_int_equal(shipped.group_may_reload, defaults.group_may_reload);
	assert_int_equal(shipped.batch_ms, defaults.batch_ms);
	assert_int_equal(shipped.event_buffer_kb, defaults.event_buffer_kb);
	/* The roots are the backend's unless a config names them. */
	assert_null(shipped.sysfs);
	assert_null(shipped.procfs);
	assert_null(shipped.dev);
	assert_int_equal(shipped.power_reassert, defaults.power_reassert);
	assert_int_equal(shipped.parking_latency_us,
			 defaults.parking_latency_us);
	assert_int_equal(memcmp(&shipped.base_power, &defaults.base_power,
				sizeof(shipped.base_power)),
			 0);
	diag_free(&diag);
	conf_free(&shipped);
	conf_free(&defaults);
}

static char *golden_print(const char *name)
{
	struct memstream ms;
	char *path = xasprintf(SRCDIR "/tests/data/golden/%s", name);
	struct rules rules;
	struct diag diag;
	char *text, *out = NULL;
	size_t len, out_len;
	FILE *f;

	assert_int_equal(files_read(path, 1 << 20, &text, &len), OS_OK);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* Linux rule sets */
	diag_init(&diag);
	rules_load_text(&rules, name, text, len, &diag);
	assert_int_equal(diag.errors, 0);
	f = memstream_open(&ms);
	rules_print(&rules, f);
	out = memstream_close(&ms, &out_len);
	diag_free(&diag);
	rules_free(&rules);
	free(text);
	free(path);
	return out;
}

static void test_normalised_form(void **state)
{
	char *expected, *got;
	size_t len;

	(void)state;
	assert_int_equal(files_read(SRCDIR
				    "/tests/data/golden/all-keys.expected",
				    1 << 20, &expected, &len),
			 OS_OK);
	got = golden_print("all-keys.rules");
	assert_string_equal(got, expected);
	free(got);
	free(expected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_rules_strict),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_shipped_conf),
		cmocka_unit_test(test_normalised_form),
	};

	return cmocka_run_group_tests_name("golden", tests, NULL, NULL);
}
