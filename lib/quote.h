/* Strangers' strings (names an import read, a process's name and command
 * line) written where they could pass for something else: into a rule
 * file as a libconfig string, or onto a terminal and into a # comment,
 * where nothing can be escaped. */
#ifndef CPUPOLICY_QUOTE_H
#define CPUPOLICY_QUOTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum quote_mode {
	/* A libconfig string, quotes included: read back, it is the text
	 * byte for byte, and the file holds no control byte. */
	QUOTE_MODE_CONFIG,
	/* The same, with the glob characters quoted for the matcher: a
	 * name compared whole. */
	QUOTE_MODE_GLOB,
	/* For a terminal or a comment: control bytes, invalid UTF-8 and
	 * the characters that reorder or break lines as \xNN, and so is a
	 * backslash before an x (\x5c), so that every \x shown is an
	 * escape. Other backslashes (every Windows path's) stay. */
	QUOTE_MODE_DISPLAY,
};

/* The whole text, up to its NUL. */
#define QUOTE_ALL SIZE_MAX

/* quote.c */
size_t quote_len(const char *text, size_t max, enum quote_mode mode);
char *quote_dup(const char *text, size_t max, enum quote_mode mode);
void quote_write(FILE *out, const char *text, size_t max, enum quote_mode mode);
char *quote_display(const char *text);

#endif
