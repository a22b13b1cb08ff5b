/* Shell-style glob patterns of match keys (fnmatch(3) syntax): checking
 * them up front, telling literals from globs, matching. */
#ifndef CPUPOLICY_PATTERN_H
#define CPUPOLICY_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* How a pattern compares, beyond fnmatch's defaults: Windows paths. */
enum pattern_flags {
	PATTERN_FOLD = 1 << 0,	  /* ASCII letters in either case */
	PATTERN_SLASHES = 1 << 1, /* '\\' is '/', never a quote */
};

/* Which literal run of a pattern: the one every text it matches starts
 * with, ends with, or holds somewhere (the longest). */
enum pattern_run {
	PATTERN_RUN_PREFIX,
	PATTERN_RUN_SUFFIX,
	PATTERN_RUN_LONGEST,
};

/* pattern.c */
int pattern_check(const char *pattern, char *why, size_t why_size);
int pattern_check_flags(const char *pattern, unsigned flags, char *why,
			size_t why_size);
bool pattern_is_literal(const char *pattern);
bool pattern_is_literal_flags(const char *pattern, unsigned flags);
bool pattern_is_absolute(const char *path, unsigned flags);
char *pattern_key(const char *text, unsigned flags, char *buf, size_t size);
bool pattern_match(const char *pattern, const char *text);
bool pattern_match_flags(const char *pattern, const char *text, unsigned flags);
bool pattern_element(const char **p, unsigned char c, unsigned flags);
size_t pattern_literal_run(const char *pattern, unsigned flags,
			   enum pattern_run which, char *buf, size_t size);

#endif
