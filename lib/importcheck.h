/* An import's output read back with the rule parser before it counts as
 * written: it must load the rules the import counted, and raise nothing
 * the import's options did not allow. Judges the text only (not who owns
 * a file): the caller hands it what it read back. */
#ifndef CPUPOLICY_IMPORTCHECK_H
#define CPUPOLICY_IMPORTCHECK_H

#include <stddef.h>

#include "ananicy.h" /* struct ananicy_file, ananicy_options */
#include "diag.h"
#include "rules.h"

/* importcheck.c */
int importcheck_files(const struct ananicy_file *files, size_t count,
		      enum rules_system system,
		      const struct ananicy_options *opt, size_t counted,
		      const char *label, struct diag *diag);

#endif
