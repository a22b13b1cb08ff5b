/* What the control socket reports: status (counters) and explain (one
 * process: its facts, the rule that matched and why, what was applied,
 * and the kernel's current state of each thread), as text or JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
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

/* The i-th hold (the config's base policy after the processes'): what it
 * wants and its rule; false past the last. */
static bool report_hold(struct daemon *d, size_t i, struct power_want *want,
			const char **rule)
{
	if (i < d->hold_count) {
		power_want_of(want, &d->holds[i].power,
			      d->conf.parking_latency_us);
		*rule = d->holds[i].rule;
		return true;
	}
	power_want_of(want, &d->conf.base_power, d->conf.parking_latency_us);
	*rule = "(config)";
	return i == d->hold_count && !power_want_empty(want);
}

/* Holds (who wants what) and the settings held (where, what, the
 * original that comes back). */
static void report_power_text(struct daemon *d, FILE *out)
{
	struct power_want want;
	const char *rule;
	char what[256], latency[256];

	fprintf(out, "power:    %zu holds, %zu settings held\n",
		d->hold_count + report_hold(d, d->hold_count, &want, &rule),
		d->power.knob_count + (d->power.latency_fd >= 0));
	for (size_t i = 0; report_hold(d, i, &want, &rule); i++) {
		power_want_describe(&want, what, sizeof(what));
		if (i < d->hold_count)
			fprintf(out, "  hold     pid %d, rule %s: %s\n",
				(int)d->holds[i].pid, rule, what);
		else
			fprintf(out,
				"  hold     base policy of the config: %s\n",
				what);
	}
	for (size_t i = 0; i < d->power.knob_count; i++) {
		const struct power_knob *k = &d->power.knobs[i];
		struct journal_entry *e =
			journal_find(&d->power.journal, k->path);

		if (k->yielded)
			fprintf(out,
				"  setting  %s: changed by another, theirs "
				"now (was held at %s)\n",
				k->path, k->value);
		else
			fprintf(out, "  setting  %s = %s (original %s)\n",
				k->path, k->value, e ? e->original : k->value);
	}
	knobs_latency_name(latency, sizeof(latency));
	if (d->power.latency_fd >= 0)
		fprintf(out,
			"  setting  %s = %ld us (held open; "
			"the kernel drops it when the daemon goes)\n",
			latency, d->power.latency_us);
}

static void report_setting_json(struct json_object *settings, const char *path,
				const char *value, const char *original,
				bool yielded)
{
	struct json_object *s = json_object_new_object();

	jsonout_add_string(s, "path", path);
	jsonout_add_string(s, "value", value);
	jsonout_add_string(s, "original", original);
	jsonout_add_bool(s, "yielded", yielded);
	json_object_array_add(settings, s);
}

static void report_power_json(struct daemon *d, struct json_object *doc)
{
	struct json_object *holds = jsonout_add_array(doc, "holds");
	struct json_object *settings = jsonout_add_array(doc, "settings");
	struct power_want want;
	const char *rule;
	char what[256];

	for (size_t i = 0; report_hold(d, i, &want, &rule); i++) {
		struct json_object *h = json_object_new_object();

		power_want_describe(&want, what, sizeof(what));
		jsonout_add_int(h, "pid",
				i < d->hold_count ? d->holds[i].pid : 0);
		jsonout_add_string(h, "rule", rule);
		jsonout_add_string(h, "wants", what);
		json_object_array_add(holds, h);
	}
	for (size_t i = 0; i < d->power.knob_count; i++) {
		const struct power_knob *k = &d->power.knobs[i];
		struct journal_entry *e =
			journal_find(&d->power.journal, k->path);
		const char *original = e ? e->original : k->value;

		report_setting_json(settings, k->path, k->value,
				    k->yielded ? NULL : original, k->yielded);
	}
	if (d->power.latency_fd >= 0) {
		char path[256];
		char *value = xasprintf("%ld", d->power.latency_us);

		knobs_latency_name(path, sizeof(path));
		report_setting_json(settings, path, value, NULL, false);
		free(value);
	}
}

/* Events the daemon woke for: the proc connector's and the filter's. */
static unsigned long long report_received(const struct daemon *d)
{
	return d->events.received +
	       (d->execfilter ? execfilter_received(d->execfilter) : 0);
}

/* The steps of a sent exec's time (execfilter_phase), as status and
 * metrics name them. */
static const char *const report_phases[EXECFILTER_PHASES] = {
	[EXECFILTER_PHASE_WAKE] = "wake",
	[EXECFILTER_PHASE_QUEUE] = "queue",
	[EXECFILTER_PHASE_WORK] = "work",
};

/* Each step's p50, p99 and worst, in us (p50 and p99 to a power of
 * two), once an exec was sent. */
static void report_latency_text(const struct execfilter_stats *st, FILE *out)
{
	if (!st->latency[EXECFILTER_PHASE_WAKE].total)
		return;
	fprintf(out, "          exec to policy, us (p50 p99 max):");
	for (int i = 0; i < EXECFILTER_PHASES; i++) {
		const struct latency *l = &st->latency[i];

		fprintf(out, "%s %s %llu %llu %llu", i ? ";" : "",
			report_phases[i], latency_percentile_us(l, 0.5),
			latency_percentile_us(l, 0.99),
			latency_percentile_us(l, 1.0));
	}
	fputc('\n', out);
}

/* The exec filter's own counters: what it saw, what it let through. */
static void report_filter_text(struct daemon *d, FILE *out)
{
	struct execfilter_stats st;

	if (!d->execfilter || execfilter_stats(d->execfilter, &st) != OS_OK)
		return;
	fprintf(out,
		"filter:   %llu execs seen in the kernel, %llu sent, %llu "
		"lost%s\n",
		st.seen, st.sent, st.lost,
		d->execplan.all ? " (a rule needs every exec)" : "");
	fprintf(out, "          %llu of %llu processes followed%s\n",
		st.following, st.follow_max,
		st.full ? " (no room for more: every exec is sent)" : "");
	report_latency_text(&st, out);
}

static void report_latency_json(const struct execfilter_stats *st,
				struct json_object *filter)
{
	struct json_object *all = jsonout_add_object(filter, "latency_us");

	for (int i = 0; i < EXECFILTER_PHASES; i++) {
		const struct latency *l = &st->latency[i];
		struct json_object *one =
			jsonout_add_object(all, report_phases[i]);

		jsonout_add_uint(one, "count", l->total);
		jsonout_add_uint(one, "p50", latency_percentile_us(l, 0.5));
		jsonout_add_uint(one, "p99", latency_percentile_us(l, 0.99));
		jsonout_add_uint(one, "max", latency_percentile_us(l, 1.0));
	}
}

static void report_filter_json(struct daemon *d, struct json_object *doc)
{
	struct execfilter_stats st;
	struct json_object *f;

	if (!d->execfilter || execfilter_stats(d->execfilter, &st) != OS_OK)
		return;
	f = jsonout_add_object(doc, "exec_filter");
	jsonout_add_uint(f, "execs", st.seen);
	jsonout_add_uint(f, "sent", st.sent);
	jsonout_add_uint(f, "lost", st.lost);
	jsonout_add_bool(f, "all", d->execplan.all);
	jsonout_add_uint(f, "following", st.following);
	jsonout_add_uint(f, "follow_max", st.follow_max);
	jsonout_add_bool(f, "full", st.full);
	jsonout_add_uint(f, "fulls", d->filter_fulls);
	/* Last: readers that take the object's first level up to its first
	 * closing brace still find the counts. */
	report_latency_json(&st, f);
}

static void report_status_json(struct daemon *d, FILE *out)
{
	const struct manage_counters *c = &d->manage.counters;
	struct json_object *doc = json_object_new_object();
	size_t procs, threads;

	report_threads_total(&d->manage, &procs, &threads);
	jsonout_add_string(doc, "version", CPUPOLICY_VERSION);
	jsonout_add_int(doc, "pid", procinfo_self());
	jsonout_add_int(doc, "uptime_s", report_uptime(d));
	jsonout_add_string(doc, "events", loop_events_word(d));
	jsonout_add_bool(doc, "dry_run", d->conf.dry_run);
	jsonout_add_uint(doc, "rules", d->rules->count);
	jsonout_add_uint(doc, "rule_files", d->rules->files_read);
	jsonout_add_uint(doc, "managed_processes", procs);
	jsonout_add_uint(doc, "managed_threads", threads);
	jsonout_add_uint(doc, "events_received", report_received(d));
	jsonout_add_uint(doc, "overflows", d->events.overflows);
	jsonout_add_uint(doc, "reloads", d->reloads);
	report_filter_json(d, doc);
#define REPORT_JSON(name, value) jsonout_add_uint(doc, name, value);
	REPORT_COUNTERS(REPORT_JSON)
	report_power_json(d, doc);
	restrain_status_json(d, doc);
	jsonout_write(out, doc);
}

void report_status(struct daemon *d, bool json, FILE *out)
{
	const struct manage_counters *c = &d->manage.counters;
	size_t procs, threads;
	long long up = report_uptime(d);

	if (json) {
		report_status_json(d, out);
		return;
	}
	report_threads_total(&d->manage, &procs, &threads);
	fprintf(out, "cpupolicyd %s, pid %d, up %lldh%02lldm%02llds%s\n",
		CPUPOLICY_VERSION, (int)procinfo_self(), up / 3600,
		up / 60 % 60, up % 60, d->conf.dry_run ? " (dry run)" : "");
	fprintf(out, "events:   %s, %llu received, %llu overflows\n",
		d->polling ? loop_events_source(d) : loop_events_word(d),
		report_received(d), d->events.overflows);
	report_filter_text(d, out);
	fprintf(out, "rules:    %zu rules in %zu files, %llu reloads\n",
		d->rules->count, d->rules->files_read, d->reloads);
	fprintf(out, "managed:  %zu processes, %zu threads\n", procs, threads);
	fprintf(out, "counters:");
#define REPORT_TEXT(name, value) fprintf(out, " %s %llu", name, value);
	REPORT_COUNTERS(REPORT_TEXT)
	fprintf(out, "\n");
	report_power_text(d, out);
	restrain_status_text(d, out);
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

static struct json_object *report_thread_json(const struct report_thread *t)
{
	struct json_object *j = json_object_new_object(), *kept;
	char now[128] = "";

	jsonout_add_int(j, "tid", t->tid);
	jsonout_add_string(j, "name", t->comm);
	if (t->now_ok) {
		prio_describe_state(&t->now, now, sizeof(now));
		jsonout_add_int(j, "nice", t->now.nice);
		jsonout_add_string(
			j, "policy",
			rules_enum_name(RULES_ENUM_POLICY, (int)t->now.policy));
		jsonout_add_int(j, "rt_priority", t->now.rt_priority);
		jsonout_add_bool(j, "reset_on_fork", t->now.reset_on_fork);
		jsonout_add_string(
			j, "io_class",
			t->now.io_class ? rules_enum_name(RULES_ENUM_IO_CLASS,
							  (int)t->now.io_class)
					: "none");
		jsonout_add_int(j, "io_level", t->now.io_level);
		jsonout_add_string(j, "priority", now);
	}
	jsonout_add_string(j, "cpus", t->cpus);
	jsonout_add_bool(j, "set_by_rule",
			 t->managed && (t->managed->prio_done ||
					t->managed->place_done));
	jsonout_add_bool(j, "left_alone", t->managed && t->managed->left_alone);
	kept = jsonout_add_array(j, "kept");
	for (size_t i = 0; i < t->kept_count; i++) {
		struct json_object *k = json_object_new_object();

		jsonout_add_string(k, "setting", t->kept[i].setting);
		jsonout_add_string(k, "why", t->kept[i].why);
		json_object_array_add(kept, k);
	}
	return j;
}

/* Which rules were close, and what kept each from matching: as text on
 * out, or into the array misses. */
static void report_near_misses(struct daemon *d, struct facts *facts,
			       struct procinfo *pi, struct json_object *misses,
			       FILE *out)
{
	size_t shown = 0;

	for (size_t i = 0; i < d->rules->count && shown < 10; i++) {
		const struct rule *r = &d->rules->list[i];
		char why[512];

		match_rule(r, facts, procinfo_fetch, pi, why, sizeof(why));
		/* A rule whose first key already fails is not close. */
		if (!strstr(why, "matches '") && !strstr(why, " is '"))
			continue;
		if (misses) {
			struct json_object *m = json_object_new_object();

			jsonout_add_string(m, "rule", r->name);
			jsonout_add_string(m, "why_not", why);
			json_object_array_add(misses, m);
		} else {
			fprintf(out, "  rule %s (%s:%u): ", r->name, r->file,
				r->line);
			report_text(out, why, sizeof(why));
			putc('\n', out);
		}
		shown++;
	}
	if (!shown && !misses)
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

/* What explain finds out about one process, before it is written. */
struct report_explained {
	pid_t pid;
	unsigned long long start;
	struct procinfo pi;
	struct facts facts;
	const struct manage_proc *p;
	const struct rule *rule; /* the first that matches, or NULL */
	const struct hold *hold;
	char why[1024], target[512], held[256];
	struct report_thread *threads;
	size_t count;
};

/* What the process gets: its rule's settings, placement included. */
static void report_target(const struct manage_proc *p, char *target,
			  size_t size)
{
	char cpus[256];
	size_t used;

	prio_describe_target(&p->prio, target, size);
	if (!p->place.active)
		return;
	used = strlen(target);
	place_format(p->place.base, cpus, sizeof(cpus));
	snprintf(target + used, size - used, "%scpus %s%s", used ? ", " : "",
		 cpus,
		 p->place.domains.count > 1 ? ", threads spread over domains"
					    : "");
}

static void report_explain_threads(struct report_explained *x)
{
	pid_t *tids = NULL;

	x->count = 0;
	procinfo_threads(x->pid, &tids, &x->count);
	x->threads = xcalloc(x->count ? x->count : 1, sizeof(*x->threads));
	for (size_t i = 0; i < x->count; i++) {
		struct report_thread *t = &x->threads[i];

		t->tid = tids[i];
		report_thread_state(x->pid, t);
		for (size_t k = 0; x->p && k < x->p->thread_count; k++) {
			if (x->p->threads[k].tid == tids[i])
				t->managed = &x->p->threads[k];
		}
		if (x->p)
			report_thread_kept(x->p, t);
	}
	free(tids);
}

/* Everything explain says, read; false when there is no such process. */
static bool report_explain_read(struct daemon *d, pid_t pid,
				struct report_explained *x)
{
	long rule;

	*x = (struct report_explained){.pid = pid, .pi = {pid}};
	if (procinfo_start_time(pid, 0, &x->start) != OS_OK)
		return false;
	report_facts(&x->pi, &x->facts);
	rule = match_first(&d->manage.index, &x->facts, procinfo_fetch, &x->pi);
	if (rule >= 0) {
		x->rule = &d->rules->list[rule];
		match_rule(x->rule, &x->facts, procinfo_fetch, &x->pi, x->why,
			   sizeof(x->why));
	}
	x->p = manage_find(&d->manage, pid);
	if (x->p && x->p->start_time != x->start)
		x->p = NULL; /* a record of an earlier process with this pid */
	if (x->p)
		report_target(x->p, x->target, sizeof(x->target));
	x->hold = x->p ? hold_find(d, pid) : NULL;
	if (x->hold) {
		struct power_want want;

		power_want_of(&want, &x->hold->power,
			      d->conf.parking_latency_us);
		power_want_describe(&want, x->held, sizeof(x->held));
	}
	report_explain_threads(x);
	return true;
}

static void report_explain_json(struct daemon *d, struct report_explained *x,
				FILE *out)
{
	struct json_object *doc = json_object_new_object(), *threads;
	const struct facts *f = &x->facts;
	char restraint[160];

	jsonout_add_int(doc, "pid", x->pid);
	jsonout_add_uint(doc, "start_time", x->start);
	jsonout_add_string(doc, "exe", report_fact(f, MATCH_FACT_EXE, f->exe));
	jsonout_add_string(doc, "exe_file", report_exe_file(f, true));
	jsonout_add_string(doc, "name",
			   report_fact(f, MATCH_FACT_COMM, f->comm));
	jsonout_add_string(doc, "cmdline",
			   report_fact(f, MATCH_FACT_CMDLINE, f->cmdline));
	jsonout_add(doc, "uid",
		    f->have & MATCH_FACT_CREDS ? json_object_new_int64(f->uid)
					       : NULL);
	jsonout_add(doc, "gid",
		    f->have & MATCH_FACT_CREDS ? json_object_new_int64(f->gid)
					       : NULL);
	jsonout_add_string(doc, "cgroups", f->cgroups);
	jsonout_add_string(
		doc, "parent_exe",
		report_fact(f, MATCH_FACT_PARENT_EXE, f->parent_exe));
	if (x->rule) {
		jsonout_add_string(doc, "rule", x->rule->name);
		jsonout_add_string(doc, "rule_file", x->rule->file);
		jsonout_add_uint(doc, "rule_line", x->rule->line);
		jsonout_add_string(doc, "source", report_source(x->rule, f));
		jsonout_add_string(doc, "why", x->why);
	} else {
		jsonout_add(doc, "rule", NULL);
		report_near_misses(d, &x->facts, &x->pi,
				   jsonout_add_array(doc, "near_misses"), NULL);
	}
	jsonout_add_bool(doc, "managed", x->p != NULL);
	jsonout_add_string(doc, "applies", x->target);
	restrain_explain(d, x->pid, restraint, sizeof(restraint));
	jsonout_add_string(doc, "restraint", restraint);
	threads = jsonout_add_array(doc, "threads");
	for (size_t i = 0; i < x->count; i++)
		json_object_array_add(threads,
				      report_thread_json(&x->threads[i]));
	jsonout_write(out, doc);
}

static void report_explain_rule_text(struct daemon *d,
				     struct report_explained *x, FILE *out)
{
	const char *source;

	if (!x->rule) {
		fprintf(out, "no rule matches; the closest:\n");
		report_near_misses(d, &x->facts, &x->pi, NULL, out);
		return;
	}
	source = report_source(x->rule, &x->facts);
	fprintf(out, "rule %s (%s:%u)\n", x->rule->name, x->rule->file,
		x->rule->line);
	if (source)
		report_line(out, "source", source, RULEFILE_MAX_SOURCE);
	report_line(out, "why", x->why, sizeof(x->why));
}

static void report_explain_text(struct daemon *d, struct report_explained *x,
				FILE *out)
{
	const struct facts *f = &x->facts;
	char restraint[160];

	fprintf(out, "pid %d\n", (int)x->pid);
	fprintf(out, "  %-10s ", "exe");
	report_text(out, report_fact(f, MATCH_FACT_EXE, f->exe),
		    sizeof(f->exe));
	fprintf(out, "%s\n", report_exe_file(f, false));
	report_line(out, "name", report_fact(f, MATCH_FACT_COMM, f->comm),
		    sizeof(f->comm));
	report_line(out, "cmdline",
		    report_fact(f, MATCH_FACT_CMDLINE, f->cmdline), 200);
	report_user(out, f);
	fprintf(out, "  cgroups   ");
	report_cgroups_text(out, f->cgroups);
	putc('\n', out);
	report_line(out, "parent exe",
		    report_fact(f, MATCH_FACT_PARENT_EXE, f->parent_exe),
		    sizeof(f->parent_exe));
	report_explain_rule_text(d, x, out);
	if (x->p)
		fprintf(out, "  applies    %s%s\n",
			x->target[0] ? x->target : report_nothing(x->p->rule),
			d->conf.dry_run ? " (dry run: nothing is written)"
					: "");
	else if (x->rule)
		fprintf(out, "  applies    not yet (not managed)\n");
	if (x->hold)
		fprintf(out,
			"  holds      %s (while it runs; see cpupolicyctl "
			"status)\n",
			x->held);
	restrain_explain(d, x->pid, restraint, sizeof(restraint));
	report_line(out, "restraint", restraint, sizeof(restraint));
	fprintf(out, "threads (the kernel's state now)\n");
	fprintf(out, "  %-8s %-16s %-36s %-12s %s\n", "TID", "NAME", "PRIORITY",
		"CPUS", "BY THE RULE");
	for (size_t i = 0; i < x->count; i++)
		report_thread_text(out, &x->threads[i]);
}

int report_explain(struct daemon *d, pid_t pid, bool json, FILE *out)
{
	struct report_explained *x = xcalloc(1, sizeof(*x));
	bool found = report_explain_read(d, pid, x);

	if (!found)
		fprintf(out, "no process %d\n", (int)pid);
	else if (json)
		report_explain_json(d, x, out);
	else
		report_explain_text(d, x, out);
	free(x->threads);
	free(x);
	return found ? 0 : 1;
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

/* The steps of the sent execs' time as one histogram, a phase label
 * each (buckets of powers of two microseconds, cumulative). */
static void report_latency_metrics(const struct execfilter_stats *st, FILE *out)
{
	fprintf(out,
		"# HELP cpupolicy_exec_filter_latency_seconds Where the "
		"time of each exec the exec filter sent went: wake (to "
		"the daemon's read of the ring), queue (to its start on "
		"it), work (to its policy in place).\n"
		"# TYPE cpupolicy_exec_filter_latency_seconds histogram\n");
	for (int i = 0; i < EXECFILTER_PHASES; i++) {
		const struct latency *l = &st->latency[i];
		unsigned long long below = 0;

		for (unsigned b = 0; b + 1 < LATENCY_BUCKETS; b++) {
			below += l->count[b];
			fprintf(out,
				"cpupolicy_exec_filter_latency_seconds_bucket{"
				"phase=\"%s\",le=\"%g\"} %llu\n",
				report_phases[i],
				(double)latency_bound_us(b) / 1e6, below);
		}
		fprintf(out,
			"cpupolicy_exec_filter_latency_seconds_bucket{phase="
			"\"%s\",le=\"+Inf\"} %llu\n"
			"cpupolicy_exec_filter_latency_seconds_sum{phase="
			"\"%s\"} %.9f\n"
			"cpupolicy_exec_filter_latency_seconds_count{phase="
			"\"%s\"} %llu\n",
			report_phases[i], l->total, report_phases[i],
			(double)l->sum_ns / 1e9, report_phases[i], l->total);
	}
}

/* Prometheus text exposition of the counters, the holds and the settings
 * held: what "cpupolicyctl metrics" prints. The saturation check's series
 * are its own textfile's. */
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
		report_latency_metrics(&st, out);
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
	restrain_metrics(d, out, report_metric);
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
