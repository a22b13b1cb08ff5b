/* Rule files across directories: lexical order, /etc over the vendor's,
 * masking by a link to /dev/null (a Linux convention: Windows masks with
 * an empty file of the same name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "rules.h"

/* Lexical order across directories; /etc replaces a vendor file of the same
 * name; a link to /dev/null masks one; hidden and non-.rules files are not
 * read. */
static void test_precedence(void **state)
{
	char *dirs[] = {
		SRCDIR "/tests/data/precedence/vendor",
		SRCDIR "/tests/data/precedence/etc",
		SRCDIR "/tests/data/precedence/missing",
	};
	static const char *const order[] = {"a", "c", "b-local"};
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, dirs, 3, false, &diag), 0);
	assert_int_equal(diag.errors + diag.warnings, 0);
	assert_int_equal(rules.count, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(rules.list[i].name, order[i]);
	assert_non_null(strstr(rules.list[2].file, "/etc/20-b.rules"));
	assert_int_equal(rules.files_read, 4);
	diag_free(&diag);
	rules_free(&rules);

	/* A missing directory named on the command line is an I/O error. */
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, dirs + 2, 1, true, &diag),
			 -1);
	assert_int_equal(diag.errors, 1);
	diag_free(&diag);
	rules_free(&rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
	};

	return unit_run("precedence", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
