/* Windows: the saturation check's worker processes are part 2 (a worker
 * there is the same .exe started again, sharing a file mapping): until
 * then cpupolicyctl saturate says so. The threads' own calls work. */
#include <errno.h>
#include <stdio.h>

#include <windows.h>

#include "../work.h"

bool work_supported(char *why, size_t size)
{
	snprintf(why, size,
		 "not yet on Windows (the worker processes it measures with "
		 "come in a later version)");
	return false;
}

struct work_shared *work_shared_new(void)
{
	errno = ENOSYS;
	return NULL;
}

void work_shared_free(struct work_shared *sh)
{
	(void)sh;
}

struct work_probe *work_probe_new(void)
{
	errno = ENOSYS;
	return NULL;
}

void work_probe_free(struct work_probe *probe)
{
	(void)probe;
}

pid_t work_thread_id(void)
{
	return (pid_t)GetCurrentThreadId();
}

int work_pin(pthread_t thread, hwloc_const_bitmap_t set)
{
	(void)thread;
	(void)set;
	errno = ENOSYS;
	return -1;
}

pid_t work_start(const struct work_spec *spec, struct work_shared *sh)
{
	(void)spec;
	(void)sh;
	errno = ENOSYS;
	return -1;
}

int work_stop(pid_t pid, struct work_shared *sh)
{
	(void)pid;
	(void)sh;
	return -1;
}

pid_t work_probe_start(struct work_probe *probe, long period_us)
{
	(void)probe;
	(void)period_us;
	errno = ENOSYS;
	return -1;
}

void work_probe_stop(pid_t pid, struct work_probe *probe)
{
	(void)pid;
	(void)probe;
}
