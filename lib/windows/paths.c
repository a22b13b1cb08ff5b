/* Windows: the daemon's files under %ProgramData%\cpupolicy\ (config,
 * rules.d\, state\), the control endpoint the named pipe
 * \\.\pipe\cpupolicy, and ';' between directories: a drive letter has a
 * ':' of its own. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <windows.h>

#include <shlobj.h>

#include "os.h"
#include "win.h"

#define PATHS_PIPE_PREFIX "\\\\.\\pipe\\"

struct paths {
	bool known;
	char base[MAX_PATH * 3]; /* %ProgramData%\cpupolicy, in UTF-8 */
	char conf[MAX_PATH * 3 + 32], rules[MAX_PATH * 3 + 32];
	char state[MAX_PATH * 3 + 32];
};

static struct paths paths;

/* %ProgramData% (C:\ProgramData) as the shell knows it, not from the
 * environment: a service's may differ from a console's (Wine gives its
 * services another), and whoever starts the daemon sets it. Where the
 * shell cannot say, the Windows directory's drive holds it. */
static void paths_program_data(char *out, size_t size)
{
	wchar_t wide[MAX_PATH];
	UINT n;

	if (SHGetFolderPathW(NULL, CSIDL_COMMON_APPDATA, NULL,
			     SHGFP_TYPE_CURRENT, wide) == S_OK &&
	    system_utf8(wide, out, size) && paths_absolute(out))
		return;
	n = GetSystemWindowsDirectoryW(wide, MAX_PATH);
	if (n >= 2 && n < MAX_PATH && wide[1] == L':')
		snprintf(out, size, "%c:\\ProgramData", (char)wide[0]);
	else
		snprintf(out, size, "C:\\ProgramData");
}

static const struct paths *paths_get(void)
{
	char data[MAX_PATH * 3];

	if (paths.known)
		return &paths;
	paths_program_data(data, sizeof(data));
	snprintf(paths.base, sizeof(paths.base), "%s\\cpupolicy", data);
	snprintf(paths.conf, sizeof(paths.conf), "%s\\cpupolicyd.conf",
		 paths.base);
	snprintf(paths.rules, sizeof(paths.rules), "%s\\rules.d", paths.base);
	snprintf(paths.state, sizeof(paths.state), "%s\\state", paths.base);
	paths.known = true;
	return &paths;
}

const char *paths_conf_file(void)
{
	return paths_get()->conf;
}

const char *paths_rules_dirs(void)
{
	return paths_get()->rules;
}

const char *paths_endpoint(void)
{
	return PATHS_PIPE_PREFIX "cpupolicy";
}

const char *paths_state_dir(void)
{
	return paths_get()->state;
}

const char *paths_list_separators(void)
{
	return ";";
}

static bool paths_slash(char c)
{
	return c == '\\' || c == '/';
}

/* A drive letter's root (C:\, C:/) or a UNC path (\\server\share, and
 * \\?\ and \\.\ with it); C:x is relative to the drive's current
 * directory, \x to the current drive: neither names one place. */
bool paths_absolute(const char *path)
{
	if (((path[0] >= 'A' && path[0] <= 'Z') ||
	     (path[0] >= 'a' && path[0] <= 'z')) &&
	    path[1] == ':' && paths_slash(path[2]))
		return true;
	return paths_slash(path[0]) && paths_slash(path[1]) && path[2] &&
	       !paths_slash(path[2]);
}

/* \\.\pipe\NAME, as CreateNamedPipeW takes it: this machine's pipes
 * only (a server's pipe would be \\server\pipe\NAME). */
bool paths_endpoint_valid(const char *name, char *why, size_t size)
{
	size_t prefix = strlen(PATHS_PIPE_PREFIX);

	if (strncasecmp(name, PATHS_PIPE_PREFIX, prefix) != 0 ||
	    !name[prefix]) {
		snprintf(why, size, "is not a pipe name (\\\\.\\pipe\\NAME)");
		return false;
	}
	return true;
}

/* Windows reads no trees of files for processes, CPUs or power: nothing
 * to move. */
void paths_set_roots(const char *procfs, const char *sysfs, const char *dev)
{
	(void)procfs;
	(void)sysfs;
	(void)dev;
}
