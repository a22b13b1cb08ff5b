/* A program in the control socket's place that never answers: what
 * cpupolicyctl must not wait on for good, nor talk to when it is not
 * root's. Statically linked, as it runs as another user too.
 *   mute [-n] SOCKET SECONDS
 * Binds SOCKET (replacing a socket file there), prints "listening" once
 * it does, and holds every connection without a word, reading what its
 * clients send; with -n it accepts none, and fills its own backlog so
 * that the next connect waits. It ends on SIGTERM or after SECONDS,
 * printing "received N": the bytes its clients sent. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MUTE_MAX_CLIENTS 64

static volatile sig_atomic_t mute_stop;

static void mute_on_term(int sig)
{
	(void)sig;
	mute_stop = 1;
}

static int mute_listen(const char *path, bool accepting)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, accepting ? 16 : 0) < 0) {
		perror(path);
		exit(2);
	}
	if (!accepting) {
		/* A backlog of 0 holds one connection: this one. */
		int self = socket(AF_UNIX, SOCK_STREAM, 0);

		if (self < 0 ||
		    connect(self, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
			perror("mute: filling the backlog");
			exit(2);
		}
	}
	return fd;
}

/* Until SIGTERM (blocked but in ppoll, so that it cannot come between
 * the check and the wait) or the end of its time. */
static unsigned long mute_serve(int listener, bool accepting, long seconds)
{
	struct pollfd fds[1 + MUTE_MAX_CLIENTS] = {{.fd = listener}};
	nfds_t count = 1;
	unsigned long received = 0;
	struct timespec end, now;
	sigset_t waiting;

	sigemptyset(&waiting);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	fds[0].events = accepting ? POLLIN : 0;
	while (!mute_stop) {
		struct timespec left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (ppoll(fds, count, &left, &waiting) <= 0)
			continue;
		for (nfds_t i = 1; i < count; i++) {
			char buf[512];
			ssize_t n;

			if (!fds[i].revents)
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0)
				received += (unsigned long)n;
			else /* gone: kept, and no more looked at */
				fds[i].fd = -1;
		}
		if (fds[0].revents & POLLIN) {
			int fd = accept(listener, NULL, NULL);

			if (fd >= 0 && count < 1 + MUTE_MAX_CLIENTS)
				fds[count++] = (struct pollfd){fd, POLLIN, 0};
		}
	}
	return received;
}

int main(int argc, char **argv)
{
	bool accepting = !(argc == 4 && strcmp(argv[1], "-n") == 0);
	struct sigaction term = {.sa_handler = mute_on_term};
	sigset_t blocked;
	int listener;
	char *end;
	long seconds;

	if (argc != (accepting ? 3 : 4)) {
		fprintf(stderr, "usage: mute [-n] SOCKET SECONDS\n");
		return 2;
	}
	seconds = strtol(argv[argc - 1], &end, 10);
	if (*end || seconds <= 0) {
		fprintf(stderr, "mute: '%s' is not a number of seconds\n",
			argv[argc - 1]);
		return 2;
	}
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGTERM);
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	sigaction(SIGTERM, &term, NULL);
	listener = mute_listen(argv[argc - 2], accepting);
	printf("listening\n");
	fflush(stdout);
	printf("received %lu\n", mute_serve(listener, accepting, seconds));
	return 0;
}
