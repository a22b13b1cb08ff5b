#include "restraint.h"

#include <string.h>

#define RESTRAINT_MS	 1000000ULL	/* ns */
#define RESTRAINT_MINUTE 60000000000ULL /* ns */

/* ProBalance's configurations restrain at 15-25 % of all CPUs for about
 * a second: four hogs sharing two CPUs with a busy foreground get 17-20 %
 * each, and must qualify. Half a second, a PSI trigger's shortest
 * window: relief within a second of a hog's start. Calm for three
 * seconds, after five restrained, and four restraints a minute at most:
 * a compile's bursts do not flap. */
void restraint_limits_default(struct restraint_limits *limits)
{
	*limits = (struct restraint_limits){
		.share_pct = 15,
		.qualify_ms = 500,
		.release_pct = 5,
		.calm_ms = 3000,
		.hold_ms = 5000,
		.per_minute = 4,
	};
}

/* Whether the process's latest restraints fill its minute. */
static bool restraint_rate_full(const struct restraint_limits *limits,
				const struct restraint_proc *p,
				unsigned long long now_ns)
{
	unsigned in_minute = 0, cap = limits->per_minute;

	if (cap > RESTRAINT_RATE_MAX)
		cap = RESTRAINT_RATE_MAX;
	for (unsigned i = 0; i < p->recent_count; i++)
		in_minute += now_ns - p->recent_ns[i] < RESTRAINT_MINUTE;
	return in_minute >= cap;
}

static void restraint_remember(struct restraint_proc *p,
			       unsigned long long now_ns)
{
	if (p->recent_count == RESTRAINT_RATE_MAX) {
		memmove(p->recent_ns, p->recent_ns + 1,
			(RESTRAINT_RATE_MAX - 1) * sizeof(*p->recent_ns));
		p->recent_count--;
	}
	p->recent_ns[p->recent_count++] = now_ns;
}

/* Not restrained: over the share (or one whole CPU) through every sample
 * since over_since, under pressure, for qualify_ms. */
static enum restraint_verdict restraint_judge_free(
	const struct restraint_limits *limits, struct restraint_proc *p,
	unsigned long long from_ns, unsigned long long now_ns, bool over,
	bool pressure)
{
	if (!over || !pressure) {
		p->over_since_ns = 0;
		p->refusing = false;
		return RESTRAINT_KEEP;
	}
	if (!p->over_since_ns)
		p->over_since_ns = from_ns;
	if (now_ns - p->over_since_ns < limits->qualify_ms * RESTRAINT_MS)
		return RESTRAINT_KEEP;
	if (restraint_rate_full(limits, p, now_ns)) {
		p->refused += !p->refusing;
		p->refusing = true;
		return RESTRAINT_KEEP;
	}
	p->restrained = true;
	p->restrained_ns = now_ns;
	p->over_since_ns = 0;
	p->refusing = false;
	restraint_remember(p, now_ns);
	return RESTRAINT_RESTRAIN;
}

/* Restrained: under the release share through every sample since
 * under_since, for calm_ms, and held hold_ms at least. Pressure does
 * not count: a restrained hog still runs where nothing else wants the
 * CPU, and letting it go because its restraint relieved the machine
 * would only restrain it again. */
static enum restraint_verdict restraint_judge_held(
	const struct restraint_limits *limits, struct restraint_proc *p,
	unsigned long long from_ns, unsigned long long now_ns, bool under)
{
	if (!under) {
		p->under_since_ns = 0;
		return RESTRAINT_KEEP;
	}
	if (!p->under_since_ns)
		p->under_since_ns = from_ns;
	if (now_ns - p->under_since_ns < limits->calm_ms * RESTRAINT_MS ||
	    now_ns - p->restrained_ns < limits->hold_ms * RESTRAINT_MS)
		return RESTRAINT_KEEP;
	restraint_released(p);
	return RESTRAINT_RELEASE;
}

/* A sample: the process's CPU time (all its threads, ns) at now_ns, on
 * a machine of cpus CPUs, pressure or not since the last. The first
 * sample, and one whose clock or CPU time went back (another process
 * under the record), only start the count. */
enum restraint_verdict restraint_judge(const struct restraint_limits *limits,
				       struct restraint_proc *p,
				       unsigned long long now_ns,
				       unsigned long long cpu_ns, unsigned cpus,
				       bool pressure)
{
	unsigned long long from_ns = p->at_ns, dt, used;
	bool fresh = !p->sampled || now_ns <= p->at_ns || cpu_ns < p->cpu_ns;

	dt = now_ns - p->at_ns;
	used = cpu_ns - p->cpu_ns;
	p->sampled = true;
	p->cpu_ns = cpu_ns;
	p->at_ns = now_ns;
	if (fresh || !cpus)
		return RESTRAINT_KEEP;
	if (!p->restrained)
		return restraint_judge_free(
			limits, p, from_ns, now_ns,
			used * 100 >= (unsigned long long)limits->share_pct *
						dt * cpus ||
				used >= dt,
			pressure);
	return restraint_judge_held(
		limits, p, from_ns, now_ns,
		used * 100 < (unsigned long long)limits->release_pct * dt *
					cpus &&
			used * 2 < dt);
}

void restraint_released(struct restraint_proc *p)
{
	p->restrained = false;
	p->under_since_ns = 0;
	p->over_since_ns = 0;
}
