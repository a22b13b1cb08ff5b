/* The saturation check's load: a fresh process of worker threads doing
 * units of work (floating point, integer, or memory streaming) and
 * counting them in memory shared with cpupolicyctl; and a latency probe
 * that wakes on a fixed period and records how late each wake-up was. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hwloc/glibc-sched.h>

#include "work.h"

struct work_thread {
	struct work_shared *shared;
	unsigned index;
	enum work_kind kind;
};

long long work_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A unit is about the same few microseconds of work for every kind. */
static double work_tan(double x)
{
	for (int i = 0; i < 256; i++)
		x = tan(x) * 0.5 + 0.25;
	return x;
}

static unsigned long long work_int(unsigned long long x)
{
	for (int i = 0; i < 1024; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* 64 KiB a unit through a buffer larger than the caches. */
static unsigned long long work_mem(unsigned long long *buf, size_t words,
				   size_t *pos)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < 8192; i++) {
		buf[*pos] += i;
		sum += buf[*pos];
		*pos = (*pos + 1) % words;
	}
	return sum;
}

static void *work_run(void *arg)
{
	struct work_thread *t = arg;
	struct work_shared *sh = t->shared;
	size_t words = (32u << 20) / sizeof(unsigned long long), pos = 0;
	unsigned long long *buf = NULL, sink = 0;
	double x = 0.5;
	struct timespec cpu;

	if (t->kind == WORK_KIND_MEM)
		buf = calloc(words, sizeof(*buf));
	sh->tid[t->index] = gettid();
	__atomic_add_fetch(&sh->started, 1, __ATOMIC_RELEASE);
	while (!sh->start)
		sched_yield();
	while (!sh->stop) {
		if (t->kind == WORK_KIND_TAN)
			x = work_tan(x);
		else if (t->kind == WORK_KIND_INT || !buf)
			sink += work_int(sink + 1);
		else
			sink += work_mem(buf, words, &pos);
		__atomic_add_fetch(&sh->count[t->index], 1, __ATOMIC_RELAXED);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	sh->cpu_s[t->index] = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
	sh->sink += sink + (unsigned long long)x;
	free(buf);
	return NULL;
}

struct work_shared *work_shared_new(void)
{
	void *p = mmap(NULL, sizeof(struct work_shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void work_shared_free(struct work_shared *sh)
{
	munmap(sh, sizeof(*sh));
}

unsigned long long work_total(const struct work_shared *sh, unsigned threads)
{
	unsigned long long total = 0;

	for (unsigned i = 0; i < threads; i++)
		total += __atomic_load_n(&sh->count[i], __ATOMIC_RELAXED);
	return total;
}

/* A thread's CPU time so far, in seconds: the nanoseconds it ran from
 * schedstat, else its clock ticks from stat; 0 when neither reads. */
double work_thread_cpu(const char *procfs, pid_t pid, pid_t tid)
{
	char path[128], text[1024], *close;
	unsigned long long ns, ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", procfs,
		 (int)pid, (int)tid);
	f = fopen(path, "r");
	if (f) {
		int n = fscanf(f, "%llu", &ns);

		fclose(f);
		if (n == 1)
			return (double)ns / 1e9;
	}
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", procfs, (int)pid,
		 (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	close = strrchr(text, ')');
	if (!close || sscanf(close + 2,
			     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			     "%llu %llu",
			     &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void work_child(const struct work_spec *spec, struct work_shared *sh)
{
	struct work_thread threads[WORK_MAX_THREADS];
	pthread_t ids[WORK_MAX_THREADS];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (spec->setup && spec->setup(spec->setup_ctx) < 0)
		_exit(3);
	for (unsigned i = 0; i < spec->threads; i++) {
		threads[i] = (struct work_thread){sh, i, spec->kind};
		if (pthread_create(&ids[i], NULL, work_run, &threads[i]) != 0)
			_exit(4);
		if (spec->thread_setup &&
		    spec->thread_setup(spec->setup_ctx, ids[i], i) < 0)
			_exit(5);
	}
	/* Ready when every thread has said who it is. */
	while (__atomic_load_n(&sh->started, __ATOMIC_ACQUIRE) < spec->threads)
		usleep(1000);
	sh->ready = 1;
	for (unsigned i = 0; i < spec->threads; i++)
		pthread_join(ids[i], NULL);
	_exit(0);
}

pid_t work_start(const struct work_spec *spec, struct work_shared *sh)
{
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0)
		work_child(spec, sh);
	if (pid < 0)
		return -1;
	while (!sh->ready) {
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid) {
			errno = ECHILD;
			return -1;
		}
		usleep(1000);
	}
	return pid;
}

int work_stop(pid_t pid, struct work_shared *sh)
{
	int status;

	sh->stop = 1;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The probe: wakes every period on an absolute clock and records how late
 * it woke, until told to stop. */
pid_t work_probe_start(struct work_probe *probe, long period_us)
{
	pid_t pid;

	memset(probe, 0, sizeof(*probe));
	probe->period_ns = period_us * 1000LL;
	pid = fork();
	if (pid == 0) {
		struct timespec next;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		clock_gettime(CLOCK_MONOTONIC, &next);
		while (!probe->stop && probe->count < WORK_PROBE_MAX) {
			long long due, late;

			next.tv_nsec += probe->period_ns;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
					NULL);
			due = (long long)next.tv_sec * 1000000000LL +
			      next.tv_nsec;
			late = work_now_ns() - due;
			probe->at[probe->count] = due;
			probe->late[probe->count] = late;
			__atomic_add_fetch(&probe->count, 1, __ATOMIC_RELEASE);
			/* A wake-up later than a whole period skips slots. */
			while (late >= probe->period_ns) {
				late -= probe->period_ns;
				next.tv_nsec += probe->period_ns;
				while (next.tv_nsec >= 1000000000L) {
					next.tv_nsec -= 1000000000L;
					next.tv_sec++;
				}
			}
		}
		_exit(0);
	}
	return pid;
}

struct work_probe *work_probe_new(void)
{
	void *p = mmap(NULL, sizeof(struct work_probe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void work_probe_free(struct work_probe *probe)
{
	munmap(probe, sizeof(*probe));
}
