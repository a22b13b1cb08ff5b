/* The soak's sampler of raises: every INTERVAL_MS it looks at each process
 * running EXE and notes those that carry a raise (nice below 0, or a
 * real-time policy), so that a raise the daemon leaves on an unmatched
 * program for more than a tenth of a second is seen, which a check once a
 * second from the shell would miss.
 *   raisewatch EXE INTERVAL_MS SECONDS
 * Prints, when a raise ends (the value is back, or the process gone) or
 * at the end, "raise PID START_MS NICE POLICY FIRST_MS LAST_MS": the
 * process's start and the first and last sample that saw the raise, in
 * milliseconds of CLOCK_BOOTTIME (the clock of /proc/uptime and of a
 * process's start time). It ends on SIGTERM or after SECONDS, printing
 * "samples N gap_max MS": how often it looked, and the longest time
 * between two looks (a busy machine delays them). Main threads only: the
 * programs it watches have no others. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RAISEWATCH_MAX 4096

struct raisewatch_raise {
	int pid;
	long long start_ms, first_ms, last_ms;
	int nice, policy;
	bool seen;
};

static struct raisewatch_raise raisewatch_open[RAISEWATCH_MAX];
static size_t raisewatch_count;
static volatile sig_atomic_t raisewatch_stop;

static void raisewatch_on_term(int sig)
{
	(void)sig;
	raisewatch_stop = 1;
}

static long long raisewatch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Nice (field 19), start time (22) and policy (41) of /proc/PID/stat;
 * the fields are counted after the name, which may hold spaces and ')'. */
static bool raisewatch_stat(int pid, int *nice, long long *start_ticks,
			    int *policy)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, field = 3;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return false;
	for (p += 2; *p && field <= 41; field++) {
		if (field == 19)
			*nice = atoi(p);
		else if (field == 22)
			*start_ticks = atoll(p);
		else if (field == 41)
			*policy = atoi(p);
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return field > 41;
}

static bool raisewatch_runs(int pid, const char *exe)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, exe) == 0;
}

/* SCHED_FIFO, SCHED_RR and SCHED_DEADLINE: what no unmatched program of
 * the soak may have, as nice below 0. */
static bool raisewatch_is_raise(int nice, int policy)
{
	return nice < 0 || policy == 1 || policy == 2 || policy == 6;
}

static void raisewatch_print(const struct raisewatch_raise *r)
{
	printf("raise %d %lld %d %d %lld %lld\n", r->pid, r->start_ms, r->nice,
	       r->policy, r->first_ms, r->last_ms);
}

static void raisewatch_note(int pid, long long start_ms, int nice, int policy,
			    long long now)
{
	struct raisewatch_raise *r;

	for (size_t i = 0; i < raisewatch_count; i++) {
		r = &raisewatch_open[i];
		if (r->pid == pid && r->start_ms == start_ms) {
			r->last_ms = now;
			r->seen = true;
			return;
		}
	}
	if (raisewatch_count == RAISEWATCH_MAX)
		return; /* far more than the soak makes at once */
	raisewatch_open[raisewatch_count++] = (struct raisewatch_raise){
		pid, start_ms, now, now, nice, policy, true};
}

/* The raises not seen in this look have ended: printed, and dropped. */
static void raisewatch_end_unseen(bool all)
{
	size_t kept = 0;

	for (size_t i = 0; i < raisewatch_count; i++) {
		struct raisewatch_raise *r = &raisewatch_open[i];

		if (r->seen && !all) {
			r->seen = false;
			raisewatch_open[kept++] = *r;
		} else {
			raisewatch_print(r);
		}
	}
	raisewatch_count = kept;
}

static void raisewatch_look(const char *exe, long ticks_per_s)
{
	DIR *dp = opendir("/proc");
	long long now = raisewatch_now_ms();
	struct dirent *d;

	while (dp && (d = readdir(dp))) {
		int pid, nice, policy;
		long long start_ticks;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = atoi(d->d_name);
		if (!raisewatch_runs(pid, exe) ||
		    !raisewatch_stat(pid, &nice, &start_ticks, &policy) ||
		    !raisewatch_is_raise(nice, policy))
			continue;
		raisewatch_note(pid, start_ticks * 1000 / ticks_per_s, nice,
				policy, now);
	}
	if (dp)
		closedir(dp);
	raisewatch_end_unseen(false);
}

int main(int argc, char **argv)
{
	long interval_ms, seconds, ticks_per_s = sysconf(_SC_CLK_TCK);
	long long end, last = 0, gap_max = 0, samples = 0;
	struct timespec pause;

	if (argc != 4 || (interval_ms = atol(argv[2])) <= 0 ||
	    (seconds = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: raisewatch EXE INTERVAL_MS SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, raisewatch_on_term);
	signal(SIGINT, raisewatch_on_term);
	pause = (struct timespec){interval_ms / 1000,
				  interval_ms % 1000 * 1000000};
	end = raisewatch_now_ms() + seconds * 1000;
	while (!raisewatch_stop && raisewatch_now_ms() < end) {
		long long now = raisewatch_now_ms();

		if (last && now - last > gap_max)
			gap_max = now - last;
		last = now;
		raisewatch_look(argv[1], ticks_per_s);
		samples++;
		nanosleep(&pause, NULL);
	}
	raisewatch_end_unseen(true);
	printf("samples %lld gap_max %lld\n", samples, gap_max);
	return 0;
}
