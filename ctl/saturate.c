/* cpupolicyctl saturate: does every CPU really work? One thread's rate of
 * work first, then N threads (default: every online CPU of the machine,
 * not only those this process may use, so that confinement shows) for S
 * seconds, with /proc/stat sampled every 100 ms. Efficiency is the rate of
 * all threads over N times one thread's; the findings say why it falls
 * short and what fixes it. --compare measures a policy: paired trials,
 * A as is and B with the policy, each a fresh process, with optional
 * background load and a latency probe to show what the policy costs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hwloc/glibc-sched.h>

#include "conf.h"
#include "ctl.h"
#include "log.h"
#include "place.h"
#include "prio.h"
#include "procinfo.h"
#include "procstat.h"
#include "proto.h"
#include "rules.h"
#include "saturate.h"
#include "util.h"
#include "work.h"

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
};

struct saturate_env {
	struct conf conf;
	struct place_topology topo;
	bool have_topo;
};

static void saturate_usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyctl saturate [--threads N] [--seconds S] "
		"[--work tan|int|mem]\n"
		"                             [--threshold PCT] [--json]\n"
		"       cpupolicyctl saturate --compare 'BODY' [--pairs K] "
		"[--background N] [--probe]\n"
		"                             [--threads N] [--seconds S] "
		"[--work ...] [--json]\n"
		"  --threads N     worker threads (default: the online CPUs)\n"
		"  --seconds S     length of the run, or of each trial "
		"(default 5; 3 with --compare)\n"
		"  --work KIND     tan (floating point, default), int, mem "
		"(memory streaming)\n"
		"  --threshold P   efficiency that passes, percent (default "
		"90)\n"
		"  --compare BODY  a rule body (priority/placement) to measure "
		"against none\n"
		"  --pairs K       paired trials, alternating order (default "
		"5)\n"
		"  --background N  N busy threads at normal priority during "
		"the trials\n"
		"  --probe         a latency probe at normal priority, every "
		"1 ms\n"
		"exit: 0 efficiency at or above the threshold, 1 below, 2 "
		"usage errors\n");
}

/* The tightest cpu quota on the way from the cgroup up to the root. */
static double saturate_quota_at(const char *sysfs, const char *mount,
				char *path, bool v2)
{
	double best = -1;

	for (;;) {
		char *file =
			xasprintf("%s/fs/cgroup/%s%s/%s", sysfs, mount, path,
				  v2 ? "cpu.max" : "cpu.cfs_quota_us");
		char text[128];
		double quota = -1, period = 100000;
		char *slash;

		if (procinfo_read(file, text, sizeof(text), NULL) == 0) {
			if (v2 && strncmp(text, "max", 3) != 0)
				sscanf(text, "%lf %lf", &quota, &period);
			else if (!v2)
				quota = atof(text);
		}
		free(file);
		if (!v2 && quota > 0) {
			file = xasprintf("%s/fs/cgroup/%s%s/cpu.cfs_period_us",
					 sysfs, mount, path);
			if (procinfo_read(file, text, sizeof(text), NULL) == 0)
				period = atof(text);
			free(file);
		}
		if (quota > 0 && period > 0 &&
		    (best < 0 || quota / period < best))
			best = quota / period;
		slash = strrchr(path, '/');
		if (!slash || !path[0])
			break;
		*slash = '\0';
	}
	return best;
}

static double saturate_quota(const struct conf *conf, char *cgroup, size_t size)
{
	char *self = xasprintf("%s/self/cgroup", conf->procfs);
	char text[4096], *save = NULL;
	double quota = -1;

	cgroup[0] = '\0';
	if (procinfo_read(self, text, sizeof(text), NULL) < 0) {
		free(self);
		return -1;
	}
	free(self);
	for (char *line = strtok_r(text, "\n", &save); line && quota < 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *controllers = strchr(line, ':'), *path, copy[4096];
		bool v2;

		if (!controllers)
			continue;
		controllers++;
		path = strchr(controllers, ':');
		if (!path)
			continue;
		*path++ = '\0';
		v2 = controllers[0] == '\0';
		if (!v2 && !strstr(controllers, "cpu"))
			continue;
		if (!v2 && strcmp(controllers, "cpu") != 0 &&
		    strncmp(controllers, "cpu,", 4) != 0 &&
		    !strstr(controllers, ",cpu,") &&
		    !strstr(controllers, ",cpu"))
			continue;
		static const char *const mounts_v1[] = {"cpu", "cpu,cpuacct"};
		static const char *const mounts_v2[] = {"", "unified"};
		for (size_t m = 0; m < 2 && quota < 0; m++) {
			snprintf(copy, sizeof(copy), "%s",
				 strcmp(path, "/") == 0 ? "" : path);
			quota = saturate_quota_at(
				conf->sysfs, v2 ? mounts_v2[m] : mounts_v1[m],
				copy, v2);
		}
		if (quota >= 0)
			snprintf(cgroup, size, "%s", path);
	}
	return quota;
}

struct saturate_task {
	pid_t pid;
	char name[16];
	unsigned long long ticks;
	int nice;
};

/* utime + stime (fields 14, 15) and nice (19) of every process. */
static size_t saturate_tasks(const char *procfs, struct saturate_task **out)
{
	pid_t *pids;
	size_t count = 0, n = 0;

	*out = NULL;
	if (procinfo_pids(procfs, &pids, &count) < 0)
		return 0;
	*out = xcalloc(count ? count : 1, sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		char path[96], stat[1024], *p, *open;
		unsigned long long ut = 0, st = 0;
		int nice = 0;

		snprintf(path, sizeof(path), "%s/%d/stat", procfs,
			 (int)pids[i]);
		if (procinfo_read(path, stat, sizeof(stat), NULL) < 0)
			continue;
		open = strchr(stat, '(');
		p = strrchr(stat, ')');
		if (!open || !p ||
		    sscanf(p + 2,
			   "%*c %*d %*d %*d %*d %*d %*u "
			   "%*u %*u %*u %*u %llu %llu "
			   "%*d %*d %*d %d",
			   &ut, &st, &nice) != 3)
			continue;
		(*out)[n] = (struct saturate_task){
			.pid = pids[i], .ticks = ut + st, .nice = nice};
		snprintf((*out)[n].name, sizeof((*out)[n].name), "%.*s",
			 (int)(p - open - 1), open + 1);
		n++;
	}
	free(pids);
	return n;
}

static int saturate_competitor_compare(const void *a, const void *b)
{
	const struct saturate_competitor *x = a, *y = b;

	return (x->cpus < y->cpus) - (x->cpus > y->cpus);
}

/* What other processes took while the workers ran. */
static size_t saturate_competitors(const struct saturate_task *before,
				   size_t nb, const struct saturate_task *after,
				   size_t na, double seconds, pid_t ours,
				   struct saturate_competitor **out)
{
	double tick = (double)sysconf(_SC_CLK_TCK);
	size_t count = 0;

	*out = xcalloc(na ? na : 1, sizeof(**out));
	for (size_t a = 0; a < na; a++) {
		const struct saturate_task *t = &after[a];
		unsigned long long start = 0;
		double cpus;

		if (t->pid == ours || t->pid == getpid())
			continue;
		for (size_t b = 0; b < nb; b++) {
			if (before[b].pid == t->pid)
				start = before[b].ticks;
		}
		cpus = (double)(t->ticks -
				(t->ticks >= start ? start : t->ticks)) /
		       tick / seconds;
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

static void saturate_freq(const struct conf *conf, struct saturate_input *in)
{
	char *base =
		xasprintf("%s/devices/system/cpu/cpufreq/policy0", conf->sysfs);
	char *gov = xasprintf("%s/scaling_governor", base);
	char *epp = xasprintf("%s/energy_performance_preference", base);
	char *max = xasprintf("%s/scaling_max_freq", base);
	char *hw = xasprintf("%s/cpuinfo_max_freq", base);
	char a[64], b[64];
	size_t len;

	char *driver = xasprintf("%s/scaling_driver", base);
	char name[64] = "";

	if (procinfo_read(gov, in->governor, sizeof(in->governor), &len) == 0)
		in->governor[strcspn(in->governor, "\n")] = '\0';
	if (procinfo_read(driver, name, sizeof(name), NULL) == 0)
		snprintf(in->driver, sizeof(in->driver), "%.*s",
			 (int)strcspn(name, "\n"), name);
	free(driver);
	if (procinfo_read(epp, in->epp, sizeof(in->epp), &len) == 0)
		in->epp[strcspn(in->epp, "\n")] = '\0';
	if (procinfo_read(max, a, sizeof(a), NULL) == 0 &&
	    procinfo_read(hw, b, sizeof(b), NULL) == 0)
		in->max_freq_capped = atoll(a) < atoll(b);
	free(base);
	free(gov);
	free(epp);
	free(max);
	free(hw);
}

static void saturate_cpuset_cgroup(const struct conf *conf,
				   struct saturate_input *in)
{
	char *path = xasprintf("%s/self/cpuset", conf->procfs);
	size_t len;

	if (procinfo_read(path, in->cpuset_cgroup, sizeof(in->cpuset_cgroup),
			  &len) == 0)
		in->cpuset_cgroup[strcspn(in->cpuset_cgroup, "\n")] = '\0';
	free(path);
}

/* What limits this process (and the workers it starts) on this machine. */
static void saturate_facts(struct saturate_env *env, struct saturate_input *in)
{
	char *possible =
		xasprintf("%s/devices/system/cpu/present", env->conf.sysfs);
	char *online =
		xasprintf("%s/devices/system/cpu/online", env->conf.sysfs);

	in->possible = hwloc_bitmap_alloc();
	in->online = hwloc_bitmap_alloc();
	in->affinity = hwloc_bitmap_alloc();
	in->cpuset = hwloc_bitmap_alloc();
	if (apply_place_read_list(possible, in->possible) < 0)
		hwloc_bitmap_copy(in->possible, env->topo.all);
	if (apply_place_read_list(online, in->online) < 0)
		hwloc_bitmap_copy(in->online, in->possible);
	if (apply_place_read(0, in->affinity) < 0) {
		hwloc_bitmap_free(in->affinity);
		in->affinity = NULL;
	}
	if (apply_place_allowed(env->conf.procfs, env->conf.sysfs, getpid(),
				in->cpuset) < 0) {
		hwloc_bitmap_free(in->cpuset);
		in->cpuset = NULL;
	}
	in->quota_cpus =
		saturate_quota(&env->conf, in->cgroup, sizeof(in->cgroup));
	saturate_cpuset_cgroup(&env->conf, in);
	saturate_freq(&env->conf, in);
	free(possible);
	free(online);
}

struct saturate_run {
	double rate;	     /* units per second */
	double rate_per_cpu; /* units per second of CPU time */
	double seconds;	     /* measured */
	double *cpu_s;	     /* per thread */
	int nice;
};

static void saturate_progress(bool live, double elapsed, double total,
			      double rate, double single, unsigned threads)
{
	if (!live)
		return;
	fprintf(stderr, "\r  %4.1f / %.1f s  %9.3f M units/s", elapsed, total,
		rate / 1e6);
	if (single > 0)
		fprintf(stderr, "  efficiency %5.1f %%",
			rate / (single * threads) * 100);
	fflush(stderr);
}

/* One fresh worker process for `seconds`; samples /proc/stat (and the
 * rate, for the live line) every 100 ms. */
static int saturate_measure(struct saturate_env *env,
			    const struct work_spec *spec, double seconds,
			    bool live, double single, struct procstat *first,
			    struct procstat *last, struct saturate_run *run)
{
	struct work_shared *sh = work_shared_new();
	unsigned long long c0, c1;
	long long t0, t1, end;
	double cpu;
	pid_t pid;

	if (!sh)
		return -1;
	pid = work_start(spec, sh);
	if (pid < 0) {
		work_shared_free(sh);
		return -1;
	}
	errno = 0;
	run->nice = getpriority(PRIO_PROCESS, (id_t)pid);
	sh->start = 1;
	/* The first 100 ms are warm-up: counted from after them. */
	usleep(100000);
	if (first)
		procstat_read(env->conf.procfs, first);
	c0 = work_total(sh, spec->threads);
	t0 = work_now_ns();
	end = t0 + (long long)(seconds * 1e9);
	while ((t1 = work_now_ns()) < end) {
		usleep(100000);
		t1 = work_now_ns();
		if (last) {
			procstat_free(last);
			procstat_read(env->conf.procfs, last);
		}
		c1 = work_total(sh, spec->threads);
		saturate_progress(live, (double)(t1 - t0) / 1e9, seconds,
				  (double)(c1 - c0) / ((double)(t1 - t0) / 1e9),
				  single, spec->threads);
	}
	c1 = work_total(sh, spec->threads);
	t1 = work_now_ns();
	if (work_stop(pid, sh) < 0) {
		work_shared_free(sh);
		errno = EPERM;
		return -1;
	}
	run->seconds = (double)(t1 - t0) / 1e9;
	run->rate = (double)(c1 - c0) / run->seconds;
	run->cpu_s = xcalloc(spec->threads, sizeof(*run->cpu_s));
	memcpy(run->cpu_s, sh->cpu_s, spec->threads * sizeof(*run->cpu_s));
	/* Per second of CPU time, whole life: what a thread does when it
	 * runs, whatever else competes for the CPU. */
	cpu = 0;
	for (unsigned i = 0; i < spec->threads; i++)
		cpu += run->cpu_s[i];
	run->rate_per_cpu =
		cpu > 0 ? (double)work_total(sh, spec->threads) / cpu : 0;
	if (live)
		fprintf(stderr, "\r\033[K");
	work_shared_free(sh);
	return 0;
}

/* For "cpupolicyctl metrics": the last result, where it may be written
 * (the state directory is root's). */
static void saturate_remember(struct saturate_env *env,
			      const struct saturate_input *in)
{
	char *path = xasprintf("%s/saturate.last", env->conf.state_dir);
	char *tmp = xasprintf("%s.new", path);
	FILE *f;

	mkdir(env->conf.state_dir, 0700); /* as the daemon makes it */
	f = fopen(tmp, "w");

	if (f) {
		fprintf(f, "%.4f %.4f %u %lld\n", saturate_efficiency(in),
			in->threshold, in->threads, (long long)time(NULL));
		if (fclose(f) == 0)
			rename(tmp, path);
		else
			unlink(tmp);
	}
	free(tmp);
	free(path);
}

static int saturate_check(struct saturate_env *env,
			  const struct saturate_opts *o)
{
	struct work_spec one = {.threads = 1, .kind = o->kind};
	struct work_spec all = {.threads = o->threads, .kind = o->kind};
	struct saturate_input in = {
		.threads = o->threads,
		.seconds = o->seconds,
		.work = o->work,
		.threshold = o->threshold,
	};
	struct procstat first = {0}, last = {0};
	struct saturate_run single = {0}, run = {0};
	struct saturate_task *before, *after;
	struct saturate_findings findings;
	size_t nb, na, shares_max;
	bool live = !o->json && isatty(2);
	int status;

	saturate_facts(env, &in);
	if (saturate_measure(env, &one, o->seconds < 5 ? o->seconds / 5 : 1,
			     live, 0, NULL, NULL, &single) < 0) {
		fprintf(stderr, "cpupolicyctl: cannot start the workers\n");
		return CTL_EXIT_USAGE;
	}
	nb = saturate_tasks(env->conf.procfs, &before);
	if (saturate_measure(env, &all, o->seconds, live, single.rate_per_cpu,
			     &first, &last, &run) < 0) {
		fprintf(stderr, "cpupolicyctl: cannot start the workers\n");
		return CTL_EXIT_USAGE;
	}
	na = saturate_tasks(env->conf.procfs, &after);
	/* One thread's rate per CPU second: the capacity of one CPU for
	 * this work, even when competitors share the CPUs meanwhile. */
	in.single_rate = single.rate_per_cpu;
	in.total_rate = run.rate;
	in.our_nice = run.nice;
	in.thread_cpu_s = run.cpu_s;
	in.thread_count = o->threads;
	in.competitor_count = saturate_competitors(
		before, nb, after, na, run.seconds + 0.1, 0, &in.competitors);
	shares_max = last.count ? last.count : 1;
	in.cpus = xcalloc(shares_max, sizeof(*in.cpus));
	in.cpu_count = procstat_diff(&first, &last, in.cpus, shares_max);
	saturate_diagnose(&in, env->have_topo ? &env->topo : NULL, &findings);
	if (o->json)
		saturate_render_json(&in, env->have_topo ? &env->topo : NULL,
				     &findings, stdout);
	else
		saturate_render_text(&in, env->have_topo ? &env->topo : NULL,
				     &findings, stdout);
	status = saturate_efficiency(&in) >= o->threshold ? CTL_EXIT_OK
							  : CTL_EXIT_FAIL;
	saturate_remember(env, &in);
	saturate_findings_free(&findings);
	free(in.cpus);
	free(in.competitors);
	free(before);
	free(after);
	free(single.cpu_s);
	free(run.cpu_s);
	procstat_free(&first);
	procstat_free(&last);
	hwloc_bitmap_free(in.possible);
	hwloc_bitmap_free(in.online);
	hwloc_bitmap_free(in.affinity);
	hwloc_bitmap_free(in.cpuset);
	return status;
}

/* --compare: B is the rule body applied to a fresh worker process. */
struct saturate_policy {
	struct rules rules;
	const struct rule *rule;
	struct prio_target prio;
	struct place_plan place;
};

static int saturate_policy_setup(void *ctx)
{
	struct saturate_policy *b = ctx;
	struct prio_state now, wanted;

	if (prio_target_empty(&b->prio))
		return 0;
	if (apply_prio_read(0, &now) < 0)
		return -1;
	prio_expected(&b->prio, &now, &wanted);
	return apply_prio_write(0, &now, &wanted);
}

static int saturate_policy_thread(void *ctx, pthread_t thread, unsigned index)
{
	struct saturate_policy *b = ctx;
	size_t size = CPU_ALLOC_SIZE(CPULIST_MAX_CPU + 1);
	cpu_set_t *mask;
	int status;

	if (!b->place.active)
		return 0;
	mask = CPU_ALLOC(CPULIST_MAX_CPU + 1);
	hwloc_cpuset_to_glibc_sched_affinity(
		NULL, place_plan_thread(&b->place, (int)index), mask, size);
	status = pthread_setaffinity_np(thread, size, mask) == 0 ? 0 : -1;
	CPU_FREE(mask);
	return status;
}

static int saturate_policy_parse(struct saturate_env *env, const char *body,
				 struct saturate_policy *b)
{
	char *text = xasprintf("rules = ( { name = \"compare\"; match = { exe "
			       "= \"/compare\"; }; %s } );\n",
			       body);
	struct diag diag;
	char why[128];
	int status = 0;

	*b = (struct saturate_policy){0};
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
		prio_target_from_rule(&b->rule->priority, &b->prio);
		if (status == 0 && rules_places(b->rule) &&
		    (!env->have_topo ||
		     place_plan_make(&env->topo, &b->rule->placement,
				     env->topo.all, &b->place, why,
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

static int saturate_double_compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Two-sided 95 % t quantiles for 1..30 degrees of freedom. */
static double saturate_t95(unsigned df)
{
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262,	2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110,	2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060,	2.056, 2.052, 2.048, 2.045, 2.042,
	};

	return df == 0 ? 0 : df <= 30 ? t[df - 1] : 1.96;
}

struct saturate_probe_stats {
	double p99_us, p999_us;
	unsigned missed, samples;
};

static void saturate_probe_window(const struct work_probe *probe,
				  long long from, long long to,
				  struct saturate_probe_stats *out)
{
	unsigned count = __atomic_load_n(&probe->count, __ATOMIC_ACQUIRE);
	double *late = xcalloc(count ? count : 1, sizeof(*late));
	unsigned n = 0;

	*out = (struct saturate_probe_stats){0};
	for (unsigned i = 0; i < count; i++) {
		if (probe->at[i] < from || probe->at[i] >= to)
			continue;
		late[n++] = (double)probe->late[i] / 1e3;
		if (probe->late[i] >= probe->period_ns)
			out->missed +=
				(unsigned)(probe->late[i] / probe->period_ns);
	}
	if (n) {
		qsort(late, n, sizeof(*late), saturate_double_compare);
		out->p99_us = late[(size_t)(n * 0.99)];
		out->p999_us = late[(size_t)(n * 0.999)];
	}
	out->samples = n;
	free(late);
}

struct saturate_condition {
	double rate_sum, background_sum;
	struct saturate_probe_stats probe;
	unsigned trials;
};

static int saturate_compare(struct saturate_env *env,
			    const struct saturate_opts *o)
{
	struct saturate_policy b;
	struct work_spec a_spec = {.threads = o->threads, .kind = o->kind};
	struct work_spec b_spec = {
		.threads = o->threads,
		.kind = o->kind,
		.setup = saturate_policy_setup,
		.thread_setup = saturate_policy_thread,
		.setup_ctx = &b,
	};
	struct work_spec bg_spec = {.threads = o->background,
				    .kind = WORK_KIND_INT};
	struct saturate_condition cond[2] = {{0}};
	struct work_shared *bg = NULL;
	struct work_probe *probe = NULL;
	double *ratio = xcalloc(o->pairs, sizeof(*ratio)), bg_alone = 0;
	double mean = 0, sd = 0, half;
	pid_t bg_pid = -1, probe_pid = -1;
	long long bg_t = 0;
	unsigned long long bg_c = 0;

	if (saturate_policy_parse(env, o->compare, &b) < 0) {
		free(ratio);
		rules_free(&b.rules);
		return CTL_EXIT_USAGE;
	}
	if (o->background) {
		struct saturate_run alone = {0};

		/* The background's rate alone, as the baseline of its cost. */
		if (saturate_measure(env, &bg_spec, o->seconds, false, 0, NULL,
				     NULL, &alone) < 0)
			goto fail;
		bg_alone = alone.rate;
		free(alone.cpu_s);
		bg = work_shared_new();
		bg_pid = bg ? work_start(&bg_spec, bg) : -1;
		if (bg_pid < 0)
			goto fail;
		bg->start = 1;
	}
	if (o->probe) {
		probe = work_probe_new();
		probe_pid = probe ? work_probe_start(probe, 1000) : -1;
		if (probe_pid < 0)
			goto fail;
	}
	for (unsigned pair = 0; pair < o->pairs; pair++) {
		double rate[2] = {0};

		for (unsigned step = 0; step < 2; step++) {
			/* A→B, then B→A, and so on. */
			unsigned which = (pair + step) % 2;
			struct saturate_run run = {0};
			struct saturate_probe_stats ps;
			long long from;

			if (bg) {
				bg_c = work_total(bg, o->background);
				bg_t = work_now_ns();
			}
			from = work_now_ns();
			if (saturate_measure(env, which ? &b_spec : &a_spec,
					     o->seconds, false, 0, NULL, NULL,
					     &run) < 0) {
				fprintf(stderr, "cpupolicyctl: a trial failed "
						"(raising priority needs root "
						"or CAP_SYS_NICE)\n");
				goto fail;
			}
			rate[which] = run.rate;
			cond[which].rate_sum += run.rate;
			cond[which].trials++;
			if (bg)
				cond[which].background_sum +=
					(double)(work_total(bg, o->background) -
						 bg_c) /
					((double)(work_now_ns() - bg_t) / 1e9);
			if (probe) {
				saturate_probe_window(probe, from,
						      work_now_ns(), &ps);
				if (ps.p99_us > cond[which].probe.p99_us)
					cond[which].probe.p99_us = ps.p99_us;
				if (ps.p999_us > cond[which].probe.p999_us)
					cond[which].probe.p999_us = ps.p999_us;
				cond[which].probe.missed += ps.missed;
				cond[which].probe.samples += ps.samples;
			}
			free(run.cpu_s);
			if (!o->json && isatty(2))
				fprintf(stderr, "\r  pair %u/%u  %s %.3f M/s",
					pair + 1, o->pairs, which ? "B" : "A",
					run.rate / 1e6);
		}
		ratio[pair] = rate[0] > 0 ? rate[1] / rate[0] - 1 : 0;
		mean += ratio[pair];
	}
	if (!o->json && isatty(2))
		fprintf(stderr, "\r\033[K");
	mean /= o->pairs;
	for (unsigned i = 0; i < o->pairs; i++)
		sd += (ratio[i] - mean) * (ratio[i] - mean);
	sd = o->pairs > 1 ? sqrt(sd / (o->pairs - 1)) : 0;
	half = saturate_t95(o->pairs - 1) * sd / sqrt(o->pairs);
	if (o->json) {
		printf("{\"compare\":");
		proto_json_string(stdout, o->compare);
		printf(",\"pairs\":%u,\"threads\":%u,\"seconds\":%.3f,"
		       "\"rate_a\":%.1f,\"rate_b\":%.1f,\"change\":%.4f,"
		       "\"ci95\":[%.4f,%.4f]",
		       o->pairs, o->threads, o->seconds,
		       cond[0].rate_sum / cond[0].trials,
		       cond[1].rate_sum / cond[1].trials, mean, mean - half,
		       mean + half);
		if (bg)
			printf(",\"background_alone\":%.1f,\"background_a\":%."
			       "4f,"
			       "\"background_b\":%.4f",
			       bg_alone,
			       cond[0].background_sum / cond[0].trials /
				       bg_alone,
			       cond[1].background_sum / cond[1].trials /
				       bg_alone);
		if (probe)
			printf(",\"probe_a\":{\"p99_us\":%.1f,\"p999_us\":%.1f,"
			       "\"missed\":%u},\"probe_b\":{\"p99_us\":%.1f,"
			       "\"p999_us\":%.1f,\"missed\":%u}",
			       cond[0].probe.p99_us, cond[0].probe.p999_us,
			       cond[0].probe.missed, cond[1].probe.p99_us,
			       cond[1].probe.p999_us, cond[1].probe.missed);
		printf("}\n");
	} else {
		printf("compare: A as is, B with: %s\n", o->compare);
		printf("  %u pairs of %.1f s trials, %u thread%s, work %s, "
		       "alternating order\n",
		       o->pairs, o->seconds, o->threads,
		       o->threads == 1 ? "" : "s", o->work);
		printf("  throughput A: %10.3f M units/s\n",
		       cond[0].rate_sum / cond[0].trials / 1e6);
		printf("  throughput B: %10.3f M units/s\n",
		       cond[1].rate_sum / cond[1].trials / 1e6);
		printf("  change B/A:   %+9.1f %%  (95 %% CI %+.1f %% .. %+.1f "
		       "%%)\n",
		       mean * 100, (mean - half) * 100, (mean + half) * 100);
		if (bg)
			printf("  background (%u threads, normal priority): "
			       "%.0f %% of its rate alone with A, %.0f %% with "
			       "B\n",
			       o->background,
			       cond[0].background_sum / cond[0].trials /
				       bg_alone * 100,
			       cond[1].background_sum / cond[1].trials /
				       bg_alone * 100);
		if (probe)
			printf("  probe (1 ms period, normal priority): A p99 "
			       "%.0f us, p99.9 %.0f us, %u missed; B p99 %.0f "
			       "us, p99.9 %.0f us, %u missed\n",
			       cond[0].probe.p99_us, cond[0].probe.p999_us,
			       cond[0].probe.missed, cond[1].probe.p99_us,
			       cond[1].probe.p999_us, cond[1].probe.missed);
	}
	if (bg) {
		work_stop(bg_pid, bg);
		work_shared_free(bg);
	}
	if (probe) {
		probe->stop = 1;
		waitpid(probe_pid, NULL, 0);
		work_probe_free(probe);
	}
	place_plan_free(&b.place);
	rules_free(&b.rules);
	free(ratio);
	return CTL_EXIT_OK;
fail:
	if (bg_pid > 0)
		work_stop(bg_pid, bg);
	if (bg)
		work_shared_free(bg);
	if (probe_pid > 0) {
		probe->stop = 1;
		waitpid(probe_pid, NULL, 0);
	}
	if (probe)
		work_probe_free(probe);
	place_plan_free(&b.place);
	rules_free(&b.rules);
	free(ratio);
	return CTL_EXIT_USAGE;
}

static int saturate_number(const char *text, double min, double max,
			   double *out)
{
	char *end;

	errno = 0;
	*out = strtod(text, &end);
	return *end || errno || *out < min || *out > max ? -1 : 0;
}

int saturate_main(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{"threads", required_argument, NULL, 't'},
		{"seconds", required_argument, NULL, 's'},
		{"work", required_argument, NULL, 'w'},
		{"threshold", required_argument, NULL, 'T'},
		{"json", no_argument, NULL, 'j'},
		{"compare", required_argument, NULL, 'c'},
		{"pairs", required_argument, NULL, 'p'},
		{"background", required_argument, NULL, 'b'},
		{"probe", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct saturate_opts o = {.work = "tan", .threshold = 0.9, .pairs = 5};
	bool pairs_set = false;
	struct saturate_env env = {0};
	struct diag diag;
	double v;
	int c, status;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (saturate_number(optarg, 1, WORK_MAX_THREADS, &v) <
				    0 ||
			    v != (unsigned)v)
				goto usage;
			o.threads = (unsigned)v;
			break;
		case 's':
			if (saturate_number(optarg, 0.2, 3600, &v) < 0)
				goto usage;
			o.seconds = v;
			break;
		case 'w':
			o.work = optarg;
			if (strcmp(optarg, "tan") == 0)
				o.kind = WORK_KIND_TAN;
			else if (strcmp(optarg, "int") == 0)
				o.kind = WORK_KIND_INT;
			else if (strcmp(optarg, "mem") == 0)
				o.kind = WORK_KIND_MEM;
			else
				goto usage;
			break;
		case 'T':
			if (saturate_number(optarg, 0, 100, &v) < 0)
				goto usage;
			o.threshold = v / 100;
			break;
		case 'j':
			o.json = true;
			break;
		case 'c':
			o.compare = optarg;
			break;
		case 'p':
			if (saturate_number(optarg, 2, 100, &v) < 0 ||
			    v != (unsigned)v)
				goto usage;
			o.pairs = (unsigned)v;
			pairs_set = true;
			break;
		case 'b':
			if (saturate_number(optarg, 1, WORK_MAX_THREADS, &v) <
				    0 ||
			    v != (unsigned)v)
				goto usage;
			o.background = (unsigned)v;
			break;
		case 'P':
			o.probe = true;
			break;
		case 'h':
			saturate_usage(stdout);
			return CTL_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (optind != argc ||
	    (!o.compare && (o.background || o.probe || pairs_set)))
		goto usage;
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
	env.have_topo = place_topology_load(&env.topo, NULL, NULL) == 0;
	if (!o.threads) {
		hwloc_bitmap_t online = hwloc_bitmap_alloc();
		char *path = xasprintf("%s/devices/system/cpu/online",
				       env.conf.sysfs);

		o.threads = apply_place_read_list(path, online) == 0
				    ? (unsigned)hwloc_bitmap_weight(online)
				    : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
		if (o.threads > WORK_MAX_THREADS)
			o.threads = WORK_MAX_THREADS;
		hwloc_bitmap_free(online);
		free(path);
	}
	if (!o.seconds)
		o.seconds = o.compare ? 3 : 5;
	status = o.compare ? saturate_compare(&env, &o)
			   : saturate_check(&env, &o);
	if (env.have_topo)
		place_topology_free(&env.topo);
	conf_free(&env.conf);
	return status;
usage:
	saturate_usage(stderr);
	return CTL_EXIT_USAGE;
}
