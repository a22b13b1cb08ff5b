/* JSON written through json-c: a named case per kind of stranger's byte
 * (quote, backslash, control, UTF-8 valid and not), each written as the
 * expected text and parsed back by json-c's strict tokener, which must
 * find valid UTF-8 and the text as written (bytes of no UTF-8 as the
 * characters of their value). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "jsonout.h"
#include "os.h" /* memstream */

struct jsonout_case {
	const char *name;
	const char *text;
	const char *expect; /* the document written */
	const char *back;   /* the string parsed back from it */
};

static const struct jsonout_case jsonout_cases[] = {
	{"plain", "worker", "{\"s\":\"worker\"}\n", "worker"},
	{"quote and backslash", "a\"b\\c", "{\"s\":\"a\\\"b\\\\c\"}\n",
	 "a\"b\\c"},
	{"newline and tab", "a\nb\tc", "{\"s\":\"a\\nb\\tc\"}\n", "a\nb\tc"},
	{"control bytes", "\x01\x1b[2J", "{\"s\":\"\\u0001\\u001b[2J\"}\n",
	 "\x01\x1b[2J"},
	{"a path's slashes as they are", "/usr/bin/x",
	 "{\"s\":\"/usr/bin/x\"}\n", "/usr/bin/x"},
	{"valid UTF-8 kept", "caf\xc3\xa9 \xf0\x9f\x98\x80",
	 "{\"s\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}\n",
	 "caf\xc3\xa9 \xf0\x9f\x98\x80"},
	{"a byte of no UTF-8: its character", "\xff x",
	 "{\"s\":\"\xc3\xbf x\"}\n", "\xc3\xbf x"},
	{"a cut sequence and a surrogate", "x\xe2\x82 \xed\xa0\x80",
	 "{\"s\":\"x\xc3\xa2\xc2\x82 \xc3\xad\xc2\xa0\xc2\x80\"}\n",
	 "x\xc3\xa2\xc2\x82 \xc3\xad\xc2\xa0\xc2\x80"},
};

static char *jsonout_text(struct json_object *doc)
{
	struct memstream ms;
	FILE *f = memstream_open(&ms);
	size_t len;

	assert_non_null(f);
	jsonout_write(f, doc);
	return memstream_close(&ms, &len);
}

static void test_jsonout_case(void **state)
{
	const struct jsonout_case *c = *state;
	struct json_object *doc = json_object_new_object(), *back, *s;
	struct json_tokener *tok = json_tokener_new();
	char *text;

	jsonout_add_string(doc, "s", c->text);
	text = jsonout_text(doc);
	if (strcmp(text, c->expect) != 0)
		fail_msg("%s: wrote '%s', wanted '%s'", c->name, text,
			 c->expect);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!back)
		fail_msg("%s: '%s' does not parse back: %s", c->name, text,
			 json_tokener_error_desc(json_tokener_get_error(tok)));
	assert_true(json_object_object_get_ex(back, "s", &s));
	assert_string_equal(json_object_get_string(s), c->back);
	json_object_put(back);
	json_tokener_free(tok);
	free(text);
}

/* Numbers, booleans and null, in the order added, without spaces. */
static void test_jsonout_types(void **state)
{
	struct json_object *doc = json_object_new_object();
	char *text;

	(void)state;
	jsonout_add_int(doc, "i", -5);
	jsonout_add_uint(doc, "u", 18446744073709551615ULL);
	jsonout_add_bool(doc, "b", true);
	jsonout_add_string(doc, "n", NULL);
	json_object_array_add(jsonout_add_array(doc, "a"), jsonout_string("x"));
	jsonout_add_object(doc, "o");
	text = jsonout_text(doc);
	assert_string_equal(text, "{\"i\":-5,\"u\":18446744073709551615,"
				  "\"b\":true,\"n\":null,\"a\":[\"x\"],"
				  "\"o\":{}}\n");
	free(text);
}

/* A figure is written to its decimals; one that is no number (a NaN of
 * a step that did not run, an infinity of a division by zero) is null,
 * as JSON has neither. */
static void test_jsonout_fixed(void **state)
{
	struct json_object *doc = json_object_new_object();
	char *text;

	(void)state;
	jsonout_add_fixed(doc, "f", 0.5, 4);
	jsonout_add_fixed(doc, "nan", NAN, 4);
	jsonout_add_fixed(doc, "inf", -INFINITY, 2);
	text = jsonout_text(doc);
	assert_string_equal(text, "{\"f\":0.5000,\"nan\":null,\"inf\":null}\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonout_types),
		cmocka_unit_test(test_jsonout_fixed),
	};

	return unit_run("jsonout", UNIT_TABLE(jsonout_cases, test_jsonout_case),
			UNIT_TESTS(tests), NULL, NULL);
}
