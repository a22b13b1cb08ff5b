/* Windows's places and names: %ProgramData%\cpupolicy\, ';' between
 * directories, drive letters and UNC paths absolute, the control
 * endpoint a pipe of this machine. */
#include <string.h>

#include "unit.h"

#include "os.h"

struct path_case {
	const char *name;
	const char *path;
	bool absolute;
};

static const struct path_case path_cases[] = {
	{"drive, backslash", "C:\\ProgramData", true},
	{"drive, slash", "c:/x", true},
	{"UNC", "\\\\server\\share\\x", true},
	{"long path prefix", "\\\\?\\C:\\x", true},
	{"drive-relative", "C:x", false},
	{"root of the current drive", "\\x", false},
	{"relative", "rules.d", false},
	{"unix", "/etc/cpupolicy", false},
	{"two slashes alone", "\\\\", false},
	{"three slashes", "\\\\\\x", false},
};

static void test_path_case(void **state)
{
	const struct path_case *c = *state;

	assert_int_equal(paths_absolute(c->path), c->absolute);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

static void test_defaults(void **state)
{
	(void)state;
	assert_true(paths_absolute(paths_conf_file()));
	assert_true(
		ends_with(paths_conf_file(), "\\cpupolicy\\cpupolicyd.conf"));
	assert_true(ends_with(paths_rules_dirs(), "\\cpupolicy\\rules.d"));
	assert_true(ends_with(paths_state_dir(), "\\cpupolicy\\state"));
	assert_string_equal(paths_endpoint(), "\\\\.\\pipe\\cpupolicy");
	assert_string_equal(paths_list_separators(), ";");
}

static void test_endpoint(void **state)
{
	char why[128];

	(void)state;
	assert_true(paths_endpoint_valid("\\\\.\\pipe\\x", why, sizeof(why)));
	assert_true(paths_endpoint_valid("\\\\.\\PIPE\\x", why, sizeof(why)));
	assert_false(paths_endpoint_valid("\\\\.\\pipe\\", why, sizeof(why)));
	assert_false(
		paths_endpoint_valid("\\\\server\\pipe\\x", why, sizeof(why)));
	assert_false(paths_endpoint_valid("/run/x.sock", why, sizeof(why)));
	assert_non_null(strstr(why, "not a pipe name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_endpoint),
	};

	return unit_run("paths", UNIT_TABLE(path_cases, test_path_case),
			UNIT_TESTS(tests), NULL, NULL);
}
