/* libFuzzer target: any bytes as a prolasso.ini (UTF-8 or UTF-16LE),
 * imported. Must never crash, leak or read out of bounds, and what it
 * writes, read back for Windows as the command reads it back, must load
 * exactly the rules it counted and raise nothing its options did not
 * allow. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "importcheck.h"
#include "prolasso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ananicy_options opt = {
		.user = size % 3 == 1 ? "root" : NULL,
		.allow_spoofable = size % 3 == 2,
	};
	struct prolasso_result res;
	struct diag diag;
	char why[128], *text;
	size_t len;

	text = prolasso_decode((const char *)data, size, &len, why,
			       sizeof(why));
	if (!text)
		return 0;
	diag_init(&diag);
	prolasso_import("fuzz.ini", text, len, &opt, &res, &diag);
	diag_free(&diag);
	diag_init(&diag);
	if (importcheck_files(&res.file, res.file.text ? 1 : 0,
			      RULES_SYSTEM_WINDOWS, &opt, res.groups, "out",
			      &diag) < 0) {
		diag_print(&diag, stderr, true);
		fprintf(stderr, "%s\n", res.file.text ? res.file.text : "");
		abort();
	}
	diag_free(&diag);
	prolasso_result_free(&res);
	free(text);
	return 0;
}
