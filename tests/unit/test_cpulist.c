/* CPU lists in the kernel's notation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "cpulist.h"

struct cpulist_case {
	const char *name;
	const char *text;
	const char *normalized; /* NULL: must fail */
	const char *why;
};

static const struct cpulist_case cpulist_cases[] = {
	{"single", "0", "0", NULL},
	{"range", "0-3", "0-3", NULL},
	{"mixed", "8,0-3", "0-3,8", NULL},
	{"overlapping ranges merge", "0-3,2-5,6", "0-6", NULL},
	{"spaces", " 1 , 3 ", "1,3", NULL},
	{"largest cpu", "8191", "8191", NULL},
	{"empty", "", NULL, "ends where a CPU number should be"},
	{"trailing comma", "1,", NULL, "ends where a CPU number should be"},
	{"open range", "1-", NULL, "ends where a CPU number should be"},
	{"letters", "a", NULL, "expected a CPU number at 'a'"},
	{"negative", "-1", NULL, "expected a CPU number"},
	{"backwards", "5-2", NULL, "range 5-2 runs backwards"},
	{"too large", "8192", NULL, "CPU number out of range (0..8191)"},
	{"huge", "99999999999999999999", NULL, "out of range"},
	{"semicolon", "1;2", NULL, "unexpected ';'"},
};

static void test_cpulist_case(void **state)
{
	const struct cpulist_case *c = *state;
	struct cpulist list;
	char why[128] = "", out[128];
	int status = cpulist_parse(c->text, &list, why, sizeof(why));

	if (!c->normalized) {
		assert_int_equal(status, -1);
		assert_non_null(strstr(why, c->why));
		assert_null(list.ranges);
		return;
	}
	assert_int_equal(status, 0);
	cpulist_format(&list, out, sizeof(out));
	assert_string_equal(out, c->normalized);
	cpulist_free(&list);
}

int main(void)
{
	return unit_run("cpulist", UNIT_TABLE(cpulist_cases, test_cpulist_case),
			NULL, 0, NULL, NULL);
}
