/* libFuzzer target: any bytes as a control request (what any local client
 * may send the daemon), as a response (what the CLI reads back) and as a
 * string the daemon's JSON carries (a process name), which must parse
 * back as valid UTF-8 JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_json_string(const char *text)
{
	struct json_object *doc = json_object_new_array(), *back;
	struct json_tokener *tok = json_tokener_new();
	const char *json;

	json_object_array_add(doc, jsonout_string(text));
	json = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, json, (int)strlen(json));
	if (!back || json_object_array_length(back) != 1)
		abort();
	json_object_put(back);
	json_object_put(doc);
	json_tokener_free(tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_request req;
	char why[128], line[PROTO_MAX_REQUEST];
	size_t body;
	int status;

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
	if (size) {
		char *text = malloc(size + 1);

		memcpy(text, data, size);
		text[size] = '\0';
		fuzz_json_string(text);
		free(text);
	}
	return 0;
}
