/* Linux: cpupolicyctl reaches the daemon on its UNIX socket. Only "nobody
 * listens there" (no socket file, or nobody behind it) means there is no
 * daemon; any other failure to connect is an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../ctl.h"
#include "util.h"

struct dial {
	int fd;
};

enum dial_status dial_open(const char *path, struct dial **out)
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
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return errno == ENOENT || errno == ECONNREFUSED ? DIAL_NOBODY
								: DIAL_FAILED;
	}
	*out = xmalloc(sizeof(**out));
	(*out)->fd = fd;
	return DIAL_OK;
}

int dial_write(struct dial *d, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(d->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

long dial_read(struct dial *d, char *buf, size_t size)
{
	ssize_t n;

	do
		n = read(d->fd, buf, size);
	while (n < 0 && errno == EINTR);
	return (long)n;
}

void dial_close(struct dial *d)
{
	close(d->fd);
	free(d);
}
