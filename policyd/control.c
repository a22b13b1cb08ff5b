/* The control socket: one request per connection, peer credentials
 * checked per request. Read-only requests (status, explain) are for root
 * and the socket's group; reload is for root, or also the group when the
 * config says group_may_reload. Clients are non-blocking and get a few
 * seconds to speak; a slow reader cannot stall the daemon. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "policyd.h"
#include "util.h"

#define CONTROL_TIMEOUT_S 5

static int control_mkdir_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* A socket file that nobody answers is left over from a crash. */
static bool control_answers(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool answers;

	if (fd < 0)
		return false;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	answers = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	close(fd);
	return answers;
}

int control_open(struct daemon *d)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	const char *path = d->conf.socket;
	struct stat st;

	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
		d->clients[i].fd = -1;
	/* Passed by the service manager, with its mode and group set. */
	if (d->socket_passed) {
		int flags = fcntl(d->listen_fd, F_GETFL);

		if (flags < 0 ||
		    fcntl(d->listen_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
			log_warn("cannot use the control socket passed in");
			return -1;
		}
		return 0;
	}
	if (control_answers(path)) {
		log_error("another cpupolicyd answers on %s", path);
		errno = EADDRINUSE;
		return -1;
	}
	if (control_mkdir_parent(path) < 0) {
		log_warn("cannot create the directory of %s", path);
		return -1;
	}
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	d->listen_fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->listen_fd < 0) {
		log_warn("cannot create a socket for %s", path);
		return -1;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	/* chown only when a group is asked for: it takes CAP_CHOWN. */
	if (bind(d->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    (d->conf.socket_group && chown(path, 0, d->conf.socket_gid) < 0) ||
	    chmod(path, 0660) < 0 || listen(d->listen_fd, 16) < 0) {
		log_warn("cannot listen on %s", path);
		return -1;
	}
	return 0;
}

/* The peer's groups as they were at connect, however many (up to the
 * kernel's 65536): when they do not fit, the kernel says how much room
 * they take (ERANGE). */
static bool control_peer_in_group(const struct daemon *d, int fd, gid_t gid)
{
	gid_t some[64], *groups = some;
	socklen_t len = sizeof(some);
	bool found = false;
	int status;

	if (!d->conf.socket_group)
		return false;
	if (gid == d->conf.socket_gid)
		return true;
	status = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len);
	if (status < 0 && errno == ERANGE) {
		groups = xmalloc(len);
		status =
			getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len);
	}
	for (size_t i = 0; status == 0 && i < len / sizeof(*groups); i++)
		found = found || groups[i] == d->conf.socket_gid;
	if (groups != some)
		free(groups);
	return found;
}

static void control_drop(struct daemon *d, struct control_client *c)
{
	if (c->fd < 0)
		return;
	epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->response);
	*c = (struct control_client){.fd = -1};
}

void control_close(struct daemon *d)
{
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
		control_drop(d, &d->clients[i]);
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		if (!d->socket_passed)
			unlink(d->conf.socket);
	}
	d->listen_fd = -1;
}

void control_accept(struct daemon *d)
{
	for (;;) {
		struct control_client *c = NULL;
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct epoll_event ev = {.events = EPOLLIN};
		int fd = accept4(d->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		for (size_t i = 0; i < CONTROL_MAX_CLIENTS && !c; i++) {
			if (d->clients[i].fd < 0)
				c = &d->clients[i];
		}
		if (!c ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			close(fd);
			continue;
		}
		*c = (struct control_client){.fd = fd,
					     .uid = cred.uid,
					     .gid = cred.gid,
					     .pid = cred.pid};
		c->in_group = control_peer_in_group(d, fd, cred.gid);
		clock_gettime(CLOCK_MONOTONIC, &c->deadline);
		c->deadline.tv_sec += CONTROL_TIMEOUT_S;
		ev.data.u64 = (uint64_t)(uintptr_t)c;
		if (epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
			control_drop(d, c);
	}
}

/* The socket's mode already keeps others out; this also holds when the
 * socket file's mode or group were changed by hand. */
static bool control_in_group(const struct daemon *d,
			     const struct control_client *c)
{
	return d->conf.socket_group && c->in_group;
}

static bool control_allowed(const struct daemon *d,
			    const struct control_client *c,
			    enum proto_verb verb)
{
	if (c->uid == 0)
		return true;
	switch (verb) {
	case PROTO_VERB_PING:
	case PROTO_VERB_STATUS:
	case PROTO_VERB_EXPLAIN:
	case PROTO_VERB_METRICS:
		return control_in_group(d, c);
	case PROTO_VERB_RELOAD:
		return d->conf.group_may_reload && control_in_group(d, c);
	}
	return false;
}

static int control_reload(struct daemon *d, FILE *out)
{
	struct diag diag;
	int status;

	diag_init(&diag);
	status = daemon_reload(d, &diag);
	diag_print(&diag, out, true);
	if (status == 0)
		fprintf(out, "reloaded: %zu rules in %zu files\n",
			d->rules->count, d->rules->files_read);
	else
		fprintf(out, "reload failed: the previous rules stay in "
			     "force\n");
	diag_free(&diag);
	return status == 0 ? 0 : 1;
}

static void control_answer(struct daemon *d, struct control_client *c)
{
	struct proto_request req;
	char why[128];
	char *body = NULL;
	size_t body_len = 0;
	int status = 0;
	FILE *out = open_memstream(&body, &body_len);

	if (!out) {
		control_drop(d, c);
		return;
	}
	if (proto_parse_request(c->request, c->request_len, &req, why,
				sizeof(why)) < 0) {
		fprintf(out, "%s\n", why);
		status = 2;
	} else if (!control_allowed(d, c, req.verb)) {
		log_info("control: %s from uid %u (pid %d): permission denied",
			 proto_verb_name(req.verb), c->uid, (int)c->pid);
		fprintf(out, "permission denied\n");
		status = 1;
	} else {
		switch (req.verb) {
		case PROTO_VERB_PING:
			fprintf(out, "pong\n");
			break;
		case PROTO_VERB_STATUS:
			report_status(d, req.json, out);
			break;
		case PROTO_VERB_EXPLAIN:
			status = report_explain(d, req.pid, req.json, out);
			break;
		case PROTO_VERB_RELOAD:
			log_info("control: reload from uid %u (pid %d)", c->uid,
				 (int)c->pid);
			status = control_reload(d, out);
			break;
		case PROTO_VERB_METRICS:
			report_metrics(d, out);
			break;
		}
	}
	fclose(out);
	c->response = xasprintf("%d\n%.*s", status, (int)body_len, body);
	c->response_len = strlen(c->response);
	free(body);
}

static void control_send(struct daemon *d, struct control_client *c)
{
	struct epoll_event ev = {.events = EPOLLOUT,
				 .data.u64 = (uint64_t)(uintptr_t)c};

	while (c->response_sent < c->response_len) {
		ssize_t n =
			send(c->fd, c->response + c->response_sent,
			     c->response_len - c->response_sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
			return;
		}
		if (n <= 0)
			break;
		c->response_sent += (size_t)n;
	}
	control_drop(d, c);
}

void control_client_io(struct daemon *d, struct control_client *c,
		       unsigned events)
{
	if (c->fd < 0)
		return;
	if (c->response) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			control_send(d, c);
		return;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->request + c->request_len,
				 sizeof(c->request) - c->request_len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			control_drop(d, c);
			return;
		}
		c->request_len += (size_t)n;
		if (memchr(c->request, '\n', c->request_len) ||
		    c->request_len == sizeof(c->request))
			break;
	}
	control_answer(d, c);
	if (c->response)
		control_send(d, c);
}

void control_expire(struct daemon *d)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		struct control_client *c = &d->clients[i];

		if (c->fd >= 0 && now.tv_sec > c->deadline.tv_sec)
			control_drop(d, c);
	}
}
