/* Glob patterns: which are valid, which are literal, what they match. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "pattern.h"

struct pattern_case {
	const char *name;
	const char *pattern;
	const char *why; /* NULL: valid */
	bool literal;
	const char *matches, *misses;
};

static const struct pattern_case pattern_cases[] = {
	{"literal path", "/usr/bin/xz", NULL, true, "/usr/bin/xz",
	 "/usr/bin/xzcat"},
	{"star crosses slash", "/usr/lib/gcc/*/cc1", NULL, false,
	 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/lib/gcc/cc1plus"},
	{"question mark", "cc?", NULL, false, "cc1", "cc"},
	{"bracket", "/usr/bin/clang-[0-9]*", NULL, false, "/usr/bin/clang-14",
	 "/usr/bin/clang-cpp"},
	{"negated bracket", "[!a]x", NULL, false, "bx", "ax"},
	{"leading bracket member", "[]a]", NULL, false, "]", "b"},
	{"character class", "[[:digit:]]*", NULL, false, "9lives", "cat"},
	{"escaped star", "a\\*", NULL, false, "a*", "ab"},
	{"unclosed bracket", "/usr/bin/[ab", "'[' is never closed", false, NULL,
	 NULL},
	{"unclosed class", "[[:alpha:", "'[' is never closed", false, NULL,
	 NULL},
	{"unknown class", "[[:foo:]]", "unknown character class '[:foo:]'",
	 false, NULL, NULL},
	{"lone backslash", "abc\\", "ends with a lone backslash", false, NULL,
	 NULL},
};

static void test_pattern_case(void **state)
{
	const struct pattern_case *c = *state;
	char why[128] = "";
	int status = pattern_check(c->pattern, why, sizeof(why));

	if (c->why) {
		assert_int_equal(status, -1);
		assert_non_null(strstr(why, c->why));
		return;
	}
	assert_int_equal(status, 0);
	assert_int_equal(pattern_is_literal(c->pattern), c->literal);
	assert_true(pattern_match(c->pattern, c->matches));
	assert_false(pattern_match(c->pattern, c->misses));
}

int main(void)
{
	return unit_run("pattern", UNIT_TABLE(pattern_cases, test_pattern_case),
			NULL, 0, NULL, NULL);
}
