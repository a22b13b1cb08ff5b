/* Times in power-of-two buckets (latency.h). */
#include "latency.h"

unsigned long long latency_bound_us(unsigned bucket)
{
	return bucket + 1 < LATENCY_BUCKETS ? 1ULL << bucket : 0;
}

static unsigned long long latency_us(unsigned long long ns)
{
	return (ns + 999) / 1000;
}

void latency_add(struct latency *l, unsigned long long ns)
{
	unsigned bucket = 0;

	while (bucket + 1 < LATENCY_BUCKETS &&
	       latency_us(ns) > latency_bound_us(bucket))
		bucket++;
	l->count[bucket]++;
	l->total++;
	l->sum_ns += ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
}

/* The share's time is at most its bucket's bound, and at most the
 * worst: the lower of the two. */
unsigned long long latency_percentile_us(const struct latency *l, double p)
{
	unsigned long long seen = 0, want, worst = latency_us(l->max_ns);

	if (!l->total)
		return 0;
	want = (unsigned long long)(p * (double)l->total + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < LATENCY_BUCKETS; b++) {
		unsigned long long bound = latency_bound_us(b);

		seen += l->count[b];
		if (seen >= want)
			return !bound || worst < bound ? worst : bound;
	}
	return worst;
}
