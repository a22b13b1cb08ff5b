/* The saturation check's judgement: from what was measured (the steps'
 * work and clocks, per-CPU time, the process's limits, the competition)
 * and the machine's cores to an efficiency against what those cores can
 * do, and findings, each with its evidence and the fix. Pure: the CLI
 * measures, this decides, saturate_report.h draws. */
#ifndef CPUPOLICY_SATURATE_H
#define CPUPOLICY_SATURATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "place.h"
#include "procstat.h"

/* Without a measurement (every core's siblings offline or out of reach),
 * what a core's other hardware threads are taken to add to one thread:
 * the low end of what x86 SMT gives compute-bound work. */
#define SATURATE_SMT_YIELD_ASSUMED 0.25
/* Below this share of a CPU, the baseline thread was not alone. */
#define SATURATE_BASELINE_SHARE 0.9

enum saturate_kind {
	SATURATE_KIND_OFFLINE,
	SATURATE_KIND_AFFINITY,
	SATURATE_KIND_CPUSET,
	SATURATE_KIND_QUOTA,
	SATURATE_KIND_STEAL,
	SATURATE_KIND_CONTENTION,
	SATURATE_KIND_PRIORITY,
	SATURATE_KIND_CORE_KINDS,
	SATURATE_KIND_SMT,
	SATURATE_KIND_NUMA,
	SATURATE_KIND_FREQUENCY,
	SATURATE_KIND_BASELINE,
	SATURATE_KIND_OVERSUBSCRIBED,
	SATURATE_KIND_GROUPS,
	SATURATE_KIND_PARKED,
	SATURATE_KIND_ECOQOS,
	SATURATE_KIND_UNEXPLAINED,
};

struct saturate_finding {
	enum saturate_kind kind;
	char evidence[512];
	char fix[512];
};

struct saturate_competitor {
	pid_t pid;
	char name[16];
	double cpus; /* CPU time taken, in CPUs (1.0: one whole CPU) */
	int nice;
};

enum saturate_cpu_kind {
	SATURATE_CPU_KIND_ONLY, /* a machine with one kind of CPU */
	SATURATE_CPU_KIND_PERFORMANCE,
	SATURATE_CPU_KIND_EFFICIENCY,
};

/* One logical CPU (hardware thread) of the machine. */
struct saturate_cpu {
	int cpu;  /* the system's number */
	int core; /* index into the machine's cores */
	int numa; /* index of its NUMA node, -1: unknown */
	enum saturate_cpu_kind kind;
	int group;   /* its processor group (Windows); 0 elsewhere */
	bool parked; /* the power manager had parked it (Windows) */
};

/* The machine as the judgement sees it: every present CPU, whatever is
 * online, in the system's order, and the cores they belong to. Filled
 * from hwloc here; any system that can count cores and siblings can
 * fill it. */
struct saturate_machine {
	struct saturate_cpu *cpus;
	size_t cpu_count, core_count, numa_count;
	size_t group_count; /* processor groups; 0 or 1: none to speak of */
	bool kinds;	    /* performance and efficiency CPUs */
};

/* Whose fixes a finding gives: a setting's name differs by system. */
enum saturate_system {
	SATURATE_SYSTEM_LINUX,
	SATURATE_SYSTEM_WINDOWS,
};

/* One step of the check: a fresh worker process, measured over a window
 * after its warm-up, on the wall clock; the CPU time its threads got in
 * the same window is the evidence beside it. */
struct saturate_step {
	unsigned threads;
	double units;  /* work units done in the window */
	double wall_s; /* the window, monotonic wall clock */
	double cpu_s;  /* CPU time of the threads in the window */
	double rel_se; /* relative standard error of the rate; 0: unknown */
};

enum saturate_yield {
	SATURATE_YIELD_NONE, /* no core has two hardware threads */
	SATURATE_YIELD_MEASURED,
	SATURATE_YIELD_GIVEN, /* --smt-yield */
	SATURATE_YIELD_ASSUMED,
};

/* The SMT step: one thread alone on a core, then one on each of its
 * hardware threads; the yield is what the siblings add to the one. */
struct saturate_smt {
	enum saturate_yield source;
	double yield; /* when given or assumed; else from the steps */
	struct saturate_step one, all;
	char core_cpus[64]; /* the measured core's CPUs */
};

struct saturate_input {
	unsigned threads;
	double seconds;
	const char *work;
	struct saturate_step single, run; /* one thread; all threads */
	struct saturate_smt smt;
	const struct saturate_machine *machine;
	double threshold;	     /* 0..1 */
	struct procstat_share *cpus; /* per-CPU time during the run */
	size_t cpu_count;
	hwloc_bitmap_t present, online, affinity, cpuset;
	char cgroup[256];	 /* where the quota comes from */
	char cpuset_cgroup[256]; /* and the cpuset */
	double quota_cpus;	 /* -1: no quota */
	struct saturate_competitor *competitors;
	size_t competitor_count;
	int our_nice;
	char governor[32], epp[32]; /* "" where unreadable */
	char driver[32];	    /* cpufreq's scaling_driver */
	bool max_freq_capped;
	double *thread_cpu_s; /* per worker thread, in the window */
	size_t thread_count;
	enum saturate_system system;
	bool min_cores_known;
	int min_cores; /* Windows' CPMINCORES, percent, when known */
	bool ecoqos;   /* Windows: the process ran with EcoQoS on */
};

/* JOBOBJECT_CPU_RATE_CONTROL_INFORMATION's ControlFlags, as Windows
 * numbers them. */
#define SATURATE_JOB_RATE_ENABLE   0x1
#define SATURATE_JOB_RATE_WEIGHT   0x2
#define SATURATE_JOB_RATE_HARD_CAP 0x4
#define SATURATE_JOB_RATE_MIN_MAX  0x10

struct saturate_findings {
	struct saturate_finding *list;
	size_t count;
};

/* One core: what it can do for the run's threads and what it did,
 * in one thread's rates. */
struct saturate_core {
	char cpus[64];
	unsigned siblings, online;
	double busy;	 /* its CPUs' busy time together, in CPUs */
	double capacity; /* 1, or 1 + yield with its siblings */
	double used;	 /* estimated from the busy time of its CPUs */
};

/* Why an efficiency reads above 100 %. */
enum saturate_above {
	SATURATE_ABOVE_NONE,
	SATURATE_ABOVE_NOISE,	 /* within the measurement's noise bound */
	SATURATE_ABOVE_BASELINE, /* the one thread did not have a CPU */
	SATURATE_ABOVE_CLOCK,	 /* more work per CPU second in the run */
	SATURATE_ABOVE_YIELD,	 /* the cores gave more than the yield said */
	SATURATE_ABOVE_UNKNOWN,
};

struct saturate_result {
	enum saturate_yield source; /* as the judgement took it */
	double efficiency;
	double capacity; /* in one thread's rates */
	double yield;	 /* the one used, 0 without SMT */
	double noise;	 /* 95 % bound of the efficiency's relative error */
	bool ok;
	enum saturate_above above;
	char above_why[256];
	struct saturate_core *cores;
	size_t core_count;
	struct saturate_findings findings;
};

/* saturate_common.c */
unsigned saturate_default_threads(unsigned present, unsigned online,
				  unsigned max);
int saturate_machine_load(struct saturate_machine *m,
			  const struct place_topology *topo,
			  hwloc_const_bitmap_t present);
void saturate_machine_groups(struct saturate_machine *m, unsigned group_bits);
void saturate_machine_park(struct saturate_machine *m,
			   hwloc_const_bitmap_t parked);
void saturate_machine_free(struct saturate_machine *m);
bool saturate_machine_smt(const struct saturate_machine *m);
bool saturate_machine_smt_core(const struct saturate_machine *m,
			       hwloc_const_bitmap_t usable, int *cpus,
			       unsigned *count, unsigned max);
double saturate_rel_se(const double *rates, size_t count);
double saturate_step_rate(const struct saturate_step *s);
double saturate_step_rate_cpu(const struct saturate_step *s);
double saturate_step_share(const struct saturate_step *s);
double saturate_smt_yield(const struct saturate_smt *smt);
double saturate_job_quota(unsigned flags, unsigned rate, unsigned max_rate,
			  unsigned cpus);
double saturate_capacity(const struct saturate_machine *m, unsigned threads,
			 double yield);
void saturate_judge(const struct saturate_input *in,
		    struct saturate_result *out);
void saturate_result_free(struct saturate_result *r);
size_t saturate_kind_count(void);
const char *saturate_kind_name(enum saturate_kind kind);
const char *saturate_yield_source(enum saturate_yield source);
bool saturate_found(const struct saturate_result *r, enum saturate_kind kind);

#endif
