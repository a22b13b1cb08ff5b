/* A test process for the integration tests and the benchmark: threads now
 * and later, a chosen name, or a wait for its own nice value.
 *   worker [-t THREADS] [-m MORE] [-a AFTER_MS] [-n NAME] [-r AFTER_MS]
 *          [-s SECONDS]
 *   worker -w NICE [-T TIMEOUT_MS] [-e EXEC_NS]
 * With -w it spins until its nice value is NICE and exits 0 (1 on time
 * out). With -e (the time just before its execve, CLOCK_MONOTONIC) it
 * prints "EXEC_TO_MAIN_NS MAIN_TO_APPLIED_NS BEFORE_MAIN": the second is 0
 * when the value was already in place as main() began. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long long worker_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *worker_sleep(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void worker_threads(int count)
{
	for (int i = 0; i < count; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker_sleep, NULL) != 0) {
			perror("pthread_create");
			exit(2);
		}
	}
}

static int worker_wait_nice(int nice, long timeout_ms, long long exec_ns)
{
	long long start = worker_now_ns();
	int before_main = getpriority(PRIO_PROCESS, 0) == nice;

	while (!before_main && getpriority(PRIO_PROCESS, 0) != nice) {
		if (worker_now_ns() - start > timeout_ms * 1000000LL)
			return 1;
	}
	if (exec_ns)
		printf("%lld %lld %d\n", start - exec_ns,
		       before_main ? 0 : worker_now_ns() - start, before_main);
	return 0;
}

int main(int argc, char **argv)
{
	int threads = 0, more = 0, after_ms = 0, rename_ms = -1, seconds = 5;
	int wait_nice = 100;
	long timeout_ms = 5000;
	long long exec_ns = 0;
	const char *name = NULL;
	int c;

	while ((c = getopt(argc, argv, "t:m:a:n:r:s:w:T:e:")) != -1) {
		switch (c) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'm':
			more = atoi(optarg);
			break;
		case 'a':
			after_ms = atoi(optarg);
			break;
		case 'n':
			name = optarg;
			break;
		case 'r':
			rename_ms = atoi(optarg);
			break;
		case 's':
			seconds = atoi(optarg);
			break;
		case 'w':
			wait_nice = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atol(optarg);
			break;
		case 'e':
			exec_ns = atoll(optarg);
			break;
		default:
			return 2;
		}
	}
	if (wait_nice != 100)
		return worker_wait_nice(wait_nice, timeout_ms, exec_ns);
	if (name && rename_ms < 0)
		prctl(PR_SET_NAME, name, 0, 0, 0);
	worker_threads(threads);
	if (more) {
		usleep((useconds_t)after_ms * 1000);
		worker_threads(more);
	}
	if (name && rename_ms >= 0) {
		usleep((useconds_t)rename_ms * 1000);
		prctl(PR_SET_NAME, name, 0, 0, 0);
	}
	sleep((unsigned)seconds);
	return 0;
}
