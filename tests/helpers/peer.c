/* A control-socket client for tests that run as another user: statically
 * linked, so that it runs where that user cannot read the shared
 * libraries (or anything but the test's own directory), and given the
 * socket by a path relative to the working directory.
 *   peer SOCKET REQUEST
 * Sends the request line, prints the answer's text (stdout when its
 * status is 0, stderr otherwise) and exits with its status; 2 when the
 * daemon cannot be reached.
 *   peer SOCKET --hold N
 * Opens N connections and sends nothing on them, as a user who wants
 * the daemon's every slot would; prints "held N" once all are made, then
 * waits for its standard input to end (60 s at most) and prints "open
 * K": how many the daemon has not closed meanwhile. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define PEER_HOLD_MAX	  256
#define PEER_HOLD_WAIT_MS 60000
#define PEER_WAIT_S	  10

static int peer_connect(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	/* A full backlog makes connect wait, a daemon that does not answer
	 * the read: neither for good. */
	struct timeval wait = {.tv_sec = PEER_WAIT_S};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) < 0 ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* Closed by the daemon: readable at once (the end of the stream), as it
 * never writes to a connection that sent nothing. */
static int peer_hold(const char *path, const char *count)
{
	static struct pollfd fds[PEER_HOLD_MAX];
	struct pollfd in = {.fd = 0, .events = POLLIN};
	int n = atoi(count), open = 0;

	if (n <= 0 || n > PEER_HOLD_MAX) {
		fprintf(stderr, "peer: --hold takes 1 to %d\n", PEER_HOLD_MAX);
		return 2;
	}
	for (int i = 0; i < n; i++)
		fds[i] = (struct pollfd){peer_connect(path), POLLIN, 0};
	printf("held %d\n", n);
	fflush(stdout);
	while (poll(&in, 1, PEER_HOLD_WAIT_MS) < 0 && errno == EINTR)
		;
	poll(fds, (nfds_t)n, 0);
	for (int i = 0; i < n; i++)
		open += !fds[i].revents;
	printf("open %d\n", open);
	return 0;
}

int main(int argc, char **argv)
{
	static char answer[1 << 16];
	size_t len = 0;
	ssize_t n;
	char *body;
	int fd;

	if (argc == 4 && strcmp(argv[2], "--hold") == 0)
		return peer_hold(argv[1], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: peer SOCKET REQUEST\n"
				"       peer SOCKET --hold N\n");
		return 2;
	}
	fd = peer_connect(argv[1]);
	if (dprintf(fd, "%s\n", argv[2]) < 0) {
		perror(argv[1]);
		return 2;
	}
	while (len < sizeof(answer) - 1 &&
	       (n = read(fd, answer + len, sizeof(answer) - 1 - len)) > 0)
		len += (size_t)n;
	answer[len] = '\0';
	body = strchr(answer, '\n');
	if (!body) {
		fprintf(stderr, "peer: no answer\n");
		return 2;
	}
	*body++ = '\0';
	fputs(body, atoi(answer) == 0 ? stdout : stderr);
	return atoi(answer);
}
