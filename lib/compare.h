/* The statistics of saturate --compare: paired trials summarised by the
 * mean of their log ratios, with Student's t interval, and percentiles of
 * pooled samples. Pure. */
#ifndef CPUPOLICY_COMPARE_H
#define CPUPOLICY_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

/* Pairs of trials, one of A and one of B each. The change is
 * exp(mean(log(b/a))) - 1, which is exactly geo_b / geo_a - 1 of the
 * geometric means printed beside it; the interval is the t interval of
 * the mean log ratio, taken back through exp. */
struct compare_summary {
	size_t pairs;
	double geo_a, geo_b;	  /* geometric means of each arm's rates */
	double mean_log, sd_log;  /* of log(b / a) over the pairs */
	double t;		  /* the quantile used, pairs - 1 df */
	double change, low, high; /* fractions: 0.5 for +50 % */
};

/* Pairs of trials on a scale where 0 is a value (frames missed, a
 * lateness): the median of the differences b - a, and the interval
 * between two of their order statistics that holds the true median at
 * least `level` of the time whatever their distribution (the sign
 * test's). With few pairs no interval reaches the level: then it is the
 * whole range, and `level` says what it does reach (2 pairs: 50 %). */
struct compare_median {
	size_t pairs;
	double median, low, high;
	double level; /* the interval's own coverage */
};

/* Samples pooled over the trials of an arm (the probe's lateness), and
 * the worst trial's own p99 beside them. */
struct compare_pool {
	double *samples;
	size_t count, cap;
	double worst_p99;
	bool sorted;
};

/* compare.c */
double compare_t_cdf(double t, double df);
double compare_t_quantile(double p, double df);
double compare_geomean(const double *x, size_t count);
int compare_paired(const double *a, const double *b, size_t count, double level,
		   struct compare_summary *out);
int compare_median_diff(const double *a, const double *b, size_t count,
			double level, struct compare_median *out);
double compare_percentile(const double *sorted, size_t count, double p);
void compare_pool_add(struct compare_pool *pool, const double *trial,
		      size_t count);
double compare_pool_percentile(struct compare_pool *pool, double p);
void compare_pool_free(struct compare_pool *pool);
unsigned compare_arm(unsigned pair, unsigned step);

#endif
