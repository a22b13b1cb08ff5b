/* Windows: the daemon's state files. (First cut: OS_UNSUPPORTED.) */
#include <stdio.h>

#include "win.h"

enum os_status statefile_mkdir(const char *dir)
{
	(void)dir;
	return OS_UNSUPPORTED;
}

enum os_status statefile_dir_safe(const char *dir, char *why, size_t size)
{
	(void)dir;
	snprintf(why, size, "not implemented yet");
	return OS_UNSUPPORTED;
}

enum os_status statefile_load(const char *file, size_t max,
			      struct statefile *sf)
{
	(void)file;
	(void)max;
	*sf = (struct statefile){0};
	return OS_UNSUPPORTED;
}

enum os_status statefile_replace(const char *file, const char *text, size_t len)
{
	(void)file;
	(void)text;
	(void)len;
	return OS_UNSUPPORTED;
}

enum os_status statefile_remove(const char *file)
{
	(void)file;
	return OS_UNSUPPORTED;
}

enum os_status statefile_boot_id(const char *procfs, char *id, size_t size,
				 char *from, size_t from_size)
{
	(void)procfs;
	snprintf(id, size, "unknown");
	snprintf(from, from_size, "nothing");
	return OS_UNSUPPORTED;
}
