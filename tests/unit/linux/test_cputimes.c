/* CPU times from /proc/stat: which lines count, what each field adds to
 * busy, idle and steal, and the file read under a fake procfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "linux.h"
#include "procstat.h"
#include "util.h"

struct parse_case {
	const char *name;
	const char *text;
	int status;
	size_t count;
	struct procstat_cpu first; /* when count > 0 */
};

static const struct parse_case parse_cases[] = {
	{"user nice system irq softirq are busy, idle iowait idle",
	 "cpu  9 9 9 9 9 9 9 9 9 9\ncpu0 1 2 3 40 50 6 7 8 100 200\n",
	 0,
	 1,
	 {0, 1 + 2 + 3 + 6 + 7, 40 + 50, 8}},
	{"guest time is not counted twice",
	 "cpu3 10 0 0 90 0 0 0 0 500 500\n",
	 0,
	 1,
	 {3, 10, 90, 0}},
	{"an offline CPU has no line: the others count",
	 "cpu0 1 0 0 1 0 0 0 0\ncpu2 5 0 0 5 0 0 0 0\nintr 1 2\n",
	 0,
	 2,
	 {0, 1, 1, 0}},
	{"no CPU line at all", "intr 1\nctxt 42\n", -1, 0, {0}},
	{"a line cut short", "cpu0 1 2 3\n", -1, 0, {0}},
	{"a CPU number out of range", "cpu9000 1 0 0 1 0 0 0 0\n", -1, 0, {0}},
	{"no newline at the end", "cpu1 4 0 0 6 0 0 0 1", 0, 1, {1, 4, 6, 1}},
};

static void test_parse_case(void **state)
{
	const struct parse_case *c = *state;
	struct procstat stat;

	assert_int_equal(cputimes_parse(c->text, &stat), c->status);
	assert_int_equal(stat.count, c->count);
	if (c->count) {
		assert_int_equal(stat.cpus[0].cpu, c->first.cpu);
		assert_int_equal(stat.cpus[0].busy, c->first.busy);
		assert_int_equal(stat.cpus[0].idle, c->first.idle);
		assert_int_equal(stat.cpus[0].steal, c->first.steal);
	}
	procstat_free(&stat);
}

/* Under a fake procfs (the backend's root, set once with
 * paths_set_roots), through the seam and through procstat_read. */
static void test_read(void **state)
{
	char root[] = "/tmp/cpupolicy-cputimes-XXXXXX";
	struct procstat stat = {0};
	char *path;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	paths_set_roots(root, NULL, NULL);
	assert_int_equal(cputimes_read(&stat), OS_GONE);
	path = xasprintf("%s/stat", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("cpu  2 0 0 2 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0\n"
	      "cpu1 1 0 0 1 0 0 0 0\n",
	      f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(cputimes_read(&stat), OS_OK);
	assert_int_equal(stat.count, 2);
	assert_int_equal(stat.cpus[1].cpu, 1);
	procstat_free(&stat);
	assert_int_equal(procstat_read(&stat), 0);
	assert_int_equal(stat.count, 2);
	procstat_free(&stat);
	paths_set_roots("/proc", NULL, NULL);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(root), 0);
	free(path);
}

/* The real one. How many CPUs it lists is not checked: other tests on
 * this machine take cpu1 offline and back meanwhile. */
static void test_read_proc(void **state)
{
	struct procstat stat = {0};

	(void)state;
	assert_int_equal(cputimes_read(&stat), OS_OK);
	assert_true(stat.count >= 1);
	procstat_free(&stat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_proc),
	};

	return unit_run("cputimes", UNIT_TABLE(parse_cases, test_parse_case),
			UNIT_TESTS(tests), NULL, NULL);
}
