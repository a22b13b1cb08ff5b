/* The seam: what the portable core (lib/, policyd/, ctl/) asks of the
 * system, implemented once per system under the same file names in
 * lib/linux/ and lib/windows/ (the Makefile picks the folder). The events
 * of events.h and the exec filter of execfilter.h are part of it. A call
 * that can fail returns enum os_status (osstatus.h), decided in the
 * backend, with what it found in out-parameters: no errno or
 * GetLastError is judged outside it. errno may still be set (translated
 * on Windows) for the message the caller logs. */
#ifndef CPUPOLICY_OS_H
#define CPUPOLICY_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>

#include "events.h"
#include "match.h"
#include "osstatus.h"
#include "ostypes.h"
#include "prio.h"

struct power_held;
struct power_plan;
struct power_want;
struct procstat;

/* system.c: the system this backend is for, the one rule files are
 * checked for unless told otherwise */
enum rules_system system_native(void);
/* The system's build number (Windows: 19045, 22631...; 0 on Linux),
 * for what depends on it (processor groups, procgroups.h). */
unsigned long system_build(void);
/* The command line in UTF-8, as main is to read it: Windows hands main
 * its arguments in the ANSI code page, which loses what it cannot spell
 * (a CJK file name becomes "??"); Linux's are as given. */
void system_args(int *argc, char ***argv);
/* Whether stream is a terminal a person watches, for output that
 * redraws itself (Windows: a console, which the NUL device is not). */
bool system_is_terminal(FILE *stream);

/* A process's facts are read through procinfo_fetch with this context. */
struct procinfo {
	pid_t pid;
};

/* A process held against the reuse of its id: its fields are the
 * backend's (ostypes.h: a pidfd, a handle). */
struct procinfo_pin {
	PROCINFO_PIN_PRIVATE_FIELDS
};

/* procinfo_common.c: processes and threads */
void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts);
/* linux/procinfo.c, windows/procinfo.c: one fact (a MATCH_FACT_ bit), and
 * whether the file behind an exe path is the one the process runs; -1
 * where it cannot be read. procinfo_fetch asks them. */
enum os_status procinfo_fact(const struct procinfo *pi, unsigned fact,
			     struct facts *facts);
enum os_status procinfo_file(const struct procinfo *pi, pid_t pid,
			     const char *exe, enum match_file *file);
/* The ids of every process, and of one process's threads: *count of
 * them in *pids or *tids, the caller's to free. */
enum os_status procinfo_pids(pid_t **pids, size_t *count);
enum os_status procinfo_threads(pid_t pid, pid_t **tids, size_t *count);
/* A scan of every process (manage_rescan) is between these: within it
 * procinfo_threads may answer from one listing of the system taken for
 * the scan (Windows: a listing holds every thread of the system, so one
 * per process made a scan quadratic); outside it each call lists anew.
 * Linux reads one process's threads anyway: nothing to do. */
void procinfo_scan_begin(void);
void procinfo_scan_end(void);
enum os_status procinfo_start_time(pid_t pid, pid_t tid,
				   unsigned long long *start);
/* What one read tells of a process: its start time, whether its main
 * thread is the only one alive (false where that is not known), and its
 * name now ("" where not known). */
struct procinfo_state {
	unsigned long long start;
	bool alone;
	char comm[OS_NAME_MAX];
};
enum os_status procinfo_state(pid_t pid, struct procinfo_state *state);
bool procinfo_zombie(pid_t pid);
enum os_status procinfo_thread_name(pid_t pid, pid_t tid, char *name,
				    size_t size);
/* What restraint samples of a process: its start (procinfo_start_time's),
 * the CPU time all its threads used so far and how long it has run (ns),
 * its parent, its session (Linux: the autogroup's; Windows: the logon
 * session) and its nice (Windows: its class as prio_state_of_class has
 * it). */
struct procinfo_usage {
	unsigned long long start, cpu_ns, age_ns;
	pid_t ppid;
	long session;
	int nice;
};
enum os_status procinfo_usage(pid_t pid, struct procinfo_usage *usage);
/* How long a process's main thread has waited, runnable, for a CPU so far
 * (ns): a restrained process that uses little but waits much is starved,
 * not calm. OS_UNSUPPORTED where the system does not count it. */
enum os_status procinfo_waited(pid_t pid, unsigned long long *ns);
enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin);
bool procinfo_pin_ended(const struct procinfo_pin *pin);
void procinfo_unpin(struct procinfo_pin *pin);
bool procinfo_ended(pid_t pid);
bool procinfo_thread_in(pid_t pid, pid_t tid);
bool procinfo_task_exists(pid_t tid);

/* apply_prio.c: a thread's priority */
enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state);
enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted);
/* What a successful apply_prio_write(now, wanted) left on the thread,
 * where the system's answer to the write says it: true, *taken filled;
 * false: the caller reads it back. */
bool apply_prio_taken(const struct prio_state *now,
		      const struct prio_state *wanted,
		      struct prio_state *taken);

/* apply_place.c: a thread's CPUs */
enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set);
enum os_status apply_place_write(pid_t pid, pid_t tid,
				 hwloc_const_bitmap_t set);
enum os_status apply_place_allowed(pid_t pid, hwloc_bitmap_t set);
enum os_status apply_place_online(hwloc_bitmap_t set);
/* The processors a process runs on now by its own choice, within what it
 * is allowed: on Windows the processor groups it and its threads are in
 * (all of them where Windows spreads a process itself, unless it
 * narrowed itself), on Linux what it is allowed. */
enum os_status apply_place_current(pid_t pid, hwloc_bitmap_t set);
/* What a process's threads get by default, new ones the moment they
 * start (Windows: its default CPU Sets); NULL gives the system's choice
 * back. OS_UNSUPPORTED where there is none (Linux: a new thread takes
 * its creator's affinity, which the threads carry). */
enum os_status apply_place_process(pid_t pid, hwloc_const_bitmap_t set);
/* What a process's threads get by default now: empty where the system
 * chooses (no default CPU Sets). OS_UNSUPPORTED as above. */
enum os_status apply_place_process_read(pid_t pid, hwloc_bitmap_t set);
/* The machine's kinds of CPU as the system ranks them, the least
 * performant first (Windows: by the CPU Sets' EfficiencyClass); *count
 * of them, the caller's to free with each set. NULL where the system
 * does not say (Linux: hwloc's kinds are its own). */
hwloc_bitmap_t *apply_place_kinds(size_t *count);

/* A power knob: one system-wide setting, named by a key that begins with
 * '/' (the journal tells a setting's line by it): on Linux the path of
 * its sysfs file; on Windows a power scheme's setting, its scheme,
 * subgroup and setting and AC or DC. Its values are short strings
 * (JOURNAL_VALUE_MAX). The backend maps the power wants to knobs (a plan
 * of key and value, power.h) and reads and writes them; apply_power.c
 * holds them, journaled. */
struct knobs {
	char refused[512]; /* the last "not offered" said: not again */
};

/* When a knob is given back, among the others. */
enum knobs_order {
	KNOBS_ORDER_FIRST,
	KNOBS_ORDER_LAST, /* what the others need: a CPU online */
};

/* The wants another power manager owns on this machine: its name for
 * each, NULL where none does. */
struct knobs_owners {
	const char *governor, *epp, *profile, *turbo;
};

/* knobs.c: power settings */
void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan);
void knobs_owned(const struct knobs *kn, struct knobs_owners *owners);
enum os_status knobs_read(const char *key, char *value, size_t size);
enum os_status knobs_write(const char *key, const char *value);
enum knobs_order knobs_order(const char *key);
/* Whether the setting a key names outlives a reboot (the system keeps it
 * on disk): the journal of an earlier boot is replayed for these, and
 * dropped for the others, which a boot resets itself. */
bool knobs_lasting(const char *key);
bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size);
void knobs_latency_hold(const struct knobs *kn, int *handle, long latency_us);
void knobs_latency_release(const struct knobs *kn, int *handle);
/* What a held latency is named in reports (Linux: the path of
 * cpu_dma_latency). */
void knobs_latency_name(char *name, size_t size);

/* A state file as statefile_load found it. */
struct statefile {
	char *text; /* NUL-terminated; the caller frees it */
	size_t len;
	bool before_boot; /* last written before this boot began */
	/* OS_DENIED: why the file is refused; OS_FAILED: what failed. */
	char why[64];
};

/* statefile.c: the daemon's state (the journal), only root's */
enum os_status statefile_mkdir(const char *dir);
enum os_status statefile_dir_safe(const char *dir, char *why, size_t size);
enum os_status statefile_load(const char *file, size_t max,
			      struct statefile *sf);
enum os_status statefile_replace(const char *file, const char *text,
				 size_t len);
enum os_status statefile_remove(const char *file);
enum os_status statefile_boot_id(char *id, size_t size, char *from,
				 size_t from_size);

/* What files_info tells of a path, links followed. */
enum files_type {
	FILES_TYPE_REGULAR,
	FILES_TYPE_DIRECTORY,
	FILES_TYPE_DEVICE, /* a character device: /dev/null, NUL */
	FILES_TYPE_OTHER,
};

struct files_info {
	enum files_type type;
	unsigned long long size; /* bytes, of a regular file */
};

/* files.c: the files a user names and the front ends write (the config,
 * rule files and their directories, an import's input and output, the
 * check's state files). Paths are UTF-8, as every string of the core:
 * the backend hands them to the system as they are (Windows: as UTF-16
 * to the W functions, where the C library's own calls would read them
 * in the ANSI code page and lose what it cannot spell). errno says why a
 * call failed; OS_GONE: no such file.
 *
 * files_read: the whole file, at most max bytes (a longer one fails,
 * errno EFBIG, so that no caller parses half a file), NUL-terminated and
 * the caller's to free. files_open: a stream as fopen's mode says.
 * files_list: the names in a directory but "." and "..", sorted by
 * strcmp, the caller's to free with files_list_free. */
enum os_status files_read(const char *path, size_t max, char **text,
			  size_t *len);
enum os_status files_open(const char *path, const char *mode, FILE **file);
enum os_status files_info(const char *path, struct files_info *info);
enum os_status files_list(const char *dir, char ***names, size_t *count);
/* files_common.c, for both systems' files.c: a whole file read in pieces
 * (files_buffer_room: room for the next, false when the file is longer
 * than the most, the text freed and errno EFBIG; files_buffer_done: the
 * text NUL-terminated and handed over), and files_list's order; and
 * files_list_free, for its callers. */
struct files_buffer {
	char *text;
	size_t used, cap, limit;
};
void files_buffer_init(struct files_buffer *b, size_t max);
bool files_buffer_room(struct files_buffer *b);
void files_buffer_done(struct files_buffer *b, char **text, size_t *len);
void files_sort_names(char **names, size_t count);
void files_list_free(char **names, size_t count);
enum os_status files_remove(const char *path);
/* A file replaced whole: a reader sees the old text or the new. */
enum os_status files_replace(const char *path, const char *text, size_t len);
void files_private_dir(const char *path);
/* An import's rule files, staged beside their place and read back before
 * they take it. */
enum os_status files_stage(const char *path, const char *text, size_t len,
			   char **staged);
enum os_status files_commit(const char *staged, const char *path);
void files_discard(const char *staged);
enum os_status files_make_dir(const char *path);
void files_remove_dir(const char *path);

/* trust.c: whether anyone but root (on Windows: SYSTEM, Administrators)
 * could have changed what a file the daemon obeys says, as sshd's
 * StrictModes judges: the file or directory must be root's and writable
 * by no one else, and so must every directory above it, except that one
 * above it may let others add what stays theirs (a sticky /tmp; on
 * Windows, C:\ProgramData, where others may create folders but not
 * remove or rename another's). Links are judged where they lead too.
 * OS_DENIED: why is "REASON (fix: COMMAND)", or "PATH is REASON (fix:
 * COMMAND)" when the fault is above the file; OS_GONE: no such file;
 * OS_FAILED: it cannot be checked, why says what. */
enum os_status trust_path(const char *path, char *why, size_t size);

/* cputimes.c: each online CPU's busy, idle and stolen time */
enum os_status cputimes_read(struct procstat *stat);

/* pressure.c: whether work waits for a CPU. pressure_open arms a
 * wakeup for when work waited pct percent of a second (Linux: a PSI
 * trigger on /proc/pressure/cpu); pressure_fd is what the loop waits on
 * for it (-1: none, the caller samples on its tick). pressure_sample: the
 * share of the time since the last sample that work waited, in percent
 * (Windows: the processors busy with more threads ready than CPUs). */
struct pressure;
enum os_status pressure_open(struct pressure **pressure, unsigned pct);
long pressure_fd(const struct pressure *pressure);
/* The trigger fired: read it, so that it can fire again. */
void pressure_fired(struct pressure *pressure);
enum os_status pressure_sample(struct pressure *pressure, unsigned *pct);
void pressure_close(struct pressure *pressure);

/* cpugroup.c: the group the scheduler shares the CPUs among before a
 * thread's nice counts, and the weight it gives that group. On Linux a
 * process in the cpu controller's root group is weighed in its session's
 * autogroup (kernel.sched_autogroup_enabled, Debian's default: setsid
 * starts one, a fork inherits it), one in a cgroup of the cpu controller
 * in that cgroup; Windows has neither (CPUGROUP_NONE). A value is the
 * group's own unit: an autogroup's nice, a cgroup's cpu.weight (v2) or
 * cpu.shares (v1). */
enum cpugroup_kind {
	CPUGROUP_NONE,	    /* none, or one shared with other groups */
	CPUGROUP_AUTOGROUP, /* its members: the session's processes */
	CPUGROUP_CGROUP,    /* its members: cpugroup_members */
};
#define CPUGROUP_ID_MAX 4096
struct cpugroup {
	enum cpugroup_kind kind;
	/* What names it: "/autogroup-N", or the cgroup's weight file. */
	char id[CPUGROUP_ID_MAX];
	pid_t via;   /* an autogroup: the member it is read and set through */
	bool leaf;   /* a cgroup with no cgroups below it */
	bool shares; /* a cgroup's value is v1's cpu.shares */
};
enum os_status cpugroup_of(pid_t pid, struct cpugroup *group);
/* A cgroup's processes (an autogroup's are its session's). */
enum os_status cpugroup_members(const struct cpugroup *group, pid_t **pids,
				size_t *count);
enum os_status cpugroup_read(const struct cpugroup *group, long *value);
enum os_status cpugroup_write(const struct cpugroup *group, long value);
/* The value that weighs the group as a thread at nice weighs; nice 0
 * gives the default, which nobody changed. */
long cpugroup_value_of_nice(const struct cpugroup *group, int nice);
/* Whether value a gives the group less of the CPUs than b. */
bool cpugroup_less(const struct cpugroup *group, long a, long b);
/* Whether the desktop says the process's cgroup is its focused app's:
 * GNOME's Mutter marks each app's cgroup (its systemd scope) with
 * user.xdg.inactive-since, -1 while the app has the focus. writer: the
 * cgroup's owner, who alone (with root) may have written it. */
bool cpugroup_focused(pid_t pid, unsigned *writer);

/* The blocks below serve the front ends (cpupolicyd's set-up, the config
 * and rules they load, cpupolicyctl's checks) as much as the core. */

/* accounts.c: user and group names as the rules and the config give them
 * (on Windows, account names and their SIDs). false: no such name. */
bool accounts_user(const char *name, unsigned *id);
bool accounts_group(const char *name, unsigned *id);
/* Whether a user id is root's or a system account's, whose processes
 * restraint leaves alone (Linux: below 1000, Debian's first user, and
 * nobody; Windows: SYSTEM, LOCAL SERVICE, NETWORK SERVICE and the
 * services' and window manager's virtual accounts). */
bool accounts_system(unsigned id);

/* endpoint.c: the control endpoint (a UNIX socket, a named pipe) */
size_t endpoint_path_max(void);

/* timing.c: a monotonic clock, this thread's CPU time, sleeps */
long long timing_now_ns(void);
long long timing_thread_cpu_ns(void);
void timing_sleep_ns(long long ns);
void timing_sleep_until_ns(long long when);

/* memstream.c: a stream into memory (open_memstream where the C library
 * has one). memstream_close: the text written, NUL-terminated and the
 * caller's to free, its length in *len; NULL when the stream failed. */
struct memstream {
	FILE *file;
	char *text;
	size_t len;
};
FILE *memstream_open(struct memstream *m);
char *memstream_close(struct memstream *m, size_t *len);

/* linux/procinfo.c, windows/procinfo.c: this process */
pid_t procinfo_self(void);

/* apply_place.c: the CPUs this machine has, online or not */
enum os_status apply_place_present(hwloc_bitmap_t set);

/* paths.c: the roots of the trees the backend reads, set once before
 * anything is read (the config's [paths], a test's fake tree); NULL
 * keeps the backend's own (Linux: /proc, /sys, /dev; Windows has none).
 */
void paths_set_roots(const char *procfs, const char *sysfs, const char *dev);
/* Where the daemon's files are by default, and what a path and
 * the control endpoint's name look like on this system (Linux: /etc,
 * /run, ':' between directories; Windows: %ProgramData%, a named pipe,
 * ';' between directories, as a drive letter has a ':' of its own). */
const char *paths_conf_file(void);
const char *paths_rules_dirs(void);
const char *paths_endpoint(void);
const char *paths_state_dir(void);
const char *paths_list_separators(void);
bool paths_absolute(const char *path);
bool paths_endpoint_valid(const char *name, char *why, size_t size);

#endif
