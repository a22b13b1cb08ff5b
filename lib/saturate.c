/* The saturation check's analysis: findings from measurements, and the
 * report. Each finding says what was seen (the evidence) and what to
 * write to fix it: a rule fragment where a rule can, a setting where only
 * the system's configuration can. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
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
	[SATURATE_KIND_FREQUENCY] = "frequency",
	[SATURATE_KIND_OVERSUBSCRIBED] = "more-threads-than-cpus",
	[SATURATE_KIND_UNEXPLAINED] = "unexplained",
};

const char *saturate_kind_name(enum saturate_kind kind)
{
	return saturate_kind_names[kind];
}

double saturate_efficiency(const struct saturate_input *in)
{
	if (in->single_rate <= 0 || !in->threads)
		return 0;
	return in->total_rate / (in->single_rate * in->threads);
}

static void saturate_add(struct saturate_findings *out, enum saturate_kind kind,
			 const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

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

void saturate_findings_free(struct saturate_findings *findings)
{
	free(findings->list);
	*findings = (struct saturate_findings){0};
}

static double saturate_busy(const struct saturate_input *in,
			    hwloc_const_bitmap_t set, unsigned *count)
{
	double sum = 0;

	*count = 0;
	for (size_t i = 0; i < in->cpu_count; i++) {
		if (!hwloc_bitmap_isset(set, (unsigned)in->cpus[i].cpu))
			continue;
		sum += in->cpus[i].busy;
		(*count)++;
	}
	return *count ? sum / *count : 0;
}

static void saturate_limits(const struct saturate_input *in,
			    struct saturate_findings *out)
{
	char a[256], b[256], fix[512];
	hwloc_bitmap_t missing = hwloc_bitmap_alloc();

	hwloc_bitmap_andnot(missing, in->possible, in->online);
	if (!hwloc_bitmap_iszero(missing)) {
		place_format(missing, a, sizeof(a));
		saturate_add(out, SATURATE_KIND_OFFLINE,
			     "a rule for the workload: power = { parking = "
			     "\"off\"; };  (or min_online); by hand: echo 1 > "
			     "/sys/devices/system/cpu/cpuN/online",
			     "CPUs %s are offline (parked): %d of %d CPUs can "
			     "run anything",
			     a, hwloc_bitmap_weight(in->online),
			     hwloc_bitmap_weight(in->possible));
	}
	if (in->affinity &&
	    !hwloc_bitmap_isincluded(in->online, in->affinity)) {
		place_format(in->affinity, a, sizeof(a));
		place_format(in->online, b, sizeof(b));
		snprintf(fix, sizeof(fix),
			 "a rule for the workload: placement = { cpus = "
			 "\"%s\"; };  or spread = \"numa\"; (the affinity "
			 "comes from whoever started it)",
			 b);
		saturate_add(out, SATURATE_KIND_AFFINITY, fix,
			     "the threads may run only on CPUs %s (%d of %d "
			     "online): an inherited affinity mask confines "
			     "them, like a Windows processor group",
			     a, hwloc_bitmap_weight(in->affinity),
			     hwloc_bitmap_weight(in->online));
	}
	if (in->cpuset && !hwloc_bitmap_isincluded(in->online, in->cpuset)) {
		place_format(in->cpuset, a, sizeof(a));
		saturate_add(out, SATURATE_KIND_CPUSET,
			     "widen the cgroup's cpuset (cpuset.cpus, or "
			     "AllowedCPUs= for a systemd unit); a rule cannot "
			     "leave its cpuset",
			     "the cpuset of cgroup %s allows only CPUs %s",
			     in->cpuset_cgroup[0] ? in->cpuset_cgroup : "/", a);
	}
	if (in->quota_cpus >= 0 &&
	    in->quota_cpus < (double)in->threads - 0.05 &&
	    in->quota_cpus < hwloc_bitmap_weight(in->online) - 0.05)
		saturate_add(out, SATURATE_KIND_QUOTA,
			     "raise the quota (cpu.max, or cpu.cfs_quota_us on "
			     "cgroup v1; CPUQuota= for a systemd unit)",
			     "cgroup %s limits CPU time to %.2f CPUs for %u "
			     "threads",
			     in->cgroup[0] ? in->cgroup : "/", in->quota_cpus,
			     in->threads);
	hwloc_bitmap_free(missing);
}

static void saturate_competition(const struct saturate_input *in,
				 struct saturate_findings *out)
{
	char list[400] = "";
	double total = 0;
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
		n = snprintf(list + used, sizeof(list) - used,
			     "%spid %d (%s, nice %d) %.0f %%", i ? ", " : "",
			     (int)c->pid, c->name, c->nice, c->cpus * 100);
		if (n > 0)
			used += (size_t)n;
	}
	if (total < 0.1)
		return;
	saturate_add(out, SATURATE_KIND_CONTENTION,
		     "a rule for the workload: priority = { class = \"high\"; "
		     "};  or one for the others: priority = { class = "
		     "\"below-normal\"; }; (measure it: saturate --compare)",
		     "other processes took %.2f CPUs during the run: %s", total,
		     list);
	if (min_nice < in->our_nice)
		saturate_add(
			out, SATURATE_KIND_PRIORITY,
			"a rule for the workload: priority = { class = "
			"\"above-normal\"; };  (nice -5) or a nice at least "
			"as low as theirs",
			"the competing load runs at a higher priority "
			"(nice %d) than the workload (nice %d)",
			min_nice, in->our_nice);
}

/* Performance cores idle while efficiency cores work: the hybrid story. */
static void saturate_kinds(const struct saturate_input *in,
			   const struct place_topology *topo,
			   struct saturate_findings *out)
{
	unsigned p_count, e_count;
	double p_busy, e_busy;

	if (!topo || !topo->performance)
		return;
	p_busy = saturate_busy(in, topo->performance, &p_count);
	e_busy = saturate_busy(in, topo->efficiency, &e_count);
	if (!p_count || !e_count || p_busy > 0.5 || e_busy < 0.75)
		return;
	saturate_add(out, SATURATE_KIND_CORE_KINDS,
		     "a rule for the workload: priority = { class = \"high\"; "
		     "};  placement = { cores = \"performance\"; };",
		     "the %u performance CPUs were %.0f %% busy while the %u "
		     "efficiency CPUs were %.0f %% busy",
		     p_count, p_busy * 100, e_count, e_busy * 100);
}

void saturate_diagnose(const struct saturate_input *in,
		       const struct place_topology *topo,
		       struct saturate_findings *out)
{
	double steal = 0;

	*out = (struct saturate_findings){0};
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
	saturate_kinds(in, topo, out);
	/* intel_pstate and amd-pstate in active mode know only "powersave"
	 * and "performance", and powersave is their normal one: there the
	 * EPP tells. */
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
	/* More threads than CPUs cannot all run at once: the efficiency
	 * has the ratio as its ceiling, whatever else is true. */
	if (in->threads > (unsigned)hwloc_bitmap_weight(in->online))
		saturate_add(out, SATURATE_KIND_OVERSUBSCRIBED,
			     "run with --threads at most the online CPUs (the "
			     "default), or read the efficiency against that "
			     "ceiling",
			     "%u threads for %d online CPUs: at most %.0f %% "
			     "efficiency is possible",
			     in->threads, hwloc_bitmap_weight(in->online),
			     100.0 * hwloc_bitmap_weight(in->online) /
				     in->threads);
	if (!out->count && saturate_efficiency(in) < in->threshold)
		saturate_add(out, SATURATE_KIND_UNEXPLAINED,
			     "try --work int (no memory traffic), or fewer "
			     "threads than SMT siblings",
			     "no cause found: memory bandwidth, shared caches "
			     "or SMT siblings may limit this work");
}

static const char *saturate_kind_of(const struct place_topology *topo, int cpu)
{
	if (!topo || !topo->performance)
		return NULL;
	return hwloc_bitmap_isset(topo->performance, (unsigned)cpu)
		       ? "performance"
		       : "efficiency";
}

static int saturate_numa_of(const struct place_topology *topo, int cpu)
{
	for (size_t i = 0; topo && i < topo->numa.count; i++) {
		if (hwloc_bitmap_isset(topo->numa.sets[i], (unsigned)cpu))
			return (int)i;
	}
	return -1;
}

static void saturate_bar(FILE *out, const struct procstat_share *c)
{
	int busy = (int)(c->busy * 40 + 0.5),
	    steal = (int)(c->steal * 40 + 0.5);

	fprintf(out, "    cpu%-4d [", c->cpu);
	for (int i = 0; i < 40; i++)
		fputc(i < busy ? '#' : i < busy + steal ? 's' : ' ', out);
	fprintf(out, "] %3.0f %%", c->busy * 100);
	if (c->steal >= 0.005)
		fprintf(out, "  steal %.0f %%", c->steal * 100);
	fputc('\n', out);
}

/* Bars grouped by NUMA node, then by CPU kind; a group's heading comes
 * before its first CPU. */
static void saturate_cpus_text(const struct saturate_input *in,
			       const struct place_topology *topo, FILE *out)
{
	size_t groups = topo && topo->numa.count > 1 ? topo->numa.count : 1;
	static const char *const kinds[] = {"performance", "efficiency"};

	for (size_t g = 0; g < groups; g++) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
			bool said = false;

			for (size_t i = 0; i < in->cpu_count; i++) {
				const struct procstat_share *c = &in->cpus[i];
				const char *kind =
					saturate_kind_of(topo, c->cpu);

				if (groups > 1 &&
				    saturate_numa_of(topo, c->cpu) != (int)g)
					continue;
				if (kind ? strcmp(kind, kinds[k]) != 0 : k > 0)
					continue;
				if (!said)
					fprintf(out, "  NUMA node %zu%s%s:\n",
						g, kind ? ", " : "",
						kind ? kind : "");
				said = true;
				saturate_bar(out, c);
			}
		}
	}
}

void saturate_render_text(const struct saturate_input *in,
			  const struct place_topology *topo,
			  const struct saturate_findings *findings, FILE *out)
{
	double eff = saturate_efficiency(in);

	fprintf(out, "saturate: %u threads for %.1f s, work %s\n", in->threads,
		in->seconds, in->work);
	fprintf(out, "  one thread alone:  %10.3f M units/s\n",
		in->single_rate / 1e6);
	fprintf(out, "  all threads:       %10.3f M units/s\n",
		in->total_rate / 1e6);
	fprintf(out, "  efficiency:        %10.1f %% (%s %.0f %%)\n", eff * 100,
		eff >= in->threshold ? "at or above" : "BELOW",
		in->threshold * 100);
	fprintf(out, "CPU time during the run (# busy, s steal):\n");
	saturate_cpus_text(in, topo, out);
	if (in->thread_count) {
		fprintf(out, "CPU time of each worker thread:\n ");
		for (size_t i = 0; i < in->thread_count; i++)
			fprintf(out, " %.2fs", in->thread_cpu_s[i]);
		fputc('\n', out);
	}
	if (!findings->count) {
		fprintf(out, "findings: none\n");
		return;
	}
	fprintf(out, "findings:\n");
	for (size_t i = 0; i < findings->count; i++) {
		const struct saturate_finding *f = &findings->list[i];

		fprintf(out, "  - %s: %s\n    fix: %s\n",
			saturate_kind_name(f->kind), f->evidence, f->fix);
	}
}

void saturate_render_json(const struct saturate_input *in,
			  const struct place_topology *topo,
			  const struct saturate_findings *findings, FILE *out)
{
	double eff = saturate_efficiency(in);

	fprintf(out,
		"{\"threads\":%u,\"seconds\":%.3f,\"work\":\"%s\","
		"\"single_rate\":%.1f,\"total_rate\":%.1f,\"efficiency\":%.4f,"
		"\"threshold\":%.4f,\"ok\":%s,\"cpus\":[",
		in->threads, in->seconds, in->work, in->single_rate,
		in->total_rate, eff, in->threshold,
		eff >= in->threshold ? "true" : "false");
	for (size_t i = 0; i < in->cpu_count; i++) {
		const struct procstat_share *c = &in->cpus[i];
		const char *kind = saturate_kind_of(topo, c->cpu);

		fprintf(out,
			"%s{\"cpu\":%d,\"numa\":%d,\"kind\":%s%s%s,\"busy\":%."
			"4f,"
			"\"steal\":%.4f}",
			i ? "," : "", c->cpu, saturate_numa_of(topo, c->cpu),
			kind ? "\"" : "", kind ? kind : "null",
			kind ? "\"" : "", c->busy, c->steal);
	}
	fprintf(out, "],\"thread_cpu_s\":[");
	for (size_t i = 0; i < in->thread_count; i++)
		fprintf(out, "%s%.3f", i ? "," : "", in->thread_cpu_s[i]);
	fprintf(out, "],\"findings\":[");
	for (size_t i = 0; i < findings->count; i++) {
		const struct saturate_finding *f = &findings->list[i];

		fprintf(out, "%s{\"kind\":\"%s\",\"evidence\":", i ? "," : "",
			saturate_kind_name(f->kind));
		proto_json_string(out, f->evidence);
		fprintf(out, ",\"fix\":");
		proto_json_string(out, f->fix);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}
