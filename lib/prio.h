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
	/* Windows: SetThreadPriority on every thread (on Linux already in
	 * nice); UNSET: left as it is. */
	enum rule_thread thread;
	/* Windows, for the process: its EcoQoS (prio_efficiency_flags). */
	enum rule_efficiency efficiency;
	/* Windows, for the process: its memory priority; UNSET: left. */
	enum rule_memory memory;
	/* Made for Windows (prio_target_for_system): nice and policy stand
	 * for the class alone, thread and efficiency are laid over the
	 * state's thread_level and efficiency. */
	bool windows;
};

/* Windows gives REALTIME_PRIORITY_CLASS only to a caller holding this
 * privilege; without it SetPriorityClass succeeds and sets HIGH. */
#define PRIO_WINDOWS_REALTIME_PRIVILEGE "SeIncreaseBasePriorityPrivilege"

struct prio_class_map {
	enum rule_class class;
	int nice; /* unused for realtime */
	enum rule_policy policy;
	enum rule_io_class io_class; /* UNSET: left to the kernel */
	const char *windows;
	/* Needs PRIO_WINDOWS_REALTIME_PRIVILEGE: the backend checks what it
	 * got and says so, as Windows does not. */
	bool windows_privileged;
};

/* A thread level: SetThreadPriority's value on Windows, a change of nice
 * on Linux (cpupolicy.rules(5), "Thread priority"). */
struct prio_thread_map {
	enum rule_thread thread;
	int nice_offset; /* added to the rule's nice, then kept in -20..19 */
	int windows;	 /* THREAD_PRIORITY_* */
	const char *windows_name;
};

/* Windows: an IO_PRIORITY_HINT and the io_class and io_level that stand
 * for it (cpupolicy.rules(5), "On Windows, key by key"): a rule's class
 * and level within [level_min, level_max] give the hint, and the hint
 * reads back as class and level. */
struct prio_io_hint_map {
	enum rule_io_class class;
	int level_min, level_max;
	int level;   /* what the hint reads back as */
	int windows; /* IO_PRIORITY_HINT */
	const char *windows_name;
};

/* PROCESS_POWER_THROTTLING_EXECUTION_SPEED: the EcoQoS bit of
 * PROCESS_POWER_THROTTLING_STATE's ControlMask and StateMask. */
#define PRIO_THROTTLE_EXECUTION_SPEED 0x1ul

/* A thread's priority as the kernel holds it. */
struct prio_state {
	int nice;
	enum rule_policy policy;
	int rt_priority;
	enum rule_io_class io_class; /* UNSET: none set, derived from nice */
	int io_level;
	bool reset_on_fork; /* a flag of the policy, never a rule's */
	/* Windows: nice and policy are the process's priority class as
	 * prio_state_of_class has it; thread_level the thread's
	 * THREAD_PRIORITY_* and efficiency the process's EcoQoS (UNSET:
	 * not known). Linux leaves them 0. */
	bool windows;
	int thread_level;
	enum rule_efficiency efficiency;
	/* Windows: io_class and io_level are the process's IO_PRIORITY_HINT
	 * as prio_io_of_hint reads it, memory its memory priority; UNSET
	 * for either: not known (not read, or not readable here). */
	enum rule_memory memory;
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
void prio_target_for_system(const struct rule_priority *rule,
			    enum rules_system system,
			    struct prio_target *target);
enum rule_class prio_class_of_state(const struct prio_state *state);
void prio_state_of_class(enum rule_class class, struct prio_state *state);
bool prio_target_empty(const struct prio_target *target);
const struct prio_thread_map *prio_thread(enum rule_thread thread);
int prio_thread_expected(const struct prio_target *target, int before);
void prio_efficiency_flags(enum rule_efficiency efficiency,
			   unsigned long *control, unsigned long *state);
enum rule_efficiency prio_efficiency_of_flags(unsigned long control,
					      unsigned long state);
int prio_io_hint(enum rule_io_class class, int level);
bool prio_io_of_hint(int hint, enum rule_io_class *class, int *level);
void prio_original_default(struct prio_state *original,
			   const struct prio_target *target);
void prio_state_take_process(struct prio_state *to,
			     const struct prio_state *from);
enum rule_efficiency prio_efficiency_expected(enum rule_efficiency rule,
					      enum rule_efficiency before);
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
/* A state as text for a journal, and back (false: not one). */
void prio_state_encode(const struct prio_state *s, char *text, size_t size);
bool prio_state_decode(const char *text, struct prio_state *s);

#endif
