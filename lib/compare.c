/* The statistics of saturate --compare. Student's t from the regularized
 * incomplete beta function (its continued fraction, evaluated by Lentz's
 * method), inverted by bisection: right to the last digit a report
 * prints for every number of degrees of freedom, where a table would
 * stop. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

/* The continued fraction of I_x(a, b), good where x < (a + 1) /
 * (a + b + 2). */
static double compare_beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < tiny ? 1 / tiny : 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		double delta;

		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 4 * DBL_EPSILON)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double compare_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * compare_beta_fraction(a, b, x) / a;
	return 1 - front * compare_beta_fraction(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
double compare_t_cdf(double t, double df)
{
	double tail = 0.5 * compare_beta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

/* The t with P(T <= t) = p; NAN outside 0 < p < 1 or for df <= 0. */
double compare_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -compare_t_quantile(1 - p, df);
	while (compare_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (compare_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double compare_geomean(const double *x, size_t count)
{
	double sum = 0;

	if (!count)
		return 0;
	for (size_t i = 0; i < count; i++) {
		if (!(x[i] > 0))
			return 0;
		sum += log(x[i]);
	}
	return exp(sum / (double)count);
}

/* -1 (EINVAL) for fewer than two pairs or a rate that is not positive:
 * a log ratio needs both. */
int compare_paired(const double *a, const double *b, size_t count, double level,
		   struct compare_summary *out)
{
	double sum = 0, ss = 0, half;

	*out = (struct compare_summary){.pairs = count};
	if (count < 2 || !(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		if (!(a[i] > 0) || !(b[i] > 0)) {
			errno = EINVAL;
			return -1;
		}
		sum += log(b[i] / a[i]);
	}
	out->mean_log = sum / (double)count;
	for (size_t i = 0; i < count; i++) {
		double d = log(b[i] / a[i]) - out->mean_log;

		ss += d * d;
	}
	out->sd_log = sqrt(ss / (double)(count - 1));
	out->t = compare_t_quantile(1 - (1 - level) / 2, (double)(count - 1));
	half = out->t * out->sd_log / sqrt((double)count);
	out->geo_a = compare_geomean(a, count);
	out->geo_b = compare_geomean(b, count);
	out->change = expm1(out->mean_log);
	out->low = expm1(out->mean_log - half);
	out->high = expm1(out->mean_log + half);
	return 0;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(X < k) for X binomial with count trials of one half. */
static double compare_sign_below(size_t count, size_t k)
{
	double term = ldexp(1, -(int)count), sum = 0;

	for (size_t i = 0; i < k; i++) {
		sum += term;
		term = term * (double)(count - i) / (double)(i + 1);
	}
	return sum;
}

/* -1 (EINVAL) for no pairs, a level outside (0, 1) or a difference that
 * is not a number. The interval is [d(k), d(n + 1 - k)] of the sorted
 * differences for the largest k whose coverage, 1 - 2 P(X < k), is still
 * the level asked. */
int compare_median_diff(const double *a, const double *b, size_t count,
			double level, struct compare_median *out)
{
	double *d;
	size_t k = 1;

	*out = (struct compare_median){.pairs = count};
	if (!count || !(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	d = xcalloc(count, sizeof(*d));
	for (size_t i = 0; i < count; i++) {
		d[i] = b[i] - a[i];
		if (isnan(d[i])) {
			free(d);
			errno = EINVAL;
			return -1;
		}
	}
	qsort(d, count, sizeof(*d), compare_double);
	out->median = count % 2 ? d[count / 2]
				: (d[count / 2 - 1] + d[count / 2]) / 2;
	while (2 * (k + 1) <= count + 1 &&
	       1 - 2 * compare_sign_below(count, k + 1) >= level)
		k++;
	out->low = d[k - 1];
	out->high = d[count - k];
	out->level = 1 - 2 * compare_sign_below(count, k);
	free(d);
	return 0;
}

/* The nearest-rank percentile of sorted samples: the smallest sample
 * with at least p of them at or below it. */
double compare_percentile(const double *sorted, size_t count, double p)
{
	double rank;

	if (!count)
		return 0;
	/* 0.99 * 100 is 99.00000000000001 in binary: not rank 100. */
	rank = ceil(p * (double)count - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > (double)count)
		rank = (double)count;
	return sorted[(size_t)rank - 1];
}

/* A trial's samples join the pool: every sample counts alike, whatever
 * trial it came from, for the arm's percentiles. */
void compare_pool_add(struct compare_pool *pool, const double *trial,
		      size_t count)
{
	double *own, p99;

	if (!count)
		return;
	if (pool->count + count > pool->cap) {
		pool->cap = pool->count + count > 2 * pool->cap
				    ? pool->count + count
				    : 2 * pool->cap;
		pool->samples = xreallocarray(pool->samples, pool->cap,
					      sizeof(*pool->samples));
	}
	memcpy(pool->samples + pool->count, trial, count * sizeof(*trial));
	own = pool->samples + pool->count;
	pool->count += count;
	pool->sorted = false;
	qsort(own, count, sizeof(*own), compare_double);
	p99 = compare_percentile(own, count, 0.99);
	if (p99 > pool->worst_p99)
		pool->worst_p99 = p99;
}

double compare_pool_percentile(struct compare_pool *pool, double p)
{
	if (!pool->sorted)
		qsort(pool->samples, pool->count, sizeof(*pool->samples),
		      compare_double);
	pool->sorted = true;
	return compare_percentile(pool->samples, pool->count, p);
}

void compare_pool_free(struct compare_pool *pool)
{
	free(pool->samples);
	*pool = (struct compare_pool){0};
}

/* Which arm a trial is: A then B in even pairs, B then A in odd ones,
 * so that with an even number of pairs each arm goes first as often as
 * the other (A B B A A B B A: a linear drift favours neither). */
unsigned compare_arm(unsigned pair, unsigned step)
{
	return (pair + step) % 2;
}
