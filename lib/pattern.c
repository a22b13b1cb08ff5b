/* Shell-style glob patterns of match keys (fnmatch(3) syntax). fnmatch
 * itself never reports a bad pattern, it just fails to match, so a typo
 * would silently disable a rule: check them when the rules load. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "pattern.h"

static const char *const pattern_classes[] = {
	"alnum", "alpha", "blank", "cntrl", "digit", "graph",
	"lower", "print", "punct", "space", "upper", "xdigit",
};

static bool pattern_class_known(const char *name, size_t len)
{
	for (size_t i = 0;
	     i < sizeof(pattern_classes) / sizeof(*pattern_classes); i++) {
		if (strlen(pattern_classes[i]) == len &&
		    strncmp(pattern_classes[i], name, len) == 0)
			return true;
	}
	return false;
}

/* Returns the index just past the bracket expression opened at p[0], or 0
 * when it is not closed. */
static size_t pattern_bracket_end(const char *p, char *why, size_t why_size)
{
	size_t i = 1;

	if (p[i] == '!' || p[i] == '^')
		i++;
	if (p[i] == ']') /* a leading ']' is a literal member */
		i++;
	for (; p[i]; i++) {
		if (p[i] == ']')
			return i + 1;
		if (p[i] == '[' && p[i + 1] == ':') {
			const char *end = strstr(p + i + 2, ":]");

			if (!end)
				break;
			if (!pattern_class_known(p + i + 2,
						 (size_t)(end - (p + i + 2)))) {
				snprintf(why, why_size,
					 "unknown character class '%.*s'",
					 (int)(end - (p + i)) + 2, p + i);
				return 0;
			}
			i = (size_t)(end - p) + 1;
		}
	}
	snprintf(why, why_size, "'[' is never closed by ']'");
	return 0;
}

int pattern_check(const char *pattern, char *why, size_t why_size)
{
	for (size_t i = 0; pattern[i]; i++) {
		if (pattern[i] == '\\') {
			if (!pattern[i + 1]) {
				snprintf(why, why_size,
					 "ends with a lone backslash");
				return -1;
			}
			i++;
		} else if (pattern[i] == '[') {
			size_t len =
				pattern_bracket_end(pattern + i, why, why_size);

			if (!len)
				return -1;
			i += len - 1;
		}
	}
	return 0;
}

bool pattern_is_literal(const char *pattern)
{
	return strpbrk(pattern, "*?[\\") == NULL;
}

/* No FNM_PATHNAME: '*' crosses '/', so a trailing '*' after a directory
 * covers everything below it. */
bool pattern_match(const char *pattern, const char *text)
{
	return fnmatch(pattern, text, 0) == 0;
}
