/* The JSON documents the programs write, through json-c: objects built
 * with the helpers below, strings escaped by the library, each document
 * one compact line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "util.h"

/* Length of the valid UTF-8 sequence at p, or 0. */
static size_t jsonout_utf8_length(const unsigned char *p)
{
	size_t len;
	unsigned min, code;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2, min = 0x80, code = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3, min = 0x800, code = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4, min = 0x10000, code = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (p[i] & 0x3f);
	}
	if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string of text chosen by anyone (process names, paths). The one
 * hand-written part: json-c writes a string's bytes as they are (it checks
 * UTF-8 only when it parses, with JSON_TOKENER_VALIDATE_UTF8), and a
 * process name or a path is any bytes, which would make the document
 * invalid UTF-8 that JSON parsers refuse. So a byte that is not part of
 * valid UTF-8 becomes the character of the same value (U+0080 to U+00FF),
 * as \u00XX would; json-c escapes the rest. */
struct json_object *jsonout_string(const char *text)
{
	const unsigned char *c = (const unsigned char *)text;
	char *valid = xmalloc(2 * strlen(text) + 1);
	size_t len = 0;
	struct json_object *s;

	while (*c) {
		size_t n = jsonout_utf8_length(c);

		if (n) {
			memcpy(valid + len, c, n);
			len += n;
			c += n;
			continue;
		}
		valid[len++] = (char)(0xc0 | *c >> 6);
		valid[len++] = (char)(0x80 | (*c++ & 0x3f));
	}
	s = json_object_new_string_len(valid, (int)len);
	free(valid);
	return s;
}

void jsonout_add(struct json_object *obj, const char *key,
		 struct json_object *value)
{
	json_object_object_add(obj, key, value);
}

void jsonout_add_string(struct json_object *obj, const char *key,
			const char *text)
{
	jsonout_add(obj, key, text ? jsonout_string(text) : NULL);
}

void jsonout_add_int(struct json_object *obj, const char *key, long long value)
{
	jsonout_add(obj, key, json_object_new_int64(value));
}

void jsonout_add_uint(struct json_object *obj, const char *key,
		      unsigned long long value)
{
	jsonout_add(obj, key, json_object_new_uint64(value));
}

void jsonout_add_bool(struct json_object *obj, const char *key, bool value)
{
	jsonout_add(obj, key, json_object_new_boolean(value));
}

/* A measured figure to the decimals it is measured to ("%.4f"), where
 * json-c would write every double with 17 significant digits: json-c
 * writes the text given with the value as it is. */
struct json_object *jsonout_fixed(double value, int decimals)
{
	char text[64];

	/* JSON has no NaN or infinity: "nan" would make the whole document
	 * unreadable, so a figure that could not be measured is null. */
	if (!isfinite(value))
		return NULL;
	snprintf(text, sizeof(text), "%.*f", decimals, value);
	return json_object_new_double_s(value, text);
}

void jsonout_add_fixed(struct json_object *obj, const char *key, double value,
		       int decimals)
{
	jsonout_add(obj, key, jsonout_fixed(value, decimals));
}

struct json_object *jsonout_add_array(struct json_object *obj, const char *key)
{
	struct json_object *array = json_object_new_array();

	jsonout_add(obj, key, array);
	return array;
}

struct json_object *jsonout_add_object(struct json_object *obj, const char *key)
{
	struct json_object *member = json_object_new_object();

	jsonout_add(obj, key, member);
	return member;
}

/* The document on one line, without spaces and with '/' as it is (paths
 * are most of what it holds), then freed. */
void jsonout_write(FILE *out, struct json_object *doc)
{
	fputs(json_object_to_json_string_ext(
		      doc,
		      JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
	      out);
	fputc('\n', out);
	json_object_put(doc);
}
