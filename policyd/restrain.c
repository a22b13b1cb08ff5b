/* The daemon's side of restraint ([restraint], cpupolicyd(8)): the
 * machine's CPU pressure wakes it (a PSI trigger, or the tick where the
 * system has none), passes run every sample_ms while it lasts and while
 * anything is held (lib/restrained.c), the rules say who is never
 * restrained, a reload and a stop give everything back, and status,
 * explain and metrics show it. */
#include <stdio.h>
#include <string.h>

#include "jsonout.h"
#include "log.h"
#include "os.h"
#include "policyd.h"
#include "procstat.h"

/* The rule for a process: the one it is managed under, else the first
 * that matches it now (a rule that sets nothing but restrain manages
 * nothing). */
const struct rule *restrain_rule(struct daemon *d, pid_t pid,
				 unsigned long long start)
{
	static struct facts facts;
	const struct manage_proc *p = manage_find(&d->manage, pid);
	struct procinfo pi = {.pid = pid};
	long index;

	if (p && p->start_time == start && p->rule)
		return p->rule;
	memset(&facts, 0, sizeof(facts));
	index = match_first(&d->manage.index, &facts, procinfo_fetch, &pi);
	return index >= 0 ? &d->rules->list[index] : NULL;
}

/* The foreground's word, then the rules': restrain = false exempts it, a rule
 * that raises it or sets its priority keeps it its own, restrain = { ... }
 * gives it settings of its own. */
static const char *restrain_exclude(void *ctx, pid_t pid,
				    unsigned long long start,
				    struct prio_target *target)
{
	static char why[96];
	const char *source = foreground_covers(ctx, pid, start);
	const struct rule *rule;
	struct prio_target own;

	if (source) {
		snprintf(why, sizeof(why),
			 "in the foreground (declared over %s)", source);
		return why;
	}
	rule = restrain_rule(ctx, pid, start);

	if (!rule)
		return NULL;
	if (rule->restrain_off) {
		snprintf(why, sizeof(why), "rule '%.64s' says restrain = false",
			 rule->name);
		return why;
	}
	if (rules_raises(rule)) {
		snprintf(why, sizeof(why), "rule '%.64s' raises it",
			 rule->name);
		return why;
	}
	prio_target_for_system(&rule->priority, system_native(), &own);
	if (!prio_target_empty(&own)) {
		snprintf(why, sizeof(why), "rule '%.64s' sets its priority",
			 rule->name);
		return why;
	}
	if (rules_restrain(rule))
		prio_target_for_system(rules_restrain(rule), system_native(),
				       target);
	return NULL;
}

static unsigned restrain_cpus(void)
{
	struct procstat st;
	unsigned cpus;

	if (cputimes_read(&st) != OS_OK)
		return 1;
	cpus = st.count ? (unsigned)st.count : 1;
	procstat_free(&st);
	return cpus;
}

static void restrain_options(const struct daemon *d,
			     struct restrained_options *o)
{
	const struct conf_restraint *rc = &d->conf.restraint;

	*o = (struct restrained_options){
		.limits = rc->limits,
		.pressure_pct = rc->pressure_pct,
		.dry_run = d->conf.dry_run,
		.system = rc->system,
		.exempt = rc->exempt,
		.exempt_count = rc->exempt_count,
		.exclude = restrain_exclude,
		.ctx = (void *)d,
		.journal = (struct journal *)&d->restrain_journal,
	};
	prio_target_for_system(&rc->lowering, system_native(), &o->target);
}

/* A process outlives no boot: a journal of an earlier one is dropped. */
static bool restrain_lasting(const char *key)
{
	(void)key;
	return false;
}

/* What an earlier run held when it was killed goes back, whether
 * restraint is on now or not; without a journal nothing is restrained,
 * as a restraint could then outlive a crash. */
static bool restrain_replay(struct daemon *d)
{
	size_t given;

	if (journal_open_named(&d->restrain_journal, d->conf.state_dir,
			       "restraint", restrain_lasting) < 0) {
		if (d->conf.restraint.enabled)
			log_warnx("restraint is on, but its journal in %s "
				  "cannot be opened: no process is "
				  "restrained",
				  d->conf.state_dir);
		journal_close(&d->restrain_journal);
		return false;
	}
	if (d->restrain_journal.count) {
		given = restrained_replay(&d->restrain_journal);
		log_info("restraint: %zu processes an earlier run restrained "
			 "given back",
			 given);
	}
	if (!d->conf.restraint.enabled) {
		journal_close(&d->restrain_journal);
		return false;
	}
	return true;
}

/* Before the capabilities are cut: the replay writes others'
 * priorities, and a PSI trigger of a one-second window needs
 * CAP_SYS_RESOURCE when it is written, not later. */
void restrain_setup(struct daemon *d)
{
	struct restrained_options o;
	enum os_status os;

	if (!restrain_replay(d))
		return;
	os = pressure_open(&d->pressure, d->conf.restraint.pressure_pct);
	if (os != OS_OK) {
		log_warnx("restraint is on, but the CPU pressure cannot be "
			  "read (%s): no process is restrained",
			  os == OS_UNSUPPORTED
				  ? "the kernel has no PSI, or was booted "
				    "with psi=0"
				  : "refused");
		journal_close(&d->restrain_journal);
		return;
	}
	restrain_options(d, &o);
	restrained_init(&d->restrained, &o, restrain_cpus());
	d->restraining = true;
	fgsource_open(d);
	log_info("restraint on: a process over %u%% of the %u CPUs for %u ms "
		 "while they are %u%% contended is lowered (%s)%s",
		 o.limits.share_pct, d->restrained.cpus, o.limits.qualify_ms,
		 o.pressure_pct,
		 pressure_fd(d->pressure) >= 0
			 ? "woken by the kernel's pressure trigger"
			 : "the pressure sampled every second",
		 d->conf.dry_run ? "; dry run: nothing is written" : "");
}

void restrain_teardown(struct daemon *d)
{
	if (!d->restraining)
		return;
	loop_sample_arm(d, 0);
	fgsource_close(d);
	foreground_give_back_all(d);
	restrained_free(&d->restrained, "the daemon stops");
	journal_close(&d->restrain_journal);
	pressure_close(d->pressure);
	d->pressure = NULL;
	d->restraining = false;
}

/* Passes every sample_ms from now, the first at once. */
static void restrain_start(struct daemon *d, unsigned pressure_pct)
{
	unsigned pct;

	d->restrain_sampling = true;
	pressure_sample(d->pressure, &pct); /* from now on */
	if (restrained_pass(&d->restrained, timing_now_ns(), pressure_pct))
		loop_sample_arm(d, d->conf.restraint.sample_ms);
	else
		d->restrain_sampling = false;
}

/* The trigger says the waiting reached pressure_pct of a window. */
void restrain_on_pressure(struct daemon *d)
{
	pressure_fired(d->pressure);
	if (d->restraining && !d->restrain_sampling)
		restrain_start(d, d->conf.restraint.pressure_pct);
}

void restrain_on_sample(struct daemon *d)
{
	unsigned pct = 0;

	if (!d->restraining || !d->restrain_sampling)
		return;
	pressure_sample(d->pressure, &pct);
	foreground_release(d); /* GNOME's focus may have moved to a held one */
	if (!restrained_pass(&d->restrained, timing_now_ns(), pct)) {
		d->restrain_sampling = false;
		loop_sample_arm(d, 0);
	}
}

/* Without a trigger the tick looks at the pressure, once a second. */
void restrain_on_tick(struct daemon *d)
{
	unsigned pct = 0;

	if (!d->restraining || d->restrain_sampling ||
	    pressure_fd(d->pressure) >= 0)
		return;
	if (pressure_sample(d->pressure, &pct) == OS_OK &&
	    pct >= d->conf.restraint.pressure_pct)
		restrain_start(d, pct);
}

/* New rules may exclude what the old ones did not: everything back,
 * and judged again from the next pass; each foreground gets what the
 * new rules give it. After the new rules are in force. */
void restrain_reload(struct daemon *d)
{
	if (!d->restraining)
		return;
	restrained_release_all(&d->restrained, "the rules reloaded");
	foreground_renew(d);
}

/* Whose a process is: an exemption or a foreground is its own user's
 * to declare. */
bool restrain_owner(pid_t pid, unsigned *user)
{
	static struct facts facts;
	struct procinfo pi = {.pid = pid};

	memset(&facts, 0, sizeof(facts));
	procinfo_fetch(&pi, MATCH_FACT_CREDS, &facts);
	*user = facts.uid;
	return facts.have & MATCH_FACT_CREDS;
}

static int restrain_exempt(struct daemon *d, pid_t pid,
			   const struct control_peer *peer, FILE *out)
{
	unsigned owner;

	if (!peer->admin &&
	    (!restrain_owner(pid, &owner) || owner != peer->user)) {
		log_info("control: restraint exempt %d from %s (pid %d): not "
			 "its process",
			 (int)pid, peer->who, (int)peer->pid);
		fprintf(out, "permission denied: process %d is not yours\n",
			(int)pid);
		return 1;
	}
	if (restrained_exempt(&d->restrained, pid) < 0) {
		fprintf(out, "no process %d\n", (int)pid);
		return 1;
	}
	log_info("control: %d exempt from restraint by %s (pid %d)", (int)pid,
		 peer->who, (int)peer->pid);
	fprintf(out, "%d is exempt from restraint while it runs\n", (int)pid);
	return 0;
}

/* Pause gives everything back and restrains nothing until resume. */
int restrain_control(struct daemon *d, const struct proto_request *req,
		     const struct control_peer *peer, FILE *out)
{
	if (!d->restraining) {
		fprintf(out, "restraint is %s\n",
			d->conf.restraint.enabled
				? "off: the CPU pressure cannot be read"
				: "off ([restraint] enabled = false)");
		return 1;
	}
	switch (req->verb) {
	case PROTO_VERB_RESTRAINT_PAUSE:
		log_info("control: restraint paused by %s (pid %d)", peer->who,
			 (int)peer->pid);
		d->restrained.paused = true;
		restrained_release_all(&d->restrained, "restraint paused");
		fprintf(out, "restraint paused: nothing is restrained until "
			     "it is resumed\n");
		return 0;
	case PROTO_VERB_RESTRAINT_RESUME:
		log_info("control: restraint resumed by %s (pid %d)", peer->who,
			 (int)peer->pid);
		d->restrained.paused = false;
		fprintf(out, "restraint resumed\n");
		return 0;
	default:
		return restrain_exempt(d, req->pid, peer, out);
	}
}

static const char *restrain_state(const struct daemon *d)
{
	if (!d->conf.restraint.enabled)
		return "off";
	if (!d->restraining)
		return "off (no CPU pressure to read)";
	if (d->restrained.paused)
		return "paused";
	return d->restrain_sampling ? "on, sampling under pressure" : "on";
}

static long long restrain_held_s(const struct restrained_proc *p)
{
	return (timing_now_ns() - p->since_ns) / 1000000000LL;
}

void restrain_status_text(const struct daemon *d, FILE *out)
{
	const struct restrained *r = &d->restrained;

	fprintf(out, "restraint: %s", restrain_state(d));
	if (d->restraining)
		fprintf(out, ", %u restrained, %llu restraints, %llu releases",
			r->held_count, r->counters.restraints,
			r->counters.releases);
	fprintf(out, "\n");
	for (size_t i = 0; d->restraining && i < r->procs.capacity; i++) {
		const struct restrained_proc *p = r->procs.slots[i].value;

		if (!r->procs.slots[i].key || !p->held)
			continue;
		const struct restrained_group *g = restrained_group_of(r, p);

		fprintf(out,
			"  restrained %d (%s) for %llds: %u%% of the CPUs, "
			"%u%% contended",
			(int)p->pid, p->name, restrain_held_s(p), p->share_pct,
			p->pressure_pct);
		if (g)
			fprintf(out, "; its %s %s lowered",
				restrained_group_kind(&g->group), g->group.id);
		fprintf(out, "\n");
	}
}

void restrain_status_json(const struct daemon *d, struct json_object *doc)
{
	const struct restrained *r = &d->restrained;
	struct json_object *list;

	jsonout_add_string(doc, "restraint", restrain_state(d));
	list = jsonout_add_array(doc, "restrained");
	for (size_t i = 0; d->restraining && i < r->procs.capacity; i++) {
		const struct restrained_proc *p = r->procs.slots[i].value;
		const struct restrained_group *g;
		struct json_object *o;

		if (!r->procs.slots[i].key || !p->held)
			continue;
		o = json_object_new_object();
		jsonout_add_int(o, "pid", p->pid);
		jsonout_add_string(o, "name", p->name);
		jsonout_add_int(o, "since_s", restrain_held_s(p));
		jsonout_add_uint(o, "share_pct", p->share_pct);
		jsonout_add_uint(o, "pressure_pct", p->pressure_pct);
		if ((g = restrained_group_of(r, p))) {
			jsonout_add_string(o, "group", g->group.id);
			jsonout_add_string(o, "group_kind",
					   restrained_group_kind(&g->group));
		}
		json_object_array_add(list, o);
	}
}

/* What explain says of a process: restrained, or why not. */
void restrain_explain(const struct daemon *d, pid_t pid, char *text,
		      size_t size)
{
	const struct restrained_proc *p =
		d->restraining ? restrained_find(&d->restrained, pid) : NULL;

	if (!d->restraining)
		snprintf(text, size, "not restrained: restraint is %s",
			 restrain_state(d));
	else if (p && p->held)
		snprintf(text, size,
			 "restrained for %llds: %u%% of the CPUs, %u%% "
			 "contended",
			 restrain_held_s(p), p->share_pct, p->pressure_pct);
	else if (p && p->why_not[0])
		snprintf(text, size, "not restrained: %s", p->why_not);
	else
		snprintf(text, size, "not restrained: not a hog");
}

void restrain_metrics(const struct daemon *d, FILE *out,
		      void (*metric)(FILE *out, const char *name,
				     const char *type, const char *help,
				     double value))
{
	const struct restrained_counters *c = &d->restrained.counters;

	if (!d->restraining)
		return;
	metric(out, "restrained", "gauge", "Processes restrained now.",
	       (double)d->restrained.held_count);
	metric(out, "restraints_total", "counter", "Processes restrained.",
	       (double)c->restraints);
	metric(out, "restraint_releases_total", "counter",
	       "Restraints given back.", (double)c->releases);
	metric(out, "restraint_refused_total", "counter",
	       "Restraints the rate limit refused.", (double)c->refused);
	metric(out, "restraint_excluded_total", "counter",
	       "Hogs left alone as excluded.", (double)c->excluded);
	metric(out, "restraint_groups", "gauge",
	       "Autogroups and cgroups lowered with their processes now.",
	       (double)d->restrained.group_count);
	metric(out, "restraint_groups_total", "counter",
	       "Autogroups and cgroups lowered.", (double)c->groups);
	metric(out, "restraint_passes_total", "counter",
	       "Passes over the processes under pressure.", (double)c->passes);
}
