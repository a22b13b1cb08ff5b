/* A test process for the integration tests and the benchmark: threads now
 * and later, a chosen name, or a wait for its own nice value.
 *   worker [-t THREADS] [-m MORE] [-a AFTER_MS] [-n NAME] [-r AFTER_MS]
 *          [-s SECONDS]
 *          [-F MS:PATH] [-X MS] [-E MS:PATH] [-S PATH] [-U UID]
 *   worker -w NICE [-T TIMEOUT_MS] [-e EXEC_NS]
 *   worker -R SECONDS
 *   worker -C SECONDS
 * -R renames itself as fast as it can for SECONDS and prints how often;
 * -C starts and ends threads, one after another, for SECONDS.
 * -F: after MS, fork a child that execs PATH (-s SECONDS); -X: after MS
 * the main thread calls pthread_exit, a thread lives on for SECONDS; -E:
 * after MS a new thread execs PATH; -S: on SIGUSR1 exec PATH; -U: on
 * SIGUSR2 take the user id UID. Programs exec'd get "-s SECONDS".
 * With -w it spins until its nice value is NICE and exits 0 (1 on time
 * out). With -e (the time just before its execve, CLOCK_MONOTONIC) it
 * prints "EXEC_TO_MAIN_NS MAIN_TO_APPLIED_NS BEFORE_MAIN": the second is 0
 * when the value was already in place as main() began. */
#include <pthread.h>
#include <signal.h>
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

static int worker_seconds = 5;
static const char *worker_on_usr1;
static uid_t worker_on_usr2;

static void worker_exec(const char *path)
{
	char seconds[16];

	snprintf(seconds, sizeof(seconds), "%d", worker_seconds);
	execl(path, path, "-s", seconds, (char *)NULL);
	perror(path);
	_exit(127);
}

/* MS:PATH */
static const char *worker_split(char *arg, int *ms)
{
	char *colon = strchr(arg, ':');

	if (!colon) {
		fprintf(stderr, "worker: expected MS:PATH, not %s\n", arg);
		exit(2);
	}
	*colon = '\0';
	*ms = atoi(arg);
	return colon + 1;
}

static void worker_signal(int sig)
{
	if (sig == SIGUSR1 && worker_on_usr1)
		worker_exec(worker_on_usr1);
	if (sig == SIGUSR2 &&
	    setresuid(worker_on_usr2, worker_on_usr2, worker_on_usr2) < 0)
		_exit(3);
}

struct worker_exec_later {
	int ms;
	const char *path;
};

static void *worker_exec_thread(void *arg)
{
	const struct worker_exec_later *later = arg;

	usleep((useconds_t)later->ms * 1000);
	worker_exec(later->path);
	return NULL;
}

static void *worker_sleep(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* What an unprivileged user can make the daemon see as often as it likes:
 * a rename is one system call, and one event for a listener. */
static int worker_rename_flood(int seconds)
{
	long long end = worker_now_ns() + seconds * 1000000000LL;
	unsigned long long count = 0;

	while (worker_now_ns() < end) {
		for (int i = 0; i < 1000; i++, count++)
			prctl(PR_SET_NAME, count & 1 ? "flood-a" : "flood-b", 0,
			      0, 0);
	}
	printf("%llu\n", count);
	return 0;
}

static void *worker_brief(void *arg)
{
	usleep(1000);
	return arg;
}

/* Threads that come and go, a few hundred a second: each one an event. */
static int worker_thread_churn(int seconds)
{
	long long end = worker_now_ns() + seconds * 1000000000LL;

	while (worker_now_ns() < end) {
		pthread_t t[4];

		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, worker_brief, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}

/* The thread that outlives the main one, then ends the process. */
static void *worker_sleep_then_exit(void *arg)
{
	(void)arg;
	sleep((unsigned)worker_seconds);
	exit(0);
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
	int threads = 0, more = 0, after_ms = 0, rename_ms = -1;
	int wait_nice = 100, fork_ms = -1, leave_ms = -1;
	const char *fork_path = NULL;
	struct worker_exec_later later = {-1, NULL};
	long timeout_ms = 5000;
	long long exec_ns = 0;
	const char *name = NULL;
	int c;

	while ((c = getopt(argc, argv, "t:m:a:n:r:s:w:T:e:F:X:E:S:U:R:C:")) !=
	       -1) {
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
			worker_seconds = atoi(optarg);
			break;
		case 'F':
			fork_path = worker_split(optarg, &fork_ms);
			break;
		case 'X':
			leave_ms = atoi(optarg);
			break;
		case 'E':
			later.path = worker_split(optarg, &later.ms);
			break;
		case 'S':
			worker_on_usr1 = optarg;
			signal(SIGUSR1, worker_signal);
			break;
		case 'R':
			return worker_rename_flood(atoi(optarg));
		case 'C':
			return worker_thread_churn(atoi(optarg));
		case 'U':
			worker_on_usr2 = (uid_t)atoi(optarg);
			signal(SIGUSR2, worker_signal);
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
	if (later.path) {
		pthread_t t;

		pthread_create(&t, NULL, worker_exec_thread, &later);
	}
	if (fork_path) {
		usleep((useconds_t)fork_ms * 1000);
		if (fork() == 0)
			worker_exec(fork_path);
	}
	if (leave_ms >= 0) {
		pthread_t t;

		pthread_create(&t, NULL, worker_sleep_then_exit, NULL);
		usleep((useconds_t)leave_ms * 1000);
		pthread_exit(NULL);
	}
	/* A signal handled (-U) cuts a sleep short: sleep the rest. */
	for (unsigned left = (unsigned)worker_seconds; left;)
		left = sleep(left);
	return 0;
}
