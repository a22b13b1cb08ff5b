/* The saturation check's judgement: the efficiency against what the
 * machine's cores can do, and findings from measurements (the report
 * that draws them is saturate_report.c). Each finding says what was seen (the
 * evidence) and what to write to fix it: a rule fragment where a rule can, a
 * setting where only the system's configuration can. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prio.h"
#include "rules.h"
#include "saturate.h"
#include "util.h"

static const char *const saturate_kind_names[] = {
	[SATURATE_KIND_OFFLINE] = "offline-cpus",
	[SATURATE_KIND_AFFINITY] = "affinity",
	[SATURATE_KIND_CPUSET] = "cpuset",
	[SATURATE_KIND_QUOTA] = "cpu-quota",
	[SATURATE_KIND_STEAL] = "steal",
	[SATURATE_KIND_CONTENTION] = "contention",
	[SATURATE_KIND_PRIORITY] = "priority",
	[SATURATE_KIND_CORE_KINDS] = "core-kinds",
	[SATURATE_KIND_SMT] = "smt-siblings-idle",
	[SATURATE_KIND_NUMA] = "numa-nodes-idle",
	[SATURATE_KIND_FREQUENCY] = "frequency",
	[SATURATE_KIND_BASELINE] = "baseline-shared",
	[SATURATE_KIND_OVERSUBSCRIBED] = "more-threads-than-cpus",
	[SATURATE_KIND_GROUPS] = "processor-group",
	[SATURATE_KIND_PARKED] = "parked-cores",
	[SATURATE_KIND_ECOQOS] = "ecoqos",
	[SATURATE_KIND_UNEXPLAINED] = "unexplained",
};

size_t saturate_kind_count(void)
{
	return ARRAY_SIZE(saturate_kind_names);
}

const char *saturate_kind_name(enum saturate_kind kind)
{
	return saturate_kind_names[kind];
}

/* One thread per CPU the machine has, online or not: a parked CPU is
 * capacity the check must miss. Counts only, so that every system can
 * feed it (on Windows, every logical processor of every group). */
unsigned saturate_default_threads(unsigned present, unsigned online,
				  unsigned max)
{
	unsigned n = present ? present : online;

	if (!n)
		n = 1;
	return n < max ? n : max;
}

static int saturate_machine_numa(const struct place_topology *topo, int cpu)
{
	for (size_t i = 0; i < topo->numa.count; i++) {
		if (hwloc_bitmap_isset(topo->numa.sets[i], (unsigned)cpu))
			return (int)i;
	}
	return topo->numa.count == 1 ? 0 : -1;
}

static enum saturate_cpu_kind saturate_machine_kind(
	const struct place_topology *topo, int cpu)
{
	if (!topo->performance)
		return SATURATE_CPU_KIND_ONLY;
	return hwloc_bitmap_isset(topo->performance, (unsigned)cpu)
		       ? SATURATE_CPU_KIND_PERFORMANCE
		       : SATURATE_CPU_KIND_EFFICIENCY;
}

/* hwloc's core of a CPU, -1 where it knows none (an offline CPU may have
 * no object: the kernel hides its topology). */
static int saturate_machine_hwcore(const struct place_topology *topo, int cpu)
{
	hwloc_obj_t pu, core;

	if (!topo)
		return -1;
	pu = hwloc_get_pu_obj_by_os_index(topo->topology, (unsigned)cpu);
	core = pu ? hwloc_get_ancestor_obj_by_type(topo->topology,
						   HWLOC_OBJ_CORE, pu)
		  : NULL;
	return core ? (int)core->logical_index : -1;
}

/* Every present CPU, its core numbered in the order the cores first
 * appear; without a topology (or for a CPU it lacks) a CPU is a core. */
int saturate_machine_load(struct saturate_machine *m,
			  const struct place_topology *topo,
			  hwloc_const_bitmap_t present)
{
	int weight = hwloc_bitmap_weight(present), hw_cores = 0, cpu;
	int *core_of = NULL;

	*m = (struct saturate_machine){0};
	if (weight <= 0)
		return -1;
	if (topo)
		hw_cores = hwloc_get_nbobjs_by_type(topo->topology,
						    HWLOC_OBJ_CORE);
	if (hw_cores > 0) {
		core_of = xcalloc((size_t)hw_cores, sizeof(*core_of));
		for (int i = 0; i < hw_cores; i++)
			core_of[i] = -1;
	}
	m->cpus = xcalloc((size_t)weight, sizeof(*m->cpus));
	m->numa_count = topo && topo->numa.count ? topo->numa.count : 1;
	m->kinds = topo && topo->performance;
	hwloc_bitmap_foreach_begin(cpu, present)
	{
		struct saturate_cpu *c = &m->cpus[m->cpu_count++];
		int hw = saturate_machine_hwcore(topo, cpu);

		c->cpu = cpu;
		c->numa = topo ? saturate_machine_numa(topo, cpu) : 0;
		c->kind = topo ? saturate_machine_kind(topo, cpu)
			       : SATURATE_CPU_KIND_ONLY;
		if (hw >= 0 && hw < hw_cores && core_of[hw] >= 0) {
			c->core = core_of[hw];
			continue;
		}
		c->core = (int)m->core_count++;
		if (hw >= 0 && hw < hw_cores)
			core_of[hw] = c->core;
	}
	hwloc_bitmap_foreach_end();
	free(core_of);
	return 0;
}

/* Windows' processor groups, as hwloc numbers their processors there:
 * group g's processor n is CPU g * group_bits + n. */
void saturate_machine_groups(struct saturate_machine *m, unsigned group_bits)
{
	m->group_count = 0;
	for (size_t i = 0; i < m->cpu_count; i++) {
		m->cpus[i].group = m->cpus[i].cpu / (int)group_bits;
		if ((size_t)m->cpus[i].group + 1 > m->group_count)
			m->group_count = (size_t)m->cpus[i].group + 1;
	}
}

/* The CPUs the power manager had parked (Windows: the Parked flag of
 * GetSystemCpuSetInformation). */
void saturate_machine_park(struct saturate_machine *m,
			   hwloc_const_bitmap_t parked)
{
	for (size_t i = 0; i < m->cpu_count; i++)
		m->cpus[i].parked =
			hwloc_bitmap_isset(parked, (unsigned)m->cpus[i].cpu);
}

void saturate_machine_free(struct saturate_machine *m)
{
	free(m->cpus);
	*m = (struct saturate_machine){0};
}

static unsigned saturate_machine_siblings(const struct saturate_machine *m,
					  int core)
{
	unsigned n = 0;

	for (size_t i = 0; i < m->cpu_count; i++)
		n += m->cpus[i].core == core;
	return n;
}

/* The first core with two or more hardware threads, all of them usable
 * (online, allowed): where the SMT step can measure. */
bool saturate_machine_smt_core(const struct saturate_machine *m,
			       hwloc_const_bitmap_t usable, int *cpus,
			       unsigned *count, unsigned max)
{
	for (size_t core = 0; core < m->core_count; core++) {
		unsigned n = 0;
		bool all = true;

		for (size_t i = 0; i < m->cpu_count; i++) {
			if (m->cpus[i].core != (int)core)
				continue;
			if (!hwloc_bitmap_isset(usable,
						(unsigned)m->cpus[i].cpu) ||
			    n >= max)
				all = false;
			else
				cpus[n++] = m->cpus[i].cpu;
		}
		if (all && n >= 2) {
			*count = n;
			return true;
		}
	}
	*count = 0;
	return false;
}

bool saturate_machine_smt(const struct saturate_machine *m)
{
	for (size_t core = 0; m && core < m->core_count; core++) {
		if (saturate_machine_siblings(m, (int)core) > 1)
			return true;
	}
	return false;
}

/* The standard error of the mean rate over equal intervals, relative to
 * it: how far the window's rate may be from the rate of the machine. */
double saturate_rel_se(const double *rates, size_t count)
{
	double mean = 0, ss = 0;

	if (count < 2)
		return 0;
	for (size_t i = 0; i < count; i++)
		mean += rates[i];
	mean /= (double)count;
	if (mean <= 0)
		return 0;
	for (size_t i = 0; i < count; i++)
		ss += (rates[i] - mean) * (rates[i] - mean);
	return sqrt(ss / (double)(count - 1)) / mean / sqrt((double)count);
}

double saturate_step_rate(const struct saturate_step *s)
{
	return s->wall_s > 0 ? s->units / s->wall_s : 0;
}

double saturate_step_rate_cpu(const struct saturate_step *s)
{
	return s->cpu_s > 0 ? s->units / s->cpu_s : 0;
}

/* The share of a CPU each thread had, on average, in the window. */
double saturate_step_share(const struct saturate_step *s)
{
	return s->wall_s > 0 && s->threads ? s->cpu_s / (s->wall_s * s->threads)
					   : 0;
}

double saturate_smt_yield(const struct saturate_smt *smt)
{
	double one;

	switch (smt->source) {
	case SATURATE_YIELD_NONE:
		return 0;
	case SATURATE_YIELD_GIVEN:
	case SATURATE_YIELD_ASSUMED:
		return smt->yield;
	case SATURATE_YIELD_MEASURED:
		break;
	}
	one = saturate_step_rate(&smt->one);
	return one > 0 ? saturate_step_rate(&smt->all) / one - 1 : 0;
}

/* The machine decides whether there is a yield at all; one with SMT
 * whose yield nobody gave or measured gets the assumed one. */
static void saturate_judge_yield(const struct saturate_input *in,
				 struct saturate_result *r)
{
	r->source = in->smt.source;
	if (!saturate_machine_smt(in->machine))
		r->source = SATURATE_YIELD_NONE;
	else if (r->source == SATURATE_YIELD_NONE)
		r->source = SATURATE_YIELD_ASSUMED;
	switch (r->source) {
	case SATURATE_YIELD_NONE:
		r->yield = 0;
		return;
	case SATURATE_YIELD_ASSUMED:
		r->yield = in->smt.source == SATURATE_YIELD_ASSUMED
				   ? in->smt.yield
				   : SATURATE_SMT_YIELD_ASSUMED;
		break;
	case SATURATE_YIELD_MEASURED:
	case SATURATE_YIELD_GIVEN:
		r->yield = saturate_smt_yield(&in->smt);
		break;
	}
	if (r->yield < 0)
		r->yield = 0;
}

static int saturate_double_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* What `threads` threads can get from the cores, in one thread's rates:
 * one thread a core first, each counting 1, then the other hardware
 * threads, which together add the yield to their core. Without a
 * machine, every thread counts 1. */
double saturate_capacity(const struct saturate_machine *m, unsigned threads,
			 double yield)
{
	double *extra, sum;
	size_t n = 0, firsts;

	if (!m || !m->core_count)
		return threads;
	if (yield < 0)
		yield = 0;
	firsts = m->core_count < threads ? m->core_count : threads;
	sum = (double)firsts;
	extra = xcalloc(m->cpu_count + 1, sizeof(*extra));
	for (size_t core = 0; core < m->core_count; core++) {
		unsigned k = saturate_machine_siblings(m, (int)core);

		for (unsigned j = 1; j < k; j++)
			extra[n++] = yield / (k - 1);
	}
	qsort(extra, n, sizeof(*extra), saturate_double_desc);
	for (size_t i = 0; i < n && firsts + i < threads; i++)
		sum += extra[i];
	free(extra);
	return sum;
}

static void saturate_add(struct saturate_findings *out, enum saturate_kind kind,
			 const char *fix, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 4, 5)));

static void saturate_add(struct saturate_findings *out, enum saturate_kind kind,
			 const char *fix, const char *fmt, ...)
{
	struct saturate_finding *f;
	va_list ap;

	out->list =
		xreallocarray(out->list, out->count + 1, sizeof(*out->list));
	f = &out->list[out->count++];
	f->kind = kind;
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
}

void saturate_result_free(struct saturate_result *r)
{
	free(r->findings.list);
	free(r->cores);
	*r = (struct saturate_result){0};
}

bool saturate_found(const struct saturate_result *r, enum saturate_kind kind)
{
	for (size_t i = 0; i < r->findings.count; i++) {
		if (r->findings.list[i].kind == kind)
			return true;
	}
	return false;
}

/* A cap on the CPU time of the whole process: a cgroup's quota, or on
 * Windows the job object's CPU rate (whoever started the process in the
 * job set it). */
static void saturate_quota(const struct saturate_input *in,
			   struct saturate_findings *out)
{
	if (in->quota_cpus < 0 ||
	    in->quota_cpus >= (double)in->threads - 0.05 ||
	    in->quota_cpus >= hwloc_bitmap_weight(in->online) - 0.05)
		return;
	if (in->system == SATURATE_SYSTEM_WINDOWS)
		saturate_add(out, SATURATE_KIND_QUOTA,
			     "raise or remove the job's CPU rate limit "
			     "(JobObjectCpuRateControlInformation) where the "
			     "process is put in the job (a service host, a "
			     "container, a scheduler); a rule cannot leave a "
			     "job",
			     "%s limits CPU time to %.2f CPUs for %u threads",
			     in->cgroup[0] ? in->cgroup : "a job object",
			     in->quota_cpus, in->threads);
	else
		saturate_add(out, SATURATE_KIND_QUOTA,
			     "raise the quota (cpu.max, or cpu.cfs_quota_us on "
			     "cgroup v1; CPUQuota= for a systemd unit)",
			     "cgroup %s limits CPU time to %.2f CPUs for %u "
			     "threads",
			     in->cgroup[0] ? in->cgroup : "/", in->quota_cpus,
			     in->threads);
}

/* A Windows job's CPU rate control as a quota in CPUs, -1 for none: a
 * rate is in hundredths of a percent of all the machine's processors; a
 * hard cap or a maximum rate limits; a soft rate or a weight yields only
 * to competition, which the contention finding speaks of. */
double saturate_job_quota(unsigned flags, unsigned rate, unsigned max_rate,
			  unsigned cpus)
{
	if (!(flags & SATURATE_JOB_RATE_ENABLE) ||
	    (flags & SATURATE_JOB_RATE_WEIGHT))
		return -1;
	if (flags & SATURATE_JOB_RATE_MIN_MAX)
		rate = max_rate;
	else if (!(flags & SATURATE_JOB_RATE_HARD_CAP))
		return -1;
	if (rate == 0 || rate >= 10000)
		return -1;
	return (double)rate / 10000 * cpus;
}

/* A CPU's busy share in the run; an offline CPU, or one /proc/stat does
 * not list, did nothing. */
static double saturate_cpu_busy(const struct saturate_input *in, int cpu)
{
	if (in->online && !hwloc_bitmap_isset(in->online, (unsigned)cpu))
		return 0;
	for (size_t i = 0; i < in->cpu_count; i++) {
		if (in->cpus[i].cpu == cpu)
			return in->cpus[i].busy;
	}
	return 0;
}

static double saturate_busy_kind(const struct saturate_input *in,
				 enum saturate_cpu_kind kind, unsigned *count)
{
	const struct saturate_machine *m = in->machine;
	double sum = 0;

	*count = 0;
	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].kind != kind)
			continue;
		sum += saturate_cpu_busy(in, m->cpus[i].cpu);
		(*count)++;
	}
	return *count ? sum / *count : 0;
}

static void saturate_limits(const struct saturate_input *in,
			    struct saturate_findings *out)
{
	char a[256], b[256], fix[512];
	hwloc_bitmap_t missing = hwloc_bitmap_alloc();

	hwloc_bitmap_andnot(missing, in->present, in->online);
	if (!hwloc_bitmap_iszero(missing)) {
		place_format(missing, a, sizeof(a));
		saturate_add(out, SATURATE_KIND_OFFLINE,
			     "a rule for the workload: power = { parking = "
			     "\"off\"; };  (or min_online); by hand: echo 1 > "
			     "/sys/devices/system/cpu/cpuN/online",
			     "CPUs %s are offline (parked): %d of %d CPUs can "
			     "run anything",
			     a, hwloc_bitmap_weight(in->online),
			     hwloc_bitmap_weight(in->present));
	}
	if (in->affinity &&
	    !hwloc_bitmap_isincluded(in->online, in->affinity)) {
		place_format(in->affinity, a, sizeof(a));
		place_format(in->online, b, sizeof(b));
		snprintf(fix, sizeof(fix),
			 "a rule for the workload: placement = { cpus = "
			 "\"%s\"; };  or spread = \"%s\"; (the affinity "
			 "comes from whoever started it)",
			 b,
			 in->machine && in->machine->group_count > 1 ? "group"
								     : "numa");
		saturate_add(out, SATURATE_KIND_AFFINITY, fix,
			     "the threads may run only on CPUs %s (%d of %d "
			     "online): an inherited affinity mask confines "
			     "them, like a Windows processor group",
			     a, hwloc_bitmap_weight(in->affinity),
			     hwloc_bitmap_weight(in->online));
	}
	/* Windows has no cpusets: what a process may use is its affinity. */
	if (in->system != SATURATE_SYSTEM_WINDOWS && in->cpuset &&
	    !hwloc_bitmap_isincluded(in->online, in->cpuset)) {
		place_format(in->cpuset, a, sizeof(a));
		saturate_add(out, SATURATE_KIND_CPUSET,
			     "widen the cgroup's cpuset (cpuset.cpus, or "
			     "AllowedCPUs= for a systemd unit); a rule cannot "
			     "leave its cpuset",
			     "the cpuset of cgroup %s allows only CPUs %s",
			     in->cpuset_cgroup[0] ? in->cpuset_cgroup : "/", a);
	}
	saturate_quota(in, out);
	hwloc_bitmap_free(missing);
}

/* The CPU time others took in the run: the CPUs' busy time less the
 * workers' own, which counts the processes that came and went too. */
static double saturate_others(const struct saturate_input *in)
{
	double busy = 0;

	if (in->run.wall_s <= 0 || in->run.cpu_s <= 0)
		return 0;
	for (size_t i = 0; i < in->cpu_count; i++)
		busy += in->cpus[i].busy;
	busy -= in->run.cpu_s / in->run.wall_s;
	return busy > 0 ? busy : 0;
}

/* A priority as the system says it: a nice value, or on Windows the
 * priority class it stands for (facts give a class as its nice). */
static const char *saturate_priority(const struct saturate_input *in, int nice,
				     char *buf, size_t size)
{
	struct prio_state state = {.nice = nice, .windows = true};

	if (in->system == SATURATE_SYSTEM_WINDOWS)
		snprintf(buf, size, "class %s",
			 rules_enum_name(RULES_ENUM_CLASS,
					 prio_class_of_state(&state)));
	else
		snprintf(buf, size, "nice %d", nice);
	return buf;
}

static void saturate_competition(const struct saturate_input *in,
				 struct saturate_findings *out)
{
	char theirs[32], ours[32];
	char list[400] = "";
	double total = 0, others = saturate_others(in);
	size_t used = 0;
	int min_nice = 20;

	for (size_t i = 0; i < in->competitor_count; i++) {
		const struct saturate_competitor *c = &in->competitors[i];
		int n;

		total += c->cpus;
		if (c->nice < min_nice)
			min_nice = c->nice;
		if (i >= 5 || used >= sizeof(list))
			continue;
		n = snprintf(
			list + used, sizeof(list) - used,
			"%spid %d (%s, %s) %.0f %%", i ? ", " : "", (int)c->pid,
			c->name,
			saturate_priority(in, c->nice, theirs, sizeof(theirs)),
			c->cpus * 100);
		if (n > 0)
			used += (size_t)n;
	}
	if (total < 0.1 && others < 0.1)
		return;
	if (others >= total + 0.1)
		snprintf(list + used, sizeof(list) - used,
			 "%sshort-lived ones %.2f CPUs (the CPUs' busy time "
			 "less the workers')",
			 used ? ", and " : "", others - total);
	saturate_add(out, SATURATE_KIND_CONTENTION,
		     "a rule for the workload: priority = { class = \"high\"; "
		     "};  or one for the others: priority = { class = "
		     "\"below-normal\"; }; (measure it: saturate --compare)",
		     "other processes took %.2f CPUs during the run: %s",
		     total > others ? total : others, list);
	if (min_nice < in->our_nice)
		saturate_add(
			out, SATURATE_KIND_PRIORITY,
			in->system == SATURATE_SYSTEM_WINDOWS
				? "a rule for the workload: priority = { "
				  "class = \"above-normal\"; }; or a class at "
				  "least as high as theirs (add thread = "
				  "\"highest\" for its threads against "
				  "theirs)"
				: "a rule for the workload: priority = { "
				  "class = \"above-normal\"; };  (nice -5) or "
				  "a nice at least as low as theirs",
			"the competing load runs at a higher priority "
			"(%s) than the workload (%s)",
			saturate_priority(in, min_nice, theirs, sizeof(theirs)),
			saturate_priority(in, in->our_nice, ours,
					  sizeof(ours)));
}

/* Performance cores idle while efficiency cores work: the hybrid story. */
static void saturate_kinds(const struct saturate_input *in,
			   struct saturate_findings *out)
{
	unsigned p_count, e_count;
	double p_busy, e_busy;

	if (!in->machine->kinds)
		return;
	p_busy =
		saturate_busy_kind(in, SATURATE_CPU_KIND_PERFORMANCE, &p_count);
	e_busy = saturate_busy_kind(in, SATURATE_CPU_KIND_EFFICIENCY, &e_count);
	if (!p_count || !e_count || p_busy > 0.5 || e_busy < 0.75)
		return;
	saturate_add(out, SATURATE_KIND_CORE_KINDS,
		     in->system == SATURATE_SYSTEM_WINDOWS
			     ? "a rule for the workload: priority = { class = "
			       "\"above-normal\"; efficiency_mode = \"off\"; "
			       "};  (Windows schedules a raised class and a "
			       "process out of EcoQoS on the P-cores first) or "
			       "placement = { cores = \"performance\"; };"
			     : "a rule for the workload: priority = { class = "
			       "\"high\"; };  placement = { cores = "
			       "\"performance\"; };",
		     "the %u performance CPUs were %.0f %% busy while the %u "
		     "efficiency CPUs were %.0f %% busy",
		     p_count, p_busy * 100, e_count, e_busy * 100);
}

/* A group's CPUs' mean busy share in the run, and how many it has. */
static double saturate_busy_group(const struct saturate_input *in, int group,
				  unsigned *count)
{
	const struct saturate_machine *m = in->machine;
	double sum = 0;

	*count = 0;
	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].group != group)
			continue;
		sum += saturate_cpu_busy(in, m->cpus[i].cpu);
		(*count)++;
	}
	return *count ? sum / *count : 0;
}

/* The thread-pool case: a process starts in one processor group and its
 * threads stay there unless placed, so one group works while the others
 * idle. */
static void saturate_groups(const struct saturate_input *in,
			    struct saturate_findings *out)
{
	const struct saturate_machine *m = in->machine;
	double busy = 0, rest = 0;
	unsigned n = 0, rest_n = 0, count;
	int top = -1;

	if (m->group_count < 2)
		return;
	for (size_t g = 0; g < m->group_count; g++) {
		double b = saturate_busy_group(in, (int)g, &count);

		if (count && (top < 0 || b > busy)) {
			top = (int)g;
			busy = b;
			n = count;
		}
	}
	for (size_t g = 0; g < m->group_count; g++) {
		double b = saturate_busy_group(in, (int)g, &count);

		if ((int)g == top || !count)
			continue;
		rest += b * count;
		rest_n += count;
	}
	if (top < 0 || !rest_n || busy < 0.75 || rest / rest_n >= 0.25)
		return;
	saturate_add(out, SATURATE_KIND_GROUPS,
		     "a rule for the workload: placement = { spread = "
		     "\"group\"; };  (its threads dealt over every processor "
		     "group)",
		     "the work stayed in processor group %d: its %u CPUs "
		     "were %.0f %% busy while the other %s %u CPUs "
		     "were %.0f %% busy (a process starts in one group, and "
		     "its threads stay there unless placed)",
		     top, n, busy * 100,
		     m->group_count > 2 ? "groups'" : "group's", rest_n,
		     rest / rest_n * 100);
}

/* Parked cores: the power manager keeps them idle whatever is runnable;
 * CPMINCORES below 100 % lets it. */
static void saturate_parked(const struct saturate_input *in,
			    struct saturate_findings *out)
{
	const struct saturate_machine *m = in->machine;
	hwloc_bitmap_t parked = hwloc_bitmap_alloc();
	char list[256], scheme[160] = "";
	unsigned idle = 0;

	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].parked)
			hwloc_bitmap_set(parked, (unsigned)m->cpus[i].cpu);
		idle += saturate_cpu_busy(in, m->cpus[i].cpu) < 0.5;
	}
	if (in->min_cores_known && in->min_cores < 100)
		snprintf(scheme, sizeof(scheme),
			 "; the power scheme's CPMINCORES is %d %%, so up to "
			 "%d %% of the cores may be parked",
			 in->min_cores, 100 - in->min_cores);
	if (!hwloc_bitmap_iszero(parked)) {
		place_format(parked, list, sizeof(list));
		saturate_add(out, SATURATE_KIND_PARKED,
			     "a rule for the workload: power = { parking = "
			     "\"off\"; };  (CPMINCORES and CPMINCORES1 at "
			     "100 % while it runs)",
			     "CPUs %s were parked (%d of %zu; the Parked flag "
			     "of GetSystemCpuSetInformation)%s",
			     list, hwloc_bitmap_weight(parked), m->cpu_count,
			     scheme);
	} else if (scheme[0] && idle) {
		saturate_add(out, SATURATE_KIND_PARKED,
			     "a rule for the workload: power = { parking = "
			     "\"off\"; };  (CPMINCORES and CPMINCORES1 at "
			     "100 % while it runs)",
			     "%u of %zu CPUs were less than half busy%s", idle,
			     m->cpu_count, scheme);
	}
	hwloc_bitmap_free(parked);
}

/* CPUs that did at least half their time's work. */
static unsigned saturate_busy_cpus(const struct saturate_input *in)
{
	unsigned n = 0;

	for (size_t i = 0; i < in->machine->cpu_count; i++)
		n += saturate_cpu_busy(in, in->machine->cpus[i].cpu) >= 0.5;
	return n;
}

struct saturate_smt_scan {
	unsigned smt_cores, busy_cores, one_cores;
	hwloc_bitmap_t idle; /* the idle siblings of one-thread cores */
};

/* Cores of two or more hardware threads on which one worked (75 % busy
 * or more) while the others idled (25 % or less, or offline). */
static void saturate_smt_scan(const struct saturate_input *in,
			      struct saturate_smt_scan *s)
{
	const struct saturate_machine *m = in->machine;

	for (size_t core = 0; core < m->core_count; core++) {
		double top = 0, others = 0;
		unsigned k = 0;

		for (size_t i = 0; i < m->cpu_count; i++) {
			double b;

			if (m->cpus[i].core != (int)core)
				continue;
			k++;
			b = saturate_cpu_busy(in, m->cpus[i].cpu);
			if (b > top) {
				others = top;
				top = b;
			} else if (b > others) {
				others = b;
			}
		}
		if (k < 2)
			continue;
		s->smt_cores++;
		if (top < 0.75)
			continue;
		s->busy_cores++;
		if (others > 0.25)
			continue;
		s->one_cores++;
		for (size_t i = 0; i < m->cpu_count; i++) {
			int cpu = m->cpus[i].cpu;

			if (m->cpus[i].core == (int)core &&
			    saturate_cpu_busy(in, cpu) <= 0.25)
				hwloc_bitmap_set(s->idle, (unsigned)cpu);
		}
	}
}

const char *saturate_yield_source(enum saturate_yield source)
{
	switch (source) {
	case SATURATE_YIELD_NONE:
		return "none";
	case SATURATE_YIELD_MEASURED:
		return "measured";
	case SATURATE_YIELD_GIVEN:
		return "given";
	case SATURATE_YIELD_ASSUMED:
		return "assumed";
	}
	return "none";
}

/* The threads kept to one hardware thread a core, with threads enough
 * for the siblings: offline siblings (SMT turned off) or a placement of
 * one CPU a core. */
static void saturate_smt(const struct saturate_input *in, double yield,
			 enum saturate_yield source,
			 struct saturate_findings *out)
{
	struct saturate_smt_scan s = {.idle = hwloc_bitmap_alloc()};
	hwloc_bitmap_t offline = hwloc_bitmap_alloc();
	char idle[256], off[256], fix[512];

	saturate_smt_scan(in, &s);
	hwloc_bitmap_andnot(offline, s.idle, in->online);
	if (yield > 0 && s.one_cores && s.one_cores * 2 >= s.busy_cores &&
	    in->threads > saturate_busy_cpus(in)) {
		place_format(s.idle, idle, sizeof(idle));
		place_format(offline, off, sizeof(off));
		if (hwloc_bitmap_weight(offline) * 2 >=
		    hwloc_bitmap_weight(s.idle))
			snprintf(fix, sizeof(fix),
				 "bring the siblings online: echo on > "
				 "/sys/devices/system/cpu/smt/control (where "
				 "SMT was turned off) or echo 1 > "
				 "/sys/devices/system/cpu/cpuN/online; a rule "
				 "keeps them so: power = { parking = \"off\"; "
				 "};");
		else
			snprintf(fix, sizeof(fix),
				 "let the threads use every hardware thread: a "
				 "rule for the workload with placement = { "
				 "cores = \"all\"; };  (an affinity or "
				 "placement of one CPU a core keeps the "
				 "siblings idle)");
		saturate_add(out, SATURATE_KIND_SMT, fix,
			     "on %u of %u busy cores only one hardware thread "
			     "worked: their siblings, CPUs %s, were idle (%s "
			     "offline); with them the cores do %+.0f %% (SMT "
			     "yield, %s)",
			     s.one_cores, s.busy_cores, idle,
			     off[0] ? off : "none", yield * 100,
			     saturate_yield_source(source));
	}
	hwloc_bitmap_free(offline);
	hwloc_bitmap_free(s.idle);
}

struct saturate_numa_scan {
	unsigned busy_nodes, idle_nodes, busy_cpus, idle_cpus;
	double busy_sum, idle_sum;
	char busy_list[128];
};

static void saturate_numa_node(const struct saturate_input *in, size_t node,
			       struct saturate_numa_scan *s)
{
	const struct saturate_machine *m = in->machine;
	double sum = 0;
	unsigned n = 0;
	size_t used = strlen(s->busy_list);

	for (size_t i = 0; i < m->cpu_count; i++) {
		if (m->cpus[i].numa != (int)node)
			continue;
		sum += saturate_cpu_busy(in, m->cpus[i].cpu);
		n++;
	}
	if (!n)
		return;
	if (sum / n >= 0.75) {
		s->busy_nodes++;
		s->busy_cpus += n;
		s->busy_sum += sum;
		snprintf(s->busy_list + used, sizeof(s->busy_list) - used,
			 "%s%zu", used ? "," : "", node);
	} else if (sum / n <= 0.25) {
		s->idle_nodes++;
		s->idle_cpus += n;
		s->idle_sum += sum;
	}
}

/* Whole NUMA nodes idle while others work, with threads enough for
 * them: a binding to a node (numactl, a cpuset, an affinity). */
static void saturate_numa(const struct saturate_input *in,
			  struct saturate_findings *out)
{
	struct saturate_numa_scan s = {0};

	if (in->machine->numa_count < 2)
		return;
	for (size_t node = 0; node < in->machine->numa_count; node++)
		saturate_numa_node(in, node, &s);
	if (!s.busy_nodes || !s.idle_nodes || in->threads <= s.busy_cpus)
		return;
	saturate_add(out, SATURATE_KIND_NUMA,
		     "a rule for the workload: placement = { spread = "
		     "\"numa\"; };  (a numactl --cpunodebind, a cpuset or an "
		     "affinity of one node confines it)",
		     "the threads ran on NUMA node%s %s only: %u CPUs %.0f %% "
		     "busy, while the %u CPUs of the %u other node%s were "
		     "%.0f %% busy",
		     s.busy_nodes > 1 ? "s" : "", s.busy_list, s.busy_cpus,
		     s.busy_sum / s.busy_cpus * 100, s.idle_cpus, s.idle_nodes,
		     s.idle_nodes > 1 ? "s" : "",
		     s.idle_sum / s.idle_cpus * 100);
}

static void saturate_frequency(const struct saturate_input *in,
			       struct saturate_findings *out)
{
	/* intel_pstate and amd-pstate in active mode know only
	 * "powersave" and "performance", and powersave is their normal
	 * one: there the EPP tells. */
	bool pstate = strncmp(in->driver, "intel_pstate", 12) == 0 ||
		      strncmp(in->driver, "amd-pstate-epp", 14) == 0;

	if ((strcmp(in->governor, "powersave") == 0 && !pstate) ||
	    strcmp(in->epp, "power") == 0 ||
	    strcmp(in->epp, "balance_power") == 0 || in->max_freq_capped)
		saturate_add(
			out, SATURATE_KIND_FREQUENCY,
			"a rule for the workload: power = { governor = "
			"\"performance\"; epp = \"performance\"; };",
			"the frequency is held back: governor %s, EPP %s%s",
			in->governor[0] ? in->governor : "unknown",
			in->epp[0] ? in->epp : "unknown",
			in->max_freq_capped ? ", scaling_max_freq below "
					      "the CPU's maximum"
					    : "");
}

/* The one thread alone shared its CPU: its rate reads low, and every
 * efficiency measured against it high. */
static void saturate_baseline(const struct saturate_input *in,
			      struct saturate_findings *out)
{
	double share = saturate_step_share(&in->single);

	if (in->single.wall_s <= 0 || share <= 0 ||
	    share >= SATURATE_BASELINE_SHARE)
		return;
	saturate_add(out, SATURATE_KIND_BASELINE,
		     "run the check on an idle machine (--if-idle, as the "
		     "timer does), or give it the CPUs first (see "
		     "contention)",
		     "the one thread alone was on a CPU %.0f %% of its %.1f s: "
		     "other work took the rest, so one thread's rate reads "
		     "low and the efficiency up to %.0f %% high",
		     share * 100, in->single.wall_s, (1 / share - 1) * 100);
}

static void saturate_diagnose(const struct saturate_input *in,
			      const struct saturate_result *r,
			      struct saturate_findings *out)
{
	double steal = 0;
	unsigned present = (unsigned)hwloc_bitmap_weight(in->present);

	saturate_limits(in, out);
	for (size_t i = 0; i < in->cpu_count; i++)
		steal += in->cpus[i].steal;
	if (in->cpu_count && steal / in->cpu_count >= 0.05)
		saturate_add(out, SATURATE_KIND_STEAL,
			     "nothing inside the guest: a host with fewer "
			     "guests, or dedicated (pinned) CPUs",
			     "the hypervisor took %.0f %% of the CPUs' time "
			     "(steal): this virtual machine shares its host",
			     steal / in->cpu_count * 100);
	saturate_competition(in, out);
	saturate_kinds(in, out);
	saturate_groups(in, out);
	saturate_parked(in, out);
	if (in->ecoqos)
		saturate_add(
			out, SATURATE_KIND_ECOQOS,
			"a rule for the workload: priority = { "
			"efficiency_mode = \"off\"; };",
			"the workers ran with EcoQoS on (power throttling "
			"of the process): Windows runs them at a low clock "
			"and prefers the efficiency cores for them");
	saturate_smt(in, r->yield, r->source, out);
	saturate_numa(in, out);
	saturate_frequency(in, out);
	saturate_baseline(in, out);
	if (in->threads > present)
		saturate_add(out, SATURATE_KIND_OVERSUBSCRIBED,
			     "run with --threads at most the CPUs (the "
			     "default)",
			     "%u threads for the machine's %u CPUs: they take "
			     "turns, and the efficiency is judged against what "
			     "the %u CPUs can do",
			     in->threads, present, present);
	if (!out->count && !r->ok)
		saturate_add(out, SATURATE_KIND_UNEXPLAINED,
			     "try --work int (no memory traffic), or a longer "
			     "--seconds",
			     "no cause found: memory bandwidth or shared "
			     "caches may limit this work");
}

static void saturate_core_figures(const struct saturate_input *in,
				  struct saturate_result *r)
{
	const struct saturate_machine *m = in->machine;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	r->core_count = m->core_count;
	r->cores =
		xcalloc(m->core_count ? m->core_count : 1, sizeof(*r->cores));
	for (size_t core = 0; core < m->core_count; core++) {
		struct saturate_core *c = &r->cores[core];
		double top = 0;

		hwloc_bitmap_zero(set);
		for (size_t i = 0; i < m->cpu_count; i++) {
			int cpu = m->cpus[i].cpu;
			double b;

			if (m->cpus[i].core != (int)core)
				continue;
			b = saturate_cpu_busy(in, cpu);
			c->siblings++;
			c->online +=
				!in->online ||
				hwloc_bitmap_isset(in->online, (unsigned)cpu);
			c->busy += b;
			top = b > top ? b : top;
			hwloc_bitmap_set(set, (unsigned)cpu);
		}
		place_format(set, c->cpus, sizeof(c->cpus));
		c->capacity = c->siblings > 1 ? 1 + r->yield : 1;
		/* The busiest thread counts whole, the others share the
		 * yield. */
		c->used =
			top + (c->siblings > 1 ? r->yield / (c->siblings - 1) *
							 (c->busy - top)
					       : 0);
	}
	hwloc_bitmap_free(set);
}

/* The efficiency's relative error, 95 %: the rates' standard errors, and
 * the yield's where the capacity depends on a measured one. */
static double saturate_noise(const struct saturate_input *in,
			     const struct saturate_result *r)
{
	double var = in->single.rel_se * in->single.rel_se +
		     in->run.rel_se * in->run.rel_se;

	if (r->source == SATURATE_YIELD_MEASURED && r->yield > 0 &&
	    r->capacity > 0) {
		double base = saturate_capacity(in->machine, in->threads, 0);
		double weight = (r->capacity - base) / r->yield / r->capacity;
		double one = in->smt.one.rel_se, all = in->smt.all.rel_se;

		var += weight * weight * (1 + r->yield) * (1 + r->yield) *
		       (one * one + all * all);
	}
	return 1.96 * sqrt(var);
}

static void saturate_above(const struct saturate_input *in,
			   struct saturate_result *r)
{
	double excess = r->efficiency - 1;
	double single = saturate_step_share(&in->single);
	double run = saturate_step_share(&in->run);
	double per_cpu_single = saturate_step_rate_cpu(&in->single);
	double per_cpu_run = saturate_step_rate_cpu(&in->run);

	if (excess <= 0)
		return;
	if (excess <= r->noise) {
		r->above = SATURATE_ABOVE_NOISE;
		snprintf(r->above_why, sizeof(r->above_why),
			 "within the measurement's noise (%.1f %% at 95 %%)",
			 r->noise * 100);
	} else if (single > 0 && single < 0.97 && single < run - 0.02) {
		r->above = SATURATE_ABOVE_BASELINE;
		snprintf(r->above_why, sizeof(r->above_why),
			 "the one thread alone was on a CPU %.0f %% of the "
			 "time, the run's threads %.0f %%: the baseline "
			 "shared its CPU",
			 single * 100, run * 100);
	} else if (r->yield <= 0 && per_cpu_single > 0 &&
		   per_cpu_run > per_cpu_single * (1 + r->noise)) {
		r->above = SATURATE_ABOVE_CLOCK;
		snprintf(r->above_why, sizeof(r->above_why),
			 "each thread did %.1f %% more per second of CPU time "
			 "than the one thread alone: the CPUs ran faster in "
			 "the run (a governor raising the clock, or the one "
			 "thread on a slower core)",
			 (per_cpu_run / per_cpu_single - 1) * 100);
	} else if (r->yield > 0) {
		r->above = SATURATE_ABOVE_YIELD;
		snprintf(r->above_why, sizeof(r->above_why),
			 "the cores gave more than the SMT yield of %+.1f %% "
			 "(%s) says",
			 r->yield * 100, saturate_yield_source(r->source));
	} else {
		r->above = SATURATE_ABOVE_UNKNOWN;
		snprintf(r->above_why, sizeof(r->above_why),
			 "more than the noise (%.1f %% at 95 %%), with no "
			 "cause found",
			 r->noise * 100);
	}
}

/* The efficiency: all threads' rate over one thread's times what the
 * cores can do for that many threads; both rates per second of the same
 * wall clock, over a window after the same warm-up. */
void saturate_judge(const struct saturate_input *in,
		    struct saturate_result *out)
{
	double single = saturate_step_rate(&in->single);

	*out = (struct saturate_result){0};
	saturate_judge_yield(in, out);
	out->capacity = saturate_capacity(in->machine, in->threads, out->yield);
	if (single > 0 && out->capacity > 0)
		out->efficiency =
			saturate_step_rate(&in->run) / (single * out->capacity);
	out->ok = out->efficiency >= in->threshold;
	out->noise = saturate_noise(in, out);
	saturate_above(in, out);
	saturate_core_figures(in, out);
	saturate_diagnose(in, out, &out->findings);
}
