/* Linux: the group a process's CPU share is weighed in before its nice
 * counts (sched/fair.c): the cpu controller's cgroup it is in, or, in the
 * root group, its session's autogroup (sched/autogroup.c:
 * task_wants_autogroup). /proc/PID/cgroup says which: a v1 hierarchy
 * with the cpu controller, else the v2 path, where the nearest cgroup at
 * or above it with a cpu.weight is the one in force. A cgroup below the
 * process's own (a shared slice) is nobody's to lower: CPUGROUP_NONE. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"

/* kernel/sched/core.c, sched_prio_to_weight: nice -20 to 19. */
static const long cpugroup_weights[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,	 1991,	1586,  1277,
	1024,  820,   655,   526,   423,   335,	  272,	 215,	172,   137,
	110,   87,    70,    56,    45,	   36,	  29,	 23,	18,    15,
};

/* a, b and c in buf, or false where they do not fit: a cut path could
 * name another group. */
static bool cpugroup_join(char *buf, size_t size, const char *a, const char *b,
			  const char *c)
{
	int n = snprintf(buf, size, "%s%s%s", a, b, c);

	return n >= 0 && (size_t)n < size;
}

/* A file that exists: a cgroup's weight file is there only where the
 * cpu controller is enabled for it. */
static bool cpugroup_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A path as the journal can keep it, a line of words: a user who names
 * a cgroup of theirs may put anything in it. */
static bool cpugroup_plain(const char *path)
{
	for (; *path; path++) {
		if ((unsigned char)*path <= ' ' || *path == 0x7f)
			return false;
	}
	return true;
}

/* The path of the cpu controller's group in /proc/PID/cgroup: a v1
 * hierarchy's ("N:cpu,cpuacct:/path"), else v2's ("0::/path"). */
static bool cpugroup_path(char *text, char *path, size_t size, bool *v1)
{
	char *line, *save = NULL, v2[PATH_MAX] = "";

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		char *group = colon ? strchr(colon + 1, ':') : NULL;
		char controllers[256];
		size_t len;

		if (!group)
			continue;
		len = (size_t)(group - colon - 1);
		if (len == 0) {
			snprintf(v2, sizeof(v2), "%s", group + 1);
			continue;
		}
		if (len >= sizeof(controllers) - 2)
			continue;
		snprintf(controllers, sizeof(controllers), ",%.*s,", (int)len,
			 colon + 1);
		if (strstr(controllers, ",cpu,")) {
			snprintf(path, size, "%s", group + 1);
			*v1 = true;
			return true;
		}
	}
	*v1 = false;
	snprintf(path, size, "%s", v2);
	return v2[0] != '\0';
}

/* Where the cpu controller's hierarchy is mounted. */
static bool cpugroup_root(bool v1, char *root, size_t size)
{
	static const char *const v1_mounts[] = {"cpu,cpuacct", "cpu"};
	char probe[PATH_MAX + 32];

	if (!v1) {
		snprintf(root, size, "%s/fs/cgroup", paths_sysfs());
		snprintf(probe, sizeof(probe), "%s/cgroup.controllers", root);
		if (!cpugroup_exists(probe))
			snprintf(root, size, "%s/fs/cgroup/unified",
				 paths_sysfs());
		return true;
	}
	for (size_t i = 0; i < 2; i++) {
		snprintf(root, size, "%s/fs/cgroup/%s", paths_sysfs(),
			 v1_mounts[i]);
		snprintf(probe, sizeof(probe), "%s/cpu.shares", root);
		if (cpugroup_exists(probe))
			return true;
	}
	return false;
}

/* No cgroup below it: its weight is its own processes' alone. */
static bool cpugroup_leaf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool leaf = d != NULL;

	while (d && leaf && (e = readdir(d))) {
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0)
			leaf = false;
	}
	if (d)
		closedir(d);
	return leaf;
}

static bool cpugroup_autogroup_on(void)
{
	char path[PATH_MAX], text[16];

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled",
		 paths_procfs());
	return procinfo_read(path, text, sizeof(text), NULL) == 0 &&
	       text[0] == '1';
}

/* /proc/PID/autogroup: "/autogroup-N nice V"; empty for a session's
 * that was never made by setsid (the root group's, autogroup_default:
 * sched/autogroup.c proc_sched_autogroup_show_task), which is none. */
static int cpugroup_autogroup_line(pid_t pid, char *id, size_t size, long *nice)
{
	char path[PATH_MAX], text[128], name[64];
	int value;

	snprintf(path, sizeof(path), "%s/%d/autogroup", paths_procfs(),
		 (int)pid);
	if (procinfo_read(path, text, sizeof(text), NULL) < 0)
		return -1;
	if (text[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (sscanf(text, "%63s nice %d", name, &value) != 2 ||
	    strncmp(name, "/autogroup-", 11) != 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(id, size, "%s", name);
	*nice = value;
	return 0;
}

static enum os_status cpugroup_autogroup(pid_t pid, struct cpugroup *g)
{
	long nice;

	if (!cpugroup_autogroup_on())
		return OS_OK; /* CPUGROUP_NONE: the nice alone counts */
	if (cpugroup_autogroup_line(pid, g->id, sizeof(g->id), &nice) < 0)
		return errno == ENOENT ? OS_OK : status_of_errno(errno);
	g->kind = CPUGROUP_AUTOGROUP;
	g->via = pid;
	return OS_OK;
}

/* The v2 cgroup in force: the nearest at or above path with the cpu
 * controller; none but the root's: the autogroup is. */
static enum os_status cpugroup_v2(pid_t pid, const char *root, char *path,
				  struct cpugroup *g)
{
	char dir[CPUGROUP_ID_MAX];
	bool own = true;

	while (path[0] && strcmp(path, "/") != 0) {
		char *slash;

		if (!cpugroup_join(dir, sizeof(dir), root, path, "") ||
		    !cpugroup_join(g->id, sizeof(g->id), dir, "/cpu.weight",
				   ""))
			return OS_OK;
		if (cpugroup_exists(g->id)) {
			if (!own)
				return OS_OK; /* a shared slice's */
			g->kind = CPUGROUP_CGROUP;
			g->leaf = cpugroup_leaf(dir);
			return OS_OK;
		}
		own = false;
		slash = strrchr(path, '/');
		*(slash && slash != path ? slash : path + 1) = '\0';
	}
	return cpugroup_autogroup(pid, g);
}

enum os_status cpugroup_of(pid_t pid, struct cpugroup *g)
{
	char file[64 + PATH_MAX], text[4096], path[PATH_MAX], root[PATH_MAX];
	bool v1;

	*g = (struct cpugroup){.kind = CPUGROUP_NONE};
	snprintf(file, sizeof(file), "%s/%d/cgroup", paths_procfs(), (int)pid);
	if (procinfo_read(file, text, sizeof(text), NULL) < 0)
		return status_of_errno(errno);
	if (!cpugroup_path(text, path, sizeof(path), &v1) ||
	    strcmp(path, "/") == 0)
		return cpugroup_autogroup(pid, g);
	if (!cpugroup_plain(path) || !cpugroup_root(v1, root, sizeof(root)))
		return OS_OK;
	if (!v1)
		return cpugroup_v2(pid, root, path, g);
	if (!cpugroup_join(file, sizeof(file), root, path, "") ||
	    !cpugroup_join(g->id, sizeof(g->id), file, "/cpu.shares", "") ||
	    !cpugroup_exists(g->id))
		return OS_OK;
	g->kind = CPUGROUP_CGROUP;
	g->shares = true;
	g->leaf = cpugroup_leaf(file);
	return OS_OK;
}

/* The cgroup's directory: its weight file's. */
static void cpugroup_dir_file(const struct cpugroup *g, const char *name,
			      char *path, size_t size)
{
	const char *slash = strrchr(g->id, '/');
	int dir = slash ? (int)(slash - g->id) : 0;

	snprintf(path, size, "%.*s/%s", dir, g->id, name);
}

enum os_status cpugroup_members(const struct cpugroup *g, pid_t **pids,
				size_t *count)
{
	char path[CPUGROUP_ID_MAX + 16], *text, *line, *save = NULL;
	size_t len, capacity = 16;
	FILE *f;

	*pids = NULL;
	*count = 0;
	if (g->kind != CPUGROUP_CGROUP)
		return OS_UNSUPPORTED;
	cpugroup_dir_file(g, "cgroup.procs", path, sizeof(path));
	if (!(f = fopen(path, "re")))
		return status_of_errno(errno);
	text = NULL;
	len = 0;
	if (getdelim(&text, &len, '\0', f) < 0 && ferror(f)) {
		int err = errno;

		fclose(f);
		free(text);
		return status_of_errno(err);
	}
	fclose(f);
	*pids = xcalloc(capacity, sizeof(**pids));
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (*count == capacity) {
			capacity *= 2;
			*pids = xreallocarray(*pids, capacity, sizeof(**pids));
		}
		(*pids)[(*count)++] = (pid_t)atoi(line);
	}
	free(text);
	return OS_OK;
}

enum os_status cpugroup_read(const struct cpugroup *g, long *value)
{
	char text[64], id[CPUGROUP_ID_MAX];

	switch (g->kind) {
	case CPUGROUP_AUTOGROUP:
		if (cpugroup_autogroup_line(g->via, id, sizeof(id), value) < 0)
			return status_of_errno(errno);
		/* The pid names another group now (it left the session). */
		return strcmp(id, g->id) == 0 ? OS_OK : OS_GONE;
	case CPUGROUP_CGROUP:
		if (procinfo_read(g->id, text, sizeof(text), NULL) < 0)
			return status_of_errno(errno);
		*value = strtol(text, NULL, 10);
		return *value > 0 ? OS_OK : OS_UNSUPPORTED;
	default:
		return OS_UNSUPPORTED;
	}
}

enum os_status cpugroup_write(const struct cpugroup *g, long value)
{
	char path[CPUGROUP_ID_MAX], text[32];
	long now;
	enum os_status os;
	int fd, n;

	if (g->kind == CPUGROUP_NONE)
		return OS_UNSUPPORTED;
	/* An autogroup's pid checked first: it may name another by now. */
	if ((os = cpugroup_read(g, &now)) != OS_OK)
		return os;
	if (g->kind == CPUGROUP_AUTOGROUP)
		snprintf(path, sizeof(path), "%s/%d/autogroup", paths_procfs(),
			 (int)g->via);
	else
		snprintf(path, sizeof(path), "%s", g->id);
	n = snprintf(text, sizeof(text), "%ld\n", value);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return status_of_errno(errno);
	if (write(fd, text, (size_t)n) != n) {
		int err = errno;

		close(fd);
		return status_of_errno(err);
	}
	close(fd);
	return OS_OK;
}

long cpugroup_value_of_nice(const struct cpugroup *g, int nice)
{
	long weight;

	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	if (g->kind == CPUGROUP_AUTOGROUP)
		return nice;
	weight = cpugroup_weights[nice + 20];
	if (g->shares)
		return weight;
	/* cpu.weight's 100 is a weight of 1024, rounded as the kernel's
	 * cpu.weight.nice rounds it (sched/core.c), within 1 to 10000. */
	weight = (weight * 100 + 512) / 1024;
	return weight < 1 ? 1 : weight > 10000 ? 10000 : weight;
}

bool cpugroup_less(const struct cpugroup *g, long a, long b)
{
	return g->kind == CPUGROUP_AUTOGROUP ? a > b : a < b;
}

/* The v2 path in /proc/PID/cgroup ("0::/path"). */
static bool cpugroup_v2_path(char *text, char *path, size_t size)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::/", 4) == 0) {
			snprintf(path, size, "%s", line + 3);
			return true;
		}
	}
	return false;
}

bool cpugroup_focused(pid_t pid, unsigned *writer)
{
	char file[64], text[4096], path[PATH_MAX], root[PATH_MAX],
		dir[2 * PATH_MAX], value[16];
	struct stat st;
	ssize_t n;

	snprintf(file, sizeof(file), "%s/%d/cgroup", paths_procfs(), (int)pid);
	if (procinfo_read(file, text, sizeof(text), NULL) < 0 ||
	    !cpugroup_v2_path(text, path, sizeof(path)) ||
	    strcmp(path, "/") == 0 ||
	    !cpugroup_root(false, root, sizeof(root)) ||
	    !cpugroup_join(dir, sizeof(dir), root, path, ""))
		return false;
	n = lgetxattr(dir, "user.xdg.inactive-since", value, sizeof(value) - 1);
	if (n != 2 || memcmp(value, "-1", 2) != 0)
		return false;
	/* Who may have written it: the cgroup's owner (a delegated subtree
	 * is its user's), or root. */
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	*writer = (unsigned)st.st_uid;
	return true;
}
