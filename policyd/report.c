/* What the control socket reports: status (counters) and explain (one
 * process: its facts, the rule that matched and why, what was applied,
 * and the kernel's current state of each thread), as text or JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "match.h"
#include "policyd.h"
#include "rulefile.h"
#include "os.h"
#include "quote.h"
#include "util.h"

static void report_threads_total(const struct manage *m, size_t *procs,
				 size_t *threads)
{
	*procs = m->procs.count;
	*threads = 0;
	for (size_t i = 0; i < m->procs.capacity; i++) {
		const struct manage_proc *p = m->procs.slots[i].value;

		if (m->procs.slots[i].key)
			*threads += p->thread_count;
	}
}

static long long report_uptime(const struct daemon *d)
{
	return (timing_now_ns() - d->started_ns) / 1000000000LL;
}

#define REPORT_COUNTERS(X)                                                     \
	X("execs", c->execs)                                                   \
	X("new_threads", c->threads)                                           \
	X("renames", c->renames)                                               \
	X("exits", c->exits)                                                   \
	X("matches", c->matches)                                               \
	X("applies", c->applies)                                               \
	X("failures", c->failures)                                             \
	X("left_alone", c->left_alone)                                         \
	X("rescans", c->rescans)                                               \
	X("pid_reuse", c->pid_reuse)

/* Holds (who wants what) and the settings held (where, what, the
 * original that comes back). */
static void report_power(struct daemon *d, bool json, FILE *out)
{
	struct power_want base;
	char what[256], latency[256];

	power_want_of(&base, &d->conf.base_power, d->conf.parking_latency_us);
	if (json)
		fprintf(out, ",\"holds\":[");
	else
		fprintf(out, "power:    %zu holds, %zu settings held\n",
			d->hold_count + !power_want_empty(&base),
			d->power.knob_count + (d->power.latency_fd >= 0));
	for (size_t i = 0; i <= d->hold_count; i++) {
		struct power_want want;
		const char *rule =
			i < d->hold_count ? d->holds[i].rule : "(config)";

		if (i < d->hold_count) {
			power_want_of(&want, &d->holds[i].power,
				      d->conf.parking_latency_us);
		} else if (power_want_empty(&base)) {
			break;
		} else {
			want = base;
		}
		power_want_describe(&want, what, sizeof(what));
		if (json) {
			fprintf(out, "%s{\"pid\":%d,\"rule\":", i ? "," : "",
				i < d->hold_count ? (int)d->holds[i].pid : 0);
			proto_json_string(out, rule);
			fprintf(out, ",\"wants\":");
			proto_json_string(out, what);
			fprintf(out, "}");
		} else if (i < d->hold_count) {
			fprintf(out, "  hold     pid %d, rule %s: %s\n",
				(int)d->holds[i].pid, rule, what);
		} else {
			fprintf(out,
				"  hold     base policy of the config: %s\n",
				what);
		}
	}
	if (json)
		fprintf(out, "],\"settings\":[");
	for (size_t i = 0; i < d->power.knob_count; i++) {
		const struct power_knob *k = &d->power.knobs[i];
		struct journal_entry *e =
			journal_find(&d->power.journal, k->path);

		if (json) {
			fprintf(out, "%s{\"path\":", i ? "," : "");
			proto_json_string(out, k->path);
			fprintf(out, ",\"value\":");
			proto_json_string(out, k->value);
			fprintf(out, ",\"original\":");
			if (k->yielded)
				fprintf(out, "null");
			else
				proto_json_string(out,
						  e ? e->original : k->value);
			fprintf(out, ",\"yielded\":%s}",
				k->yielded ? "true" : "false");
		} else if (k->yielded) {
			fprintf(out,
				"  setting  %s: changed by another, theirs "
				"now (was held at %s)\n",
				k->path, k->value);
		} else {
			fprintf(out, "  setting  %s = %s (original %s)\n",
				k->path, k->value, e ? e->original : k->value);
		}
	}
	knobs_latency_name(latency, sizeof(latency));
	if (d->power.latency_fd >= 0 && json)
		fprintf(out,
			"%s{\"path\":\"%s\",\"value\":"
			"\"%ld\",\"original\":null,\"yielded\":false}",
			d->power.knob_count ? "," : "", latency,
			d->power.latency_us);
	else if (d->power.latency_fd >= 0)
		fprintf(out,
			"  setting  %s = %ld us (held open; "
			"the "
			"kernel drops it when the daemon goes)\n",
			latency, d->power.latency_us);
	if (json)
		fprintf(out, "]");
}

/* Events the daemon woke for: the proc connector's and the filter's. */
static unsigned long long report_received(const struct daemon *d)
{
	return d->events.received +
	       (d->execfilter ? execfilter_received(d->execfilter) : 0);
}

/* The exec filter's own counters: what it saw, what it let through. */
static void report_filter(struct daemon *d, bool json, FILE *out)
{
	struct execfilter_stats st;

	if (!d->execfilter || execfilter_stats(d->execfilter, &st) != OS_OK)
		return;
	if (json) {
		fprintf(out,
			",\"exec_filter\":{\"execs\":%llu,\"sent\":%llu,"
			"\"lost\":%llu,\"all\":%s,",
			st.seen, st.sent, st.lost,
			d->execplan.all ? "true" : "false");
		fprintf(out,
			"\"following\":%llu,\"follow_max\":%llu,"
			"\"full\":%s,\"fulls\":%llu}",
			st.following, st.follow_max, st.full ? "true" : "false",
			d->filter_fulls);
		return;
	}
	fprintf(out,
		"filter:   %llu execs seen in the kernel, %llu sent, %llu "
		"lost%s\n",
		st.seen, st.sent, st.lost,
		d->execplan.all ? " (a rule needs every exec)" : "");
	fprintf(out, "          %llu of %llu processes followed%s\n",
		st.following, st.follow_max,
		st.full ? " (no room for more: every exec is sent)" : "");
}

void report_status(struct daemon *d, bool json, FILE *out)
{
	const struct manage_counters *c = &d->manage.counters;
	size_t procs, threads;
	long long up = report_uptime(d);

	report_threads_total(&d->manage, &procs, &threads);
	if (json) {
		fprintf(out,
			"{\"version\":\"%s\",\"pid\":%d,\"uptime_s\":%lld,"
			"\"events\":\"%s\",\"dry_run\":%s,\"rules\":%zu,"
			"\"rule_files\":%zu,\"managed_processes\":%zu,"
			"\"managed_threads\":%zu,\"events_received\":%llu,"
			"\"overflows\":%llu,\"reloads\":%llu",
			CPUPOLICY_VERSION, (int)procinfo_self(), up,
			loop_events_word(d), d->conf.dry_run ? "true" : "false",
			d->rules->count, d->rules->files_read, procs, threads,
			report_received(d), d->events.overflows, d->reloads);
		report_filter(d, true, out);
#define REPORT_JSON(name, value) fprintf(out, ",\"%s\":%llu", name, value);
		REPORT_COUNTERS(REPORT_JSON)
		report_power(d, true, out);
		fprintf(out, "}\n");
		return;
	}
	fprintf(out, "cpupolicyd %s, pid %d, up %lldh%02lldm%02llds%s\n",
		CPUPOLICY_VERSION, (int)procinfo_self(), up / 3600,
		up / 60 % 60, up % 60, d->conf.dry_run ? " (dry run)" : "");
	fprintf(out, "events:   %s, %llu received, %llu overflows\n",
		d->polling ? loop_events_source(d) : loop_events_word(d),
		report_received(d), d->events.overflows);
	report_filter(d, false, out);
	fprintf(out, "rules:    %zu rules in %zu files, %llu reloads\n",
		d->rules->count, d->rules->files_read, d->reloads);
	fprintf(out, "managed:  %zu processes, %zu threads\n", procs, threads);
	fprintf(out, "counters:");
#define REPORT_TEXT(name, value) fprintf(out, " %s %llu", name, value);
	REPORT_COUNTERS(REPORT_TEXT)
	fprintf(out, "\n");
	report_power(d, false, out);
}

static void report_facts(struct procinfo *pi, struct facts *facts)
{
	procinfo_fetch(pi,
		       MATCH_FACT_EXE | MATCH_FACT_COMM | MATCH_FACT_CMDLINE |
			       MATCH_FACT_CREDS | MATCH_FACT_CGROUP |
			       MATCH_FACT_PARENT_EXE | MATCH_FACT_EXE_FILE,
		       facts);
}

/* What the file the process runs is to its exe path: a JSON value (NULL
 * when unread) or a note after the path. */
static const char *report_exe_file(const struct facts *f, bool json)
{
	if (!(f->have & MATCH_FACT_EXE_FILE))
		return json ? NULL : "";
	switch (f->exe_file) {
	case MATCH_FILE_SAME:
		return json ? "same" : "";
	case MATCH_FILE_REPLACED:
		return json ? "replaced"
			    : " (an older version, replaced since)";
	case MATCH_FILE_OTHER:
		return json ? "other" : " (another file than this path names)";
	case MATCH_FILE_DELETED:
		return json ? "deleted"
			    : " (deleted, and no older version of this path)";
	case MATCH_FILE_UNSEEN:
		return json ? "unseen" : " (this path names no file here)";
	}
	return json ? NULL : "";
}

static const char *report_fact(const struct facts *f, unsigned bit,
			       const char *value)
{
	return f->have & bit ? value : "(unreadable)";
}

/* Names, command lines, paths and cgroups are chosen by whoever starts a
 * process: in text for a terminal, a control byte (a newline that fakes a
 * line of the report, an escape sequence) is shown as \xNN, as quote.c
 * shows every stranger's string. */
static void report_text(FILE *out, const char *text, size_t max)
{
	quote_write(out, text, max, QUOTE_MODE_DISPLAY);
}

/* Columns the escaped text takes. */
static size_t report_width(const char *text)
{
	size_t width = quote_len(text, QUOTE_ALL, QUOTE_MODE_DISPLAY);

	return width > 16 ? 16 : width;
}

/* The ids as the system names them (listen.c: uids, account names). */
static void report_user(FILE *out, const struct facts *facts)
{
	char ids[256];

	if (!(facts->have & MATCH_FACT_CREDS)) {
		fprintf(out, "  user       (unreadable)\n");
		return;
	}
	listen_account_text((unsigned)facts->uid, (unsigned)facts->gid, ids,
			    sizeof(ids));
	fprintf(out, "  user       %s\n", ids);
}

static void report_line(FILE *out, const char *label, const char *text,
			size_t max)
{
	fprintf(out, "  %-10s ", label);
	report_text(out, text, max);
	putc('\n', out);
}

static void report_cgroups_text(FILE *out, const char *cgroups)
{
	const char *line = cgroups;

	while (*line) {
		const char *end = line + strcspn(line, "\n");

		putc(' ', out);
		report_text(out, line, (size_t)(end - line));
		line = *end ? end + 1 : end;
	}
}

struct report_thread {
	pid_t tid;
	char comm[MATCH_COMM_MAX];
	struct prio_state now;
	bool now_ok;
	char cpus[256];
	const struct manage_thread *managed;
	struct prio_kept kept[PRIO_KEPT_MAX]; /* of the rule's settings */
	size_t kept_count;
};

/* What the thread kept of its own against the rule, decided on the values
 * it had before the rule (as the daemon decides). */
static void report_thread_kept(const struct manage_proc *p,
			       struct report_thread *t)
{
	const struct manage_thread *m = t->managed;

	t->kept_count = 0;
	if (m && m->prio_done && !m->left_alone)
		t->kept_count = prio_explain(&p->prio, &m->original, t->kept);
}

static void report_thread_state(pid_t pid, struct report_thread *t)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();

	if (procinfo_thread_name(pid, t->tid, t->comm, sizeof(t->comm)) !=
	    OS_OK)
		t->comm[0] = '\0';
	t->now_ok = apply_prio_read(pid, t->tid, &t->now) == OS_OK;
	t->cpus[0] = '\0';
	if (apply_place_read(pid, t->tid, cpus) == OS_OK)
		hwloc_bitmap_list_snprintf(t->cpus, sizeof(t->cpus), cpus);
	hwloc_bitmap_free(cpus);
}

static void report_thread_text(FILE *out, const struct report_thread *t)
{
	char now[128] = "(gone)", set[160] = "-";

	if (t->now_ok)
		prio_describe_state(&t->now, now, sizeof(now));
	if (t->managed && t->managed->left_alone)
		snprintf(set, sizeof(set), "left alone (changed by another)");
	else if (t->managed &&
		 (t->managed->prio_done || t->managed->place_done))
		snprintf(set, sizeof(set), "set by the rule");
	fprintf(out, "  %-8d ", (int)t->tid);
	report_text(out, t->comm, sizeof(t->comm));
	fprintf(out, "%*s %-36s %-12s %s\n", (int)(16 - report_width(t->comm)),
		"", now, t->cpus, set);
	for (size_t i = 0; i < t->kept_count; i++)
		fprintf(out, "  %-8s %s\n", "", t->kept[i].why);
}

static void report_thread_json(FILE *out, const struct report_thread *t,
			       bool first)
{
	char now[128] = "";

	if (t->now_ok)
		prio_describe_state(&t->now, now, sizeof(now));
	fprintf(out, "%s{\"tid\":%d,\"name\":", first ? "" : ",", (int)t->tid);
	proto_json_string(out, t->comm);
	if (t->now_ok)
		fprintf(out,
			",\"nice\":%d,\"policy\":\"%s\",\"rt_priority\":%d,"
			"\"reset_on_fork\":%s,\"io_class\":\"%s\","
			"\"io_level\":%d,\"priority\":",
			t->now.nice,
			rules_enum_name(RULES_ENUM_POLICY, (int)t->now.policy),
			t->now.rt_priority,
			t->now.reset_on_fork ? "true" : "false",
			t->now.io_class ? rules_enum_name(RULES_ENUM_IO_CLASS,
							  (int)t->now.io_class)
					: "none",
			t->now.io_level);
	if (t->now_ok)
		proto_json_string(out, now);
	fprintf(out, ",\"cpus\":");
	proto_json_string(out, t->cpus);
	fprintf(out, ",\"set_by_rule\":%s,\"left_alone\":%s,\"kept\":[",
		t->managed && (t->managed->prio_done || t->managed->place_done)
			? "true"
			: "false",
		t->managed && t->managed->left_alone ? "true" : "false");
	for (size_t i = 0; i < t->kept_count; i++) {
		fprintf(out, "%s{\"setting\":\"%s\",\"why\":", i ? "," : "",
			t->kept[i].setting);
		proto_json_string(out, t->kept[i].why);
		fprintf(out, "}");
	}
	fprintf(out, "]}");
}

/* Which rules were close, and what kept each from matching. */
static void report_near_misses(struct daemon *d, struct facts *facts,
			       struct procinfo *pi, bool json, FILE *out)
{
	size_t shown = 0;

	for (size_t i = 0; i < d->rules->count && shown < 10; i++) {
		const struct rule *r = &d->rules->list[i];
		char why[512];

		match_rule(r, facts, procinfo_fetch, pi, why, sizeof(why));
		/* A rule whose first key already fails is not close. */
		if (!strstr(why, "matches '") && !strstr(why, " is '"))
			continue;
		if (json) {
			fprintf(out, "%s{\"rule\":", shown ? "," : "");
			proto_json_string(out, r->name);
			fprintf(out, ",\"why_not\":");
			proto_json_string(out, why);
			fprintf(out, "}");
		} else {
			fprintf(out, "  rule %s (%s:%u): ", r->name, r->file,
				r->line);
			report_text(out, why, sizeof(why));
			putc('\n', out);
		}
		shown++;
	}
	if (!shown && !json)
		fprintf(out, "  none: no rule's first key matches\n");
}

/* Where an imported rule came from: the note of the name it matched. */
static const char *report_source(const struct rule *rule,
				 const struct facts *facts)
{
	return rules_source(rule, (facts->have & MATCH_FACT_COMM) ? facts->comm
								  : NULL);
}

static const char *report_nothing(const struct rule *rule)
{
	if (rules_places(rule))
		return "nothing: the placement does not fit the process's "
		       "cpuset (see the log)";
	if (rules_has_power(rule))
		return "nothing per process (power settings only)";
	return "nothing: the rule only keeps later rules from matching";
}

int report_explain(struct daemon *d, pid_t pid, bool json, FILE *out)
{
	struct procinfo pi = {pid};
	struct facts facts = {0};
	const struct manage_proc *p = manage_find(&d->manage, pid);
	struct report_thread *threads = NULL;
	unsigned long long start;
	pid_t *tids = NULL;
	size_t count = 0;
	long rule;
	char why[1024] = "", target[512] = "", held[256] = "";
	const struct hold *hold;

	if (procinfo_start_time(pid, 0, &start) != OS_OK) {
		fprintf(out, "no process %d\n", (int)pid);
		return 1;
	}
	report_facts(&pi, &facts);
	rule = match_first(&d->manage.index, &facts, procinfo_fetch, &pi);
	if (rule >= 0)
		match_rule(&d->rules->list[rule], &facts, procinfo_fetch, &pi,
			   why, sizeof(why));
	if (p && p->start_time != start)
		p = NULL; /* a record of an earlier process with this pid */
	if (p) {
		prio_describe_target(&p->prio, target, sizeof(target));
		if (p->place.active) {
			char cpus[256];
			size_t used = strlen(target);

			place_format(p->place.base, cpus, sizeof(cpus));
			snprintf(target + used, sizeof(target) - used,
				 "%scpus %s%s", used ? ", " : "", cpus,
				 p->place.domains.count > 1
					 ? ", threads spread over domains"
					 : "");
		}
	}
	hold = p ? hold_find(d, pid) : NULL;
	if (hold) {
		struct power_want want;

		power_want_of(&want, &hold->power, d->conf.parking_latency_us);
		power_want_describe(&want, held, sizeof(held));
	}
	procinfo_threads(pid, &tids, &count);
	threads = xcalloc(count ? count : 1, sizeof(*threads));
	for (size_t i = 0; i < count; i++) {
		threads[i].tid = tids[i];
		report_thread_state(pid, &threads[i]);
		for (size_t k = 0; p && k < p->thread_count; k++) {
			if (p->threads[k].tid == tids[i])
				threads[i].managed = &p->threads[k];
		}
		if (p)
			report_thread_kept(p, &threads[i]);
	}
	if (json) {
		fprintf(out,
			"{\"pid\":%d,\"start_time\":%llu,\"exe\":", (int)pid,
			start);
		proto_json_string(
			out, report_fact(&facts, MATCH_FACT_EXE, facts.exe));
		fprintf(out, ",\"exe_file\":");
		if (report_exe_file(&facts, true))
			proto_json_string(out, report_exe_file(&facts, true));
		else
			fprintf(out, "null");
		fprintf(out, ",\"name\":");
		proto_json_string(
			out, report_fact(&facts, MATCH_FACT_COMM, facts.comm));
		fprintf(out, ",\"cmdline\":");
		proto_json_string(out, report_fact(&facts, MATCH_FACT_CMDLINE,
						   facts.cmdline));
		if (facts.have & MATCH_FACT_CREDS)
			fprintf(out, ",\"uid\":%u,\"gid\":%u",
				(unsigned)facts.uid, (unsigned)facts.gid);
		else
			fprintf(out, ",\"uid\":null,\"gid\":null");
		fprintf(out, ",\"cgroups\":");
		proto_json_string(out, facts.cgroups);
		fprintf(out, ",\"parent_exe\":");
		proto_json_string(out,
				  report_fact(&facts, MATCH_FACT_PARENT_EXE,
					      facts.parent_exe));
		fprintf(out, ",\"rule\":");
		if (rule >= 0) {
			proto_json_string(out, d->rules->list[rule].name);
			fprintf(out, ",\"rule_file\":");
			proto_json_string(out, d->rules->list[rule].file);
			fprintf(out, ",\"rule_line\":%u,\"source\":",
				d->rules->list[rule].line);
			if (report_source(&d->rules->list[rule], &facts))
				proto_json_string(
					out,
					report_source(&d->rules->list[rule],
						      &facts));
			else
				fprintf(out, "null");
			fprintf(out, ",\"why\":");
			proto_json_string(out, why);
		} else {
			fprintf(out, "null,\"near_misses\":[");
			report_near_misses(d, &facts, &pi, true, out);
			fprintf(out, "]");
		}
		fprintf(out,
			",\"managed\":%s,\"applies\":", p ? "true" : "false");
		proto_json_string(out, target);
		fprintf(out, ",\"threads\":[");
		for (size_t i = 0; i < count; i++)
			report_thread_json(out, &threads[i], i == 0);
		fprintf(out, "]}\n");
	} else {
		fprintf(out, "pid %d\n", (int)pid);
		fprintf(out, "  %-10s ", "exe");
		report_text(out, report_fact(&facts, MATCH_FACT_EXE, facts.exe),
			    sizeof(facts.exe));
		fprintf(out, "%s\n", report_exe_file(&facts, false));
		report_line(out, "name",
			    report_fact(&facts, MATCH_FACT_COMM, facts.comm),
			    sizeof(facts.comm));
		report_line(
			out, "cmdline",
			report_fact(&facts, MATCH_FACT_CMDLINE, facts.cmdline),
			200);
		report_user(out, &facts);
		fprintf(out, "  cgroups   ");
		report_cgroups_text(out, facts.cgroups);
		putc('\n', out);
		report_line(out, "parent exe",
			    report_fact(&facts, MATCH_FACT_PARENT_EXE,
					facts.parent_exe),
			    sizeof(facts.parent_exe));
		if (rule >= 0) {
			const struct rule *r = &d->rules->list[rule];

			const char *source = report_source(r, &facts);

			fprintf(out, "rule %s (%s:%u)\n", r->name, r->file,
				r->line);
			if (source)
				report_line(out, "source", source,
					    RULEFILE_MAX_SOURCE);
			report_line(out, "why", why, sizeof(why));
		} else {
			fprintf(out, "no rule matches; the closest:\n");
			report_near_misses(d, &facts, &pi, false, out);
		}
		if (p)
			fprintf(out, "  applies    %s%s\n",
				target[0] ? target : report_nothing(p->rule),
				d->conf.dry_run ? " (dry run: nothing is "
						  "written)"
						: "");
		else if (rule >= 0)
			fprintf(out, "  applies    not yet (not managed)\n");
		if (p && hold)
			fprintf(out,
				"  holds      %s (while it runs; see "
				"cpupolicyctl status)\n",
				held);
		fprintf(out, "threads (the kernel's state now)\n");
		fprintf(out, "  %-8s %-16s %-36s %-12s %s\n", "TID", "NAME",
			"PRIORITY", "CPUS", "BY THE RULE");
		for (size_t i = 0; i < count; i++)
			report_thread_text(out, &threads[i]);
	}
	free(threads);
	free(tids);
	return 0;
}

static void report_metric(FILE *out, const char *name, const char *type,
			  const char *help, double value)
{
	fprintf(out,
		"# HELP cpupolicy_%s %s\n# TYPE cpupolicy_%s %s\n"
		"cpupolicy_%s %.17g\n",
		name, help, name, type, name, value);
}

/* A label value in the exposition format: backslash, quote and newline
 * escaped. */
static void report_label(FILE *out, const char *value)
{
	for (const char *c = value; *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(out, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", out);
		else
			fputc(*c, out);
	}
}

/* Prometheus text exposition of the counters, the holds and the settings
 * held; "cpupolicyctl metrics" adds the last saturation check. */
void report_metrics(struct daemon *d, FILE *out)
{
	const struct manage_counters *c = &d->manage.counters;
	struct execfilter_stats st;
	size_t procs, threads;

	report_threads_total(&d->manage, &procs, &threads);
	report_metric(out, "up", "gauge", "Whether cpupolicyd answered.", 1);
	report_metric(out, "uptime_seconds", "gauge",
		      "Seconds since cpupolicyd started.",
		      (double)report_uptime(d));
	report_metric(out, "rules", "gauge", "Rules loaded.",
		      (double)d->rules->count);
	report_metric(out, "managed_processes", "gauge",
		      "Processes a rule manages.", (double)procs);
	report_metric(out, "managed_threads", "gauge",
		      "Threads of the managed processes.", (double)threads);
	report_metric(out, "events_total", "counter",
		      "Process events received from the kernel.",
		      (double)report_received(d));
	if (d->execfilter && execfilter_stats(d->execfilter, &st) == OS_OK) {
		report_metric(out, "exec_filter_execs_total", "counter",
			      "Execs the exec filter in the kernel looked at.",
			      (double)st.seen);
		report_metric(out, "exec_filter_sent_total", "counter",
			      "Execs the exec filter sent to cpupolicyd.",
			      (double)st.sent);
		report_metric(out, "exec_filter_lost_total", "counter",
			      "Execs the exec filter had no room to send.",
			      (double)st.lost);
		report_metric(out, "exec_filter_following", "gauge",
			      "Processes the exec filter follows.",
			      (double)st.following);
		report_metric(out, "exec_filter_full", "gauge",
			      "1 while the exec filter sends every exec, its "
			      "followed processes' map full.",
			      st.full ? 1 : 0);
	}
	report_metric(out, "overflows_total", "counter",
		      "Times the kernel dropped process events.",
		      (double)d->events.overflows);
	report_metric(out, "reloads_total", "counter", "Rule sets reloaded.",
		      (double)d->reloads);
#define REPORT_METRIC(name, value)                                             \
	report_metric(out, name "_total", "counter",                           \
		      "Counter " name " of cpupolicyd status.",                \
		      (double)(value));
	REPORT_COUNTERS(REPORT_METRIC)
	report_metric(out, "power_holds", "gauge",
		      "Processes holding power settings.",
		      (double)d->hold_count);
	fprintf(out, "# HELP cpupolicy_power_setting A system setting held, "
		     "with its value and original.\n"
		     "# TYPE cpupolicy_power_setting gauge\n");
	for (size_t i = 0; i < d->power.knob_count; i++) {
		const struct power_knob *k = &d->power.knobs[i];
		struct journal_entry *e =
			journal_find(&d->power.journal, k->path);

		if (k->yielded)
			continue;
		fprintf(out, "cpupolicy_power_setting{path=\"");
		report_label(out, k->path);
		fprintf(out, "\",value=\"");
		report_label(out, k->value);
		fprintf(out, "\",original=\"");
		report_label(out, e ? e->original : k->value);
		fprintf(out, "\"} 1\n");
	}
}
