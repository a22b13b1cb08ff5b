/* The control protocol: "VERB [PID] [json]\n" in, "STATUS\nTEXT" out.
 * The server parses what any local client sends: bounded, strict. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

static const char *const proto_verbs[] = {
	[PROTO_VERB_PING] = "ping",
	[PROTO_VERB_STATUS] = "status",
	[PROTO_VERB_EXPLAIN] = "explain",
	[PROTO_VERB_RELOAD] = "reload",
	[PROTO_VERB_METRICS] = "metrics",
	[PROTO_VERB_RESTRAINT_PAUSE] = "restraint-pause",
	[PROTO_VERB_RESTRAINT_RESUME] = "restraint-resume",
	[PROTO_VERB_RESTRAINT_EXEMPT] = "restraint-exempt",
	[PROTO_VERB_FOREGROUND] = "foreground",
};

/* The verbs that name a process. */
static bool proto_takes_pid(enum proto_verb verb)
{
	return verb == PROTO_VERB_EXPLAIN ||
	       verb == PROTO_VERB_RESTRAINT_EXEMPT ||
	       verb == PROTO_VERB_FOREGROUND;
}

const char *proto_verb_name(enum proto_verb verb)
{
	return proto_verbs[verb];
}

static int proto_pid(const char *word, pid_t *pid)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)word[0]))
		return -1;
	errno = 0;
	n = strtol(word, &end, 10);
	if (*end || errno || n <= 0 || n > INT_MAX)
		return -1;
	*pid = (pid_t)n;
	return 0;
}

int proto_parse_request(const char *text, size_t len, struct proto_request *req,
			char *why, size_t why_size)
{
	char line[PROTO_MAX_REQUEST], *words[4], *save = NULL, *w;
	size_t count = 0, verb;

	*req = (struct proto_request){0};
	if (len && text[len - 1] == '\n')
		len--;
	if (len == 0 || len >= sizeof(line) || memchr(text, '\0', len)) {
		snprintf(why, why_size, "malformed request");
		return -1;
	}
	memcpy(line, text, len);
	line[len] = '\0';
	for (w = strtok_r(line, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		if (count == ARRAY_SIZE(words)) {
			snprintf(why, why_size, "too many words in request");
			return -1;
		}
		words[count++] = w;
	}
	if (!count) {
		snprintf(why, why_size, "malformed request");
		return -1;
	}
	for (verb = 0; verb < ARRAY_SIZE(proto_verbs); verb++) {
		if (strcmp(words[0], proto_verbs[verb]) == 0)
			break;
	}
	if (verb == ARRAY_SIZE(proto_verbs)) {
		snprintf(why, why_size, "unknown request '%.32s'", words[0]);
		return -1;
	}
	req->verb = (enum proto_verb)verb;
	for (size_t i = 1; i < count; i++) {
		if (strcmp(words[i], "json") == 0 &&
		    (req->verb == PROTO_VERB_STATUS ||
		     req->verb == PROTO_VERB_EXPLAIN))
			req->json = true;
		else if (proto_takes_pid(req->verb) && !req->pid &&
			 proto_pid(words[i], &req->pid) == 0)
			continue;
		else {
			snprintf(why, why_size, "unexpected '%.32s' in %s",
				 words[i], words[0]);
			return -1;
		}
	}
	if (proto_takes_pid(req->verb) && !req->pid) {
		snprintf(why, why_size, "%s needs a pid", words[0]);
		return -1;
	}
	return 0;
}

int proto_format_request(const struct proto_request *req, char *buf,
			 size_t size)
{
	int n;

	if (proto_takes_pid(req->verb))
		n = snprintf(buf, size, "%s %d%s\n", proto_verbs[req->verb],
			     (int)req->pid, req->json ? " json" : "");
	else
		n = snprintf(buf, size, "%s%s\n", proto_verbs[req->verb],
			     req->json ? " json" : "");
	return n < 0 || (size_t)n >= size ? -1 : n;
}

int proto_parse_response(const char *text, size_t len, int *status,
			 size_t *body)
{
	const char *nl = memchr(text, '\n', len);
	char *end;
	long n;

	if (!nl || nl == text || nl - text > 3 ||
	    !isdigit((unsigned char)text[0]))
		return -1;
	n = strtol(text, &end, 10);
	if (end != nl || n < 0 || n > 255)
		return -1;
	*status = (int)n;
	*body = (size_t)(nl - text) + 1;
	return 0;
}
