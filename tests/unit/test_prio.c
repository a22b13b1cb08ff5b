/* Priority directions: a thread's original state under a rule gives the
 * state wanted, setting by setting; a lowering rule never raises, a
 * raising rule never lowers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "prio.h"
#include "util.h"

/* A rule's priority section; io_level -1 is "not given". */
#define NICE(n)                                                                \
	{                                                                      \
		.has_nice = true, .nice = (n), .io_level = -1                  \
	}
#define CLASS(c)                                                               \
	{                                                                      \
		.class = RULE_CLASS_##c, .io_level = -1                        \
	}
#define POLICY(p)                                                              \
	{                                                                      \
		.policy = RULE_POLICY_##p, .io_level = -1                      \
	}
#define NICE_POLICY(n, p)                                                      \
	{                                                                      \
		.has_nice = true, .nice = (n), .policy = RULE_POLICY_##p,      \
		.io_level = -1                                                 \
	}
#define RT(p, prio)                                                            \
	{                                                                      \
		.policy = RULE_POLICY_##p, .rt_priority = (prio),              \
		.io_level = -1                                                 \
	}
#define IO(c, l)                                                               \
	{                                                                      \
		.io_class = RULE_IO_CLASS_##c, .io_level = (l)                 \
	}
#define THREAD(c, t)                                                           \
	{                                                                      \
		.class = RULE_CLASS_##c, .thread = RULE_THREAD_##t,            \
		.io_level = -1                                                 \
	}
#define NICE_THREAD(n, t)                                                      \
	{                                                                      \
		.has_nice = true, .nice = (n), .thread = RULE_THREAD_##t,      \
		.io_level = -1                                                 \
	}
#define COMPRESSORS                                                            \
	{                                                                      \
		.class = RULE_CLASS_BELOW_NORMAL,                              \
		.io_class = RULE_IO_CLASS_BEST_EFFORT, .io_level = 7           \
	}

/* A thread's state: nice, policy, rt priority, I/O class and level. */
#define S(n, p, rt, c, l)                                                      \
	{                                                                      \
		.nice = (n), .policy = RULE_POLICY_##p, .rt_priority = (rt),   \
		.io_class = RULE_IO_CLASS_##c, .io_level = (l)                 \
	}
#define NORMAL S(0, OTHER, 0, UNSET, 0)

struct expected_case {
	const char *name;
	struct rule_priority rule;
	struct prio_state before, after;
};

static const struct expected_case expected_cases[] = {
	/* nice: a higher number is a lower priority. */
	{"nice 10 lowers nice 0", NICE(10), NORMAL, S(10, OTHER, 0, UNSET, 0)},
	{"nice 10 lowers nice -5", NICE(10), S(-5, OTHER, 0, UNSET, 0),
	 S(10, OTHER, 0, UNSET, 0)},
	{"nice 10 keeps nice 19", NICE(10), S(19, OTHER, 0, UNSET, 0),
	 S(19, OTHER, 0, UNSET, 0)},
	{"nice 10 on nice 10", NICE(10), S(10, OTHER, 0, UNSET, 0),
	 S(10, OTHER, 0, UNSET, 0)},
	{"nice -5 raises nice 0", NICE(-5), NORMAL, S(-5, OTHER, 0, UNSET, 0)},
	{"nice -5 raises nice 19", NICE(-5), S(19, OTHER, 0, UNSET, 0),
	 S(-5, OTHER, 0, UNSET, 0)},
	{"nice -5 keeps nice -10", NICE(-5), S(-10, OTHER, 0, UNSET, 0),
	 S(-10, OTHER, 0, UNSET, 0)},
	{"nice 0 is the default: it lowers nice -10", NICE(0),
	 S(-10, OTHER, 0, UNSET, 0), NORMAL},
	{"nice 0 is the default: it keeps nice 19", NICE(0),
	 S(19, OTHER, 0, UNSET, 0), S(19, OTHER, 0, UNSET, 0)},
	{"class normal keeps nice 19", CLASS(NORMAL), S(19, OTHER, 0, UNSET, 0),
	 S(19, OTHER, 0, UNSET, 0)},
	{"class high keeps nice -15", CLASS(HIGH), S(-15, OTHER, 0, UNSET, 0),
	 S(-15, OTHER, 0, UNSET, 0)},
	{"class high raises nice 5", CLASS(HIGH), S(5, OTHER, 0, UNSET, 0),
	 S(-10, OTHER, 0, UNSET, 0)},

	/* policy: idle < batch < other < fifo and rr by rt priority. */
	{"batch lowers other", NICE_POLICY(10, BATCH), NORMAL,
	 S(10, BATCH, 0, UNSET, 0)},
	{"batch keeps idle", NICE_POLICY(10, BATCH), S(0, IDLE, 0, UNSET, 0),
	 S(10, IDLE, 0, UNSET, 0)},
	{"batch lowers fifo 10", POLICY(BATCH), S(0, FIFO, 10, UNSET, 0),
	 S(0, BATCH, 0, UNSET, 0)},
	{"idle lowers batch", POLICY(IDLE), S(0, BATCH, 0, UNSET, 0),
	 S(0, IDLE, 0, UNSET, 0)},
	{"other is the default: it keeps batch", POLICY(OTHER),
	 S(0, BATCH, 0, UNSET, 0), S(0, BATCH, 0, UNSET, 0)},
	{"other is the default: it lowers rr 5", POLICY(OTHER),
	 S(0, RR, 5, UNSET, 0), NORMAL},
	{"class below-normal keeps idle", CLASS(BELOW_NORMAL),
	 S(0, IDLE, 0, UNSET, 0), S(10, IDLE, 0, UNSET, 0)},
	{"class below-normal lowers fifo 10", CLASS(BELOW_NORMAL),
	 S(0, FIFO, 10, UNSET, 0), S(10, OTHER, 0, UNSET, 0)},
	{"class above-normal raises idle to other", CLASS(ABOVE_NORMAL),
	 S(0, IDLE, 0, UNSET, 0), S(-5, OTHER, 0, UNSET, 0)},
	{"class above-normal keeps fifo 10", CLASS(ABOVE_NORMAL),
	 S(0, FIFO, 10, UNSET, 0), S(-5, FIFO, 10, UNSET, 0)},
	{"nice -5 with other raises batch to other", NICE_POLICY(-5, OTHER),
	 S(0, BATCH, 0, UNSET, 0), S(-5, OTHER, 0, UNSET, 0)},
	{"class idle lowers everything", CLASS(IDLE),
	 S(5, FIFO, 10, BEST_EFFORT, 0), S(19, IDLE, 0, IDLE, 0)},

	/* rt priority: within the realtime policies, higher is higher. */
	{"rr 10 raises other", RT(RR, 10), NORMAL, S(0, RR, 10, UNSET, 0)},
	{"rr 10 raises idle", RT(RR, 10), S(0, IDLE, 0, UNSET, 0),
	 S(0, RR, 10, UNSET, 0)},
	{"rr 10 raises fifo 5", RT(RR, 10), S(0, FIFO, 5, UNSET, 0),
	 S(0, RR, 10, UNSET, 0)},
	{"rr 10 keeps fifo 20", RT(RR, 10), S(0, FIFO, 20, UNSET, 0),
	 S(0, FIFO, 20, UNSET, 0)},
	{"rr 10 on fifo 10: the rule's", RT(RR, 10), S(0, FIFO, 10, UNSET, 0),
	 S(0, RR, 10, UNSET, 0)},
	{"class realtime keeps fifo 50", CLASS(REALTIME),
	 S(0, FIFO, 50, UNSET, 0), S(0, FIFO, 50, UNSET, 0)},
	{"class realtime raises batch to rr 1", CLASS(REALTIME),
	 S(7, BATCH, 0, UNSET, 0), S(7, RR, 1, UNSET, 0)},

	/* I/O: idle < best-effort 7..0 < realtime 7..0; none is what the
	 * kernel derives from nice and policy. */
	{"compressors on nice 19 and idle I/O: both kept", COMPRESSORS,
	 S(19, OTHER, 0, IDLE, 0), S(19, OTHER, 0, IDLE, 0)},
	{"compressors on a normal thread: nice 10, best-effort 7", COMPRESSORS,
	 NORMAL, S(10, OTHER, 0, BEST_EFFORT, 7)},
	{"best-effort 7 lowers best-effort 2", IO(BEST_EFFORT, 7),
	 S(0, OTHER, 0, BEST_EFFORT, 2), S(0, OTHER, 0, BEST_EFFORT, 7)},
	{"best-effort 7 lowers realtime 0", IO(BEST_EFFORT, 7),
	 S(0, OTHER, 0, REALTIME, 0), S(0, OTHER, 0, BEST_EFFORT, 7)},
	{"best-effort 7 on none at nice 19 (best-effort 7): the rule's",
	 IO(BEST_EFFORT, 7), S(19, OTHER, 0, UNSET, 0),
	 S(19, OTHER, 0, BEST_EFFORT, 7)},
	{"best-effort 6 keeps none at nice 19 (best-effort 7)",
	 IO(BEST_EFFORT, 6), S(19, OTHER, 0, UNSET, 0),
	 S(19, OTHER, 0, UNSET, 0)},
	{"best-effort 5 keeps none under SCHED_IDLE (idle)", IO(BEST_EFFORT, 5),
	 S(0, IDLE, 0, UNSET, 0), S(0, IDLE, 0, UNSET, 0)},
	{"best-effort 4 is the default: it keeps best-effort 6",
	 IO(BEST_EFFORT, 4), S(0, OTHER, 0, BEST_EFFORT, 6),
	 S(0, OTHER, 0, BEST_EFFORT, 6)},
	{"best-effort 4 is the default: it lowers best-effort 1",
	 IO(BEST_EFFORT, 4), S(0, OTHER, 0, BEST_EFFORT, 1),
	 S(0, OTHER, 0, BEST_EFFORT, 4)},
	{"io idle lowers realtime 0", IO(IDLE, -1), S(0, OTHER, 0, REALTIME, 0),
	 S(0, OTHER, 0, IDLE, 0)},
	{"best-effort 2 raises idle", IO(BEST_EFFORT, 2),
	 S(0, OTHER, 0, IDLE, 0), S(0, OTHER, 0, BEST_EFFORT, 2)},
	{"best-effort 2 raises none at nice 0 (best-effort 4)",
	 IO(BEST_EFFORT, 2), NORMAL, S(0, OTHER, 0, BEST_EFFORT, 2)},
	{"best-effort 2 keeps best-effort 0", IO(BEST_EFFORT, 2),
	 S(0, OTHER, 0, BEST_EFFORT, 0), S(0, OTHER, 0, BEST_EFFORT, 0)},
	{"best-effort 2 keeps realtime 7", IO(BEST_EFFORT, 2),
	 S(0, OTHER, 0, REALTIME, 7), S(0, OTHER, 0, REALTIME, 7)},
	{"best-effort 2 keeps none at nice -20 (best-effort 0)",
	 IO(BEST_EFFORT, 2), S(-20, OTHER, 0, UNSET, 0),
	 S(-20, OTHER, 0, UNSET, 0)},
	{"realtime 4 raises best-effort 0", IO(REALTIME, 4),
	 S(0, OTHER, 0, BEST_EFFORT, 0), S(0, OTHER, 0, REALTIME, 4)},
	{"realtime 4 keeps realtime 1", IO(REALTIME, 4),
	 S(0, OTHER, 0, REALTIME, 1), S(0, OTHER, 0, REALTIME, 1)},
	{"realtime 4 keeps none under fifo at nice -20 (realtime 0)",
	 IO(REALTIME, 4), S(-20, FIFO, 1, UNSET, 0), S(-20, FIFO, 1, UNSET, 0)},

	/* Each setting in its own direction. */
	{"nice -5 with batch: nice raised, policy lowered",
	 NICE_POLICY(-5, BATCH), S(10, OTHER, 0, UNSET, 0),
	 S(-5, BATCH, 0, UNSET, 0)},
	{"nice -5 with batch: batch kept on idle, nice -10 kept",
	 NICE_POLICY(-5, BATCH), S(-10, IDLE, 0, UNSET, 0),
	 S(-10, IDLE, 0, UNSET, 0)},
	{"nice 10 with realtime I/O: nice 19 kept, I/O raised",
	 {.has_nice = true,
	  .nice = 10,
	  .io_class = RULE_IO_CLASS_REALTIME,
	  .io_level = -1},
	 S(19, OTHER, 0, BEST_EFFORT, 7),
	 S(19, OTHER, 0, REALTIME, 4)},
	{"a rule without I/O leaves idle I/O as it is", NICE(-5),
	 S(0, OTHER, 0, IDLE, 0), S(-5, OTHER, 0, IDLE, 0)},
	{"a rule without nice leaves nice 19 as it is", POLICY(BATCH),
	 S(19, OTHER, 0, UNSET, 0), S(19, BATCH, 0, UNSET, 0)},

	/* SCHED_RESET_ON_FORK is the thread's: a new policy keeps it. */
	{"reset on fork kept from other to batch",
	 POLICY(BATCH),
	 {.policy = RULE_POLICY_OTHER, .reset_on_fork = true},
	 {.policy = RULE_POLICY_BATCH, .reset_on_fork = true}},
	{"reset on fork kept from fifo to idle",
	 CLASS(IDLE),
	 {.policy = RULE_POLICY_FIFO, .rt_priority = 5, .reset_on_fork = true},
	 {.nice = 19,
	  .policy = RULE_POLICY_IDLE,
	  .io_class = RULE_IO_CLASS_IDLE,
	  .reset_on_fork = true}},
	{"reset on fork kept where the policy is kept",
	 RT(RR, 10),
	 {.policy = RULE_POLICY_FIFO, .rt_priority = 20, .reset_on_fork = true},
	 {.policy = RULE_POLICY_FIFO,
	  .rt_priority = 20,
	  .reset_on_fork = true}},
	{"no reset on fork: none added", RT(FIFO, 10), NORMAL,
	 S(0, FIFO, 10, UNSET, 0)},

	/* thread on Linux: two nice steps a level over the class's nice,
	 * normal's 0 without a class; idle and time-critical the ends. */
	{"thread highest alone: nice -4", THREAD(UNSET, HIGHEST), NORMAL,
	 S(-4, OTHER, 0, UNSET, 0)},
	{"thread above-normal alone: nice -2", THREAD(UNSET, ABOVE_NORMAL),
	 NORMAL, S(-2, OTHER, 0, UNSET, 0)},
	{"thread below-normal alone: nice 2", THREAD(UNSET, BELOW_NORMAL),
	 NORMAL, S(2, OTHER, 0, UNSET, 0)},
	{"thread normal in class normal lowers nice -10",
	 THREAD(NORMAL, NORMAL), S(-10, OTHER, 0, UNSET, 0), NORMAL},
	{"thread highest in class high: nice -14", THREAD(HIGH, HIGHEST),
	 NORMAL, S(-14, OTHER, 0, UNSET, 0)},
	{"thread lowest in class below-normal: nice 14",
	 THREAD(BELOW_NORMAL, LOWEST), NORMAL, S(14, OTHER, 0, UNSET, 0)},
	{"thread highest in class below-normal still lowers: nice 6",
	 THREAD(BELOW_NORMAL, HIGHEST), S(-5, OTHER, 0, UNSET, 0),
	 S(6, OTHER, 0, UNSET, 0)},
	{"thread idle in class high: nice 19", THREAD(HIGH, IDLE), NORMAL,
	 S(19, OTHER, 0, UNSET, 0)},
	{"thread time-critical in class below-normal: nice -20",
	 THREAD(BELOW_NORMAL, TIME_CRITICAL), NORMAL,
	 S(-20, OTHER, 0, UNSET, 0)},
	{"thread on nice: nice 5 lowest is 9", NICE_THREAD(5, LOWEST), NORMAL,
	 S(9, OTHER, 0, UNSET, 0)},
	{"thread on nice stays in range: 18 lowest is 19",
	 NICE_THREAD(18, LOWEST), NORMAL, S(19, OTHER, 0, UNSET, 0)},
	{"thread on nice stays in range: -18 highest is -20",
	 NICE_THREAD(-18, HIGHEST), NORMAL, S(-20, OTHER, 0, UNSET, 0)},
	{"thread in class realtime: no nice to move", THREAD(REALTIME, HIGHEST),
	 S(7, OTHER, 0, UNSET, 0), S(7, RR, 1, UNSET, 0)},
	{"thread lowest never raises nice 10", THREAD(UNSET, LOWEST),
	 S(10, OTHER, 0, UNSET, 0), S(10, OTHER, 0, UNSET, 0)},
	{"thread highest never lowers nice -10", THREAD(UNSET, HIGHEST),
	 S(-10, OTHER, 0, UNSET, 0), S(-10, OTHER, 0, UNSET, 0)},
	{"thread highest in class normal raises nice 19",
	 THREAD(NORMAL, HIGHEST), S(19, OTHER, 0, UNSET, 0),
	 S(-4, OTHER, 0, UNSET, 0)},
};

/* Windows: SetThreadPriority's value over the thread's own one. */
struct thread_case {
	const char *name;
	enum rule_thread thread;
	int before, after;
};

static const struct thread_case thread_cases[] = {
	{"highest raises normal", RULE_THREAD_HIGHEST, 0, 2},
	{"highest keeps time-critical", RULE_THREAD_HIGHEST, 15, 15},
	{"highest on highest", RULE_THREAD_HIGHEST, 2, 2},
	{"above-normal raises idle", RULE_THREAD_ABOVE_NORMAL, -15, 1},
	{"time-critical raises everything", RULE_THREAD_TIME_CRITICAL, 2, 15},
	{"normal is the default: it lowers highest", RULE_THREAD_NORMAL, 2, 0},
	{"normal is the default: it keeps lowest", RULE_THREAD_NORMAL, -2, -2},
	{"lowest lowers above-normal", RULE_THREAD_LOWEST, 1, -2},
	{"lowest keeps idle", RULE_THREAD_LOWEST, -15, -15},
	{"below-normal keeps lowest", RULE_THREAD_BELOW_NORMAL, -2, -2},
	{"idle lowers time-critical", RULE_THREAD_IDLE, 15, -15},
	{"unset leaves it", RULE_THREAD_UNSET, 2, 2},
	/* The realtime class has levels in between (-7..6). */
	{"highest keeps a realtime 6", RULE_THREAD_HIGHEST, 6, 6},
	{"lowest lowers a realtime -1", RULE_THREAD_LOWEST, -1, -2},
};

/* Windows: the EcoQoS mode over the process's own one. */
struct efficiency_case {
	const char *name;
	enum rule_efficiency rule, before, after;
};

#define EFF(x) RULE_EFFICIENCY_##x
static const struct efficiency_case efficiency_cases[] = {
	{"off raises on", EFF(OFF), EFF(ON), EFF(OFF)},
	{"off raises system", EFF(OFF), EFF(SYSTEM), EFF(OFF)},
	{"on lowers off", EFF(ON), EFF(OFF), EFF(ON)},
	{"on lowers system", EFF(ON), EFF(SYSTEM), EFF(ON)},
	{"system is the default: it lowers off", EFF(SYSTEM), EFF(OFF),
	 EFF(SYSTEM)},
	{"system is the default: it keeps on", EFF(SYSTEM), EFF(ON), EFF(ON)},
	{"unset leaves off", EFF(UNSET), EFF(OFF), EFF(OFF)},
};

/* The words explain shows, one line per setting kept; NULL: none. */
struct kept_case {
	const char *name;
	struct rule_priority rule;
	struct prio_state before;
	const char *said;
};

static const struct kept_case kept_cases[] = {
	{"compressors on nice 19 and idle I/O", COMPRESSORS,
	 S(19, OTHER, 0, IDLE, 0),
	 "nice: nice 19 kept (lower than the rule's 10: a lowering rule never "
	 "raises)\n"
	 "io: io idle kept (lower than the rule's best-effort/7: a lowering "
	 "rule never raises)\n"},
	{"compressors on a normal thread: nothing kept", COMPRESSORS, NORMAL,
	 NULL},
	{"compressors on nice 10: equal is not kept", COMPRESSORS,
	 S(10, OTHER, 0, BEST_EFFORT, 7), NULL},
	{"a raising nice", NICE(-5), S(-10, OTHER, 0, UNSET, 0),
	 "nice: nice -10 kept (higher than the rule's -5: a raising rule never "
	 "lowers)\n"},
	{"SCHED_IDLE under batch", NICE_POLICY(10, BATCH),
	 S(0, IDLE, 0, UNSET, 0),
	 "policy: policy idle kept (lower than the rule's batch: a lowering "
	 "rule never raises)\n"},
	{"a higher realtime priority", RT(RR, 10), S(0, FIFO, 20, UNSET, 0),
	 "policy: policy fifo 20 kept (higher than the rule's rr 10: a raising "
	 "rule never lowers)\n"},
	{"class above-normal on realtime", CLASS(ABOVE_NORMAL),
	 S(-10, FIFO, 10, UNSET, 0),
	 "nice: nice -10 kept (higher than the rule's -5: a raising rule never "
	 "lowers)\n"
	 "policy: policy fifo 10 kept (higher than the rule's other: a raising "
	 "rule never lowers)\n"},
	{"I/O from nice", IO(BEST_EFFORT, 6), S(19, OTHER, 0, UNSET, 0),
	 "io: io best-effort/7 from nice kept (lower than the rule's "
	 "best-effort/6: a lowering rule never raises)\n"},
	{"I/O from the policy", IO(BEST_EFFORT, 5), S(0, IDLE, 0, UNSET, 0),
	 "io: io idle from the policy kept (lower than the rule's "
	 "best-effort/5: a lowering rule never raises)\n"},
	{"a raising I/O level", IO(BEST_EFFORT, 2), S(0, OTHER, 0, REALTIME, 7),
	 "io: io realtime/7 kept (higher than the rule's best-effort/2: a "
	 "raising rule never lowers)\n"},
	{"one setting lowered, the other kept", NICE_POLICY(-5, BATCH),
	 S(-10, OTHER, 0, UNSET, 0),
	 "nice: nice -10 kept (higher than the rule's -5: a raising rule never "
	 "lowers)\n"},
};

static void prio_state_print(const char *what, const struct prio_state *s)
{
	char text[128];

	prio_describe_state(s, text, sizeof(text));
	print_message("%s: %s\n", what, text);
}

static void test_expected_case(void **state)
{
	const struct expected_case *c = *state;
	struct prio_target target;
	struct prio_state after;

	prio_target_from_rule(&c->rule, &target);
	prio_expected(&target, &c->before, &after);
	if (!prio_state_equal(&after, &c->after)) {
		prio_state_print("wanted", &c->after);
		prio_state_print("got", &after);
		fail();
	}
}

static void test_kept_case(void **state)
{
	const struct kept_case *c = *state;
	struct prio_kept kept[PRIO_KEPT_MAX];
	struct prio_target target;
	char said[1024] = "";
	size_t count, used = 0;

	prio_target_from_rule(&c->rule, &target);
	count = prio_explain(&target, &c->before, kept);
	for (size_t i = 0; i < count; i++)
		used += (size_t)snprintf(said + used, sizeof(said) - used,
					 "%s: %s\n", kept[i].setting,
					 kept[i].why);
	assert_string_equal(said, c->said ? c->said : "");
}

static bool kept_says(const struct prio_kept *kept, size_t count,
		      const char *setting)
{
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(kept[i].setting, setting))
			return true;
	}
	return false;
}

/* Over the first table: explain names a setting exactly where the rule
 * would change it and the thread keeps its own value instead. */
static void test_kept_matches_expected(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(expected_cases); i++) {
		const struct expected_case *c = &expected_cases[i];
		const struct prio_state *b = &c->before, *a = &c->after;
		struct prio_kept kept[PRIO_KEPT_MAX];
		struct prio_target t;
		size_t n;

		prio_target_from_rule(&c->rule, &t);
		n = prio_explain(&t, b, kept);
		if (t.set_nice && t.nice != b->nice &&
		    kept_says(kept, n, "nice") != (a->nice == b->nice))
			fail_msg("%s: nice", c->name);
		if (t.policy &&
		    (t.policy != b->policy ||
		     t.rt_priority != b->rt_priority) &&
		    kept_says(kept, n, "policy") !=
			    (a->policy == b->policy &&
			     a->rt_priority == b->rt_priority))
			fail_msg("%s: policy", c->name);
		if (t.io_class &&
		    (t.io_class != b->io_class || t.io_level != b->io_level) &&
		    kept_says(kept, n, "io") != (a->io_class == b->io_class &&
						 a->io_level == b->io_level))
			fail_msg("%s: io", c->name);
	}
}

/* A state's words: the reset-on-fork flag shows. */
/* What a thread would hold without the rule: each setting still at the
 * applied value goes back, each one changed since stays. */
struct unwind_case {
	const char *name;
	struct prio_state now, applied, original, want;
};

static const struct unwind_case unwind_cases[] = {
	{"untouched: all back", S(-6, BATCH, 0, BEST_EFFORT, 1),
	 S(-6, BATCH, 0, BEST_EFFORT, 1), NORMAL, NORMAL},
	{"nice changed: policy and I/O back, nice stays",
	 S(2, BATCH, 0, BEST_EFFORT, 1), S(-6, BATCH, 0, BEST_EFFORT, 1),
	 NORMAL, S(2, OTHER, 0, UNSET, 0)},
	{"policy changed: nice and I/O back", S(-6, IDLE, 0, BEST_EFFORT, 1),
	 S(-6, BATCH, 0, BEST_EFFORT, 1), NORMAL, S(0, IDLE, 0, UNSET, 0)},
	{"rt priority changed: the policy stays with it",
	 S(0, FIFO, 9, UNSET, 0), S(0, FIFO, 5, UNSET, 0), NORMAL,
	 S(0, FIFO, 9, UNSET, 0)},
	{"I/O level changed: the class stays with it",
	 S(-6, BATCH, 0, BEST_EFFORT, 3), S(-6, BATCH, 0, BEST_EFFORT, 1),
	 NORMAL, S(0, OTHER, 0, BEST_EFFORT, 3)},
	{"everything changed: nothing back", S(3, IDLE, 0, IDLE, 0),
	 S(-6, BATCH, 0, BEST_EFFORT, 1), NORMAL, S(3, IDLE, 0, IDLE, 0)},
};

static void test_unwind_case(void **state)
{
	const struct unwind_case *c = *state;
	struct prio_state out;

	prio_state_unwind(&c->now, &c->applied, &c->original, &out);
	if (!prio_state_equal(&out, &c->want)) {
		prio_state_print("wanted", &c->want);
		prio_state_print("got", &out);
		fail();
	}
}

static void test_thread_case(void **state)
{
	const struct thread_case *c = *state;
	struct prio_target target = {.thread = c->thread};

	assert_int_equal(prio_thread_expected(&target, c->before), c->after);
}

static void test_efficiency_case(void **state)
{
	const struct efficiency_case *c = *state;

	assert_int_equal(prio_efficiency_expected(c->rule, c->before),
			 c->after);
}

/* SetThreadPriority's THREAD_PRIORITY_* values, as winbase.h has them. */
static void test_thread_map(void **state)
{
	static const struct {
		enum rule_thread thread;
		int windows;
		const char *name;
	} want[] = {
		{RULE_THREAD_IDLE, -15, "THREAD_PRIORITY_IDLE"},
		{RULE_THREAD_LOWEST, -2, "THREAD_PRIORITY_LOWEST"},
		{RULE_THREAD_BELOW_NORMAL, -1, "THREAD_PRIORITY_BELOW_NORMAL"},
		{RULE_THREAD_NORMAL, 0, "THREAD_PRIORITY_NORMAL"},
		{RULE_THREAD_ABOVE_NORMAL, 1, "THREAD_PRIORITY_ABOVE_NORMAL"},
		{RULE_THREAD_HIGHEST, 2, "THREAD_PRIORITY_HIGHEST"},
		{RULE_THREAD_TIME_CRITICAL, 15,
		 "THREAD_PRIORITY_TIME_CRITICAL"},
	};
	struct prio_target t;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct prio_thread_map *map = prio_thread(want[i].thread);

		assert_non_null(map);
		assert_int_equal(map->windows, want[i].windows);
		assert_string_equal(map->windows_name, want[i].name);
	}
	assert_null(prio_thread(RULE_THREAD_UNSET));
	/* A thread level is something to set on every thread ... */
	prio_target_from_rule(&(struct rule_priority)THREAD(REALTIME, LOWEST),
			      &t);
	assert_int_equal(t.thread, RULE_THREAD_LOWEST);
	assert_false(t.set_nice);
	assert_false(prio_target_empty(&t));
	/* ... the efficiency mode only on the process. */
	prio_target_from_rule(
		&(struct rule_priority){.efficiency_mode = EFF(ON),
					.io_level = -1},
		&t);
	assert_int_equal(t.efficiency, EFF(ON));
	assert_true(prio_target_empty(&t));
}

/* PROCESS_POWER_THROTTLING_STATE's masks each way. */
static void test_efficiency_flags(void **state)
{
	static const struct {
		enum rule_efficiency mode;
		unsigned long control, state;
	} want[] = {
		{EFF(OFF), 1, 0},
		{EFF(ON), 1, 1},
		{EFF(SYSTEM), 0, 0},
	};
	unsigned long control, st;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		prio_efficiency_flags(want[i].mode, &control, &st);
		assert_int_equal(control, want[i].control);
		assert_int_equal(st, want[i].state);
		assert_int_equal(prio_efficiency_of_flags(control, st),
				 want[i].mode);
	}
	/* Bits of other controls (timer resolution, 0x4) do not count. */
	assert_int_equal(prio_efficiency_of_flags(0x5, 0x4), EFF(OFF));
	assert_int_equal(prio_efficiency_of_flags(0x4, 0x4), EFF(SYSTEM));
}

/* Only realtime needs the privilege Windows silently falls back without. */
static void test_class_privilege(void **state)
{
	(void)state;
	for (int c = RULE_CLASS_IDLE; c <= RULE_CLASS_REALTIME; c++)
		assert_int_equal(
			prio_class((enum rule_class)c)->windows_privileged,
			c == RULE_CLASS_REALTIME);
	assert_string_equal(PRIO_WINDOWS_REALTIME_PRIVILEGE,
			    "SeIncreaseBasePriorityPrivilege");
}

static void test_describe_reset_on_fork(void **state)
{
	struct prio_state s = {
		.policy = RULE_POLICY_BATCH, .nice = 10, .reset_on_fork = true};
	char text[128];

	(void)state;
	prio_describe_state(&s, text, sizeof(text));
	assert_string_equal(text, "nice 10 batch, io from nice, reset on fork");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_matches_expected),
		cmocka_unit_test(test_describe_reset_on_fork),
		cmocka_unit_test(test_thread_map),
		cmocka_unit_test(test_efficiency_flags),
		cmocka_unit_test(test_class_privilege),
	};
	int failed;

	failed =
		unit_run("prio", UNIT_TABLE(expected_cases, test_expected_case),
			 UNIT_TESTS(tests), NULL, NULL);
	failed |= unit_run("prio kept", UNIT_TABLE(kept_cases, test_kept_case),
			   NULL, 0, NULL, NULL);
	failed |= unit_run("prio thread on Windows",
			   UNIT_TABLE(thread_cases, test_thread_case), NULL, 0,
			   NULL, NULL);
	failed |= unit_run("prio efficiency on Windows",
			   UNIT_TABLE(efficiency_cases, test_efficiency_case),
			   NULL, 0, NULL, NULL);
	return failed | unit_run("prio unwind",
				 UNIT_TABLE(unwind_cases, test_unwind_case),
				 NULL, 0, NULL, NULL);
}
