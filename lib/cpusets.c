/* Windows CPU sets: the ids a rule's cores or cpus choose, the groups they
 * are in, and which call hands them to Windows (cpusets.h). Pure: the
 * entries come from the backend or a test. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpusets.h"
#include "util.h"

/* For cpus, logical processors are numbered across the groups: group 0's
 * first, then group 1's, and so on, each group taking as many numbers as
 * its highest processor index + 1 (on two groups of 44, "44-87" is all of
 * group 1; on 64 + 24, "64-87"). offsets[g] is group g's first number,
 * offsets[groups] the count of all. */
static size_t *cpusets_offsets(const struct cpusets_entry *entries,
			       size_t count, size_t *groups)
{
	size_t *offsets;

	*groups = 0;
	for (size_t i = 0; i < count; i++) {
		if ((size_t)entries[i].group + 1 > *groups)
			*groups = (size_t)entries[i].group + 1;
	}
	offsets = xcalloc(*groups + 1, sizeof(*offsets));
	for (size_t i = 0; i < count; i++) {
		size_t *width = &offsets[entries[i].group + 1];

		if ((size_t)entries[i].processor + 1 > *width)
			*width = (size_t)entries[i].processor + 1;
	}
	for (size_t g = 1; g <= *groups; g++)
		offsets[g] += offsets[g - 1];
	return offsets;
}

/* The number cpus knows entries[index] by. */
size_t cpusets_number(const struct cpusets_entry *entries, size_t count,
		      size_t index)
{
	size_t groups, *offsets = cpusets_offsets(entries, count, &groups);
	size_t number =
		offsets[entries[index].group] + entries[index].processor;

	free(offsets);
	return number;
}

static bool cpusets_in_list(const struct cpulist *list, size_t cpu)
{
	for (size_t i = 0; i < list->count; i++) {
		if (cpu >= list->ranges[i].first && cpu <= list->ranges[i].last)
			return true;
	}
	return false;
}

/* The kinds as on Linux (place.c): performance the fastest class present,
 * efficiency every slower one; with one class, both mean all. */
static bool cpusets_is_chosen(const struct rule_placement *rule,
			      const struct cpusets_entry *e, size_t number,
			      unsigned char top, unsigned char low)
{
	if (rule->has_cpus)
		return cpusets_in_list(&rule->cpus, number);
	switch (rule->cores) {
	case RULE_CORES_PERFORMANCE:
		return e->efficiency == top;
	case RULE_CORES_EFFICIENCY:
		return e->efficiency < top || low == top;
	case RULE_CORES_UNSET:
	case RULE_CORES_ALL:
		break;
	}
	return true;
}

/* The group holding most of the chosen processors, the lower on a tie. */
static size_t cpusets_largest(const struct cpusets_plan *plan)
{
	size_t best = 0, best_count = 0;

	for (size_t m = 0; m < plan->mask_count; m++) {
		size_t n = 0;

		for (uint64_t mask = plan->masks[m].mask; mask;
		     mask &= mask - 1)
			n++;
		if (n > best_count) {
			best = m;
			best_count = n;
		}
	}
	return best;
}

/* Before GROUPS_SPAN_BUILD a process's threads run in one group each, and
 * SetProcessDefaultCpuSetMasks does not exist: a choice over several
 * groups keeps only its largest group, unless spread = "group" deals the
 * threads over all of them (then each thread's group affinity carries its
 * group's part, and no CPU set is needed). */
static void cpusets_decide(struct cpusets_plan *plan,
			   const struct cpusets_entry *entries, size_t count,
			   const struct rule_placement *rule,
			   unsigned long build)
{
	struct groups_affinity keep;
	size_t kept = 0;

	plan->spans_groups = plan->mask_count > 1;
	if (!rule->cores && !rule->has_cpus)
		plan->call = CPUSETS_CALL_NONE;
	else if (!plan->spans_groups)
		plan->call = CPUSETS_CALL_IDS;
	else if (build >= GROUPS_SPAN_BUILD)
		plan->call = CPUSETS_CALL_MASKS;
	else if (rule->spread == RULE_SPREAD_GROUP)
		plan->call = CPUSETS_CALL_THREADS;
	else
		plan->call = CPUSETS_CALL_IDS;
	if (plan->call != CPUSETS_CALL_IDS || !plan->spans_groups)
		return;
	keep = plan->masks[cpusets_largest(plan)];
	/* The ids are the chosen entries' in the entries' order. */
	for (size_t i = 0, k = 0; i < count && k < plan->count; i++) {
		if (entries[i].id != plan->ids[k])
			continue;
		if (entries[i].group == keep.group)
			plan->ids[kept++] = plan->ids[k];
		k++;
	}
	plan->count = kept;
	plan->masks[0] = keep;
	plan->mask_count = 1;
	plan->limited = true;
}

static void cpusets_collect_masks(struct cpusets_plan *plan,
				  const uint64_t *masks, size_t groups)
{
	plan->masks = xcalloc(groups ? groups : 1, sizeof(*plan->masks));
	for (size_t g = 0; g < groups; g++) {
		if (!masks[g])
			continue;
		plan->masks[plan->mask_count++] = (struct groups_affinity){
			.group = (unsigned short)g,
			.mask = masks[g],
		};
	}
}

/* The chosen entries' ids into plan->ids, their processors into masks. */
static void cpusets_choose(struct cpusets_plan *plan,
			   const struct cpusets_entry *entries, size_t count,
			   const struct rule_placement *rule,
			   const size_t *offsets, uint64_t *masks)
{
	unsigned char top = 0, low = UCHAR_MAX;

	for (size_t i = 0; i < count; i++) {
		top = entries[i].efficiency > top ? entries[i].efficiency : top;
		low = entries[i].efficiency < low ? entries[i].efficiency : low;
	}
	plan->one_kind = count && top == low;
	plan->ids = xcalloc(count ? count : 1, sizeof(*plan->ids));
	for (size_t i = 0; i < count; i++) {
		const struct cpusets_entry *e = &entries[i];
		size_t number = offsets[e->group] + e->processor;

		/* A group has 64 processors at most (KAFFINITY). */
		if (e->processor >= 64 ||
		    !cpusets_is_chosen(rule, e, number, top, low))
			continue;
		plan->ids[plan->count++] = e->id;
		masks[e->group] |= UINT64_C(1) << e->processor;
	}
}

/* The CPU sets of the rule's cores or cpus (all without either), and how
 * to set them on a system of the given build. -1 with why: none. */
int cpusets_plan_make(const struct cpusets_entry *entries, size_t count,
		      const struct rule_placement *rule, unsigned long build,
		      struct cpusets_plan *plan, char *why, size_t why_size)
{
	size_t groups, *offsets = cpusets_offsets(entries, count, &groups);
	uint64_t *masks = xcalloc(groups ? groups : 1, sizeof(*masks));
	int status = 0;

	*plan = (struct cpusets_plan){0};
	cpusets_choose(plan, entries, count, rule, offsets, masks);
	if (!count) {
		snprintf(why, why_size,
			 "none of the rule's CPUs is on this machine: it lists "
			 "no CPU sets");
		status = -1;
	} else if (!plan->count) {
		snprintf(why, why_size,
			 "none of the rule's CPUs is on this machine (logical "
			 "processors 0-%zu, numbered across %zu processor "
			 "groups)",
			 offsets[groups] - 1, groups);
		status = -1;
	}
	if (status == 0) {
		cpusets_collect_masks(plan, masks, groups);
		cpusets_decide(plan, entries, count, rule, build);
	} else {
		cpusets_plan_free(plan);
	}
	free(offsets);
	free(masks);
	return status;
}

void cpusets_plan_free(struct cpusets_plan *plan)
{
	free(plan->ids);
	free(plan->masks);
	*plan = (struct cpusets_plan){0};
}
