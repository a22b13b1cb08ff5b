/* The Linux backend's own parts, beyond the seam (os.h): the parsers of
 * /proc (tested and fuzzed on their own), the reader of bounded files,
 * and what the proc connector's refusals depend on. */
#ifndef CPUPOLICY_LINUX_H
#define CPUPOLICY_LINUX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "os.h"

/* A daemon by its install paths (lists end with NULL): its binary at one
 * of exes, or a script at one of scripts run by an interpreter whose path
 * matches one of the globs in interpreters. */
struct procinfo_daemon {
	const char *const *exes;
	const char *const *interpreters;
	const char *const *scripts;
};

/* procinfo.c */
int procinfo_stat(const char *procfs, pid_t pid, pid_t tid, pid_t *ppid,
		  unsigned long long *start);
int procinfo_read(const char *path, char *buf, size_t size, size_t *len);
int procinfo_parse_stat(const char *stat, pid_t *ppid,
			unsigned long long *start);
bool procinfo_parse_stat_alone(const char *stat);
void procinfo_parse_stat_comm(const char *stat, char *comm, size_t size);
int procinfo_parse_stat_cpu(const char *stat, unsigned long long *ticks,
			    int *nice);
int procinfo_parse_stat_usage(const char *stat, unsigned long long *ticks,
			      struct procinfo_usage *usage);
int procinfo_parse_creds(char *status, struct facts *facts);

/* pressure.c */
int pressure_parse(const char *text, unsigned long long *total_us);
void procinfo_parse_cgroups(char *text, char *out, size_t size);
void procinfo_parse_cmdline(char *cmdline, size_t len);
enum match_file procinfo_same_file(const struct stat *running,
				   const struct stat *named);
bool procinfo_is_daemon(pid_t pid, const struct procinfo_daemon *daemon);

/* What decides whether the kernel serves process events to a listener:
 * read by events_env_read, explained by events_refusal. */
struct events_env {
	int kernel_major, kernel_minor;
	bool cap_net_admin;  /* in the effective set */
	bool initial_pid_ns; /* the kernel serves only the initial ones */
	bool initial_user_ns;
	enum os_status status; /* of the failed open or subscription */
	int error;	       /* its errno */
};

/* bpfmap.c: the exec filter's maps, by bpf(2); -1 and errno on a
 * failure. */
int bpfmap_lookup(int fd, const void *key, void *value);
int bpfmap_update(int fd, const void *key, const void *value,
		  unsigned long long flags);
int bpfmap_delete(int fd, const void *key);
int bpfmap_next_key(int fd, const void *key, void *next);
int bpfmap_max_entries(int fd, unsigned *max);
int bpfmap_possible_cpus(void);

/* bpfring.c: a BPF ring buffer's reader. fn gets each record; less
 * than 0 stops the reading. */
struct bpfring;
typedef int (*bpfring_fn)(void *ctx, const void *data, size_t size);
struct bpfring *bpfring_open(int fd);
void bpfring_close(struct bpfring *r);
int bpfring_consume(struct bpfring *r, bpfring_fn fn, void *ctx);

/* What decides whether the BPF exec filter loads: read by
 * execfilter_env_read after a failure, explained by execfilter_refusal. */
struct execfilter_env {
	const char *step; /* "open", "load", "attach", "ring buffer" */
	int error;	  /* its errno */
	int kernel_major, kernel_minor;
	bool btf; /* /sys/kernel/btf/vmlinux readable */
	bool cap_bpf, cap_perfmon, cap_sys_admin; /* effective */
	char lockdown[32];  /* the mode in force, "" when unknown */
	char verifier[256]; /* the verifier's last word, "" when none */
};

/* What a walk from / down to a path found that someone other than root
 * could have written: the first such component, how, and where. */
enum trust_fault {
	TRUST_FAULT_NONE,
	TRUST_FAULT_OWNER,    /* owned by someone else */
	TRUST_FAULT_WRITABLE, /* writable by its group or others */
	TRUST_FAULT_TYPE,     /* not a directory where one must be */
	TRUST_FAULT_UNKNOWN,  /* cannot be checked: error says why */
};

enum trust_flags {
	TRUST_SELF = 1 << 0, /* the user this runs as may own things too */
	TRUST_DIR = 1 << 1,  /* the path itself must be a directory */
};

struct trust_flaw {
	enum trust_fault fault;
	char path[PATH_MAX]; /* the component at fault */
	struct stat st;	     /* as lstat found it */
	bool last;	     /* the path itself, not a directory above it */
	bool resolved;	     /* on the way the path resolves to */
	int error;
};

/* trust.c: the walk behind trust_path and statefile_dir_safe; true when
 * nobody else could have written anything on the way. */
enum trust_fault trust_judge(const struct stat *st, bool last, unsigned flags);
bool trust_walk(const char *path, unsigned flags, struct trust_flaw *flaw);

/* paths.c: the roots paths_set_roots set (/proc, /sys, /dev by
 * default) */
const char *paths_procfs(void);
const char *paths_sysfs(void);
const char *paths_dev(void);

/* status.c */
enum os_status status_of_errno(int error);
enum os_status status_of_result(int result);

/* apply_place.c */
int apply_place_read_list(const char *path, hwloc_bitmap_t set);

/* cputimes.c */
int cputimes_parse(const char *text, struct procstat *stat);

/* events.c */
void events_env_read(struct events_env *env, enum os_status status, int error);
/* One datagram of the proc connector: the events in it, counted. */
unsigned events_parse(const void *buf, size_t len, events_fn fn, void *ctx,
		      struct events_acks *acks);
void events_refusal(const struct events_env *env, char *buf, size_t size);

/* execwatch.c: the directories of the exec filter's literal exes */
struct execwatch;
typedef void (*execwatch_fn)(void *ctx, size_t path);
struct execwatch *execwatch_open(void);
int execwatch_fd(const struct execwatch *w);
void execwatch_set(struct execwatch *w, char *const *paths, size_t count);
int execwatch_read(struct execwatch *w, execwatch_fn fn, void *ctx);
void execwatch_retry(struct execwatch *w, execwatch_fn fn, void *ctx);
void execwatch_close(struct execwatch *w);

/* execfilter.c */
void execfilter_refusal(const struct execfilter_env *env, char *buf,
			size_t size);
unsigned long long execfilter_dev_to_stat(unsigned kernel_dev);

#endif
