/* /proc facts, read from a fake /proc tree with hostile contents: a name
 * holding ") (" and a newline, arguments with empty ones, a replaced
 * binary, cgroup v1 and v2 lines, a cut-off stat; the file behind an exe
 * link against the file its path names; daemons known by their binaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "linux.h"
#include "util.h"

static char root[] = "/tmp/cpupolicy-procinfo-XXXXXX";

static void put(const char *rel, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	free(path);
}

static void dir(const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);

	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
}

static void link_to(const char *rel, const char *target)
{
	char *path = xasprintf("%s/%s", root, rel);

	assert_int_equal(symlink(target, path), 0);
	free(path);
}

#define PUT(rel, literal) put(rel, literal, sizeof(literal) - 1)

/* A file of the tree, made by the test: root's when the test runs as
 * root. */
static void file(const char *rel, mode_t mode)
{
	char *path = xasprintf("%s/%s", root, rel);

	put(rel, "x", 1);
	assert_int_equal(chmod(path, mode), 0);
	free(path);
}

static void link_in(const char *rel, const char *target)
{
	char *path = xasprintf("%s/%s", root, target);

	link_to(rel, path);
	free(path);
}

static void process(const char *pid, unsigned uid, const char *exe,
		    const char *args, size_t args_len)
{
	char *rel = xasprintf("%s/status", pid);
	char *status = xasprintf("Name:\tx\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0"
				 "\t0\t0\n",
				 uid, uid, uid, uid);

	dir(pid);
	put(rel, status, strlen(status));
	free(rel);
	free(status);
	rel = xasprintf("%s/exe", pid);
	link_in(rel, exe);
	free(rel);
	rel = xasprintf("%s/cmdline", pid);
	put(rel, args, args_len);
	free(rel);
}

#define ARGS(literal) literal, sizeof(literal) - 1

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	dir("4242");
	dir("4242/task");
	dir("4242/task/4242");
	dir("4242/task/4243");
	dir("1");
	dir("77");
	dir("self-ish");
	PUT("4242/stat",
	    "4242 (a) (b\n c) S 1 4242 4242 0 -1 4194560 100 0 "
	    "0 0 1 2 0 0 20 0 2 0 123456 1000 10 18446744073709551615\n");
	PUT("4242/comm", "a) (b\n");
	PUT("4242/cmdline", "prog\0--flag\0\0last\0");
	PUT("4242/status",
	    "Name:\tprog\nUid:\t1000\t1001\t1000\t1000\nGid:\t100\t101\t100\t"
	    "100\nGroups:\t4 24 27 \n");
	PUT("4242/cgroup", "12:cpu,cpuacct:/batch\n1:name=systemd:/user.slice/"
			   "x.scope\n0::/user.slice/x.scope\n");
	link_to("4242/exe", "/opt/app/bin/server (deleted)");
	link_to("1/exe", "/usr/lib/systemd/systemd");
	PUT("77/stat", "77 (short) S 1 77\n");
	dir("bin");
	file("bin/app", 0755);
	file("bin/parent", 0755);
	dir("5");
	link_in("5/exe", "bin/app");
	PUT("5/stat", "5 (app) S 6 5 5 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 "
		      "0 777 1000 10 1\n");
	dir("6");
	link_in("6/exe", "bin/parent");
	paths_set_roots(root, NULL, NULL);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", root);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

static void test_facts(void **state)
{
	struct procinfo pi = {4242};
	struct facts f = {0};

	(void)state;
	procinfo_fetch(&pi,
		       MATCH_FACT_EXE | MATCH_FACT_COMM | MATCH_FACT_CMDLINE |
			       MATCH_FACT_CREDS | MATCH_FACT_CGROUP |
			       MATCH_FACT_PARENT_EXE,
		       &f);
	assert_int_equal(f.failed, 0);
	assert_string_equal(f.exe, "/opt/app/bin/server");
	assert_string_equal(f.comm, "a) (b");
	assert_string_equal(f.cmdline, "prog --flag  last");
	assert_int_equal(f.uid, 1001);
	assert_int_equal(f.gid, 101);
	assert_int_equal(f.group_count, 3);
	assert_int_equal(f.groups[2], 27);
	assert_string_equal(f.cgroups, "/batch\n/user.slice/x.scope\n");
	assert_string_equal(f.parent_exe, "/usr/lib/systemd/systemd");
}

static void test_stat(void **state)
{
	unsigned long long start;
	pid_t ppid;

	(void)state;
	assert_int_equal(procinfo_stat(root, 4242, 0, &ppid, &start), 0);
	assert_int_equal(ppid, 1);
	assert_int_equal(start, 123456);
	/* Cut off before the start time: not an identity. */
	assert_int_equal(procinfo_stat(root, 77, 0, &ppid, &start), -1);
	assert_int_equal(procinfo_stat(root, 99, 0, &ppid, &start), -1);
	assert_int_equal(procinfo_parse_stat("no parenthesis", &ppid, &start),
			 -1);
}

/* Whether the main thread is alone: one thread (field 20) and not a
 * zombie, whatever the name holds; a line cut before the count is not. */
static void test_stat_alone(void **state)
{
	static const char *const alone[] = {
		"4242 (a) (b) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
		"250 50 0 0 20 -5 1 0 123456",
		"4242 (x y) R 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9",
	};
	static const char *const not_alone[] = {
		"4242 (a) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
		"250 50 0 0 20 -5 3 0 123456",
		/* Its main thread ended, one other runs. */
		"4242 (a) Z 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9",
		"4242 (a) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20",
		"4242 (a) S",
		"no parenthesis",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(alone) / sizeof(*alone); i++)
		assert_true(procinfo_parse_stat_alone(alone[i]));
	for (size_t i = 0; i < sizeof(not_alone) / sizeof(*not_alone); i++)
		assert_false(procinfo_parse_stat_alone(not_alone[i]));
}

/* The name in a stat line, whatever it holds: a space, a parenthesis;
 * none without its parentheses. */
static void test_stat_comm(void **state)
{
	char comm[16];

	(void)state;
	procinfo_parse_stat_comm("4242 (a) (b) S 1", comm, sizeof(comm));
	assert_string_equal(comm, "a) (b");
	procinfo_parse_stat_comm("4242 (x y) R 1", comm, sizeof(comm));
	assert_string_equal(comm, "x y");
	procinfo_parse_stat_comm("4242 () R 1", comm, sizeof(comm));
	assert_string_equal(comm, "");
	procinfo_parse_stat_comm("no parenthesis", comm, sizeof(comm));
	assert_string_equal(comm, "");
}

/* CPU time and nice from a stat line, whatever the name holds; a line
 * cut before them is refused, and nice is needed only when asked for. */
static void test_stat_cpu(void **state)
{
	static const char line[] =
		"4242 (a) (b) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
		"250 50 0 0 20 -5 3 0 123456 1000 10";
	static const char cut[] =
		"4242 (a) (b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50";
	unsigned long long ticks;
	int nice = 0;

	(void)state;
	assert_int_equal(procinfo_parse_stat_cpu(line, &ticks, &nice), 0);
	assert_int_equal(ticks, 300);
	assert_int_equal(nice, -5);
	assert_int_equal(procinfo_parse_stat_cpu(cut, &ticks, &nice), -1);
	assert_int_equal(procinfo_parse_stat_cpu(cut, &ticks, NULL), 0);
	assert_int_equal(ticks, 300);
	assert_int_equal(procinfo_parse_stat_cpu("4242 (a", &ticks, NULL), -1);
	assert_int_equal(procinfo_parse_stat_cpu("4242 (a)", &ticks, NULL), -1);
}

/* What restraint samples: parent, session, CPU time, nice and start,
 * whatever the name holds; a line cut before the start is refused. */
static void test_stat_usage(void **state)
{
	static const char line[] =
		"4242 (a) (b) S 17 4242 4200 0 -1 4194560 100 0 0 0 "
		"250 50 0 0 20 -5 3 0 123456 1000 10";
	static const char cut[] =
		"4242 (a) (b) S 17 4242 4200 0 -1 4194560 100 0 0 0 "
		"250 50 0 0 20 -5 3 0";
	struct procinfo_usage u = {0};
	unsigned long long ticks;

	(void)state;
	assert_int_equal(procinfo_parse_stat_usage(line, &ticks, &u), 0);
	assert_int_equal(ticks, 300);
	assert_int_equal(u.ppid, 17);
	assert_int_equal(u.session, 4200);
	assert_int_equal(u.nice, -5);
	assert_int_equal(u.start, 123456);
	assert_int_equal(procinfo_parse_stat_usage(cut, &ticks, &u), -1);
	assert_int_equal(procinfo_parse_stat_usage("1 (a", &ticks, &u), -1);
}

/* The "some" line's total, in microseconds; another first line is not
 * the CPU's pressure. */
static void test_pressure(void **state)
{
	unsigned long long total = 0;

	(void)state;
	assert_int_equal(pressure_parse("some avg10=2.83 avg60=2.50 "
					"avg300=0.82 total=4288761\n"
					"full avg10=0.00 avg60=0.00 "
					"avg300=0.00 total=0\n",
					&total),
			 0);
	assert_int_equal(total, 4288761);
	assert_int_equal(pressure_parse("full avg10=0.00 total=5\n", &total),
			 -1);
	assert_int_equal(pressure_parse("some avg10=0.00\n", &total), -1);
}

static void test_missing_process(void **state)
{
	struct procinfo pi = {99};
	struct facts f = {0};

	(void)state;
	procinfo_fetch(&pi, MATCH_FACT_EXE | MATCH_FACT_COMM, &f);
	assert_int_equal(f.have, 0);
	assert_int_equal(f.failed, MATCH_FACT_EXE | MATCH_FACT_COMM);
}

static void test_threads_and_pids(void **state)
{
	pid_t *ids;
	size_t count;

	(void)state;
	assert_int_equal(procinfo_threads(4242, &ids, &count), 0);
	assert_int_equal(count, 2);
	free(ids);
	/* "self-ish" and "bin" are not numbers. */
	assert_int_equal(procinfo_pids(&ids, &count), 0);
	assert_int_equal(count, 5);
	free(ids);
}

/* A status without Uid or Gid lines is not trusted at all. */
static void test_bad_status(void **state)
{
	char text[] = "Name:\tx\nGid:\t1\t2\t3\t4\n";
	struct facts f = {0};

	(void)state;
	assert_int_equal(procinfo_parse_creds(text, &f), -1);
}

/* More cgroups than fit: cut at a whole line. */
static void test_cgroups_bounded(void **state)
{
	char text[] = "1:a:/one\n2:b:/two\n3:c:/three\nbroken line\n";
	char out[12];

	(void)state;
	procinfo_parse_cgroups(text, out, sizeof(out));
	assert_string_equal(out, "/one\n/two\n");
}

/* The file a process runs against the file its path names here. */
struct file_case {
	const char *name;
	struct stat running, named;
	bool named_exists;
	enum match_file expected;
};

#define REG(dev, ino, uid, links)                                              \
	{                                                                      \
		.st_dev = (dev), .st_ino = (ino), .st_uid = (uid),             \
		.st_nlink = (links), .st_mode = S_IFREG | 0755                 \
	}

static const struct file_case file_cases[] = {
	{"same device and inode", REG(8, 100, 0, 1), REG(8, 100, 0, 1), true,
	 MATCH_FILE_SAME},
	{"same inode, other device: a bind mount of another filesystem",
	 REG(9, 100, 0, 1), REG(8, 100, 0, 1), true, MATCH_FILE_OTHER},
	{"other inode: a copy under the same name", REG(8, 101, 0, 1),
	 REG(8, 100, 0, 1), true, MATCH_FILE_OTHER},
	{"the path names nothing here",
	 REG(8, 100, 0, 1),
	 {0},
	 false,
	 MATCH_FILE_UNSEEN},
	{"deleted, replaced on its filesystem by its owner", REG(8, 100, 0, 0),
	 REG(8, 200, 0, 1), true, MATCH_FILE_REPLACED},
	{"deleted, the path's file on another filesystem", REG(40, 100, 0, 0),
	 REG(8, 200, 0, 1), true, MATCH_FILE_DELETED},
	{"deleted, the path's file another owner's", REG(8, 100, 1000, 0),
	 REG(8, 200, 0, 1), true, MATCH_FILE_DELETED},
	{"deleted, nothing at the path now",
	 REG(8, 100, 0, 0),
	 {0},
	 false,
	 MATCH_FILE_DELETED},
	{"deleted, a directory at the path now",
	 REG(8, 100, 0, 0),
	 {.st_dev = 8, .st_ino = 5, .st_nlink = 2, .st_mode = S_IFDIR | 0755},
	 true,
	 MATCH_FILE_DELETED},
};

static void test_file_case(void **state)
{
	const struct file_case *c = *state;

	assert_int_equal(procinfo_same_file(&c->running,
					    c->named_exists ? &c->named : NULL),
			 c->expected);
}

/* The link is opened: in the fake tree it leads to the tree's file, which
 * is the file its text names. */
static void test_exe_file(void **state)
{
	struct procinfo pi = {5};
	struct facts f = {0};

	(void)state;
	procinfo_fetch(&pi, MATCH_FACT_EXE_FILE | MATCH_FACT_PARENT_EXE_FILE,
		       &f);
	assert_int_equal(f.failed, 0);
	assert_true(f.have & MATCH_FACT_EXE);
	assert_int_equal(f.exe_file, MATCH_FILE_SAME);
	assert_int_equal(f.ppid, 6);
	assert_int_equal(f.parent_exe_file, MATCH_FILE_SAME);
	/* A link to nothing: the file cannot be opened, the path still
	 * reads. */
	pi.pid = 4242;
	f = (struct facts){0};
	procinfo_fetch(&pi, MATCH_FACT_EXE | MATCH_FACT_EXE_FILE, &f);
	assert_int_equal(f.have, MATCH_FACT_EXE);
	assert_int_equal(f.failed, MATCH_FACT_EXE_FILE);
}

/* power-profiles-daemon (a binary) and tuned (a Python script) by their
 * install paths, here in the tree, against look-alikes. */
static void test_daemons(void **state)
{
	char *ppd = xasprintf("%s/usr/libexec/ppd", root);
	char *python = xasprintf("%s/usr/bin/python3*", root);
	char *tuned = xasprintf("%s/usr/sbin/tuned", root);
	char *loose = xasprintf("%s/usr/sbin/loose", root);
	const char *const exes[] = {ppd, NULL};
	const char *const interpreters[] = {python, NULL};
	const char *const scripts[] = {tuned, loose, NULL};
	const struct procinfo_daemon binary = {.exes = exes};
	const struct procinfo_daemon script = {.interpreters = interpreters,
					       .scripts = scripts};
	char args[512];
	size_t len;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the files must be root's */
	dir("usr");
	dir("usr/libexec");
	dir("usr/bin");
	dir("usr/sbin");
	file("usr/libexec/ppd", 0755);
	file("usr/bin/python3.11", 0755);
	file("usr/sbin/tuned", 0644);
	file("usr/sbin/loose", 0666);
	process("10", 0, "usr/libexec/ppd", ARGS("ppd\0"));
	process("11", 1000, "usr/libexec/ppd", ARGS("ppd\0"));
	process("12", 0, "bin/app", ARGS("tuned\0"));
	assert_true(procinfo_is_daemon(10, &binary));
	assert_false(procinfo_is_daemon(11, &binary)); /* not root */
	assert_false(procinfo_is_daemon(12, &binary)); /* a copy */
	assert_false(procinfo_is_daemon(10, &script));
	len = (size_t)snprintf(args, sizeof(args),
			       "/usr/bin/python3%c-Es%c%s%c-l", 0, 0, tuned,
			       0) +
	      1;
	process("20", 0, "usr/bin/python3.11", args, len);
	process("21", 1000, "usr/bin/python3.11", args, len);
	process("22", 0, "bin/app", args, len);
	assert_true(procinfo_is_daemon(20, &script));
	assert_false(procinfo_is_daemon(21, &script)); /* not root */
	assert_false(procinfo_is_daemon(22, &script)); /* no python */
	len = (size_t)snprintf(args, sizeof(args), "python3%c%s", 0, loose) + 1;
	process("23", 0, "usr/bin/python3.11", args, len);
	assert_false(procinfo_is_daemon(23, &script)); /* anyone's */
	len = (size_t)snprintf(args, sizeof(args), "python3%c-c%cimport x%c%s",
			       0, 0, 0, tuned) +
	      1;
	process("24", 0, "usr/bin/python3.11", args, len);
	assert_false(procinfo_is_daemon(24, &script)); /* not its */
	process("25", 0, "usr/bin/python3.11", ARGS("python3\0-Es\0"));
	assert_false(procinfo_is_daemon(25, &script)); /* no script */
	assert_false(procinfo_is_daemon(99, &script)); /* gone */
	free(ppd);
	free(python);
	free(tuned);
	free(loose);
}

/* A process named tuned that pauses; a set-user-ID one keeps the real id
 * of the user who started it. Returned once it is so (the pipe's end is
 * written, or closed by an exit). */
static pid_t named_tuned(uid_t real)
{
	int ready[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		if (real && setresuid(real, 0, 0) < 0)
			_exit(2);
		prctl(PR_SET_NAME, "tuned");
		if (write(ready[1], "", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/* Without CAP_SYS_PTRACE the daemon may not read root's exe: root and the
 * name then count, since no user runs as root — but only with every id
 * root's: a set-user-ID program a user starts under the name (a link
 * named tuned to passwd) is root's by its effective id alone. With the
 * capability, the binary decides: this test's own is no Python. */
static void test_daemon_unreadable(void **state)
{
	static const char *const interpreters[] = {"/usr/bin/python3*", NULL};
	static const char *const scripts[] = {"/usr/sbin/tuned", NULL};
	const struct procinfo_daemon tuned = {.interpreters = interpreters,
					      .scripts = scripts};
	struct __user_cap_header_struct header = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[2] = {{0}};
	pid_t named, setuid_named, checker;
	int status;

	(void)state;
	if (geteuid() != 0)
		skip();
	named = named_tuned(0);
	setuid_named = named_tuned(65534);
	paths_set_roots("/proc", NULL, NULL); /* real processes, this once */
	assert_false(procinfo_is_daemon(named, &tuned));
	checker = fork();
	assert_true(checker >= 0);
	if (checker == 0) {
		if (syscall(SYS_capset, &header, none) < 0)
			_exit(2);
		_exit((procinfo_is_daemon(named, &tuned) ? 0 : 1) |
		      (procinfo_is_daemon(setuid_named, &tuned) ? 4 : 0));
	}
	assert_int_equal(waitpid(checker, &status, 0), checker);
	kill(named, SIGKILL);
	kill(setuid_named, SIGKILL);
	waitpid(named, NULL, 0);
	waitpid(setuid_named, NULL, 0);
	paths_set_roots(root, NULL, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_stat_cpu),
		cmocka_unit_test(test_stat_usage),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_stat_alone),
		cmocka_unit_test(test_stat_comm),
		cmocka_unit_test(test_missing_process),
		cmocka_unit_test(test_threads_and_pids),
		cmocka_unit_test(test_bad_status),
		cmocka_unit_test(test_cgroups_bounded),
		cmocka_unit_test(test_exe_file),
		cmocka_unit_test(test_daemons),
		cmocka_unit_test(test_daemon_unreadable),
	};

	return unit_run("procinfo", UNIT_TABLE(file_cases, test_file_case),
			UNIT_TESTS(tests), setup, teardown);
}
