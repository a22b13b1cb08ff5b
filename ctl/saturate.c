/* cpupolicyctl saturate: does every core really work? One thread's rate
 * of work first; on a machine with SMT, what a core's other hardware
 * threads add to it (the yield); then N threads (default: one per CPU
 * the machine has, online or not, allowed or not, so that parking and
 * confinement show) for S seconds. Every step is a fresh worker process
 * measured on the same clock over a window after the same warm-up. The
 * efficiency is the rate of all threads over what the cores can do; the
 * findings say why it falls short and what fixes it; the report is
 * lib/saturate_report.c's. --compare, which measures a policy, is
 * saturate_compare.c; the options and a step's measurement are shared
 * with it (saturate_compare.h). What it reads of the machine (CPU
 * lists, quotas, cpufreq, the CPU time of others) and the worker
 * processes are the system's: ctl/linux/machine.c and ctl/linux/work.c. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "ctl.h"
#include "os.h"
#include "place.h"
#include "prio.h"
#include "procstat.h"
#include "rules.h"
#include "saturate.h"
#include "saturate_compare.h"
#include "saturate_report.h"
#include "util.h"
#include "work.h"

/* --if-idle looks at the machine this long before it decides. */
#define SATURATE_IDLE_SAMPLE_S 2.0

static void saturate_usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyctl saturate [--threads N] [--seconds S] "
		"[--work tan|int|mem]\n"
		"                             [--threshold PCT] [--smt-yield "
		"PCT] [--json]\n"
		"                             [--if-idle PCT] [--textfile "
		"PATH]\n"
		"       cpupolicyctl saturate --compare 'BODY' [--pairs K] "
		"[--background N] [--probe]\n"
		"                             [--threads N] [--seconds S] "
		"[--work ...] [--json]\n"
		"       cpupolicyctl saturate --compare --restraint [--pairs "
		"K] "
		"[--seconds S]\n"
		"                             [--user NAME] [--json]\n"
		"  --threads N     worker threads (default: one per CPU of "
		"the machine)\n"
		"  --seconds S     length of the run, or of each trial "
		"(default 5; 3 with --compare, 6 with --restraint)\n"
		"  --work KIND     tan (floating point, default), int, mem "
		"(memory streaming)\n"
		"  --threshold P   efficiency that passes, percent (default "
		"90)\n"
		"  --smt-yield P   what a core's other hardware threads add, "
		"percent (default: measured)\n"
		"  --if-idle P     skip the check when the machine is more "
		"than P percent busy\n"
		"  --textfile PATH also write the result for node_exporter's "
		"textfile collector\n"
		"  --compare BODY  a rule body (priority/placement) to measure "
		"against none\n"
		"  --restraint     the running daemon's restraint, paused (A) "
		"and on (B), for a\n"
		"                  frame task against two CPU hogs per CPU "
		"(Linux; --compare\n"
		"                  --restraint or --restraint alone)\n"
		"  --user NAME     the hogs' account when run as root "
		"(default: "
		"$SUDO_USER)\n"
		"  --pairs K       paired trials, an even number, A B then B A "
		"(default 6;\n"
		"                  any number from 1 with --restraint)\n"
		"  --background N  N busy threads at normal priority during "
		"the trials\n"
		"  --probe         a latency probe at normal priority, every "
		"1 ms\n"
		"exit: 0 efficiency at or above the threshold (or skipped), "
		"1 below, 2 usage errors\n");
}

static int saturate_competitor_compare(const void *a, const void *b)
{
	const struct saturate_competitor *x = a, *y = b;

	return (x->cpus < y->cpus) - (x->cpus > y->cpus);
}

/* What other processes took while the workers ran. */
static size_t saturate_competitors(const struct machine_task *before, size_t nb,
				   const struct machine_task *after, size_t na,
				   double seconds, pid_t ours,
				   struct saturate_competitor **out)
{
	size_t count = 0;

	*out = xcalloc(na ? na : 1, sizeof(**out));
	for (size_t a = 0; a < na; a++) {
		const struct machine_task *t = &after[a];
		double start = 0, cpus;

		if (t->pid == ours || t->pid == procinfo_self())
			continue;
		for (size_t b = 0; b < nb; b++) {
			if (before[b].pid == t->pid)
				start = before[b].cpu_s;
		}
		cpus = (t->cpu_s - (t->cpu_s >= start ? start : t->cpu_s)) /
		       seconds;
		if (cpus < 0.02)
			continue;
		(*out)[count] = (struct saturate_competitor){
			.pid = t->pid, .cpus = cpus, .nice = t->nice};
		snprintf((*out)[count].name, sizeof((*out)[count].name), "%s",
			 t->name);
		count++;
	}
	if (count)
		qsort(*out, count, sizeof(**out), saturate_competitor_compare);
	return count;
}

/* What limits this process (and the workers it starts) on this machine. */
static void saturate_facts(struct saturate_env *env, struct saturate_input *in)
{
	in->present = hwloc_bitmap_alloc();
	in->online = hwloc_bitmap_alloc();
	in->affinity = hwloc_bitmap_alloc();
	in->cpuset = hwloc_bitmap_alloc();
	if (apply_place_present(in->present) != OS_OK && env->have_topo)
		hwloc_bitmap_copy(in->present, env->topo.all);
	else if (hwloc_bitmap_iszero(in->present))
		hwloc_bitmap_set_range(in->present, 0,
				       (int)machine_cpu_count(false) - 1);
	if (apply_place_online(in->online) != OS_OK)
		hwloc_bitmap_copy(in->online, in->present);
	if (apply_place_read(0, 0, in->affinity) != OS_OK) {
		hwloc_bitmap_free(in->affinity);
		in->affinity = NULL;
	}
	if (apply_place_allowed(procinfo_self(), in->cpuset) != OS_OK) {
		hwloc_bitmap_free(in->cpuset);
		in->cpuset = NULL;
	}
	in->quota_cpus = machine_quota(in->cgroup, sizeof(in->cgroup));
	machine_cpuset_cgroup(in->cpuset_cgroup, sizeof(in->cpuset_cgroup));
	machine_freq(in);
}

static void saturate_progress(const struct saturate_window *w, double elapsed,
			      double total, double rate)
{
	if (!w->live)
		return;
	fprintf(stderr, "\r  %4.1f / %.1f s  %9.3f M units/s", elapsed, total,
		rate / 1e6);
	if (w->expected > 0)
		fprintf(stderr, "  efficiency %5.1f %%",
			rate / w->expected * 100);
	fflush(stderr);
}

static void saturate_threads_cpu(pid_t pid, const struct work_shared *sh,
				 unsigned threads, double *out)
{
	for (unsigned i = 0; i < threads; i++)
		out[i] = machine_thread_cpu(pid, sh->tid[i]);
}

struct saturate_sampler {
	double *rates;
	size_t count, cap;
	unsigned long long units;
	long long at;
};

/* Every 100 ms until the window ends: the rate of each interval, for the
 * noise of the window's rate. */
static void saturate_sample(struct saturate_sampler *s,
			    const struct work_shared *sh, unsigned threads,
			    long long end, const struct saturate_window *w,
			    long long t0, unsigned long long c0)
{
	double seconds = (double)(end - t0) / 1e9;

	while (s->at < end) {
		unsigned long long c;
		long long t;

		timing_sleep_ns(100000000);
		t = timing_now_ns();
		c = work_total(sh, threads);
		if (s->count == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 64;
			s->rates = xreallocarray(s->rates, s->cap,
						 sizeof(*s->rates));
		}
		s->rates[s->count++] =
			(double)(c - s->units) / ((double)(t - s->at) / 1e9);
		s->units = c;
		s->at = t;
		saturate_progress(w, (double)(t - t0) / 1e9, seconds,
				  (double)(c - c0) / ((double)(t - t0) / 1e9));
	}
}

/* The worker's nice value, as its main thread has it. */
/* The workers' priority as the system has it, from their first thread
 * (on Windows the class is the process's, the level the thread's). */
static void saturate_prio(pid_t pid, const struct work_shared *sh,
			  struct prio_state *prio)
{
	if (apply_prio_read(pid, sh->tid[0], prio) != OS_OK)
		*prio = (struct prio_state){.nice = -1};
}

/* One fresh worker process: 100 ms of warm-up, then a window of at least
 * `seconds` on the monotonic clock, in whole 100 ms intervals; the work
 * done in the window over its length is the rate, and the CPU time the
 * threads got in the same window is the evidence beside it. */
int saturate_measure(struct saturate_env *env, const struct work_spec *spec,
		     double seconds, const struct saturate_window *w,
		     struct saturate_step *step, double *thread_cpu,
		     struct prio_state *prio)
{
	struct work_shared *sh = work_shared_new();
	struct saturate_sampler s = {0};
	unsigned n = spec->threads;
	double *cpu0, *cpu1;
	unsigned long long c0;
	long long t0;
	pid_t pid;

	(void)env; /* the system's roots are the backend's (paths_set_roots) */
	if (!sh)
		return -1;
	if (work_start(spec, sh, &pid) != OS_OK) {
		work_shared_free(sh);
		return -1;
	}
	if (prio)
		saturate_prio(pid, sh, prio);
	sh->start = 1;
	timing_sleep_ns(100000000);
	cpu0 = xcalloc(n, sizeof(*cpu0));
	cpu1 = xcalloc(n, sizeof(*cpu1));
	if (w->first)
		procstat_read(w->first);
	s.at = t0 = timing_now_ns();
	s.units = c0 = work_total(sh, n);
	saturate_threads_cpu(pid, sh, n, cpu0);
	saturate_sample(&s, sh, n, t0 + (long long)(seconds * 1e9), w, t0, c0);
	saturate_threads_cpu(pid, sh, n, cpu1);
	if (w->last)
		procstat_read(w->last);
	*step = (struct saturate_step){
		.threads = n,
		.units = (double)(s.units - c0),
		.wall_s = (double)(s.at - t0) / 1e9,
		.rel_se = saturate_rel_se(s.rates, s.count),
	};
	for (unsigned i = 0; i < n; i++) {
		step->cpu_s += cpu1[i] - cpu0[i];
		if (thread_cpu)
			thread_cpu[i] = cpu1[i] - cpu0[i];
	}
	free(cpu0);
	free(cpu1);
	free(s.rates);
	if (w->live)
		fprintf(stderr, "\r\033[K");
	if (work_stop(pid, sh) != OS_OK) {
		work_shared_free(sh);
		return -1;
	}
	work_shared_free(sh);
	return 0;
}

/* The SMT step's threads, one on each CPU of the core. */
struct saturate_pin {
	int cpus[WORK_PINS_MAX];
	unsigned count;
};

static enum os_status saturate_pin_thread(void *ctx, pthread_t thread,
					  unsigned index)
{
	const struct saturate_pin *pin = ctx;
	hwloc_bitmap_t cpu = hwloc_bitmap_alloc();
	enum os_status status;

	hwloc_bitmap_only(cpu, (unsigned)pin->cpus[index % pin->count]);
	status = work_pin(thread, cpu);
	hwloc_bitmap_free(cpu);
	return status;
}

/* The CPUs the workers can run on: online, in the affinity and the
 * cpuset. */
static hwloc_bitmap_t saturate_usable(const struct saturate_input *in)
{
	hwloc_bitmap_t set = hwloc_bitmap_dup(in->online);

	if (in->affinity)
		hwloc_bitmap_and(set, set, in->affinity);
	if (in->cpuset)
		hwloc_bitmap_and(set, set, in->cpuset);
	return set;
}

/* What a core's other hardware threads add: one thread pinned to the
 * core, then one on each of its hardware threads, both as long as the
 * baseline. Given, or assumed where no core has all its threads usable. */
static int saturate_smt_step(struct saturate_env *env,
			     const struct saturate_opts *o,
			     const struct saturate_machine *m,
			     struct saturate_input *in, double seconds)
{
	struct saturate_pin pin = {0};
	struct work_spec spec = {
		.kind = o->kind,
		.thread_setup = saturate_pin_thread,
		.setup_ctx = &pin,
		.pins = pin.cpus,
	};
	struct saturate_window w = {.live = !o->json &&
					    system_is_terminal(stderr)};
	hwloc_bitmap_t usable, core;
	bool found;

	if (!saturate_machine_smt(m)) {
		in->smt.source = SATURATE_YIELD_NONE;
		return 0;
	}
	if (o->smt_yield >= 0) {
		in->smt.source = SATURATE_YIELD_GIVEN;
		in->smt.yield = o->smt_yield;
		return 0;
	}
	usable = saturate_usable(in);
	found = saturate_machine_smt_core(m, usable, pin.cpus, &pin.count,
					  ARRAY_SIZE(pin.cpus));
	hwloc_bitmap_free(usable);
	if (!found) {
		in->smt.source = SATURATE_YIELD_ASSUMED;
		in->smt.yield = SATURATE_SMT_YIELD_ASSUMED;
		return 0;
	}
	core = hwloc_bitmap_alloc();
	for (unsigned i = 0; i < pin.count; i++)
		hwloc_bitmap_set(core, (unsigned)pin.cpus[i]);
	place_format(core, in->smt.core_cpus, sizeof(in->smt.core_cpus));
	hwloc_bitmap_free(core);
	in->smt.source = SATURATE_YIELD_MEASURED;
	spec.pin_count = pin.count;
	spec.threads = 1;
	if (saturate_measure(env, &spec, seconds, &w, &in->smt.one, NULL,
			     NULL) < 0)
		return -1;
	spec.threads = pin.count;
	return saturate_measure(env, &spec, seconds, &w, &in->smt.all, NULL,
				NULL);
}

/* A state file, where it may be written (the state directory is root's);
 * a user's check leaves none. saturate.last is what a skipped check's
 * textfile carries on. */
static void saturate_state_write(struct saturate_env *env, const char *name,
				 const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", env->conf.state_dir, name);

	files_private_dir(env->conf.state_dir);
	files_replace(path, text, len);
	free(path);
}

static char *saturate_state_read(struct saturate_env *env, const char *name)
{
	char *path = xasprintf("%s/%s", env->conf.state_dir, name), *text;
	size_t len;

	if (files_read(path, 1 << 20, &text, &len) != OS_OK)
		text = NULL;
	free(path);
	return text;
}

/* node_exporter's textfile: the last check's series and, for a scheduled
 * check, its decision; written whole, then renamed into place. */
static int saturate_textfile(const char *path, const char *result,
			     const char *attempt)
{
	char *text =
		xasprintf("%s%s", result ? result : "", attempt ? attempt : "");
	int status = files_replace(path, text, strlen(text)) == OS_OK ? 0 : -1;

	if (status < 0)
		fprintf(stderr, "cpupolicyctl: cannot write %s: %s\n", path,
			strerror(errno));
	free(text);
	return status;
}

static char *saturate_attempt_text(bool skipped, double busy, double limit)
{
	struct memstream text;
	FILE *out = memstream_open(&text);

	if (!out)
		return NULL;
	saturate_report_attempt(skipped, busy, limit, (long long)time(NULL),
				out);
	return memstream_close(&text, NULL);
}

/* --if-idle: the busy share of the online CPUs (steal too) over the
 * sample; skipped above the limit, said on stderr and in the series. */
static bool saturate_idle_enough(struct saturate_env *env,
				 const struct saturate_opts *o, double *busy)
{
	struct procstat a = {0}, b = {0};
	struct procstat_share *shares;
	size_t n;

	(void)env; /* the system's roots are the backend's (paths_set_roots) */
	*busy = 0;
	if (procstat_read(&a) < 0)
		return true;
	timing_sleep_ns((long long)(SATURATE_IDLE_SAMPLE_S * 1e9));
	if (procstat_read(&b) < 0) {
		procstat_free(&a);
		return true;
	}
	shares = xcalloc(b.count, sizeof(*shares));
	n = procstat_diff(&a, &b, shares, b.count);
	*busy = procstat_mean_busy(shares, n);
	free(shares);
	procstat_free(&a);
	procstat_free(&b);
	return *busy <= o->if_idle;
}

/* A skipped check: the last result stays what it was; the textfile
 * carries it on, with the skip. */
static int saturate_skip(struct saturate_env *env,
			 const struct saturate_opts *o, double busy)
{
	char *attempt = saturate_attempt_text(true, busy, o->if_idle);
	char *last = saturate_state_read(env, "saturate.last");
	int status = CTL_EXIT_OK;

	fprintf(stderr,
		"cpupolicyctl: saturate skipped: the machine was %.0f %% busy "
		"over %.0f s, above the --if-idle limit of %.0f %%\n",
		busy * 100, SATURATE_IDLE_SAMPLE_S, o->if_idle * 100);
	saturate_state_write(env, "saturate.attempt", attempt, strlen(attempt));
	if (o->textfile && saturate_textfile(o->textfile, last, attempt) < 0)
		status = CTL_EXIT_USAGE;
	free(attempt);
	free(last);
	return status;
}

static char *saturate_metrics_text(const struct saturate_input *in,
				   const struct saturate_result *r)
{
	struct memstream text;
	FILE *out = memstream_open(&text);

	if (!out)
		return NULL;
	saturate_report_metrics(in, r, (long long)time(NULL), out);
	return memstream_close(&text, NULL);
}

/* The result, for the state directory and the textfile. */
static int saturate_record(struct saturate_env *env,
			   const struct saturate_opts *o,
			   const struct saturate_input *in,
			   const struct saturate_result *r, double busy)
{
	char *result = saturate_metrics_text(in, r), *attempt = NULL;
	int status = 0;

	saturate_state_write(env, "saturate.last", result, strlen(result));
	if (o->if_idle >= 0) {
		attempt = saturate_attempt_text(false, busy, o->if_idle);
		saturate_state_write(env, "saturate.attempt", attempt,
				     strlen(attempt));
	}
	if (o->textfile)
		status = saturate_textfile(o->textfile, result, attempt);
	free(result);
	free(attempt);
	return status;
}

static void saturate_input_free(struct saturate_input *in)
{
	free(in->cpus);
	free(in->competitors);
	free(in->thread_cpu_s);
	hwloc_bitmap_free(in->present);
	hwloc_bitmap_free(in->online);
	hwloc_bitmap_free(in->affinity);
	hwloc_bitmap_free(in->cpuset);
}

/* The run of all threads, with the competition and /proc/stat around
 * it. */
static int saturate_run_step(struct saturate_env *env,
			     const struct saturate_opts *o,
			     struct saturate_input *in, double expected)
{
	struct work_spec all = {.threads = o->threads, .kind = o->kind};
	struct procstat first = {0}, last = {0};
	struct saturate_window w = {
		.first = &first,
		.last = &last,
		.expected = expected,
		.live = !o->json && system_is_terminal(stderr),
	};
	struct machine_task *before, *after;
	struct prio_state prio;
	size_t nb, na, shares_max;
	int status;

	in->thread_cpu_s = xcalloc(o->threads, sizeof(*in->thread_cpu_s));
	in->thread_count = o->threads;
	nb = machine_tasks(&before);
	status = saturate_measure(env, &all, o->seconds, &w, &in->run,
				  in->thread_cpu_s, &prio);
	in->our_nice = prio.nice;
	na = machine_tasks(&after);
	if (status == 0) {
		in->competitor_count = saturate_competitors(
			before, nb, after, na, in->run.wall_s + 0.1, 0,
			&in->competitors);
		shares_max = last.count ? last.count : 1;
		in->cpus = xcalloc(shares_max, sizeof(*in->cpus));
		in->cpu_count =
			procstat_diff(&first, &last, in->cpus, shares_max);
	}
	free(before);
	free(after);
	procstat_free(&first);
	procstat_free(&last);
	return status;
}

/* One thread alone, the SMT step where the machine has SMT, then all
 * threads; the same warm-up and clock for each. */
static int saturate_steps(struct saturate_env *env,
			  const struct saturate_opts *o,
			  const struct saturate_machine *m,
			  struct saturate_input *in)
{
	struct work_spec one = {.threads = 1, .kind = o->kind};
	struct saturate_window w = {.live = !o->json &&
					    system_is_terminal(stderr)};
	double base = o->seconds < 5 ? o->seconds / 5 : 1;
	double expected;

	if (saturate_measure(env, &one, base, &w, &in->single, NULL, NULL) <
		    0 ||
	    saturate_smt_step(env, o, m, in, base) < 0)
		return -1;
	expected =
		saturate_step_rate(&in->single) *
		saturate_capacity(m, o->threads, saturate_smt_yield(&in->smt));
	return saturate_run_step(env, o, in, expected);
}

static int saturate_check(struct saturate_env *env,
			  const struct saturate_opts *o)
{
	struct saturate_input in = {
		.threads = o->threads,
		.seconds = o->seconds,
		.work = o->work,
		.threshold = o->threshold,
	};
	struct saturate_machine machine;
	struct saturate_result r;
	double busy = 0;
	int status;

	if (o->if_idle >= 0 && !saturate_idle_enough(env, o, &busy))
		return saturate_skip(env, o, busy);
	saturate_facts(env, &in);
	if (saturate_machine_load(&machine, env->have_topo ? &env->topo : NULL,
				  in.present) < 0) {
		fprintf(stderr, "cpupolicyctl: cannot tell the machine's "
				"CPUs\n");
		saturate_input_free(&in);
		return CTL_EXIT_USAGE;
	}
	machine_system(&machine, &in);
	in.machine = &machine;
	if (saturate_steps(env, o, &machine, &in) < 0) {
		fprintf(stderr, "cpupolicyctl: cannot start the workers\n");
		saturate_machine_free(&machine);
		saturate_input_free(&in);
		return CTL_EXIT_USAGE;
	}
	saturate_judge(&in, &r);
	if (o->json)
		saturate_report_json(&in, &r, stdout);
	else
		saturate_report_text(&in, &r, stdout);
	status = r.ok ? CTL_EXIT_OK : CTL_EXIT_FAIL;
	if (saturate_record(env, o, &in, &r, busy) < 0)
		status = CTL_EXIT_USAGE;
	saturate_result_free(&r);
	saturate_machine_free(&machine);
	saturate_input_free(&in);
	return status;
}

static int saturate_number(const char *text, double min, double max,
			   double *out)
{
	char *end;

	errno = 0;
	*out = strtod(text, &end);
	return end == text || *end || errno || !(*out >= min) || !(*out <= max)
		       ? -1
		       : 0;
}

/* A value of an option: in range (and whole where it counts), or said
 * why not. */
static int saturate_value(const char *name, const char *text, double min,
			  double max, bool whole, double *out)
{
	if (saturate_number(text, min, max, out) == 0 &&
	    (!whole || *out == (unsigned)*out))
		return 0;
	fprintf(stderr,
		"cpupolicyctl: saturate: %s: '%s' is not %s from %g "
		"to %g\n",
		name, text, whole ? "a whole number" : "a number", min, max);
	return -1;
}

static int saturate_option(int c, const char *arg, struct saturate_opts *o)
{
	double v;

	switch (c) {
	case 't':
		if (saturate_value("--threads", arg, 1, WORK_MAX_THREADS, true,
				   &v) < 0)
			return -1;
		o->threads = (unsigned)v;
		return 0;
	case 's':
		if (saturate_value("--seconds", arg, 0.2, 3600, false, &v) < 0)
			return -1;
		o->seconds = v;
		return 0;
	case 'w':
		o->work = arg;
		o->work_set = true;
		if (strcmp(arg, "tan") == 0)
			o->kind = WORK_KIND_TAN;
		else if (strcmp(arg, "int") == 0)
			o->kind = WORK_KIND_INT;
		else if (strcmp(arg, "mem") == 0)
			o->kind = WORK_KIND_MEM;
		else
			goto bad_work;
		return 0;
	case 'T':
		if (saturate_value("--threshold", arg, 0, 100, false, &v) < 0)
			return -1;
		o->threshold = v / 100;
		return 0;
	case 'Y':
		if (saturate_value("--smt-yield", arg, 0, 700, false, &v) < 0)
			return -1;
		o->smt_yield = v / 100;
		return 0;
	case 'I':
		if (saturate_value("--if-idle", arg, 0, 100, false, &v) < 0)
			return -1;
		o->if_idle = v / 100;
		return 0;
	case 'F':
		o->textfile = arg;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'c':
		/* --compare's argument is required: "--compare --restraint"
		 * hands it "--restraint", which no rule body starts with. */
		if (strcmp(arg, "--restraint") == 0)
			o->restraint = true;
		else
			o->compare = arg;
		return 0;
	case 'R':
		o->restraint = true;
		return 0;
	case 'u':
		o->user = arg;
		return 0;
	case 'p':
		if (saturate_value("--pairs", arg, 1, 100, true, &v) < 0)
			return -1;
		o->pairs = (unsigned)v;
		return 0;
	case 'b':
		if (saturate_value("--background", arg, 1, WORK_MAX_THREADS,
				   true, &v) < 0)
			return -1;
		o->background = (unsigned)v;
		return 0;
	case 'P':
		o->probe = true;
		return 0;
	case 'W':
		o->worker = arg;
		return 0;
	}
	return -1;
bad_work:
	fprintf(stderr,
		"cpupolicyctl: saturate: --work: '%s' is not tan, int "
		"or mem\n",
		arg);
	return -1;
}

/* Options that belong to one mode only, and an odd --pairs. */
static int saturate_options_check(const struct saturate_opts *o, bool pairs_set)
{
	const char *refusal = saturate_restraint_report_refusal(o, pairs_set);

	if (refusal) {
		fprintf(stderr, "cpupolicyctl: saturate: %s\n", refusal);
		return -1;
	}
	if (o->restraint) {
		if (o->smt_yield >= 0 || o->if_idle >= 0 || o->textfile) {
			fprintf(stderr,
				"cpupolicyctl: saturate: --smt-yield, "
				"--if-idle and --textfile are for the check, "
				"not --compare\n");
			return -1;
		}
		return 0;
	}
	if (!o->compare && (o->background || o->probe || pairs_set)) {
		fprintf(stderr, "cpupolicyctl: saturate: --pairs, --background "
				"and --probe need --compare\n");
		return -1;
	}
	if (o->compare &&
	    (o->smt_yield >= 0 || o->if_idle >= 0 || o->textfile)) {
		fprintf(stderr,
			"cpupolicyctl: saturate: --smt-yield, --if-idle "
			"and --textfile are for the check, not "
			"--compare\n");
		return -1;
	}
	if (o->pairs % 2) {
		fprintf(stderr,
			"cpupolicyctl: saturate: --pairs: %u is odd: A goes "
			"first in half the pairs and B in the other half, so "
			"that a drift favours neither\n",
			o->pairs);
		return -1;
	}
	return 0;
}

/* A step's workers in a program of their own (Windows): the step as
 * work_start passed it, with the same setup as in a fork. The exit
 * status is work_child's. */
static int saturate_worker(struct saturate_env *env, const char *arg)
{
	struct saturate_compare_policy b = {0};
	struct saturate_pin pin = {0};
	struct work_order order;
	struct work_shared *sh = work_attach(arg, &order);
	struct work_spec spec;
	bool policy = false;
	int status = 3;

	if (!sh)
		return CTL_EXIT_USAGE;
	spec = (struct work_spec){.threads = order.threads, .kind = order.kind};
	if (order.pin_count) {
		memcpy(pin.cpus, order.pins, sizeof(pin.cpus));
		pin.count = order.pin_count;
		spec.thread_setup = saturate_pin_thread;
		spec.setup_ctx = &pin;
	} else if (order.policy[0]) {
		policy = true;
		if (saturate_compare_policy_parse(env, order.policy, &b) < 0)
			goto out;
		spec.setup = spec.thread_start = saturate_compare_policy_setup;
		spec.thread_setup = saturate_compare_policy_thread;
		spec.setup_ctx = &b;
	}
	status = work_child(&spec, sh);
out:
	if (policy) {
		place_plan_free(&b.place);
		rules_free(&b.rules);
	}
	return status;
}

/* The CPUs present or online, as the system lists them, else fallback. */
static unsigned saturate_count(bool online, unsigned fallback)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	enum os_status status =
		online ? apply_place_online(set) : apply_place_present(set);
	int n = status == OS_OK ? hwloc_bitmap_weight(set) : -1;

	hwloc_bitmap_free(set);
	return n > 0 ? (unsigned)n : fallback;
}

int saturate_main(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{"threads", required_argument, NULL, 't'},
		{"seconds", required_argument, NULL, 's'},
		{"work", required_argument, NULL, 'w'},
		{"threshold", required_argument, NULL, 'T'},
		{"smt-yield", required_argument, NULL, 'Y'},
		{"if-idle", required_argument, NULL, 'I'},
		{"textfile", required_argument, NULL, 'F'},
		{"json", no_argument, NULL, 'j'},
		{"compare", required_argument, NULL, 'c'},
		{"pairs", required_argument, NULL, 'p'},
		{"background", required_argument, NULL, 'b'},
		{"probe", no_argument, NULL, 'P'},
		{"restraint", no_argument, NULL, 'R'},
		{"user", required_argument, NULL, 'u'},
		{"worker", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct saturate_opts o = {
		.work = "tan",
		.threshold = 0.9,
		.pairs = 6,
		.smt_yield = -1,
		.if_idle = -1,
	};
	bool pairs_set = false;
	struct saturate_env env = {0};
	struct diag diag;
	char why[256];
	int c, status;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'h') {
			saturate_usage(stdout);
			return CTL_EXIT_OK;
		}
		if (c == '?')
			goto usage;
		if (saturate_option(c, optarg, &o) < 0)
			goto hint;
		pairs_set |= c == 'p';
	}
	if (optind != argc) {
		fprintf(stderr,
			"cpupolicyctl: saturate: '%s': no arguments, "
			"only options\n",
			argv[optind]);
		goto usage;
	}
	if (saturate_options_check(&o, pairs_set) < 0)
		goto hint;
	if (!work_supported(why, sizeof(why))) {
		fprintf(stderr, "cpupolicyctl: saturate: %s\n", why);
		return CTL_EXIT_FAIL;
	}
	conf_init(&env.conf);
	diag_init(&diag);
	if (conf_load_file(&env.conf, ctl->conf_path, ctl->conf_explicit,
			   &diag) < 0 ||
	    diag.errors) {
		diag_print(&diag, stderr, false);
		diag_free(&diag);
		conf_free(&env.conf);
		return CTL_EXIT_USAGE;
	}
	diag_free(&diag);
	paths_set_roots(env.conf.procfs, env.conf.sysfs, env.conf.dev);
	env.have_topo = place_topology_load(&env.topo, NULL, NULL) == 0;
	if (o.worker) {
		status = saturate_worker(&env, o.worker);
		goto out;
	}
	if (!o.threads)
		o.threads = saturate_default_threads(
			saturate_count(false, 0),
			saturate_count(true, machine_cpu_count(true)),
			WORK_MAX_THREADS);
	if (!o.seconds)
		o.seconds = o.restraint ? SATURATE_RESTRAINT_SECONDS
			    : o.compare ? 3
					: 5;
	if (o.restraint)
		status = saturate_restraint_run(ctl, &env, &o);
	else if (o.compare)
		status = saturate_compare_run(&env, &o);
	else
		status = saturate_check(&env, &o);
out:
	if (env.have_topo)
		place_topology_free(&env.topo);
	conf_free(&env.conf);
	return status;
usage:
	saturate_usage(stderr);
	return CTL_EXIT_USAGE;
hint:
	fprintf(stderr, "(cpupolicyctl saturate --help lists the options)\n");
	return CTL_EXIT_USAGE;
}
