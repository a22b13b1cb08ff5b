/* The control protocol: requests any local client may send, responses,
 * and JSON strings of text anyone chose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "proto.h"

struct request_case {
	const char *name;
	const char *text;
	int status;
	enum proto_verb verb;
	bool json;
	pid_t pid;
	const char *why;
};

static const struct request_case request_cases[] = {
	{"status", "status\n", 0, PROTO_VERB_STATUS, false, 0, NULL},
	{"status json", "status json\n", 0, PROTO_VERB_STATUS, true, 0, NULL},
	{"explain", "explain 42\n", 0, PROTO_VERB_EXPLAIN, false, 42, NULL},
	{"explain json", "explain 42 json", 0, PROTO_VERB_EXPLAIN, true, 42,
	 NULL},
	{"reload", "reload\n", 0, PROTO_VERB_RELOAD, false, 0, NULL},
	{"metrics", "metrics\n", 0, PROTO_VERB_METRICS, false, 0, NULL},
	{"restraint pause", "restraint-pause\n", 0, PROTO_VERB_RESTRAINT_PAUSE,
	 false, 0, NULL},
	{"restraint resume", "restraint-resume\n", 0,
	 PROTO_VERB_RESTRAINT_RESUME, false, 0, NULL},
	{"restraint exempt", "restraint-exempt 42\n", 0,
	 PROTO_VERB_RESTRAINT_EXEMPT, false, 42, NULL},
	{"restraint exempt without pid", "restraint-exempt\n", -1, 0, false, 0,
	 "restraint-exempt needs a pid"},
	{"foreground", "foreground 77\n", 0, PROTO_VERB_FOREGROUND, false, 77,
	 NULL},
	{"foreground without pid", "foreground\n", -1, 0, false, 0,
	 "foreground needs a pid"},
	{"pid on pause", "restraint-pause 42\n", -1, 0, false, 0,
	 "unexpected '42' in restraint-pause"},
	{"empty", "\n", -1, 0, false, 0, "malformed request"},
	{"unknown verb", "shutdown\n", -1, 0, false, 0,
	 "unknown request 'shutdown'"},
	{"explain without pid", "explain\n", -1, 0, false, 0,
	 "explain needs a pid"},
	{"explain negative pid", "explain -1\n", -1, 0, false, 0,
	 "unexpected '-1'"},
	{"explain huge pid", "explain 99999999999\n", -1, 0, false, 0,
	 "unexpected"},
	{"json on reload", "reload json\n", -1, 0, false, 0,
	 "unexpected 'json' in reload"},
	{"too many words", "status json json json json\n", -1, 0, false, 0,
	 "too many words"},
	{"nul inside", "stat\0us\n", -1, 0, false, 0, "malformed"},
};

static void test_request_case(void **state)
{
	const struct request_case *c = *state;
	struct proto_request req;
	char why[128] = "";
	size_t len = strlen(c->text);
	int status;

	if (strcmp(c->name, "nul inside") == 0)
		len = 8;
	status = proto_parse_request(c->text, len, &req, why, sizeof(why));
	assert_int_equal(status, c->status);
	if (c->status < 0) {
		assert_non_null(strstr(why, c->why));
		return;
	}
	assert_int_equal(req.verb, c->verb);
	assert_int_equal(req.json, c->json);
	assert_int_equal(req.pid, c->pid);
}

static void test_round_trip(void **state)
{
	struct proto_request req = {.verb = PROTO_VERB_EXPLAIN,
				    .pid = 7,
				    .json = true},
			     back;
	char line[PROTO_MAX_REQUEST], why[64];

	(void)state;
	assert_true(proto_format_request(&req, line, sizeof(line)) > 0);
	assert_string_equal(line, "explain 7 json\n");
	assert_int_equal(proto_parse_request(line, strlen(line), &back, why,
					     sizeof(why)),
			 0);
	assert_int_equal(back.verb, req.verb);
	assert_int_equal(back.pid, req.pid);
	assert_true(back.json);
	req = (struct proto_request){.verb = PROTO_VERB_RESTRAINT_EXEMPT,
				     .pid = 9};
	assert_true(proto_format_request(&req, line, sizeof(line)) > 0);
	assert_string_equal(line, "restraint-exempt 9\n");
}

static void test_response(void **state)
{
	size_t body;
	int status;

	(void)state;
	assert_int_equal(proto_parse_response("0\nhello", 7, &status, &body),
			 0);
	assert_int_equal(status, 0);
	assert_int_equal(body, 2);
	assert_int_equal(proto_parse_response("1\n", 2, &status, &body), 0);
	assert_int_equal(status, 1);
	assert_int_equal(proto_parse_response("x\n", 2, &status, &body), -1);
	assert_int_equal(proto_parse_response("256\n", 4, &status, &body), -1);
	assert_int_equal(proto_parse_response("0", 1, &status, &body), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_response),
	};

	return unit_run("proto", UNIT_TABLE(request_cases, test_request_case),
			UNIT_TESTS(tests), NULL, NULL);
}
