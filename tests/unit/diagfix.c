/* The import tests' check of their warnings (diagfix.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diagfix.h"

void diagfix_warnings(const char *name, const struct diag *diag, size_t count,
		      const char *first)
{
	if (diag->warnings != count)
		fail_msg("%s: %zu warnings, wanted %zu (first: %s)", name,
			 diag->warnings, count,
			 diag->count ? diag->entries[0].message : "none");
	if (first)
		assert_non_null(strstr(diag->entries[0].message, first));
}
