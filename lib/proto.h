/* The control protocol between cpupolicyctl and cpupolicyd, over a UNIX
 * stream socket: one request line, one response, then the server closes.
 * The response's first line is the exit status for the client; the rest
 * is the text to show (stdout on 0, stderr otherwise). */
#ifndef CPUPOLICY_PROTO_H
#define CPUPOLICY_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PROTO_MAX_REQUEST 256

enum proto_verb {
	PROTO_VERB_PING,
	PROTO_VERB_STATUS,
	PROTO_VERB_EXPLAIN,
	PROTO_VERB_RELOAD,
	PROTO_VERB_METRICS,
	/* Restraint's everyday controls (cpupolicyctl restraint). */
	PROTO_VERB_RESTRAINT_PAUSE,
	PROTO_VERB_RESTRAINT_RESUME,
	PROTO_VERB_RESTRAINT_EXEMPT, /* of pid */
	/* pid is its user's foreground (cpupolicyctl agent). */
	PROTO_VERB_FOREGROUND,
};

struct proto_request {
	enum proto_verb verb;
	bool json;
	pid_t pid;
};

/* proto.c */
int proto_parse_request(const char *text, size_t len, struct proto_request *req,
			char *why, size_t why_size);
int proto_format_request(const struct proto_request *req, char *buf,
			 size_t size);
int proto_parse_response(const char *text, size_t len, int *status,
			 size_t *body);
const char *proto_verb_name(enum proto_verb verb);

#endif
