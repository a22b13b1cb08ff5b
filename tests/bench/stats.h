/* Summaries of a benchmark's repeated runs: the median, with the min and
 * the max of the runs as its spread, printed as docs/benchmarks.md's
 * cells. */
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
void stats_cell(char *buf, size_t size, const struct stats *st, double scale,
		int decimals, const char *unit);
const char *stats_count(char *buf, size_t size, long long n);
char *stats_temp_dir(char *buf, size_t size, const char *name);

#endif
