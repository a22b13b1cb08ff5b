/* libFuzzer target: any bytes as an ananicy rule file, imported. Must
 * never crash, leak or read out of bounds, and what it writes, read back
 * as the command reads it back, must load exactly the rules it counted
 * and raise nothing its options did not allow. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ananicy.h"
#include "importcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(const struct ananicy_result *res,
		       const struct ananicy_options *opt)
{
	struct diag diag;

	diag_init(&diag);
	if (importcheck_files(res->files, res->file_count, RULES_SYSTEM_LINUX,
			      opt, res->groups, "out", &diag) < 0) {
		diag_print(&diag, stderr, true);
		for (size_t i = 0; i < res->file_count; i++)
			fprintf(stderr, "%s\n", res->files[i].text);
		abort();
	}
	diag_free(&diag);
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
	fuzz_check(&res, &opt);
	ananicy_result_free(&res);
	diag_free(&diag);
	ananicy_free(&a);
	return 0;
}
