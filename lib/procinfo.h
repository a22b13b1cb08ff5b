/* Facts about a process, read from /proc (under a configurable root).
 * Everything read is bounded and treated as hostile: names, command lines
 * and paths are chosen by whoever started the process. */
#ifndef CPUPOLICY_PROCINFO_H
#define CPUPOLICY_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "match.h"

struct procinfo {
	const char *procfs;
	pid_t pid;
};

/* A daemon by its install paths (lists end with NULL): its binary at one
 * of exes, or a script at one of scripts run by an interpreter whose path
 * matches one of the globs in interpreters. */
struct procinfo_daemon {
	const char *const *exes;
	const char *const *interpreters;
	const char *const *scripts;
};

/* procinfo.c */
void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts);
int procinfo_start_time(const char *procfs, pid_t pid, pid_t tid,
			unsigned long long *start);
int procinfo_stat(const char *procfs, pid_t pid, pid_t tid, pid_t *ppid,
		  unsigned long long *start);
int procinfo_threads(const char *procfs, pid_t pid, pid_t **tids,
		     size_t *count);
int procinfo_pids(const char *procfs, pid_t **pids, size_t *count);
int procinfo_read(const char *path, char *buf, size_t size, size_t *len);
int procinfo_parse_stat(const char *stat, pid_t *ppid,
			unsigned long long *start);
int procinfo_parse_creds(char *status, struct facts *facts);
void procinfo_parse_cgroups(char *text, char *out, size_t size);
void procinfo_parse_cmdline(char *cmdline, size_t len);
bool procinfo_zombie(const char *procfs, pid_t pid);
enum match_file procinfo_same_file(const struct stat *running,
				   const struct stat *named);
bool procinfo_is_daemon(const char *procfs, pid_t pid,
			const struct procinfo_daemon *daemon);

#endif
