/* The saturation check's report: a judged check (saturate.c) as text for
 * a person, as JSON, and as Prometheus series for the textfile collector
 * (saturate --textfile, and the state directory). Only drawing here:
 * every figure and finding is the judgement's. */
#include <stdio.h>

#include "jsonout.h"
#include "saturate.h"
#include "saturate_report.h"
#include "util.h"

static const struct saturate_cpu *saturate_report_cpu_of(
	const struct saturate_machine *m, int cpu)
{
	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].cpu == cpu)
			return &m->cpus[i];
	}
	return NULL;
}

static const char *saturate_report_kind_label(enum saturate_cpu_kind kind)
{
	switch (kind) {
	case SATURATE_CPU_KIND_ONLY:
		return NULL;
	case SATURATE_CPU_KIND_PERFORMANCE:
		return "performance";
	case SATURATE_CPU_KIND_EFFICIENCY:
		return "efficiency";
	}
	return NULL;
}

/* A CPU's bar; a parked one (Windows) says so. */
static void saturate_report_bar(FILE *out, const struct procstat_share *c,
				const struct saturate_cpu *s)
{
	int busy = (int)(c->busy * 40 + 0.5),
	    steal = (int)(c->steal * 40 + 0.5);

	fprintf(out, "    cpu%-4d [", c->cpu);
	for (int i = 0; i < 40; i++)
		fputc(i < busy ? '#' : i < busy + steal ? 's' : ' ', out);
	fprintf(out, "] %3.0f %%", c->busy * 100);
	if (c->steal >= 0.005)
		fprintf(out, "  steal %.0f %%", c->steal * 100);
	if (s && s->parked)
		fputs("  parked", out);
	fputc('\n', out);
}

/* One processor group's bars (-1: every CPU), by NUMA node and kind. */
static void saturate_report_cpus_group_text(const struct saturate_input *in,
					    int pgroup, FILE *out)
{
	const struct saturate_machine *m = in->machine;
	size_t groups = m->numa_count > 1 ? m->numa_count : 1;
	static const enum saturate_cpu_kind kinds[] = {
		SATURATE_CPU_KIND_PERFORMANCE,
		SATURATE_CPU_KIND_EFFICIENCY,
	};

	for (size_t g = 0; g < groups; g++) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
			bool said = false;

			for (size_t i = 0; i < in->cpu_count; i++) {
				const struct procstat_share *c = &in->cpus[i];
				const struct saturate_cpu *s =
					saturate_report_cpu_of(m, c->cpu);
				const char *kind =
					s ? saturate_report_kind_label(s->kind)
					  : NULL;

				if (groups > 1 && (!s || s->numa != (int)g))
					continue;
				if (pgroup >= 0 && (!s || s->group != pgroup))
					continue;
				if (kind ? s->kind != kinds[k] : k > 0)
					continue;
				if (!said)
					fprintf(out, "  NUMA node %zu%s%s:\n",
						g, kind ? ", " : "",
						kind ? kind : "");
				said = true;
				saturate_report_bar(out, c, s);
			}
		}
	}
}

/* Bars grouped by processor group where there are several, then NUMA
 * node, then CPU kind; a group's heading comes before its first CPU. */
static void saturate_report_cpus_text(const struct saturate_input *in,
				      FILE *out)
{
	const struct saturate_machine *m = in->machine;
	size_t pgroups = m->group_count > 1 ? m->group_count : 1;

	for (size_t pg = 0; pg < pgroups; pg++) {
		if (pgroups > 1)
			fprintf(out, "  processor group %zu:\n", pg);
		saturate_report_cpus_group_text(in, pgroups > 1 ? (int)pg : -1,
						out);
	}
}

static void saturate_report_step_text(const char *label,
				      const struct saturate_step *s, FILE *out)
{
	fprintf(out,
		"  %-18s %9.3f M units/s of wall-clock time over %.1f s; "
		"%.3f M per CPU second, on a CPU %.0f %% of the time\n",
		label, saturate_step_rate(s) / 1e6, s->wall_s,
		saturate_step_rate_cpu(s) / 1e6, saturate_step_share(s) * 100);
}

static void saturate_report_smt_text(const struct saturate_input *in,
				     const struct saturate_result *r, FILE *out)
{
	switch (r->source) {
	case SATURATE_YIELD_NONE:
		fprintf(out, "  %-18s %9s: one hardware thread a core\n",
			"SMT:", "none");
		return;
	case SATURATE_YIELD_MEASURED:
		fprintf(out,
			"  %-18s %+9.1f %%, measured on the core of CPUs %s: "
			"one thread %.3f, %u threads %.3f M units/s\n",
			"SMT yield:", r->yield * 100, in->smt.core_cpus,
			saturate_step_rate(&in->smt.one) / 1e6,
			in->smt.all.threads,
			saturate_step_rate(&in->smt.all) / 1e6);
		return;
	case SATURATE_YIELD_GIVEN:
	case SATURATE_YIELD_ASSUMED:
		fprintf(out, "  %-18s %+9.1f %%, %s\n",
			"SMT yield:", r->yield * 100,
			r->source == SATURATE_YIELD_GIVEN
				? "given (--smt-yield)"
				: "assumed: no core had all its hardware "
				  "threads to measure on");
		return;
	}
}

static void saturate_report_cores_text(const struct saturate_result *r,
				       FILE *out)
{
	fprintf(out, "cores (capacity and use in one thread's rates):\n");
	for (size_t i = 0; i < r->core_count; i++) {
		const struct saturate_core *c = &r->cores[i];

		fprintf(out,
			"  core %-4zu CPUs %-10s %u/%u online  busy %.2f  "
			"capacity %.2f  used %.2f  %3.0f %%\n",
			i, c->cpus, c->online, c->siblings, c->busy,
			c->capacity, c->used,
			c->capacity > 0 ? c->used / c->capacity * 100 : 0);
	}
}

void saturate_report_text(const struct saturate_input *in,
			  const struct saturate_result *r, FILE *out)
{
	const struct saturate_machine *m = in->machine;
	char label[32];

	fprintf(out, "saturate: %u threads for %.1f s, work %s\n", in->threads,
		in->seconds, in->work);
	fprintf(out,
		"machine: %zu CPUs present, %d online; %zu cores, %zu NUMA "
		"node%s\n",
		m->cpu_count, hwloc_bitmap_weight(in->online), m->core_count,
		m->numa_count, m->numa_count == 1 ? "" : "s");
	saturate_report_step_text("one thread alone:", &in->single, out);
	snprintf(label, sizeof(label), "all %u threads:", in->threads);
	saturate_report_step_text(label, &in->run, out);
	saturate_report_smt_text(in, r, out);
	fprintf(out, "  %-18s %9.2f one-thread rates\n",
		"capacity:", r->capacity);
	fprintf(out, "  %-18s %9.1f %% +- %.1f %% (%s %.0f %%)\n",
		"efficiency:", r->efficiency * 100, r->noise * 100,
		r->ok ? "at or above" : "BELOW", in->threshold * 100);
	if (r->above != SATURATE_ABOVE_NONE)
		fprintf(out, "  %-18s %9s  %s\n", "above 100 %:", "",
			r->above_why);
	fprintf(out, "CPU time during the run (# busy, s steal):\n");
	saturate_report_cpus_text(in, out);
	saturate_report_cores_text(r, out);
	if (in->thread_count) {
		fprintf(out, "CPU time of each worker thread:\n ");
		for (size_t i = 0; i < in->thread_count; i++)
			fprintf(out, " %.2fs", in->thread_cpu_s[i]);
		fputc('\n', out);
	}
	if (!r->findings.count) {
		fprintf(out, "findings: none\n");
		return;
	}
	fprintf(out, "findings:\n");
	for (size_t i = 0; i < r->findings.count; i++) {
		const struct saturate_finding *f = &r->findings.list[i];

		fprintf(out, "  - %s: %s\n    fix: %s\n",
			saturate_kind_name(f->kind), f->evidence, f->fix);
	}
}

static void saturate_report_step_json(struct json_object *doc, const char *key,
				      const struct saturate_step *s)
{
	struct json_object *j = jsonout_add_object(doc, key);

	jsonout_add_uint(j, "threads", s->threads);
	jsonout_add_fixed(j, "units", s->units, 0);
	jsonout_add_fixed(j, "wall_s", s->wall_s, 4);
	jsonout_add_fixed(j, "cpu_s", s->cpu_s, 4);
	jsonout_add_fixed(j, "rate", saturate_step_rate(s), 1);
	jsonout_add_fixed(j, "rate_per_cpu_s", saturate_step_rate_cpu(s), 1);
	jsonout_add_fixed(j, "cpu_share", saturate_step_share(s), 4);
	jsonout_add_fixed(j, "rel_se", s->rel_se, 5);
}

static const char *saturate_report_above_name(enum saturate_above above)
{
	switch (above) {
	case SATURATE_ABOVE_NONE:
		return NULL;
	case SATURATE_ABOVE_NOISE:
		return "noise";
	case SATURATE_ABOVE_BASELINE:
		return "baseline-shared";
	case SATURATE_ABOVE_CLOCK:
		return "clock";
	case SATURATE_ABOVE_YIELD:
		return "smt-yield";
	case SATURATE_ABOVE_UNKNOWN:
		return "unknown";
	}
	return NULL;
}

static void saturate_report_smt_json(struct json_object *doc,
				     const struct saturate_input *in,
				     const struct saturate_result *r)
{
	struct json_object *smt = jsonout_add_object(doc, "smt");

	jsonout_add_string(smt, "source", saturate_yield_source(r->source));
	jsonout_add_fixed(smt, "yield", r->yield, 4);
	if (r->source != SATURATE_YIELD_MEASURED)
		return;
	jsonout_add_string(smt, "core_cpus", in->smt.core_cpus);
	saturate_report_step_json(smt, "one", &in->smt.one);
	saturate_report_step_json(smt, "all", &in->smt.all);
}

static void saturate_report_cores_json(struct json_object *doc,
				       const struct saturate_result *r)
{
	struct json_object *cores = jsonout_add_array(doc, "cores");

	for (size_t i = 0; i < r->core_count; i++) {
		const struct saturate_core *c = &r->cores[i];
		struct json_object *j = json_object_new_object();

		jsonout_add_uint(j, "core", i);
		jsonout_add_string(j, "cpus", c->cpus);
		jsonout_add_uint(j, "siblings", c->siblings);
		jsonout_add_uint(j, "online", c->online);
		jsonout_add_fixed(j, "busy", c->busy, 4);
		jsonout_add_fixed(j, "capacity", c->capacity, 4);
		jsonout_add_fixed(j, "used", c->used, 4);
		json_object_array_add(cores, j);
	}
}

static void saturate_report_cpus_json(struct json_object *doc,
				      const struct saturate_input *in)
{
	struct json_object *cpus = jsonout_add_array(doc, "cpus");

	for (size_t i = 0; i < in->cpu_count; i++) {
		const struct procstat_share *c = &in->cpus[i];
		const struct saturate_cpu *s =
			saturate_report_cpu_of(in->machine, c->cpu);
		struct json_object *j = json_object_new_object();

		jsonout_add_int(j, "cpu", c->cpu);
		jsonout_add_int(j, "core", s ? s->core : -1);
		jsonout_add_int(j, "numa", s ? s->numa : -1);
		jsonout_add_string(j, "kind",
				   s ? saturate_report_kind_label(s->kind)
				     : NULL);
		jsonout_add_fixed(j, "busy", c->busy, 4);
		jsonout_add_fixed(j, "steal", c->steal, 4);
		/* Windows' processor group and the power manager's parking. */
		if (in->system == SATURATE_SYSTEM_WINDOWS) {
			jsonout_add_int(j, "group", s ? s->group : -1);
			jsonout_add_bool(j, "parked", s && s->parked);
		}
		json_object_array_add(cpus, j);
	}
}

static void saturate_report_findings_json(struct json_object *doc,
					  const struct saturate_result *r)
{
	struct json_object *findings = jsonout_add_array(doc, "findings");

	for (size_t i = 0; i < r->findings.count; i++) {
		const struct saturate_finding *f = &r->findings.list[i];
		struct json_object *j = json_object_new_object();

		jsonout_add_string(j, "kind", saturate_kind_name(f->kind));
		jsonout_add_string(j, "evidence", f->evidence);
		jsonout_add_string(j, "fix", f->fix);
		json_object_array_add(findings, j);
	}
}

static void saturate_report_above_json(struct json_object *doc,
				       const struct saturate_result *r)
{
	const char *above = saturate_report_above_name(r->above);
	struct json_object *j;

	if (!above) {
		jsonout_add(doc, "above_100", NULL);
		return;
	}
	j = jsonout_add_object(doc, "above_100");
	jsonout_add_string(j, "cause", above);
	jsonout_add_string(j, "why", r->above_why);
}

void saturate_report_json(const struct saturate_input *in,
			  const struct saturate_result *r, FILE *out)
{
	struct json_object *doc = json_object_new_object(), *thread_cpu_s;

	jsonout_add_uint(doc, "threads", in->threads);
	jsonout_add_fixed(doc, "seconds", in->seconds, 3);
	jsonout_add_string(doc, "work", in->work);
	jsonout_add_uint(doc, "cpus_present", in->machine->cpu_count);
	jsonout_add_int(doc, "cpus_online", hwloc_bitmap_weight(in->online));
	jsonout_add_uint(doc, "core_count", in->machine->core_count);
	jsonout_add_uint(doc, "numa_nodes", in->machine->numa_count);
	jsonout_add_fixed(doc, "single_rate", saturate_step_rate(&in->single),
			  1);
	jsonout_add_fixed(doc, "total_rate", saturate_step_rate(&in->run), 1);
	saturate_report_step_json(doc, "single", &in->single);
	saturate_report_step_json(doc, "run", &in->run);
	saturate_report_smt_json(doc, in, r);
	jsonout_add_fixed(doc, "capacity", r->capacity, 4);
	jsonout_add_fixed(doc, "efficiency", r->efficiency, 4);
	jsonout_add_fixed(doc, "noise", r->noise, 4);
	saturate_report_above_json(doc, r);
	jsonout_add_fixed(doc, "threshold", in->threshold, 4);
	jsonout_add_bool(doc, "ok", r->ok);
	saturate_report_cpus_json(doc, in);
	saturate_report_cores_json(doc, r);
	thread_cpu_s = jsonout_add_array(doc, "thread_cpu_s");
	for (size_t i = 0; i < in->thread_count; i++)
		json_object_array_add(thread_cpu_s,
				      jsonout_fixed(in->thread_cpu_s[i], 3));
	saturate_report_findings_json(doc, r);
	jsonout_write(out, doc);
}

static void saturate_report_metric(FILE *out, const char *name,
				   const char *help)
{
	fprintf(out, "# HELP cpupolicy_saturate_%s %s\n", name, help);
	fprintf(out, "# TYPE cpupolicy_saturate_%s gauge\n", name);
}

static void saturate_report_metrics_rates(const struct saturate_input *in,
					  FILE *out)
{
	saturate_report_metric(
		out, "rate",
		"Work units per second of wall-clock time, of one "
		"thread alone (step single) and of all threads (step "
		"run).");
	fprintf(out, "cpupolicy_saturate_rate{step=\"single\"} %.1f\n",
		saturate_step_rate(&in->single));
	fprintf(out, "cpupolicy_saturate_rate{step=\"run\"} %.1f\n",
		saturate_step_rate(&in->run));
	saturate_report_metric(out, "cpu_share",
			       "The share of a CPU each thread of a step had.");
	fprintf(out, "cpupolicy_saturate_cpu_share{step=\"single\"} %.4f\n",
		saturate_step_share(&in->single));
	fprintf(out, "cpupolicy_saturate_cpu_share{step=\"run\"} %.4f\n",
		saturate_step_share(&in->run));
}

static void saturate_report_metrics_cores(const struct saturate_result *r,
					  FILE *out)
{
	saturate_report_metric(
		out, "core_use",
		"What a core did of what it can do (1: all of it), "
		"in the last check.");
	for (size_t i = 0; i < r->core_count; i++)
		fprintf(out,
			"cpupolicy_saturate_core_use{core=\"%zu\",cpus=\"%s\"} "
			"%.4f\n",
			i, r->cores[i].cpus,
			r->cores[i].capacity > 0
				? r->cores[i].used / r->cores[i].capacity
				: 0);
	saturate_report_metric(
		out, "core_busy_cpus",
		"The busy time of a core's hardware threads together, "
		"in CPUs.");
	for (size_t i = 0; i < r->core_count; i++)
		fprintf(out,
			"cpupolicy_saturate_core_busy_cpus{core=\"%zu\",cpus="
			"\"%s\"} %.4f\n",
			i, r->cores[i].cpus, r->cores[i].busy);
}

/* The last check as Prometheus series: every finding kind has a series,
 * 0 or 1, so that an alert can tell a finding gone from a series gone. */
void saturate_report_metrics(const struct saturate_input *in,
			     const struct saturate_result *r, long long when,
			     FILE *out)
{
	saturate_report_metric(
		out, "efficiency",
		"Efficiency of the last saturation check: all "
		"threads' rate over what the cores can do (1: every "
		"core worked).");
	fprintf(out, "cpupolicy_saturate_efficiency %.4f\n", r->efficiency);
	saturate_report_metric(out, "threshold", "Its threshold.");
	fprintf(out, "cpupolicy_saturate_threshold %.4f\n", in->threshold);
	saturate_report_metric(out, "ok",
			       "1: the efficiency was at or above it.");
	fprintf(out, "cpupolicy_saturate_ok %d\n", r->ok);
	saturate_report_metric(out, "threads", "Its worker threads.");
	fprintf(out, "cpupolicy_saturate_threads %u\n", in->threads);
	saturate_report_metric(
		out, "capacity",
		"What the cores can do for them, in one thread's "
		"rates.");
	fprintf(out, "cpupolicy_saturate_capacity %.4f\n", r->capacity);
	saturate_report_metric(out, "noise",
			       "The efficiency's relative error, at 95 %.");
	fprintf(out, "cpupolicy_saturate_noise %.4f\n", r->noise);
	saturate_report_metric(
		out, "smt_yield",
		"What a core's other hardware threads add to one "
		"thread (0 without SMT).");
	fprintf(out, "cpupolicy_saturate_smt_yield{source=\"%s\"} %.4f\n",
		saturate_yield_source(r->source), r->yield);
	saturate_report_metrics_rates(in, out);
	saturate_report_metrics_cores(r, out);
	saturate_report_metric(
		out, "finding",
		"1: the last check found this (see cpupolicyctl(8), "
		"Findings).");
	for (size_t k = 0; k < saturate_kind_count(); k++)
		fprintf(out, "cpupolicy_saturate_finding{kind=\"%s\"} %d\n",
			saturate_kind_name((enum saturate_kind)k),
			saturate_found(r, (enum saturate_kind)k));
	saturate_report_metric(out, "timestamp_seconds",
			       "When it ran (Unix time).");
	fprintf(out, "cpupolicy_saturate_timestamp_seconds %lld\n", when);
}

/* A scheduled check's decision: run, or skip a machine too busy. */
void saturate_report_attempt(bool skipped, double busy, double limit,
			     long long when, FILE *out)
{
	saturate_report_metric(
		out, "skipped",
		"1: the last scheduled check found the machine busy "
		"and did not run.");
	fprintf(out, "cpupolicy_saturate_skipped %d\n", skipped);
	saturate_report_metric(
		out, "attempt_busy",
		"How busy the machine was before it, as a fraction of "
		"its CPUs.");
	fprintf(out, "cpupolicy_saturate_attempt_busy %.4f\n", busy);
	saturate_report_metric(out, "attempt_idle_limit",
			       "The busy fraction above which it skips.");
	fprintf(out, "cpupolicy_saturate_attempt_idle_limit %.4f\n", limit);
	saturate_report_metric(out, "attempt_timestamp_seconds",
			       "When it decided (Unix time).");
	fprintf(out, "cpupolicy_saturate_attempt_timestamp_seconds %lld\n",
		when);
}
