/* Diagnostics from rule and config files, collected so that one run reports
 * every problem and a reload can hand them to the client that asked. */
#ifndef CPUPOLICY_DIAG_H
#define CPUPOLICY_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ostypes.h" /* OS_PRINTF */

enum diag_severity {
	DIAG_SEVERITY_ERROR,
	DIAG_SEVERITY_WARNING,
};

struct diag_entry {
	enum diag_severity severity;
	char *file;
	unsigned line; /* 0: the whole file */
	char *message;
};

struct diag {
	struct diag_entry *entries;
	size_t count, capacity;
	size_t errors, warnings;
	size_t dropped; /* past DIAG_MAX_ENTRIES: counted, not kept */
};

/* Hostile input can produce an error per byte; keep memory bounded. */
#define DIAG_MAX_ENTRIES 1000

/* diag.c */
void diag_init(struct diag *diag);
void diag_free(struct diag *diag);
void diag_error(struct diag *diag, const char *file, unsigned line,
		const char *fmt, ...) __attribute__((format(OS_PRINTF, 4, 5)));
void diag_warning(struct diag *diag, const char *file, unsigned line,
		  const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 4, 5)));
void diag_copy(struct diag *diag, const struct diag_entry *from);
void diag_sort_lines(struct diag *diag, size_t first);
void diag_format(const struct diag_entry *entry, char *buf, size_t size);
void diag_print(const struct diag *diag, FILE *out, bool with_warnings);

#endif
