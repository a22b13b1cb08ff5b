/* saturate --compare --restraint's arithmetic and report, pure: the
 * options it refuses, a trial's figures from its frames and the hogs'
 * counts, each arm's medians, the paired differences B - A with the sign
 * test's interval (compare_median_diff), as text and as JSON. The trials
 * themselves are saturate_restraint.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "frames.h"
#include "jsonout.h"
#include "prio.h"
#include "saturate_compare.h"
#include "util.h"

#define NS_PER_MS 1000000LL

/* The options --restraint does not take, and those only it takes; NULL
 * when the set holds. */
const char *saturate_restraint_report_refusal(const struct saturate_opts *o,
					      bool pairs_set)
{
	(void)pairs_set;
	if (o->user && !o->restraint)
		return "--user names the hogs' account of --compare "
		       "--restraint";
	if (!o->restraint)
		return NULL;
	if (o->compare)
		return "--compare takes a rule body or --restraint, not both";
	if (o->threads || o->work_set || o->background || o->probe)
		return "--threads, --work, --background and --probe are not "
		       "for --restraint: its load is the frame task and two "
		       "CPU hogs per CPU";
	if (o->seconds && o->seconds < SATURATE_RESTRAINT_SECONDS_MIN)
		return "--seconds: a --restraint trial is 3 s at least (the "
		       "hogs start 1 s in, frames count from 1 s after)";
	return NULL;
}

void saturate_restraint_report_times(long long now, double seconds,
				     struct saturate_restraint_times *t)
{
	/* Time for the frame thread's start, before its first frame. */
	t->start = now + 50 * NS_PER_MS;
	t->hogs = t->start + SATURATE_RESTRAINT_HOGS_AT_MS * NS_PER_MS;
	t->from = t->hogs + FRAMES_SETTLED_MS * NS_PER_MS;
	t->stop = t->start + (long long)(seconds * 1e9);
}

/* What restraint gives, as the benchmark reads it: nice above 0,
 * SCHED_BATCH or SCHED_IDLE (on Windows a class below normal, which
 * prio_state has as a nice above 0). */
bool saturate_restraint_report_lowered(const struct prio_state *prio)
{
	return prio->nice > 0 || prio->policy == RULE_POLICY_BATCH ||
	       prio->policy == RULE_POLICY_IDLE;
}

void saturate_restraint_report_trial(
	const struct frames_frame *frames, int count,
	const struct saturate_restraint_times *t,
	const struct saturate_restraint_counts *from,
	const struct saturate_restraint_counts *to, long long relief_at,
	struct saturate_restraint_trial *out)
{
	double window = (double)(t->stop - t->from) / 1e9;
	struct frames_window w;

	frames_window(frames, count, t->from, t->stop, t->stop, &w);
	*out = (struct saturate_restraint_trial){
		.frames = w.frames,
		.missed = w.missed,
		.p50_ns = w.p50_ns,
		.p99_ns = w.p99_ns,
		.relief_ns = relief_at > 0 ? relief_at - t->hogs : -1,
	};
	if (window > 0 && to->spins >= from->spins) {
		out->spins_s = (double)(to->spins - from->spins) / window;
		out->cpus = (double)(to->cpu_ns - from->cpu_ns) / 1e9 / window;
	}
}

static double saturate_restraint_figure(
	const struct saturate_restraint_trial *t,
	enum saturate_restraint_figure f)
{
	switch (f) {
	case SATURATE_RESTRAINT_MISSED:
		return t->frames ? 100.0 * t->missed / t->frames : 0;
	case SATURATE_RESTRAINT_P50:
		return (double)t->p50_ns / 1e6;
	case SATURATE_RESTRAINT_P99:
		return (double)t->p99_ns / 1e6;
	case SATURATE_RESTRAINT_SPINS:
		return t->spins_s / 1e6;
	case SATURATE_RESTRAINT_CPUS:
		return t->cpus;
	case SATURATE_RESTRAINT_FIGURES:
		break;
	}
	return 0;
}

static int saturate_restraint_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double saturate_restraint_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), saturate_restraint_double_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* -1 for no pairs. */
int saturate_restraint_report_summarise(
	const struct saturate_restraint_trial *a,
	const struct saturate_restraint_trial *b, unsigned pairs,
	struct saturate_restraint_summary *s)
{
	const struct saturate_restraint_trial *arm[2] = {a, b};
	double *x[2], *relief;

	*s = (struct saturate_restraint_summary){.pairs = pairs};
	if (!pairs)
		return -1;
	x[0] = xcalloc(pairs, sizeof(double));
	x[1] = xcalloc(pairs, sizeof(double));
	relief = xcalloc(pairs, sizeof(double));
	for (unsigned f = 0; f < SATURATE_RESTRAINT_FIGURES; f++) {
		double *sorted = xcalloc(pairs, sizeof(double));

		for (unsigned k = 0; k < 2; k++) {
			for (unsigned i = 0; i < pairs; i++)
				x[k][i] = saturate_restraint_figure(
					&arm[k][i],
					(enum saturate_restraint_figure)f);
			memcpy(sorted, x[k], pairs * sizeof(double));
			s->median[k][f] =
				saturate_restraint_median(sorted, pairs);
		}
		free(sorted);
		compare_median_diff(x[0], x[1], pairs, 0.95, &s->diff[f]);
	}
	for (unsigned k = 0; k < 2; k++) {
		size_t n = 0;

		for (unsigned i = 0; i < pairs; i++) {
			s->frames[k] += arm[k][i].frames;
			s->missed[k] += arm[k][i].missed;
			s->task_restrained += arm[k][i].task_restrained;
			if (arm[k][i].relief_ns >= 0)
				relief[n++] = (double)arm[k][i].relief_ns / 1e9;
		}
		s->relief_trials[k] = (unsigned)n;
		s->relief_s[k] = saturate_restraint_median(relief, n);
	}
	free(relief);
	free(x[0]);
	free(x[1]);
	return 0;
}

static const struct {
	const char *label, *unit, *diff_unit, *json;
	int decimals;
} saturate_restraint_figures[SATURATE_RESTRAINT_FIGURES] = {
	[SATURATE_RESTRAINT_MISSED] = {"frames missed", " %", " points",
				       "missed_pct", 1},
	[SATURATE_RESTRAINT_P50] = {"lateness p50", " ms", " ms", "p50_ms", 1},
	[SATURATE_RESTRAINT_P99] = {"lateness p99", " ms", " ms", "p99_ms", 1},
	[SATURATE_RESTRAINT_SPINS] = {"hogs' throughput", " M spins/s",
				      " M spins/s", "hogs_mspins_s", 2},
	[SATURATE_RESTRAINT_CPUS] = {"hogs' CPU time", " CPUs", " CPUs",
				     "hogs_cpus", 2},
};

static void saturate_restraint_relief_text(
	const struct saturate_restraint_summary *s, unsigned k, FILE *out)
{
	if (!s->relief_trials[k])
		fprintf(out, "none in %u trial%s", s->pairs,
			s->pairs == 1 ? "" : "s");
	else
		fprintf(out, "%.2f s (median; in %u of %u trials)",
			s->relief_s[k], s->relief_trials[k], s->pairs);
}

void saturate_restraint_report_text(const struct saturate_restraint_setup *su,
				    const struct saturate_restraint_summary *s,
				    FILE *out)
{
	fprintf(out, "compare: A %s, B restraint on (cpupolicyd)\n",
		su->exempt ? "the hogs exempt from restraint"
			   : "restraint paused");
	fprintf(out,
		"  %u pair%s of %.1f s trials; order A B, B A, ...: A first "
		"in %u, B first in %u\n",
		su->pairs, su->pairs == 1 ? "" : "s", su->seconds,
		(su->pairs + 1) / 2, su->pairs / 2);
	fprintf(out,
		"  a frame task in cpupolicyctl (every %.1f ms, %.1f ms of "
		"its CPU time); %u CPU hogs of %s from %.1f s into each "
		"trial; frames and throughput counted from %.1f s\n",
		FRAMES_PERIOD_US / 1000.0, FRAMES_WORK_US / 1000.0, su->hogs,
		su->user, SATURATE_RESTRAINT_HOGS_AT_MS / 1000.0,
		(SATURATE_RESTRAINT_HOGS_AT_MS + FRAMES_SETTLED_MS) / 1000.0);
	for (unsigned f = 0; f < SATURATE_RESTRAINT_FIGURES; f++) {
		const struct compare_median *d = &s->diff[f];
		int dec = saturate_restraint_figures[f].decimals;

		fprintf(out, "  %-17s A %*.*f%s, B %*.*f%s; B-A %+.*f%s",
			saturate_restraint_figures[f].label, 7, dec,
			s->median[0][f], saturate_restraint_figures[f].unit, 7,
			dec, s->median[1][f],
			saturate_restraint_figures[f].unit, dec, d->median,
			saturate_restraint_figures[f].diff_unit);
		fprintf(out,
			"  (%.0f %% interval %+.*f .. %+.*f; the median of the "
			"paired differences, the sign test's)\n",
			d->level * 100, dec, d->low, dec, d->high);
	}
	fprintf(out, "  frames in all:    A %d missed of %d, B %d of %d\n",
		s->missed[0], s->frames[0], s->missed[1], s->frames[1]);
	fprintf(out, "  relief (every hog lowered, from their start): A ");
	saturate_restraint_relief_text(s, 0, out);
	fprintf(out, "; B ");
	saturate_restraint_relief_text(s, 1, out);
	fprintf(out, "\n");
	if (s->task_restrained)
		fprintf(out,
			"  the frame task was restrained in %u trial%s: its "
			"figures are not the foreground's\n",
			s->task_restrained, s->task_restrained == 1 ? "" : "s");
	else
		fprintf(out, "  the frame task was never restrained\n");
	fprintf(out, "  (medians of each arm's trials)\n");
}

static void saturate_restraint_trials_json(
	struct json_object *doc, const char *key,
	const struct saturate_restraint_trial *t, unsigned pairs)
{
	struct json_object *list = jsonout_add_array(doc, key);

	for (unsigned i = 0; i < pairs; i++) {
		struct json_object *o = json_object_new_object();

		jsonout_add_int(o, "frames", t[i].frames);
		jsonout_add_int(o, "missed", t[i].missed);
		jsonout_add_fixed(o, "p50_ms", (double)t[i].p50_ns / 1e6, 3);
		jsonout_add_fixed(o, "p99_ms", (double)t[i].p99_ns / 1e6, 3);
		jsonout_add_fixed(o, "hogs_spins_s", t[i].spins_s, 0);
		jsonout_add_fixed(o, "hogs_cpus", t[i].cpus, 3);
		if (t[i].relief_ns >= 0)
			jsonout_add_fixed(o, "relief_s",
					  (double)t[i].relief_ns / 1e9, 3);
		jsonout_add_bool(o, "task_restrained", t[i].task_restrained);
		json_object_array_add(list, o);
	}
}

void saturate_restraint_report_json(const struct saturate_restraint_setup *su,
				    const struct saturate_restraint_summary *s,
				    const struct saturate_restraint_trial *a,
				    const struct saturate_restraint_trial *b,
				    FILE *out)
{
	struct json_object *doc = json_object_new_object(), *trials;

	jsonout_add_string(doc, "compare", "restraint");
	jsonout_add_string(doc, "a", su->exempt ? "hogs exempt" : "paused");
	jsonout_add_string(doc, "b", "on");
	jsonout_add_uint(doc, "pairs", su->pairs);
	jsonout_add_string(doc, "order", "AB BA");
	jsonout_add_fixed(doc, "seconds", su->seconds, 3);
	jsonout_add_uint(doc, "hogs", su->hogs);
	jsonout_add_string(doc, "user", su->user);
	jsonout_add_string(doc, "estimator", "median of paired differences");
	for (unsigned f = 0; f < SATURATE_RESTRAINT_FIGURES; f++) {
		struct json_object *o = jsonout_add_object(
			doc, saturate_restraint_figures[f].json);
		struct json_object *ci;

		jsonout_add_fixed(o, "a", s->median[0][f], 3);
		jsonout_add_fixed(o, "b", s->median[1][f], 3);
		jsonout_add_fixed(o, "diff", s->diff[f].median, 3);
		ci = jsonout_add_array(o, "interval");
		json_object_array_add(ci, jsonout_fixed(s->diff[f].low, 3));
		json_object_array_add(ci, jsonout_fixed(s->diff[f].high, 3));
		jsonout_add_fixed(o, "level", s->diff[f].level, 4);
	}
	for (unsigned k = 0; k < 2; k++) {
		char key[16];

		snprintf(key, sizeof(key), "relief_s_%c", k ? 'b' : 'a');
		if (s->relief_trials[k])
			jsonout_add_fixed(doc, key, s->relief_s[k], 3);
		snprintf(key, sizeof(key), "relief_trials_%c", k ? 'b' : 'a');
		jsonout_add_uint(doc, key, s->relief_trials[k]);
	}
	jsonout_add_uint(doc, "task_restrained", s->task_restrained);
	trials = jsonout_add_object(doc, "trials");
	saturate_restraint_trials_json(trials, "a", a, su->pairs);
	saturate_restraint_trials_json(trials, "b", b, su->pairs);
	jsonout_write(out, doc);
}
