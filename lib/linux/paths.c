/* Linux: the daemon's files where the FHS puts them (the build may move
 * the config and rules, conf.h's CONF_DEFAULT_PATH and _RULES_DIRS), the
 * control endpoint a UNIX socket named by an absolute path. */
#include <stdio.h>

#include "conf.h"
#include "os.h"

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
	return CONF_DEFAULT_SOCKET;
}

const char *paths_state_dir(void)
{
	return CONF_DEFAULT_STATE_DIR;
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
