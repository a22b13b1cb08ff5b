/* Linux: power wants as sysfs settings ("knobs"), held while wanted.
 *
 * Before the first write to a knob its original value goes into the
 * journal (synced); release puts the original back where the knob still
 * holds our value, then forgets the journal entry. After a crash the
 * journal is replayed before anything else, the same way: only where the
 * knob still has what we set, only knobs we write, and CPU online files
 * last, so that a CPU's cpufreq knobs go back while it is online; the
 * journal of an earlier boot is dropped (journal.c). The idle-latency
 * limit is a PM QoS request on /dev/cpu_dma_latency, which the kernel
 * drops by itself when the file is closed, even by a crash; without that
 * device the per-CPU pm_qos_resume_latency_us files are used, journaled
 * like the rest. Where power-profiles-daemon or tuned runs, the settings
 * they own are not touched: the rule's key is refused with a log line. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "power.h"
#include "linux.h"
#include "util.h"

struct apply_power_item {
	char *path;
	char value[JOURNAL_VALUE_MAX];
};

struct apply_power_plan {
	struct apply_power_item *items;
	size_t count;
};

static void apply_power_step(struct power *pw, const char *step)
{
	if (pw->step_hook)
		pw->step_hook(step);
}

static int apply_power_read(const char *path, char *value, size_t size)
{
	size_t len;

	if (procinfo_read(path, value, size, &len) < 0)
		return -1;
	while (len && isspace((unsigned char)value[len - 1]))
		value[--len] = '\0';
	return 0;
}

/* Write, then read back: sysfs may accept a write and keep another value
 * (an unknown governor, a CPU that refuses to go offline). */
static int apply_power_write(const char *path, const char *value)
{
	char check[JOURNAL_VALUE_MAX];
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	if (close(fd) < 0 || n != (ssize_t)len)
		return -1;
	if (apply_power_read(path, check, sizeof(check)) < 0)
		return -1;
	if (strcmp(check, value) != 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The files we write, under the sysfs root; '#' stands for a number. */
static const char *const apply_power_knob_shapes[] = {
	"devices/system/cpu/cpu#/online",
	"devices/system/cpu/cpu#/power/pm_qos_resume_latency_us",
	"devices/system/cpu/cpufreq/policy#/scaling_governor",
	"devices/system/cpu/cpufreq/policy#/energy_performance_preference",
	"devices/system/cpu/intel_pstate/no_turbo",
	"devices/system/cpu/cpufreq/boost",
	"firmware/acpi/platform_profile",
};

static bool apply_power_shape_is(const char *shape, const char *rel)
{
	for (; *shape; shape++) {
		if (*shape != '#') {
			if (*rel++ != *shape)
				return false;
			continue;
		}
		if (!isdigit((unsigned char)*rel))
			return false;
		while (isdigit((unsigned char)*rel))
			rel++;
	}
	return *rel == '\0';
}

/* Where rel lies under the sysfs root, reached without a symbolic link;
 * a path gone is let through, to be said gone when it is read. */
static bool apply_power_under_sysfs(const struct power *pw, const char *path,
				    const char *rel)
{
	char *real = realpath(path, NULL), *root;
	size_t len;
	bool under;

	if (!real)
		return errno == ENOENT || errno == ENOTDIR;
	root = realpath(pw->sysfs, NULL);
	len = root ? strlen(root) : 0;
	under = root && strncmp(real, root, len) == 0 && real[len] == '/' &&
		strcmp(real + len + 1, rel) == 0;
	free(root);
	free(real);
	return under;
}

/* Whether a journal entry names a knob we write. The journal is root's
 * (journal.c checks that), but what it names is written as root at the
 * next start: anything else, as a path outside the sysfs root, one with
 * "..", or one through a symbolic link, is refused, whoever put it
 * there. /dev/cpu_dma_latency is never journaled: the kernel drops our
 * request when the file is closed. */
static bool apply_power_path_ok(const struct power *pw, const char *path)
{
	size_t len = strlen(pw->sysfs);
	const char *rel;
	bool known = false;

	while (len > 1 && pw->sysfs[len - 1] == '/')
		len--;
	if (strncmp(path, pw->sysfs, len) != 0 || path[len] != '/')
		return false;
	rel = path + len + strspn(path + len, "/");
	for (size_t i = 0; i < ARRAY_SIZE(apply_power_knob_shapes); i++)
		known = known ||
			apply_power_shape_is(apply_power_knob_shapes[i], rel);
	return known && apply_power_under_sysfs(pw, path, rel);
}

static bool apply_power_is_online(const char *path)
{
	size_t len = strlen(path);

	return len >= 7 && strcmp(path + len - 7, "/online") == 0;
}

static void apply_power_plan_add(struct apply_power_plan *plan,
				 const char *path, const char *value)
{
	plan->items = xreallocarray(plan->items, plan->count + 1,
				    sizeof(*plan->items));
	plan->items[plan->count].path = xstrdup(path);
	snprintf(plan->items[plan->count].value, JOURNAL_VALUE_MAX, "%s",
		 value);
	plan->count++;
}

static void apply_power_plan_free(struct apply_power_plan *plan)
{
	for (size_t i = 0; i < plan->count; i++)
		free(plan->items[i].path);
	free(plan->items);
	*plan = (struct apply_power_plan){0};
}

static const char *apply_power_plan_find(const struct apply_power_plan *plan,
					 const char *path)
{
	for (size_t i = 0; i < plan->count; i++) {
		if (strcmp(plan->items[i].path, path) == 0)
			return plan->items[i].value;
	}
	return NULL;
}

static struct power_knob *apply_power_knob(struct power *pw, const char *path)
{
	for (size_t i = 0; i < pw->knob_count; i++) {
		if (strcmp(pw->knobs[i].path, path) == 0)
			return &pw->knobs[i];
	}
	return NULL;
}

static void apply_power_drop_knob(struct power *pw, struct power_knob *k)
{
	free(k->path);
	*k = pw->knobs[--pw->knob_count];
}

static bool apply_power_cpu_name(const char *name, unsigned *cpu)
{
	char *end;
	unsigned long n;

	if (strncmp(name, "cpu", 3) != 0 || !isdigit((unsigned char)name[3]))
		return false;
	n = strtoul(name + 3, &end, 10);
	if (*end || n > 8191)
		return false;
	*cpu = (unsigned)n;
	return true;
}

static int apply_power_cpu_compare(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The CPUs sysfs lists, in ascending order. */
static size_t apply_power_cpus(const struct power *pw, unsigned **cpus)
{
	char *path = xasprintf("%s/devices/system/cpu", pw->sysfs);
	size_t count = 0;
	struct dirent *d;
	DIR *dp = opendir(path);

	*cpus = NULL;
	while (dp && (d = readdir(dp))) {
		unsigned cpu;

		if (!apply_power_cpu_name(d->d_name, &cpu))
			continue;
		*cpus = xreallocarray(*cpus, count + 1, sizeof(**cpus));
		(*cpus)[count++] = cpu;
	}
	if (dp)
		closedir(dp);
	free(path);
	if (count)
		qsort(*cpus, count, sizeof(**cpus), apply_power_cpu_compare);
	return count;
}

/* Whether a CPU was online before we held anything: ours may not count,
 * or min_online would release what it holds and take it again. */
static bool apply_power_online_before(struct power *pw, const char *path)
{
	struct power_knob *k = apply_power_knob(pw, path);
	struct journal_entry *e = journal_find(&pw->journal, path);
	char value[JOURNAL_VALUE_MAX];

	if (k && e)
		return strcmp(e->original, "1") == 0;
	/* cpu0 often has no online file: it cannot go offline. */
	if (apply_power_read(path, value, sizeof(value)) < 0)
		return access(path, F_OK) < 0;
	return strcmp(value, "1") == 0;
}

static void apply_power_plan_online(struct power *pw,
				    const struct power_want *want,
				    struct apply_power_plan *plan)
{
	unsigned *cpus;
	size_t count = apply_power_cpus(pw, &cpus), online = 0, need;
	bool *was_online;

	if (!count || (!want->all_online && want->min_online < 0)) {
		free(cpus);
		return;
	}
	was_online = xcalloc(count, sizeof(*was_online));
	for (size_t i = 0; i < count; i++) {
		char *path = xasprintf("%s/devices/system/cpu/cpu%u/online",
				       pw->sysfs, cpus[i]);

		was_online[i] = apply_power_online_before(pw, path);
		online += was_online[i];
		free(path);
	}
	need = want->all_online ? count
				: ((size_t)want->min_online * count + 99) / 100;
	for (size_t i = 0; i < count && online < need; i++) {
		char *path;

		if (was_online[i])
			continue;
		path = xasprintf("%s/devices/system/cpu/cpu%u/online",
				 pw->sysfs, cpus[i]);
		apply_power_plan_add(plan, path, "1");
		free(path);
		online++;
	}
	/* All online: hold every CPU that can go offline, so that a CPU
	 * taken offline by someone else meanwhile is noticed. */
	for (size_t i = 0; want->all_online && i < count; i++) {
		char *path = xasprintf("%s/devices/system/cpu/cpu%u/online",
				       pw->sysfs, cpus[i]);

		if (access(path, F_OK) == 0 &&
		    !apply_power_plan_find(plan, path))
			apply_power_plan_add(plan, path, "1");
		free(path);
	}
	free(was_online);
	free(cpus);
}

static bool apply_power_choice_ok(const char *choices_path, const char *value)
{
	char choices[1024];
	char *save = NULL;

	if (apply_power_read(choices_path, choices, sizeof(choices)) < 0)
		return true; /* no list to check against: let the write tell */
	for (char *w = strtok_r(choices, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (strcmp(w, value) == 0 ||
		    (w[0] == '[' && strncmp(w + 1, value, strlen(value)) == 0))
			return true;
	}
	return false;
}

/* Said again only when the value asked for changes. */
static void apply_power_not_offered(struct power *pw, const char *path,
				    const char *value, const char *list)
{
	const char *file = strrchr(path, '/');
	char key[sizeof(pw->refused)];

	/* By file name: every cpufreq policy would say the same. */
	snprintf(key, sizeof(key), "%s=%s", file ? file + 1 : path, value);
	if (strcmp(key, pw->refused) == 0)
		return;
	snprintf(pw->refused, sizeof(pw->refused), "%s", key);
	log_warnx("%s: '%s' is not offered (see %s)", path, value, list);
}

/* Whether the plan takes a CPU offline: we hold it online, from offline,
 * and the plan no longer wants it. */
static bool apply_power_cpu_leaving(struct power *pw,
				    const struct apply_power_plan *plan,
				    unsigned long cpu)
{
	char *path = xasprintf("%s/devices/system/cpu/cpu%lu/online", pw->sysfs,
			       cpu);
	struct power_knob *k = apply_power_knob(pw, path);
	struct journal_entry *e = journal_find(&pw->journal, path);
	bool leaving = k && !k->yielded && e && strcmp(e->original, "0") == 0 &&
		       !apply_power_plan_find(plan, path);

	free(path);
	return leaving;
}

/* Whether a cpufreq policy keeps an online CPU once the plan (its CPU
 * online files, planned first) is applied. Its affected_cpus lists its
 * online CPUs ("0 1 "). A policy left with none must be given back
 * before its CPUs go: not held, it is released ahead of them. */
static bool apply_power_policy_stays(struct power *pw,
				     const struct apply_power_plan *plan,
				     const char *policy_dir)
{
	char *path = xasprintf("%s/affected_cpus", policy_dir);
	char cpus[1024], *save = NULL;
	bool stays = false;
	bool unread = apply_power_read(path, cpus, sizeof(cpus)) < 0;

	free(path);
	/* EBUSY: every CPU of it is offline now, and the plan may bring
	 * one online before it takes the policy. ENOENT: a tree without
	 * the file tells nothing. Either way the take finds out. */
	if (unread)
		return true;
	for (char *w = strtok_r(cpus, " \t\n", &save); w && !stays;
	     w = strtok_r(NULL, " \t\n", &save)) {
		char *end;
		unsigned long cpu = strtoul(w, &end, 10);

		stays = *end || !apply_power_cpu_leaving(pw, plan, cpu);
	}
	return stays;
}

/* Every cpufreq policy's file, where the value is one it offers and the
 * policy keeps a CPU online. */
static void apply_power_plan_policies(struct power *pw, const char *file,
				      const char *choices, const char *value,
				      struct apply_power_plan *plan)
{
	char *dir = xasprintf("%s/devices/system/cpu/cpufreq", pw->sysfs);
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp))) {
		char *path, *list, *policy;
		bool stays;

		if (strncmp(d->d_name, "policy", 6) != 0)
			continue;
		policy = xasprintf("%s/%s", dir, d->d_name);
		stays = apply_power_policy_stays(pw, plan, policy);
		free(policy);
		if (!stays)
			continue;
		path = xasprintf("%s/%s/%s", dir, d->d_name, file);
		list = xasprintf("%s/%s/%s", dir, d->d_name, choices);
		if (access(path, F_OK) == 0) {
			if (apply_power_choice_ok(list, value))
				apply_power_plan_add(plan, path, value);
			else
				apply_power_not_offered(pw, path, value, list);
		}
		free(path);
		free(list);
	}
	if (dp)
		closedir(dp);
	free(dir);
}

static void apply_power_plan_turbo(struct power *pw, enum rule_turbo turbo,
				   struct apply_power_plan *plan)
{
	char *no_turbo = xasprintf(
		"%s/devices/system/cpu/intel_pstate/no_turbo", pw->sysfs);
	char *boost =
		xasprintf("%s/devices/system/cpu/cpufreq/boost", pw->sysfs);

	if (access(no_turbo, F_OK) == 0)
		apply_power_plan_add(plan, no_turbo,
				     turbo == RULE_TURBO_ON ? "0" : "1");
	else if (access(boost, F_OK) == 0)
		apply_power_plan_add(plan, boost,
				     turbo == RULE_TURBO_ON ? "1" : "0");
	else
		log_once(log_warnx, "turbo: this machine has neither "
				    "intel_pstate/no_turbo nor cpufreq/boost");
	free(no_turbo);
	free(boost);
}

static void apply_power_plan_profile(struct power *pw, const char *profile,
				     struct apply_power_plan *plan)
{
	char *path = xasprintf("%s/firmware/acpi/platform_profile", pw->sysfs);
	char *choices = xasprintf("%s/firmware/acpi/platform_profile_choices",
				  pw->sysfs);

	if (access(path, F_OK) < 0)
		log_once(log_warnx, "profile: this machine has no ACPI "
				    "platform_profile");
	else if (!apply_power_choice_ok(choices, profile))
		apply_power_not_offered(pw, path, profile, choices);
	else
		apply_power_plan_add(plan, path, profile);
	free(path);
	free(choices);
}

/* Per-CPU resume latency, when there is no /dev/cpu_dma_latency. 0 means
 * "no limit" in that file, so the strictest limit written is 1 us. */
static void apply_power_plan_pm_qos(struct power *pw, long latency_us,
				    struct apply_power_plan *plan)
{
	unsigned *cpus;
	size_t count = apply_power_cpus(pw, &cpus);
	char value[32];

	snprintf(value, sizeof(value), "%ld", latency_us < 1 ? 1 : latency_us);
	for (size_t i = 0; i < count; i++) {
		char *path = xasprintf("%s/devices/system/cpu/cpu%u/power/"
				       "pm_qos_resume_latency_us",
				       pw->sysfs, cpus[i]);

		if (access(path, F_OK) == 0)
			apply_power_plan_add(plan, path, value);
		free(path);
	}
	free(cpus);
}

/* power-profiles-daemon and tuned: the name the kernel keeps finds the
 * candidates, their real binaries run by root decide, since any user can
 * start a program by that name. tuned is a Python script. */
static const char *const apply_power_ppd[] = {
	"/usr/libexec/power-profiles-daemon",
	"/usr/lib/power-profiles-daemon",
	NULL,
};
static const char *const apply_power_python[] = {
	"/usr/bin/python3*",
	"/usr/libexec/platform-python*",
	NULL,
};
static const char *const apply_power_tuned[] = {
	"/usr/sbin/tuned",
	"/usr/bin/tuned",
	NULL,
};

static unsigned apply_power_owners(const struct power *pw)
{
	static const struct procinfo_daemon ppd = {.exes = apply_power_ppd};
	static const struct procinfo_daemon tuned = {
		.interpreters = apply_power_python,
		.scripts = apply_power_tuned,
	};
	unsigned owners = 0;
	size_t count = 0;
	pid_t *pids;

	if (procinfo_pids(pw->procfs, &pids, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++) {
		char path[96], comm[32];

		snprintf(path, sizeof(path), "%s/%d/comm", pw->procfs,
			 (int)pids[i]);
		if (apply_power_read(path, comm, sizeof(comm)) < 0)
			continue;
		if (strcmp(comm, "power-profiles-") == 0 &&
		    procinfo_is_daemon(pw->procfs, pids[i], &ppd))
			owners |= POWER_OWNER_PPD;
		else if (strcmp(comm, "tuned") == 0 &&
			 procinfo_is_daemon(pw->procfs, pids[i], &tuned))
			owners |= POWER_OWNER_TUNED;
	}
	free(pids);
	return owners;
}

/* Said once per key until the owner goes away. */
static bool apply_power_owned(struct power *pw, const char *key, unsigned bit,
			      unsigned by_ppd_or_tuned)
{
	static const char *const names[] = {"power-profiles-daemon", "tuned"};
	unsigned owner = pw->owners & by_ppd_or_tuned;

	if (!owner) {
		pw->refusals_said &= ~bit;
		return false;
	}
	if (!(pw->refusals_said & bit))
		log_warnx("power.%s refused: %s manages it on this machine "
			  "(use its own tools for it)",
			  key, names[owner & POWER_OWNER_PPD ? 0 : 1]);
	pw->refusals_said |= bit;
	return true;
}

static void apply_power_plan(struct power *pw, const struct power_want *want,
			     struct apply_power_plan *plan)
{
	char *dma = xasprintf("%s/cpu_dma_latency", pw->dev);

	if (want->governor || want->epp || want->profile || want->turbo)
		pw->owners = apply_power_owners(pw);
	apply_power_plan_online(pw, want, plan);
	if (want->idle_latency_us >= 0 && access(dma, F_OK) < 0) {
		size_t before = plan->count;

		apply_power_plan_pm_qos(pw, want->idle_latency_us, plan);
		if (plan->count == before)
			log_once(log_warnx,
				 "idle_latency_us: this machine has neither "
				 "%s nor per-CPU pm_qos_resume_latency_us",
				 dma);
	}
	if (want->governor &&
	    !apply_power_owned(pw, "governor", 1, POWER_OWNER_TUNED))
		apply_power_plan_policies(pw, "scaling_governor",
					  "scaling_available_governors",
					  want->governor, plan);
	if (want->epp &&
	    !apply_power_owned(pw, "epp", 2,
			       POWER_OWNER_PPD | POWER_OWNER_TUNED))
		apply_power_plan_policies(
			pw, "energy_performance_preference",
			"energy_performance_available_preferences", want->epp,
			plan);
	if (want->profile &&
	    !apply_power_owned(pw, "profile", 4,
			       POWER_OWNER_PPD | POWER_OWNER_TUNED))
		apply_power_plan_profile(pw, want->profile, plan);
	if (want->turbo &&
	    !apply_power_owned(pw, "turbo", 8, POWER_OWNER_TUNED))
		apply_power_plan_turbo(pw, want->turbo, plan);
	free(dma);
}

/* What giving a journaled setting back came to. */
enum apply_power_back {
	APPLY_POWER_BACK_RESTORED, /* the original written back */
	APPLY_POWER_BACK_HAD,	   /* it had the original already */
	APPLY_POWER_BACK_LEFT,	   /* someone else's value: theirs */
	APPLY_POWER_BACK_GONE,	   /* its file is gone: never again */
	APPLY_POWER_BACK_KEPT,	   /* not now: the journal keeps it */
};

static enum apply_power_back apply_power_unreadable(
	const struct journal_entry *e)
{
	switch (errno) {
	case ENOENT:
		/* The CPU is gone (unplugged), or the driver that had the
		 * file: it cannot be restored, ever. */
		log_warn("%s: gone; cannot restore %s", e->path, e->original);
		return APPLY_POWER_BACK_GONE;
	case EBUSY:
		/* A cpufreq policy whose CPUs are all offline: the kernel
		 * keeps its values until one is back, and so does the
		 * journal. */
	default:
		/* EACCES, EIO: perhaps not the next time. */
		log_warn("%s: cannot read; %s stays in the journal", e->path,
			 e->original);
		return APPLY_POWER_BACK_KEPT;
	}
}

/* Puts a setting's original back, but only where it still has the value
 * we set: a value someone else set since is theirs (an administrator's
 * fix, another tool's), and overwriting it would undo their change. */
static enum apply_power_back apply_power_give_back(
	struct power *pw, const struct journal_entry *e)
{
	char now[JOURNAL_VALUE_MAX];

	if (apply_power_read(e->path, now, sizeof(now)) < 0)
		return apply_power_unreadable(e);
	if (strcmp(now, e->original) == 0) {
		log_debug("%s: has its original %s already", e->path,
			  e->original);
		return APPLY_POWER_BACK_HAD;
	}
	if (!journal_ours(e, now)) {
		log_info("%s: someone else set %s (the daemon set %s): left "
			 "to them, %s not restored",
			 e->path, now, e->ours, e->original);
		return APPLY_POWER_BACK_LEFT;
	}
	if (apply_power_write(e->path, e->original) < 0) {
		/* EBUSY: a CPU the kernel will not take offline now;
		 * EINVAL: a value no longer offered; EIO: read back as
		 * another. The journal keeps it, for the next start or
		 * "cpupolicyctl restore". */
		log_warn("%s: cannot restore %s", e->path, e->original);
		apply_power_step(pw, "restored");
		return APPLY_POWER_BACK_KEPT;
	}
	log_info("%s: restored %s (was %s)", e->path, e->original, now);
	apply_power_step(pw, "restored");
	return APPLY_POWER_BACK_RESTORED;
}

/* Gives a knob back: the original where it still has our value. */
static void apply_power_release(struct power *pw, struct power_knob *k)
{
	struct journal_entry *e = journal_find(&pw->journal, k->path);

	apply_power_step(pw, "releasing");
	/* Yielded: someone else's since apply_power_check said so. */
	if (e && (k->yielded ||
		  apply_power_give_back(pw, e) != APPLY_POWER_BACK_KEPT)) {
		journal_forget(&pw->journal, k->path);
		apply_power_step(pw, "forgotten");
	}
	apply_power_drop_knob(pw, k);
}

/* Takes (or changes) a knob: journal first, then the write. */
static void apply_power_take(struct power *pw, const char *path,
			     const char *value)
{
	struct power_knob *k = apply_power_knob(pw, path);
	struct journal_entry *e;
	char now[JOURNAL_VALUE_MAX];

	char before[JOURNAL_VALUE_MAX] = "";

	if (k && (k->yielded || strcmp(k->value, value) == 0))
		return;
	if (apply_power_read(path, now, sizeof(now)) < 0) {
		log_warn("%s: cannot read", path);
		return;
	}
	if (k)
		snprintf(before, sizeof(before), "%s", k->value);
	if (!k) {
		pw->knobs = xreallocarray(pw->knobs, pw->knob_count + 1,
					  sizeof(*pw->knobs));
		k = &pw->knobs[pw->knob_count++];
		*k = (struct power_knob){.path = xstrdup(path)};
	}
	snprintf(k->value, sizeof(k->value), "%s", value);
	if (strcmp(now, value) == 0)
		return; /* held, nothing to write, nothing to restore */
	apply_power_step(pw, "taking");
	e = journal_find(&pw->journal, path);
	if (!pw->journal_ok ||
	    journal_record(&pw->journal, path, e ? e->original : now, value) <
		    0) {
		log_warnx("%s: not changed: its original could not be "
			  "recorded first",
			  path);
		apply_power_drop_knob(pw, k);
		return;
	}
	apply_power_step(pw, "journaled");
	if (apply_power_write(path, value) < 0) {
		log_warn("%s: cannot set %s", path, value);
		if (before[0]) {
			/* Still ours at the value held before (journaled
			 * only if it was ever written). */
			snprintf(k->value, sizeof(k->value), "%s", before);
			if (e)
				journal_record(&pw->journal, path, e->original,
					       before);
			else
				journal_forget(&pw->journal, path);
			return;
		}
		/* Nothing of ours is there: nothing to restore. */
		if (!e)
			journal_forget(&pw->journal, path);
		apply_power_drop_knob(pw, k);
		return;
	}
	apply_power_step(pw, "written");
	journal_settle(&pw->journal, path);
	log_info("%s: %s (was %s)", path, value, now);
}

static void apply_power_latency(struct power *pw, long latency_us)
{
	char *dma = xasprintf("%s/cpu_dma_latency", pw->dev);
	int32_t value = (int32_t)latency_us;

	if (latency_us < 0 && pw->latency_fd >= 0) {
		close(pw->latency_fd);
		pw->latency_fd = -1;
		log_info("%s: released", dma);
	} else if (latency_us >= 0 && latency_us != pw->latency_us) {
		if (pw->latency_fd < 0)
			pw->latency_fd = open(dma, O_WRONLY | O_CLOEXEC);
		if (pw->latency_fd < 0 && errno != ENOENT)
			log_warn("%s: cannot open", dma);
		else if (pw->latency_fd >= 0 &&
			 write(pw->latency_fd, &value, sizeof(value)) !=
				 (ssize_t)sizeof(value)) {
			log_warn("%s: cannot request %ld us", dma, latency_us);
			close(pw->latency_fd);
			pw->latency_fd = -1;
		} else if (pw->latency_fd >= 0)
			log_info("%s: idle latency limited to %ld us", dma,
				 latency_us);
	}
	pw->latency_us = pw->latency_fd >= 0 ? latency_us : -1;
	free(dma);
}

/* Gives back what the plan no longer wants, the CPU online files last:
 * a CPU's cpufreq knobs must go back while it is online, as the kernel
 * refuses to read or write the policy of CPUs all offline (EBUSY). */
static void apply_power_release_unwanted(struct power *pw,
					 const struct apply_power_plan *plan)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < pw->knob_count;) {
			struct power_knob *k = &pw->knobs[i];

			if (apply_power_is_online(k->path) == (pass == 1) &&
			    !apply_power_plan_find(plan, k->path)) {
				apply_power_release(pw, k);
				continue; /* the last knob moved here */
			}
			i++;
		}
	}
}

void apply_power_set(struct power *pw, const struct power_want *want)
{
	struct apply_power_plan plan = {0};

	apply_power_plan(pw, want, &plan);
	apply_power_release_unwanted(pw, &plan);
	for (size_t i = 0; i < plan.count; i++)
		apply_power_take(pw, plan.items[i].path, plan.items[i].value);
	apply_power_latency(pw, want->idle_latency_us);
	apply_power_plan_free(&plan);
}

/* Someone else changed a held knob: set it again, or leave it to them
 * (and then never restore it). */
void apply_power_check(struct power *pw)
{
	for (size_t i = 0; i < pw->knob_count; i++) {
		struct power_knob *k = &pw->knobs[i];
		struct journal_entry *e;
		char now[JOURNAL_VALUE_MAX];

		if (k->yielded ||
		    apply_power_read(k->path, now, sizeof(now)) < 0 ||
		    strcmp(now, k->value) == 0)
			continue;
		if (pw->reassert) {
			e = journal_find(&pw->journal, k->path);
			if (!pw->journal_ok ||
			    journal_record(&pw->journal, k->path,
					   e ? e->original : k->value,
					   k->value) < 0 ||
			    apply_power_write(k->path, k->value) < 0)
				log_warn("%s: changed by someone else to %s; "
					 "cannot set %s again",
					 k->path, now, k->value);
			else
				log_info("%s: changed by someone else to %s; "
					 "set to %s again",
					 k->path, now, k->value);
			continue;
		}
		log_info("%s: changed by someone else to %s while held at %s: "
			 "theirs now, not restored later",
			 k->path, now, k->value);
		k->yielded = true;
		journal_forget(&pw->journal, k->path);
	}
}

/* One journal entry at replay: given back where it is a knob we write,
 * and forgotten unless it must be tried again. */
static void apply_power_replay(struct power *pw, const char *path,
			       int *restored, int *failed)
{
	struct journal_entry *e = journal_find(&pw->journal, path);

	if (!e)
		return;
	if (!apply_power_path_ok(pw, path)) {
		log_warnx("%s: journal entry refused: not a setting the daemon "
			  "writes under %s; %s not written",
			  path, pw->sysfs, e->original);
	} else {
		switch (apply_power_give_back(pw, e)) {
		case APPLY_POWER_BACK_RESTORED:
			(*restored)++;
			break;
		case APPLY_POWER_BACK_KEPT:
			(*failed)++;
			return;
		case APPLY_POWER_BACK_HAD:
		case APPLY_POWER_BACK_LEFT:
		case APPLY_POWER_BACK_GONE:
			break;
		}
	}
	if (journal_forget(&pw->journal, path) < 0)
		(*failed)++;
	apply_power_step(pw, "forgotten");
}

/* Every original in the journal back in place, where the setting still
 * has our value: at start, before anything else, and by "cpupolicyctl
 * restore". CPU online files last, as at release. */
int apply_power_restore_all(struct power *pw)
{
	size_t count = pw->journal.count;
	char **paths = xcalloc(count ? count : 1, sizeof(*paths));
	int restored = 0, failed = 0;

	for (size_t i = 0; i < count; i++)
		paths[i] = xstrdup(pw->journal.entries[i].path);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < count; i++) {
			if (apply_power_is_online(paths[i]) == (pass == 1))
				apply_power_replay(pw, paths[i], &restored,
						   &failed);
		}
	}
	for (size_t i = 0; i < count; i++)
		free(paths[i]);
	free(paths);
	return failed ? -1 : restored;
}

int apply_power_open(struct power *pw, const char *sysfs, const char *dev,
		     const char *procfs, const char *state_dir)
{
	*pw = (struct power){
		.sysfs = xstrdup(sysfs),
		.dev = xstrdup(dev),
		.procfs = xstrdup(procfs),
		.latency_fd = -1,
		.latency_us = -1,
	};
	pw->journal_ok = journal_open(&pw->journal, state_dir, procfs) == 0;
	return pw->journal_ok ? 0 : -1;
}

/* Everything held is given back. */
void apply_power_close(struct power *pw)
{
	struct power_want none;

	power_want_init(&none);
	apply_power_set(pw, &none);
	journal_close(&pw->journal);
	free(pw->knobs);
	free(pw->sysfs);
	free(pw->dev);
	free(pw->procfs);
	*pw = (struct power){.latency_fd = -1};
}
