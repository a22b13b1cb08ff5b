/* The --compare driver (saturate_compare.c) beside the check's
 * (saturate.c): the options and environment they share, the measurement
 * of one step the trials are made of, and what the comparison lends the
 * worker program (Windows starts a step's workers as a program of their
 * own, which sets the policy up again from its rule body). */
#ifndef CPUPOLICY_SATURATE_COMPARE_H
#define CPUPOLICY_SATURATE_COMPARE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "conf.h"
#include "frames.h"
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
	bool work_set;	    /* --work was given */
	bool restraint;	    /* --compare --restraint */
	const char *user;   /* the hogs' account (--user), NULL: default */
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

/* saturate_restraint_report.c: --compare --restraint's pure half, the
 * options it refuses, a trial's figures, the arms' summary and the
 * report. A trial: the frame task from start to stop, the hogs from
 * hogs on, frames and throughput counted from `from`. */
#define SATURATE_RESTRAINT_HOGS_AT_MS	1000
#define SATURATE_RESTRAINT_SECONDS	6
#define SATURATE_RESTRAINT_SECONDS_MIN	3
#define SATURATE_RESTRAINT_HOGS_PER_CPU 2
#define SATURATE_RESTRAINT_TICK_MS	10

struct saturate_restraint_times {
	long long start, hogs, from, stop; /* ns, timing_now_ns's clock */
};

/* The hogs' work so far: spins summed, CPU time summed (ns). */
struct saturate_restraint_counts {
	unsigned long long spins;
	long long cpu_ns;
};

struct saturate_restraint_trial {
	int frames, missed; /* in the window */
	long long p50_ns, p99_ns;
	double spins_s;	      /* the hogs' spins per second, summed */
	double cpus;	      /* the CPU time they got, in CPUs */
	long long relief_ns;  /* hogs' start to every hog lowered; -1: never */
	bool task_restrained; /* the daemon listed the frame task */
};

enum saturate_restraint_figure {
	SATURATE_RESTRAINT_MISSED, /* percent of the window's frames */
	SATURATE_RESTRAINT_P50,	   /* lateness, ms */
	SATURATE_RESTRAINT_P99,
	SATURATE_RESTRAINT_SPINS, /* M spins per second */
	SATURATE_RESTRAINT_CPUS,
	SATURATE_RESTRAINT_FIGURES
};

struct saturate_restraint_summary {
	unsigned pairs;
	double median[2][SATURATE_RESTRAINT_FIGURES]; /* arm A, arm B */
	struct compare_median diff[SATURATE_RESTRAINT_FIGURES]; /* B - A */
	int frames[2], missed[2]; /* all trials' */
	double relief_s[2];	  /* median of the trials that had one */
	unsigned relief_trials[2];
	unsigned task_restrained; /* trials that listed the frame task */
};

/* What the report says of the run besides its figures. */
struct saturate_restraint_setup {
	unsigned pairs, hogs;
	double seconds;
	const char *user;
	bool exempt; /* A's hogs exempt one by one (a user's run), not paused */
};

const char *saturate_restraint_report_refusal(const struct saturate_opts *o,
					      bool pairs_set);
void saturate_restraint_report_times(long long now, double seconds,
				     struct saturate_restraint_times *t);
bool saturate_restraint_report_lowered(const struct prio_state *prio);
void saturate_restraint_report_trial(
	const struct frames_frame *frames, int count,
	const struct saturate_restraint_times *t,
	const struct saturate_restraint_counts *from,
	const struct saturate_restraint_counts *to, long long relief_at,
	struct saturate_restraint_trial *out);
int saturate_restraint_report_summarise(
	const struct saturate_restraint_trial *a,
	const struct saturate_restraint_trial *b, unsigned pairs,
	struct saturate_restraint_summary *s);
void saturate_restraint_report_text(const struct saturate_restraint_setup *su,
				    const struct saturate_restraint_summary *s,
				    FILE *out);
void saturate_restraint_report_json(const struct saturate_restraint_setup *su,
				    const struct saturate_restraint_summary *s,
				    const struct saturate_restraint_trial *a,
				    const struct saturate_restraint_trial *b,
				    FILE *out);

/* saturate_restraint.c: the trials, against the running daemon */
struct ctl;
int saturate_restraint_run(struct ctl *ctl, struct saturate_env *env,
			   const struct saturate_opts *o);

#endif
