/* Daemon config: every setting, and each kind of mistake on its line.
 * Linux's: its socket path limit, the root group and '/' paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "conf.h"
#include "os.h"

struct conf_case {
	const char *name;
	const char *text;
	size_t errors;
	unsigned line;
	const char *message;
};

static const struct conf_case conf_cases[] = {
	{"empty file", "", 0, 0, NULL},
	{"every setting",
	 "[daemon]\nrules_dirs = /a:/b\nsocket = /run/x.sock\nsocket_group = "
	 "root\nstate_dir = /var/lib/x\nrescan_interval_ms = 500\nlog_level = "
	 "debug\ndry_run = yes\nrespect_changes = no\nself_realtime = "
	 "yes\ngroup_may_reload = on\nbatch_ms = 5\nevent_buffer_kb = 64\n"
	 "events_poll_ms = 100\nifeo_perf_options = all\nevents = bpf\n"
	 "filter_follow_max = 1024\n"
	 "[paths]\nsysfs = "
	 "/tmp/sys\nprocfs = /tmp/proc\n",
	 0, 0, NULL},
	{"comments and indentation",
	 "# top\n; also\n[daemon] # section\n  log_level = warning   # inline\n"
	 "\tdry_run = off ; inline\n",
	 0, 0, NULL},
	{"unknown section", "[daemon]\n[deamon]\nlog_level = info\n", 1, 2,
	 "unknown section [deamon] (valid: daemon, paths, power, restraint)"},
	{"unknown key", "[daemon]\nlog_level = info\nloglevel = info\n", 1, 3,
	 "unknown key 'loglevel' in [daemon]"},
	{"key in the wrong section", "[paths]\nsocket = /x\n", 1, 2,
	 "unknown key 'socket' in [paths]"},
	{"key outside sections", "log_level = info\n", 1, 1,
	 "outside any section"},
	{"duplicate key", "[daemon]\ndry_run = 1\n\ndry_run = 0\n", 1, 4,
	 "dry_run is already set on line 2"},
	{"not a key line", "[daemon]\nlog_level info\n", 1, 2,
	 "expected 'key = value' or '[section]'"},
	{"malformed section", "[daemon\n", 1, 1, "malformed section header"},
	{"relative rules dir", "[daemon]\nrules_dirs = /a:rules\n", 1, 2,
	 "rules_dirs: 'rules' is not an absolute path"},
	{"empty rules dirs", "[daemon]\nrules_dirs =\n", 1, 2,
	 "needs at least one directory"},
	{"rules dirs of colons only", "[daemon]\nrules_dirs = ::\n", 1, 2,
	 "needs at least one directory"},
	{"relative socket", "[daemon]\nsocket = x.sock\n", 1, 2,
	 "socket: 'x.sock' is not an absolute path"},
	{"socket path too long",
	 "[daemon]\nsocket = /"
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
	 1, 2, "socket: path longer than 107 characters"},
	{"unknown socket group", "[daemon]\nsocket_group = no-such-group-x\n",
	 1, 2, "socket_group: unknown group 'no-such-group-x'"},
	{"rescan too short", "[daemon]\nrescan_interval_ms = 50\n", 1, 2,
	 "rescan_interval_ms: '50' is not 0 (off) or a number"},
	{"rescan not a number", "[daemon]\nrescan_interval_ms = 1s\n", 1, 2,
	 "rescan_interval_ms: '1s'"},
	{"rescan negative", "[daemon]\nrescan_interval_ms = -1\n", 1, 2,
	 "rescan_interval_ms: '-1'"},
	{"bad log level", "[daemon]\nlog_level = loud\n", 1, 2,
	 "log_level: 'loud' is not valid"},
	{"bad boolean", "[daemon]\ndry_run = maybe\n", 1, 2,
	 "dry_run: 'maybe' is not a boolean"},
	{"event buffer too small", "[daemon]\nevent_buffer_kb = 1\n", 1, 2,
	 "event_buffer_kb: '1' is not a size in KiB from 4 to 262144"},
	{"batch too long", "[daemon]\nbatch_ms = 101\n", 1, 2,
	 "batch_ms: '101' is not a number of milliseconds from 0 to 100"},
	{"filter follows too few", "[daemon]\nfilter_follow_max = 15\n", 1, 2,
	 "filter_follow_max: '15' is not a number of processes from 16 to "
	 "4194304"},
	{"filter follows too many", "[daemon]\nfilter_follow_max = 4194305\n",
	 1, 2, "filter_follow_max: '4194305' is not a number of processes"},
	{"power base policy",
	 "[power]\nparking = off\nmin_online = 50\nidle_latency_us = 10\n"
	 "governor = performance\nepp = balance_performance\nprofile = "
	 "balanced\nturbo = true\nreassert = yes\nparking_latency_us = 5\n",
	 0, 0, NULL},
	{"bad power governor", "[power]\ngovernor = turbo\n", 1, 2,
	 "governor: 'turbo' is not valid (valid: performance,"},
	{"power min_online over 100", "[power]\nmin_online = 101\n", 1, 2,
	 "min_online: '101' is not a number from 0 to 100"},
	{"unknown power key", "[power]\nparkin = off\n", 1, 2,
	 "unknown key 'parkin' in [power]"},
	{"bad respect_changes", "[daemon]\nrespect_changes = sometimes\n", 1, 2,
	 "respect_changes: 'sometimes' is not a boolean"},
	{"relative sysfs", "[paths]\nsysfs = sys\n", 1, 2,
	 "sysfs: 'sys' is not an absolute path"},
	{"bad ifeo mode", "[daemon]\nifeo_perf_options = raising\n", 1, 2,
	 "ifeo_perf_options: 'raising' is not valid (valid: off, lowering, "
	 "all)"},
	{"bad events source", "[daemon]\nevents = ebpf\n", 1, 2,
	 "events: 'ebpf' is not valid (valid: auto, bpf, netlink, poll)"},
	{"events source poll", "[daemon]\nevents = poll\n", 0, 0, NULL},
	{"events poll too short", "[daemon]\nevents_poll_ms = 5\n", 1, 2,
	 "events_poll_ms: '5' is not a number of milliseconds from 10 to "
	 "10000"},
	{"relative state dir", "[daemon]\nstate_dir = state\n", 1, 2,
	 "state_dir: 'state' is not an absolute path"},
	{"line too long",
	 "[daemon]\nrules_dirs = /"
	 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	 "\nlog_level = x\n",
	 2, 2, "line longer than"},
	{"restraint, every key",
	 "[restraint]\nenabled = true\nshare_pct = 20\nqualify_ms = 1000\n"
	 "release_pct = 4\ncalm_ms = 2000\nhold_ms = 4000\nper_minute = 2\n"
	 "pressure_pct = 20\nsample_ms = 200\nnice = 15\npolicy = idle\n"
	 "io_class = idle\nio_level = 3\nclass = idle\nefficiency_mode = "
	 "on\nsystem = yes\nexempt = mpv, obs\n",
	 0, 0, NULL},
	{"restraint share over 100", "[restraint]\nshare_pct = 101\n", 1, 2,
	 "share_pct: '101' is not a percentage from 1 to 100"},
	{"restraint raising nice", "[restraint]\nnice = -5\n", 1, 2,
	 "nice: '-5' is not a nice value from 0 to 19"},
	{"restraint raising policy", "[restraint]\npolicy = fifo\n", 1, 2,
	 "policy: 'fifo' does not lower a process"},
	{"restraint unknown class", "[restraint]\nclass = low\n", 1, 2,
	 "class: 'low' is not valid (valid:"},
	{"restraint unknown key", "[restraint]\nenable = true\n", 1, 2,
	 "unknown key 'enable' in [restraint]"},
	{"restraint duplicate key",
	 "[restraint]\nenabled = true\nenabled = false\n", 1, 3,
	 "enabled is already set on line 2"},
	{"restraint release over share",
	 "[daemon]\n[restraint]\nshare_pct = 10\nrelease_pct = 10\n", 1, 2,
	 "[restraint]: release_pct (10) must be under share_pct (10)"},
	{"restraint samples slower than qualifying",
	 "[restraint]\nqualify_ms = 300\nsample_ms = 400\n", 1, 1,
	 "sample_ms (400) must not be over qualify_ms (300)"},
	{"restraint exempt name too long",
	 "[restraint]\nexempt = pipewire, a-name-longer-than-fifteen\n", 1, 2,
	 "exempt: 'a-name-longer-than-fifteen' is longer than a process name"},
	{"all errors reported", "[daemon]\nfoo = 1\nlog_level = x\n[bar]\n", 3,
	 2, "unknown key 'foo'"},
};

static void test_conf_case(void **state)
{
	const struct conf_case *c = *state;
	struct conf conf;
	struct diag diag;

	conf_init(&conf);
	diag_init(&diag);
	conf_load_text(&conf, "t.conf", c->text, strlen(c->text), &diag);
	if (diag.errors != c->errors) {
		diag_print(&diag, stderr, true);
		fail_msg("%s: %zu errors, expected %zu", c->name, diag.errors,
			 c->errors);
	}
	if (c->message) {
		assert_int_equal(diag.entries[0].line, c->line);
		if (!strstr(diag.entries[0].message, c->message))
			fail_msg("%s: got '%s', expected '%s'", c->name,
				 diag.entries[0].message, c->message);
	}
	diag_free(&diag);
	conf_free(&conf);
}

static void test_defaults(void **state)
{
	struct conf conf;

	(void)state;
	conf_init(&conf);
	/* The system's own places (Linux's: /usr/share, /etc, /run). */
	assert_true(conf.rules_dir_count >= 1);
	assert_true(paths_absolute(conf.rules_dirs[0]));
	assert_non_null(strstr(paths_rules_dirs(), conf.rules_dirs[0]));
	assert_string_equal(conf.socket, paths_endpoint());
	assert_null(conf.socket_group);
	assert_string_equal(conf.state_dir, paths_state_dir());
	assert_int_equal(conf.events_poll_ms, 250);
	assert_int_equal(conf.ifeo_mode, IFEO_MODE_LOWERING);
	assert_int_equal(conf.events, CONF_EVENTS_AUTO);
	assert_int_equal(conf.rescan_interval_ms, 10000);
	assert_int_equal(conf.log_level, LOG_LEVEL_INFO);
	assert_false(conf.dry_run);
	assert_true(conf.respect_changes);
	assert_true(conf.self_realtime);
	assert_false(conf.group_may_reload);
	/* No roots of its own: the backend's stand (paths_set_roots). */
	assert_null(conf.sysfs);
	assert_null(conf.procfs);
	assert_null(conf.dev);
	conf_free(&conf);
}

static void test_values(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf[daemon]\nrules_dirs = /a:/b::/c\nsocket_group = "
		"root\nrescan_interval_ms = 0\nlog_level = ERROR\ndry_run = "
		"TRUE\nbatch_ms = 7\nself_realtime = 0\n[paths]\nprocfs = "
		"/tmp/p # fake\n";
	struct conf conf;
	struct diag diag;

	(void)state;
	conf_init(&conf);
	diag_init(&diag);
	conf_load_text(&conf, "t.conf", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(conf.rules_dir_count, 3);
	assert_string_equal(conf.rules_dirs[2], "/c");
	assert_string_equal(conf.socket_group, "root");
	assert_int_equal(conf.socket_gid, 0);
	assert_int_equal(conf.rescan_interval_ms, 0);
	assert_int_equal(conf.log_level, LOG_LEVEL_ERROR);
	assert_true(conf.dry_run);
	assert_int_equal(conf.batch_ms, 7);
	assert_false(conf.self_realtime);
	assert_string_equal(conf.procfs, "/tmp/p");
	diag_free(&diag);
	conf_free(&conf);
}

/* A bad value leaves the default in place rather than half a value. */
static void test_power_values(void **state)
{
	static const char text[] = "[power]\nparking = off\nmin_online = "
				   "50\ngovernor = performance\nturbo = "
				   "false\nreassert = true\n[paths]\ndev = "
				   "/tmp/dev\n";
	struct conf conf;
	struct diag diag;

	(void)state;
	conf_init(&conf);
	diag_init(&diag);
	conf_load_text(&conf, "t.conf", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(conf.base_power.parking, RULE_PARKING_OFF);
	assert_int_equal(conf.base_power.min_online, 50);
	assert_int_equal(conf.base_power.idle_latency_us, -1);
	assert_string_equal(conf.base_power.governor, "performance");
	assert_null(conf.base_power.epp);
	assert_int_equal(conf.base_power.turbo, RULE_TURBO_OFF);
	assert_true(conf.power_reassert);
	assert_int_equal(conf.parking_latency_us, 20);
	assert_string_equal(conf.dev, "/tmp/dev");
	diag_free(&diag);
	conf_free(&conf);
}

/* Off by default, with the defaults a desktop keeps; the file's values
 * replace them, the exempt list whole. */
static void test_restraint_values(void **state)
{
	static const char text[] = "[restraint]\nenabled = true\nnice = "
				   "15\nexempt = mpv obs\n";
	struct conf conf;
	struct diag diag;

	(void)state;
	conf_init(&conf);
	assert_false(conf.restraint.enabled);
	assert_int_equal(conf.restraint.limits.share_pct, 15);
	assert_int_equal(conf.restraint.lowering.nice, 10);
	assert_int_equal(conf.restraint.lowering.policy, RULE_POLICY_BATCH);
	assert_string_equal(conf.restraint.exempt[0], "Xorg");
	diag_init(&diag);
	conf_load_text(&conf, "t.conf", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	assert_true(conf.restraint.enabled);
	assert_int_equal(conf.restraint.lowering.nice, 15);
	assert_int_equal(conf.restraint.lowering.io_level, 7);
	assert_int_equal(conf.restraint.exempt_count, 2);
	assert_string_equal(conf.restraint.exempt[1], "obs");
	diag_free(&diag);
	conf_free(&conf);
}

static void test_bad_value_keeps_default(void **state)
{
	static const char text[] = "[daemon]\nrules_dirs = /a:b\n";
	struct conf conf;
	struct diag diag;

	(void)state;
	conf_init(&conf);
	diag_init(&diag);
	conf_load_text(&conf, "t.conf", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 1);
	assert_int_equal(conf.rules_dir_count, 2);
	diag_free(&diag);
	conf_free(&conf);
}

static void test_missing_file(void **state)
{
	struct conf conf;
	struct diag diag;

	(void)state;
	conf_init(&conf);
	diag_init(&diag);
	assert_int_equal(
		conf_load_file(&conf, "/nonexistent/x.conf", false, &diag), 0);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(
		conf_load_file(&conf, "/nonexistent/x.conf", true, &diag), -1);
	assert_int_equal(diag.errors, 1);
	assert_non_null(strstr(diag.entries[0].message, "cannot read"));
	diag_free(&diag);
	conf_free(&conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bad_value_keeps_default),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_power_values),
		cmocka_unit_test(test_restraint_values),
	};

	return unit_run("conf", UNIT_TABLE(conf_cases, test_conf_case),
			UNIT_TESTS(tests), NULL, NULL);
}
