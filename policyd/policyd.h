/* cpupolicyd: the daemon's state and its parts (one file each). */
#ifndef CPUPOLICY_POLICYD_H
#define CPUPOLICY_POLICYD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/capability.h>
#include <time.h>

#include "conf.h"
#include "events.h"
#include "manage.h"
#include "place.h"
#include "power.h"
#include "proto.h"
#include "rules.h"

struct options {
	const char *conf_path;
	bool conf_explicit;
	bool check_only;
	int verbose;
	char **rules_dirs;
	size_t rules_dir_count;
	const char *socket;
	const char *state_dir;
};

#define CONTROL_MAX_CLIENTS 16

struct control_client {
	int fd;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	bool in_group; /* socket_group among its groups, at connect */
	char request[PROTO_MAX_REQUEST];
	size_t request_len;
	char *response;
	size_t response_len, response_sent;
	struct timespec deadline;
};

struct hold {
	pid_t pid;
	char rule[72];
	struct rule_power power;
};

struct daemon {
	struct options options;
	struct conf conf;
	struct rules *rules;
	struct manage manage;
	struct place_topology topology;
	bool have_topology;
	struct events events;
	struct power power;
	struct hold *holds;
	size_t hold_count;
	bool polling;	     /* no proc connector: rescans do all the work */
	bool tracking;	     /* something is managed: forks and exits matter */
	unsigned facts_used; /* match_facts_used of the rules in force */
	struct pidmap renamed; /* pids renamed since the events were read */
	/* Renames (and changes of ids) counted per second; above the limit
	 * they are not asked for until a rescan a second later. */
	struct timespec renames_since, renames_paused_at;
	unsigned renames_counted;
	bool renames_paused;
	unsigned long long renames_pauses;
	int epoll_fd, signal_fd, timer_fd, listen_fd;
	int netlink_fd;	    /* passed by the service manager, or -1 */
	bool socket_passed; /* the control socket is the service manager's */
	struct control_client clients[CONTROL_MAX_CLIENTS];
	cap_value_t caps[8];
	size_t cap_count;
	struct timespec started, last_rescan;
	unsigned long long reloads;
	bool stop;
};

/* cpupolicyd.c */
int daemon_reload(struct daemon *d, struct diag *diag);
void daemon_events_update(struct daemon *d, const struct rules *rules);

/* hold.c */
void hold_apply(struct daemon *d);
struct hold *hold_find(struct daemon *d, pid_t pid);
void hold_update(void *ctx, const struct manage_proc *p, bool on);

/* loop.c */
int loop_block_signals(void);
int loop_setup(struct daemon *d);
int loop_run(struct daemon *d);
void loop_teardown(struct daemon *d);

/* control.c */
int control_open(struct daemon *d);
void control_close(struct daemon *d);
void control_accept(struct daemon *d);
void control_client_io(struct daemon *d, struct control_client *c,
		       unsigned events);
void control_expire(struct daemon *d);

/* caps.c */
size_t caps_needed(const struct rules *rules, bool proc_hidden, bool base_power,
		   cap_value_t *caps, size_t max);
bool caps_proc_hidden(const char *procfs);
int caps_keep_only(const cap_value_t *caps, size_t count);
bool caps_cover(const cap_value_t *have, size_t have_count,
		const cap_value_t *need, size_t need_count,
		cap_value_t *missing);

/* report.c */
void report_status(struct daemon *d, bool json, FILE *out);
int report_explain(struct daemon *d, pid_t pid, bool json, FILE *out);
void report_metrics(struct daemon *d, FILE *out);

#endif
