/* The daemon's configuration (INI, read with inih). The distribution's
 * inih does not pass line numbers to the handler, so lines are fed to it
 * one at a time from here (ini_parse_stream) and counted on the way; this
 * reader also checks the line syntax and section names itself, so every
 * problem is reported, not only the first. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>

#include <ini.h>

#include "conf.h"
#include "os.h"
#include "util.h"
#include "winpower.h"

enum conf_section {
	CONF_SECTION_NONE,
	CONF_SECTION_DAEMON,
	CONF_SECTION_PATHS,
	CONF_SECTION_POWER,
	CONF_SECTION_RESTRAINT,
	CONF_SECTION_UNKNOWN,
};

static const char *const conf_section_names[] = {
	[CONF_SECTION_NONE] = "",
	[CONF_SECTION_DAEMON] = "daemon",
	[CONF_SECTION_PATHS] = "paths",
	[CONF_SECTION_POWER] = "power",
	[CONF_SECTION_RESTRAINT] = "restraint",
	[CONF_SECTION_UNKNOWN] = "unknown",
};

enum conf_key {
	CONF_KEY_RULES_DIRS,
	CONF_KEY_SOCKET,
	CONF_KEY_SOCKET_GROUP,
	CONF_KEY_STATE_DIR,
	CONF_KEY_RESCAN_INTERVAL_MS,
	CONF_KEY_LOG_LEVEL,
	CONF_KEY_DRY_RUN,
	CONF_KEY_RESPECT_CHANGES,
	CONF_KEY_SELF_REALTIME,
	CONF_KEY_GROUP_MAY_RELOAD,
	CONF_KEY_BATCH_MS,
	CONF_KEY_EVENT_BUFFER_KB,
	CONF_KEY_EVENTS_POLL_MS,
	CONF_KEY_IFEO_PERF_OPTIONS,
	CONF_KEY_EVENTS,
	CONF_KEY_FILTER_FOLLOW_MAX,
	CONF_KEY_SYSFS,
	CONF_KEY_PROCFS,
	CONF_KEY_DEV,
	CONF_KEY_PARKING,
	CONF_KEY_MIN_ONLINE,
	CONF_KEY_IDLE_LATENCY_US,
	CONF_KEY_GOVERNOR,
	CONF_KEY_EPP,
	CONF_KEY_PROFILE,
	CONF_KEY_TURBO,
	CONF_KEY_PLAN,
	CONF_KEY_REASSERT,
	CONF_KEY_PARKING_LATENCY_US,
	CONF_KEY_COUNT,
};

static const struct {
	enum conf_section section;
	const char *name;
} conf_keys[] = {
	[CONF_KEY_RULES_DIRS] = {CONF_SECTION_DAEMON, "rules_dirs"},
	[CONF_KEY_SOCKET] = {CONF_SECTION_DAEMON, "socket"},
	[CONF_KEY_SOCKET_GROUP] = {CONF_SECTION_DAEMON, "socket_group"},
	[CONF_KEY_STATE_DIR] = {CONF_SECTION_DAEMON, "state_dir"},
	[CONF_KEY_RESCAN_INTERVAL_MS] = {CONF_SECTION_DAEMON,
					 "rescan_interval_ms"},
	[CONF_KEY_LOG_LEVEL] = {CONF_SECTION_DAEMON, "log_level"},
	[CONF_KEY_DRY_RUN] = {CONF_SECTION_DAEMON, "dry_run"},
	[CONF_KEY_RESPECT_CHANGES] = {CONF_SECTION_DAEMON, "respect_changes"},
	[CONF_KEY_SELF_REALTIME] = {CONF_SECTION_DAEMON, "self_realtime"},
	[CONF_KEY_GROUP_MAY_RELOAD] = {CONF_SECTION_DAEMON, "group_may_reload"},
	[CONF_KEY_BATCH_MS] = {CONF_SECTION_DAEMON, "batch_ms"},
	[CONF_KEY_EVENT_BUFFER_KB] = {CONF_SECTION_DAEMON, "event_buffer_kb"},
	[CONF_KEY_EVENTS_POLL_MS] = {CONF_SECTION_DAEMON, "events_poll_ms"},
	[CONF_KEY_IFEO_PERF_OPTIONS] = {CONF_SECTION_DAEMON,
					"ifeo_perf_options"},
	[CONF_KEY_EVENTS] = {CONF_SECTION_DAEMON, "events"},
	[CONF_KEY_FILTER_FOLLOW_MAX] = {CONF_SECTION_DAEMON,
					"filter_follow_max"},
	[CONF_KEY_SYSFS] = {CONF_SECTION_PATHS, "sysfs"},
	[CONF_KEY_PROCFS] = {CONF_SECTION_PATHS, "procfs"},
	[CONF_KEY_DEV] = {CONF_SECTION_PATHS, "dev"},
	[CONF_KEY_PARKING] = {CONF_SECTION_POWER, "parking"},
	[CONF_KEY_MIN_ONLINE] = {CONF_SECTION_POWER, "min_online"},
	[CONF_KEY_IDLE_LATENCY_US] = {CONF_SECTION_POWER, "idle_latency_us"},
	[CONF_KEY_GOVERNOR] = {CONF_SECTION_POWER, "governor"},
	[CONF_KEY_EPP] = {CONF_SECTION_POWER, "epp"},
	[CONF_KEY_PROFILE] = {CONF_SECTION_POWER, "profile"},
	[CONF_KEY_TURBO] = {CONF_SECTION_POWER, "turbo"},
	[CONF_KEY_PLAN] = {CONF_SECTION_POWER, "plan"},
	[CONF_KEY_REASSERT] = {CONF_SECTION_POWER, "reassert"},
	[CONF_KEY_PARKING_LATENCY_US] = {CONF_SECTION_POWER,
					 "parking_latency_us"},
};

const char *const conf_events_names[CONF_EVENTS_COUNT] = {
	[CONF_EVENTS_AUTO] = "auto",
	[CONF_EVENTS_BPF] = "bpf",
	[CONF_EVENTS_NETLINK] = "netlink",
	[CONF_EVENTS_POLL] = "poll",
};

struct conf_parser {
	struct conf *conf;
	const char *path;
	struct diag *diag;
	const char *text;
	size_t len, pos;
	unsigned line;
	enum conf_section section;
	unsigned key_lines[CONF_KEY_COUNT];
	/* [restraint]'s keys (conf_restraint.c), and its header's line. */
	unsigned restraint_lines[32];
	unsigned restraint_line;
};

void conf_set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? xstrdup(value) : NULL;
}

static void conf_clear_rules_dirs(struct conf *conf)
{
	for (size_t i = 0; i < conf->rules_dir_count; i++)
		free(conf->rules_dirs[i]);
	free(conf->rules_dirs);
	conf->rules_dirs = NULL;
	conf->rules_dir_count = 0;
}

void conf_add_rules_dir(struct conf *conf, const char *dir)
{
	conf->rules_dirs =
		xreallocarray(conf->rules_dirs, conf->rules_dir_count + 1,
			      sizeof(*conf->rules_dirs));
	conf->rules_dirs[conf->rules_dir_count++] = xstrdup(dir);
}

/* Separated by ':' (on Windows ';': see paths.c). */
void conf_set_rules_dirs(struct conf *conf, const char *colon_list)
{
	const char *sep = paths_list_separators();
	char *copy = xstrdup(colon_list), *save = NULL;

	conf_clear_rules_dirs(conf);
	for (char *dir = strtok_r(copy, sep, &save); dir;
	     dir = strtok_r(NULL, sep, &save))
		conf_add_rules_dir(conf, dir);
	free(copy);
}

void conf_init(struct conf *conf)
{
	*conf = (struct conf){
		.rescan_interval_ms = CONF_DEFAULT_RESCAN_MS,
		.log_level = LOG_LEVEL_INFO,
		.respect_changes = true,
		.self_realtime = true,
		.base_power = {.min_online = -1, .idle_latency_us = -1},
		.parking_latency_us = CONF_DEFAULT_PARKING_LATENCY_US,
		.event_buffer_kb = CONF_DEFAULT_EVENT_BUFFER_KB,
		.events_poll_ms = CONF_DEFAULT_EVENTS_POLL_MS,
		.filter_follow_max = CONF_DEFAULT_FILTER_FOLLOW_MAX,
		.ifeo_mode = IFEO_MODE_LOWERING,
	};
	conf_restraint_init(&conf->restraint);
	conf_set_rules_dirs(conf, paths_rules_dirs());
	conf_set_string(&conf->socket, paths_endpoint());
	conf_set_string(&conf->state_dir, paths_state_dir());
}

void conf_free(struct conf *conf)
{
	conf_clear_rules_dirs(conf);
	free(conf->socket);
	free(conf->socket_group);
	free(conf->state_dir);
	free(conf->sysfs);
	free(conf->procfs);
	free(conf->dev);
	conf_restraint_free(&conf->restraint);
	*conf = (struct conf){0};
}

static bool conf_absolute(struct conf_parser *p, const char *key,
			  const char *value)
{
	if (paths_absolute(value))
		return true;
	diag_error(p->diag, p->path, p->line,
		   "%s: '%.64s' is not an absolute path", key, value);
	return false;
}

int conf_parse_bool(const char *value, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(value, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(value, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static void conf_bool(struct conf_parser *p, const char *key, const char *value,
		      bool *out)
{
	if (conf_parse_bool(value, out) < 0)
		diag_error(p->diag, p->path, p->line,
			   "%s: '%.64s' is not a boolean (true or false)", key,
			   value);
}

static void conf_rules_dirs(struct conf_parser *p, const char *value)
{
	const char *sep = paths_list_separators();
	char *copy = xstrdup(value), *save = NULL;
	size_t count = 0;
	bool ok = true;

	for (char *dir = strtok_r(copy, sep, &save); dir;
	     dir = strtok_r(NULL, sep, &save), count++)
		ok = conf_absolute(p, "rules_dirs", dir) && ok;
	free(copy);
	if (!count) {
		diag_error(p->diag, p->path, p->line,
			   "rules_dirs: needs at least one directory");
		ok = false;
	}
	if (ok)
		conf_set_rules_dirs(p->conf, value);
}

/* A path on Linux, a pipe's name on Windows (paths.c says which). */
static void conf_socket(struct conf_parser *p, const char *value)
{
	char why[128];

	if (!paths_endpoint_valid(value, why, sizeof(why))) {
		diag_error(p->diag, p->path, p->line, "socket: '%.64s' %s",
			   value, why);
		return;
	}
	if (strlen(value) > endpoint_path_max()) {
		diag_error(p->diag, p->path, p->line,
			   "socket: path longer than %zu characters",
			   endpoint_path_max());
		return;
	}
	conf_set_string(&p->conf->socket, value);
}

static void conf_socket_group(struct conf_parser *p, const char *value)
{
	unsigned gid;

	if (!*value) {
		conf_set_string(&p->conf->socket_group, NULL);
		p->conf->socket_gid = 0;
		return;
	}
	if (!accounts_group(value, &gid)) {
		diag_error(p->diag, p->path, p->line,
			   "socket_group: unknown group '%.64s'", value);
		return;
	}
	conf_set_string(&p->conf->socket_group, value);
	p->conf->socket_gid = gid;
}

/* A decimal number up to max: 0, else -1 (a sign, a unit or an
 * overflow). */
int conf_number(const char *value, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(value, &end, 10);
	return isdigit((unsigned char)value[0]) && !*end && !errno &&
			       *out <= max
		       ? 0
		       : -1;
}

static void conf_rescan(struct conf_parser *p, const char *value)
{
	unsigned long ms;

	if (conf_number(value, CONF_MAX_RESCAN_MS, &ms) < 0 ||
	    (ms != 0 && ms < CONF_MIN_RESCAN_MS)) {
		diag_error(p->diag, p->path, p->line,
			   "rescan_interval_ms: '%.64s' is not 0 (off) or a "
			   "number of milliseconds from %d to %d",
			   value, CONF_MIN_RESCAN_MS, CONF_MAX_RESCAN_MS);
		return;
	}
	p->conf->rescan_interval_ms = (unsigned)ms;
}

static void conf_batch(struct conf_parser *p, const char *value)
{
	unsigned long ms;

	if (conf_number(value, CONF_MAX_BATCH_MS, &ms) < 0) {
		diag_error(p->diag, p->path, p->line,
			   "batch_ms: '%.64s' is not a number of milliseconds "
			   "from 0 to %d",
			   value, CONF_MAX_BATCH_MS);
		return;
	}
	p->conf->batch_ms = (unsigned)ms;
}

static void conf_event_buffer(struct conf_parser *p, const char *value)
{
	unsigned long kb;

	if (conf_number(value, CONF_MAX_EVENT_BUFFER_KB, &kb) < 0 ||
	    kb < CONF_MIN_EVENT_BUFFER_KB) {
		diag_error(p->diag, p->path, p->line,
			   "event_buffer_kb: '%.64s' is not a size in KiB from "
			   "%d to %d",
			   value, CONF_MIN_EVENT_BUFFER_KB,
			   CONF_MAX_EVENT_BUFFER_KB);
		return;
	}
	p->conf->event_buffer_kb = (unsigned)kb;
}

static void conf_events_poll(struct conf_parser *p, const char *value)
{
	unsigned long ms;

	if (conf_number(value, CONF_MAX_EVENTS_POLL_MS, &ms) < 0 ||
	    ms < CONF_MIN_EVENTS_POLL_MS) {
		diag_error(p->diag, p->path, p->line,
			   "events_poll_ms: '%.64s' is not a number of "
			   "milliseconds from %d to %d",
			   value, CONF_MIN_EVENTS_POLL_MS,
			   CONF_MAX_EVENTS_POLL_MS);
		return;
	}
	p->conf->events_poll_ms = (unsigned)ms;
}

static void conf_filter_follow(struct conf_parser *p, const char *value)
{
	unsigned long n;

	if (conf_number(value, CONF_MAX_FILTER_FOLLOW_MAX, &n) < 0 ||
	    n < CONF_MIN_FILTER_FOLLOW_MAX) {
		diag_error(p->diag, p->path, p->line,
			   "filter_follow_max: '%.64s' is not a number of "
			   "processes from %d to %d",
			   value, CONF_MIN_FILTER_FOLLOW_MAX,
			   CONF_MAX_FILTER_FOLLOW_MAX);
		return;
	}
	p->conf->filter_follow_max = (unsigned)n;
}

static void conf_ifeo(struct conf_parser *p, const char *value)
{
	static const char *const modes[] = {
		[IFEO_MODE_OFF] = "off",
		[IFEO_MODE_LOWERING] = "lowering",
		[IFEO_MODE_ALL] = "all",
	};

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if (strcmp(value, modes[i]) == 0) {
			p->conf->ifeo_mode = (enum ifeo_mode)i;
			return;
		}
	}
	diag_error(p->diag, p->path, p->line,
		   "ifeo_perf_options: '%.64s' is not valid (valid: off, "
		   "lowering, all)",
		   value);
}

static void conf_events(struct conf_parser *p, const char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(conf_events_names); i++) {
		if (strcmp(value, conf_events_names[i]) == 0) {
			p->conf->events = (enum conf_events)i;
			return;
		}
	}
	diag_error(p->diag, p->path, p->line,
		   "events: '%.64s' is not valid (valid: auto, bpf, netlink, "
		   "poll)",
		   value);
}

/* A word of the rule language's power keys: the same names are valid. */
static void conf_power_word(struct conf_parser *p, const char *key,
			    const char *value, enum rules_enum which,
			    const char **out)
{
	char valid[256];
	int index = rules_enum_lookup(which, value);

	if (index < 0) {
		rules_enum_list(which, valid, sizeof(valid));
		diag_error(p->diag, p->path, p->line,
			   "%s: '%.64s' is not valid (valid: %s)", key, value,
			   valid);
		return;
	}
	*out = rules_enum_name(which, index);
}

static void conf_power_number(struct conf_parser *p, const char *key,
			      const char *value, unsigned long max, long *out)
{
	unsigned long n;

	if (conf_number(value, max, &n) < 0) {
		diag_error(p->diag, p->path, p->line,
			   "%s: '%.64s' is not a number from 0 to %lu", key,
			   value, max);
		return;
	}
	*out = (long)n;
}

static void conf_power(struct conf_parser *p, enum conf_key key,
		       const char *value)
{
	struct rule_power *base = &p->conf->base_power;
	const char *word = NULL;
	long number = -1;
	bool flag;

	switch (key) {
	case CONF_KEY_PARKING:
		conf_power_word(p, "parking", value, RULES_ENUM_PARKING, &word);
		if (word)
			base->parking = (enum rule_parking)rules_enum_lookup(
				RULES_ENUM_PARKING, word);
		break;
	case CONF_KEY_MIN_ONLINE:
		conf_power_number(p, "min_online", value, 100, &number);
		if (number >= 0)
			base->min_online = (int)number;
		break;
	case CONF_KEY_IDLE_LATENCY_US:
		conf_power_number(p, "idle_latency_us", value, INT32_MAX,
				  &number);
		if (number >= 0)
			base->idle_latency_us = number;
		break;
	case CONF_KEY_GOVERNOR:
		conf_power_word(p, "governor", value, RULES_ENUM_GOVERNOR,
				&word);
		if (word)
			base->governor = word;
		break;
	case CONF_KEY_EPP:
		conf_power_word(p, "epp", value, RULES_ENUM_EPP, &word);
		if (word)
			base->epp = word;
		break;
	case CONF_KEY_PROFILE:
		conf_power_word(p, "profile", value, RULES_ENUM_PROFILE, &word);
		if (word)
			base->profile = word;
		break;
	case CONF_KEY_TURBO:
		if (conf_parse_bool(value, &flag) < 0)
			diag_error(p->diag, p->path, p->line,
				   "turbo: '%.64s' is not a boolean (true or "
				   "false)",
				   value);
		else
			base->turbo = flag ? RULE_TURBO_ON : RULE_TURBO_OFF;
		break;
	case CONF_KEY_PLAN:
		/* Windows only, as in the rules; Linux plans nothing for it. */
		if (!winpower_plan_parse(value, base->plan, sizeof(base->plan)))
			diag_error(p->diag, p->path, p->line,
				   "plan: '%.64s' is not a power plan (valid: "
				   "ultimate-performance, high-performance, "
				   "balanced, power-saver, or a scheme's GUID)",
				   value);
		break;
	case CONF_KEY_REASSERT:
		conf_bool(p, "reassert", value, &p->conf->power_reassert);
		break;
	case CONF_KEY_PARKING_LATENCY_US:
		conf_power_number(p, "parking_latency_us", value, INT32_MAX,
				  &number);
		if (number >= 0)
			p->conf->parking_latency_us = number;
		break;
	default:
		break;
	}
}

static void conf_apply(struct conf_parser *p, enum conf_key key,
		       const char *value)
{
	struct conf *conf = p->conf;

	switch (key) {
	case CONF_KEY_RULES_DIRS:
		conf_rules_dirs(p, value);
		break;
	case CONF_KEY_SOCKET:
		conf_socket(p, value);
		break;
	case CONF_KEY_SOCKET_GROUP:
		conf_socket_group(p, value);
		break;
	case CONF_KEY_STATE_DIR:
		if (conf_absolute(p, "state_dir", value))
			conf_set_string(&conf->state_dir, value);
		break;
	case CONF_KEY_RESCAN_INTERVAL_MS:
		conf_rescan(p, value);
		break;
	case CONF_KEY_LOG_LEVEL:
		if (log_level_parse(value, &conf->log_level) < 0)
			diag_error(p->diag, p->path, p->line,
				   "log_level: '%.64s' is not valid (valid: "
				   "error, warning, info, debug)",
				   value);
		break;
	case CONF_KEY_DRY_RUN:
		conf_bool(p, "dry_run", value, &conf->dry_run);
		break;
	case CONF_KEY_RESPECT_CHANGES:
		conf_bool(p, "respect_changes", value, &conf->respect_changes);
		break;
	case CONF_KEY_SELF_REALTIME:
		conf_bool(p, "self_realtime", value, &conf->self_realtime);
		break;
	case CONF_KEY_BATCH_MS:
		conf_batch(p, value);
		break;
	case CONF_KEY_EVENT_BUFFER_KB:
		conf_event_buffer(p, value);
		break;
	case CONF_KEY_EVENTS_POLL_MS:
		conf_events_poll(p, value);
		break;
	case CONF_KEY_IFEO_PERF_OPTIONS:
		conf_ifeo(p, value);
		break;
	case CONF_KEY_EVENTS:
		conf_events(p, value);
		break;
	case CONF_KEY_FILTER_FOLLOW_MAX:
		conf_filter_follow(p, value);
		break;
	case CONF_KEY_GROUP_MAY_RELOAD:
		conf_bool(p, "group_may_reload", value,
			  &conf->group_may_reload);
		break;
	case CONF_KEY_SYSFS:
		if (conf_absolute(p, "sysfs", value))
			conf_set_string(&conf->sysfs, value);
		break;
	case CONF_KEY_PROCFS:
		if (conf_absolute(p, "procfs", value))
			conf_set_string(&conf->procfs, value);
		break;
	case CONF_KEY_DEV:
		if (conf_absolute(p, "dev", value))
			conf_set_string(&conf->dev, value);
		break;
	case CONF_KEY_PARKING:
	case CONF_KEY_MIN_ONLINE:
	case CONF_KEY_IDLE_LATENCY_US:
	case CONF_KEY_GOVERNOR:
	case CONF_KEY_EPP:
	case CONF_KEY_PROFILE:
	case CONF_KEY_TURBO:
	case CONF_KEY_PLAN:
	case CONF_KEY_REASSERT:
	case CONF_KEY_PARKING_LATENCY_US:
		conf_power(p, key, value);
		break;
	case CONF_KEY_COUNT:
		break;
	}
}

static void conf_restraint_key(struct conf_parser *p, const char *name,
			       const char *value)
{
	char why[256];
	size_t key;

	for (key = 0; conf_restraint_keys[key]; key++) {
		if (strcmp(conf_restraint_keys[key], name) == 0)
			break;
	}
	if (!conf_restraint_keys[key]) {
		diag_error(p->diag, p->path, p->line,
			   "unknown key '%.64s' in [restraint]", name);
		return;
	}
	if (p->restraint_lines[key]) {
		diag_error(p->diag, p->path, p->line,
			   "%s is already set on line %u", name,
			   p->restraint_lines[key]);
		return;
	}
	p->restraint_lines[key] = p->line;
	if (!conf_restraint_set(&p->conf->restraint, key, value, why,
				sizeof(why)))
		diag_error(p->diag, p->path, p->line, "%s", why);
}

static int conf_handler(void *user, const char *section, const char *name,
			const char *value)
{
	struct conf_parser *p = user;
	enum conf_key key;

	(void)section; /* the reader tracks it, with the line */
	if (p->section == CONF_SECTION_UNKNOWN)
		return 1; /* reported once, at the section header */
	if (p->section == CONF_SECTION_NONE) {
		diag_error(p->diag, p->path, p->line,
			   "'%.64s' is outside any section (start with "
			   "[daemon], [paths], [power] or [restraint])",
			   name);
		return 1;
	}
	if (p->section == CONF_SECTION_RESTRAINT) {
		conf_restraint_key(p, name, value);
		return 1;
	}
	for (key = 0; key < CONF_KEY_COUNT; key++) {
		if (conf_keys[key].section == p->section &&
		    strcmp(conf_keys[key].name, name) == 0)
			break;
	}
	if (key == CONF_KEY_COUNT) {
		diag_error(p->diag, p->path, p->line,
			   "unknown key '%.64s' in [%s]", name,
			   conf_section_names[p->section]);
		return 1;
	}
	if (p->key_lines[key]) {
		diag_error(p->diag, p->path, p->line,
			   "%s is already set on line %u", name,
			   p->key_lines[key]);
		return 1;
	}
	p->key_lines[key] = p->line;
	conf_apply(p, key, value);
	return 1;
}

static void conf_section_header(struct conf_parser *p, char *line)
{
	char *end = strchr(line, ']');

	if (!end || end[1] != '\0') {
		diag_error(p->diag, p->path, p->line,
			   "malformed section header (expected [name])");
		p->section = CONF_SECTION_UNKNOWN;
		return;
	}
	*end = '\0';
	if (strcmp(line + 1, "daemon") == 0)
		p->section = CONF_SECTION_DAEMON;
	else if (strcmp(line + 1, "paths") == 0)
		p->section = CONF_SECTION_PATHS;
	else if (strcmp(line + 1, "power") == 0)
		p->section = CONF_SECTION_POWER;
	else if (strcmp(line + 1, "restraint") == 0) {
		p->section = CONF_SECTION_RESTRAINT;
		p->restraint_line = p->line;
	} else {
		diag_error(p->diag, p->path, p->line,
			   "unknown section [%.64s] (valid: daemon, paths, "
			   "power, restraint)",
			   line + 1);
		p->section = CONF_SECTION_UNKNOWN;
	}
	*end = ']';
}

/* Leading space would make inih read a continuation of the previous value
 * and a '#' after a value would stay part of it: neither is what a person
 * editing the file means, so both are taken out here. */
static void conf_tidy_line(char *line)
{
	char *start = line, *end;

	while (isspace((unsigned char)*start))
		start++;
	memmove(line, start, strlen(start) + 1);
	if (line[0] == '#' || line[0] == ';') {
		line[0] = '\0';
		return;
	}
	for (char *c = line + 1; *c; c++) {
		if ((*c == '#' || *c == ';') && isspace((unsigned char)c[-1])) {
			*c = '\0';
			break;
		}
	}
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
}

/* inih's fgets-like reader: one line per call, checked before inih sees
 * it; a line inih must not see is handed over as an empty one. */
static char *conf_reader(char *buf, int size, void *stream)
{
	struct conf_parser *p = stream;
	size_t n = 0, line_len;
	const char *start;

	if (p->pos >= p->len)
		return NULL;
	start = p->text + p->pos;
	while (p->pos + n < p->len && start[n] != '\n')
		n++;
	line_len = n;
	p->pos += n + (p->pos + n < p->len);
	p->line++;
	buf[0] = '\0';
	if (p->line == 1 && line_len >= 3 &&
	    memcmp(start, "\xef\xbb\xbf", 3) == 0) {
		start += 3; /* a UTF-8 byte order mark */
		line_len -= 3;
	}
	if (memchr(start, '\0', line_len)) {
		diag_error(p->diag, p->path, p->line,
			   "line contains a NUL byte");
		return buf;
	}
	if (line_len + 2 > (size_t)size) {
		diag_error(p->diag, p->path, p->line,
			   "line longer than %d characters", size - 2);
		return buf;
	}
	memcpy(buf, start, line_len);
	buf[line_len] = '\0';
	conf_tidy_line(buf);
	if (buf[0] == '[') {
		conf_section_header(p, buf);
	} else if (buf[0] && !strpbrk(buf, "=:")) {
		diag_error(p->diag, p->path, p->line,
			   "expected 'key = value' or '[section]'");
		buf[0] = '\0';
	}
	return buf;
}

void conf_load_text(struct conf *conf, const char *path, const char *text,
		    size_t len, struct diag *diag)
{
	struct conf_parser p = {
		.conf = conf,
		.path = path,
		.diag = diag,
		.text = text,
		.len = len,
	};
	char why[256];

	ini_parse_stream(conf_reader, &p, conf_handler, &p);
	if (p.restraint_line &&
	    !conf_restraint_check(&conf->restraint, why, sizeof(why)))
		diag_error(diag, path, p.restraint_line, "[restraint]: %s",
			   why);
}

/* Without must_exist a missing file means "all defaults": the package may
 * ship none, and the CLI reads the same file without needing it. */
int conf_load_file(struct conf *conf, const char *path, bool must_exist,
		   struct diag *diag)
{
	char *text;
	size_t len;
	enum os_status status =
		files_read(path, CONF_MAX_FILE_SIZE, &text, &len);

	if (status != OS_OK) {
		if (status == OS_GONE && !must_exist)
			return 0;
		diag_error(diag, path, 0, "cannot read: %s", strerror(errno));
		return -1;
	}
	conf_load_text(conf, path, text, len, diag);
	free(text);
	return 0;
}

/* The config as root obeys it (the daemon, check, apply): refused, as a
 * file with errors, when someone other than root could have written it or
 * a directory above it (trust_path), for whoever may write it chooses
 * the rules directories and who may reload. */
int conf_load_trusted(struct conf *conf, const char *path, bool must_exist,
		      struct diag *diag)
{
	char why[2 * 4096 + 256];

	switch (trust_path(path, why, sizeof(why))) {
	case OS_OK:
	case OS_GONE: /* as conf_load_file says */
		return conf_load_file(conf, path, must_exist, diag);
	case OS_DENIED:
		diag_error(diag, path, 0, "%s", why);
		return 0;
	case OS_UNSUPPORTED:
	case OS_FAILED:
		break;
	}
	diag_error(diag, path, 0, "%s", why);
	return -1;
}
