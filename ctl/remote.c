/* cpupolicyctl status, explain and reload: requests to the daemon over its
 * control socket. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "conf.h"
#include "ctl.h"
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

int remote_connect(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int remote_request(const struct ctl *ctl,
			  const struct proto_request *req)
{
	char line[PROTO_MAX_REQUEST], *path = remote_socket_path(ctl);
	char *response = NULL;
	size_t len = 0, capacity = 0, body;
	int fd, status;

	fd = remote_connect(path);
	if (fd < 0) {
		fprintf(stderr,
			"cpupolicyctl: cannot reach cpupolicyd at %s: %s\n",
			path, strerror(errno));
		free(path);
		return CTL_EXIT_USAGE;
	}
	free(path);
	proto_format_request(req, line, sizeof(line));
	if (write(fd, line, strlen(line)) < 0) {
		perror("cpupolicyctl: write");
		close(fd);
		return CTL_EXIT_USAGE;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 > capacity) {
			capacity = capacity ? capacity * 2 : 8192;
			response = xreallocarray(response, capacity, 1);
		}
		n = read(fd, response + len, capacity - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!response ||
	    proto_parse_response(response, len, &status, &body) < 0) {
		fprintf(stderr, "cpupolicyctl: no valid answer from the "
				"daemon\n");
		free(response);
		return CTL_EXIT_USAGE;
	}
	fwrite(response + body, 1, len - body, status ? stderr : stdout);
	free(response);
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
