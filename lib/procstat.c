/* Per-CPU time: samples of busy, idle and stolen time (the system's
 * counters, cputimes_read in os.h), and the share of each between two.
 * OS-neutral. */
#include <stdlib.h>

#include "os.h"
#include "procstat.h"

/* A sample now, from the system (cputimes_read). */
int procstat_read(struct procstat *stat)
{
	return cputimes_read(stat) == OS_OK ? 0 : -1;
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
