/* Linux: the power wants as sysfs files (knobs, os.h): CPU online files,
 * the cpufreq policies' governor and EPP, platform_profile, no_turbo or
 * boost, and per-CPU pm_qos_resume_latency_us where /dev/cpu_dma_latency
 * is missing; that device is the idle-latency hold, a PM QoS request the
 * kernel drops by itself when the file is closed, even by a crash. The
 * settings power-profiles-daemon and tuned own are known by their
 * binaries. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"
#include "log.h"
#include "power.h"
#include "util.h"

/* One planning: the machine, the knobs held, the plan so far. */
struct knobs_planning {
	struct knobs *kn;
	const struct power_held *held;
	size_t held_count;
	struct power_plan *plan;
};

static int knobs_read_file(const char *path, char *value, size_t size)
{
	size_t len;

	if (procinfo_read(path, value, size, &len) < 0)
		return -1;
	while (len && isspace((unsigned char)value[len - 1]))
		value[--len] = '\0';
	return 0;
}

enum os_status knobs_read(const char *key, char *value, size_t size)
{
	return knobs_read_file(key, value, size) < 0 ? status_of_errno(errno)
						     : OS_OK;
}

/* Write, then read back: sysfs may accept a write and keep another value
 * (an unknown governor, a CPU that refuses to go offline). */
enum os_status knobs_write(const char *key, const char *value)
{
	char check[JOURNAL_VALUE_MAX];
	size_t len = strlen(value);
	int fd = open(key, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return status_of_errno(errno);
	n = write(fd, value, len);
	if (close(fd) < 0 || n != (ssize_t)len)
		return status_of_errno(errno);
	if (knobs_read_file(key, check, sizeof(check)) < 0)
		return status_of_errno(errno);
	if (strcmp(check, value) != 0) {
		errno = EIO;
		return OS_FAILED;
	}
	return OS_OK;
}

/* The files we write, under the sysfs root; '#' stands for a number. */
static const char *const knobs_shapes[] = {
	"devices/system/cpu/cpu#/online",
	"devices/system/cpu/cpu#/power/pm_qos_resume_latency_us",
	"devices/system/cpu/cpufreq/policy#/scaling_governor",
	"devices/system/cpu/cpufreq/policy#/energy_performance_preference",
	"devices/system/cpu/intel_pstate/no_turbo",
	"devices/system/cpu/cpufreq/boost",
	"firmware/acpi/platform_profile",
};

static bool knobs_shape_is(const char *shape, const char *rel)
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
static bool knobs_under_sysfs(const char *path, const char *rel)
{
	char *real = realpath(path, NULL), *root;
	size_t len;
	bool under;

	if (!real)
		return errno == ENOENT || errno == ENOTDIR;
	root = realpath(paths_sysfs(), NULL);
	len = root ? strlen(root) : 0;
	under = root && strncmp(real, root, len) == 0 && real[len] == '/' &&
		strcmp(real + len + 1, rel) == 0;
	free(root);
	free(real);
	return under;
}

/* Whether a journal entry names a knob we write. The journal is root's
 * (journal_open checks that), but what it names is written as root at the
 * next start: anything else, as a path outside the sysfs root, one with
 * "..", or one through a symbolic link, is refused, whoever put it
 * there. /dev/cpu_dma_latency is never journaled: the kernel drops our
 * request when the file is closed. */
bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size)
{
	size_t len = strlen(paths_sysfs());
	const char *rel;
	bool known = false;

	(void)kn;
	snprintf(why, size, "not a setting the daemon writes under %s",
		 paths_sysfs());
	while (len > 1 && paths_sysfs()[len - 1] == '/')
		len--;
	if (strncmp(key, paths_sysfs(), len) != 0 || key[len] != '/')
		return false;
	rel = key + len + strspn(key + len, "/");
	for (size_t i = 0; i < ARRAY_SIZE(knobs_shapes); i++)
		known = known || knobs_shape_is(knobs_shapes[i], rel);
	return known && knobs_under_sysfs(key, rel);
}

/* A CPU's cpufreq knobs must go back while it is online: the kernel
 * refuses to read or write the policy of CPUs all offline (EBUSY). */
/* Every Linux knob is the kernel's memory: sysfs files (CPU online,
 * cpufreq, platform_profile, boost) start from the kernel's and the
 * firmware's defaults at each boot, and the PM QoS request is never
 * journaled. */
bool knobs_lasting(const char *key)
{
	(void)key;
	return false;
}

enum knobs_order knobs_order(const char *key)
{
	size_t len = strlen(key);

	return len >= 7 && strcmp(key + len - 7, "/online") == 0
		       ? KNOBS_ORDER_LAST
		       : KNOBS_ORDER_FIRST;
}

static const struct power_held *knobs_held(const struct knobs_planning *p,
					   const char *key)
{
	for (size_t i = 0; i < p->held_count; i++) {
		if (strcmp(p->held[i].key, key) == 0)
			return &p->held[i];
	}
	return NULL;
}

static bool knobs_cpu_name(const char *name, unsigned *cpu)
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

static int knobs_cpu_compare(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The CPUs sysfs lists, in ascending order. */
static size_t knobs_cpus(unsigned **cpus)
{
	char *path = xasprintf("%s/devices/system/cpu", paths_sysfs());
	size_t count = 0;
	struct dirent *d;
	DIR *dp = opendir(path);

	*cpus = NULL;
	while (dp && (d = readdir(dp))) {
		unsigned cpu;

		if (!knobs_cpu_name(d->d_name, &cpu))
			continue;
		*cpus = xreallocarray(*cpus, count + 1, sizeof(**cpus));
		(*cpus)[count++] = cpu;
	}
	if (dp)
		closedir(dp);
	free(path);
	if (count)
		qsort(*cpus, count, sizeof(**cpus), knobs_cpu_compare);
	return count;
}

/* Whether a CPU was online before we held anything: ours may not count,
 * or min_online would release what it holds and take it again. */
static bool knobs_online_before(const struct knobs_planning *p,
				const char *path)
{
	const struct power_held *h = knobs_held(p, path);
	char value[JOURNAL_VALUE_MAX];

	if (h && h->original)
		return strcmp(h->original, "1") == 0;
	/* cpu0 often has no online file: it cannot go offline. */
	if (knobs_read_file(path, value, sizeof(value)) < 0)
		return access(path, F_OK) < 0;
	return strcmp(value, "1") == 0;
}

static char *knobs_online_path(unsigned long cpu)
{
	return xasprintf("%s/devices/system/cpu/cpu%lu/online", paths_sysfs(),
			 cpu);
}

static void knobs_plan_online(const struct knobs_planning *p,
			      const struct power_want *want)
{
	unsigned *cpus;
	size_t count = knobs_cpus(&cpus), online = 0, need;
	bool *was_online;

	if (!count || (!want->all_online && want->min_online < 0)) {
		free(cpus);
		return;
	}
	was_online = xcalloc(count, sizeof(*was_online));
	for (size_t i = 0; i < count; i++) {
		char *path = knobs_online_path(cpus[i]);

		was_online[i] = knobs_online_before(p, path);
		online += was_online[i];
		free(path);
	}
	need = want->all_online ? count
				: ((size_t)want->min_online * count + 99) / 100;
	for (size_t i = 0; i < count && online < need; i++) {
		char *path;

		if (was_online[i])
			continue;
		path = knobs_online_path(cpus[i]);
		power_plan_add(p->plan, path, "1");
		free(path);
		online++;
	}
	/* All online: hold every CPU that can go offline, so that a CPU
	 * taken offline by someone else meanwhile is noticed. */
	for (size_t i = 0; want->all_online && i < count; i++) {
		char *path = knobs_online_path(cpus[i]);

		if (access(path, F_OK) == 0 && !power_plan_find(p->plan, path))
			power_plan_add(p->plan, path, "1");
		free(path);
	}
	free(was_online);
	free(cpus);
}

static bool knobs_choice_ok(const char *choices_path, const char *value)
{
	char choices[1024];
	char *save = NULL;

	if (knobs_read_file(choices_path, choices, sizeof(choices)) < 0)
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
static void knobs_not_offered(struct knobs *kn, const char *path,
			      const char *value, const char *list)
{
	const char *file = strrchr(path, '/');
	char key[sizeof(kn->refused)];

	/* By file name: every cpufreq policy would say the same. */
	snprintf(key, sizeof(key), "%s=%s", file ? file + 1 : path, value);
	if (strcmp(key, kn->refused) == 0)
		return;
	snprintf(kn->refused, sizeof(kn->refused), "%s", key);
	log_warnx("%s: '%s' is not offered (see %s)", path, value, list);
}

/* Whether the plan takes a CPU offline: we hold it online, from offline,
 * and the plan no longer wants it. */
static bool knobs_cpu_leaving(const struct knobs_planning *p, unsigned long cpu)
{
	char *path = knobs_online_path(cpu);
	const struct power_held *h = knobs_held(p, path);
	bool leaving = h && !h->yielded && h->original &&
		       strcmp(h->original, "0") == 0 &&
		       !power_plan_find(p->plan, path);

	free(path);
	return leaving;
}

/* Whether a cpufreq policy keeps an online CPU once the plan (its CPU
 * online files, planned first) is applied. Its affected_cpus lists its
 * online CPUs ("0 1 "). A policy left with none must be given back
 * before its CPUs go: not held, it is released ahead of them. */
static bool knobs_policy_stays(const struct knobs_planning *p,
			       const char *policy_dir)
{
	char *path = xasprintf("%s/affected_cpus", policy_dir);
	char cpus[1024], *save = NULL;
	bool stays = false;
	bool unread = knobs_read_file(path, cpus, sizeof(cpus)) < 0;

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

		stays = *end || !knobs_cpu_leaving(p, cpu);
	}
	return stays;
}

/* Every cpufreq policy's file, where the value is one it offers and the
 * policy keeps a CPU online. */
static void knobs_plan_policies(const struct knobs_planning *p,
				const char *file, const char *choices,
				const char *value)
{
	char *dir = xasprintf("%s/devices/system/cpu/cpufreq", paths_sysfs());
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp))) {
		char *path, *list, *policy;
		bool stays;

		if (strncmp(d->d_name, "policy", 6) != 0)
			continue;
		policy = xasprintf("%s/%s", dir, d->d_name);
		stays = knobs_policy_stays(p, policy);
		free(policy);
		if (!stays)
			continue;
		path = xasprintf("%s/%s/%s", dir, d->d_name, file);
		list = xasprintf("%s/%s/%s", dir, d->d_name, choices);
		if (access(path, F_OK) == 0) {
			if (knobs_choice_ok(list, value))
				power_plan_add(p->plan, path, value);
			else
				knobs_not_offered(p->kn, path, value, list);
		}
		free(path);
		free(list);
	}
	if (dp)
		closedir(dp);
	free(dir);
}

static void knobs_plan_turbo(const struct knobs_planning *p,
			     enum rule_turbo turbo)
{
	char *no_turbo = xasprintf(
		"%s/devices/system/cpu/intel_pstate/no_turbo", paths_sysfs());
	char *boost =
		xasprintf("%s/devices/system/cpu/cpufreq/boost", paths_sysfs());

	if (access(no_turbo, F_OK) == 0)
		power_plan_add(p->plan, no_turbo,
			       turbo == RULE_TURBO_ON ? "0" : "1");
	else if (access(boost, F_OK) == 0)
		power_plan_add(p->plan, boost,
			       turbo == RULE_TURBO_ON ? "1" : "0");
	else
		log_once(log_warnx, "turbo: this machine has neither "
				    "intel_pstate/no_turbo nor cpufreq/boost");
	free(no_turbo);
	free(boost);
}

static void knobs_plan_profile(const struct knobs_planning *p,
			       const char *profile)
{
	char *path =
		xasprintf("%s/firmware/acpi/platform_profile", paths_sysfs());
	char *choices = xasprintf("%s/firmware/acpi/platform_profile_choices",
				  paths_sysfs());

	if (access(path, F_OK) < 0)
		log_once(log_warnx, "profile: this machine has no ACPI "
				    "platform_profile");
	else if (!knobs_choice_ok(choices, profile))
		knobs_not_offered(p->kn, path, profile, choices);
	else
		power_plan_add(p->plan, path, profile);
	free(path);
	free(choices);
}

/* Per-CPU resume latency, when there is no /dev/cpu_dma_latency. 0 means
 * "no limit" in that file, so the strictest limit written is 1 us. */
static void knobs_plan_pm_qos(const struct knobs_planning *p, long latency_us)
{
	unsigned *cpus;
	size_t count = knobs_cpus(&cpus), before = p->plan->count;
	char value[32];

	snprintf(value, sizeof(value), "%ld", latency_us < 1 ? 1 : latency_us);
	for (size_t i = 0; i < count; i++) {
		char *path = xasprintf("%s/devices/system/cpu/cpu%u/power/"
				       "pm_qos_resume_latency_us",
				       paths_sysfs(), cpus[i]);

		if (access(path, F_OK) == 0)
			power_plan_add(p->plan, path, value);
		free(path);
	}
	free(cpus);
	if (p->plan->count == before)
		log_once(log_warnx,
			 "idle_latency_us: this machine has neither "
			 "%s/cpu_dma_latency nor per-CPU "
			 "pm_qos_resume_latency_us",
			 paths_dev());
}

/* The wants the caller left to us (knobs_owned took out the rest), each
 * as the files it maps to: CPU online files first, as a cpufreq policy
 * is planned by the CPUs it keeps online. */
void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan)
{
	const struct knobs_planning p = {kn, held, held_count, plan};
	char *dma = xasprintf("%s/cpu_dma_latency", paths_dev());

	knobs_plan_online(&p, want);
	if (want->idle_latency_us >= 0 && access(dma, F_OK) < 0)
		knobs_plan_pm_qos(&p, want->idle_latency_us);
	if (want->governor)
		knobs_plan_policies(&p, "scaling_governor",
				    "scaling_available_governors",
				    want->governor);
	if (want->epp)
		knobs_plan_policies(&p, "energy_performance_preference",
				    "energy_performance_available_preferences",
				    want->epp);
	if (want->profile)
		knobs_plan_profile(&p, want->profile);
	if (want->turbo)
		knobs_plan_turbo(&p, want->turbo);
	free(dma);
}

/* power-profiles-daemon and tuned: the name the kernel keeps finds the
 * candidates, their real binaries run by root decide, since any user can
 * start a program by that name. tuned is a Python script. */
static const char *const knobs_ppd[] = {
	"/usr/libexec/power-profiles-daemon",
	"/usr/lib/power-profiles-daemon",
	NULL,
};
static const char *const knobs_python[] = {
	"/usr/bin/python3*",
	"/usr/libexec/platform-python*",
	NULL,
};
static const char *const knobs_tuned[] = {
	"/usr/sbin/tuned",
	"/usr/bin/tuned",
	NULL,
};

/* What each manages: tuned its profile's governor, EPP, platform
 * profile and turbo; power-profiles-daemon EPP and platform profile. */
void knobs_owned(const struct knobs *kn, struct knobs_owners *owners)
{
	static const struct procinfo_daemon ppd = {.exes = knobs_ppd};
	static const struct procinfo_daemon tuned = {
		.interpreters = knobs_python,
		.scripts = knobs_tuned,
	};
	const char *by_ppd = NULL, *by_tuned = NULL;
	size_t count = 0;
	pid_t *pids;

	(void)kn;
	*owners = (struct knobs_owners){0};
	if (procinfo_pids(&pids, &count) != OS_OK)
		return;
	for (size_t i = 0; i < count; i++) {
		char path[96], comm[32];

		snprintf(path, sizeof(path), "%s/%d/comm", paths_procfs(),
			 (int)pids[i]);
		if (knobs_read_file(path, comm, sizeof(comm)) < 0)
			continue;
		if (strcmp(comm, "power-profiles-") == 0 &&
		    procinfo_is_daemon(pids[i], &ppd))
			by_ppd = "power-profiles-daemon";
		else if (strcmp(comm, "tuned") == 0 &&
			 procinfo_is_daemon(pids[i], &tuned))
			by_tuned = "tuned";
	}
	free(pids);
	owners->governor = by_tuned;
	owners->epp = by_ppd ? by_ppd : by_tuned;
	owners->profile = owners->epp;
	owners->turbo = by_tuned;
}

/* The request is the 32-bit number written to the open device; a value
 * written again replaces it. A kernel without the device: the plan holds
 * the per-CPU files instead (knobs_plan). */
void knobs_latency_hold(const struct knobs *kn, int *handle, long latency_us)
{
	char *dma = xasprintf("%s/cpu_dma_latency", paths_dev());
	int32_t value = (int32_t)latency_us;

	(void)kn;
	if (*handle < 0)
		*handle = open(dma, O_WRONLY | O_CLOEXEC);
	if (*handle < 0) {
		if (errno != ENOENT)
			log_warn("%s: cannot open", dma);
	} else if (write(*handle, &value, sizeof(value)) !=
		   (ssize_t)sizeof(value)) {
		log_warn("%s: cannot request %ld us", dma, latency_us);
		close(*handle);
		*handle = -1;
	} else {
		log_info("%s: idle latency limited to %ld us", dma, latency_us);
	}
	free(dma);
}

void knobs_latency_release(const struct knobs *kn, int *handle)
{
	(void)kn;
	if (*handle < 0)
		return;
	close(*handle);
	*handle = -1;
	log_info("%s/cpu_dma_latency: released", paths_dev());
}

void knobs_latency_name(char *name, size_t size)
{
	snprintf(name, size, "%s/cpu_dma_latency", paths_dev());
}
