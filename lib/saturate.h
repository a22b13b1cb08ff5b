/* The saturation check's analysis: from what was measured (throughputs,
 * per-CPU time, the process's limits, the competition) to findings, each
 * with its evidence and the fix, and the report as text or JSON. Pure:
 * the CLI measures, this decides and draws. */
#ifndef CPUPOLICY_SATURATE_H
#define CPUPOLICY_SATURATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "place.h"
#include "procstat.h"

enum saturate_kind {
	SATURATE_KIND_OFFLINE,
	SATURATE_KIND_AFFINITY,
	SATURATE_KIND_CPUSET,
	SATURATE_KIND_QUOTA,
	SATURATE_KIND_STEAL,
	SATURATE_KIND_CONTENTION,
	SATURATE_KIND_PRIORITY,
	SATURATE_KIND_CORE_KINDS,
	SATURATE_KIND_FREQUENCY,
	SATURATE_KIND_OVERSUBSCRIBED,
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

struct saturate_input {
	unsigned threads;
	double seconds;
	const char *work;
	double single_rate, total_rate; /* work units per second */
	double threshold;		/* 0..1 */
	struct procstat_share *cpus;	/* per-CPU time during the run */
	size_t cpu_count;
	hwloc_bitmap_t possible, online, affinity, cpuset;
	char cgroup[256];	 /* where the quota comes from */
	char cpuset_cgroup[256]; /* and the cpuset */
	double quota_cpus;	 /* -1: no quota */
	struct saturate_competitor *competitors;
	size_t competitor_count;
	int our_nice;
	char governor[32], epp[32]; /* "" where unreadable */
	char driver[32];	    /* cpufreq's scaling_driver */
	bool max_freq_capped;
	double *thread_cpu_s; /* per worker thread */
	size_t thread_count;
};

struct saturate_findings {
	struct saturate_finding *list;
	size_t count;
};

/* saturate.c */
double saturate_efficiency(const struct saturate_input *in);
void saturate_diagnose(const struct saturate_input *in,
		       const struct place_topology *topo,
		       struct saturate_findings *out);
void saturate_findings_free(struct saturate_findings *findings);
const char *saturate_kind_name(enum saturate_kind kind);
void saturate_render_text(const struct saturate_input *in,
			  const struct place_topology *topo,
			  const struct saturate_findings *findings, FILE *out);
void saturate_render_json(const struct saturate_input *in,
			  const struct place_topology *topo,
			  const struct saturate_findings *findings, FILE *out);

#endif
