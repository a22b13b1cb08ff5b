/* Linux: the service manager is systemd (libsystemd): sockets it passed
 * (socket activation), what the daemon tells it (ready, reloading,
 * stopping, a status line), and what the daemon does to itself as a
 * service (SCHED_FIFO, memory given back). Without systemd each call
 * does nothing. */
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <sys/socket.h>

#include <systemd/sd-daemon.h>

#include "linux.h"
#include "log.h"
#include "../policyd.h"

/* The control socket, and the proc connector bound in the host's
 * network namespace. */
void service_take_passed(struct service_passed *passed)
{
	int count = sd_listen_fds(1);

	passed->events = passed->control = -1;
	for (int i = 0; i < count; i++) {
		int fd = SD_LISTEN_FDS_START + i;

		if (sd_is_socket(fd, AF_NETLINK, 0, -1) > 0)
			passed->events = fd;
		else if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0)
			passed->control = fd;
		else
			log_warnx("passed file descriptor %d is not a socket "
				  "cpupolicyd uses",
				  fd);
	}
}

/* The control socket is the guard: listen.c refuses to start where
 * another daemon answers on it, and only root may make files in its
 * directory (a socket the service manager passed is one daemon's by the
 * unit). */
enum os_status service_claim(const struct conf *conf)
{
	(void)conf;
	return OS_OK;
}

void service_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}

/* Ready, at start and after each reload, good or not. */
void service_ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void service_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

/* The lowest realtime priority: ahead of every normal process. Refused
 * in some containers: run on, only later than it could. */
enum os_status service_self_realtime(void)
{
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){1}) == 0)
		return OS_OK;
	log_warn("self_realtime: cannot run under SCHED_FIFO; running as a "
		 "normal process");
	return status_of_errno(errno);
}

/* A parse's peak is gone: glibc keeps freed memory unless told. */
void service_trim(void)
{
	malloc_trim(0);
}

/* systemd's unit does what --install does elsewhere. */
bool service_command(int argc, char **argv, int *status)
{
	(void)argc;
	(void)argv;
	(void)status;
	return false;
}

void service_usage(FILE *out)
{
	(void)out;
}

int service_run(struct daemon *d, int (*run)(struct daemon *d))
{
	return run(d);
}
