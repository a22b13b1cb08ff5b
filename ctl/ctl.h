/* cpupolicyctl: the options every subcommand shares, the subcommands, and
 * (in the last blocks) what they ask of the system, one file each in
 * ctl/linux/ and ctl/windows/. The worker processes are work.h's. */
#ifndef CPUPOLICY_CTL_H
#define CPUPOLICY_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "os.h"

/* Exit statuses every subcommand keeps to. */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_FAIL = 1,  /* invalid rules, a failed check */
	CTL_EXIT_USAGE = 2, /* bad usage, or I/O errors */
};

struct ctl {
	const char *conf_path;
	bool conf_explicit;
	const char *socket; /* NULL: from the config */
	/* How long a talk with the daemon may take, all of it (connect,
	 * request, answer). */
	long long timeout_ns;
};

#define CTL_TIMEOUT_S 10

/* apply.c */
int apply_main(struct ctl *ctl, int argc, char **argv);

/* check.c */
int check_main(struct ctl *ctl, int argc, char **argv);

/* import.c */
int import_main(struct ctl *ctl, int argc, char **argv);

/* saturate.c */
int saturate_main(struct ctl *ctl, int argc, char **argv);

/* restore.c */
int restore_main(struct ctl *ctl, int argc, char **argv);

/* remote.c */
struct proto_request;
int remote_call(const struct ctl *ctl, const struct proto_request *req,
		bool loud, int *status, char **text, size_t *text_len);
char *remote_socket_path(const struct ctl *ctl);
int remote_refuse_if_running(const struct ctl *ctl, const char *why);
int remote_status_main(struct ctl *ctl, int argc, char **argv);
int remote_explain_main(struct ctl *ctl, int argc, char **argv);
int remote_reload_main(struct ctl *ctl, int argc, char **argv);
int remote_metrics_main(struct ctl *ctl, int argc, char **argv);
int remote_restraint_main(struct ctl *ctl, int argc, char **argv);

/* agent.c: cpupolicyctl agent */
int agent_main(struct ctl *ctl, int argc, char **argv);

/* linux/fgwindow.c, windows/fgwindow.c: the window the user is looking
 * at. fgwindow_wait: after a change, or timeout_ms, the pid of the
 * process that made it (0: none, or not known), -1 where the display
 * ended. */
struct fgwindow;
struct fgwindow *fgwindow_open(char *why, size_t size);
long fgwindow_wait(struct fgwindow *w, int timeout_ms);
void fgwindow_close(struct fgwindow *w);

/* linux/dial.c, windows/dial.c: the connection to the daemon, which
 * ends at deadline_ns (timing_now_ns's clock) whatever the daemon does:
 * then the call is DIAL_TIMEOUT. On DIAL_FAILED errno says why, for the
 * message only: the backend has judged it. dial_read: *n bytes read, 0 at
 * the end. dial_server_trusted: whether the system's own account serves
 * the connection (Linux: root, by SO_PEERCRED; Windows: SYSTEM, or an
 * elevated administrator for a daemon run from a console), asked before
 * anything is sent; false: why says who serves it instead. */
struct dial;
enum dial_status {
	DIAL_OK,
	DIAL_NOBODY,  /* nobody listens there: no daemon runs */
	DIAL_TIMEOUT, /* the deadline came first */
	DIAL_FAILED,
};
enum dial_status dial_open(const char *path, long long deadline_ns,
			   struct dial **out);
bool dial_server_trusted(struct dial *d, char *why, size_t size);
enum dial_status dial_write(struct dial *d, const char *buf, size_t len);
enum dial_status dial_read(struct dial *d, char *buf, size_t size, size_t *n);
void dial_close(struct dial *d);

/* linux/machine.c, windows/machine.c: what limits cpupolicyctl and its
 * workers on this machine, and what other processes take of it */
struct machine_task {
	pid_t pid;
	char name[16];
	double cpu_s; /* used so far */
	int nice;
};
struct saturate_input;
struct saturate_machine;
unsigned machine_cpu_count(bool online);
double machine_quota(char *cgroup, size_t size);
void machine_cpuset_cgroup(char *name, size_t size);
void machine_freq(struct saturate_input *in);
/* What the system adds to the machine and the input: Windows' processor
 * groups and parked cores, and whose fixes to give. */
void machine_system(struct saturate_machine *m, struct saturate_input *in);
size_t machine_tasks(struct machine_task **out);
double machine_thread_cpu(pid_t pid, pid_t tid);

#endif
