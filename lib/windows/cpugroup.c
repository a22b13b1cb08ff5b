/* Windows: the scheduler weighs threads by their priority alone, with no
 * group shared out before it (a job's CPU rate control caps, it does not
 * weigh): a restraint's lowering is its threads' (os.h). */
#include "win.h"

enum os_status cpugroup_of(pid_t pid, struct cpugroup *group)
{
	(void)pid;
	*group = (struct cpugroup){.kind = CPUGROUP_NONE};
	return OS_OK;
}

enum os_status cpugroup_members(const struct cpugroup *group, pid_t **pids,
				size_t *count)
{
	(void)group;
	*pids = NULL;
	*count = 0;
	return OS_UNSUPPORTED;
}

enum os_status cpugroup_read(const struct cpugroup *group, long *value)
{
	(void)group;
	*value = 0;
	return OS_UNSUPPORTED;
}

enum os_status cpugroup_write(const struct cpugroup *group, long value)
{
	(void)group;
	(void)value;
	return OS_UNSUPPORTED;
}

long cpugroup_value_of_nice(const struct cpugroup *group, int nice)
{
	(void)group;
	return nice;
}

bool cpugroup_less(const struct cpugroup *group, long a, long b)
{
	(void)group;
	return a > b;
}

/* No desktop marks a process's group focused: the agent says it. */
bool cpugroup_focused(pid_t pid, unsigned *writer)
{
	(void)pid;
	*writer = 0;
	return false;
}
