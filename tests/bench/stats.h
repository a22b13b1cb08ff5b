/* Summaries of a benchmark's repeated runs: the median, with the min and
 * the max of the runs as its spread. */
#ifndef CPUPOLICY_BENCH_STATS_H
#define CPUPOLICY_BENCH_STATS_H

#include <stddef.h>

struct stats {
	double median, min, max;
};

/* stats.c */
void stats_summary(double *values, size_t count, struct stats *out);
double stats_now(void); /* seconds, monotonic */
void stats_rules_load(char *dir, int runs, size_t *count, struct stats *st);

#endif
