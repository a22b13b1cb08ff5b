/* Windows processor groups: whether a process's threads need dealing over
 * the groups, and which group (with which processors of it) each thread
 * gets, in proportion to the groups' sizes. Pure and OS-neutral: the
 * backend reads the groups and sets each thread's GROUP_AFFINITY. */
#ifndef CPUPOLICY_PROCGROUPS_H
#define CPUPOLICY_PROCGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A GROUP_AFFINITY: a group's number and processors in it, bit n for its
 * logical processor n (KAFFINITY, 64 processors at most). */
struct procgroups_affinity {
	unsigned short group;
	uint64_t mask;
};

/* Windows Server 2022 (build 20348) and Windows 11 (22000) and later give
 * a process an affinity over every group by default. */
#define PROCGROUPS_SPAN_BUILD 20348ul

enum procgroups_need {
	PROCGROUPS_NEED_DEAL,	      /* deal the threads over the groups */
	PROCGROUPS_NEED_ONE_GROUP,    /* one group: nothing to deal */
	PROCGROUPS_NEED_SYSTEM_SPANS, /* Windows spreads the process itself */
};

/* The groups dealt over, and the order their turns come in: slot s (the
 * s-th thread, 0 first) gets groups[order[s % period]]. */
struct procgroups_plan {
	struct procgroups_affinity *groups;
	size_t count;
	size_t *order;
	size_t period;
};

/* procgroups.c */
enum procgroups_need procgroups_need(size_t groups, unsigned long build,
				     bool spans_all);
void procgroups_describe_need(enum procgroups_need need, size_t groups,
			      unsigned long build, char *buf, size_t size);
uint64_t procgroups_mask(unsigned processors);
size_t procgroups_plan_make(const uint64_t *masks, size_t count,
			    struct procgroups_plan *plan);
const struct procgroups_affinity *procgroups_plan_thread(
	const struct procgroups_plan *plan, size_t slot);
void procgroups_plan_free(struct procgroups_plan *plan);

#endif
