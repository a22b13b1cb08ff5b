/* cpupolicyd: applies the rules to processes as they start. Set-up opens
 * everything first (process events, control endpoint), then keeps only
 * the privileges the rules need, then scans the processes and follows
 * the system's process events. What each step asks of the system (the
 * service manager, privileges, the endpoint, the wait) is in
 * policyd/linux/ (policyd.h's last blocks). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "os.h"
#include "policyd.h"
#include "util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyd [-n] [-v] [-c FILE] [-r DIR]... [-S SOCKET] "
		"[--state-dir DIR]\n"
		"  -n             check the config and rules, then exit\n"
		"  -c FILE        config file (default %s)\n"
		"  -r DIR         a rules directory (repeat; replaces "
		"rules_dirs)\n"
		"  -S SOCKET      control socket (replaces socket)\n"
		"  --state-dir D  state directory (replaces state_dir)\n"
		"  -v             log debug messages\n",
		paths_conf_file());
	service_usage(out);
}

static void parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{"check", no_argument, NULL, 'n'},
		{"config", required_argument, NULL, 'c'},
		{"rules-dir", required_argument, NULL, 'r'},
		{"socket", required_argument, NULL, 'S'},
		{"state-dir", required_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "nc:r:S:vhV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'n':
			opt->check_only = true;
			break;
		case 'c':
			opt->conf_path = optarg;
			opt->conf_explicit = true;
			break;
		case 'r':
			opt->rules_dirs = xreallocarray(
				opt->rules_dirs, opt->rules_dir_count + 1,
				sizeof(*opt->rules_dirs));
			opt->rules_dirs[opt->rules_dir_count++] = optarg;
			break;
		case 'S':
			opt->socket = optarg;
			break;
		case 's':
			opt->state_dir = optarg;
			break;
		case 'v':
			opt->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("cpupolicyd %s\n", CPUPOLICY_VERSION);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (opt->socket && strlen(opt->socket) > endpoint_path_max()) {
		fprintf(stderr, "cpupolicyd: -S: socket path too long\n");
		exit(2);
	}
	if (optind < argc) {
		fprintf(stderr, "cpupolicyd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		exit(2);
	}
}

/* The file first, then the command line over it. A file others could
 * have written is not obeyed. */
static int load_conf(const struct options *opt, struct conf *conf,
		     struct diag *diag)
{
	conf_init(conf);
	if (conf_load_trusted(conf, opt->conf_path, opt->conf_explicit, diag) <
	    0)
		return -1;
	if (opt->rules_dir_count) {
		conf_set_rules_dirs(conf, "");
		for (size_t i = 0; i < opt->rules_dir_count; i++)
			conf_add_rules_dir(conf, opt->rules_dirs[i]);
	}
	if (opt->socket)
		conf_set_string(&conf->socket, opt->socket);
	if (opt->state_dir)
		conf_set_string(&conf->state_dir, opt->state_dir);
	if (opt->verbose)
		conf->log_level = LOG_LEVEL_DEBUG;
	return 0;
}

/* A directory named with -r must exist; the config's may not yet
 * (/etc/cpupolicy/rules.d on a fresh install). Nothing others could have
 * written is loaded: it would give them what root grants. */
static struct rules *load_rules(const struct options *opt,
				const struct conf *conf, struct diag *diag)
{
	struct rules *rules = xmalloc(sizeof(*rules));

	rules_init(rules);
	rules->trust_all = true;
	if (rules_load_paths(rules, conf->rules_dirs, conf->rules_dir_count,
			     opt->rules_dir_count > 0, diag) < 0 ||
	    diag->errors) {
		rules_free(rules);
		free(rules);
		return NULL;
	}
	return rules;
}

static int check_configuration(const struct options *opt)
{
	struct rules *rules = NULL;
	struct conf conf;
	struct diag diag;

	diag_init(&diag);
	if (load_conf(opt, &conf, &diag) == 0 && !diag.errors)
		rules = load_rules(opt, &conf, &diag);
	diag_print(&diag, stderr, true);
	if (rules)
		printf("configuration OK (%zu rules in %zu files)\n",
		       rules->count, rules->files_read);
	if (rules)
		rules_free(rules);
	free(rules);
	conf_free(&conf);
	diag_free(&diag);
	return rules ? 0 : 1;
}

/* hwloc only when a rule places threads: it costs memory and start-up. */
static int ensure_topology(struct daemon *d, const struct rules *rules)
{
	if (d->have_topology || !rules_have_placement(rules))
		return 0;
	if (place_topology_load(&d->topology, NULL, NULL) < 0) {
		log_warn("cannot read the CPU topology");
		return -1;
	}
	d->have_topology = true;
	d->manage.topology = &d->topology;
	return 0;
}

/* Whether the config's [power] section holds anything. */
static bool has_base_power(const struct conf *conf)
{
	struct power_want want;

	power_want_of(&want, &conf->base_power, conf->parking_latency_us);
	return !power_want_empty(&want);
}

static void daemon_ready(const struct rules *rules)
{
	char status[128];

	snprintf(status, sizeof(status), "%zu rules in %zu files", rules->count,
		 rules->files_read);
	service_ready(status);
}

/* Restraint lowers others' processes and their groups, and reads their
 * exe (a kernel thread has none). */
static unsigned daemon_caps_needed(const struct daemon *d,
				   const struct rules *rules)
{
	return caps_needed(rules, caps_proc_hidden(),
			   has_base_power(&d->conf)) |
	       (d->restraining ? CAPS_NEED_PRIORITY | CAPS_NEED_INSPECT |
					 CAPS_NEED_GROUPS
			       : 0);
}

int daemon_reload(struct daemon *d, struct diag *diag)
{
	char missing[64];
	struct rules *rules;

	service_reloading();
	rules = load_rules(&d->options, &d->conf, diag);
	if (!rules) {
		service_ready("reload failed: the previous rules stay in "
			      "force");
		return -1;
	}
	if (!caps_cover(d->caps_kept, daemon_caps_needed(d, rules), missing,
			sizeof(missing))) {
		diag_error(diag, "rules", 0,
			   "the new rules need %s, which cpupolicyd gave up "
			   "at start; restart it to load them",
			   missing);
		goto fail;
	}
	if (ensure_topology(d, rules) < 0) {
		diag_error(diag, "rules", 0,
			   "the new rules place threads, but the CPU topology "
			   "cannot be read");
		goto fail;
	}
	daemon_events_update(d, rules);
	daemon_filter_update(d, rules);
	manage_set_rules(&d->manage, rules);
	ifeo_sync(d, rules);
	rules_free(d->rules);
	free(d->rules);
	d->rules = rules;
	restrain_reload(d);
	d->reloads++;
	service_trim(); /* the parse's peak is gone: give it back */
	log_info("rules reloaded: %zu rules in %zu files", rules->count,
		 rules->files_read);
	daemon_ready(rules);
	return 0;
fail:
	rules_free(rules);
	free(rules);
	service_ready("reload failed: the previous rules stay in force");
	return -1;
}

/* The events asked for follow what the daemon needs now: the rules'
 * (renames, changes of ids) and whether anything is managed (forks and
 * exits). The exec filter sends those of the processes it follows, so
 * that no other process's fork or exit wakes the daemon; while its map
 * is full, the proc connector's are asked for as well. Asked for before
 * a rule set comes into force, so that nothing between its first scan
 * and the subscription goes unseen. */
void daemon_events_update(struct daemon *d, const struct rules *rules)
{
	unsigned want = 0;

	if (d->tracking && (!d->execfilter || d->filter_full))
		want |= EVENTS_WANT_THREADS;
	if (!d->execfilter)
		want |= EVENTS_WANT_EXECS;
	/* Once per rule set: the first process a rule matches and the last
	 * one's end change what is asked for, at every short process. */
	if (rules != d->facts_of) {
		d->facts_used = match_facts_used(rules);
		d->facts_of = rules;
	}
	if ((d->facts_used & MATCH_FACT_COMM) && !d->renames_paused)
		want |= EVENTS_WANT_RENAMES;
	if ((d->facts_used & MATCH_FACT_CREDS) && !d->renames_paused)
		want |= EVENTS_WANT_IDS;
	if (!d->polling && events_want(&d->events, want) != OS_OK)
		log_warn("cannot change the process events subscribed");
}

/* The exec filter gone (its maps could not be written, its ring failed):
 * the proc connector's exec events again, from now on. */
void daemon_filter_drop(struct daemon *d, const char *why)
{
	log_warnx("%s: exec events from the proc connector from now on", why);
	loop_execs_gone(d);
	execfilter_close(d->execfilter);
	d->execfilter = NULL;
	execplan_free(&d->execplan);
	daemon_events_update(d, d->rules);
}

/* The kernel's maps follow the rules, written before the rules come into
 * force (the filter lets through a superset while both are there). */
void daemon_filter_update(struct daemon *d, const struct rules *rules)
{
	if (!d->execfilter)
		return;
	execplan_free(&d->execplan);
	execplan_build(&d->execplan, rules);
	if (d->execplan.all)
		log_info("rule '%s' (%s:%u) cannot be judged by the exec "
			 "filter in the kernel: every exec goes to the daemon",
			 d->execplan.all_rule, d->execplan.all_file,
			 d->execplan.all_line);
	if (execfilter_set(d->execfilter, &d->execplan) != OS_OK)
		daemon_filter_drop(d, "cannot write the exec filter's maps");
	else
		execplan_trim(&d->execplan); /* the kernel has them now */
}

/* events = auto or bpf: the filter, or the one line that says why not
 * (a warning when it was asked for by name). */
static void setup_execfilter(struct daemon *d)
{
	char why[512];

	if (d->conf.events != CONF_EVENTS_AUTO &&
	    d->conf.events != CONF_EVENTS_BPF)
		return;
	d->execfilter =
		execfilter_open(d->conf.filter_follow_max, why, sizeof(why));
	if (!d->execfilter) {
		if (!why[0])
			return; /* the system has none */
		if (d->conf.events == CONF_EVENTS_BPF)
			log_warnx("events = bpf, but no exec filter: %s; exec "
				  "events from the proc connector instead",
				  why);
		else
			log_info("no exec filter: %s; exec events from the "
				 "proc connector",
				 why);
		return;
	}
	daemon_filter_update(d, d->rules);
}

/* The process events: the proc connector (forks, exits, renames, and
 * execs without a filter), the exec filter, or neither (events = poll,
 * or no connector): then rescans do it all. */
static void setup_events(struct daemon *d)
{
	struct events_options opt = {d->conf.event_buffer_kb,
				     d->conf.events_poll_ms};
	enum os_status status;
	char why[512];

	if (d->conf.events == CONF_EVENTS_POLL) {
		log_info("events = poll: polling /proc every second");
		d->polling = true;
		d->manage.options.polling = true;
		return;
	}
	status = d->passed.events >= 0
			 ? events_adopt(&d->events, d->passed.events, &opt)
			 : events_open(&d->events, &opt);
	if (status != OS_OK) {
		events_why_not(&d->events, status, why, sizeof(why));
		log_warnx("no process events from the kernel: %s; polling "
			  "/proc every second instead",
			  why);
		d->polling = true;
		d->manage.options.polling = true;
		return;
	}
	setup_execfilter(d);
	/* Nothing is managed yet. */
	daemon_events_update(d, d->rules);
}

/* A map with no room sends every exec until there is room again (the
 * tick says so, and makes up for it): nothing to say here. */
static void follow_process(void *ctx, pid_t pid, unsigned how)
{
	struct daemon *d = ctx;
	bool added;

	if (d->execfilter &&
	    execfilter_follow(d->execfilter, (int)pid, loop_follow_how(how),
			      &added) != OS_OK)
		log_debug("the exec filter has no room to follow pid %d: "
			  "every exec goes to the daemon",
			  (int)pid);
}

static void track_threads(void *ctx, bool on)
{
	struct daemon *d = ctx;

	d->tracking = on;
	daemon_events_update(d, d->rules);
}

/* Before anything else: whatever an earlier run left changed (killed, or
 * crashed) goes back first. Without a usable journal no power setting is
 * ever changed, as it could not be restored. A state directory others may
 * write is fatal: a journal planted there would have root write it. */
static void setup_power(struct daemon *d)
{
	int restored;

	if (apply_power_open(&d->power, d->conf.state_dir) < 0) {
		if (d->power.journal.unsafe) {
			control_close(d); /* no socket file left behind */
			fatalx("not starting: the journal in %s is refused "
			       "(see above)",
			       d->conf.state_dir);
		}
		log_warnx("power settings will not be changed: no journal in "
			  "%s",
			  d->conf.state_dir);
	}
	d->power.reassert = d->conf.power_reassert;
	restored = apply_power_restore_all(&d->power);
	if (restored > 0)
		log_info("restored %d settings an earlier run left changed",
			 restored);
	else if (restored < 0)
		log_error("some settings an earlier run changed could not be "
			  "restored; the journal keeps them");
}

static void setup(struct daemon *d)
{
	struct diag diag;
	char caps[256];

	diag_init(&diag);
	if (load_conf(&d->options, &d->conf, &diag) < 0 || diag.errors) {
		diag_print(&diag, log_file(), true);
		exit(1);
	}
	log_set_level(d->conf.log_level);
	/* Once, before anything of the system is read: a reload keeps
	 * them. */
	paths_set_roots(d->conf.procfs, d->conf.sysfs, d->conf.dev);
	/* Sockets a service manager passed (socket activation). */
	service_take_passed(&d->passed);
	/* First of all, refuse to run beside another daemon: it would have
	 * its held settings "restored" from under it. */
	if (service_claim(&d->conf) != OS_OK)
		exit(1);
	if (control_open(d) < 0)
		fatalx("not starting: no control socket on %s", d->conf.socket);
	/* Then what an earlier run left changed goes back: it needs only
	 * the state directory, and must not wait for rules that may not
	 * load (a broken rule file after a crash). */
	setup_power(d);
	if (!(d->rules = load_rules(&d->options, &d->conf, &diag))) {
		diag_print(&diag, log_file(), true);
		control_close(d);
		exit(1);
	}
	diag_print(&diag, log_file(), true);
	diag_free(&diag);
	service_trim(); /* the parse's peak is gone: give it back */
	manage_init(&d->manage,
		    &(struct manage_options){
			    .dry_run = d->conf.dry_run,
			    .respect_changes = d->conf.respect_changes,
			    .polling = false,
			    .tracking = track_threads,
			    .hold = hold_update,
			    .follow = follow_process,
			    .hook_ctx = d,
		    },
		    NULL);
	if (ensure_topology(d, d->rules) < 0)
		exit(1);
	setup_events(d);
	if (d->conf.self_realtime)
		service_self_realtime();
	restrain_setup(d);
	d->caps_kept = daemon_caps_needed(d, d->rules);
	if (caps_keep_only(d->caps_kept) != OS_OK)
		fatalx("cannot drop capabilities: not running with more "
		       "privileges than the rules need");
	caps_describe(d->caps_kept, caps, sizeof(caps));
	if (loop_setup(d) != OS_OK)
		fatal("cannot set up the event loop");
	d->started_ns = timing_now_ns();
	log_info("cpupolicyd %s: %zu rules in %zu files, events from %s, "
		 "capabilities kept: %s%s",
		 CPUPOLICY_VERSION, d->rules->count, d->rules->files_read,
		 loop_events_source(d), caps,
		 d->conf.dry_run ? " (dry run: nothing is changed)" : "");
	hold_apply(d); /* the config's base policy */
	manage_set_rules(&d->manage, d->rules);
	ifeo_sync(d, d->rules);
	/* The parse, the filter's plan and the index's tables as they grew
	 * are freed: given back, as after a reload. */
	service_trim();
	daemon_ready(d->rules);
}

static void teardown(struct daemon *d)
{
	restrain_teardown(d);	      /* every restrained process back */
	ifeo_sync(d, NULL);	      /* nothing raised while nobody checks */
	apply_power_close(&d->power); /* every original back */
	free(d->holds);
	loop_teardown(d);
	control_close(d);
	events_close(&d->events);
	execfilter_close(d->execfilter);
	execplan_free(&d->execplan);
	manage_free(&d->manage);
	pidmap_free(&d->renamed);
	if (d->have_topology)
		place_topology_free(&d->topology);
	rules_free(d->rules);
	free(d->rules);
	conf_free(&d->conf);
	free(d->options.rules_dirs);
}

/* The daemon's life, from set-up to the last restore. */
static int daemon_run(struct daemon *d)
{
	int status;

	setup(d);
	status = loop_run(d) == OS_OK ? 0 : 1;
	service_stopping();
	log_info("stopped");
	teardown(d);
	return status;
}

int main(int argc, char **argv)
{
	struct daemon d = {
		.passed = {.events = -1, .control = -1},
	};
	int status;

	events_init(&d.events); /* closed, however the start ends */
	log_init("cpupolicyd", LOG_LEVEL_INFO);
	system_args(&argc, &argv);
	/* Before anything is opened or replayed: a TERM or HUP during the
	 * start waits for the loop, which stops or reloads cleanly. */
	if (loop_prepare() != OS_OK)
		fatal("cannot block signals");
	if (service_command(argc, argv, &status))
		return status;
	d.options.conf_path = paths_conf_file();
	parse_options(argc, argv, &d.options);
	if (d.options.check_only) {
		status = check_configuration(&d.options);
		free(d.options.rules_dirs);
		return status;
	}
	return service_run(&d, daemon_run);
}
