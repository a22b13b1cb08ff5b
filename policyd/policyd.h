/* cpupolicyd: the daemon's state and its parts (one file each). The
 * portable front end is in policyd/; what it asks of the system (the
 * loop's wait, the control endpoint, privileges, the service manager)
 * is in policyd/linux/ and, under the same file names, policyd/windows/,
 * declared in the last blocks here. No type of the system's appears. */
#ifndef CPUPOLICY_POLICYD_H
#define CPUPOLICY_POLICYD_H

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "events.h"
#include "execfilter.h"
#include "execplan.h"
#include "fgprio.h"
#include "manage.h"
#include "osstatus.h"
#include "place.h"
#include "power.h"
#include "proto.h"
#include "restrained.h"
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

/* The connections served at once. Root (on Windows, Administrators) may
 * always have one: the other users hold CONTROL_OTHERS_SLOTS at most
 * together, CONTROL_USER_SLOTS at most each. */
#define CONTROL_MAX_CLIENTS  16
#define CONTROL_OTHERS_SLOTS 12
#define CONTROL_USER_SLOTS   4

/* Who is at the other end of a control connection, as the system vouched
 * for it: on Linux when it connected, on Windows by its request
 * (listen_identify). */
struct control_peer {
	bool admin;    /* root; on Windows, an elevated administrator */
	bool in_group; /* socket_group is among its groups */
	unsigned user; /* whose slots it takes: a uid, an account's number */
	pid_t pid;     /* for the log */
	char who[80];  /* for the log: "uid 1000", "DOMAIN\\name" */
};

struct listen;	    /* the control endpoint (linux/listen.c) */
struct listen_conn; /* one client's connection to it */
struct loop;	    /* the wait (linux/loop.c) */

struct control_client {
	struct listen_conn *conn; /* NULL: a free slot */
	struct control_peer peer;
	char request[PROTO_MAX_REQUEST];
	size_t request_len;
	char *response;
	size_t response_len, response_sent;
	long long since_ns, deadline_ns;
};

/* What a service manager passed (socket activation), as the system's
 * handles; -1: nothing. */
struct service_passed {
	long events;  /* the proc connector, bound in the host's namespace */
	long control; /* the control endpoint, listening */
};

/* What the rules need beyond an ordinary user's rights; each system
 * grants it its own way (Linux: capabilities). */
enum caps_need {
	CAPS_NEED_PRIORITY = 1 << 0, /* others' priority and placement */
	CAPS_NEED_INSPECT = 1 << 1,  /* others' exe; hidden processes */
	CAPS_NEED_SYSTEM = 1 << 2,   /* system settings, root's to write */
	CAPS_NEED_REALTIME = 1 << 3, /* the realtime class (Windows asks) */
	/* Others' groups: a session's autogroup file is its owner's, a
	 * cgroup delegated to a user that user's (restraint). */
	CAPS_NEED_GROUPS = 1 << 4,
};

struct hold {
	pid_t pid;
	char rule[72];
	struct rule_power power;
};

/* A user's foreground process, as a source declared it (foreground.c). */
#define FOREGROUND_USERS 16
struct foreground_slot {
	pid_t pid; /* 0: free */
	unsigned long long start;
	unsigned user;
	long long since_ns;
	char source[24];     /* "D-Bus", "cpupolicyctl agent" */
	struct fgprio given; /* its rule's foreground = { ... } */
};

struct fgsource; /* where the foreground is declared (linux/fgsource.c) */

struct daemon {
	struct options options;
	struct conf conf;
	struct rules *rules;
	struct manage manage;
	struct place_topology topology;
	bool have_topology;
	struct events events;
	/* The exec filter in the kernel, NULL without one; the plan of the
	 * rules in force it was given; its lost events at the last tick. */
	struct execfilter *execfilter;
	struct execplan execplan;
	unsigned long long execfilter_lost;
	/* Its map of followed processes had no room: every exec is sent
	 * until the daemon made up for it; how many times so far. */
	bool filter_full;
	unsigned long long filter_fulls;
	/* A literal exe's file replaced: the rescan that follows, once a
	 * second at most (due: at a later tick). */
	long long filter_rescan_ns;
	bool filter_rescan_due;
	/* Restraint ([restraint]): the processes it holds, the machine's
	 * CPU pressure; whether it runs, and whether passes run now (the
	 * sample timer armed). */
	struct restrained restrained;
	struct journal restrain_journal;
	struct pressure *pressure;
	struct foreground_slot foreground[FOREGROUND_USERS];
	struct fgsource *fgsource;
	bool restraining, restrain_sampling;
	struct power power;
	struct hold *holds;
	size_t hold_count;
	bool polling;	     /* no proc connector: rescans do all the work */
	bool gather;	     /* this wakeup read events: loop_batch waits */
	bool tracking;	     /* something is managed: forks and exits matter */
	unsigned facts_used; /* match_facts_used of the rules in force */
	const struct rules *facts_of; /* the set facts_used is of */
	struct pidmap renamed; /* pids renamed since the events were read */
	/* Renames (and changes of ids) counted per second; above the limit
	 * they are not asked for until a rescan a second later. */
	long long renames_since_ns, renames_paused_ns;
	unsigned renames_counted;
	bool renames_paused;
	/* ... and where the kernel cannot filter them (before Linux 6.6),
	 * process events are not read at all until then. */
	bool events_unread;
	unsigned long long renames_pauses;
	/* Rescans for lost events: one a second at most, a later loss
	 * waits for the next one due. */
	long long loss_rescan_ns;
	bool loss_rescan_due;
	struct loop *loop;
	struct listen *listen;
	struct service_passed passed;
	struct control_client clients[CONTROL_MAX_CLIENTS];
	/* Connections closed to keep room, and when that was last logged. */
	unsigned long long control_shed, control_shed_logged;
	long long control_shed_log_ns;
	unsigned caps_kept; /* enum caps_need bits */
	long long started_ns, last_rescan_ns;
	unsigned long long reloads;
	bool stop;
};

/* cpupolicyd.c */
int daemon_reload(struct daemon *d, struct diag *diag);
void daemon_events_update(struct daemon *d, const struct rules *rules);
void daemon_filter_update(struct daemon *d, const struct rules *rules);
void daemon_filter_drop(struct daemon *d, const char *why);

/* hold.c */
void hold_apply(struct daemon *d);
struct hold *hold_find(struct daemon *d, pid_t pid);
void hold_update(void *ctx, const struct manage_proc *p, bool on);

/* loop_common.c: what each wake-up of the loop does */
unsigned loop_follow_how(unsigned how);
unsigned loop_tick_ms(const struct daemon *d);
void loop_on_events(struct daemon *d);
void loop_on_execs(struct daemon *d);
void loop_on_watch(struct daemon *d);
void loop_batch(struct daemon *d);
void loop_on_tick(struct daemon *d);
void loop_on_reload(struct daemon *d);
void loop_on_stop(struct daemon *d, const char *why);

/* control.c: the control protocol, one request per connection */
int control_open(struct daemon *d);
void control_close(struct daemon *d);
void control_accept(struct daemon *d);
void control_client_io(struct daemon *d, struct control_client *c,
		       bool can_send);
void control_expire(struct daemon *d);

/* caps_common.c: what the rules need */
unsigned caps_needed(const struct rules *rules, bool proc_hidden,
		     bool base_power);

/* foreground.c */
int foreground_declare(struct daemon *d, pid_t pid, unsigned caller, bool admin,
		       const char *source, char *why, size_t size);
struct control_peer;
int foreground_control(struct daemon *d, pid_t pid,
		       const struct control_peer *peer, FILE *out);
const char *foreground_covers(const struct daemon *d, pid_t pid,
			      unsigned long long start);
void foreground_release(struct daemon *d);
void foreground_give_back_all(struct daemon *d);
void foreground_renew(struct daemon *d);

/* restrain.c */
struct json_object;
void restrain_setup(struct daemon *d);
void restrain_teardown(struct daemon *d);
void restrain_on_pressure(struct daemon *d);
void restrain_on_sample(struct daemon *d);
void restrain_on_tick(struct daemon *d);
void restrain_reload(struct daemon *d);
bool restrain_owner(pid_t pid, unsigned *user);
const struct rule *restrain_rule(struct daemon *d, pid_t pid,
				 unsigned long long start);
int restrain_control(struct daemon *d, const struct proto_request *req,
		     const struct control_peer *peer, FILE *out);
void restrain_status_text(const struct daemon *d, FILE *out);
void restrain_status_json(const struct daemon *d, struct json_object *doc);
void restrain_explain(const struct daemon *d, pid_t pid, char *text,
		      size_t size);
void restrain_metrics(const struct daemon *d, FILE *out,
		      void (*metric)(FILE *out, const char *name,
				     const char *type, const char *help,
				     double value));

/* report.c */
void report_status(struct daemon *d, bool json, FILE *out);
int report_explain(struct daemon *d, pid_t pid, bool json, FILE *out);
void report_metrics(struct daemon *d, FILE *out);

/* The system's side, one file each in policyd/linux/ and
 * policyd/windows/. What can fail returns the status the backend made of
 * the system's error (osstatus.h), and says why itself where the reason
 * is the system's. */

/* linux/loop.c, windows/loop.c: the wait, and what it watches */
enum os_status loop_prepare(void);
enum os_status loop_setup(struct daemon *d);
enum os_status loop_run(struct daemon *d);
void loop_teardown(struct daemon *d);
enum os_status loop_arm(struct daemon *d);
void loop_events_gone(struct daemon *d);
void loop_events_read(struct daemon *d, bool on);
void loop_execs_gone(struct daemon *d);
enum os_status loop_watch_client(struct daemon *d, struct control_client *c,
				 bool sending);
void loop_unwatch_client(struct daemon *d, struct control_client *c);
/* linux/fgsource.c, windows/fgsource.c: where desktops declare the
 * foreground (Linux: com.system76.Scheduler's SetForegroundProcess on
 * the system bus, where system76-scheduler does not own the name). */
enum os_status fgsource_open(struct daemon *d);
long fgsource_fd(const struct daemon *d); /* -1: nothing to wait on */
void fgsource_process(struct daemon *d);
void fgsource_close(struct daemon *d);
/* Restraint's passes every ms from now; 0: none. */
enum os_status loop_sample_arm(struct daemon *d, unsigned ms);
/* Where process events come from, for the log and status ("the proc
 * connector"), and its word in status --json ("netlink", "polling",
 * "bpf"). */
const char *loop_events_source(const struct daemon *d);
const char *loop_events_word(const struct daemon *d);

/* linux/listen.c, windows/listen.c: the control endpoint. listen_accept:
 * *conn NULL when nobody waits. listen_recv and listen_send: the bytes
 * moved in *moved, 0 when nothing can move now; OS_GONE when the client
 * has hung up. */
enum os_status listen_open(struct daemon *d);
void listen_close(struct daemon *d);
enum os_status listen_accept(struct daemon *d, struct listen_conn **conn,
			     struct control_peer *peer);
/* Once the request is read: the peer it comes from, as the endpoint
 * vouches for it now (Linux: as at connect; Windows: the request's own
 * token, where listen_accept could go only by the client's pid, which
 * decides no more than whose slot it takes). Not OS_OK: it cannot be
 * told, and the request is refused. */
enum os_status listen_identify(struct listen_conn *conn,
			       struct control_peer *peer);
enum os_status listen_recv(struct listen_conn *conn, char *buf, size_t size,
			   size_t *moved);
enum os_status listen_send(struct listen_conn *conn, const char *buf,
			   size_t len, size_t *moved);
void listen_hang_up(struct listen_conn *conn);
/* A process's user and group as the endpoint names its peers, for
 * explain: "uid 1000, gid 1000"; on Windows their account names. */
void listen_account_text(unsigned uid, unsigned gid, char *buf, size_t size);

/* caps_common.c: what was kept against what rules need, by name */
bool caps_cover(unsigned have, unsigned need, char *missing, size_t size);
void caps_describe(unsigned have, char *buf, size_t size);
/* linux/caps.c, windows/caps.c: privileges, and the capabilities
 * (privileges) a need takes, by name, for caps_cover and caps_describe */
bool caps_proc_hidden(void);
enum os_status caps_keep_only(unsigned need);
#define CAPS_NAMES_MAX 4
#define CAPS_NAME_MAX  64
size_t caps_names(unsigned need, char names[CAPS_NAMES_MAX][CAPS_NAME_MAX]);

/* linux/service.c, windows/service.c: the service manager.
 * service_command: a command line that is the service manager's
 * business (Windows: --install, --uninstall), done; false: none.
 * service_run: run the daemon (run) as the service manager wants it,
 * its exit status. */
bool service_command(int argc, char **argv, int *status);
/* service_claim: the one daemon of this machine, taken before anything
 * is opened or put back; not OS_OK (said) when another one runs. Linux: the
 * control socket decides (listen.c: another daemon answers there);
 * Windows: an exclusive handle on a file in the state directory, which
 * nobody but SYSTEM and Administrators may write, as the pipe's name is
 * anyone's to take. */
enum os_status service_claim(const struct conf *conf);
void service_usage(FILE *out);
int service_run(struct daemon *d, int (*run)(struct daemon *d));
void service_take_passed(struct service_passed *passed);
void service_reloading(void);
void service_ready(const char *status);
void service_stopping(void);
enum os_status service_self_realtime(void);
void service_trim(void);

/* linux/ifeo.c, windows/ifeo.c: what the system applies by itself to a
 * program as it starts, before the daemon sees it (Windows: Image File
 * Execution Options; Linux has nothing of the kind). ifeo_sync: the
 * rules' settings there, and nothing else; rules NULL: none. */
void ifeo_sync(struct daemon *d, const struct rules *rules);
/* A new process, before its rule: what the system gave it by its file
 * name alone, where its rule (or none) does not give the same, goes
 * back to what it would have had. */
void ifeo_exec(struct daemon *d, pid_t pid);

#endif
