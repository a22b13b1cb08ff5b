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

struct windows_case {
	const char *name;
	const char *pattern, *text;
	bool matches;
};

/* Windows paths: ASCII case folded, either slash, a backslash never a
 * quote; the rest as fnmatch has it. */
static const struct windows_case windows_cases[] = {
	{"slash for backslash", "C:/Tools/x.exe", "c:\\tools\\X.EXE", true},
	{"backslash for slash", "c:\\tools\\*.exe", "C:/Tools/y.EXE", true},
	{"star crosses folders", "C:\\Apps\\*\\x.exe", "c:\\apps\\a\\b\\x.exe",
	 true},
	{"another folder", "C:\\Apps\\x.exe", "C:\\Users\\eve\\x.exe", false},
	{"bracket range folded", "[a-c]:\\x.exe", "B:\\x.exe", true},
	{"negated bracket folded", "[!a]:\\x.exe", "A:\\x.exe", false},
	{"class in either case", "[[:lower:]]:\\x", "Q:\\x", true},
	{"no quote", "C:\\*", "c:/anything", true},
	{"non-ASCII not folded", "C:\\\xc3\xa9.exe", "C:\\\xc3\x89.exe", false},
};

static void test_windows(void **state)
{
	const unsigned flags = PATTERN_FOLD | PATTERN_SLASHES;
	char why[128], key[64];

	(void)state;
	for (size_t i = 0; i < sizeof(windows_cases) / sizeof(*windows_cases);
	     i++) {
		const struct windows_case *c = &windows_cases[i];

		assert_int_equal(pattern_check_flags(c->pattern, flags, why,
						     sizeof(why)),
				 0);
		if (pattern_match_flags(c->pattern, c->text, flags) !=
		    c->matches)
			fail_msg("%s: '%s' against '%s'", c->name, c->pattern,
				 c->text);
	}
	/* Without the flags, the same patterns are Linux's. */
	assert_false(pattern_match("C:/Tools/x.exe", "c:/tools/x.exe"));
	assert_true(pattern_is_literal_flags("C:\\x.exe", flags));
	assert_false(pattern_is_literal("C:\\x.exe"));
	assert_true(pattern_is_absolute("C:\\x", flags));
	assert_true(pattern_is_absolute("z:/x", flags));
	assert_true(pattern_is_absolute("\\\\srv\\share\\x", flags));
	assert_true(pattern_is_absolute("//srv/share/x", flags));
	assert_false(pattern_is_absolute("\\\\srv\\share", flags));
	assert_false(pattern_is_absolute("\\\\.\\pipe\\x", flags));
	assert_false(pattern_is_absolute("\\\\?\\C:\\x", flags));
	assert_false(pattern_is_absolute("\\x", flags));
	assert_false(pattern_is_absolute("C:x", flags));
	assert_false(pattern_is_absolute("/usr/bin/x", flags));
	assert_true(pattern_is_absolute("/usr/bin/x", 0));
	assert_false(pattern_is_absolute("C:/x", 0));
	assert_string_equal(
		pattern_key("C:\\Tools\\X.exe", flags, key, sizeof(key)),
		"c:/tools/x.exe");
	assert_null(pattern_key("C:\\x", flags, key, 4));
}

/* One element as the matcher reads it: what it may match, where the
 * next begins. The exec filter's plan asks it whether an element can
 * match a '/'. */
static void test_element(void **state)
{
	static const struct {
		const char *element;
		size_t len;
		bool slash, a;
	} cases[] = {
		{"a", 1, false, true},
		{"/", 1, true, false},
		{"?", 1, true, true},
		{"\\/", 2, true, false},
		{"[!a]", 4, true, false},
		{"[^a]", 4, true, false},
		{"[--0]", 5, true, false},
		{"[.-0]", 5, true, false},
		{"[[:punct:]]", 11, true, false},
		{"[[:graph:]]", 11, true, true},
		{"[[:print:]]", 11, true, true},
		{"[[:alpha:]]", 11, false, true},
		{"[]/]", 4, true, false},
		{"[a-c]x", 5, false, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *p = cases[i].element;

		if (pattern_element(&p, '/', 0) != cases[i].slash ||
		    (size_t)(p - cases[i].element) != cases[i].len)
			fail_msg("'%s' against '/'", cases[i].element);
		p = cases[i].element;
		if (pattern_element(&p, 'a', 0) != cases[i].a)
			fail_msg("'%s' against 'a'", cases[i].element);
	}
}

/* The literal runs the index finds a glob by: the start, the end and
 * the longest run every match must hold, unquoted and folded as the
 * matcher compares. */
static void test_literal_run(void **state)
{
	static const struct {
		const char *pattern;
		unsigned flags;
		const char *prefix, *suffix, *longest;
	} cases[] = {
		{"/opt/vendor/*", 0, "/opt/vendor/", "", "/opt/vendor/"},
		{"*/bin/tool", 0, "", "/bin/tool", "/bin/tool"},
		{"/u/[ab]in/x?z", 0, "/u/", "z", "in/x"},
		{"a\\*b*", 0, "a*b", "", "a*b"},
		{"*x\\?", 0, "", "x?", "x?"},
		{"/usr/bin/xz", 0, "/usr/bin/xz", "/usr/bin/xz", "/usr/bin/xz"},
		{"*--job=12 *", 0, "", "", "--job=12 "},
		{"ab*cdef*g", 0, "ab", "g", "cdef"},
		{"[ab", 0, "[ab", "[ab", "[ab"}, /* never closed: literal */
		{"[!a]x[[:digit:]]", 0, "", "", "x"},
		{"", 0, "", "", ""},
		{"*?*", 0, "", "", ""},
		{"C:\\Apps\\*\\*.EXE", PATTERN_FOLD | PATTERN_SLASHES,
		 "c:/apps/", ".exe", "c:/apps/"},
		{"Game*", PATTERN_FOLD | PATTERN_SLASHES, "game", "", "game"},
	};
	static const enum pattern_run runs[] = {
		PATTERN_RUN_PREFIX, PATTERN_RUN_SUFFIX, PATTERN_RUN_LONGEST};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *want[] = {cases[i].prefix, cases[i].suffix,
				      cases[i].longest};

		for (size_t r = 0; r < 3; r++) {
			size_t len = pattern_literal_run(
				cases[i].pattern, cases[i].flags, runs[r], buf,
				sizeof(buf));

			if (strcmp(buf, want[r]) != 0 || len != strlen(buf))
				fail_msg("'%s', run %zu: '%s', not '%s'",
					 cases[i].pattern, r, buf, want[r]);
		}
	}
	/* Cut to fit: a start keeps its beginning, an end its end. */
	pattern_literal_run("abcdef*", 0, PATTERN_RUN_PREFIX, buf, 4);
	assert_string_equal(buf, "abc");
	pattern_literal_run("*abcdef", 0, PATTERN_RUN_SUFFIX, buf, 4);
	assert_string_equal(buf, "def");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_element),
		cmocka_unit_test(test_literal_run),
	};

	return unit_run("pattern", UNIT_TABLE(pattern_cases, test_pattern_case),
			UNIT_TESTS(tests), NULL, NULL);
}
