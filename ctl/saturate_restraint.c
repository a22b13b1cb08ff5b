/* cpupolicyctl saturate --compare --restraint: what the running daemon's
 * restraint does for a foreground task under CPU hogs. Paired trials in
 * A B, B A order: in A restraint is paused (root's; a user's run exempts
 * each hog instead), in B it is on. Each trial runs the frame task
 * (lib/frames.c) in a thread of this process and starts two CPU hogs per
 * CPU a second in (hogs.c: an ordinary user's, never descendants of this
 * process); the figures and the report are saturate_restraint_report.c's.
 * Whatever ends the run, an error or SIGINT/SIGTERM, restraint is resumed
 * if this run paused it, and the hogs are killed. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "frames.h"
#include "jsonout.h"
#include "os.h"
#include "prio.h"
#include "proto.h"
#include "saturate_compare.h"
#include "util.h"
#include "work.h"

#define NS_PER_MS 1000000LL
/* Before each trial: the last one's hogs gone, the pressure let down. */
#define SATURATE_RESTRAINT_SETTLE_MS 1000
/* A hog outlives cpupolicyctl's end (a SIGKILL) by this much at most. */
#define SATURATE_RESTRAINT_HOG_SPARE_MS 10000

static volatile sig_atomic_t saturate_restraint_signal;

static void saturate_restraint_on_signal(int sig)
{
	saturate_restraint_signal = sig;
}

struct saturate_restraint {
	struct ctl *ctl;
	const struct saturate_opts *o;
	struct hogs_user user;
	unsigned hogs;
	pid_t self;
	bool paused; /* by this run: resumed whatever happens */
	struct saturate_restraint_trial *trials[2];
};

/* One request; 0 with the daemon's answer (status 0), else -1, its word
 * said on stderr. */
static int saturate_restraint_ask(const struct saturate_restraint *r,
				  enum proto_verb verb, pid_t pid, bool json,
				  char **answer)
{
	struct proto_request req = {.verb = verb, .json = json, .pid = pid};
	char *text;
	size_t len;
	int status;

	if (answer)
		*answer = NULL;
	if (remote_call(r->ctl, &req, true, &status, &text, &len) < 0)
		return -1;
	if (status != 0) {
		fprintf(stderr, "cpupolicyctl: cpupolicyd: %.*s", (int)len,
			text);
		free(text);
		return -1;
	}
	if (answer) {
		*answer = xcalloc(len + 1, 1);
		memcpy(*answer, text, len);
	}
	free(text);
	return 0;
}

/* status --json, parsed; NULL when it cannot be had. */
static struct json_object *saturate_restraint_status(
	const struct saturate_restraint *r)
{
	struct json_object *doc;
	char *text;

	if (saturate_restraint_ask(r, PROTO_VERB_STATUS, 0, true, &text) < 0)
		return NULL;
	doc = json_tokener_parse(text);
	free(text);
	if (!doc)
		fprintf(stderr, "cpupolicyctl: no valid status from the "
				"daemon\n");
	return doc;
}

/* The daemon runs, restraint is on, and not paused by someone else. */
static int saturate_restraint_daemon_on(const struct saturate_restraint *r)
{
	struct json_object *doc = saturate_restraint_status(r), *v;
	const char *state;
	int status = -1;

	if (!doc) {
		fprintf(stderr,
			"cpupolicyctl: saturate --restraint measures a "
			"running cpupolicyd's restraint, and none answers\n");
		return -1;
	}
	state = json_object_object_get_ex(doc, "restraint", &v)
			? json_object_get_string(v)
			: "off";
	if (strncmp(state, "on", 2) == 0)
		status = 0;
	else if (strcmp(state, "paused") == 0)
		fprintf(stderr,
			"cpupolicyctl: saturate --restraint: restraint is "
			"paused; resume it first (cpupolicyctl restraint "
			"resume): the comparison pauses and resumes it "
			"itself\n");
	else
		fprintf(stderr,
			"cpupolicyctl: saturate --restraint: the daemon's "
			"restraint is %s: it needs [restraint] enabled = true "
			"in cpupolicyd.conf and the CPU pressure to read\n",
			state);
	json_object_put(doc);
	return status;
}

/* Whether the daemon lists pid among the restrained; false also when it
 * cannot be asked (said). */
static bool saturate_restraint_listed(const struct saturate_restraint *r,
				      pid_t pid)
{
	struct json_object *doc = saturate_restraint_status(r), *list, *p;
	bool found = false;

	if (!doc)
		return false;
	if (json_object_object_get_ex(doc, "restrained", &list)) {
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			struct json_object *e =
				json_object_array_get_idx(list, i);

			if (json_object_object_get_ex(e, "pid", &p) &&
			    json_object_get_int(p) == (int)pid)
				found = true;
		}
	}
	json_object_put(doc);
	return found;
}

static int saturate_restraint_pause(struct saturate_restraint *r, bool pause)
{
	if (pause == r->paused)
		return 0;
	if (pause) {
		r->paused = true; /* before asking: resumed even if unsure */
		return saturate_restraint_ask(r, PROTO_VERB_RESTRAINT_PAUSE, 0,
					      false, NULL);
	}
	if (saturate_restraint_ask(r, PROTO_VERB_RESTRAINT_RESUME, 0, false,
				   NULL) < 0)
		return -1;
	r->paused = false;
	return 0;
}

struct saturate_restraint_frames {
	struct frames_frame *frames;
	int count;
	const struct saturate_restraint_times *t;
};

static void *saturate_restraint_frames_run(void *arg)
{
	struct saturate_restraint_frames *f = arg;

	frames_run(f->frames, f->count, f->t->start, FRAMES_PERIOD_US * 1000LL,
		   FRAMES_WORK_US * 1000LL, f->t->stop);
	return NULL;
}

/* Every hog lowered, as the daemon lowers them. */
static bool saturate_restraint_all_lowered(const struct hogs *h, unsigned count)
{
	for (unsigned i = 0; i < count; i++) {
		struct prio_state prio;
		pid_t pid = hogs_pid(h, i);

		if (apply_prio_read(pid, pid, &prio) != OS_OK ||
		    !saturate_restraint_report_lowered(&prio))
			return false;
	}
	return true;
}

static bool saturate_restraint_sleep(long long until)
{
	while (timing_now_ns() < until && !saturate_restraint_signal)
		timing_sleep_ns(10 * NS_PER_MS);
	return !saturate_restraint_signal;
}

/* The trial's timeline, tick by tick: the hogs at their moment (each
 * exempted in a user's A), their counts at the window's start and end,
 * the first tick that finds every hog lowered. */
static int saturate_restraint_timeline(struct saturate_restraint *r,
				       unsigned arm,
				       const struct saturate_restraint_times *t,
				       struct hogs **h,
				       struct saturate_restraint_counts c[2],
				       long long *relief_at)
{
	bool from = false;
	char why[256];

	for (long long at = t->start; at < t->stop;
	     at += SATURATE_RESTRAINT_TICK_MS * NS_PER_MS) {
		timing_sleep_until_ns(at);
		if (saturate_restraint_signal)
			return -1;
		if (!*h && at >= t->hogs) {
			*h = hogs_start(
				r->hogs, &r->user,
				t->stop + SATURATE_RESTRAINT_HOG_SPARE_MS *
						  NS_PER_MS,
				why, sizeof(why));
			if (!*h) {
				fprintf(stderr, "cpupolicyctl: %s\n", why);
				return -1;
			}
			for (unsigned i = 0;
			     arm == 0 && !r->user.root && i < r->hogs; i++) {
				if (saturate_restraint_ask(
					    r, PROTO_VERB_RESTRAINT_EXEMPT,
					    hogs_pid(*h, i), false, NULL) < 0)
					return -1;
			}
		}
		if (*h && !from && at >= t->from) {
			hogs_counts(*h, &c[0].spins, &c[0].cpu_ns);
			from = true;
		}
		if (*h && !*relief_at &&
		    saturate_restraint_all_lowered(*h, r->hogs))
			*relief_at = at;
	}
	timing_sleep_until_ns(t->stop);
	if (*h)
		hogs_counts(*h, &c[1].spins, &c[1].cpu_ns);
	return 0;
}

static int saturate_restraint_trial(struct saturate_restraint *r, unsigned pair,
				    unsigned arm)
{
	struct saturate_restraint_counts c[2] = {{0}};
	struct saturate_restraint_times t;
	struct saturate_restraint_frames f;
	struct hogs *h = NULL;
	long long relief_at = 0;
	pthread_t thread;
	int status;

	if (saturate_restraint_pause(r, arm == 0 && r->user.root) < 0)
		return -1;
	/* Told again each trial: the daemon may have been restarted. */
	if (!r->user.root && saturate_restraint_ask(r, PROTO_VERB_FOREGROUND,
						    r->self, false, NULL) < 0)
		return -1;
	if (!saturate_restraint_sleep(timing_now_ns() +
				      SATURATE_RESTRAINT_SETTLE_MS * NS_PER_MS))
		return -1;
	saturate_restraint_report_times(timing_now_ns(), r->o->seconds, &t);
	f.t = &t;
	f.count = (int)((t.stop - t.start) / (FRAMES_PERIOD_US * 1000LL)) + 1;
	f.frames = xcalloc((size_t)f.count, sizeof(*f.frames));
	if (pthread_create(&thread, NULL, saturate_restraint_frames_run, &f)) {
		fprintf(stderr, "cpupolicyctl: cannot start the frame task\n");
		free(f.frames);
		return -1;
	}
	status = saturate_restraint_timeline(r, arm, &t, &h, c, &relief_at);
	if (status == 0)
		r->trials[arm][pair].task_restrained =
			saturate_restraint_listed(r, r->self);
	if (!hogs_stop(h))
		status = -1;
	if (saturate_restraint_signal) {
		/* The frame task ends at t.stop: not waited for, the
		 * process ends first. */
		return -1;
	}
	pthread_join(thread, NULL);
	if (status == 0) {
		bool restrained = r->trials[arm][pair].task_restrained;

		saturate_restraint_report_trial(f.frames, f.count, &t, &c[0],
						&c[1], relief_at,
						&r->trials[arm][pair]);
		r->trials[arm][pair].task_restrained = restrained;
	}
	free(f.frames);
	if (status == 0 && !r->o->json && system_is_terminal(stderr))
		fprintf(stderr, "\r  pair %u/%u  %s: %d of %d frames missed",
			pair + 1, r->o->pairs, arm ? "B" : "A",
			r->trials[arm][pair].missed,
			r->trials[arm][pair].frames);
	return status;
}

static void saturate_restraint_report(struct saturate_restraint *r)
{
	struct saturate_restraint_setup su = {
		.pairs = r->o->pairs,
		.hogs = r->hogs,
		.seconds = r->o->seconds,
		.user = r->user.name,
		.exempt = !r->user.root,
	};
	struct saturate_restraint_summary s;

	saturate_restraint_report_summarise(r->trials[0], r->trials[1],
					    r->o->pairs, &s);
	if (r->o->json)
		saturate_restraint_report_json(&su, &s, r->trials[0],
					       r->trials[1], stdout);
	else
		saturate_restraint_report_text(&su, &s, stdout);
}

int saturate_restraint_run(struct ctl *ctl, struct saturate_env *env,
			   const struct saturate_opts *o)
{
	struct saturate_restraint r = {.ctl = ctl, .o = o};
	void (*old_int)(int), (*old_term)(int);
	int status = CTL_EXIT_USAGE, sig;
	char why[256];

	(void)env;
	if (!hogs_supported(why, sizeof(why))) {
		fprintf(stderr, "cpupolicyctl: saturate: %s\n", why);
		return CTL_EXIT_USAGE;
	}
	if (saturate_restraint_daemon_on(&r) < 0)
		return CTL_EXIT_USAGE;
	if (hogs_user(o->user, &r.user, why, sizeof(why)) < 0) {
		fprintf(stderr, "cpupolicyctl: saturate: %s\n", why);
		return CTL_EXIT_USAGE;
	}
	r.self = procinfo_self();
	r.hogs = SATURATE_RESTRAINT_HOGS_PER_CPU * machine_cpu_count(true);
	if (!r.hogs)
		r.hogs = SATURATE_RESTRAINT_HOGS_PER_CPU;
	r.trials[0] = xcalloc(o->pairs, sizeof(*r.trials[0]));
	r.trials[1] = xcalloc(o->pairs, sizeof(*r.trials[1]));
	saturate_restraint_signal = 0;
	old_int = signal(SIGINT, saturate_restraint_on_signal);
	old_term = signal(SIGTERM, saturate_restraint_on_signal);
	for (unsigned pair = 0; pair < o->pairs; pair++) {
		for (unsigned step = 0; step < 2; step++) {
			if (saturate_restraint_trial(
				    &r, pair, compare_arm(pair, step)) < 0)
				goto out;
		}
	}
	if (saturate_restraint_pause(&r, false) < 0)
		goto out;
	if (!o->json && system_is_terminal(stderr))
		fprintf(stderr, "\r\033[K");
	saturate_restraint_report(&r);
	status = CTL_EXIT_OK;
out:
	if (r.paused && saturate_restraint_pause(&r, false) < 0) {
		fprintf(stderr, "cpupolicyctl: restraint is left paused: "
				"cpupolicyctl restraint resume gives it "
				"back\n");
		status = CTL_EXIT_USAGE;
	}
	signal(SIGINT, old_int);
	signal(SIGTERM, old_term);
	free(r.trials[0]);
	free(r.trials[1]);
	if ((sig = saturate_restraint_signal)) {
		fprintf(stderr,
			"\ncpupolicyctl: saturate --restraint "
			"stopped%s\n",
			r.paused ? "" : "; restraint is on");
		raise(sig);
	}
	return status;
}
