/* Linux: each worker is a fresh process (fork) sharing an anonymous
 * mapping with cpupolicyctl, and killed with it (PR_SET_PDEATHSIG);
 * threads are known by their kernel ids and placed with
 * pthread_setaffinity_np. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc/glibc-sched.h>

#include "cpulist.h"
#include "linux.h"
#include "os.h"
#include "../work.h"

/* Room for Linux's largest NR_CPUS. */
#define WORK_CPUS (CPULIST_MAX_CPU + 1)

static void *work_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct work_shared *work_shared_new(void)
{
	return work_map(sizeof(struct work_shared));
}

void work_shared_free(struct work_shared *sh)
{
	munmap(sh, sizeof(*sh));
}

struct work_probe *work_probe_new(void)
{
	return work_map(sizeof(struct work_probe));
}

void work_probe_free(struct work_probe *probe)
{
	munmap(probe, sizeof(*probe));
}

pid_t work_thread_id(void)
{
	return gettid();
}

/* A set the mask cannot hold is one this system cannot take. */
enum os_status work_pin(pthread_t thread, hwloc_const_bitmap_t set)
{
	size_t size = CPU_ALLOC_SIZE(WORK_CPUS);
	cpu_set_t *mask = CPU_ALLOC(WORK_CPUS);
	enum os_status status = OS_UNSUPPORTED;

	if (!mask)
		return OS_FAILED;
	if (hwloc_cpuset_to_glibc_sched_affinity(NULL, set, mask, size) == 0)
		status = status_of_errno(
			pthread_setaffinity_np(thread, size, mask));
	CPU_FREE(mask);
	return status;
}

/* Linux spreads a process's threads over every CPU it may use. */
enum os_status work_spread(pthread_t thread, unsigned index, unsigned threads)
{
	(void)thread;
	(void)index;
	(void)threads;
	return OS_OK;
}

enum os_status work_start(const struct work_spec *spec, struct work_shared *sh,
			  pid_t *pid)
{
	memset(sh, 0, sizeof(*sh));
	*pid = fork();
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(work_child(spec, sh));
	}
	if (*pid < 0)
		return status_of_errno(errno);
	while (!sh->ready) {
		int status;

		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			*pid = -1;
			return OS_FAILED;
		}
		timing_sleep_ns(1000000);
	}
	return OS_OK;
}

enum os_status work_stop(pid_t pid, struct work_shared *sh)
{
	int status;

	sh->stop = 1;
	if (waitpid(pid, &status, 0) < 0)
		return status_of_errno(errno);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? OS_OK
							     : OS_FAILED;
}

enum os_status work_probe_start(struct work_probe *probe, long period_us,
				pid_t *pid)
{
	memset(probe, 0, sizeof(*probe));
	probe->period_ns = period_us * 1000LL;
	*pid = fork();
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		work_probe_run(probe);
		_exit(0);
	}
	return *pid < 0 ? status_of_errno(errno) : OS_OK;
}

void work_probe_stop(pid_t pid, struct work_probe *probe)
{
	probe->stop = 1;
	waitpid(pid, NULL, 0);
}

bool work_supported(char *why, size_t size)
{
	(void)why;
	(void)size;
	return true;
}

/* Workers here are forks that keep the step's setup: nothing to attach. */
struct work_shared *work_attach(const char *arg, struct work_order *order)
{
	(void)arg;
	(void)order;
	fprintf(stderr, "cpupolicyctl: saturate: --worker is for Windows' "
			"worker programs; workers here are forks\n");
	return NULL;
}
