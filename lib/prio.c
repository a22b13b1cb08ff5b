/* Priority targets: what a rule's priority section means, with the class
 * mapping resolved. OS-neutral: the applier maps it to system calls. */
#include <stdio.h>
#include <string.h>

#include "prio.h"
#include "util.h"

/* The one mapping, documented in cpupolicy.rules(5) and the README. */
static const struct prio_class_map prio_classes[] = {
	{RULE_CLASS_IDLE, 19, RULE_POLICY_IDLE, RULE_IO_CLASS_IDLE,
	 "IDLE_PRIORITY_CLASS"},
	{RULE_CLASS_BELOW_NORMAL, 10, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "BELOW_NORMAL_PRIORITY_CLASS"},
	{RULE_CLASS_NORMAL, 0, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "NORMAL_PRIORITY_CLASS"},
	{RULE_CLASS_ABOVE_NORMAL, -5, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "ABOVE_NORMAL_PRIORITY_CLASS"},
	{RULE_CLASS_HIGH, -10, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "HIGH_PRIORITY_CLASS"},
	{RULE_CLASS_REALTIME, 0, RULE_POLICY_RR, RULE_IO_CLASS_UNSET,
	 "REALTIME_PRIORITY_CLASS"},
};

const struct prio_class_map *prio_class(enum rule_class class)
{
	for (size_t i = 0; i < ARRAY_SIZE(prio_classes); i++) {
		if (prio_classes[i].class == class)
			return &prio_classes[i];
	}
	return NULL;
}

void prio_target_from_rule(const struct rule_priority *rule,
			   struct prio_target *target)
{
	const struct prio_class_map *map = prio_class(rule->class);

	*target = (struct prio_target){.io_level = -1};
	if (map) {
		target->policy = map->policy;
		target->set_nice = map->policy != RULE_POLICY_RR;
		target->nice = map->nice;
		target->io_class = map->io_class;
	}
	if (rule->has_nice) {
		target->set_nice = true;
		target->nice = rule->nice;
	}
	if (rule->policy)
		target->policy = rule->policy;
	if (target->policy == RULE_POLICY_FIFO ||
	    target->policy == RULE_POLICY_RR)
		target->rt_priority = rule->rt_priority ? rule->rt_priority : 1;
	if (rule->io_class)
		target->io_class = rule->io_class;
	if (rule->io_level >= 0 && !rule->io_class)
		target->io_class = RULE_IO_CLASS_BEST_EFFORT;
	if (target->io_class == RULE_IO_CLASS_IDLE)
		target->io_level = 0;
	else if (target->io_class)
		target->io_level = rule->io_level >= 0 ? rule->io_level : 4;
}

bool prio_target_empty(const struct prio_target *target)
{
	return !target->set_nice && !target->policy && !target->io_class;
}

void prio_expected(const struct prio_target *target,
		   const struct prio_state *before, struct prio_state *after)
{
	*after = *before;
	if (target->set_nice)
		after->nice = target->nice;
	if (target->policy) {
		after->policy = target->policy;
		after->rt_priority = target->rt_priority;
	}
	if (target->io_class) {
		after->io_class = target->io_class;
		after->io_level = target->io_level;
	}
}

bool prio_state_equal(const struct prio_state *a, const struct prio_state *b)
{
	return a->nice == b->nice && a->policy == b->policy &&
	       a->rt_priority == b->rt_priority && a->io_class == b->io_class &&
	       (a->io_class == RULE_IO_CLASS_UNSET ||
		a->io_level == b->io_level);
}

static void prio_describe(char *buf, size_t size, bool nice_known, int nice,
			  enum rule_policy policy, int rt_priority,
			  enum rule_io_class io_class, int io_level)
{
	size_t used = 0;
	int n;

	buf[0] = '\0';
	if (policy == RULE_POLICY_FIFO || policy == RULE_POLICY_RR)
		n = snprintf(buf, size, "%s %d",
			     rules_enum_name(RULES_ENUM_POLICY, (int)policy),
			     rt_priority);
	else if (policy && nice_known)
		n = snprintf(buf, size, "nice %d %s", nice,
			     rules_enum_name(RULES_ENUM_POLICY, (int)policy));
	else if (policy)
		n = snprintf(buf, size, "%s",
			     rules_enum_name(RULES_ENUM_POLICY, (int)policy));
	else if (nice_known)
		n = snprintf(buf, size, "nice %d", nice);
	else
		n = 0;
	used = n > 0 ? (size_t)n : 0;
	if (used >= size)
		return;
	if (io_class == RULE_IO_CLASS_IDLE)
		snprintf(buf + used, size - used, "%sio idle",
			 used ? ", " : "");
	else if (io_class)
		snprintf(buf + used, size - used, "%sio %s/%d",
			 used ? ", " : "",
			 rules_enum_name(RULES_ENUM_IO_CLASS, (int)io_class),
			 io_level);
}

void prio_describe_target(const struct prio_target *t, char *buf, size_t size)
{
	prio_describe(buf, size, t->set_nice, t->nice, t->policy,
		      t->rt_priority, t->io_class, t->io_level);
}

void prio_describe_state(const struct prio_state *s, char *buf, size_t size)
{
	prio_describe(buf, size, true, s->nice, s->policy, s->rt_priority,
		      s->io_class, s->io_level);
	if (!s->io_class) {
		size_t used = strlen(buf);

		snprintf(buf + used, size - used, ", io from nice");
	}
}

/* What a thread would hold had nobody applied "applied" over "original":
 * each setting still at the applied value goes back to the original one,
 * each setting the thread (or someone) changed since stays as it is now.
 * Also what a child inherited: it forked with the applied values. */
void prio_state_unwind(const struct prio_state *now,
		       const struct prio_state *applied,
		       const struct prio_state *original,
		       struct prio_state *out)
{
	*out = *now;
	if (now->nice == applied->nice)
		out->nice = original->nice;
	if (now->policy == applied->policy &&
	    now->rt_priority == applied->rt_priority) {
		out->policy = original->policy;
		out->rt_priority = original->rt_priority;
	}
	if (now->io_class == applied->io_class &&
	    (now->io_class == RULE_IO_CLASS_UNSET ||
	     now->io_level == applied->io_level)) {
		out->io_class = original->io_class;
		out->io_level = original->io_level;
	}
}
