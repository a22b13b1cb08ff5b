/* A control-socket client for tests that run as another user: statically
 * linked, so that it runs where that user cannot read the shared
 * libraries (or anything but the test's own directory), and given the
 * socket by a path relative to the working directory.
 *   peer SOCKET REQUEST
 * Sends the request line, prints the answer's text (stdout when its
 * status is 0, stderr otherwise) and exits with its status; 2 when the
 * daemon cannot be reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	static char answer[1 << 16];
	size_t len = 0;
	ssize_t n;
	char *body;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: peer SOCKET REQUEST\n");
		return 2;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    dprintf(fd, "%s\n", argv[2]) < 0) {
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
