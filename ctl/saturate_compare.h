/* The --compare driver (saturate_compare.c) beside the check's
 * (saturate.c): the options and environment they share, the measurement
 * of one step the trials are made of, and what the comparison lends the
 * worker program (Windows starts a step's workers as a program of their
 * own, which sets the policy up again from its rule body). */
#ifndef CPUPOLICY_SATURATE_COMPARE_H
#define CPUPOLICY_SATURATE_COMPARE_H

#include <pthread.h>
#include <stdbool.h>

#include "conf.h"
#include "place.h"
#include "prio.h"
#include "procstat.h"
#include "rules.h"
#include "saturate.h"
#include "work.h"

/* saturate.c */
struct saturate_opts {
	unsigned threads;
	double seconds;
	enum work_kind kind;
	const char *work;
	double threshold;
	bool json;
	const char *compare;
	unsigned background;
	bool probe;
	unsigned pairs;
	double smt_yield; /* -1: measure it */
	double if_idle;	  /* -1: always run */
	const char *textfile;
	const char *worker; /* the hidden --worker: be a step's workers */
};

struct saturate_env {
	struct conf conf;
	struct place_topology topo;
	bool have_topo;
};

/* How a step is measured: /proc/stat at the window's ends (or not), and
 * for the live line the rate that is 100 % (0: none yet). */
struct saturate_window {
	struct procstat *first, *last;
	double expected;
	bool live;
};

int saturate_measure(struct saturate_env *env, const struct work_spec *spec,
		     double seconds, const struct saturate_window *w,
		     struct saturate_step *step, double *thread_cpu,
		     struct prio_state *prio);

/* saturate_compare.c */
/* --compare: B is the rule body applied to a fresh worker process. */
struct saturate_compare_policy {
	struct rules rules;
	const struct rule *rule;
	struct prio_target prio;
	struct place_plan place;
};

int saturate_compare_policy_parse(struct saturate_env *env, const char *body,
				  struct saturate_compare_policy *b);
int saturate_compare_policy_setup(void *ctx);
enum os_status saturate_compare_policy_thread(void *ctx, pthread_t thread,
					      unsigned index);
int saturate_compare_run(struct saturate_env *env,
			 const struct saturate_opts *o);

#endif
