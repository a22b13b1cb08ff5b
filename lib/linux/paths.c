/* Linux: the daemon's files where the FHS puts them (the build may move
 * the config and rules: CONF_DEFAULT_PATH and _RULES_DIRS), the control
 * endpoint a UNIX socket named by an absolute path; and the roots of
 * /proc, /sys and /dev the backend reads, which tests and the config's
 * [paths] move to a fake tree once, before anything is read. */
#include <limits.h>
#include <stdio.h>

#include "linux.h"
#include "os.h"

#ifndef CONF_DEFAULT_PATH
#define CONF_DEFAULT_PATH "/etc/cpupolicy/cpupolicyd.conf"
#endif
#ifndef CONF_DEFAULT_RULES_DIRS
#define CONF_DEFAULT_RULES_DIRS                                                \
	"/usr/share/cpupolicy/rules.d:/etc/cpupolicy/rules.d"
#endif
#define PATHS_SOCKET	"/run/cpupolicy/cpupolicyd.sock"
#define PATHS_STATE_DIR "/var/lib/cpupolicy"

static struct {
	char procfs[PATH_MAX], sysfs[PATH_MAX], dev[PATH_MAX];
} paths_roots = {"/proc", "/sys", "/dev"};

static void paths_root_set(char *root, size_t size, const char *path)
{
	if (path)
		snprintf(root, size, "%s", path);
}

void paths_set_roots(const char *procfs, const char *sysfs, const char *dev)
{
	paths_root_set(paths_roots.procfs, sizeof(paths_roots.procfs), procfs);
	paths_root_set(paths_roots.sysfs, sizeof(paths_roots.sysfs), sysfs);
	paths_root_set(paths_roots.dev, sizeof(paths_roots.dev), dev);
}

const char *paths_procfs(void)
{
	return paths_roots.procfs;
}

const char *paths_sysfs(void)
{
	return paths_roots.sysfs;
}

const char *paths_dev(void)
{
	return paths_roots.dev;
}

const char *paths_conf_file(void)
{
	return CONF_DEFAULT_PATH;
}

const char *paths_rules_dirs(void)
{
	return CONF_DEFAULT_RULES_DIRS;
}

const char *paths_endpoint(void)
{
	return PATHS_SOCKET;
}

const char *paths_state_dir(void)
{
	return PATHS_STATE_DIR;
}

const char *paths_list_separators(void)
{
	return ":";
}

bool paths_absolute(const char *path)
{
	return path[0] == '/';
}

bool paths_endpoint_valid(const char *name, char *why, size_t size)
{
	if (paths_absolute(name))
		return true;
	snprintf(why, size, "is not an absolute path");
	return false;
}
