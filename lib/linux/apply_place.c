/* Linux: thread affinity, and the CPUs a process's cpuset allows. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <hwloc/glibc-sched.h>

#include "cpulist.h"
#include "linux.h"
#include "place.h"

/* Room for Linux's largest NR_CPUS. */
#define APPLY_PLACE_CPUS (CPULIST_MAX_CPU + 1)

/* Affinity is per thread: the tid alone names it. */
enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set)
{
	size_t size = CPU_ALLOC_SIZE(APPLY_PLACE_CPUS);
	cpu_set_t *mask = CPU_ALLOC(APPLY_PLACE_CPUS);
	enum os_status status = OS_FAILED;

	(void)pid;
	if (!mask)
		return OS_FAILED;
	if (sched_getaffinity(tid, size, mask) < 0)
		status = status_of_errno(errno);
	else if (hwloc_cpuset_from_glibc_sched_affinity(NULL, set, mask,
							(int)size) == 0)
		status = OS_OK;
	CPU_FREE(mask);
	return status;
}

enum os_status apply_place_write(pid_t pid, pid_t tid, hwloc_const_bitmap_t set)
{
	size_t size = CPU_ALLOC_SIZE(APPLY_PLACE_CPUS);
	cpu_set_t *mask = CPU_ALLOC(APPLY_PLACE_CPUS);
	enum os_status status = OS_FAILED;

	(void)pid;
	if (!mask)
		return OS_FAILED;
	if (hwloc_cpuset_to_glibc_sched_affinity(NULL, set, mask, size) == 0)
		status = sched_setaffinity(tid, size, mask) == 0
				 ? OS_OK
				 : status_of_errno(errno);
	CPU_FREE(mask);
	return status;
}

/* A file holding a CPU list ("0-3,8"), as sysfs and cgroups write them. */
int apply_place_read_list(const char *path, hwloc_bitmap_t set)
{
	char text[4096];
	size_t len;

	if (procinfo_read(path, text, sizeof(text), &len) < 0)
		return -1;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (!len || hwloc_bitmap_list_sscanf(set, text) < 0) {
		errno = EIO; /* no list there: a failure, not a gone file */
		return -1;
	}
	return 0;
}

/* The kernel keeps every thread inside its cpuset whatever affinity is
 * asked for; plan within it so that spread deals over CPUs that can run.
 * Looks where cgroup v1 (cpuset hierarchy), v2 and the hybrid layout
 * mount it; a process without a readable cpuset may use every CPU. */
enum os_status apply_place_allowed(pid_t pid, hwloc_bitmap_t set)
{
	const char *procfs = paths_procfs();
	const char *sysfs = paths_sysfs();
	static const char *const files[] = {
		"%s/fs/cgroup/cpuset%s/cpuset.effective_cpus",
		"%s/fs/cgroup%s/cpuset.cpus.effective",
		"%s/fs/cgroup/unified%s/cpuset.cpus.effective",
	};
	char path[64 + 4096], cpuset[4096];
	size_t len;

	snprintf(path, sizeof(path), "%s/%d/cpuset", procfs, (int)pid);
	if (procinfo_read(path, cpuset, sizeof(cpuset), &len) < 0)
		return status_of_errno(errno);
	while (len && cpuset[len - 1] == '\n')
		cpuset[--len] = '\0';
	if (strcmp(cpuset, "/") == 0)
		cpuset[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(path, sizeof(path), files[i], sysfs, cpuset);
		if (apply_place_read_list(path, set) == 0)
			return OS_OK;
	}
	return OS_GONE;
}

/* The CPUs online now. */
enum os_status apply_place_online(hwloc_bitmap_t set)
{
	const char *sysfs = paths_sysfs();
	char path[4096];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs);
	return status_of_result(apply_place_read_list(path, set));
}

/* The CPUs the machine has, online or not (hot-pluggable ones too). */
enum os_status apply_place_present(hwloc_bitmap_t set)
{
	const char *sysfs = paths_sysfs();
	char path[4096];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/present", sysfs);
	return status_of_result(apply_place_read_list(path, set));
}

/* Linux has no processor groups: a process may be placed on what its
 * cpuset allows. */
enum os_status apply_place_current(pid_t pid, hwloc_bitmap_t set)
{
	return apply_place_allowed(pid, set);
}

/* Nothing process-wide: a new thread starts with its creator's affinity,
 * which the threads already carry. */
enum os_status apply_place_process(pid_t pid, hwloc_const_bitmap_t set)
{
	(void)pid;
	(void)set;
	return OS_UNSUPPORTED;
}

enum os_status apply_place_process_read(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	hwloc_bitmap_zero(set);
	return OS_UNSUPPORTED;
}

/* hwloc reads the kinds from sysfs (cpu_core, cpu_atom) itself. */
hwloc_bitmap_t *apply_place_kinds(size_t *count)
{
	*count = 0;
	return NULL;
}
