/* Placement planning on an hwloc topology: CPU kinds for "cores", NUMA
 * nodes, packages or kinds for "spread", always within the CPUs a
 * process's cpuset allows. Pure: no system calls besides hwloc's load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procgroups.h"
#include "log.h"
#include "os.h"
#include "place.h"
#include "util.h"

/* Processors in a Windows processor group, and so in hwloc's numbering
 * of one (its Windows backend). */
#define PLACE_GROUP_SIZE 64

static void place_domains_add(struct place_domains *d, hwloc_const_bitmap_t set)
{
	d->sets = xreallocarray(d->sets, d->count + 1, sizeof(*d->sets));
	d->sets[d->count++] = hwloc_bitmap_dup(set);
}

static void place_domains_free(struct place_domains *d)
{
	for (size_t i = 0; i < d->count; i++)
		hwloc_bitmap_free(d->sets[i]);
	free(d->sets);
	*d = (struct place_domains){0};
}

static void place_domains_of_type(struct place_topology *t,
				  hwloc_obj_type_t type,
				  struct place_domains *d)
{
	int n = hwloc_get_nbobjs_by_type(t->topology, type);

	for (int i = 0; i < n; i++) {
		hwloc_obj_t obj =
			hwloc_get_obj_by_type(t->topology, type, (unsigned)i);

		if (obj->cpuset && !hwloc_bitmap_iszero(obj->cpuset))
			place_domains_add(d, obj->cpuset);
	}
}

/* Kinds ranked lowest first: the last kind is the performance one,
 * every other kind counts as efficiency; one kind (or none): neither. */
static void place_kinds_rank(struct place_topology *t)
{
	hwloc_bitmap_free(t->performance);
	hwloc_bitmap_free(t->efficiency);
	t->performance = t->efficiency = NULL;
	if (t->kind.count < 2)
		return;
	t->performance = hwloc_bitmap_dup(t->kind.sets[t->kind.count - 1]);
	t->efficiency = hwloc_bitmap_alloc();
	for (size_t i = 0; i + 1 < t->kind.count; i++)
		hwloc_bitmap_or(t->efficiency, t->efficiency, t->kind.sets[i]);
}

/* hwloc ranks kinds by efficiency, lowest first. */
static void place_load_kinds(struct place_topology *t)
{
	int n = hwloc_cpukinds_get_nr(t->topology, 0);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	for (int i = 0; n > 1 && i < n; i++) {
		int efficiency;

		if (hwloc_cpukinds_get_info(t->topology, (unsigned)i, set,
					    &efficiency, NULL, NULL, 0) < 0)
			continue;
		place_domains_add(&t->kind, set);
	}
	place_kinds_rank(t);
	hwloc_bitmap_free(set);
}

/* The kinds of the system's own ranking replace hwloc's where it has one
 * (Windows: the CPU Sets' EfficiencyClass, what cores hands over). */
void place_topology_kinds(struct place_topology *t)
{
	size_t count;
	hwloc_bitmap_t *kinds = apply_place_kinds(&count);

	if (!kinds)
		return;
	place_domains_free(&t->kind);
	for (size_t i = 0; i < count; i++) {
		if (count > 1)
			place_domains_add(&t->kind, kinds[i]);
		hwloc_bitmap_free(kinds[i]);
	}
	free(kinds);
	place_kinds_rank(t);
}

/* xml or synthetic name another machine, for tests; both NULL: this one. */
int place_topology_load(struct place_topology *t, const char *xml,
			const char *synthetic)
{
	*t = (struct place_topology){0};
	if (hwloc_topology_init(&t->topology) < 0)
		return -1;
	/* The daemon's own cpuset must not hide the rest of the machine. */
	hwloc_topology_set_flags(t->topology,
				 HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if ((xml && hwloc_topology_set_xml(t->topology, xml) < 0) ||
	    (synthetic &&
	     hwloc_topology_set_synthetic(t->topology, synthetic) < 0) ||
	    hwloc_topology_load(t->topology) < 0) {
		hwloc_topology_destroy(t->topology);
		t->topology = NULL;
		return -1;
	}
	t->all = hwloc_bitmap_dup(
		hwloc_topology_get_complete_cpuset(t->topology));
	place_domains_of_type(t, HWLOC_OBJ_NUMANODE, &t->numa);
	place_domains_of_type(t, HWLOC_OBJ_PACKAGE, &t->package);
	place_load_kinds(t);
	if (!xml && !synthetic && system_native() == RULES_SYSTEM_WINDOWS)
		place_topology_groups(t);
	if (!xml && !synthetic)
		place_topology_kinds(t);
	return 0;
}

/* The processor groups of a Windows machine's topology (this one's, or a
 * test's): every 64 processors of hwloc's numbering, empty ones kept so
 * that a group's place is its number. */
void place_topology_groups(struct place_topology *t)
{
	int last = hwloc_bitmap_last(t->all);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	place_domains_free(&t->groups);
	for (int g = 0; last >= 0 && g <= last / PLACE_GROUP_SIZE; g++) {
		hwloc_bitmap_zero(set);
		hwloc_bitmap_set_range(set, (unsigned)(g * PLACE_GROUP_SIZE),
				       g * PLACE_GROUP_SIZE + PLACE_GROUP_SIZE -
					       1);
		hwloc_bitmap_and(set, set, t->all);
		place_domains_add(&t->groups, set);
	}
	hwloc_bitmap_free(set);
}

void place_topology_free(struct place_topology *t)
{
	if (!t->topology)
		return;
	hwloc_bitmap_free(t->all);
	hwloc_bitmap_free(t->performance);
	hwloc_bitmap_free(t->efficiency);
	place_domains_free(&t->numa);
	place_domains_free(&t->package);
	place_domains_free(&t->kind);
	place_domains_free(&t->groups);
	hwloc_topology_destroy(t->topology);
	*t = (struct place_topology){0};
}

static hwloc_const_bitmap_t place_cores(struct place_topology *t,
					enum rule_cores cores)
{
	switch (cores) {
	case RULE_CORES_PERFORMANCE:
	case RULE_CORES_EFFICIENCY:
		if (!t->performance) {
			if (!t->one_kind_logged)
				log_info("this machine has one kind of CPU: "
					 "cores = \"performance\" and "
					 "\"efficiency\" mean all CPUs");
			t->one_kind_logged = true;
			return t->all;
		}
		return cores == RULE_CORES_PERFORMANCE ? t->performance
						       : t->efficiency;
	case RULE_CORES_UNSET:
	case RULE_CORES_ALL:
		break;
	}
	return t->all;
}

static const struct place_domains *place_spread_domains(
	struct place_topology *t, enum rule_spread spread)
{
	switch (spread) {
	/* Windows builds its processor groups from whole NUMA nodes; Linux
	 * has no groups, and its NUMA nodes are what confines a pool. */
	case RULE_SPREAD_GROUP:
	case RULE_SPREAD_NUMA:
		return &t->numa;
	case RULE_SPREAD_PACKAGE:
		return &t->package;
	case RULE_SPREAD_KIND:
		return &t->kind;
	case RULE_SPREAD_UNSET:
	case RULE_SPREAD_NONE:
		break;
	}
	return NULL;
}

/* spread = "group" on Windows: the base's part of each processor group,
 * threads dealt in proportion to the parts' sizes (a pool of 88 threads
 * on 2 groups of 44 gets 44 in each; on 64 + 24, 8 of every 11 in the
 * first). One group holding the base: nothing to deal. current is where
 * the process runs now: the groups it is in, which only tells whether
 * Windows already spreads it (the base is cut by what it is allowed, not
 * by where it started). */
static void place_plan_groups(const struct place_topology *t,
			      hwloc_const_bitmap_t current,
			      struct place_plan *plan)
{
	uint64_t *masks = xcalloc(t->groups.count, sizeof(*masks));
	unsigned long build = system_build();
	hwloc_bitmap_t all_allowed = hwloc_bitmap_alloc();
	enum procgroups_need need;
	struct procgroups_plan gp;
	char line[160];

	for (size_t g = 0; g < t->groups.count; g++) {
		for (int i = hwloc_bitmap_first(t->groups.sets[g]); i >= 0;
		     i = hwloc_bitmap_next(t->groups.sets[g], i)) {
			if (hwloc_bitmap_isset(plan->base, (unsigned)i))
				masks[g] |= UINT64_C(1)
					    << (i % PLACE_GROUP_SIZE);
		}
	}
	procgroups_plan_make(masks, t->groups.count, &gp);
	/* Windows 11 and Server 2022 spread a process whose affinity
	 * covers every group themselves: its threads are left where
	 * Windows puts them, unless the rule's own CPUs narrow them. */
	hwloc_bitmap_and(all_allowed, current, t->all);
	need = procgroups_need(gp.count, build,
			       hwloc_bitmap_isequal(all_allowed, t->all));
	procgroups_describe_need(need, gp.count, build, line, sizeof(line));
	log_debug("spread = \"group\": %s", line);
	if (need == PROCGROUPS_NEED_SYSTEM_SPANS &&
	    hwloc_bitmap_isequal(plan->base, all_allowed))
		plan->active = false;
	else if (need == PROCGROUPS_NEED_DEAL) {
		for (size_t g = 0; g < gp.count; g++) {
			hwloc_bitmap_t set = hwloc_bitmap_alloc();

			hwloc_bitmap_and(set,
					 t->groups.sets[gp.groups[g].group],
					 plan->base);
			place_domains_add(&plan->domains, set);
			hwloc_bitmap_free(set);
		}
		plan->order = gp.order;
		plan->period = gp.period;
		gp.order = NULL;
	}
	procgroups_plan_free(&gp);
	hwloc_bitmap_free(all_allowed);
	free(masks);
}

/* allowed: the CPUs the process may be given (its cpuset); current:
 * those it runs on now by its own choice (NULL: allowed). */
int place_plan_make(struct place_topology *t, const struct rule_placement *rule,
		    hwloc_const_bitmap_t allowed, hwloc_const_bitmap_t current,
		    struct place_plan *plan, char *why, size_t why_size)
{
	const struct place_domains *spread;

	*plan = (struct place_plan){0};
	if (!rule->cores && !rule->has_cpus && !rule->spread)
		return 0;
	plan->base = hwloc_bitmap_dup(place_cores(t, rule->cores));
	if (rule->has_cpus) {
		hwloc_bitmap_zero(plan->base);
		for (size_t i = 0; i < rule->cpus.count; i++)
			hwloc_bitmap_set_range(plan->base,
					       rule->cpus.ranges[i].first,
					       (int)rule->cpus.ranges[i].last);
	}
	hwloc_bitmap_and(plan->base, plan->base, allowed);
	if (hwloc_bitmap_iszero(plan->base)) {
		snprintf(why, why_size,
			 "none of the rule's CPUs is allowed by the process's "
			 "cpuset");
		place_plan_free(plan);
		return -1;
	}
	if (rule->spread == RULE_SPREAD_GROUP && t->groups.count) {
		plan->active = true;
		place_plan_groups(t, current ? current : allowed, plan);
		if (!plan->active)
			place_plan_free(plan);
		return 0;
	}
	spread = place_spread_domains(t, rule->spread);
	for (size_t i = 0; spread && i < spread->count; i++) {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();

		hwloc_bitmap_and(set, spread->sets[i], plan->base);
		if (!hwloc_bitmap_iszero(set))
			place_domains_add(&plan->domains, set);
		hwloc_bitmap_free(set);
	}
	plan->active = true;
	/* One set for every thread can be the process's default alone. */
	plan->soft = !rules_place_hard(rule) && plan->domains.count <= 1;
	return 0;
}

/* Threads are dealt round-robin over the domains (processor groups in
 * proportion to their sizes), in the order they are first seen; without
 * spread every thread gets the whole base. */
hwloc_const_bitmap_t place_plan_thread(const struct place_plan *plan, int slot)
{
	if (plan->order && plan->domains.count > 1 && slot >= 0)
		return plan->domains
			.sets[plan->order[(size_t)slot % plan->period]];
	if (plan->domains.count > 1 && slot >= 0)
		return plan->domains.sets[(size_t)slot % plan->domains.count];
	return plan->base;
}

void place_plan_free(struct place_plan *plan)
{
	hwloc_bitmap_free(plan->base);
	place_domains_free(&plan->domains);
	free(plan->order);
	*plan = (struct place_plan){0};
}

void place_format(hwloc_const_bitmap_t set, char *buf, size_t size)
{
	if (hwloc_bitmap_list_snprintf(buf, size, set) < 0 && size)
		buf[0] = '\0';
}
