/* The escaper of strangers' strings: a named case per kind of byte in
 * each mode; then every byte string libconfig reads back as itself, and
 * nothing a terminal would act on is ever written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libconfig.h>

#include "unit.h"

#include "quote.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct quote_case {
	const char *name;
	const char *text;
	enum quote_mode mode;
	const char *expect;
};

static const struct quote_case quote_cases[] = {
	{"plain", "game.exe", QUOTE_MODE_CONFIG, "\"game.exe\""},
	{"quote and backslash", "a\"b\\c", QUOTE_MODE_CONFIG,
	 "\"a\\\"b\\\\c\""},
	{"libconfig's named escapes", "\n\r\t\f", QUOTE_MODE_CONFIG,
	 "\"\\n\\r\\t\\f\""},
	{"other control bytes as \\x", "\x1b[2J\x7f\x01", QUOTE_MODE_CONFIG,
	 "\"\\x1b[2J\\x7f\\x01\""},
	{"UTF-8 kept", "\xc3\xa9t\xc3\xa9", QUOTE_MODE_CONFIG,
	 "\"\xc3\xa9t\xc3\xa9\""},
	{"a C1 control escaped",
	 "a\xc2\x9b"
	 "b",
	 QUOTE_MODE_CONFIG, "\"a\\xc2\\x9bb\""},
	{"invalid UTF-8 escaped", "a\xff\xc3", QUOTE_MODE_CONFIG,
	 "\"a\\xff\\xc3\""},
	{"an overlong slash escaped", "\xc0\xaf", QUOTE_MODE_CONFIG,
	 "\"\\xc0\\xaf\""},
	{"a surrogate escaped", "\xed\xa0\x80", QUOTE_MODE_CONFIG,
	 "\"\\xed\\xa0\\x80\""},
	{"right-to-left override escaped",
	 "a\xe2\x80\xae"
	 "b",
	 QUOTE_MODE_CONFIG, "\"a\\xe2\\x80\\xaeb\""},
	{"line separator escaped", "a\xe2\x80\xa8", QUOTE_MODE_CONFIG,
	 "\"a\\xe2\\x80\\xa8\""},
	{"glob characters quoted", "a*b?[c]\\", QUOTE_MODE_GLOB,
	 "\"a\\\\*b\\\\?\\\\[c\\\\]\\\\\\\\\""},
	{"glob: a newline still escaped", "a\nb", QUOTE_MODE_GLOB, "\"a\\nb\""},
	{"display: plain", "Folder One & Two", QUOTE_MODE_DISPLAY,
	 "Folder One & Two"},
	{"display: a newline as \\x0a", "x\n  { name = \"evil\"",
	 QUOTE_MODE_DISPLAY, "x\\x0a  { name = \"evil\""},
	{"display: an escape sequence", "\x1b]0;owned\x07", QUOTE_MODE_DISPLAY,
	 "\\x1b]0;owned\\x07"},
	{"display: a Windows path as it is", "C:\\Program Files\\a.exe",
	 QUOTE_MODE_DISPLAY, "C:\\Program Files\\a.exe"},
	{"display: a backslash before x", "C:\\x\\y", QUOTE_MODE_DISPLAY,
	 "C:\\x5cx\\y"},
	{"display: C1 and invalid bytes", "\xc2\x9b\x9b", QUOTE_MODE_DISPLAY,
	 "\\xc2\\x9b\\x9b"},
};

static void test_quote_case(void **state)
{
	const struct quote_case *c = *state;
	char *got = quote_dup(c->text, QUOTE_ALL, c->mode);

	if (strcmp(got, c->expect) != 0)
		fail_msg("%s: got '%s', wanted '%s'", c->name, got, c->expect);
	assert_int_equal(quote_len(c->text, QUOTE_ALL, c->mode), strlen(got));
	free(got);
}

/* max stops at a byte count, and a sequence cut by it is escaped. */
static void test_max(void **state)
{
	char *got;

	(void)state;
	got = quote_dup("abc\n", 3, QUOTE_MODE_DISPLAY);
	assert_string_equal(got, "abc");
	free(got);
	got = quote_dup("a\xc3\xa9", 2, QUOTE_MODE_DISPLAY);
	assert_string_equal(got, "a\\xc3");
	free(got);
}

static uint32_t quote_random(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Whether a terminal would act on a byte of text: anything but
 * printable ASCII and the one UTF-8 character the strings below hold. */
static bool quote_hostile(const char *text)
{
	for (const char *c = text; *c; c++) {
		if (strncmp(c, "\xc3\xa9", 2) == 0)
			c++;
		else if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			return true;
	}
	return false;
}

/* Random strings of the pieces that matter (libconfig's syntax, control
 * bytes, C1, invalid and bidirectional UTF-8, a plain é) and of any
 * ASCII: libconfig reads each quoted one back as itself, from a file
 * with no control byte; the display form holds none either. */
static void test_round_trip(void **state)
{
	static const char *const pieces[] = {
		"\"",	    "\\",	"\n",
		"\r",	    "\t",	"\f",
		"\x1b",	    "\x7f",	"*",
		"[",	    "x",	"#",
		";",	    "}",	"\xc2\x9b",
		"\xff",	    "\xc0\xaf", "\xe2\x80\xae",
		"\xc3\xa9",
	};
	uint32_t seed = 20;

	(void)state;
	for (int n = 0; n < 20000; n++) {
		char text[64] = "", *quoted, *shown, *file;
		size_t count = quote_random(&seed) % 16;
		const char *back = NULL;
		config_t config;

		for (size_t i = 0; i < count; i++) {
			uint32_t r = quote_random(&seed);
			char one[2] = {(char)(1 + r % 0x7f), '\0'};

			strcat(text,
			       r % 2 ? pieces[r % ARRAY_LEN(pieces)] : one);
		}
		quoted = quote_dup(text, QUOTE_ALL, QUOTE_MODE_CONFIG);
		shown = quote_display(text);
		if (quote_hostile(quoted) || quote_hostile(shown))
			fail_msg("not escaped: '%s', '%s'", quoted, shown);
		file = malloc(strlen(quoted) + 16);
		assert_non_null(file);
		sprintf(file, "s = %s;\n", quoted);
		config_init(&config);
		if (!config_read_string(&config, file) ||
		    !config_lookup_string(&config, "s", &back) ||
		    strcmp(back, text) != 0)
			fail_msg("%s read back as '%s'", quoted,
				 back ? back : "(nothing)");
		config_destroy(&config);
		free(file);
		free(quoted);
		free(shown);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_round_trip),
	};

	return unit_run("quote", UNIT_TABLE(quote_cases, test_quote_case),
			UNIT_TESTS(tests), NULL, NULL);
}
