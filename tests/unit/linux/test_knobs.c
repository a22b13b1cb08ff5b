/* The power holds on Linux's knobs (knobs.c) and state files
 * (statefile.c), against a fake sysfs tree with the knobs this machine
 * lacks (16 CPUs, cpufreq policies with governors and EPP,
 * platform_profile, pm_qos, no_turbo) and a fake procfs with a boot ID:
 * conflicting holds, a CPU that disappears mid-hold, a knob that cannot
 * be written, someone else changing a held knob, and a crash at every
 * step followed by replay of the journal. The replay restores only what
 * still has our value, only in the boot the journal belongs to, only the
 * knobs we write, from a state directory only root may write, and CPU
 * online files after their cpufreq policies'. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "os.h"
#include "power.h"
#include "powerfix.h"
#include "unit.h"
#include "util.h"

#define CPUS		16
#define BOOT_ID		"6f1c0a52-8d1e-4c59-9a43-1b2e3f405a61"
#define EARLIER_BOOT_ID "0b7e4d2a-51c3-4f6e-8a90-c2d3e4f5a6b7"

static char root[64];
static char sysfs[256], dev[256], procfs[256], state[256];
/* The tree behaves as the kernel does for an offline CPU's cpufreq
 * policy (model_sync). */
static bool model;
/* Each CPU online (1) or not (0) as model_sync last saw it; -1: not yet. */
static int model_online[CPUS];

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* What a file holds; for a policy file the model hides (a directory in
 * its place), the value the kernel keeps for the policy. */
static const char *get(const char *rel)
{
	static char value[128];
	char *path = xasprintf("%s/%s", root, rel);
	struct stat st;
	FILE *f;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *kept = xasprintf("%s.kept", path);

		free(path);
		path = kept;
	}
	f = fopen(path, "r");

	value[0] = '\0';
	if (f) {
		if (!fgets(value, sizeof(value), f))
			value[0] = '\0';
		fclose(f);
	}
	value[strcspn(value, "\n")] = '\0';
	free(path);
	return value;
}

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* mkdir -p under the root. */
static void mkdirs(const char *fmt, ...)
{
	char rel[256], *path;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	path = xasprintf("%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1;; p++) {
		char saved = *p;

		if (saved != '/' && saved)
			continue;
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = saved;
		if (!saved)
			break;
	}
	free(path);
}

static const char *const policy_files[] = {
	"scaling_governor",
	"scaling_available_governors",
	"energy_performance_preference",
	"energy_performance_available_preferences",
	"affected_cpus",
};

/* The kernel keeps the cpufreq policy of CPUs all offline, policyN and
 * its files, but refuses every read and write of them (EBUSY) until one
 * is back online, when the policy has its values again. A file cannot
 * fail a read with EBUSY; a directory in its place fails it with EISDIR,
 * and a write too, and what the code depends on is only that: a policy
 * file that exists but cannot be read or written. The value waits in
 * FILE.kept. Policy N has CPU N alone here. */
static void model_policy(int cpu, bool online)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_files); i++) {
		char *path = xasprintf("%s/sys/devices/system/cpu/cpufreq/"
				       "policy%d/%s",
				       root, cpu, policy_files[i]);
		char *kept = xasprintf("%s.kept", path);
		struct stat st;
		bool hidden = stat(path, &st) == 0 && S_ISDIR(st.st_mode);

		if (!online && !hidden) {
			assert_int_equal(rename(path, kept), 0);
			assert_int_equal(mkdir(path, 0755), 0);
		} else if (online && hidden) {
			assert_int_equal(rmdir(path), 0);
			assert_int_equal(rename(kept, path), 0);
		}
		free(path);
		free(kept);
	}
}

/* What the kernel would show by now. At every step the policy files are
 * as the CPU online files say, in whichever process: a change of the
 * latter since model_sync last looked is all there is to follow. */
static void model_sync(void)
{
	for (int cpu = 1; model && cpu < CPUS; cpu++) {
		char rel[64];
		int online;

		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpu%d/online", cpu);
		online = strcmp(get(rel), "1") == 0;
		if (online != model_online[cpu])
			model_policy(cpu, online);
		model_online[cpu] = online;
	}
}

/* Only a write changes what the kernel shows. */
static void model_hook(const char *step)
{
	if (strcmp(step, "written") == 0 || strcmp(step, "restored") == 0)
		model_sync();
}

/* CPUs 0-7 online, 8-15 offline; cpu0 has no online file. */
static void build_tree(void)
{
	run("rm -rf %s/sys %s/dev %s/proc %s/state %s/etc %s/shared", root,
	    root, root, root, root, root);
	mkdirs("sys/devices/system/cpu/intel_pstate");
	mkdirs("sys/firmware/acpi");
	mkdirs("dev");
	mkdirs("proc/1");
	mkdirs("proc/sys/kernel/random");
	mkdirs("etc");
	for (int cpu = 0; cpu < CPUS; cpu++) {
		char rel[128];

		mkdirs("sys/devices/system/cpu/cpu%d/power", cpu);
		mkdirs("sys/devices/system/cpu/cpufreq/policy%d", cpu);
		if (model) {
			char cpus[16];

			snprintf(rel, sizeof(rel),
				 "sys/devices/system/cpu/cpufreq/policy%d/"
				 "affected_cpus",
				 cpu);
			snprintf(cpus, sizeof(cpus), "%d\n", cpu);
			put(rel, cpus);
		}
		if (cpu) {
			snprintf(rel, sizeof(rel),
				 "sys/devices/system/cpu/cpu%d/online", cpu);
			put(rel, cpu < 8 ? "1\n" : "0\n");
		}
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpu%d/power/"
			 "pm_qos_resume_latency_us",
			 cpu);
		put(rel, "0\n");
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpufreq/policy%d/"
			 "scaling_governor",
			 cpu);
		put(rel, "schedutil\n");
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpufreq/policy%d/"
			 "scaling_available_governors",
			 cpu);
		put(rel, "performance schedutil powersave\n");
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpufreq/policy%d/"
			 "energy_performance_preference",
			 cpu);
		put(rel, "balance_power\n");
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpufreq/policy%d/"
			 "energy_performance_available_preferences",
			 cpu);
		put(rel, "default performance balance_performance "
			 "balance_power power\n");
	}
	put("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	put("sys/firmware/acpi/platform_profile", "balanced\n");
	put("sys/firmware/acpi/platform_profile_choices",
	    "low-power balanced performance\n");
	put("proc/1/comm", "init\n");
	put("proc/sys/kernel/random/boot_id", BOOT_ID "\n");
	memset(model_online, -1, sizeof(model_online));
	model_sync();
}

/* On a tmpfs where there is one: the crash test syncs the journal some
 * hundred thousand times, which a disk makes minutes. */
static int setup(void **state_)
{
	(void)state_;
	snprintf(root, sizeof(root), "/dev/shm/cpupolicy-power-XXXXXX");
	if (!mkdtemp(root)) {
		snprintf(root, sizeof(root), "/tmp/cpupolicy-power-XXXXXX");
		if (!mkdtemp(root))
			return -1;
	}
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(procfs, sizeof(procfs), "%s/proc", root);
	snprintf(state, sizeof(state), "%s/state", root);
	paths_set_roots(procfs, sysfs, dev);
	return 0;
}

static int teardown(void **state_)
{
	(void)state_;
	run("rm -rf %s", root);
	return 0;
}

static void open_power(struct power *pw)
{
	build_tree();
	assert_int_equal(apply_power_open(pw, state), 0);
}

/* The journal replayed, as the next start or "cpupolicyctl restore"
 * does it: what apply_power_restore_all returns, -2 when the journal
 * could not be opened. */
static int replay(void)
{
	struct power pw;
	int restored = -2;

	if (apply_power_open(&pw, state) == 0) {
		pw.step_hook = model_hook;
		restored = apply_power_restore_all(&pw);
	}
	apply_power_close(&pw);
	return restored;
}

static bool journal_exists(void)
{
	char *journal = xasprintf("%s/journal", state);
	bool exists = access(journal, F_OK) == 0;

	free(journal);
	return exists;
}

/* A journal written by hand, in the state directory: its lines, with
 * "@" standing for the root. */
static void plant(const char *dir, const char *text)
{
	char *path = xasprintf("%s/journal", dir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (const char *p = text; *p; p++) {
		if (*p == '@')
			fputs(root, f);
		else
			fputc(*p, f);
	}
	assert_int_equal(fclose(f), 0);
	free(path);
}

static int capture_saved = -1;

/* What the code logs, at info level, from here to capture_end. */
static void capture_start(void)
{
	char *path = xasprintf("%s/log", root);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	capture_saved = dup(STDERR_FILENO);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
	free(path);
	log_set_level(LOG_LEVEL_INFO);
}

/* The log since capture_start; the caller frees it. */
static char *capture_end(void)
{
	char *path = xasprintf("%s/log", root), *text = NULL;
	size_t len;

	fflush(stderr);
	dup2(capture_saved, STDERR_FILENO);
	close(capture_saved);
	log_set_level(LOG_LEVEL_ERROR);
	assert_int_equal(files_read(path, 1 << 20, &text, &len), OS_OK);
	free(path);
	return text;
}

static void assert_logged(const char *log, const char *what)
{
	if (!strstr(log, what))
		fail_msg("not logged: '%s'; the log:\n%s", what, log);
}

#define GOV(n) "sys/devices/system/cpu/cpufreq/policy" #n "/scaling_governor"
#define EPP(n)                                                                 \
	"sys/devices/system/cpu/cpufreq/policy" #n                             \
	"/energy_performance_preference"
#define ONLINE(n) "sys/devices/system/cpu/cpu" #n "/online"
#define QOS(n)	  "sys/devices/system/cpu/cpu" #n "/power/pm_qos_resume_latency_us"

/* Some knob holds what a run wrote, or a journal is left. */
static bool changed_from_originals(void)
{
	return strcmp(get(GOV(0)), "schedutil") != 0 ||
	       strcmp(get(EPP(3)), "balance_power") != 0 ||
	       strcmp(get(ONLINE(8)), "0") != 0 || journal_exists();
}

static void assert_originals(void)
{
	assert_string_equal(get(GOV(0)), "schedutil");
	assert_string_equal(get(GOV(15)), "schedutil");
	assert_string_equal(get(EPP(3)), "balance_power");
	assert_string_equal(get(ONLINE(7)), "1");
	assert_string_equal(get(ONLINE(8)), "0");
	assert_string_equal(get(ONLINE(15)), "0");
	assert_string_equal(get(QOS(4)), "0");
	assert_string_equal(get("sys/devices/system/cpu/intel_pstate/no_turbo"),
			    "1");
	assert_string_equal(get("sys/firmware/acpi/platform_profile"),
			    "balanced");
	assert_false(journal_exists());
}

/* The tree as powerfix's scenarios see it: keys relative to the root. */
static const char *tree_path(const char *key)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, key);
	return path;
}

static void tree_set(const char *key, const char *value)
{
	char *text = xasprintf("%s\n", value);

	put(key, text);
	free(text);
}

/* A directory in the file's place: it can be neither read nor written. */
static void tree_refuse(const char *key, bool refused)
{
	if (refused)
		run("mv %s/%s %s/refused && mkdir %s/%s", root, key, root, root,
		    key);
	else
		run("rmdir %s/%s && mv %s/refused %s/%s", root, key, root, root,
		    key);
}

static const struct powerfix_store tree_store = {
	.open = open_power,
	.path = tree_path,
	.get = get,
	.set = tree_set,
	.refuse = tree_refuse,
	.journal_exists = journal_exists,
	.assert_originals = assert_originals,
};

/* Two holds disagree: the more performant wins; when it goes, the other
 * one's values apply; when both go, every original is back. */
static void test_conflicting_holds(void **state_)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "powersave";
	a.epp = "balance_performance";
	b.governor = "performance";
	b.epp = "performance";
	b.turbo = RULE_TURBO_ON;
	powerfix_set(&pw, &a, &b);
	assert_string_equal(get(GOV(0)), "performance");
	assert_string_equal(get(GOV(15)), "performance");
	assert_string_equal(get(EPP(9)), "performance");
	assert_string_equal(get("sys/devices/system/cpu/intel_pstate/no_turbo"),
			    "0");
	assert_int_equal(pw.journal.count, 2 * CPUS + 1);
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get(GOV(0)), "powersave");
	assert_string_equal(get(EPP(9)), "balance_performance");
	assert_string_equal(get("sys/devices/system/cpu/intel_pstate/no_turbo"),
			    "1");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	assert_int_equal(pw.journal.count, 0);
	apply_power_close(&pw);
}

/* min_online counts what was online before: no flapping of its own. */
static void test_min_online_and_parking(void **state_)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.min_online = 75; /* 12 of 16: cpu8-11 come online */
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get(ONLINE(11)), "1");
	assert_string_equal(get(ONLINE(12)), "0");
	powerfix_set(&pw, &a, NULL); /* again: nothing moves */
	assert_string_equal(get(ONLINE(11)), "1");
	assert_string_equal(get(ONLINE(12)), "0");
	b.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, &b);
	assert_string_equal(get(ONLINE(15)), "1");
	assert_string_equal(get(QOS(3)), "20");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

static void test_cpu_disappears(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get(ONLINE(15)), "1");
	run("rm -rf %s/sys/devices/system/cpu/cpu15", root);
	powerfix_set(&pw, NULL, NULL);
	assert_string_equal(get(ONLINE(14)), "0");
	assert_int_equal(pw.journal.count, 0);
	assert_int_equal(pw.knob_count, 0);
	apply_power_close(&pw);
}

/* A knob that cannot be written: a clear line, no journal left behind. */
static void test_unwritable_knob(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	run("rm %s/sys/firmware/acpi/platform_profile && mkdir "
	    "%s/sys/firmware/acpi/platform_profile",
	    root, root);
	a.profile = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_int_equal(pw.journal.count, 0);
	assert_int_equal(pw.knob_count, 0);
	powerfix_set(&pw, NULL, NULL);
	apply_power_close(&pw);
}

/* Someone else sets a held knob: by default it is theirs from then on and
 * not restored; with reassert it is set again. */
static void test_someone_else(void **state_)
{
	(void)state_;
	powerfix_someone_else(&tree_store, GOV(2), GOV(3), "schedutil");
}

/* A restore that fails keeps the original in the journal, for the next
 * try; "nothing to restore" is never said of it. */
static void test_failed_restore_kept(void **state_)
{
	struct rule_power a = powerfix_want();

	(void)state_;
	a.profile = "performance";
	powerfix_failed_restore_kept(&tree_store, &a,
				     "sys/firmware/acpi/platform_profile");
}

/* The real power-profiles-daemon at its install path: in a mount
 * namespace of the test's own, where the path can be made. */
static bool real_ppd(void)
{
	if (geteuid() != 0 || access("/usr/libexec", F_OK) < 0 ||
	    unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", "/usr/libexec", "tmpfs", 0, "mode=0755") < 0)
		return false;
	run("cp /bin/true /usr/libexec/power-profiles-daemon");
	return true;
}

/* A process of the fake /proc: its name, uid and exe link. */
static void fake_process(int pid, const char *comm, unsigned uid,
			 const char *exe)
{
	char rel[64], status[128];

	run("mkdir -p %s/proc/%d && ln -s %s %s/proc/%d/exe", root, pid, exe,
	    root, pid);
	snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
	snprintf(status, sizeof(status), "%s\n", comm);
	put(rel, status);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	snprintf(status, sizeof(status),
		 "Uid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n", uid, uid, uid,
		 uid);
	put(rel, status);
}

static void test_owner_refused(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	if (!real_ppd())
		skip(); /* needs root for a mount namespace */
	open_power(&pw);
	fake_process(42, "power-profiles-", 0,
		     "/usr/libexec/power-profiles-daemon");
	a.profile = "performance";
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get("sys/firmware/acpi/platform_profile"),
			    "balanced");
	assert_string_equal(get(GOV(1)), "performance");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

/* Programs that only took the managers' names: a copy of another program
 * run by root as "tuned", the real daemon's binary run by a user. The
 * daemon keeps its settings. */
static void test_owner_look_alike(void **state_)
{
	struct rule_power a = powerfix_want();
	char *copy = xasprintf("%s/tuned", root);
	struct power pw;

	(void)state_;
	open_power(&pw);
	run("cp /bin/true %s", copy);
	fake_process(42, "tuned", 0, copy);
	fake_process(43, "power-profiles-", 1000,
		     "/usr/libexec/power-profiles-daemon");
	a.profile = "performance";
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get("sys/firmware/acpi/platform_profile"),
			    "performance");
	assert_string_equal(get(GOV(1)), "performance");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
	free(copy);
}

static int crash_after;

/* The exit status of a child that crashed where it was told to. */
enum {
	CRASHED = 42
};

static void crash_hook(const char *step)
{
	model_hook(step);
	if (--crash_after == 0)
		_exit(CRASHED);
}

/* A crash between any two steps, then the journal replayed (as the next
 * start or "cpupolicyctl restore" does): every original back, and the
 * journal empty, so nothing would be restored twice. The tree behaves as
 * the kernel does for the cpufreq policies of offline CPUs. */
static void test_crash_at_each_step(void **state_)
{
	int steps = 0;

	(void)state_;
	model = true;
	{
		struct power pw;

		open_power(&pw);
		pw.step_hook = crash_hook;
		crash_after = -1; /* count only */
		powerfix_run_two_holders(&pw);
		steps = -crash_after - 1;
		apply_power_close(&pw);
		assert_originals();
	}
	assert_true(steps > 50);
	for (int step = 1, left_changed = 0; step <= steps; step++) {
		struct power pw;
		pid_t pid;
		int status;

		open_power(&pw);
		journal_close(&pw.journal);
		pid = fork();
		if (pid == 0) {
			struct power child;

			apply_power_open(&child, state);
			child.step_hook = crash_hook;
			crash_after = step;
			powerfix_run_two_holders(&child);
			_exit(1); /* it never reached its step */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), CRASHED);
		left_changed += changed_from_originals();
		/* Most crashes leave something to restore: the replay must
		 * have had work to do, not only an empty state directory. */
		if (step == steps)
			assert_true(left_changed > steps / 2);
		assert_true(replay() >= 0);
		assert_originals();
		assert_int_equal(replay(), 0);
		free(pw.knobs);
	}
	model = false;
}

/* Killed mid-hold; then someone else sets one governor: the replay
 * leaves theirs, logs it, and restores the rest. */
static void test_replay_leaves_changed(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	char *log;
	int restored;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	put(GOV(2), "powersave\n");
	capture_start();
	restored = replay();
	log = capture_end();
	assert_int_equal(restored, CPUS - 1);
	assert_string_equal(get(GOV(2)), "powersave");
	assert_string_equal(get(GOV(3)), "schedutil");
	assert_false(journal_exists());
	assert_logged(log,
		      GOV(2) ": someone else set powersave (the daemon "
			     "set performance): left to them, schedutil not "
			     "restored");
	free(log);
}

/* Killed between the journal's record of a new value and its write: the
 * setting still has the value set before, which is ours too. */
static void test_replay_change_in_flight(void **state_)
{
	(void)state_;
	build_tree();
	mkdirs("state");
	plant(state,
	      "version\t2\nboot\t" BOOT_ID "\n"
	      "@/" GOV(1) "\tschedutil\tpowersave\n"
			  "previous\t@/" GOV(
				  1) "\tperformance\n"
				     "@/" GOV(2) "\tschedutil\tpowersave\n");
	put(GOV(1), "performance\n");
	put(GOV(2), "performance\n");
	assert_int_equal(replay(), 1);
	assert_string_equal(get(GOV(1)), "schedutil");
	assert_string_equal(get(GOV(2)), "performance");
}

/* Power lost mid-hold: the journal survives into the next boot, where
 * CPUs come up with the machine's defaults. Nothing of it is replayed. */
static void test_other_boot_dropped(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	char *log;
	int restored;

	(void)state_;
	open_power(&pw);
	a.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	assert_string_equal(get(ONLINE(8)), "1");
	put("proc/sys/kernel/random/boot_id", EARLIER_BOOT_ID "\n");
	capture_start();
	restored = replay();
	log = capture_end();
	assert_int_equal(restored, 0);
	assert_string_equal(get(ONLINE(8)), "1");
	assert_string_equal(get(ONLINE(15)), "1");
	assert_false(journal_exists());
	assert_logged(log, "/state/journal: written in an earlier boot (boot "
			   "ID " BOOT_ID ", this boot is " EARLIER_BOOT_ID
			   "): its 24 settings are not restored");
	free(log);
}

/* A journal of the format before boot IDs: taken as this boot's when it
 * was written since the boot began, dropped when before. */
static void test_journal_version_1(void **state_)
{
	char *path = xasprintf("%s/journal", state);
	struct timespec times[2] = {{0, 0}, {0, 0}};

	(void)state_;
	build_tree();
	mkdirs("state");
	put(ONLINE(9), "1\n");
	plant(state, "@/" ONLINE(9) "\t0\t1\n");
	assert_int_equal(replay(), 1);
	assert_string_equal(get(ONLINE(9)), "0");

	put(ONLINE(9), "1\n");
	plant(state, "@/" ONLINE(9) "\t0\t1\n");
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	assert_int_equal(replay(), 0);
	assert_string_equal(get(ONLINE(9)), "1");
	assert_false(journal_exists());
	free(path);
}

/* A later format is left for the version that wrote it, untouched, and
 * no setting is changed without a journal to record it in. */
static void test_journal_newer_left(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	char *before;

	(void)state_;
	build_tree();
	mkdirs("state");
	put(ONLINE(9), "1\n");
	plant(state, "version\t3\nboot\t" BOOT_ID "\n@/" ONLINE(9) "\t0\t1\n");
	before = xstrdup(get("state/journal"));
	assert_int_equal(apply_power_open(&pw, state), -1);
	assert_int_equal(apply_power_restore_all(&pw), 0);
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	apply_power_close(&pw);
	assert_string_equal(get(ONLINE(9)), "1");
	assert_string_equal(get(GOV(0)), "schedutil");
	assert_string_equal(get("state/journal"), before);
	free(before);
}

/* Line kinds a later version may add are skipped; the rest counts. */
static void test_journal_unknown_line(void **state_)
{
	(void)state_;
	build_tree();
	mkdirs("state");
	put(ONLINE(9), "1\n");
	plant(state, "version\t2\nboot\t" BOOT_ID "\nnote\tsomething\n"
		     "@/" ONLINE(9) "\t0\t1\n");
	assert_int_equal(replay(), 1);
	assert_string_equal(get(ONLINE(9)), "0");
}

/* The last holder goes: its cpufreq settings are given back before the
 * CPUs it brought online go offline again, which the kernel would refuse
 * (their policies' files fail with EBUSY then). */
static void test_release_order(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	model = true;
	open_power(&pw);
	pw.step_hook = model_hook;
	a.parking = RULE_PARKING_OFF;
	a.governor = "performance";
	a.epp = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(get(ONLINE(12)), "1");
	assert_string_equal(get(GOV(12)), "performance");
	a.parking = RULE_PARKING_UNSET;
	powerfix_set(&pw, &a,
		     NULL); /* CPUs 8-15 go, their policies with them */
	assert_string_equal(get(ONLINE(12)), "0");
	assert_string_equal(get(GOV(12)), "schedutil");
	assert_string_equal(get(GOV(3)), "performance");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	assert_int_equal(pw.journal.count, 0);
	apply_power_close(&pw);
	model = false;
}

/* The same order at replay: a journal of CPUs online and their policies,
 * left by a crash. */
static void test_replay_order(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	model = true;
	open_power(&pw);
	pw.step_hook = model_hook;
	a.parking = RULE_PARKING_OFF;
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	assert_true(replay() > 0);
	assert_originals();
	model = false;
}

/* A journal the replay must not trust: who could write its directory or
 * the file itself, or an entry naming anything but a knob we write. */
struct journal_case {
	const char *name;
	const char *setup; /* run in the root first */
	const char *dir;   /* the state directory, under the root */
	const char *entry; /* the journal's one entry's path, under the root */
	const char *said;
	bool opens;    /* the journal is used: the directory and file are */
	bool restored; /* the entry is fine and restored (a control case) */
};

#define CPU9 "sys/devices/system/cpu/cpu9/online"

static const struct journal_case journal_cases[] = {
	{"a safe state directory: restored", NULL, "state", CPU9, "restored 0",
	 true, true},
	{"a sticky parent: restored", "mkdir -m 1777 shared", "shared/state",
	 CPU9, "restored 0", true, true},
	{"state directory writable by its group", "mkdir -m 0770 state",
	 "state", CPU9, "/state is writable by group or others (mode 0770)",
	 false, false},
	{"state directory writable by others, sticky", "mkdir -m 1777 state",
	 "state", CPU9, "/state is writable by group or others (mode 1777)",
	 false, false},
	{"state directory of another user",
	 "mkdir -m 0700 state && chown 65534 state", "state", CPU9,
	 "/state is owned by uid 65534", false, false},
	{"a parent writable by others", "mkdir -m 0777 shared", "shared/state",
	 CPU9, "/shared is writable by group or others (mode 0777)", false,
	 false},
	{"a link to a state directory others may write",
	 "mkdir -m 0777 shared && ln -s shared state", "state", CPU9,
	 "/shared is writable by group or others (mode 0777)", false, false},
	{"journal of another user",
	 "mkdir -m 0700 state && touch state/journal && "
	 "chown 65534 state/journal",
	 "state", CPU9, "/state/journal refused: owned by uid 65534", false,
	 false},
	{"journal writable by others",
	 "mkdir -m 0700 state && touch state/journal && "
	 "chmod 0666 state/journal",
	 "state", CPU9,
	 "/state/journal refused: writable by group or others (mode 0666)",
	 false, false},
	{"journal a symbolic link",
	 "mkdir -m 0700 state etc/planted && ln -s ../etc/planted/journal "
	 "state/journal",
	 "state", CPU9, "/state/journal refused: not a regular file", false,
	 false},
	{"entry outside sysfs", "touch etc/victim", "state", "etc/victim",
	 "/etc/victim: journal entry refused", true, false},
	{"entry with .. out of sysfs", "touch etc/victim", "state",
	 "sys/devices/system/cpu/cpu1/../../../../../etc/victim",
	 "/etc/victim: journal entry refused", true, false},
	{"entry not a knob we write", "mkdir sys/power", "state",
	 "sys/power/state", "sys/power/state: journal entry refused", true,
	 false},
	{"entry a knob's look-alike", "mkdir sys/devices/system/cpu/cpu1x",
	 "state", "sys/devices/system/cpu/cpu1x/online",
	 "cpu1x/online: journal entry refused", true, false},
	{"entry through a symbolic link",
	 "mkdir etc/cpu && ln -s ../../../../etc/cpu "
	 "sys/devices/system/cpu/cpu99",
	 "state", "sys/devices/system/cpu/cpu99/online",
	 "cpu99/online: journal entry refused", true, false},
	{"entry /dev/cpu_dma_latency", NULL, "state", "dev/cpu_dma_latency",
	 "dev/cpu_dma_latency: journal entry refused", true, false},
};

static void test_journal_case(void **state_)
{
	const struct journal_case *c = *state_;
	char *dir = xasprintf("%s/%s", root, c->dir), *log;
	char *text = xasprintf("version\t2\nboot\t" BOOT_ID "\n@/%s\t0\t1\n",
			       c->entry);
	struct power pw;
	int opened;

	/* A setup that gives a file away runs as root alone. */
	if (c->setup && strstr(c->setup, "chown ") && geteuid() != 0) {
		print_message("skipped: only root gives a file to another "
			      "user\n");
		free(dir);
		free(text);
		skip();
	}
	build_tree();
	if (c->setup)
		run("cd %s && %s", root, c->setup);
	mkdirs("%s", c->dir);
	plant(dir, text);
	put(c->entry, "1\n");
	capture_start();
	opened = apply_power_open(&pw, dir);
	apply_power_restore_all(&pw);
	apply_power_close(&pw);
	log = capture_end();
	assert_string_equal(get(c->entry), c->restored ? "0" : "1");
	assert_int_equal(opened, c->opens ? 0 : -1);
	assert_logged(log, c->said);
	free(log);
	free(text);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conflicting_holds),
		cmocka_unit_test(test_min_online_and_parking),
		cmocka_unit_test(test_cpu_disappears),
		cmocka_unit_test(test_unwritable_knob),
		cmocka_unit_test(test_someone_else),
		cmocka_unit_test(test_failed_restore_kept),
		cmocka_unit_test(test_owner_refused),
		cmocka_unit_test(test_replay_leaves_changed),
		cmocka_unit_test(test_replay_change_in_flight),
		cmocka_unit_test(test_other_boot_dropped),
		cmocka_unit_test(test_journal_version_1),
		cmocka_unit_test(test_journal_newer_left),
		cmocka_unit_test(test_journal_unknown_line),
		cmocka_unit_test(test_release_order),
		cmocka_unit_test(test_replay_order),
		cmocka_unit_test(test_owner_look_alike),
		cmocka_unit_test(test_crash_at_each_step),
	};

	log_init("test_power", LOG_LEVEL_ERROR);
	return unit_run("power", UNIT_TABLE(journal_cases, test_journal_case),
			UNIT_TESTS(tests), setup, teardown);
}
