/* Linux's default places: the FHS's, as the package installs them. */
#include "unit.h"

#include "os.h"

static void test_defaults(void **state)
{
	(void)state;
	assert_string_equal(paths_rules_dirs(),
			    "/usr/share/cpupolicy/rules.d:/etc/cpupolicy/"
			    "rules.d");
	assert_string_equal(paths_conf_file(),
			    "/etc/cpupolicy/cpupolicyd.conf");
	assert_string_equal(paths_endpoint(), "/run/cpupolicy/cpupolicyd.sock");
	assert_string_equal(paths_state_dir(), "/var/lib/cpupolicy");
	assert_string_equal(paths_list_separators(), ":");
}

static void test_absolute(void **state)
{
	char why[64];

	(void)state;
	assert_true(paths_absolute("/etc"));
	assert_false(paths_absolute("etc"));
	assert_false(paths_absolute("C:\\x"));
	assert_true(paths_endpoint_valid("/run/x.sock", why, sizeof(why)));
	assert_false(paths_endpoint_valid("\\\\.\\pipe\\x", why, sizeof(why)));
	assert_string_equal(why, "is not an absolute path");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_absolute),
	};

	return unit_run("paths", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
