/* Priority targets: what a rule's priority section means, with the class
 * mapping resolved (OS-neutral); the appliers are behind os.h. */
#ifndef CPUPOLICY_PRIO_H
#define CPUPOLICY_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rules.h"

/* What to set; an unset field is left as the thread has it. */
struct prio_target {
	bool set_nice;
	int nice;
	enum rule_policy policy;
	int rt_priority;
	enum rule_io_class io_class;
	int io_level;
};

struct prio_class_map {
	enum rule_class class;
	int nice; /* unused for realtime */
	enum rule_policy policy;
	enum rule_io_class io_class; /* UNSET: left to the kernel */
	const char *windows;
};

/* A thread's priority as the kernel holds it. */
struct prio_state {
	int nice;
	enum rule_policy policy;
	int rt_priority;
	enum rule_io_class io_class; /* UNSET: none set, derived from nice */
	int io_level;
	bool reset_on_fork; /* a flag of the policy, never a rule's */
};

/* A setting of the rule that a thread keeps its own value of, and why. */
#define PRIO_KEPT_MAX 3
struct prio_kept {
	const char *setting; /* "nice", "policy" or "io" */
	char why[160];
};

/* prio.c */
const struct prio_class_map *prio_class(enum rule_class class);
void prio_target_from_rule(const struct rule_priority *rule,
			   struct prio_target *target);
bool prio_target_empty(const struct prio_target *target);
void prio_expected(const struct prio_target *target,
		   const struct prio_state *before, struct prio_state *after);
size_t prio_explain(const struct prio_target *target,
		    const struct prio_state *before,
		    struct prio_kept kept[PRIO_KEPT_MAX]);
bool prio_state_equal(const struct prio_state *a, const struct prio_state *b);
void prio_state_unwind(const struct prio_state *now,
		       const struct prio_state *applied,
		       const struct prio_state *original,
		       struct prio_state *out);
void prio_describe_target(const struct prio_target *target, char *buf,
			  size_t size);
void prio_describe_state(const struct prio_state *state, char *buf,
			 size_t size);

#endif
