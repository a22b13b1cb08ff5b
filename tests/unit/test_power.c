/* Power holds against a fake sysfs tree with the knobs this machine lacks
 * (16 CPUs, cpufreq policies with governors and EPP, platform_profile,
 * pm_qos, no_turbo): combining wants, conflicting holds, a CPU that
 * disappears mid-hold, a knob that cannot be written, someone else
 * changing a held knob, and a crash at every step followed by replay of
 * the journal. */
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

#include <cmocka.h>

#include "log.h"
#include "power.h"
#include "util.h"

#define CPUS 16

static char root[] = "/tmp/cpupolicy-power-XXXXXX";
static char sysfs[256], dev[256], procfs[256], state[256];

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static char *get(const char *rel)
{
	static char value[128];
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "r");

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

/* CPUs 0-7 online, 8-15 offline; cpu0 has no online file. */
static void build_tree(void)
{
	run("rm -rf %s/sys %s/dev %s/proc %s/state", root, root, root, root);
	run("mkdir -p %s/sys/devices/system/cpu/intel_pstate "
	    "%s/sys/firmware/acpi %s/dev %s/proc/1",
	    root, root, root, root);
	for (int cpu = 0; cpu < CPUS; cpu++) {
		char rel[128];

		run("mkdir -p %s/sys/devices/system/cpu/cpu%d/power "
		    "%s/sys/devices/system/cpu/cpufreq/policy%d",
		    root, cpu, root, cpu);
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
}

static int setup(void **state_)
{
	(void)state_;
	if (!mkdtemp(root))
		return -1;
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(procfs, sizeof(procfs), "%s/proc", root);
	snprintf(state, sizeof(state), "%s/state", root);
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
	assert_int_equal(apply_power_open(pw, sysfs, dev, procfs, state), 0);
}

static struct rule_power want_of(void)
{
	return (struct rule_power){.min_online = -1, .idle_latency_us = -1};
}

static void set(struct power *pw, const struct rule_power *a,
		const struct rule_power *b)
{
	struct power_want want;

	power_want_init(&want);
	if (a)
		power_want_add(&want, a, 20);
	if (b)
		power_want_add(&want, b, 20);
	apply_power_set(pw, &want);
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
	char *journal = xasprintf("%s/journal", state);
	bool changed = strcmp(get(GOV(0)), "schedutil") != 0 ||
		       strcmp(get(EPP(3)), "balance_power") != 0 ||
		       strcmp(get(ONLINE(8)), "0") != 0 ||
		       access(journal, F_OK) == 0;

	free(journal);
	return changed;
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
	{
		char *journal = xasprintf("%s/journal", state);

		assert_int_equal(access(journal, F_OK), -1);
		free(journal);
	}
}

static void test_combine(void **state_)
{
	struct rule_power a = want_of(), b = want_of();
	struct power_want w;

	(void)state_;
	a.governor = "powersave";
	a.epp = "power";
	a.min_online = 50;
	a.turbo = RULE_TURBO_OFF;
	a.idle_latency_us = 100;
	b.governor = "schedutil";
	b.profile = "balanced";
	b.parking = RULE_PARKING_OFF;
	b.turbo = RULE_TURBO_ON;
	power_want_init(&w);
	assert_true(power_want_empty(&w));
	power_want_add(&w, &a, 20);
	power_want_add(&w, &b, 20);
	assert_string_equal(w.governor, "schedutil");
	assert_string_equal(w.epp, "power");
	assert_string_equal(w.profile, "balanced");
	assert_true(w.all_online);
	assert_int_equal(w.min_online, 50);
	assert_int_equal(w.idle_latency_us, 20); /* parking off's cap */
	assert_int_equal(w.turbo, RULE_TURBO_ON);
}

/* Two holds disagree: the more performant wins; when it goes, the other
 * one's values apply; when both go, every original is back. */
static void test_conflicting_holds(void **state_)
{
	struct rule_power a = want_of(), b = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "powersave";
	a.epp = "balance_performance";
	b.governor = "performance";
	b.epp = "performance";
	b.turbo = RULE_TURBO_ON;
	set(&pw, &a, &b);
	assert_string_equal(get(GOV(0)), "performance");
	assert_string_equal(get(GOV(15)), "performance");
	assert_string_equal(get(EPP(9)), "performance");
	assert_string_equal(get("sys/devices/system/cpu/intel_pstate/no_turbo"),
			    "0");
	assert_int_equal(pw.journal.count, 2 * CPUS + 1);
	set(&pw, &a, NULL);
	assert_string_equal(get(GOV(0)), "powersave");
	assert_string_equal(get(EPP(9)), "balance_performance");
	assert_string_equal(get("sys/devices/system/cpu/intel_pstate/no_turbo"),
			    "1");
	set(&pw, NULL, NULL);
	assert_originals();
	assert_int_equal(pw.journal.count, 0);
	apply_power_close(&pw);
}

/* min_online counts what was online before: no flapping of its own. */
static void test_min_online_and_parking(void **state_)
{
	struct rule_power a = want_of(), b = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.min_online = 75; /* 12 of 16: cpu8-11 come online */
	set(&pw, &a, NULL);
	assert_string_equal(get(ONLINE(11)), "1");
	assert_string_equal(get(ONLINE(12)), "0");
	set(&pw, &a, NULL); /* again: nothing moves */
	assert_string_equal(get(ONLINE(11)), "1");
	assert_string_equal(get(ONLINE(12)), "0");
	b.parking = RULE_PARKING_OFF;
	set(&pw, &a, &b);
	assert_string_equal(get(ONLINE(15)), "1");
	assert_string_equal(get(QOS(3)), "20");
	set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

static void test_cpu_disappears(void **state_)
{
	struct rule_power a = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.parking = RULE_PARKING_OFF;
	set(&pw, &a, NULL);
	assert_string_equal(get(ONLINE(15)), "1");
	run("rm -rf %s/sys/devices/system/cpu/cpu15", root);
	set(&pw, NULL, NULL);
	assert_string_equal(get(ONLINE(14)), "0");
	assert_int_equal(pw.journal.count, 0);
	assert_int_equal(pw.knob_count, 0);
	apply_power_close(&pw);
}

/* A knob that cannot be written: a clear line, no journal left behind. */
static void test_unwritable_knob(void **state_)
{
	struct rule_power a = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	run("rm %s/sys/firmware/acpi/platform_profile && mkdir "
	    "%s/sys/firmware/acpi/platform_profile",
	    root, root);
	a.profile = "performance";
	set(&pw, &a, NULL);
	assert_int_equal(pw.journal.count, 0);
	assert_int_equal(pw.knob_count, 0);
	set(&pw, NULL, NULL);
	apply_power_close(&pw);
}

/* Someone else sets a held knob: by default it is theirs from then on and
 * not restored; with reassert it is set again. */
static void test_someone_else(void **state_)
{
	struct rule_power a = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	set(&pw, &a, NULL);
	put(GOV(2), "powersave\n");
	apply_power_check(&pw);
	assert_string_equal(get(GOV(2)), "powersave");
	set(&pw, NULL, NULL);
	assert_string_equal(get(GOV(2)), "powersave");
	assert_string_equal(get(GOV(3)), "schedutil");
	assert_int_equal(pw.journal.count, 0);
	apply_power_close(&pw);

	open_power(&pw);
	pw.reassert = true;
	set(&pw, &a, NULL);
	put(GOV(2), "powersave\n");
	apply_power_check(&pw);
	assert_string_equal(get(GOV(2)), "performance");
	set(&pw, NULL, NULL);
	assert_string_equal(get(GOV(2)), "schedutil");
	apply_power_close(&pw);
}

/* A restore that fails keeps the original in the journal, for the next
 * try; "nothing to restore" is never said of it. */
static void test_failed_restore_kept(void **state_)
{
	struct rule_power a = want_of();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.profile = "performance";
	set(&pw, &a, NULL);
	assert_int_equal(pw.journal.count, 1);
	run("mv %s/sys/firmware/acpi/platform_profile %s/saved && mkdir "
	    "%s/sys/firmware/acpi/platform_profile",
	    root, root, root);
	set(&pw, NULL, NULL);
	assert_int_equal(pw.journal.count, 1);
	assert_int_equal(apply_power_restore_all(&pw), -1);
	assert_int_equal(pw.journal.count, 1);
	run("rmdir %s/sys/firmware/acpi/platform_profile && mv %s/saved "
	    "%s/sys/firmware/acpi/platform_profile",
	    root, root, root);
	assert_int_equal(apply_power_restore_all(&pw), 1);
	assert_originals();
	apply_power_close(&pw);
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
	struct rule_power a = want_of();
	struct power pw;

	(void)state_;
	if (!real_ppd())
		skip(); /* needs root for a mount namespace */
	open_power(&pw);
	fake_process(42, "power-profiles-", 0,
		     "/usr/libexec/power-profiles-daemon");
	a.profile = "performance";
	a.governor = "performance";
	set(&pw, &a, NULL);
	assert_string_equal(get("sys/firmware/acpi/platform_profile"),
			    "balanced");
	assert_string_equal(get(GOV(1)), "performance");
	set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

/* Programs that only took the managers' names: a copy of another program
 * run by root as "tuned", the real daemon's binary run by a user. The
 * daemon keeps its settings. */
static void test_owner_look_alike(void **state_)
{
	struct rule_power a = want_of();
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
	set(&pw, &a, NULL);
	assert_string_equal(get("sys/firmware/acpi/platform_profile"),
			    "performance");
	assert_string_equal(get(GOV(1)), "performance");
	set(&pw, NULL, NULL);
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
	(void)step;
	if (--crash_after == 0)
		_exit(CRASHED);
}

/* One full run: take several knobs, change one, give everything back. */
static void crash_run(struct power *pw)
{
	struct rule_power a = want_of(), b = want_of();

	a.governor = "performance";
	a.min_online = 60;
	b.epp = "performance";
	b.parking = RULE_PARKING_OFF;
	set(pw, &a, NULL);
	set(pw, &a, &b);
	a.governor = "powersave";
	set(pw, &a, &b);
	set(pw, &a, NULL);
	set(pw, NULL, NULL);
}

/* A crash between any two steps, then the journal replayed (as the next
 * start or "cpupolicyctl restore" does): every original back, and the
 * journal empty, so nothing would be restored twice. */
static void test_crash_at_each_step(void **state_)
{
	int steps = 0;

	(void)state_;
	{
		struct power pw;

		open_power(&pw);
		pw.step_hook = crash_hook;
		crash_after = -1; /* count only */
		crash_run(&pw);
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

			apply_power_open(&child, sysfs, dev, procfs, state);
			child.step_hook = crash_hook;
			crash_after = step;
			crash_run(&child);
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
		assert_true(apply_power_restore_journal(state) >= 0);
		assert_originals();
		assert_int_equal(apply_power_restore_journal(state), 0);
		free(pw.sysfs);
		free(pw.dev);
		free(pw.procfs);
		free(pw.knobs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_conflicting_holds),
		cmocka_unit_test(test_min_online_and_parking),
		cmocka_unit_test(test_cpu_disappears),
		cmocka_unit_test(test_unwritable_knob),
		cmocka_unit_test(test_someone_else),
		cmocka_unit_test(test_failed_restore_kept),
		cmocka_unit_test(test_owner_refused),
		cmocka_unit_test(test_owner_look_alike),
		cmocka_unit_test(test_crash_at_each_step),
	};

	log_init("test_power", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests_name("power", tests, setup, teardown);
}
