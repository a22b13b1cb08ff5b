/* Windows: a thread's processors. (First cut: OS_UNSUPPORTED.) */
#include "win.h"

enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set)
{
	(void)pid;
	(void)tid;
	hwloc_bitmap_zero(set);
	return OS_UNSUPPORTED;
}

enum os_status apply_place_write(pid_t pid, pid_t tid, hwloc_const_bitmap_t set)
{
	(void)pid;
	(void)tid;
	(void)set;
	return OS_UNSUPPORTED;
}

int apply_place_allowed(const char *procfs, const char *sysfs, pid_t pid,
			hwloc_bitmap_t set)
{
	(void)procfs;
	(void)sysfs;
	(void)pid;
	hwloc_bitmap_zero(set);
	return -1;
}

int apply_place_online(const char *sysfs, hwloc_bitmap_t set)
{
	(void)sysfs;
	hwloc_bitmap_zero(set);
	return -1;
}

int apply_place_present(const char *sysfs, hwloc_bitmap_t set)
{
	(void)sysfs;
	hwloc_bitmap_zero(set);
	return -1;
}
