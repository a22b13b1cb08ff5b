/* Linux: the monotonic clock (what timers and deadlines are measured
 * on), a thread's own CPU clock, and sleeps on the monotonic clock. */
#include <errno.h>
#include <time.h>

#include "os.h"

#define TIMING_NS 1000000000LL

static long long timing_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * TIMING_NS + ts.tv_nsec;
}

long long timing_now_ns(void)
{
	return timing_ns(CLOCK_MONOTONIC);
}

long long timing_thread_cpu_ns(void)
{
	return timing_ns(CLOCK_THREAD_CPUTIME_ID);
}

static struct timespec timing_spec(long long ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / TIMING_NS),
				 .tv_nsec = (long)(ns % TIMING_NS)};
}

/* A signal's interruption sleeps on for what is left. */
void timing_sleep_ns(long long ns)
{
	struct timespec left = timing_spec(ns);

	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

void timing_sleep_until_ns(long long when)
{
	struct timespec at = timing_spec(when);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) ==
	       EINTR)
		;
}
