/* Per-CPU time from /proc/stat. A line "cpuN user nice system idle iowait
 * irq softirq steal ..." in clock ticks; busy is user + nice + system +
 * irq + softirq, idle is idle + iowait, steal is what a hypervisor took.
 * Guest time is already counted in user. An offline CPU has no line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "procstat.h"
#include "util.h"

int procstat_parse(const char *text, struct procstat *stat)
{
	const char *line = text;

	*stat = (struct procstat){0};
	while (*line) {
		const char *end = strchrnul(line, '\n');
		unsigned long long v[8] = {0};
		int cpu, n;

		if (strncmp(line, "cpu", 3) == 0 &&
		    isdigit((unsigned char)line[3]) &&
		    sscanf(line + 3,
			   "%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &n) >= 9 &&
		    cpu >= 0 && cpu < 8192) {
			stat->cpus = xreallocarray(stat->cpus, stat->count + 1,
						   sizeof(*stat->cpus));
			stat->cpus[stat->count++] = (struct procstat_cpu){
				.cpu = cpu,
				.busy = v[0] + v[1] + v[2] + v[5] + v[6],
				.idle = v[3] + v[4],
				.steal = v[7],
			};
		}
		line = *end ? end + 1 : end;
	}
	if (!stat->count) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int procstat_read(const char *procfs, struct procstat *stat)
{
	char *path = xasprintf("%s/stat", procfs), *text;
	size_t len;
	int status;

	if (util_read_file(path, 4 << 20, &text, &len) < 0) {
		free(path);
		return -1;
	}
	status = procstat_parse(text, stat);
	free(text);
	free(path);
	return status;
}

void procstat_free(struct procstat *stat)
{
	free(stat->cpus);
	*stat = (struct procstat){0};
}

/* CPUs present in both samples; counters that went backwards (a CPU that
 * went offline and came back) count as no time. */
size_t procstat_diff(const struct procstat *before,
		     const struct procstat *after, struct procstat_share *out,
		     size_t max)
{
	size_t count = 0;

	for (size_t a = 0; a < after->count && count < max; a++) {
		const struct procstat_cpu *x = &after->cpus[a], *w = NULL;
		unsigned long long busy, idle, steal, total;

		for (size_t b = 0; b < before->count && !w; b++) {
			if (before->cpus[b].cpu == x->cpu)
				w = &before->cpus[b];
		}
		if (!w)
			continue;
		busy = x->busy >= w->busy ? x->busy - w->busy : 0;
		idle = x->idle >= w->idle ? x->idle - w->idle : 0;
		steal = x->steal >= w->steal ? x->steal - w->steal : 0;
		total = busy + idle + steal;
		out[count++] = (struct procstat_share){
			.cpu = x->cpu,
			.busy = total ? (double)busy / (double)total : 0,
			.idle = total ? (double)idle / (double)total : 1,
			.steal = total ? (double)steal / (double)total : 0,
		};
	}
	return count;
}

/* How busy the CPUs were together: busy and steal time over all time, a
 * CPU counting as much as any other. */
double procstat_mean_busy(const struct procstat_share *shares, size_t count)
{
	double sum = 0;

	for (size_t i = 0; i < count; i++)
		sum += shares[i].busy + shares[i].steal;
	return count ? sum / (double)count : 0;
}
