/* Linux: the control endpoint is a UNIX stream socket, made here (its
 * directory, mode 0660, the configured group) or passed by the service
 * manager with its mode and group set. Peers are known by the kernel's
 * word at connect: SO_PEERCRED and SO_PEERGROUPS. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"
#include "linux.h"
#include "log.h"
#include "util.h"

struct listen {
	int fd;
	bool passed; /* the service manager's: its file stays */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct conf *conf;
};

struct listen_conn {
	int fd;
};

int listen_fd(const struct listen *l)
{
	return l->fd;
}

int listen_conn_fd(const struct listen_conn *conn)
{
	return conn->fd;
}

static int listen_mkdir_parent(const char *path)
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
static bool listen_answers(const char *path)
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

static enum os_status listen_adopt(struct listen *l)
{
	int flags = fcntl(l->fd, F_GETFL);

	if (flags < 0 || fcntl(l->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		log_warn("cannot use the control socket passed in");
		return status_of_errno(errno);
	}
	return OS_OK;
}

static enum os_status listen_make(struct listen *l, const struct conf *conf)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	const char *path = l->path;
	struct stat st;

	if (listen_answers(path)) {
		log_error("another cpupolicyd answers on %s", path);
		errno = EADDRINUSE;
		return OS_DENIED;
	}
	if (listen_mkdir_parent(path) < 0) {
		log_warn("cannot create the directory of %s", path);
		return status_of_errno(errno);
	}
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0) {
		log_warn("cannot create a socket for %s", path);
		return status_of_errno(errno);
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	/* chown only when a group is asked for: it takes CAP_CHOWN. */
	if (bind(l->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    (conf->socket_group && chown(path, 0, conf->socket_gid) < 0) ||
	    chmod(path, 0660) < 0 || listen(l->fd, 16) < 0) {
		log_warn("cannot listen on %s", path);
		return status_of_errno(errno);
	}
	return OS_OK;
}

/* The socket passed by the service manager, else one made at the
 * config's path. */
enum os_status listen_open(struct daemon *d)
{
	struct listen *l = xcalloc(1, sizeof(*l));

	d->listen = l;
	l->conf = &d->conf;
	l->fd = (int)d->passed.control;
	l->passed = l->fd >= 0;
	snprintf(l->path, sizeof(l->path), "%s", d->conf.socket);
	return l->passed ? listen_adopt(l) : listen_make(l, &d->conf);
}

void listen_close(struct daemon *d)
{
	struct listen *l = d->listen;

	if (!l)
		return;
	if (l->fd >= 0) {
		close(l->fd);
		if (!l->passed)
			unlink(l->path);
	}
	free(l);
	d->listen = NULL;
}

/* The peer's groups as they were at connect, however many (up to the
 * kernel's 65536): when they do not fit, the kernel says how much room
 * they take (ERANGE). */
static bool listen_peer_in_group(const struct conf *conf, int fd, gid_t gid)
{
	gid_t some[64], *groups = some;
	socklen_t len = sizeof(some);
	bool found = false;
	int status;

	if (!conf->socket_group)
		return false;
	if (gid == conf->socket_gid)
		return true;
	status = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len);
	if (status < 0 && errno == ERANGE) {
		groups = xmalloc(len);
		status =
			getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len);
	}
	for (size_t i = 0; status == 0 && i < len / sizeof(*groups); i++)
		found = found || groups[i] == conf->socket_gid;
	if (groups != some)
		free(groups);
	return found;
}

static int listen_peer(const struct conf *conf, int fd,
		       struct control_peer *peer)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -1;
	*peer = (struct control_peer){
		.admin = cred.uid == 0,
		.in_group = listen_peer_in_group(conf, fd, cred.gid),
		.user = cred.uid,
		.pid = cred.pid,
	};
	snprintf(peer->who, sizeof(peer->who), "uid %u", (unsigned)cred.uid);
	return 0;
}

/* The next connection whose peer the kernel names; *conn NULL when none
 * waits. */
enum os_status listen_accept(struct daemon *d, struct listen_conn **conn,
			     struct control_peer *peer)
{
	struct listen *l = d->listen;

	*conn = NULL;
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK
				       ? OS_OK
				       : status_of_errno(errno);
		if (listen_peer(l->conf, fd, peer) < 0) {
			close(fd);
			continue;
		}
		*conn = xmalloc(sizeof(**conn));
		(*conn)->fd = fd;
		return OS_OK;
	}
}

/* The kernel's word at connect stands: nothing the client does later
 * changes who connected. */
enum os_status listen_identify(struct listen_conn *conn,
			       struct control_peer *peer)
{
	(void)conn;
	(void)peer;
	return OS_OK;
}

/* The end of the stream, a reset and a broken pipe are all a client
 * that hung up. */
static enum os_status listen_moved(ssize_t n, size_t *moved)
{
	*moved = n > 0 ? (size_t)n : 0;
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
		return OS_OK;
	if (n == 0 || errno == ECONNRESET || errno == EPIPE)
		return OS_GONE;
	return status_of_errno(errno);
}

enum os_status listen_recv(struct listen_conn *conn, char *buf, size_t size,
			   size_t *moved)
{
	ssize_t n;

	do
		n = recv(conn->fd, buf, size, 0);
	while (n < 0 && errno == EINTR);
	return listen_moved(n, moved);
}

/* MSG_NOSIGNAL: a client gone does not raise SIGPIPE. */
enum os_status listen_send(struct listen_conn *conn, const char *buf,
			   size_t len, size_t *moved)
{
	ssize_t n;

	do
		n = send(conn->fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return listen_moved(n, moved);
}

void listen_account_text(unsigned uid, unsigned gid, char *buf, size_t size)
{
	snprintf(buf, size, "uid %u, gid %u", uid, gid);
}

void listen_hang_up(struct listen_conn *conn)
{
	close(conn->fd);
	free(conn);
}
