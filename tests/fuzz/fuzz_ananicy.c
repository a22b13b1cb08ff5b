/* libFuzzer target: any bytes as an ananicy rule file, imported. Must
 * never crash, leak or read out of bounds, and what it writes must pass
 * the rule check: an import never writes a file check refuses. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ananicy.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(const struct ananicy_file *file)
{
	struct rules rules;
	struct diag diag;

	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, file->name, file->text, file->len, &diag);
	if (diag.errors) {
		fprintf(stderr, "%s:%u: %s\n%s\n", diag.entries[0].file,
			diag.entries[0].line, diag.entries[0].message,
			file->text);
		abort();
	}
	diag_free(&diag);
	rules_free(&rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The length picks how raising rules are written. */
	struct ananicy_options opt = {
		.user = size % 3 == 1 ? "root" : NULL,
		.allow_spoofable = size % 3 == 2,
	};
	struct ananicy_result res;
	struct ananicy a;
	struct diag diag;

	ananicy_init(&a);
	diag_init(&diag);
	ananicy_parse(&a, "fuzz.types", "", (const char *)data, size, &diag);
	ananicy_parse(&a, "dir/fuzz.rules", "dir", (const char *)data, size,
		      &diag);
	ananicy_import(&a, &opt, &res, &diag);
	for (size_t i = 0; i < res.file_count; i++)
		fuzz_check(&res.files[i]);
	ananicy_result_free(&res);
	diag_free(&diag);
	ananicy_free(&a);
	return 0;
}
