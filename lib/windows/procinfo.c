/* Windows: processes and threads. (First cut: the seam's calls answer
 * OS_UNSUPPORTED or nothing; Toolhelp, the token and the image path come
 * next.) */
#include <stdlib.h>

#include "win.h"

void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	(void)ctx;
	facts->failed |= wanted & ~facts->have;
}

int procinfo_pids(const char *procfs, pid_t **pids, size_t *count)
{
	(void)procfs;
	*pids = NULL;
	*count = 0;
	return -1;
}

int procinfo_threads(const char *procfs, pid_t pid, pid_t **tids, size_t *count)
{
	(void)procfs;
	(void)pid;
	*tids = NULL;
	*count = 0;
	return -1;
}

int procinfo_start_time(const char *procfs, pid_t pid, pid_t tid,
			unsigned long long *start)
{
	(void)procfs;
	(void)pid;
	(void)tid;
	*start = 0;
	return -1;
}

bool procinfo_zombie(const char *procfs, pid_t pid)
{
	(void)procfs;
	(void)pid;
	return false;
}

int procinfo_thread_name(const char *procfs, pid_t pid, pid_t tid, char *name,
			 size_t size)
{
	(void)procfs;
	(void)pid;
	(void)tid;
	if (size)
		name[0] = '\0';
	return -1;
}

enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin)
{
	(void)pid;
	pin->handle = 0;
	return OS_UNSUPPORTED;
}

bool procinfo_pin_ended(const struct procinfo_pin *pin)
{
	(void)pin;
	return true;
}

void procinfo_unpin(struct procinfo_pin *pin)
{
	pin->handle = 0;
}

bool procinfo_ended(pid_t pid)
{
	(void)pid;
	return true;
}

bool procinfo_thread_in(pid_t pid, pid_t tid)
{
	(void)pid;
	(void)tid;
	return false;
}

bool procinfo_task_exists(pid_t tid)
{
	(void)tid;
	return false;
}

pid_t procinfo_self(void)
{
	return (pid_t)GetCurrentProcessId();
}
