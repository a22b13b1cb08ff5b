/* The one main of the unit tests: a table of named cases, each run by one
 * function with its case as the state, followed by tests of their own. */
#ifndef CPUPOLICY_UNIT_H
#define CPUPOLICY_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* cases: an array of structs whose first member is "const char *name". */
struct unit_table {
	const void *cases;
	size_t count, size;
	CMUnitTestFunction run;
};

#define UNIT_TABLE(cases, fn)                                                  \
	((struct unit_table){(cases), sizeof(cases) / sizeof((cases)[0]),      \
			     sizeof((cases)[0]), (fn)})
#define UNIT_TESTS(tests) (tests), sizeof(tests) / sizeof((tests)[0])

/* unit.c */
int unit_run(const char *group, struct unit_table table,
	     const struct CMUnitTest *tests, size_t count,
	     CMFixtureFunction setup, CMFixtureFunction teardown);

#endif
