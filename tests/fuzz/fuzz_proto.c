/* libFuzzer target: any bytes as a control request (what any local client
 * may send the daemon) and as a response (what the CLI reads back). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_request req;
	char why[128], line[PROTO_MAX_REQUEST];
	size_t body;
	int status;
	FILE *null;

	if (proto_parse_request((const char *)data, size, &req, why,
				sizeof(why)) == 0) {
		/* What parses must print back as a request that parses. */
		if (proto_format_request(&req, line, sizeof(line)) < 0 ||
		    proto_parse_request(line, strlen(line), &req, why,
					sizeof(why)) < 0)
			abort();
	}
	if (proto_parse_response((const char *)data, size, &status, &body) ==
		    0 &&
	    (body > size || status < 0 || status > 255))
		abort();
	null = fopen("/dev/null", "w");
	if (null && size) {
		char *text = malloc(size + 1);

		memcpy(text, data, size);
		text[size] = '\0';
		proto_json_string(null, text);
		free(text);
	}
	if (null)
		fclose(null);
	return 0;
}
