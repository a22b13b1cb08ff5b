/* Reading Process Lasso's prolasso.ini (UTF-16LE with a BOM as Windows
 * writes it, or UTF-8) and turning its per-process rules into a cpupolicy
 * rule file for the Windows backend. Pure: the caller reads the file and
 * writes the result. */
#ifndef CPUPOLICY_PROLASSO_H
#define CPUPOLICY_PROLASSO_H

#include <stdbool.h>
#include <stddef.h>

#include "ananicy.h" /* struct ananicy_file, ananicy_unmapped, options */
#include "diag.h"

struct prolasso_result {
	struct ananicy_file file;	     /* text NULL: nothing to write */
	size_t entries;			     /* name,value entries read */
	size_t processes;		     /* names with something mapped */
	size_t groups;			     /* cpupolicy rules written */
	size_t narrowed, opted_in, left_out; /* processes of raising rules */
	struct ananicy_unmapped *unmapped;
	size_t unmapped_count;
};

/* prolasso.c */
char *prolasso_decode(const char *data, size_t len, size_t *out_len, char *why,
		      size_t why_size);
void prolasso_import(const char *path, const char *text, size_t len,
		     const struct ananicy_options *opt,
		     struct prolasso_result *res, struct diag *diag);
void prolasso_result_free(struct prolasso_result *res);

#endif
