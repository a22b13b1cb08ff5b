/* The daemon's configuration (INI, read with inih): defaults, the file,
 * then command-line overrides. Where files are by default is each
 * system's own, from the seam (os.h, paths.c). */
#ifndef CPUPOLICY_CONF_H
#define CPUPOLICY_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "ifeo.h"
#include "log.h"
#include "restraint.h"
#include "rules.h"

#define CONF_DEFAULT_RESCAN_MS		10000
#define CONF_MAX_RESCAN_MS		86400000
#define CONF_MIN_RESCAN_MS		100
#define CONF_MAX_FILE_SIZE		(1u << 20)
#define CONF_DEFAULT_PARKING_LATENCY_US 20
#define CONF_MAX_BATCH_MS		100
#define CONF_DEFAULT_EVENT_BUFFER_KB	8192
#define CONF_MIN_EVENT_BUFFER_KB	4
#define CONF_MAX_EVENT_BUFFER_KB	262144
#define CONF_DEFAULT_EVENTS_POLL_MS	250
#define CONF_MIN_EVENTS_POLL_MS		10
#define CONF_MAX_EVENTS_POLL_MS		10000
#define CONF_DEFAULT_FILTER_FOLLOW_MAX	65536
#define CONF_MIN_FILTER_FOLLOW_MAX	16
#define CONF_MAX_FILTER_FOLLOW_MAX	4194304 /* the kernel's PID_MAX_LIMIT */

/* Where the daemon's process events come from (cpupolicyd(8)): auto, a
 * BPF exec filter where it loads with the proc connector for the rest;
 * bpf, the same said louder when it does not load; netlink, the proc
 * connector alone; poll, rescans only. */
enum conf_events {
	CONF_EVENTS_AUTO,
	CONF_EVENTS_BPF,
	CONF_EVENTS_NETLINK,
	CONF_EVENTS_POLL,
	CONF_EVENTS_COUNT
};

extern const char *const conf_events_names[CONF_EVENTS_COUNT];

/* [restraint] (cpupolicyd(8)): off unless enabled. */
struct conf_restraint {
	bool enabled;
	struct restraint_limits limits;
	unsigned pressure_pct; /* work waiting this share of the time */
	unsigned sample_ms;    /* between passes under pressure */
	/* What a restrained process gets, each setting only lowered: nice,
	 * policy and I/O on Linux, the class and EcoQoS on Windows. */
	struct rule_priority lowering;
	bool system; /* root's and system accounts' processes too */
	char **exempt;
	size_t exempt_count;
};

struct conf {
	char **rules_dirs;
	size_t rules_dir_count;
	char *socket;
	char *socket_group; /* NULL: root's group */
	unsigned socket_gid;
	char *state_dir;
	unsigned rescan_interval_ms; /* 0: no periodic rescan */
	enum log_level log_level;
	bool dry_run;
	bool respect_changes;  /* leave alone threads others changed */
	bool self_realtime;    /* run the daemon itself under SCHED_FIFO */
	bool group_may_reload; /* socket_group may reload, not only root */
	unsigned batch_ms;     /* gather events this long after each wakeup */
	unsigned event_buffer_kb; /* the kernel's queue of process events */
	/* Between two looks at the processes where the system's events
	 * are polled (Windows without ETW); unused where they are not. */
	unsigned events_poll_ms;
	enum conf_events events;
	/* Processes the exec filter follows at once, at most (Linux). */
	unsigned filter_follow_max;
	/* Which rules' classes go to Image File Execution Options (Windows;
	 * unused on Linux). */
	enum ifeo_mode ifeo_mode;
	/* [paths]: the roots of the system's trees the backend reads
	 * (Linux: /proc, /sys, /dev), given to paths_set_roots; NULL where
	 * the config names none, and the backend's own stand. */
	char *sysfs;
	char *procfs;
	char *dev;
	/* [power]: the base policy, held from start to stop. */
	struct rule_power base_power;
	bool power_reassert;
	long parking_latency_us;
	struct conf_restraint restraint;
};

/* conf.c */
void conf_init(struct conf *conf);
void conf_free(struct conf *conf);
int conf_load_file(struct conf *conf, const char *path, bool must_exist,
		   struct diag *diag);
int conf_load_trusted(struct conf *conf, const char *path, bool must_exist,
		      struct diag *diag);
void conf_load_text(struct conf *conf, const char *path, const char *text,
		    size_t len, struct diag *diag);
void conf_set_rules_dirs(struct conf *conf, const char *colon_list);
void conf_add_rules_dir(struct conf *conf, const char *dir);
void conf_set_string(char **slot, const char *value);
/* "true", "yes", "on", "1" and their opposites: 0, else -1. */
int conf_parse_bool(const char *value, bool *out);
int conf_number(const char *value, unsigned long max, unsigned long *out);

/* conf_restraint.c: the [restraint] section's keys and defaults. */
extern const char *const conf_restraint_keys[];
void conf_restraint_init(struct conf_restraint *rc);
void conf_restraint_free(struct conf_restraint *rc);
/* One key's value: false, with why, where it is not valid. */
bool conf_restraint_set(struct conf_restraint *rc, size_t key,
			const char *value, char *why, size_t size);
/* What the keys say together, once all are read: false, with why. */
bool conf_restraint_check(const struct conf_restraint *rc, char *why,
			  size_t size);

#endif
