/* Placement: which CPUs a matched process's threads get. The topology
 * (NUMA nodes, packages, CPU kinds) comes from hwloc; planning is pure and
 * OS-neutral; the appliers are behind os.h. */
#ifndef CPUPOLICY_PLACE_H
#define CPUPOLICY_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "rules.h"

struct place_domains {
	hwloc_bitmap_t *sets;
	size_t count;
};

struct place_topology {
	hwloc_topology_t topology;
	hwloc_bitmap_t all;	    /* every CPU of the machine */
	hwloc_bitmap_t performance; /* NULL: one kind of CPU */
	hwloc_bitmap_t efficiency;
	struct place_domains numa, package, kind;
	/* Windows processor groups, by number: hwloc numbers group g's
	 * processor n as g * 64 + n (empty on Linux: spread = "group"
	 * deals over NUMA nodes there). */
	struct place_domains groups;
	bool one_kind_logged;
};

/* A process's plan: the CPUs the rule gives it within what its cpuset
 * allows, and for spread the domains its threads are dealt over. */
struct place_plan {
	bool active;
	hwloc_bitmap_t base;
	struct place_domains domains;
	/* Processor groups: slot s gets domains[order[s % period]], the
	 * groups in proportion to their sizes (procgroups.c). */
	size_t *order, period;
	/* A preference, not a limit: where the system has one (Windows CPU
	 * Sets), the process's default set alone, its threads' affinities
	 * untouched; elsewhere each thread's affinity. Never with spread =
	 * "group", which moves threads between groups by their affinity. */
	bool soft;
};

/* place.c */
int place_topology_load(struct place_topology *t, const char *xml,
			const char *synthetic);
void place_topology_free(struct place_topology *t);
void place_topology_groups(struct place_topology *t);
void place_topology_kinds(struct place_topology *t);
int place_plan_make(struct place_topology *t, const struct rule_placement *rule,
		    hwloc_const_bitmap_t allowed, hwloc_const_bitmap_t current,
		    struct place_plan *plan, char *why, size_t why_size);
hwloc_const_bitmap_t place_plan_thread(const struct place_plan *plan, int slot);
void place_plan_free(struct place_plan *plan);
void place_format(hwloc_const_bitmap_t set, char *buf, size_t size);

#endif
