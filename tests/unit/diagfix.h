/* What the import tests check of what an import said: how many warnings,
 * and a part of the first one. */
#ifndef CPUPOLICY_DIAGFIX_H
#define CPUPOLICY_DIAGFIX_H

#include <stddef.h>

#include "diag.h"

/* The test named fails unless diag holds `count` warnings and, where
 * `first` is not NULL, its first entry says it. */
void diagfix_warnings(const char *name, const struct diag *diag, size_t count,
		      const char *first);

#endif
