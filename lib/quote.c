/* The one escaper of strangers' strings. A rule file's strings follow
 * libconfig 1.5's scanner (lib/scanner.l): \" \\ \n \r \t \f and \xHH
 * are its escapes, and any byte may be written as \xHH (but NUL, which
 * it drops: a C string holds none); a comment ends at a newline and
 * escapes nothing, so what goes there is shown as on a terminal. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "util.h"

/* The length of the valid UTF-8 sequence at s (at most avail bytes) and
 * its code point; 0 when the bytes are none (overlong, a surrogate, past
 * U+10FFFF, cut short). */
static size_t quote_utf8(const unsigned char *s, size_t avail, unsigned *code)
{
	size_t len;
	unsigned min;

	if (s[0] < 0x80) {
		*code = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80, *code = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800, *code = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000, *code = s[0] & 0x07;
	else
		return 0;
	if (len > avail)
		return 0;
	/* A NUL is no continuation byte: the loop stops at the string's end. */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*code = *code << 6 | (s[i] & 0x3f);
	}
	if (*code < min || *code > 0x10ffff ||
	    (*code >= 0xd800 && *code <= 0xdfff))
		return 0;
	return len;
}

/* The C1 controls (U+009B is a terminal's CSI), and the characters that
 * turn text round or break its lines: with U+202E in a name, what a
 * terminal shows is not what the name is. */
static bool quote_control(unsigned code)
{
	return code < 0x20 || (code >= 0x7f && code < 0xa0) || code == 0x061c ||
	       code == 0x200e || code == 0x200f ||
	       (code >= 0x2028 && code <= 0x202e) ||
	       (code >= 0x2066 && code <= 0x2069) || code == 0xfeff;
}

/* How many bytes at text go out as they are; 0: the first is escaped. */
static size_t quote_plain(const char *text, size_t avail, enum quote_mode mode)
{
	const unsigned char *u = (const unsigned char *)text;
	unsigned code;
	size_t len = quote_utf8(u, avail, &code);

	if (!len || quote_control(code))
		return 0;
	if (mode == QUOTE_MODE_DISPLAY)
		return u[0] == '\\' && avail > 1 && u[1] == 'x' ? 0 : len;
	return u[0] == '"' || u[0] == '\\' ? 0 : len;
}

static void quote_put(char *out, size_t *n, const char *bytes, size_t len)
{
	if (out)
		memcpy(out + *n, bytes, len);
	*n += len;
}

/* The quoted text into out (NULL: only counted); its length. */
static size_t quote_run(char *out, const char *text, size_t max,
			enum quote_mode mode)
{
	static const char named[] = "\"\\\n\r\t\f", letter[] = "\"\\nrtf";
	static const char hex[] = "0123456789abcdef";
	bool config = mode != QUOTE_MODE_DISPLAY;
	size_t n = 0;

	if (config)
		quote_put(out, &n, "\"", 1);
	for (size_t i = 0; i < max && text[i];) {
		size_t plain = quote_plain(text + i, max - i, mode);
		unsigned char byte = (unsigned char)text[i];
		const char *at = config ? strchr(named, text[i]) : NULL;

		/* The matcher's backslash, which libconfig reads from \\. */
		if (mode == QUOTE_MODE_GLOB && strchr("*?[]\\", text[i]))
			quote_put(out, &n, "\\\\", 2);
		if (plain) {
			quote_put(out, &n, text + i, plain);
			i += plain;
			continue;
		}
		if (at) {
			char pair[2] = {'\\', letter[at - named]};

			quote_put(out, &n, pair, 2);
		} else {
			char code[4] = {'\\', 'x', hex[byte >> 4],
					hex[byte & 0xf]};

			quote_put(out, &n, code, 4);
		}
		i++;
	}
	if (config)
		quote_put(out, &n, "\"", 1);
	if (out)
		out[n] = '\0';
	return n;
}

/* Bytes the quoted text takes (a terminal's columns, for ASCII). */
size_t quote_len(const char *text, size_t max, enum quote_mode mode)
{
	return quote_run(NULL, text, max, mode);
}

char *quote_dup(const char *text, size_t max, enum quote_mode mode)
{
	char *out = xmalloc(quote_run(NULL, text, max, mode) + 1);

	quote_run(out, text, max, mode);
	return out;
}

void quote_write(FILE *out, const char *text, size_t max, enum quote_mode mode)
{
	char *quoted = quote_dup(text, max, mode);

	fputs(quoted, out);
	free(quoted);
}

/* The whole text as a terminal may show it; the caller frees it. */
char *quote_display(const char *text)
{
	return quote_dup(text, QUOTE_ALL, QUOTE_MODE_DISPLAY);
}
