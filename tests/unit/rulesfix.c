/* The tests' rules from a text (rulesfix.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"
#include "rulesfix.h"

void rulesfix_load(struct rules *r, enum rules_system system, const char *text)
{
	struct diag diag;

	diag_init(&diag);
	rules_init(r);
	r->system = system;
	rules_load_text(r, "t.rules", text, strlen(text), &diag);
	if (diag.errors)
		diag_print(&diag, stderr, true);
	assert_int_equal(diag.errors, 0);
	diag_free(&diag);
}
