/* Priority targets: what a rule's priority section means, with the class
 * mapping resolved. OS-neutral: the applier maps it to system calls. */
#include <stdio.h>
#include <string.h>

#include "prio.h"
#include "util.h"

/* The one mapping, documented in cpupolicy.rules(5), Priority classes. */
static const struct prio_class_map prio_classes[] = {
	{RULE_CLASS_IDLE, 19, RULE_POLICY_IDLE, RULE_IO_CLASS_IDLE,
	 "IDLE_PRIORITY_CLASS", false},
	{RULE_CLASS_BELOW_NORMAL, 10, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "BELOW_NORMAL_PRIORITY_CLASS", false},
	{RULE_CLASS_NORMAL, 0, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "NORMAL_PRIORITY_CLASS", false},
	{RULE_CLASS_ABOVE_NORMAL, -5, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "ABOVE_NORMAL_PRIORITY_CLASS", false},
	{RULE_CLASS_HIGH, -10, RULE_POLICY_OTHER, RULE_IO_CLASS_UNSET,
	 "HIGH_PRIORITY_CLASS", false},
	{RULE_CLASS_REALTIME, 0, RULE_POLICY_RR, RULE_IO_CLASS_UNSET,
	 "REALTIME_PRIORITY_CLASS", true},
};

/* Two nice steps per Windows level. A Windows class is two levels above
 * the one below it, a Linux class five nice steps (normal 0, above-normal
 * -5): a level is about two and a half, rounded down so that a thread key
 * never moves a thread past the next class, up or down. idle and
 * time-critical go to
 * the ends of the range whatever the class, as on Windows (base priority
 * 1 and 15, 16 and 31 in the realtime class). */
static const struct prio_thread_map prio_threads[] = {
	{RULE_THREAD_IDLE, 39, -15, "THREAD_PRIORITY_IDLE"},
	{RULE_THREAD_LOWEST, 4, -2, "THREAD_PRIORITY_LOWEST"},
	{RULE_THREAD_BELOW_NORMAL, 2, -1, "THREAD_PRIORITY_BELOW_NORMAL"},
	{RULE_THREAD_NORMAL, 0, 0, "THREAD_PRIORITY_NORMAL"},
	{RULE_THREAD_ABOVE_NORMAL, -2, 1, "THREAD_PRIORITY_ABOVE_NORMAL"},
	{RULE_THREAD_HIGHEST, -4, 2, "THREAD_PRIORITY_HIGHEST"},
	{RULE_THREAD_TIME_CRITICAL, -39, 15, "THREAD_PRIORITY_TIME_CRITICAL"},
};

/* The io keys on Windows, by NtSetInformationProcess(ProcessIoPriority):
 * idle is IoPriorityVeryLow (0), best-effort 5 to 7 IoPriorityLow (1),
 * best-effort 0 to 4 (4 is Linux's default) IoPriorityNormal (2, every
 * process's own), realtime IoPriorityHigh (3). IoPriorityCritical (4) is
 * the memory manager's: read back as realtime, never set. */
static const struct prio_io_hint_map prio_io_hints[] = {
	{RULE_IO_CLASS_IDLE, 0, 7, 0, 0, "IoPriorityVeryLow"},
	{RULE_IO_CLASS_BEST_EFFORT, 5, 7, 7, 1, "IoPriorityLow"},
	{RULE_IO_CLASS_BEST_EFFORT, 0, 4, 4, 2, "IoPriorityNormal"},
	{RULE_IO_CLASS_REALTIME, 0, 7, 4, 3, "IoPriorityHigh"},
	{RULE_IO_CLASS_REALTIME, 0, 7, 4, 4, "IoPriorityCritical"},
};

/* The hint a class and level ask for; -1 for none. */
int prio_io_hint(enum rule_io_class class, int level)
{
	for (size_t i = 0; i < ARRAY_SIZE(prio_io_hints); i++) {
		const struct prio_io_hint_map *h = &prio_io_hints[i];

		if (h->class == class && level >= h->level_min &&
		    level <= h->level_max)
			return h->windows;
	}
	return -1;
}

/* false for a hint no Windows has (the class stays as it was). */
bool prio_io_of_hint(int hint, enum rule_io_class *class, int *level)
{
	for (size_t i = 0; i < ARRAY_SIZE(prio_io_hints); i++) {
		if (prio_io_hints[i].windows == hint) {
			*class = prio_io_hints[i].class;
			*level = prio_io_hints[i].level;
			return true;
		}
	}
	return false;
}

const struct prio_class_map *prio_class(enum rule_class class)
{
	for (size_t i = 0; i < ARRAY_SIZE(prio_classes); i++) {
		if (prio_classes[i].class == class)
			return &prio_classes[i];
	}
	return NULL;
}

const struct prio_thread_map *prio_thread(enum rule_thread thread)
{
	for (size_t i = 0; i < ARRAY_SIZE(prio_threads); i++) {
		if (prio_threads[i].thread == thread)
			return &prio_threads[i];
	}
	return NULL;
}

/* Linux: the thread level moves the nice the rule sets (its class's or
 * its own), or normal's 0 when it sets none. The realtime policies have
 * no nice to move. */
static void prio_target_thread(const struct prio_thread_map *map,
			       struct prio_target *target)
{
	int nice = target->set_nice ? target->nice : 0;

	target->thread = map->thread;
	if (target->policy == RULE_POLICY_FIFO ||
	    target->policy == RULE_POLICY_RR)
		return;
	nice += map->nice_offset;
	target->set_nice = true;
	target->nice = nice < -20 ? -20 : nice > 19 ? 19 : nice;
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
	if (prio_thread(rule->thread))
		prio_target_thread(prio_thread(rule->thread), target);
	target->efficiency = rule->efficiency_mode;
	if (rule->io_class)
		target->io_class = rule->io_class;
	if (rule->io_level >= 0 && !rule->io_class)
		target->io_class = RULE_IO_CLASS_BEST_EFFORT;
	if (target->io_class == RULE_IO_CLASS_IDLE)
		target->io_level = 0;
	else if (target->io_class)
		target->io_level = rule->io_level >= 0 ? rule->io_level : 4;
}

/* The class a Windows state stands for: the realtime policies are the
 * realtime class, the idle policy the idle class, and nice the class
 * nearest to it (halfway between two classes' nice goes to the lower). */
enum rule_class prio_class_of_state(const struct prio_state *state)
{
	static const enum rule_class order[] = {
		RULE_CLASS_HIGH,   RULE_CLASS_ABOVE_NORMAL,
		RULE_CLASS_NORMAL, RULE_CLASS_BELOW_NORMAL,
		RULE_CLASS_IDLE,
	};
	enum rule_class best = RULE_CLASS_NORMAL;
	int best_distance = 1000;

	if (state->policy == RULE_POLICY_FIFO ||
	    state->policy == RULE_POLICY_RR)
		return RULE_CLASS_REALTIME;
	if (state->policy == RULE_POLICY_IDLE)
		return RULE_CLASS_IDLE;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		int d = state->nice - prio_class(order[i])->nice;

		if (d < 0)
			d = -d;
		if (d <= best_distance) {
			best = order[i];
			best_distance = d;
		}
	}
	return best;
}

/* A Windows class as nice and policy, the inverse of
 * prio_class_of_state: the class's own values of the one mapping. */
void prio_state_of_class(enum rule_class class, struct prio_state *state)
{
	const struct prio_class_map *map = prio_class(class);

	if (!map)
		map = prio_class(RULE_CLASS_NORMAL);
	state->policy = map->policy;
	state->nice = map->policy == RULE_POLICY_RR ? 0 : map->nice;
	state->rt_priority = map->policy == RULE_POLICY_RR ? 1 : 0;
	state->io_class = RULE_IO_CLASS_UNSET;
	state->io_level = 0;
	state->reset_on_fork = false;
}

/* Windows: the io keys as the hint they ask for reads back, so that a
 * process's state and the rule's compare (best-effort 6 and 7 are both
 * IoPriorityLow). No class implies an I/O priority there. */
static void prio_target_windows_io(const struct rule_priority *rule,
				   struct prio_target *target)
{
	enum rule_io_class class =
		rule->io_class ? rule->io_class : RULE_IO_CLASS_BEST_EFFORT;
	int level = rule->io_level >= 0 ? rule->io_level : 4;

	if (!rule->io_class && rule->io_level < 0)
		return;
	if (class == RULE_IO_CLASS_IDLE)
		level = 0;
	prio_io_of_hint(prio_io_hint(class, level), &target->io_class,
			&target->io_level);
}

/* The target for the system it is applied on. On Windows only the class,
 * the thread level, the efficiency mode, the I/O and the memory priority
 * apply (check warns of nice, policy and rt_priority there): the class's
 * nice and policy stand for it, and the thread level stays apart from
 * nice. */
void prio_target_for_system(const struct rule_priority *rule,
			    enum rules_system system,
			    struct prio_target *target)
{
	struct prio_state cls;

	if (system != RULES_SYSTEM_WINDOWS) {
		prio_target_from_rule(rule, target);
		return;
	}
	*target = (struct prio_target){.io_level = -1, .windows = true};
	if (rule->class) {
		prio_state_of_class(rule->class, &cls);
		target->policy = cls.policy;
		target->set_nice = cls.policy != RULE_POLICY_RR;
		target->nice = cls.nice;
		target->rt_priority = cls.rt_priority;
	}
	target->thread = rule->thread;
	target->efficiency = rule->efficiency_mode;
	target->memory = rule->memory_priority;
	prio_target_windows_io(rule, target);
}

/* Nothing to set on a thread. On Linux the efficiency mode is not
 * applied; on Windows it is the process's, set with its threads. */
bool prio_target_empty(const struct prio_target *target)
{
	return !target->set_nice && !target->policy && !target->io_class &&
	       !target->thread &&
	       !(target->windows && (target->efficiency || target->memory));
}

/* Ranks order each setting by priority, a larger rank the higher one.
 * Policies: idle < batch < other < fifo and rr, the realtime two by their
 * rt priority alone (the policy only orders threads of equal priority). */
#define PRIO_RANK_OTHER 2

static int prio_policy_rank(enum rule_policy policy, int rt_priority)
{
	switch (policy) {
	case RULE_POLICY_IDLE:
		return 0;
	case RULE_POLICY_BATCH:
		return 1;
	case RULE_POLICY_UNSET:
	case RULE_POLICY_OTHER:
		break;
	case RULE_POLICY_FIFO:
	case RULE_POLICY_RR:
		return PRIO_RANK_OTHER + rt_priority;
	}
	return PRIO_RANK_OTHER;
}

/* I/O: idle < best-effort 7..0 < realtime 7..0. */
static int prio_io_rank(enum rule_io_class class, int level)
{
	switch (class) {
	case RULE_IO_CLASS_IDLE:
		return 0;
	case RULE_IO_CLASS_UNSET:
	case RULE_IO_CLASS_BEST_EFFORT:
		break;
	case RULE_IO_CLASS_REALTIME:
		return 16 - level;
	}
	return 8 - level;
}

/* The I/O priority in force. With none set the kernel derives one: the
 * class from the policy, the level from nice (ioprio_set(2)). */
static void prio_io_in_force(const struct prio_state *s,
			     enum rule_io_class *class, int *level)
{
	*class = s->io_class;
	*level = s->io_level;
	if (s->io_class)
		return;
	*level = (s->nice + 20) / 5;
	switch (s->policy) {
	case RULE_POLICY_IDLE:
		*class = RULE_IO_CLASS_IDLE;
		*level = 0;
		break;
	case RULE_POLICY_FIFO:
	case RULE_POLICY_RR:
		*class = RULE_IO_CLASS_REALTIME;
		break;
	case RULE_POLICY_UNSET:
	case RULE_POLICY_OTHER:
	case RULE_POLICY_BATCH:
		*class = RULE_IO_CLASS_BEST_EFFORT;
		break;
	}
}

/* A rule's direction, per setting, against the default (nice 0, other,
 * best-effort 4): a value above it raises; the default itself and below
 * lower, so that a rule at the default (class normal) never raises what
 * a user lowered. Policy other goes the way of the rule's nice: with a
 * negative nice (above-normal, high) it lifts idle and batch threads. */
static bool prio_raises_nice(const struct prio_target *t)
{
	return t->nice < 0;
}

static bool prio_raises_policy(const struct prio_target *t)
{
	if (t->policy == RULE_POLICY_OTHER)
		return t->set_nice && prio_raises_nice(t);
	return prio_policy_rank(t->policy, t->rt_priority) > PRIO_RANK_OTHER;
}

static bool prio_raises_io(const struct prio_target *t)
{
	return prio_io_rank(t->io_class, t->io_level) >
	       prio_io_rank(RULE_IO_CLASS_BEST_EFFORT, 4);
}

/* The thread keeps its own value where it is already past the rule's in
 * the rule's direction; equal or short of it, it gets the rule's. */
static bool prio_beyond(int thread, int rule, bool raises)
{
	return raises ? thread > rule : thread < rule;
}

static bool prio_keeps_nice(const struct prio_target *t,
			    const struct prio_state *s)
{
	return t->set_nice &&
	       prio_beyond(-s->nice, -t->nice, prio_raises_nice(t));
}

static bool prio_keeps_policy(const struct prio_target *t,
			      const struct prio_state *s)
{
	return t->policy &&
	       prio_beyond(prio_policy_rank(s->policy, s->rt_priority),
			   prio_policy_rank(t->policy, t->rt_priority),
			   prio_raises_policy(t));
}

static bool prio_keeps_io(const struct prio_target *t,
			  const struct prio_state *s)
{
	enum rule_io_class class;
	int level;

	prio_io_in_force(s, &class, &level);
	return t->io_class &&
	       prio_beyond(prio_io_rank(class, level),
			   prio_io_rank(t->io_class, t->io_level),
			   prio_raises_io(t));
}

/* The rule's values laid over the thread's original ones, each setting
 * only in the rule's direction (cpupolicy.rules(5), "Directions"). */
void prio_expected(const struct prio_target *target,
		   const struct prio_state *before, struct prio_state *after)
{
	*after = *before;
	if (target->set_nice && !prio_keeps_nice(target, before))
		after->nice = target->nice;
	if (target->policy && !prio_keeps_policy(target, before)) {
		after->policy = target->policy;
		after->rt_priority = target->rt_priority;
	}
	/* On Windows an I/O priority that cannot be read is not set: it
	 * could not be given back. */
	if (target->io_class && (!target->windows || before->io_class) &&
	    !prio_keeps_io(target, before)) {
		after->io_class = target->io_class;
		after->io_level = target->io_level;
	}
	if (target->windows && target->thread)
		after->thread_level =
			prio_thread_expected(target, before->thread_level);
	if (target->windows && target->efficiency)
		after->efficiency = prio_efficiency_expected(
			target->efficiency, before->efficiency);
	/* Every memory priority is normal (the default) or below: a rule
	 * lowers, and never raises a process lowered further. */
	if (target->windows && target->memory && before->memory &&
	    !prio_beyond((int)before->memory, (int)target->memory, false))
		after->memory = target->memory;
}

/* Windows before 11 22H2 cannot read a process's EcoQoS
 * (GetProcessInformation fails, apply_prio.c): where the rule sets it,
 * the original is the OS default, no throttling state (system), so that
 * it is given back as such instead of never. */
void prio_original_default(struct prio_state *original,
			   const struct prio_target *target)
{
	if (target->windows && target->efficiency && !original->efficiency)
		original->efficiency = RULE_EFFICIENCY_SYSTEM;
}

/* Windows: what one thread holds of its process's own values (the class,
 * EcoQoS, I/O and memory priority), which every thread shares. */
void prio_state_take_process(struct prio_state *to,
			     const struct prio_state *from)
{
	to->nice = from->nice;
	to->policy = from->policy;
	to->rt_priority = from->rt_priority;
	to->efficiency = from->efficiency;
	to->io_class = from->io_class;
	to->io_level = from->io_level;
	to->memory = from->memory;
}

/* Windows, per thread: the level SetThreadPriority gets over the thread's
 * own one (a THREAD_PRIORITY_* value), in the rule's direction as nice
 * is on Linux: above normal raises, normal and below lower. */
int prio_thread_expected(const struct prio_target *target, int before)
{
	const struct prio_thread_map *map = prio_thread(target->thread);

	if (!map || prio_beyond(before, map->windows, map->windows > 0))
		return before;
	return map->windows;
}

/* Windows, per process: PROCESS_POWER_THROTTLING_STATE's masks. off opts
 * out of EcoQoS (the control bit set, its state clear: full speed at
 * normal priority, the 24H2 cure that needs no raised class), on opts in,
 * system clears both and hands the choice back. UNSET: not to be set. */
void prio_efficiency_flags(enum rule_efficiency efficiency,
			   unsigned long *control, unsigned long *state)
{
	*control = 0;
	*state = 0;
	switch (efficiency) {
	case RULE_EFFICIENCY_OFF:
		*control = PRIO_THROTTLE_EXECUTION_SPEED;
		break;
	case RULE_EFFICIENCY_ON:
		*control = PRIO_THROTTLE_EXECUTION_SPEED;
		*state = PRIO_THROTTLE_EXECUTION_SPEED;
		break;
	case RULE_EFFICIENCY_UNSET:
	case RULE_EFFICIENCY_SYSTEM:
		break;
	}
}

/* What a process's masks, as GetProcessInformation reads them, say. */
enum rule_efficiency prio_efficiency_of_flags(unsigned long control,
					      unsigned long state)
{
	if (!(control & PRIO_THROTTLE_EXECUTION_SPEED))
		return RULE_EFFICIENCY_SYSTEM;
	if (state & PRIO_THROTTLE_EXECUTION_SPEED)
		return RULE_EFFICIENCY_ON;
	return RULE_EFFICIENCY_OFF;
}

/* on < system < off: off raises; system is the default and, like class
 * normal, only lowers; on lowers. */
static int prio_efficiency_rank(enum rule_efficiency efficiency)
{
	switch (efficiency) {
	case RULE_EFFICIENCY_ON:
		return 0;
	case RULE_EFFICIENCY_UNSET:
	case RULE_EFFICIENCY_SYSTEM:
		break;
	case RULE_EFFICIENCY_OFF:
		return 2;
	}
	return 1;
}

/* The mode to set over the process's own, in the rule's direction. */
enum rule_efficiency prio_efficiency_expected(enum rule_efficiency rule,
					      enum rule_efficiency before)
{
	if (!rule || prio_beyond(prio_efficiency_rank(before),
				 prio_efficiency_rank(rule),
				 rule == RULE_EFFICIENCY_OFF))
		return before;
	return rule;
}

static void prio_policy_text(enum rule_policy policy, int rt_priority,
			     char *buf, size_t size)
{
	const char *name = rules_enum_name(RULES_ENUM_POLICY, (int)policy);

	if (policy == RULE_POLICY_FIFO || policy == RULE_POLICY_RR)
		snprintf(buf, size, "%s %d", name, rt_priority);
	else
		snprintf(buf, size, "%s", name);
}

static void prio_io_text(enum rule_io_class class, int level, char *buf,
			 size_t size)
{
	if (class == RULE_IO_CLASS_IDLE)
		snprintf(buf, size, "idle");
	else
		snprintf(buf, size, "%s/%d",
			 rules_enum_name(RULES_ENUM_IO_CLASS, (int)class),
			 level);
}

static void prio_kept_add(struct prio_kept *kept, const char *setting,
			  const char *thread, const char *rule, bool raises)
{
	kept->setting = setting;
	snprintf(kept->why, sizeof(kept->why),
		 "%s %s kept (%s than the rule's %s: a %s rule never %s)",
		 setting, thread, raises ? "higher" : "lower", rule,
		 raises ? "raising" : "lowering", raises ? "lowers" : "raises");
}

/* What prio_expected keeps of the thread's own, in words. */
size_t prio_explain(const struct prio_target *t, const struct prio_state *s,
		    struct prio_kept kept[PRIO_KEPT_MAX])
{
	char thread[40], rule[40];
	size_t n = 0;

	if (prio_keeps_nice(t, s)) {
		snprintf(thread, sizeof(thread), "%d", s->nice);
		snprintf(rule, sizeof(rule), "%d", t->nice);
		prio_kept_add(&kept[n++], "nice", thread, rule,
			      prio_raises_nice(t));
	}
	if (prio_keeps_policy(t, s)) {
		prio_policy_text(s->policy, s->rt_priority, thread,
				 sizeof(thread));
		prio_policy_text(t->policy, t->rt_priority, rule, sizeof(rule));
		prio_kept_add(&kept[n++], "policy", thread, rule,
			      prio_raises_policy(t));
	}
	if (prio_keeps_io(t, s)) {
		enum rule_io_class class;
		int level;
		size_t used;

		prio_io_in_force(s, &class, &level);
		prio_io_text(class, level, thread, sizeof(thread));
		used = strlen(thread);
		if (!s->io_class)
			snprintf(thread + used, sizeof(thread) - used,
				 " from %s",
				 class == RULE_IO_CLASS_BEST_EFFORT
					 ? "nice"
					 : "the policy");
		prio_io_text(t->io_class, t->io_level, rule, sizeof(rule));
		prio_kept_add(&kept[n++], "io", thread, rule,
			      prio_raises_io(t));
	}
	return n;
}

bool prio_state_equal(const struct prio_state *a, const struct prio_state *b)
{
	return a->nice == b->nice && a->policy == b->policy &&
	       a->rt_priority == b->rt_priority &&
	       a->reset_on_fork == b->reset_on_fork &&
	       a->io_class == b->io_class &&
	       (a->io_class == RULE_IO_CLASS_UNSET ||
		a->io_level == b->io_level) &&
	       a->thread_level == b->thread_level &&
	       a->efficiency == b->efficiency && a->memory == b->memory;
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

/* Windows: the I/O and memory priority, where known or set. */
static void prio_describe_windows_io(enum rule_io_class io_class, int level,
				     enum rule_memory memory, char *buf,
				     size_t size)
{
	size_t used = strlen(buf);
	char io[40];

	if (io_class && used + 1 < size) {
		prio_io_text(io_class, level, io, sizeof(io));
		snprintf(buf + used, size - used, "%sio %s", used ? ", " : "",
			 io);
	}
	used = strlen(buf);
	if (memory && used + 1 < size)
		snprintf(buf + used, size - used, "%smemory_priority %s",
			 used ? ", " : "",
			 rules_enum_name(RULES_ENUM_MEMORY, (int)memory));
}

/* Windows: what the rule sets of class, thread level, EcoQoS, I/O and
 * memory priority. */
static void prio_describe_windows_target(const struct prio_target *t, char *buf,
					 size_t size)
{
	struct prio_state cls = {.nice = t->nice, .policy = t->policy};
	size_t used = 0;

	buf[0] = '\0';
	if (t->set_nice || t->policy)
		snprintf(buf, size, "class %s",
			 rules_enum_name(RULES_ENUM_CLASS,
					 (int)prio_class_of_state(&cls)));
	used = strlen(buf);
	if (t->thread && used + 1 < size)
		snprintf(buf + used, size - used, "%sthread %s",
			 used ? ", " : "",
			 rules_enum_name(RULES_ENUM_THREAD, (int)t->thread));
	used = strlen(buf);
	if (t->efficiency && used + 1 < size)
		snprintf(buf + used, size - used, "%sefficiency_mode %s",
			 used ? ", " : "",
			 rules_enum_name(RULES_ENUM_EFFICIENCY,
					 (int)t->efficiency));
	prio_describe_windows_io(t->io_class, t->io_level, t->memory, buf,
				 size);
}

void prio_describe_target(const struct prio_target *t, char *buf, size_t size)
{
	if (t->windows) {
		prio_describe_windows_target(t, buf, size);
		return;
	}
	prio_describe(buf, size, t->set_nice, t->nice, t->policy,
		      t->rt_priority, t->io_class, t->io_level);
}

/* Windows: the class, the thread's level and the process's EcoQoS. */
static void prio_describe_windows(const struct prio_state *s, char *buf,
				  size_t size)
{
	const struct prio_thread_map *thread = NULL;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(prio_threads); i++) {
		if (prio_threads[i].windows == s->thread_level)
			thread = &prio_threads[i];
	}
	n = snprintf(
		buf, size, "class %s, thread ",
		rules_enum_name(RULES_ENUM_CLASS, (int)prio_class_of_state(s)));
	if (n < 0 || (size_t)n >= size)
		return;
	if (thread)
		snprintf(buf + n, size - (size_t)n, "%s",
			 rules_enum_name(RULES_ENUM_THREAD,
					 (int)thread->thread));
	else
		snprintf(buf + n, size - (size_t)n, "%d", s->thread_level);
	if (s->efficiency) {
		size_t used = strlen(buf);

		snprintf(buf + used, size - used, ", efficiency_mode %s",
			 rules_enum_name(RULES_ENUM_EFFICIENCY,
					 (int)s->efficiency));
	}
	prio_describe_windows_io(s->io_class, s->io_level, s->memory, buf,
				 size);
}

void prio_describe_state(const struct prio_state *s, char *buf, size_t size)
{
	if (s->windows) {
		prio_describe_windows(s, buf, size);
		return;
	}
	prio_describe(buf, size, true, s->nice, s->policy, s->rt_priority,
		      s->io_class, s->io_level);
	if (!s->io_class) {
		size_t used = strlen(buf);

		snprintf(buf + used, size - used, ", io from nice");
	}
	if (s->reset_on_fork) {
		size_t used = strlen(buf);

		snprintf(buf + used, size - used, ", reset on fork");
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
		out->reset_on_fork = original->reset_on_fork;
	}
	if (now->io_class == applied->io_class &&
	    (now->io_class == RULE_IO_CLASS_UNSET ||
	     now->io_level == applied->io_level)) {
		out->io_class = original->io_class;
		out->io_level = original->io_level;
	}
	if (now->thread_level == applied->thread_level)
		out->thread_level = original->thread_level;
	if (now->efficiency == applied->efficiency)
		out->efficiency = original->efficiency;
	if (now->memory == applied->memory)
		out->memory = original->memory;
}

/* A priority as a journal keeps it, every field a number; decoded only
 * where every field is in range. */
void prio_state_encode(const struct prio_state *s, char *text, size_t size)
{
	snprintf(text, size, "%d %d %d %d %d %d %d %d %d %d", s->nice,
		 (int)s->policy, s->rt_priority, (int)s->io_class, s->io_level,
		 (int)s->reset_on_fork, (int)s->windows, s->thread_level,
		 (int)s->efficiency, (int)s->memory);
}

bool prio_state_decode(const char *text, struct prio_state *s)
{
	int v[10];

	if (sscanf(text, "%d %d %d %d %d %d %d %d %d %d", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) != 10 ||
	    v[0] < -20 || v[0] > 19 || v[1] < 0 || v[1] > RULE_POLICY_RR ||
	    v[3] < 0 || v[3] > RULE_IO_CLASS_IDLE)
		return false;
	*s = (struct prio_state){
		.nice = v[0],
		.policy = (enum rule_policy)v[1],
		.rt_priority = v[2],
		.io_class = (enum rule_io_class)v[3],
		.io_level = v[4],
		.reset_on_fork = v[5] != 0,
		.windows = v[6] != 0,
		.thread_level = v[7],
		.efficiency = (enum rule_efficiency)v[8],
		.memory = (enum rule_memory)v[9],
	};
	return true;
}
