/* What systemd does for cpupolicyd.socket and Type=notify, for the tests:
 * opens the control socket (listening, mode 0660) and a proc connector
 * socket bound in this network namespace, hands them over as fds 3 and 4
 * (LISTEN_FDS), moves the daemon into a network namespace of its own
 * (PrivateNetwork=yes), and prints what it sends to NOTIFY_SOCKET.
 * SIGTERM stops the daemon, as "systemctl stop" would; the exit status
 * is the daemon's.
 *   activate CONTROL_SOCKET NOTIFY_SOCKET COMMAND [ARGS...] */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/connector.h>
#include <linux/netlink.h>

static volatile sig_atomic_t activate_stop;

static void activate_on_term(int sig)
{
	(void)sig;
	activate_stop = 1;
}

static int activate_unix(const char *path, int type)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, type, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    chmod(path, 0660) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) < 0)) {
		perror(path);
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK,
				 .nl_groups = CN_IDX_PROC};
	int control, netlink, notify, status;
	char buf[512];
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: activate CONTROL NOTIFY COMMAND...\n");
		return 2;
	}
	control = activate_unix(argv[1], SOCK_STREAM);
	notify = activate_unix(argv[2], SOCK_DGRAM);
	netlink = socket(AF_NETLINK, SOCK_RAW, NETLINK_CONNECTOR);
	if (netlink < 0 ||
	    bind(netlink, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		perror("netlink");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		char count[16];

		if (dup2(control, 3) < 0 || dup2(netlink, 4) < 0)
			_exit(2);
		snprintf(count, sizeof(count), "%d", (int)getpid());
		setenv("LISTEN_PID", count, 1);
		setenv("LISTEN_FDS", "2", 1);
		setenv("NOTIFY_SOCKET", argv[2], 1);
		if (unshare(CLONE_NEWNET) < 0) {
			perror("unshare");
			_exit(2);
		}
		execv(argv[3], argv + 3);
		_exit(127);
	}
	close(control);
	close(netlink);
	signal(SIGTERM, activate_on_term);
	for (;;) {
		if (activate_stop == 1) {
			kill(pid, SIGTERM);
			activate_stop = 2;
		}
		ssize_t n = recv(notify, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n > 0) {
			buf[n] = '\0';
			for (char *c = buf; *c; c++)
				if (*c == '\n')
					*c = ' ';
			printf("notify: %s\n", buf);
			fflush(stdout);
			continue;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
