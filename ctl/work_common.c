/* The saturation check's load: worker threads doing units of work
 * (floating point, integer, or memory streaming) and counting them in
 * memory shared with cpupolicyctl; and a latency probe that wakes on a
 * fixed period and records how late each wake-up was. What runs in the
 * worker is here; the worker processes, their shared memory, thread ids
 * and placement are the system's (linux/work.c). */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "os.h"
#include "work.h"

struct work_thread {
	struct work_shared *shared;
	const struct work_spec *spec;
	unsigned index;
	enum work_kind kind;
};

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

	if (t->kind == WORK_KIND_MEM)
		buf = calloc(words, sizeof(*buf));
	sh->tid[t->index] = work_thread_id();
	if (t->spec->thread_start &&
	    t->spec->thread_start(t->spec->setup_ctx) < 0)
		sh->failed = 1;
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
	sh->cpu_s[t->index] = (double)timing_thread_cpu_ns() / 1e9;
	sh->sink += sink + (unsigned long long)x;
	free(buf);
	return NULL;
}

unsigned long long work_total(const struct work_shared *sh, unsigned threads)
{
	unsigned long long total = 0;

	for (unsigned i = 0; i < threads; i++)
		total += __atomic_load_n(&sh->count[i], __ATOMIC_RELAXED);
	return total;
}

/* The worker process's part: its priority, its threads, each placed;
 * ready once every thread has said who it is; done when they stop. Its
 * exit status: 0, or which step failed (6: a thread's own setup, told
 * before it is ready so that cpupolicyctl hears of it at the start). */
int work_child(const struct work_spec *spec, struct work_shared *sh)
{
	struct work_thread threads[WORK_MAX_THREADS];
	pthread_t ids[WORK_MAX_THREADS];

	if (spec->setup && spec->setup(spec->setup_ctx) < 0)
		return 3;
	for (unsigned i = 0; i < spec->threads; i++) {
		threads[i] = (struct work_thread){sh, spec, i, spec->kind};
		if (pthread_create(&ids[i], NULL, work_run, &threads[i]) != 0)
			return 4;
		if ((spec->thread_setup
			     ? spec->thread_setup(spec->setup_ctx, ids[i], i)
			     : work_spread(ids[i], i, spec->threads)) != OS_OK)
			return 5;
	}
	while (__atomic_load_n(&sh->started, __ATOMIC_ACQUIRE) < spec->threads)
		timing_sleep_ns(1000000);
	if (sh->failed)
		sh->start = sh->stop = 1;
	else
		sh->ready = 1;
	for (unsigned i = 0; i < spec->threads; i++)
		pthread_join(ids[i], NULL);
	return sh->failed ? 6 : 0;
}

/* The probe's process: wakes every period on the monotonic clock and
 * records how late it woke, until told to stop. */
void work_probe_run(struct work_probe *probe)
{
	long long next = timing_now_ns();

	while (!probe->stop && probe->count < WORK_PROBE_MAX) {
		long long late;

		next += probe->period_ns;
		timing_sleep_until_ns(next);
		late = timing_now_ns() - next;
		probe->at[probe->count] = next;
		probe->late[probe->count] = late;
		__atomic_add_fetch(&probe->count, 1, __ATOMIC_RELEASE);
		/* A wake-up later than a whole period skips slots. */
		while (late >= probe->period_ns) {
			late -= probe->period_ns;
			next += probe->period_ns;
		}
	}
}
