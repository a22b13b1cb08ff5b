/* Windows processor groups: whether a process needs its threads dealt over
 * them, and the dealing, in proportion to the groups' sizes. Pure: the
 * backend gives the groups' masks and sets what the plan says. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "procgroups.h"
#include "util.h"

/* Before PROCGROUPS_SPAN_BUILD a process starts in one group and a thread pool
 * stays there (30x instead of 64x on 128 CPUs) unless each thread is
 * moved. From it on Windows spreads the process itself, unless someone
 * narrowed its affinity (a job object, start /affinity, the program). */
enum procgroups_need procgroups_need(size_t groups, unsigned long build,
				     bool spans_all)
{
	if (groups <= 1)
		return PROCGROUPS_NEED_ONE_GROUP;
	if (build >= PROCGROUPS_SPAN_BUILD && spans_all)
		return PROCGROUPS_NEED_SYSTEM_SPANS;
	return PROCGROUPS_NEED_DEAL;
}

/* The log line of the decision. */
void procgroups_describe_need(enum procgroups_need need, size_t groups,
			      unsigned long build, char *buf, size_t size)
{
	switch (need) {
	case PROCGROUPS_NEED_DEAL:
		if (build >= PROCGROUPS_SPAN_BUILD)
			snprintf(buf, size,
				 "the process's affinity covers part of the "
				 "%zu processor groups: threads dealt over all "
				 "of them",
				 groups);
		else
			snprintf(buf, size,
				 "Windows build %lu keeps a process in one of "
				 "the %zu processor groups: threads dealt over "
				 "all of them",
				 build, groups);
		return;
	case PROCGROUPS_NEED_ONE_GROUP:
		snprintf(buf, size, "one processor group: nothing to deal");
		return;
	case PROCGROUPS_NEED_SYSTEM_SPANS:
		snprintf(buf, size,
			 "Windows build %lu spreads the process over all %zu "
			 "processor groups itself: threads left where it puts "
			 "them",
			 build, groups);
		return;
	}
}

/* The mask of a group's processors 0..processors-1: Windows numbers a
 * group's active processors from 0. */
uint64_t procgroups_mask(unsigned processors)
{
	if (processors >= 64)
		return UINT64_MAX;
	return (UINT64_C(1) << processors) - 1;
}

static unsigned procgroups_popcount(uint64_t mask)
{
	unsigned n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

static size_t procgroups_gcd(size_t a, size_t b)
{
	while (b) {
		size_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* Thread n+1 goes to the group whose lower quota falls due first (the
 * fewest threads n' at which floor(n' * size / total) would pass what it
 * holds), among the groups its upper quota, ceil((n + 1) * size / total),
 * still lets take one more; the lower number on a tie. There always is
 * one: the groups hold n, their upper quotas add up to n + 1 or more.
 * After n threads each
 * group holds floor(n * size / total) or ceil(n * size / total) (a quota
 * method, as in Balinski and Young's apportionment), and once each holds
 * its size the order starts again. */
static void procgroups_deal(struct procgroups_plan *plan, const size_t *sizes,
			    size_t total)
{
	size_t *held = xcalloc(plan->count, sizeof(*held));

	for (size_t n = 0; n < plan->period; n++) {
		unsigned long long best_due = ULLONG_MAX;
		size_t best = 0;

		for (size_t g = 0; g < plan->count; g++) {
			unsigned long long s = sizes[g], c = held[g];
			unsigned long long upper =
				((n + 1) * s + total - 1) / total;
			unsigned long long due = ((c + 1) * total + s - 1) / s;

			if (c + 1 > upper || due >= best_due)
				continue;
			best = g;
			best_due = due;
		}
		held[best]++;
		plan->order[n] = best;
	}
	free(held);
}

/* masks[g]: the processors of group g to deal over (empty: the group is
 * left out). Returns how many groups the plan deals over. */
size_t procgroups_plan_make(const uint64_t *masks, size_t count,
			    struct procgroups_plan *plan)
{
	size_t *sizes, total = 0, common = 0;

	*plan = (struct procgroups_plan){0};
	plan->groups = xcalloc(count ? count : 1, sizeof(*plan->groups));
	sizes = xcalloc(count ? count : 1, sizeof(*sizes));
	for (size_t g = 0; g < count; g++) {
		if (!masks[g])
			continue;
		plan->groups[plan->count] = (struct procgroups_affinity){
			.group = (unsigned short)g,
			.mask = masks[g],
		};
		sizes[plan->count] = procgroups_popcount(masks[g]);
		total += sizes[plan->count];
		common = procgroups_gcd(common, sizes[plan->count]);
		plan->count++;
	}
	if (plan->count) {
		for (size_t g = 0; g < plan->count; g++)
			sizes[g] /= common;
		plan->period = total / common;
		plan->order = xcalloc(plan->period, sizeof(*plan->order));
		procgroups_deal(plan, sizes, plan->period);
	}
	free(sizes);
	return plan->count;
}

/* The group and processors of the slot-th thread; NULL: no groups. */
const struct procgroups_affinity *procgroups_plan_thread(
	const struct procgroups_plan *plan, size_t slot)
{
	if (!plan->count)
		return NULL;
	return &plan->groups[plan->order[slot % plan->period]];
}

void procgroups_plan_free(struct procgroups_plan *plan)
{
	free(plan->groups);
	free(plan->order);
	*plan = (struct procgroups_plan){0};
}
