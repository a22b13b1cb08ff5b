/* cpupolicyctl saturate --compare: what a policy gains and costs.
 * Paired trials in A B, B A order, A the workers as they are and B the
 * same workers with the rule body applied, each trial a fresh worker
 * process measured as the check measures a step (saturate_measure);
 * optional background load at normal priority, and a latency probe, show
 * what the policy costs the rest of the machine. The statistics are
 * lib/compare.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "ctl.h"
#include "jsonout.h"
#include "os.h"
#include "place.h"
#include "prio.h"
#include "rules.h"
#include "saturate.h"
#include "saturate_compare.h"
#include "util.h"
#include "work.h"

int saturate_compare_policy_setup(void *ctx)
{
	struct saturate_compare_policy *b = ctx;
	struct prio_state now, wanted;

	if (prio_target_empty(&b->prio))
		return 0;
	if (apply_prio_read(0, 0, &now) != OS_OK)
		return -1;
	prio_expected(&b->prio, &now, &wanted);
	return apply_prio_write(0, 0, &now, &wanted) == OS_OK ? 0 : -1;
}

enum os_status saturate_compare_policy_thread(void *ctx, pthread_t thread,
					      unsigned index)
{
	struct saturate_compare_policy *b = ctx;

	if (!b->place.active)
		return OS_OK;
	return work_pin(thread, place_plan_thread(&b->place, (int)index));
}

int saturate_compare_policy_parse(struct saturate_env *env, const char *body,
				  struct saturate_compare_policy *b)
{
	char *text = xasprintf("rules = ( { name = \"compare\"; match = { exe "
			       "= \"/compare\"; }; %s } );\n",
			       body);
	struct diag diag;
	char why[128];
	int status = 0;

	*b = (struct saturate_compare_policy){0};
	rules_init(&b->rules);
	diag_init(&diag);
	rules_load_text(&b->rules, "--compare", text, strlen(text), &diag);
	diag_print(&diag, stderr, true);
	if (diag.errors || b->rules.count != 1) {
		status = -1;
	} else {
		b->rule = &b->rules.list[0];
		if (rules_has_power(b->rule)) {
			fprintf(stderr,
				"cpupolicyctl: --compare measures "
				"priority and placement; power keys "
				"are held by cpupolicyd (write a rule "
				"and compare with the daemon running)\n");
			status = -1;
		}
		prio_target_for_system(&b->rule->priority,
				       rules_target(&b->rules), &b->prio);
		if (status == 0 && rules_places(b->rule) &&
		    (!env->have_topo ||
		     place_plan_make(&env->topo, rules_placement(b->rule),
				     env->topo.all, NULL, &b->place, why,
				     sizeof(why)) < 0)) {
			fprintf(stderr, "cpupolicyctl: --compare: %s\n",
				env->have_topo ? why : "no CPU topology");
			status = -1;
		}
	}
	diag_free(&diag);
	free(text);
	return status;
}

/* The probe's lateness in one trial's window, in microseconds, added to
 * its arm's pool; the slots it missed. */
static void saturate_compare_probe_window(const struct work_probe *probe,
					  long long from, long long to,
					  struct compare_pool *pool,
					  unsigned *missed)
{
	unsigned count = __atomic_load_n(&probe->count, __ATOMIC_ACQUIRE);
	double *late = xcalloc(count ? count : 1, sizeof(*late));
	size_t n = 0;

	for (unsigned i = 0; i < count; i++) {
		if (probe->at[i] < from || probe->at[i] >= to)
			continue;
		late[n++] = (double)probe->late[i] / 1e3;
		if (probe->late[i] >= probe->period_ns)
			*missed +=
				(unsigned)(probe->late[i] / probe->period_ns);
	}
	compare_pool_add(pool, late, n);
	free(late);
}

struct saturate_compare_arm {
	double *rates;	    /* per pair */
	double *background; /* its rate over its rate alone, per pair */
	struct compare_pool probe;
	unsigned missed;
	double p99_us, p999_us;
	char prio[128]; /* its workers' priority as read in its first trial */
};

struct saturate_compare_trials {
	struct saturate_compare_policy b;
	struct work_spec spec[2];
	struct saturate_compare_arm arm[2];
	struct work_shared *bg;
	struct work_probe *probe;
	pid_t bg_pid, probe_pid;
	double bg_alone;
};

static int saturate_compare_trial(struct saturate_env *env,
				  const struct saturate_opts *o,
				  struct saturate_compare_trials *t,
				  unsigned pair, unsigned which)
{
	struct saturate_window w = {0};
	struct saturate_step step;
	struct prio_state prio;
	unsigned long long bg_c = 0;
	long long from = timing_now_ns();

	if (t->bg)
		bg_c = work_total(t->bg, o->background);
	if (saturate_measure(env, &t->spec[which], o->seconds, &w, &step, NULL,
			     &prio) < 0) {
		fprintf(stderr, "cpupolicyctl: a trial failed (raising "
				"priority needs root or CAP_SYS_NICE)\n");
		return -1;
	}
	t->arm[which].rates[pair] = saturate_step_rate(&step);
	if (!t->arm[which].prio[0])
		prio_describe_state(&prio, t->arm[which].prio,
				    sizeof(t->arm[which].prio));
	if (t->bg)
		t->arm[which].background[pair] =
			(double)(work_total(t->bg, o->background) - bg_c) /
			((double)(timing_now_ns() - from) / 1e9) / t->bg_alone;
	if (t->probe)
		saturate_compare_probe_window(t->probe, from, timing_now_ns(),
					      &t->arm[which].probe,
					      &t->arm[which].missed);
	if (!o->json && system_is_terminal(stderr))
		fprintf(stderr, "\r  pair %u/%u  %s %.3f M/s", pair + 1,
			o->pairs, which ? "B" : "A",
			saturate_step_rate(&step) / 1e6);
	return 0;
}

/* The background's rate alone first, as the baseline of its cost; then it
 * and the probe run through every trial. */
static int saturate_compare_trials_start(struct saturate_env *env,
					 const struct saturate_opts *o,
					 struct saturate_compare_trials *t)
{
	struct work_spec bg_spec = {.threads = o->background,
				    .kind = WORK_KIND_INT};

	if (o->background) {
		struct saturate_window w = {0};
		struct saturate_step alone;

		if (saturate_measure(env, &bg_spec, o->seconds, &w, &alone,
				     NULL, NULL) < 0)
			return -1;
		t->bg_alone = saturate_step_rate(&alone);
		t->bg = work_shared_new();
		if (!t->bg ||
		    work_start(&bg_spec, t->bg, &t->bg_pid) != OS_OK ||
		    t->bg_alone <= 0)
			return -1;
		t->bg->start = 1;
	}
	if (o->probe) {
		t->probe = work_probe_new();
		if (!t->probe ||
		    work_probe_start(t->probe, 1000, &t->probe_pid) != OS_OK)
			return -1;
	}
	return 0;
}

static void saturate_compare_trials_free(struct saturate_compare_trials *t)
{
	if (t->bg_pid > 0)
		work_stop(t->bg_pid, t->bg);
	if (t->bg)
		work_shared_free(t->bg);
	if (t->probe_pid > 0)
		work_probe_stop(t->probe_pid, t->probe);
	if (t->probe)
		work_probe_free(t->probe);
	for (unsigned i = 0; i < 2; i++) {
		free(t->arm[i].rates);
		free(t->arm[i].background);
		compare_pool_free(&t->arm[i].probe);
	}
	place_plan_free(&t->b.place);
	rules_free(&t->b.rules);
}

static void saturate_compare_arm_percentiles(struct saturate_compare_arm *arm)
{
	arm->p99_us = compare_pool_percentile(&arm->probe, 0.99);
	arm->p999_us = compare_pool_percentile(&arm->probe, 0.999);
}

static void saturate_compare_probe_json(struct json_object *doc,
					const char *key,
					const struct saturate_compare_arm *arm)
{
	struct json_object *j = jsonout_add_object(doc, key);

	jsonout_add_fixed(j, "p99_us", arm->p99_us, 1);
	jsonout_add_fixed(j, "p999_us", arm->p999_us, 1);
	jsonout_add_uint(j, "missed", arm->missed);
	jsonout_add_uint(j, "samples", arm->probe.count);
	jsonout_add_fixed(j, "worst_trial_p99_us", arm->probe.worst_p99, 1);
}

static void saturate_compare_json(const struct saturate_opts *o,
				  const struct saturate_compare_trials *t,
				  const struct compare_summary *sum)
{
	struct json_object *doc = json_object_new_object(), *ci95, *trials;

	jsonout_add_string(doc, "compare", o->compare);
	jsonout_add_uint(doc, "pairs", o->pairs);
	jsonout_add_string(doc, "order", "AB BA");
	jsonout_add_uint(doc, "threads", o->threads);
	jsonout_add_fixed(doc, "seconds", o->seconds, 3);
	jsonout_add_string(doc, "estimator", "mean of log ratios");
	jsonout_add_fixed(doc, "rate_a", sum->geo_a, 1);
	jsonout_add_fixed(doc, "rate_b", sum->geo_b, 1);
	jsonout_add_fixed(doc, "change", sum->change, 4);
	ci95 = jsonout_add_array(doc, "ci95");
	json_object_array_add(ci95, jsonout_fixed(sum->low, 4));
	json_object_array_add(ci95, jsonout_fixed(sum->high, 4));
	jsonout_add_fixed(doc, "t", sum->t, 4);
	jsonout_add_uint(doc, "df", o->pairs - 1);
	trials = jsonout_add_object(doc, "trials");
	for (unsigned arm = 0; arm < 2; arm++) {
		struct json_object *rates =
			jsonout_add_array(trials, arm ? "b" : "a");

		for (unsigned i = 0; i < o->pairs; i++)
			json_object_array_add(
				rates, jsonout_fixed(t->arm[arm].rates[i], 1));
	}
	jsonout_add_string(doc, "priority_a", t->arm[0].prio);
	jsonout_add_string(doc, "priority_b", t->arm[1].prio);
	if (t->bg) {
		jsonout_add_fixed(doc, "background_alone", t->bg_alone, 1);
		jsonout_add_fixed(
			doc, "background_a",
			compare_geomean(t->arm[0].background, o->pairs), 4);
		jsonout_add_fixed(
			doc, "background_b",
			compare_geomean(t->arm[1].background, o->pairs), 4);
	}
	if (t->probe) {
		saturate_compare_probe_json(doc, "probe_a", &t->arm[0]);
		saturate_compare_probe_json(doc, "probe_b", &t->arm[1]);
	}
	jsonout_write(stdout, doc);
}

static void saturate_compare_text(const struct saturate_opts *o,
				  const struct saturate_compare_trials *t,
				  const struct compare_summary *sum)
{
	printf("compare: A as is, B with: %s\n", o->compare);
	printf("  %u pairs of %.1f s trials, %u thread%s, work %s; order A B, "
	       "B A, ...: A first in %u, B first in %u\n",
	       o->pairs, o->seconds, o->threads, o->threads == 1 ? "" : "s",
	       o->work, o->pairs / 2, o->pairs / 2);
	printf("  throughput A: %10.3f M units/s (geometric mean of %u "
	       "trials)\n",
	       sum->geo_a / 1e6, o->pairs);
	printf("  throughput B: %10.3f M units/s (geometric mean of %u "
	       "trials)\n",
	       sum->geo_b / 1e6, o->pairs);
	printf("  change B/A:   %+9.1f %%  (95 %% CI %+.1f %% .. %+.1f %%; "
	       "mean of the log ratios, t %.3f with %u df)\n",
	       sum->change * 100, sum->low * 100, sum->high * 100, sum->t,
	       o->pairs - 1);
	printf("  workers' priority: A %s; B %s\n", t->arm[0].prio,
	       t->arm[1].prio);
	if (t->bg)
		printf("  background (%u thread%s, normal priority): %.0f %% "
		       "of its rate alone with A, %.0f %% with B\n",
		       o->background, o->background == 1 ? "" : "s",
		       compare_geomean(t->arm[0].background, o->pairs) * 100,
		       compare_geomean(t->arm[1].background, o->pairs) * 100);
	if (t->probe)
		printf("  probe (1 ms period, normal priority): A p99 %.0f us, "
		       "p99.9 %.0f us, %u missed; B p99 %.0f us, p99.9 %.0f "
		       "us, %u missed (pooled over the trials; worst trial's "
		       "p99: A %.0f us, B %.0f us)\n",
		       t->arm[0].p99_us, t->arm[0].p999_us, t->arm[0].missed,
		       t->arm[1].p99_us, t->arm[1].p999_us, t->arm[1].missed,
		       t->arm[0].probe.worst_p99, t->arm[1].probe.worst_p99);
}

int saturate_compare_run(struct saturate_env *env,
			 const struct saturate_opts *o)
{
	struct saturate_compare_trials t = {.bg_pid = -1, .probe_pid = -1};
	struct compare_summary sum;
	int status = CTL_EXIT_USAGE;

	if (saturate_compare_policy_parse(env, o->compare, &t.b) < 0) {
		rules_free(&t.b.rules);
		return CTL_EXIT_USAGE;
	}
	t.spec[0] = (struct work_spec){.threads = o->threads, .kind = o->kind};
	t.spec[1] = (struct work_spec){
		.threads = o->threads,
		.kind = o->kind,
		.setup = saturate_compare_policy_setup,
		.thread_setup = saturate_compare_policy_thread,
		.thread_start = saturate_compare_policy_setup,
		.setup_ctx = &t.b,
		.policy = o->compare,
	};
	for (unsigned i = 0; i < 2; i++) {
		t.arm[i].rates = xcalloc(o->pairs, sizeof(double));
		t.arm[i].background = xcalloc(o->pairs, sizeof(double));
	}
	if (saturate_compare_trials_start(env, o, &t) < 0)
		goto out;
	for (unsigned pair = 0; pair < o->pairs; pair++) {
		for (unsigned step = 0; step < 2; step++) {
			if (saturate_compare_trial(env, o, &t, pair,
						   compare_arm(pair, step)) < 0)
				goto out;
		}
	}
	if (!o->json && system_is_terminal(stderr))
		fprintf(stderr, "\r\033[K");
	if (compare_paired(t.arm[0].rates, t.arm[1].rates, o->pairs, 0.95,
			   &sum) < 0) {
		fprintf(stderr, "cpupolicyctl: a trial did no work\n");
		goto out;
	}
	for (unsigned i = 0; t.probe && i < 2; i++)
		saturate_compare_arm_percentiles(&t.arm[i]);
	if (o->json)
		saturate_compare_json(o, &t, &sum);
	else
		saturate_compare_text(o, &t, &sum);
	status = CTL_EXIT_OK;
out:
	saturate_compare_trials_free(&t);
	return status;
}
