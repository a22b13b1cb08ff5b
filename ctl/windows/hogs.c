/* Windows: saturate --compare --restraint's hogs are not here yet (a hog
 * as another user would need its token, and not a child of cpupolicyctl
 * a parent other than it): --restraint says so. */
#include <stdio.h>

#include "os.h"
#include "../work.h"

bool hogs_supported(char *why, size_t size)
{
	snprintf(why, size,
		 "--compare --restraint is Linux-only for now (on "
		 "Windows, packaging/windows/check.ps1 measures restraint)");
	return false;
}

int hogs_user(const char *name, struct hogs_user *u, char *why, size_t size)
{
	(void)name;
	*u = (struct hogs_user){0};
	hogs_supported(why, size);
	return -1;
}

struct hogs *hogs_start(unsigned count, const struct hogs_user *u,
			long long until_ns, char *why, size_t size)
{
	(void)count;
	(void)u;
	(void)until_ns;
	hogs_supported(why, size);
	return NULL;
}

pid_t hogs_pid(const struct hogs *h, unsigned i)
{
	(void)h;
	(void)i;
	return -1;
}

void hogs_counts(const struct hogs *h, unsigned long long *spins,
		 long long *cpu_ns)
{
	(void)h;
	*spins = 0;
	*cpu_ns = 0;
}

bool hogs_stop(struct hogs *h)
{
	(void)h;
	return true;
}
