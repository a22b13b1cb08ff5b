/* Linux: CPU pressure from PSI (Documentation/accounting/psi.rst). The
 * "some" line of /proc/pressure/cpu counts, in microseconds, the time at
 * least one runnable task waited for a CPU; a trigger written to the
 * file ("some STALL WINDOW") makes it poll with POLLPRI once that much
 * waiting fell in a window, so that the daemon sleeps until the machine
 * is busy instead of reading the file all day. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"

/* The trigger's window: the shortest the kernel takes is 500 ms, and a
 * second is what a qualifying hog is judged over. Without
 * CAP_SYS_RESOURCE the kernel takes only multiples of 2 s: the trigger
 * then fires once pct of 2 s was waited, which under real contention
 * comes as soon (the waiting adds up at the wall clock's pace). */
#define PRESSURE_WINDOW_US		1000000ULL
#define PRESSURE_UNPRIVILEGED_WINDOW_US 2000000ULL

struct pressure {
	int fd; /* the trigger, -1: none */
	char path[PATH_MAX];
	unsigned long long total_us, at_ns; /* the last sample */
	bool sampled;
};

static unsigned long long pressure_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec;
}

/* The "some" line's total. */
int pressure_parse(const char *text, unsigned long long *total_us)
{
	const char *total;

	if (strncmp(text, "some ", 5) != 0 ||
	    !(total = strstr(text, " total=")) ||
	    sscanf(total + 7, "%llu", total_us) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int pressure_read_total(const struct pressure *p,
			       unsigned long long *total_us)
{
	char text[256];

	if (procinfo_read(p->path, text, sizeof(text), NULL) < 0)
		return -1;
	return pressure_parse(text, total_us);
}

/* The kernel reads the trigger up to its NUL. */
static int pressure_trigger(int fd, unsigned pct, unsigned long long window)
{
	char trigger[64];
	int n = snprintf(trigger, sizeof(trigger), "some %llu %llu",
			 window * pct / 100, window);

	return write(fd, trigger, (size_t)n + 1) < 0 ? -1 : 0;
}

/* On a kernel without triggers the caller samples on its tick. */
static void pressure_arm(struct pressure *p, unsigned pct)
{
	int fd = open(p->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	if (pressure_trigger(fd, pct, PRESSURE_WINDOW_US) == 0) {
		p->fd = fd;
		return;
	}
	/* A refused trigger leaves the file without one: it takes another. */
	if (pressure_trigger(fd, pct, PRESSURE_UNPRIVILEGED_WINDOW_US) == 0) {
		p->fd = fd;
		return;
	}
	close(fd);
}

enum os_status pressure_open(struct pressure **pressure, unsigned pct)
{
	struct pressure *p = xcalloc(1, sizeof(*p));
	unsigned long long total;

	p->fd = -1;
	snprintf(p->path, sizeof(p->path), "%s/pressure/cpu", paths_procfs());
	/* No file, or one that says nothing: a kernel without PSI (or
	 * booted with psi=0). */
	if (pressure_read_total(p, &total) < 0) {
		int err = errno;

		free(p);
		*pressure = NULL;
		return err == ENOENT || err == EOPNOTSUPP || err == EINVAL
			       ? OS_UNSUPPORTED
			       : status_of_errno(err);
	}
	if (pct)
		pressure_arm(p, pct);
	*pressure = p;
	return OS_OK;
}

long pressure_fd(const struct pressure *p)
{
	return p ? p->fd : -1;
}

/* A PSI trigger fires once a window at most, with nothing to read. */
void pressure_fired(struct pressure *p)
{
	(void)p;
}

enum os_status pressure_sample(struct pressure *p, unsigned *pct)
{
	unsigned long long total, now = pressure_now_ns(), waited, span;

	*pct = 0;
	if (pressure_read_total(p, &total) < 0)
		return status_of_errno(errno);
	if (p->sampled && now > p->at_ns && total >= p->total_us) {
		waited = (total - p->total_us) * 1000ULL;
		span = now - p->at_ns;
		*pct = waited >= span ? 100 : (unsigned)(waited * 100 / span);
	}
	p->sampled = true;
	p->total_us = total;
	p->at_ns = now;
	return OS_OK;
}

void pressure_close(struct pressure *p)
{
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}
