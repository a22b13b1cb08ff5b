/* Per-CPU time: busy, idle and steal, as the system counts them (in its
 * own unit: only shares are compared), and the share of each between two
 * samples. */
#ifndef CPUPOLICY_PROCSTAT_H
#define CPUPOLICY_PROCSTAT_H

#include <stddef.h>

struct procstat_cpu {
	int cpu; /* -1: unused slot */
	unsigned long long busy, idle, steal;
};

struct procstat {
	struct procstat_cpu *cpus;
	size_t count;
};

/* Shares of the time between two samples, 0..1 each. */
struct procstat_share {
	int cpu;
	double busy, idle, steal;
};

/* procstat.c */
int procstat_read(struct procstat *stat);
void procstat_free(struct procstat *stat);
size_t procstat_diff(const struct procstat *before,
		     const struct procstat *after, struct procstat_share *out,
		     size_t max);
double procstat_mean_busy(const struct procstat_share *shares, size_t count);

#endif
