/* libFuzzer target: any bytes as the daemon config. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct conf conf;
	struct diag diag;

	memcpy(text, data, size);
	text[size] = '\0';
	conf_init(&conf);
	diag_init(&diag);
	conf_load_text(&conf, "fuzz.conf", text, size, &diag);
	diag_free(&diag);
	conf_free(&conf);
	free(text);
	return 0;
}
