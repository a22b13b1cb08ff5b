/* Windows CPU sets: which CPU set ids a rule's cores or cpus choose among
 * the machine's, and how the backend hands them to Windows. Pure and
 * OS-neutral: the backend lists the entries (GetSystemCpuSetInformation),
 * the tests make them up. */
#ifndef CPUPOLICY_CPUSETS_H
#define CPUPOLICY_CPUSETS_H

#include <stdbool.h>
#include <stddef.h>

#include "groups.h"
#include "rules.h"

/* What placement needs of a SYSTEM_CPU_SET_INFORMATION's CpuSet. */
struct cpusets_entry {
	unsigned long id;	  /* Id */
	unsigned short group;	  /* Group */
	unsigned char processor;  /* LogicalProcessorIndex, within the group */
	unsigned char core;	  /* CoreIndex */
	unsigned char node;	  /* NumaNodeIndex */
	unsigned char efficiency; /* EfficiencyClass: a higher one is faster */
};

/* How the plan reaches Windows. */
enum cpusets_call {
	CPUSETS_CALL_NONE,    /* the rule chooses no CPUs (spread alone) */
	CPUSETS_CALL_IDS,     /* SetProcessDefaultCpuSets(ids): one group */
	CPUSETS_CALL_MASKS,   /* SetProcessDefaultCpuSetMasks(masks): the
				 groups' masks, from GROUPS_SPAN_BUILD on */
	CPUSETS_CALL_THREADS, /* before it, with spread = "group": no CPU set;
				 each thread gets its group's mask by
				 SetThreadGroupAffinity, from a groups_plan
				 made of the masks */
};

struct cpusets_plan {
	enum cpusets_call call;
	unsigned long *ids; /* the chosen CPU sets, in the entries' order */
	size_t count;
	/* The chosen processors of each group holding any, by group number;
	 * with CPUSETS_CALL_NONE every processor of every group. */
	struct groups_affinity *masks;
	size_t mask_count;
	bool spans_groups; /* the rule's choice is in more than one group */
	bool limited;	   /* cut to the one group masks[0] names */
	bool one_kind;	   /* one EfficiencyClass: cores means all */
};

/* cpusets.c */
size_t cpusets_number(const struct cpusets_entry *entries, size_t count,
		      size_t index);
int cpusets_plan_make(const struct cpusets_entry *entries, size_t count,
		      const struct rule_placement *rule, unsigned long build,
		      struct cpusets_plan *plan, char *why, size_t why_size);
void cpusets_plan_free(struct cpusets_plan *plan);

#endif
