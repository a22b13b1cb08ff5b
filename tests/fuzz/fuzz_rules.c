/* libFuzzer target: any bytes as a rule file. Must never crash, leak or
 * read out of bounds, whatever it reports. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct rules rules;
	struct diag diag;

	memcpy(text, data, size);
	text[size] = '\0';
	rules_init(&rules);
	/* Both systems' checks: the length's parity picks one. */
	rules.system = size & 1 ? RULES_SYSTEM_WINDOWS : RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, "fuzz.rules", text, size, &diag);
	if (!diag.errors) {
		FILE *null = fopen("/dev/null", "w");

		rules_print(&rules, null);
		fclose(null);
	}
	diag_free(&diag);
	rules_free(&rules);
	free(text);
	return 0;
}
