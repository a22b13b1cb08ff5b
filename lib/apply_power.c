/* Linux: power wants as sysfs settings ("knobs"), held while wanted.
 *
 * Before the first write to a knob its original value goes into the
 * journal (synced); release puts the original back where the knob still
 * holds our value, then forgets the journal entry. After a crash the
 * journal is replayed before anything else. The idle-latency limit is a
 * PM QoS request on /dev/cpu_dma_latency, which the kernel drops by itself
 * when the file is closed, even by a crash; without that device the
 * per-CPU pm_qos_resume_latency_us files are used, journaled like the
 * rest. Where power-profiles-daemon or tuned runs, the settings they own
 * are not touched: the rule's key is refused with a log line. */
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
#include "procinfo.h"
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

/* Every cpufreq policy's file, where the value is one it offers. */
static void apply_power_plan_policies(struct power *pw, const char *file,
				      const char *choices, const char *value,
				      struct apply_power_plan *plan)
{
	char *dir = xasprintf("%s/devices/system/cpu/cpufreq", pw->sysfs);
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp))) {
		char *path, *list;

		if (strncmp(d->d_name, "policy", 6) != 0)
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

/* Gives a knob back: the original where it still has our value. */
static void apply_power_release(struct power *pw, struct power_knob *k)
{
	struct journal_entry *e = journal_find(&pw->journal, k->path);
	char now[JOURNAL_VALUE_MAX];

	apply_power_step(pw, "releasing");
	if (!k->yielded && e &&
	    apply_power_read(k->path, now, sizeof(now)) == 0) {
		if (strcmp(now, k->value) != 0) {
			log_info("%s: %s now, not %s as held: left as it is",
				 k->path, now, k->value);
		} else if (apply_power_write(k->path, e->original) < 0) {
			/* The journal keeps it: the next start or
			 * "cpupolicyctl restore" tries again. */
			log_warn("%s: cannot restore %s", k->path, e->original);
			e = NULL;
		} else {
			log_info("%s: restored %s", k->path, e->original);
		}
		apply_power_step(pw, "restored");
	} else if (!k->yielded && e && errno == ENOENT) {
		log_warn("%s: gone; cannot restore %s", k->path, e->original);
	} else if (!k->yielded && e) {
		log_warn("%s: cannot read; %s stays in the journal", k->path,
			 e->original);
		e = NULL;
	}
	if (e) {
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

void apply_power_set(struct power *pw, const struct power_want *want)
{
	struct apply_power_plan plan = {0};

	apply_power_plan(pw, want, &plan);
	for (size_t i = 0; i < pw->knob_count;) {
		const char *value =
			apply_power_plan_find(&plan, pw->knobs[i].path);

		if (!value) {
			apply_power_release(pw, &pw->knobs[i]);
			continue; /* the last knob moved here */
		}
		i++;
	}
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

/* Every original in the journal back in place: at start, before anything
 * else, and by "cpupolicyctl restore". */
int apply_power_restore_all(struct power *pw)
{
	size_t count = pw->journal.count;
	char **paths = xcalloc(count ? count : 1, sizeof(*paths));
	int restored = 0, failed = 0;

	for (size_t i = 0; i < count; i++)
		paths[i] = xstrdup(pw->journal.entries[i].path);
	for (size_t i = 0; i < count; i++) {
		struct journal_entry *e = journal_find(&pw->journal, paths[i]);
		char now[JOURNAL_VALUE_MAX];
		bool keep = false;
		int unread = apply_power_read(paths[i], now, sizeof(now)) < 0
				     ? errno
				     : 0;

		if (unread == ENOENT) {
			/* A CPU that is gone cannot be restored, ever. */
			log_warn("%s: gone; cannot restore %s", paths[i],
				 e->original);
		} else if (unread) {
			log_warn("%s: cannot read; %s stays in the journal",
				 paths[i], e->original);
			keep = true;
			failed++;
		} else if (strcmp(now, e->original) != 0) {
			if (apply_power_write(paths[i], e->original) < 0) {
				log_warn("%s: cannot restore %s", paths[i],
					 e->original);
				keep = true;
				failed++;
			} else {
				log_info("%s: restored %s (was %s)", paths[i],
					 e->original, now);
				restored++;
			}
			apply_power_step(pw, "restored");
		}
		if (!keep) {
			if (journal_forget(&pw->journal, paths[i]) < 0)
				failed++;
			apply_power_step(pw, "forgotten");
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
	pw->journal_ok = journal_open(&pw->journal, state_dir) == 0;
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

/* For "cpupolicyctl restore": no daemon, only the journal. */
int apply_power_restore_journal(const char *state_dir)
{
	struct journal journal;
	struct power pw = {.latency_fd = -1};
	int restored;

	if (journal_open(&journal, state_dir) < 0)
		return -1;
	pw.journal = journal;
	pw.journal_ok = true;
	restored = apply_power_restore_all(&pw);
	journal_close(&pw.journal);
	return restored;
}
