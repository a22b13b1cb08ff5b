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

/* What is left until the deadline; 0 (and errno ETIMEDOUT) when none. */
static long long dial_left_ns(long long deadline_ns)
{
	long long left = deadline_ns - timing_now_ns();

	if (left > 0)
		return left;
	errno = ETIMEDOUT;
	return 0;
}

/* A blocking connect waits while the daemon's backlog is full, for as
 * long as the socket's send timeout: the time left. It then fails with
 * EAGAIN. */
static int dial_connect(int fd, const struct sockaddr_un *addr,
			long long deadline_ns)
{
	long long left = dial_left_ns(deadline_ns);
	struct timeval tv = {
		.tv_sec = (time_t)(left / 1000000000LL),
		.tv_usec = (suseconds_t)(left % 1000000000LL / 1000),
	};

	if (!left)
		return -1;
	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean no timeout at all */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0)
		return 0;
	if (errno == EAGAIN || errno == EINPROGRESS)
		errno = ETIMEDOUT;
	return -1;
}

enum dial_status dial_open(const char *path, long long deadline_ns,
			   struct dial **out)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, saved;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return DIAL_FAILED;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DIAL_FAILED;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (dial_connect(fd, &addr, deadline_ns) < 0 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return errno == ENOENT || errno == ECONNREFUSED ? DIAL_NOBODY
								: DIAL_FAILED;
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
static int dial_wait(struct dial *d, short events)
{
	for (;;) {
		struct pollfd p = {.fd = d->fd, .events = events};
		long long left = dial_left_ns(d->deadline_ns);
		int n;

		if (!left)
			return -1;
		n = poll(&p, 1, (int)((left + 999999) / 1000000));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

int dial_write(struct dial *d, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(d->fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (dial_wait(d, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

long dial_read(struct dial *d, char *buf, size_t size)
{
	for (;;) {
		ssize_t n = read(d->fd, buf, size);

		if (n >= 0)
			return (long)n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || dial_wait(d, POLLIN) < 0)
			return -1;
	}
}

void dial_close(struct dial *d)
{
	close(d->fd);
	free(d);
}
