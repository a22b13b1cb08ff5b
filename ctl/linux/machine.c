/* Linux: what limits cpupolicyctl (and the workers it starts) on this
 * machine, and what other processes take of it, as the saturation check
 * reports them: the cgroup CPU quota and cpuset, cpufreq's governor and
 * caps, the CPU time of every process (/proc/PID/stat) and of a worker's
 * threads (schedstat). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"
#include "saturate.h"
#include "util.h"
#include "../ctl.h"

/* Online, or configured (present): when sysfs does not say. */
unsigned machine_cpu_count(bool online)
{
	long n = sysconf(online ? _SC_NPROCESSORS_ONLN : _SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 0;
}

/* The tightest cpu quota on the way from the cgroup up to the root. */
static double machine_quota_at(const char *sysfs, const char *mount, char *path,
			       bool v2)
{
	double best = -1;

	for (;;) {
		char *file =
			xasprintf("%s/fs/cgroup/%s%s/%s", sysfs, mount, path,
				  v2 ? "cpu.max" : "cpu.cfs_quota_us");
		char text[128];
		double quota = -1, period = 100000;
		char *slash;

		if (procinfo_read(file, text, sizeof(text), NULL) == 0) {
			if (v2 && strncmp(text, "max", 3) != 0)
				sscanf(text, "%lf %lf", &quota, &period);
			else if (!v2)
				quota = atof(text);
		}
		free(file);
		if (!v2 && quota > 0) {
			file = xasprintf("%s/fs/cgroup/%s%s/cpu.cfs_period_us",
					 sysfs, mount, path);
			if (procinfo_read(file, text, sizeof(text), NULL) == 0)
				period = atof(text);
			free(file);
		}
		if (quota > 0 && period > 0 &&
		    (best < 0 || quota / period < best))
			best = quota / period;
		slash = strrchr(path, '/');
		if (!slash || !path[0])
			break;
		*slash = '\0';
	}
	return best;
}

/* Whether a cgroup v1 line's controllers hold cpu itself (not only
 * cpuset or cpuacct). */
static bool machine_cpu_controller(const char *controllers)
{
	if (!strstr(controllers, "cpu"))
		return false;
	return strcmp(controllers, "cpu") == 0 ||
	       strncmp(controllers, "cpu,", 4) == 0 ||
	       strstr(controllers, ",cpu,") || strstr(controllers, ",cpu");
}

/* The CPUs this process may use by its cgroup's quota, and the cgroup it
 * comes from; -1: no quota. */
double machine_quota(char *cgroup, size_t size)
{
	const char *procfs = paths_procfs();
	const char *sysfs = paths_sysfs();
	static const char *const mounts_v1[] = {"cpu", "cpu,cpuacct"};
	static const char *const mounts_v2[] = {"", "unified"};
	char *self = xasprintf("%s/self/cgroup", procfs);
	char text[4096], *save = NULL;
	double quota = -1;

	cgroup[0] = '\0';
	if (procinfo_read(self, text, sizeof(text), NULL) < 0) {
		free(self);
		return -1;
	}
	free(self);
	for (char *line = strtok_r(text, "\n", &save); line && quota < 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *controllers = strchr(line, ':'), *path, copy[4096];
		bool v2;

		if (!controllers)
			continue;
		controllers++;
		path = strchr(controllers, ':');
		if (!path)
			continue;
		*path++ = '\0';
		v2 = controllers[0] == '\0';
		if (!v2 && !machine_cpu_controller(controllers))
			continue;
		for (size_t m = 0; m < 2 && quota < 0; m++) {
			snprintf(copy, sizeof(copy), "%s",
				 strcmp(path, "/") == 0 ? "" : path);
			quota = machine_quota_at(
				sysfs, v2 ? mounts_v2[m] : mounts_v1[m], copy,
				v2);
		}
		if (quota >= 0)
			snprintf(cgroup, size, "%s", path);
	}
	return quota;
}

/* The cpuset cgroup this process is in ("" when unreadable). */
void machine_cpuset_cgroup(char *name, size_t size)
{
	const char *procfs = paths_procfs();
	char *path = xasprintf("%s/self/cpuset", procfs);
	size_t len;

	if (procinfo_read(path, name, size, &len) == 0)
		name[strcspn(name, "\n")] = '\0';
	free(path);
}

/* A sysfs value on one line, without its newline. */
static int machine_line(const char *path, char *out, size_t size)
{
	if (procinfo_read(path, out, size, NULL) < 0)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* cpufreq of the first policy: governor, driver, EPP, and whether the
 * maximum frequency is capped below what the hardware does. */
void machine_freq(struct saturate_input *in)
{
	const char *sysfs = paths_sysfs();
	char *base = xasprintf("%s/devices/system/cpu/cpufreq/policy0", sysfs);
	char *gov = xasprintf("%s/scaling_governor", base);
	char *driver = xasprintf("%s/scaling_driver", base);
	char *epp = xasprintf("%s/energy_performance_preference", base);
	char *max = xasprintf("%s/scaling_max_freq", base);
	char *hw = xasprintf("%s/cpuinfo_max_freq", base);
	char a[64], b[64], name[64] = "";

	machine_line(gov, in->governor, sizeof(in->governor));
	if (machine_line(driver, name, sizeof(name)) == 0)
		snprintf(in->driver, sizeof(in->driver), "%s", name);
	machine_line(epp, in->epp, sizeof(in->epp));
	if (procinfo_read(max, a, sizeof(a), NULL) == 0 &&
	    procinfo_read(hw, b, sizeof(b), NULL) == 0)
		in->max_freq_capped = atoll(a) < atoll(b);
	free(base);
	free(gov);
	free(driver);
	free(epp);
	free(max);
	free(hw);
}

/* Every process's CPU time so far and nice value, with its name. */
size_t machine_tasks(struct machine_task **out)
{
	const char *procfs = paths_procfs();
	double tick = (double)sysconf(_SC_CLK_TCK);
	pid_t *pids;
	size_t count = 0, n = 0;

	*out = NULL;
	if (procinfo_pids(&pids, &count) != OS_OK)
		return 0;
	*out = xcalloc(count ? count : 1, sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		char path[96], stat[1024], *open, *close;
		unsigned long long ticks;
		int nice;

		snprintf(path, sizeof(path), "%s/%d/stat", procfs,
			 (int)pids[i]);
		if (procinfo_read(path, stat, sizeof(stat), NULL) < 0 ||
		    procinfo_parse_stat_cpu(stat, &ticks, &nice) < 0)
			continue;
		open = strchr(stat, '(');
		close = strrchr(stat, ')');
		if (!open || close < open)
			continue;
		(*out)[n] = (struct machine_task){.pid = pids[i],
						  .cpu_s = (double)ticks / tick,
						  .nice = nice};
		snprintf((*out)[n].name, sizeof((*out)[n].name), "%.*s",
			 (int)(close - open - 1), open + 1);
		n++;
	}
	free(pids);
	return n;
}

/* A thread's CPU time so far, in seconds: the nanoseconds it ran from
 * schedstat, else its clock ticks from stat; 0 when neither reads. */
double machine_thread_cpu(pid_t pid, pid_t tid)
{
	const char *procfs = paths_procfs();
	char path[128], text[1024];
	unsigned long long ns, ticks;

	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", procfs,
		 (int)pid, (int)tid);
	if (procinfo_read(path, text, sizeof(text), NULL) == 0 &&
	    sscanf(text, "%llu", &ns) == 1)
		return (double)ns / 1e9;
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", procfs, (int)pid,
		 (int)tid);
	if (procinfo_read(path, text, sizeof(text), NULL) < 0 ||
	    procinfo_parse_stat_cpu(text, &ticks, NULL) < 0)
		return 0;
	return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

/* Linux has no processor groups; a parked CPU is an offline one. */
void machine_system(struct saturate_machine *m, struct saturate_input *in)
{
	(void)m;
	in->system = SATURATE_SYSTEM_LINUX;
}
