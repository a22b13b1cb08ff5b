/* The group a process is weighed in, on a fake /proc and /sys: the root
 * cpu group means its session's autogroup (where autogroup is on), a v1
 * cpu cgroup or a v2 one with the cpu controller its own cgroup, a v2
 * cgroup without it below one with it a shared slice's (none); a path a
 * user could have filled with a line break is none either. The values:
 * an autogroup's nice, cpu.shares and cpu.weight as the kernel weighs a
 * nice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "os.h"
#include "util.h"

static char root[64], procfs[96], sysfs[96];

/* The file under the root, its directories made. */
static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f;

	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	free(path);
}

static const char *get(const char *rel)
{
	static char text[128];
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "r");

	text[0] = '\0';
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
	}
	free(path);
	return text;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/cpupolicy-cpugroup-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(procfs, sizeof(procfs), "%s/proc", root);
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	paths_set_roots(procfs, sysfs, NULL);
	put("proc/sys/kernel/sched_autogroup_enabled", "1\n");
	put("proc/42/autogroup", "/autogroup-7 nice 0\n");
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", root);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	paths_set_roots(NULL, NULL, NULL);
	return 0;
}

static struct cpugroup of(void)
{
	struct cpugroup g;

	assert_int_equal(cpugroup_of(42, &g), OS_OK);
	return g;
}

/* The root group: the session's autogroup, read and set through the
 * pid; with autogroup off, none. */
static void test_root_group_is_the_autogroup(void **state)
{
	struct cpugroup g;
	long value;

	(void)state;
	put("proc/42/cgroup", "2:cpu,cpuacct:/\n1:name=systemd:/x\n0::/x\n");
	g = of();
	assert_int_equal(g.kind, CPUGROUP_AUTOGROUP);
	assert_string_equal(g.id, "/autogroup-7");
	assert_int_equal(g.via, 42);
	assert_int_equal(cpugroup_read(&g, &value), OS_OK);
	assert_int_equal(value, 0);
	assert_int_equal(cpugroup_write(&g, 10), OS_OK);
	assert_string_equal(get("proc/42/autogroup"), "10\n");
	/* The pid in another autogroup since: not the group lowered. */
	put("proc/42/autogroup", "/autogroup-9 nice 0\n");
	assert_int_equal(cpugroup_read(&g, &value), OS_GONE);
	assert_int_equal(cpugroup_write(&g, 0), OS_GONE);
	assert_string_equal(get("proc/42/autogroup"), "/autogroup-9 nice 0\n");
	/* In the session of init, never made by setsid: the root group's
	 * own, with no autogroup to lower. */
	put("proc/42/autogroup", "");
	assert_int_equal(of().kind, CPUGROUP_NONE);
	put("proc/sys/kernel/sched_autogroup_enabled", "0\n");
	assert_int_equal(of().kind, CPUGROUP_NONE);
}

/* v1: the cpu hierarchy's cgroup, with cpu.shares; its members. */
static void test_v1_cgroup(void **state)
{
	struct cpugroup g;
	pid_t *pids;
	size_t count;

	(void)state;
	put("sys/fs/cgroup/cpu/cpu.shares", "1024\n");
	put("sys/fs/cgroup/cpu/box/cpu.shares", "1024\n");
	put("sys/fs/cgroup/cpu/box/cgroup.procs", "42\n43\n");
	/* A hierarchy named cpuacct alone is not the cpu controller's. */
	put("proc/42/cgroup", "2:cpuacct:/other\n4:cpu:/box\n0::/\n");
	g = of();
	assert_int_equal(g.kind, CPUGROUP_CGROUP);
	assert_true(g.shares);
	assert_true(g.leaf);
	assert_non_null(strstr(g.id, "/sys/fs/cgroup/cpu/box/cpu.shares"));
	assert_int_equal(cpugroup_members(&g, &pids, &count), OS_OK);
	assert_int_equal(count, 2);
	assert_int_equal(pids[1], 43);
	free(pids);
	assert_int_equal(cpugroup_value_of_nice(&g, 10), 110);
	assert_int_equal(cpugroup_value_of_nice(&g, 0), 1024);
	assert_true(cpugroup_less(&g, 110, 1024));
	assert_int_equal(cpugroup_write(&g, 110), OS_OK);
	assert_string_equal(get("sys/fs/cgroup/cpu/box/cpu.shares"), "110\n");
	/* A cgroup below it: its weight is not its processes' alone. */
	put("sys/fs/cgroup/cpu/box/sub/cpu.shares", "1024\n");
	assert_false(of().leaf);
}

/* v2: the process's own cgroup where the cpu controller is enabled for
 * it; a slice's above it weighs others too; none at all: the root's. */
static void test_v2_cgroup(void **state)
{
	struct cpugroup g;

	(void)state;
	put("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
	put("sys/fs/cgroup/user.slice/cpu.weight", "100\n");
	put("sys/fs/cgroup/user.slice/app.scope/cpu.weight", "100\n");
	put("proc/42/cgroup", "0::/user.slice/app.scope\n");
	g = of();
	assert_int_equal(g.kind, CPUGROUP_CGROUP);
	assert_false(g.shares);
	assert_int_equal(cpugroup_value_of_nice(&g, 10), 11);
	assert_int_equal(cpugroup_value_of_nice(&g, 0), 100);
	assert_int_equal(cpugroup_value_of_nice(&g, 19), 1);
	put("proc/42/cgroup", "0::/user.slice/other.scope\n");
	assert_int_equal(of().kind, CPUGROUP_NONE);
	put("proc/42/cgroup", "0::/init.scope\n");
	assert_int_equal(of().kind, CPUGROUP_AUTOGROUP);
	put("proc/42/cgroup", "0::/\n");
	assert_int_equal(of().kind, CPUGROUP_AUTOGROUP);
}

/* A name its user chose, with a line break or a space in it: none, as
 * the journal keeps a group's name on a line of words. */
static void test_unplain_path_is_none(void **state)
{
	(void)state;
	put("sys/fs/cgroup/cgroup.controllers", "cpu\n");
	put("sys/fs/cgroup/a b/cpu.weight", "100\n");
	put("proc/42/cgroup", "0::/a b\n");
	assert_int_equal(of().kind, CPUGROUP_NONE);
}

/* GNOME's focus: user.xdg.inactive-since -1 on the process's v2 cgroup,
 * with who may have written it; a time (inactive since then), none, or
 * the root cgroup's: not focused. */
static void test_focused_by_the_cgroups_mark(void **state)
{
	char *dir = xasprintf("%s/sys/fs/cgroup/user.slice/app.scope", root);
	unsigned writer = 12345;

	(void)state;
	put("sys/fs/cgroup/cgroup.controllers", "cpu\n");
	put("sys/fs/cgroup/user.slice/app.scope/cgroup.procs", "42\n");
	put("proc/42/cgroup", "1:cpu:/\n0::/user.slice/app.scope\n");
	if (setxattr(dir, "user.xdg.inactive-since", "-1", 2, 0) < 0) {
		free(dir);
		skip(); /* no user xattrs where the test's files are */
	}
	assert_true(cpugroup_focused(42, &writer));
	assert_int_equal(writer, (unsigned)getuid());
	assert_int_equal(setxattr(dir, "user.xdg.inactive-since",
				  "1733380000000000", 16, 0),
			 0);
	assert_false(cpugroup_focused(42, &writer));
	assert_int_equal(removexattr(dir, "user.xdg.inactive-since"), 0);
	assert_false(cpugroup_focused(42, &writer));
	put("proc/42/cgroup", "0::/\n");
	assert_false(cpugroup_focused(42, &writer));
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_root_group_is_the_autogroup),
		T(test_v1_cgroup),
		T(test_v2_cgroup),
		T(test_unplain_path_is_none),
		T(test_focused_by_the_cgroups_mark),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
