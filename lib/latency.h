/* How long a step took, counted in powers of two: each bucket holds the
 * times from its bound's half up to its bound, so that a percentile is
 * known within a factor of two in fixed room, and the worst exactly. For
 * the exec filter: where a sent exec's time went before its policy was
 * in place. */
#ifndef CPUPOLICY_LATENCY_H
#define CPUPOLICY_LATENCY_H

/* Up to 1 µs, 2 µs, 4 µs, ... 2^24 µs (17 s), then the rest. */
#define LATENCY_BUCKETS 26

struct latency {
	unsigned long long count[LATENCY_BUCKETS];
	unsigned long long total, max_ns, sum_ns;
};

/* latency.c */
void latency_add(struct latency *l, unsigned long long ns);
/* A bucket's upper bound in µs; 0 for the last (no bound). */
unsigned long long latency_bound_us(unsigned bucket);
/* The bound of the bucket that holds the share p (0..1) of the times; the
 * worst time when that is the last bucket; 0 when there is none. */
unsigned long long latency_percentile_us(const struct latency *l, double p);

#endif
