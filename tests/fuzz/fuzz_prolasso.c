/* libFuzzer target: any bytes as a prolasso.ini (UTF-8 or UTF-16LE),
 * imported. Must never crash, leak or read out of bounds, and what it
 * writes must pass the rule check for Windows. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prolasso.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ananicy_options opt = {
		.user = size % 3 == 1 ? "root" : NULL,
		.allow_spoofable = size % 3 == 2,
	};
	struct prolasso_result res;
	struct diag diag;
	struct rules rules;
	char why[128], *text;
	size_t len;

	text = prolasso_decode((const char *)data, size, &len, why,
			       sizeof(why));
	if (!text)
		return 0;
	diag_init(&diag);
	prolasso_import("fuzz.ini", text, len, &opt, &res, &diag);
	diag_free(&diag);
	if (res.file.text) {
		rules_init(&rules);
		rules.system = RULES_SYSTEM_WINDOWS;
		diag_init(&diag);
		rules_load_text(&rules, res.file.name, res.file.text,
				res.file.len, &diag);
		if (diag.errors) {
			fprintf(stderr, "%s:%u: %s\n%s\n", diag.entries[0].file,
				diag.entries[0].line, diag.entries[0].message,
				res.file.text);
			abort();
		}
		diag_free(&diag);
		rules_free(&rules);
	}
	prolasso_result_free(&res);
	free(text);
	return 0;
}
