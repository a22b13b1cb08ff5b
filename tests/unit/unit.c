/* The one main of the unit tests (unit.h): the cases of a table become
 * named tests, then the group runs as cmocka's macros would run a fixed
 * array. */
#include <stdlib.h>

#include "unit.h"

int unit_run(const char *group, struct unit_table table,
	     const struct CMUnitTest *tests, size_t count,
	     CMFixtureFunction setup, CMFixtureFunction teardown)
{
	struct CMUnitTest *all = calloc(table.count + count + 1, sizeof(*all));
	size_t n = 0;
	int failed;

	if (!all)
		return 1;
	for (size_t i = 0; i < table.count; i++) {
		const char *c = (const char *)table.cases + i * table.size;

		all[n++] = (struct CMUnitTest){
			.name = *(const char *const *)(const void *)c,
			.test_func = table.run,
			.initial_state = (void *)c,
		};
	}
	for (size_t i = 0; i < count; i++)
		all[n++] = tests[i];
	/* The array is built at run time: cmocka_run_group_tests_name would
	 * take its size with sizeof. */
	failed = _cmocka_run_group_tests(group, all, n, setup, teardown);
	free(all);
	return failed;
}
