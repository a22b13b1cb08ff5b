/* cpupolicyctl status, explain, reload and metrics: requests to the
 * daemon and its answers. The connection is the system's (linux/dial.c:
 * the UNIX socket). */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl.h"
#include "os.h"
#include "proto.h"
#include "util.h"

/* The socket named with -S, else the config's. */
char *remote_socket_path(const struct ctl *ctl)
{
	struct conf conf;
	struct diag diag;
	char *path;

	if (ctl->socket)
		return xstrdup(ctl->socket);
	conf_init(&conf);
	diag_init(&diag);
	conf_load_file(&conf, ctl->conf_path, ctl->conf_explicit, &diag);
	diag_print(&diag, stderr, false);
	path = xstrdup(conf.socket);
	diag_free(&diag);
	conf_free(&conf);
	return path;
}

/* The whole answer, until the daemon closes the connection; NULL (status
 * says why) when the connection fails first: an answer cut short is no
 * answer. */
static char *remote_read_all(struct dial *conn, size_t *len,
			     enum dial_status *status)
{
	char *response = NULL;
	size_t capacity = 0, n;

	*len = 0;
	for (;;) {
		if (*len + 4096 > capacity) {
			capacity = capacity ? capacity * 2 : 8192;
			response = xreallocarray(response, capacity, 1);
		}
		*status = dial_read(conn, response + *len, capacity - *len, &n);
		if (*status != DIAL_OK) {
			int saved = errno; /* for the message */

			free(response);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			return response;
		*len += n;
	}
}

static long long remote_timeout_ns(const struct ctl *ctl)
{
	return ctl->timeout_ns > 0 ? ctl->timeout_ns
				   : CTL_TIMEOUT_S * 1000000000LL;
}

static long long remote_deadline(const struct ctl *ctl)
{
	return timing_now_ns() + remote_timeout_ns(ctl);
}

/* Why a talk with the daemon failed, on stderr when loud; errno gives
 * the message of a DIAL_FAILED. */
static void remote_failed(const struct ctl *ctl, bool loud, const char *path,
			  const char *what, enum dial_status status)
{
	if (!loud)
		return;
	if (status == DIAL_TIMEOUT)
		fprintf(stderr,
			"cpupolicyctl: no answer from cpupolicyd at %s within "
			"%g s\n",
			path, (double)remote_timeout_ns(ctl) / 1e9);
	else
		fprintf(stderr, "cpupolicyctl: %s cpupolicyd at %s: %s\n", what,
			path, strerror(errno));
}

/* The daemon, checked before it is told anything: a program that took
 * the socket's (the pipe's) place learns nothing, and what it answers is
 * never shown as the daemon's. Said whether loud or not. */
static struct dial *remote_dial(const struct ctl *ctl, bool loud,
				const char *path)
{
	enum dial_status status;
	struct dial *conn;
	char why[256];

	status = dial_open(path, remote_deadline(ctl), &conn);
	if (status != DIAL_OK) {
		remote_failed(ctl, loud, path, "cannot reach", status);
		return NULL;
	}
	if (!dial_server_trusted(conn, why, sizeof(why))) {
		fprintf(stderr, "cpupolicyctl: refusing to talk to %s: %s\n",
			path, why);
		dial_close(conn);
		return NULL;
	}
	return conn;
}

/* One request; the answer's exit status and text. -1 when the daemon
 * cannot be reached or does not answer properly (said on stderr when
 * loud). */
int remote_call(const struct ctl *ctl, const struct proto_request *req,
		bool loud, int *status, char **text, size_t *text_len)
{
	char line[PROTO_MAX_REQUEST], *path = remote_socket_path(ctl);
	struct dial *conn = remote_dial(ctl, loud, path);
	enum dial_status sent;
	char *response;
	size_t len, body;

	if (!conn) {
		free(path);
		return -1;
	}
	proto_format_request(req, line, sizeof(line));
	sent = dial_write(conn, line, strlen(line));
	if (sent != DIAL_OK) {
		remote_failed(ctl, loud, path, "cannot write to", sent);
		dial_close(conn);
		free(path);
		return -1;
	}
	response = remote_read_all(conn, &len, &sent);
	if (!response)
		remote_failed(ctl, loud, path, "cannot read from", sent);
	dial_close(conn);
	free(path);
	if (!response)
		return -1;
	if (proto_parse_response(response, len, status, &body) < 0) {
		if (loud)
			fprintf(stderr, "cpupolicyctl: no valid answer from "
					"the daemon\n");
		free(response);
		return -1;
	}
	memmove(response, response + body, len - body);
	*text = response;
	*text_len = len - body;
	return 0;
}

/* For what must not run beside a daemon. Only "nobody listens there"
 * (no socket file, or nobody behind it) means there is no daemon; any other
 * failure to connect is an error, not a green light. */
int remote_refuse_if_running(const struct ctl *ctl, const char *why)
{
	char *socket = remote_socket_path(ctl);
	struct dial *conn;
	int status = CTL_EXIT_OK;

	switch (dial_open(socket, remote_deadline(ctl), &conn)) {
	case DIAL_OK:
		dial_close(conn);
		fprintf(stderr,
			"cpupolicyctl: cpupolicyd is running (it answers on "
			"%s): %s\n",
			socket, why);
		status = CTL_EXIT_FAIL;
		break;
	case DIAL_NOBODY:
		break;
	case DIAL_TIMEOUT:
	case DIAL_FAILED:
		fprintf(stderr,
			"cpupolicyctl: cannot tell whether cpupolicyd runs "
			"(%s: %s)\n",
			socket, strerror(errno));
		status = CTL_EXIT_USAGE;
		break;
	}
	free(socket);
	return status;
}

static int remote_request(const struct ctl *ctl,
			  const struct proto_request *req)
{
	char *text;
	size_t len;
	int status;

	if (remote_call(ctl, req, true, &status, &text, &len) < 0)
		return CTL_EXIT_USAGE;
	fwrite(text, 1, len, status ? stderr : stdout);
	free(text);
	return status;
}

static int remote_simple(struct ctl *ctl, int argc, char **argv,
			 enum proto_verb verb, bool takes_pid,
			 const char *usage)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct proto_request req = {.verb = verb};
	int c;

	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (verb == PROTO_VERB_RELOAD)
				goto usage;
			req.json = true;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return CTL_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (takes_pid) {
		char *end;
		long pid;

		if (optind + 1 != argc)
			goto usage;
		pid = strtol(argv[optind], &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX)
			goto usage;
		req.pid = (pid_t)pid;
	} else if (optind != argc) {
		goto usage;
	}
	return remote_request(ctl, &req);
usage:
	fprintf(stderr, "usage: %s\n", usage);
	return CTL_EXIT_USAGE;
}

int remote_status_main(struct ctl *ctl, int argc, char **argv)
{
	return remote_simple(ctl, argc, argv, PROTO_VERB_STATUS, false,
			     "cpupolicyctl status [--json]");
}

int remote_explain_main(struct ctl *ctl, int argc, char **argv)
{
	return remote_simple(ctl, argc, argv, PROTO_VERB_EXPLAIN, true,
			     "cpupolicyctl explain PID [--json]");
}

int remote_reload_main(struct ctl *ctl, int argc, char **argv)
{
	return remote_simple(ctl, argc, argv, PROTO_VERB_RELOAD, false,
			     "cpupolicyctl reload");
}

/* cpupolicyctl restraint pause | resume | exempt PID. */
int remote_restraint_main(struct ctl *ctl, int argc, char **argv)
{
	static const char usage[] =
		"usage: cpupolicyctl restraint pause | resume | exempt PID\n";
	struct proto_request req = {0};
	char *end;
	long pid;

	if (argc == 2 && strcmp(argv[1], "pause") == 0)
		req.verb = PROTO_VERB_RESTRAINT_PAUSE;
	else if (argc == 2 && strcmp(argv[1], "resume") == 0)
		req.verb = PROTO_VERB_RESTRAINT_RESUME;
	else if (argc == 3 && strcmp(argv[1], "exempt") == 0) {
		pid = strtol(argv[2], &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX) {
			fputs(usage, stderr);
			return CTL_EXIT_USAGE;
		}
		req.verb = PROTO_VERB_RESTRAINT_EXEMPT;
		req.pid = (pid_t)pid;
	} else {
		bool help = argc == 2 && (strcmp(argv[1], "--help") == 0 ||
					  strcmp(argv[1], "-h") == 0);

		fputs(usage, help ? stdout : stderr);
		return help ? CTL_EXIT_OK : CTL_EXIT_USAGE;
	}
	return remote_request(ctl, &req);
}

/* Prometheus text exposition, for node_exporter's textfile collector: the
 * daemon's counters, holds and settings (cpupolicy_up 0 without a daemon),
 * and nothing else. The saturation check's series are written by the
 * check alone (saturate --textfile), into the same directory: a series
 * in two files there fails the collector's whole scrape. */
int remote_metrics_main(struct ctl *ctl, int argc, char **argv)
{
	struct proto_request req = {.verb = PROTO_VERB_METRICS};
	char *text;
	size_t len;
	int status = -1;

	if (argc > 1) {
		bool help = strcmp(argv[1], "--help") == 0 ||
			    strcmp(argv[1], "-h") == 0;

		fprintf(help ? stdout : stderr,
			"usage: cpupolicyctl metrics\n");
		return help ? CTL_EXIT_OK : CTL_EXIT_USAGE;
	}
	if (remote_call(ctl, &req, false, &status, &text, &len) == 0 &&
	    status == 0) {
		fwrite(text, 1, len, stdout);
		free(text);
	} else {
		if (status > 0) /* an answer, but an error one */
			free(text);
		printf("# HELP cpupolicy_up Whether cpupolicyd answered.\n"
		       "# TYPE cpupolicy_up gauge\ncpupolicy_up 0\n");
	}
	return CTL_EXIT_OK;
}
