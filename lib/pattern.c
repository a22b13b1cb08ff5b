/* Shell-style glob patterns of match keys (fnmatch(3) syntax). A glob
 * never reports a bad pattern, it just fails to match, so a typo would
 * silently disable a rule: check them when the rules load. The matcher is
 * our own, since not every C library has fnmatch: it is fnmatch's with no
 * flags in the C locale (bytes; '*' and '?' cross '/'; a backslash quotes;
 * brackets with ranges, '!' or '^' and [:class:]). */
#include <ctype.h>
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
		if (p[i] == '[' && (p[i + 1] == '.' || p[i + 1] == '=')) {
			/* fnmatch's collating symbols and equivalence
			 * classes: our matcher has no locale to give them
			 * a meaning beyond the character itself. */
			snprintf(why, why_size,
				 "'[%c' in a bracket (a collating symbol or "
				 "equivalence class) is not supported",
				 p[i + 1]);
			return 0;
		}
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
	return pattern_check_flags(pattern, 0, why, why_size);
}

/* Under PATTERN_SLASHES a backslash separates, it does not quote. */
int pattern_check_flags(const char *pattern, unsigned flags, char *why,
			size_t why_size)
{
	for (size_t i = 0; pattern[i]; i++) {
		if (pattern[i] == '\\' && !(flags & PATTERN_SLASHES)) {
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
	return pattern_is_literal_flags(pattern, 0);
}

bool pattern_is_literal_flags(const char *pattern, unsigned flags)
{
	return strpbrk(pattern, flags & PATTERN_SLASHES ? "*?[" : "*?[\\") ==
	       NULL;
}

static bool pattern_sep(char c, unsigned flags)
{
	return c == '/' || ((flags & PATTERN_SLASHES) && c == '\\');
}

/* Absolute: from '/' on Linux; under PATTERN_SLASHES (Windows) from a
 * drive (C:\ or C:/) or a share (\\server\share\, either slash), never
 * from the current drive's root (\dir) or a drive's current folder
 * (C:dir), which depend on the caller's state. */
bool pattern_is_absolute(const char *path, unsigned flags)
{
	const char *share;

	if (!(flags & PATTERN_SLASHES))
		return path[0] == '/';
	if (((path[0] >= 'A' && path[0] <= 'Z') ||
	     (path[0] >= 'a' && path[0] <= 'z')) &&
	    path[1] == ':' && pattern_sep(path[2], flags))
		return true;
	if (!pattern_sep(path[0], flags) || !pattern_sep(path[1], flags))
		return false;
	/* \\server\share\: a server and a share, neither empty, nor the
	 * device namespaces \\.\ and \\?\. */
	share = path + 2;
	if (!*share || pattern_sep(*share, flags) ||
	    ((share[0] == '.' || share[0] == '?') &&
	     pattern_sep(share[1], flags)))
		return false;
	while (*share && !pattern_sep(*share, flags))
		share++;
	if (!*share || !share[1] || pattern_sep(share[1], flags))
		return false;
	share++;
	while (*share && !pattern_sep(*share, flags))
		share++;
	return pattern_sep(*share, flags) && share[1];
}

static bool pattern_class_has(const char *name, size_t len, int c)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = {
		{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank},
		{"cntrl", iscntrl}, {"digit", isdigit}, {"graph", isgraph},
		{"lower", islower}, {"print", isprint}, {"punct", ispunct},
		{"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
	};

	for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++) {
		if (strlen(classes[i].name) == len &&
		    strncmp(classes[i].name, name, len) == 0)
			return classes[i].is(c) != 0;
	}
	return false;
}

/* c as the matcher compares it: '\' is '/' and ASCII letters are lower
 * case under the flags that say so. */
static unsigned char pattern_fold(unsigned char c, unsigned flags)
{
	if ((flags & PATTERN_SLASHES) && c == '\\')
		return '/';
	if ((flags & PATTERN_FOLD) && c >= 'A' && c <= 'Z')
		return (unsigned char)(c - 'A' + 'a');
	return c;
}

/* One member character of a bracket, quoted or not. */
static unsigned char pattern_member(const char **p, unsigned flags)
{
	unsigned char c;

	if (**p == '\\' && !(flags & PATTERN_SLASHES) && (*p)[1])
		(*p)++;
	c = (unsigned char)*(*p)++;
	return pattern_fold(c, flags & PATTERN_SLASHES);
}

/* Whether the members of a bracket expression at p (past its '[' and
 * any '!') hold c; *end is set past its ']', or to NULL when it is never
 * closed: then '[' is an ordinary character, as fnmatch has it. */
static bool pattern_bracket_has(const char *p, unsigned char c, unsigned flags,
				const char **end)
{
	bool found = false, first = true;

	*end = NULL;
	c = pattern_fold(c, flags & PATTERN_SLASHES);
	for (;;) {
		unsigned char lo, hi;

		if (!*p)
			return false;
		if (*p == ']' && !first)
			break;
		first = false;
		if (p[0] == '[' && p[1] == ':') {
			const char *close = strstr(p + 2, ":]");

			if (close) {
				if (pattern_class_has(
					    p + 2, (size_t)(close - p - 2), c))
					found = true;
				p = close + 2;
				continue;
			}
		}
		lo = pattern_member(&p, flags);
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			hi = pattern_member(&p, flags);
		}
		if (lo <= c && c <= hi)
			found = true;
	}
	*end = p + 1;
	return found;
}

/* A bracket expression at p (just past its '['): under PATTERN_FOLD it
 * holds c when its members hold c in either case. */
static bool pattern_bracket(const char *p, unsigned char c, unsigned flags,
			    const char **end)
{
	bool negate = *p == '!' || *p == '^';
	bool in = pattern_bracket_has(p + negate, c, flags, end);

	if (!in && *end && (flags & PATTERN_FOLD)) {
		unsigned char other = c;

		if (c >= 'A' && c <= 'Z')
			other = (unsigned char)(c - 'A' + 'a');
		else if (c >= 'a' && c <= 'z')
			other = (unsigned char)(c - 'a' + 'A');
		in = other != c &&
		     pattern_bracket_has(p + negate, other, flags, end);
	}
	return in != negate;
}

/* One pattern element (a character, quoted or not, '?' or a bracket
 * expression; '*' is the caller's) against the character c: true when it
 * matches, with *p past the element. Public so that what is planned from
 * a pattern (execplan.c: can this element match a '/'?) is the matcher's
 * own answer, not a second reading of the syntax. */
bool pattern_element(const char **p, unsigned char c, unsigned flags)
{
	const char *q = *p;
	unsigned char want;

	if (*q == '?') {
		*p = q + 1;
		return true;
	}
	if (*q == '[') {
		const char *end;
		bool in = pattern_bracket(q + 1, c, flags, &end);

		if (end) {
			*p = end;
			return in;
		}
	}
	if (*q == '\\' && !(flags & PATTERN_SLASHES) && q[1])
		q++;
	want = (unsigned char)*q;
	*p = q + 1;
	return pattern_fold(want, flags) == pattern_fold(c, flags);
}

/* The element at *p as the literal character it stands for, folded as
 * the matcher compares it (pattern_element's reading), with *p past it;
 * false for a wildcard: '*', '?' or a closed bracket expression. */
static bool pattern_literal_element(const char **p, unsigned flags,
				    unsigned char *c)
{
	const char *q = *p;

	if (*q == '*' || *q == '?') {
		*p = q + 1;
		return false;
	}
	if (*q == '[') {
		const char *end;

		pattern_bracket(q + 1, 0, flags, &end);
		if (end) {
			*p = end;
			return false;
		}
	}
	if (*q == '\\' && !(flags & PATTERN_SLASHES) && q[1])
		q++;
	*c = pattern_fold((unsigned char)*q, flags);
	*p = q + 1;
	return true;
}

/* The literal run asked for, unquoted and folded (so that it compares
 * with a text folded by pattern_key), in buf; returns its length, 0 when
 * there is none. What does not fit is cut off where the run stays one
 * every match holds: a prefix's end, a suffix's start. */
size_t pattern_literal_run(const char *pattern, unsigned flags,
			   enum pattern_run which, char *buf, size_t size)
{
	const char *p = pattern, *start = pattern, *best_at = pattern;
	size_t run = 0, best = 0, skip = 0, n = 0;
	unsigned char c;

	while (*p) {
		const char *at = p;

		if (!pattern_literal_element(&p, flags, &c)) {
			if (which == PATTERN_RUN_PREFIX)
				break;
			run = 0;
			continue;
		}
		if (!run++)
			start = at;
		if (run > best || which != PATTERN_RUN_LONGEST) {
			best = run;
			best_at = start;
		}
	}
	if (which == PATTERN_RUN_SUFFIX)
		best = run; /* 0 when the pattern ends in a wildcard */
	if (!size)
		return 0;
	if (best >= size)
		skip = which == PATTERN_RUN_SUFFIX ? best - (size - 1) : 0;
	p = best_at;
	for (size_t i = 0; i < best; i++) {
		pattern_literal_element(&p, flags, &c);
		if (i >= skip && n < size - 1)
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return n;
}

/* The classic backtracking of the last '*': each star only ever needs to
 * retry at one more character of the text than the last time. */
bool pattern_match_flags(const char *pattern, const char *text, unsigned flags)
{
	const char *p = pattern, *t = text;
	const char *star_p = NULL, *star_t = NULL;

	/* Under PATTERN_SLASHES (Windows), a pattern rooted at one '/' is a
	 * Linux path of a file serving both systems: it names nothing
	 * there, not even a share (\\\\srv\\...) a glob like "/ *" would
	 * otherwise reach. */
	if ((flags & PATTERN_SLASHES) && pattern[0] == '/' &&
	    pattern[1] != '/' && pattern[1] != '\\')
		return false;

	while (*t) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_t = t;
			continue;
		}
		if (*p && pattern_element(&p, (unsigned char)*t, flags)) {
			t++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		t = ++star_t;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/* No FNM_PATHNAME: '*' crosses '/', so a trailing '*' after a directory
 * covers everything below it. */
bool pattern_match(const char *pattern, const char *text)
{
	return pattern_match_flags(pattern, text, 0);
}

/* A literal as it is compared under the flags (the key of an exact
 * match): ASCII folded, '\\' as '/'. text itself without flags; NULL
 * when it does not fit in buf. */
char *pattern_key(const char *text, unsigned flags, char *buf, size_t size)
{
	size_t len = strlen(text);

	if (!flags)
		return (char *)text;
	if (len >= size)
		return NULL;
	for (size_t i = 0; i <= len; i++)
		buf[i] = (char)pattern_fold((unsigned char)text[i], flags);
	return buf;
}
