/* Linux: cpupolicyctl reaches the daemon on its UNIX socket. Only "nobody
 * listens there" (no socket file, or nobody behind it) means there is no
 * daemon; any other failure to connect is an error. Every call ends by
 * the deadline: a daemon that stopped answering (or a program that took
 * its place) cannot hang the client. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../ctl.h"
#include "os.h"
#include "util.h"

struct dial {
	int fd;
	long long deadline_ns;
};

/* What is left until the deadline; 0 when none. */
static long long dial_left_ns(long long deadline_ns)
{
	long long left = deadline_ns - timing_now_ns();

	return left > 0 ? left : 0;
}

/* A failed connect's errno: nobody behind the path (no socket file, or no
 * listener) is no daemon; a full backlog until the send timeout is the
 * deadline. */
static enum dial_status dial_of_connect_errno(int error)
{
	if (error == ENOENT || error == ECONNREFUSED)
		return DIAL_NOBODY;
	if (error == EAGAIN || error == EINPROGRESS) {
		errno = ETIMEDOUT;
		return DIAL_TIMEOUT;
	}
	return DIAL_FAILED;
}

/* A blocking connect waits while the daemon's backlog is full, for as
 * long as the socket's send timeout: the time left. It then fails with
 * EAGAIN. */
static enum dial_status dial_connect(int fd, const struct sockaddr_un *addr,
				     long long deadline_ns)
{
	long long left = dial_left_ns(deadline_ns);
	struct timeval tv = {
		.tv_sec = (time_t)(left / 1000000000LL),
		.tv_usec = (suseconds_t)(left % 1000000000LL / 1000),
	};

	if (!left) {
		errno = ETIMEDOUT;
		return DIAL_TIMEOUT;
	}
	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean no timeout at all */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return DIAL_FAILED;
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0)
		return DIAL_OK;
	return dial_of_connect_errno(errno);
}

enum dial_status dial_open(const char *path, long long deadline_ns,
			   struct dial **out)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	enum dial_status status;
	int fd, saved;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return DIAL_FAILED;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DIAL_FAILED;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	status = dial_connect(fd, &addr, deadline_ns);
	if (status == DIAL_OK && fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		status = DIAL_FAILED;
	if (status != DIAL_OK) {
		saved = errno;
		close(fd);
		errno = saved;
		return status;
	}
	*out = xmalloc(sizeof(**out));
	(*out)->fd = fd;
	(*out)->deadline_ns = deadline_ns;
	return DIAL_OK;
}

/* The kernel's word on who bound the socket the connection reached, as
 * it was when the server called listen(). */
bool dial_server_trusted(struct dial *d, char *why, size_t size)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(d->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		snprintf(why, size, "who serves it cannot be told: %s",
			 strerror(errno));
		return false;
	}
	if (cred.uid == 0)
		return true;
	snprintf(why, size, "it is served by uid %u (pid %d), not root",
		 (unsigned)cred.uid, (int)cred.pid);
	return false;
}

/* Until the socket is ready for events, or the deadline. */
static enum dial_status dial_wait(struct dial *d, short events)
{
	for (;;) {
		struct pollfd p = {.fd = d->fd, .events = events};
		long long left = dial_left_ns(d->deadline_ns);
		int n;

		if (!left) {
			errno = ETIMEDOUT;
			return DIAL_TIMEOUT;
		}
		n = poll(&p, 1, (int)((left + 999999) / 1000000));
		if (n > 0)
			return DIAL_OK;
		if (n < 0 && errno != EINTR)
			return DIAL_FAILED;
	}
}

enum dial_status dial_write(struct dial *d, const char *buf, size_t len)
{
	enum dial_status status;

	while (len) {
		ssize_t n = send(d->fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			status = dial_wait(d, POLLOUT);
			if (status != DIAL_OK)
				return status;
			continue;
		}
		if (n < 0)
			return DIAL_FAILED;
		buf += n;
		len -= (size_t)n;
	}
	return DIAL_OK;
}

enum dial_status dial_read(struct dial *d, char *buf, size_t size, size_t *n)
{
	enum dial_status status;

	for (;;) {
		ssize_t got = read(d->fd, buf, size);

		if (got >= 0) {
			*n = (size_t)got;
			return DIAL_OK;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return DIAL_FAILED;
		status = dial_wait(d, POLLIN);
		if (status != DIAL_OK)
			return status;
	}
}

void dial_close(struct dial *d)
{
	close(d->fd);
	free(d);
}
