/* Diagnostics from rule and config files, collected so that one run reports
 * every problem and a reload can hand them to the client that asked. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "quote.h"
#include "util.h"

void diag_init(struct diag *diag)
{
	*diag = (struct diag){0};
}

void diag_free(struct diag *diag)
{
	for (size_t i = 0; i < diag->count; i++) {
		free(diag->entries[i].file);
		free(diag->entries[i].message);
	}
	free(diag->entries);
	diag_init(diag);
}

/* A new entry, counted; NULL past DIAG_MAX_ENTRIES (counted, not kept). */
static struct diag_entry *diag_slot(struct diag *diag,
				    enum diag_severity severity)
{
	if (severity == DIAG_SEVERITY_ERROR)
		diag->errors++;
	else
		diag->warnings++;
	if (diag->count >= DIAG_MAX_ENTRIES) {
		diag->dropped++;
		return NULL;
	}
	if (diag->count == diag->capacity) {
		diag->capacity = diag->capacity ? diag->capacity * 2 : 16;
		diag->entries = xreallocarray(diag->entries, diag->capacity,
					      sizeof(*diag->entries));
	}
	return &diag->entries[diag->count++];
}

static void diag_add(struct diag *diag, enum diag_severity severity,
		     const char *file, unsigned line, const char *fmt,
		     va_list ap)
{
	struct diag_entry *entry = diag_slot(diag, severity);
	char message[512];

	if (!entry)
		return;
	vsnprintf(message, sizeof(message), fmt, ap);
	entry->severity = severity;
	/* Messages quote what others wrote (names, paths, a line's text) and
	 * go to a terminal, a log or a client: a control byte in them is
	 * shown escaped, never sent. */
	entry->file = quote_display(file ? file : "(unknown)");
	entry->line = line;
	entry->message = quote_display(message);
}

/* An entry of another diag, as it is (escaped once already). */
void diag_copy(struct diag *diag, const struct diag_entry *from)
{
	struct diag_entry *entry = diag_slot(diag, from->severity);

	if (!entry)
		return;
	*entry = *from;
	entry->file = xstrdup(from->file);
	entry->message = xstrdup(from->message);
}

void diag_error(struct diag *diag, const char *file, unsigned line,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(diag, DIAG_SEVERITY_ERROR, file, line, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *diag, const char *file, unsigned line,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(diag, DIAG_SEVERITY_WARNING, file, line, fmt, ap);
	va_end(ap);
}

void diag_format(const struct diag_entry *entry, char *buf, size_t size)
{
	const char *what =
		entry->severity == DIAG_SEVERITY_ERROR ? "error" : "warning";

	if (entry->line)
		snprintf(buf, size, "%s:%u: %s: %s", entry->file, entry->line,
			 what, entry->message);
	else
		snprintf(buf, size, "%s: %s: %s", entry->file, what,
			 entry->message);
}

void diag_print(const struct diag *diag, FILE *out, bool with_warnings)
{
	char line[1024];

	for (size_t i = 0; i < diag->count; i++) {
		if (!with_warnings &&
		    diag->entries[i].severity == DIAG_SEVERITY_WARNING)
			continue;
		diag_format(&diag->entries[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	if (diag->dropped)
		fprintf(out, "... and %zu more\n", diag->dropped);
}

/* Checks run in passes, not line by line; a reader wants line order. Stable:
 * messages about one line keep the order they were made in. */
void diag_sort_lines(struct diag *diag, size_t first)
{
	for (size_t i = first + 1; i < diag->count; i++) {
		struct diag_entry entry = diag->entries[i];
		size_t j = i;

		while (j > first && diag->entries[j - 1].line > entry.line) {
			diag->entries[j] = diag->entries[j - 1];
			j--;
		}
		diag->entries[j] = entry;
	}
}
