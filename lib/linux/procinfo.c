/* Facts about a process, read from /proc (under a configurable root).
 * Everything read is bounded and treated as hostile: names, command lines
 * and paths are chosen by whoever started the process. A process that is
 * gone (ENOENT, ESRCH) is normal: the caller sees a failed fact. */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "pattern.h"
#include "linux.h"
#include "util.h"

/* Reads at most size - 1 bytes and NUL-terminates them. */
/* A read that ends on a newline with room left has the whole of a file
 * of one line that the kernel makes at once (/proc/PID/stat): the read
 * that would answer 0 is not made. */
static bool procinfo_whole_line(const char *buf, size_t used, size_t size,
				bool one_line)
{
	return one_line && used && used + 1 < size && buf[used - 1] == '\n';
}

static int procinfo_read_file(const char *path, char *buf, size_t size,
			      size_t *len, bool one_line)
{
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	while (used + 1 < size &&
	       !procinfo_whole_line(buf, used, size, one_line)) {
		ssize_t n = read(fd, buf + used, size - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return 0;
}

int procinfo_read(const char *path, char *buf, size_t size, size_t *len)
{
	return procinfo_read_file(path, buf, size, len, false);
}

static int procinfo_exe(const char *procfs, pid_t pid, char *exe, size_t size)
{
	static const char deleted[] = " (deleted)";
	char path[64 + PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/exe", procfs, (int)pid);
	n = readlink(path, exe, size - 1);
	/* Kernel threads have no exe; a path that fills the buffer may have
	 * been cut, and a cut path must not match a rule. */
	if (n <= 0 || (size_t)n >= size - 1)
		return -1;
	exe[n] = '\0';
	/* A binary replaced or removed since the process started; match the
	 * path it was started from. */
	if ((size_t)n > sizeof(deleted) - 1 &&
	    strcmp(exe + n - (sizeof(deleted) - 1), deleted) == 0)
		exe[n - (sizeof(deleted) - 1)] = '\0';
	return 0;
}

/* What the file a process runs (running) is to the file its exe path names
 * here (named, or NULL when the path names nothing the daemon can see). A
 * binary deleted since the process started is still the program the path
 * names when an upgrade replaced it: the file there now is on the same
 * filesystem and has the same owner. Another filesystem (a tmpfs or an
 * overlay in someone's mount namespace) or another owner is not an
 * upgrade. */
enum match_file procinfo_same_file(const struct stat *running,
				   const struct stat *named)
{
	if (named && named->st_dev == running->st_dev &&
	    named->st_ino == running->st_ino)
		return MATCH_FILE_SAME;
	if (running->st_nlink > 0)
		return named ? MATCH_FILE_OTHER : MATCH_FILE_UNSEEN;
	if (named && S_ISREG(named->st_mode) &&
	    named->st_dev == running->st_dev &&
	    named->st_uid == running->st_uid)
		return MATCH_FILE_REPLACED;
	return MATCH_FILE_DELETED;
}

/* The attributes the daemon has, without asking the filesystem for fresh
 * ones: a FUSE server of the user's own, under the exe or under a path in
 * the daemon's namespace, could otherwise keep the daemon waiting for an
 * answer that never comes. */
static int procinfo_statx(int dir, const char *path, int flags, struct stat *st)
{
	struct statx x;

	if (statx(dir, path, flags | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_INO,
		  &x) < 0)
		return -1;
	*st = (struct stat){
		.st_dev = makedev(x.stx_dev_major, x.stx_dev_minor),
		.st_ino = x.stx_ino,
		.st_nlink = x.stx_nlink,
		.st_uid = x.stx_uid,
		.st_mode = x.stx_mode,
	};
	return 0;
}

/* The file behind the exe link itself. The link is followed, not its
 * text looked up: the text is a name, which here may be another file;
 * the kernel follows /proc's magic link to the running file itself, as
 * an open would, in one call. */
static int procinfo_exe_stat(const char *procfs, pid_t pid, struct stat *st)
{
	char path[64 + PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d/exe", procfs, (int)pid);
	return procinfo_statx(AT_FDCWD, path, 0, st);
}

static int procinfo_exe_file(const char *procfs, pid_t pid, const char *exe,
			     enum match_file *file)
{
	struct stat running, named;

	if (procinfo_exe_stat(procfs, pid, &running) < 0)
		return -1;
	*file = procinfo_same_file(
		&running,
		procinfo_statx(AT_FDCWD, exe, 0, &named) == 0 ? &named : NULL);
	return 0;
}

static int procinfo_comm(const char *procfs, pid_t pid, char *comm, size_t size)
{
	char path[64 + PATH_MAX];
	size_t len;

	snprintf(path, sizeof(path), "%s/%d/comm", procfs, (int)pid);
	if (procinfo_read(path, comm, size, &len) < 0)
		return -1;
	if (len && comm[len - 1] == '\n')
		comm[len - 1] = '\0';
	return 0;
}

/* Arguments are NUL-separated: join them with single spaces. */
void procinfo_parse_cmdline(char *cmdline, size_t len)
{
	while (len && cmdline[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++) {
		if (cmdline[i] == '\0')
			cmdline[i] = ' ';
	}
	cmdline[len] = '\0';
}

static int procinfo_cmdline(const char *procfs, pid_t pid, char *cmdline,
			    size_t size)
{
	char path[64 + PATH_MAX];
	size_t len;

	snprintf(path, sizeof(path), "%s/%d/cmdline", procfs, (int)pid);
	if (procinfo_read(path, cmdline, size, &len) < 0)
		return -1;
	procinfo_parse_cmdline(cmdline, len);
	return 0;
}

/* The second field of "Uid:" and "Gid:" is the effective id. */
int procinfo_parse_creds(char *status, struct facts *facts)
{
	bool uid = false, gid = false;
	char *line, *save = NULL;

	facts->group_count = 0;
	for (line = strtok_r(status, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned real, effective;

		if (sscanf(line, "Uid: %u %u", &real, &effective) == 2) {
			facts->uid = effective;
			uid = true;
		} else if (sscanf(line, "Gid: %u %u", &real, &effective) == 2) {
			facts->gid = effective;
			gid = true;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;

			while (facts->group_count < MATCH_GROUPS_MAX) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p)
					break;
				facts->groups[facts->group_count++] = (gid_t)g;
				p = end;
			}
		}
	}
	if (!uid || !gid) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int procinfo_creds(const char *procfs, pid_t pid, struct facts *facts)
{
	char path[64 + PATH_MAX], status[4096];

	snprintf(path, sizeof(path), "%s/%d/status", procfs, (int)pid);
	if (procinfo_read(path, status, sizeof(status), NULL) < 0)
		return -1;
	return procinfo_parse_creds(status, facts);
}

static bool procinfo_has_line(const char *lines, const char *line, size_t len)
{
	for (const char *p = lines; *p;) {
		const char *end = strchrnul(p, '\n');

		if ((size_t)(end - p) == len && memcmp(p, line, len) == 0)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* Every hierarchy's path, once each: "N:controllers:path" lines. */
void procinfo_parse_cgroups(char *text, char *out, size_t size)
{
	char *line, *save = NULL;
	size_t used = 0;

	out[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		char *cgroup = colon ? strchr(colon + 1, ':') : NULL;
		size_t len;

		if (!cgroup)
			continue;
		cgroup++;
		len = strlen(cgroup);
		if (procinfo_has_line(out, cgroup, len))
			continue;
		if (used + len + 2 > size)
			break;
		memcpy(out + used, cgroup, len);
		used += len;
		out[used++] = '\n';
		out[used] = '\0';
	}
}

static int procinfo_cgroups(const char *procfs, pid_t pid, char *out,
			    size_t size)
{
	char path[64 + PATH_MAX], text[MATCH_CGROUP_MAX];

	snprintf(path, sizeof(path), "%s/%d/cgroup", procfs, (int)pid);
	if (procinfo_read(path, text, sizeof(text), NULL) < 0)
		return -1;
	procinfo_parse_cgroups(text, out, size);
	return 0;
}

/* The fields after the command name, which may hold spaces and ')'. */
int procinfo_parse_stat(const char *stat, pid_t *ppid,
			unsigned long long *start)
{
	const char *p;
	int field = 2, parent = 0;
	unsigned long long started = 0;

	p = strrchr(stat, ')');
	if (!p) {
		errno = EINVAL;
		return -1;
	}
	for (p++; *p && field < 22; field++) {
		while (*p == ' ')
			p++;
		if (field + 1 == 4)
			parent = atoi(p);
		if (field + 1 == 22)
			started = strtoull(p, NULL, 10);
		while (*p && *p != ' ')
			p++;
	}
	if (field < 22 || !started) {
		errno = EINVAL;
		return -1;
	}
	if (ppid)
		*ppid = parent;
	if (start)
		*start = started;
	return 0;
}

/* The CPU time a process or thread used, utime + stime in clock ticks
 * (fields 14 and 15), and its nice value (field 19). */
int procinfo_parse_stat_cpu(const char *stat, unsigned long long *ticks,
			    int *nice)
{
	const char *p = strrchr(stat, ')');
	unsigned long long ut, st;
	int n = 0, got = 0;

	if (p && p[1])
		got = sscanf(p + 2,
			     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			     "%llu %llu %*d %*d %*d %d",
			     &ut, &st, &n);
	if (got < (nice ? 3 : 2)) {
		errno = EINVAL;
		return -1;
	}
	*ticks = ut + st;
	if (nice)
		*nice = n;
	return 0;
}

/* The name in a stat line: from the first '(' to the last ')', which the
 * name itself may hold; "" when there is none. */
void procinfo_parse_stat_comm(const char *stat, char *comm, size_t size)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');

	comm[0] = '\0';
	if (open && close && close > open)
		snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
}

/* What restraint samples in a stat line, times in clock ticks: the
 * parent (field 4), the session (6), utime + stime (14, 15), nice (19)
 * and the start (22). */
int procinfo_parse_stat_usage(const char *stat, unsigned long long *ticks,
			      struct procinfo_usage *usage)
{
	const char *p = strrchr(stat, ')');
	unsigned long long ut, st, start;
	int ppid, session, nice;

	if (!p || !p[1] ||
	    sscanf(p + 2,
		   "%*c %d %*d %d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d "
		   "%*d %*d %d %*d %*d %llu",
		   &ppid, &session, &ut, &st, &nice, &start) < 6 ||
	    !start) {
		errno = EINVAL;
		return -1;
	}
	*ticks = ut + st;
	usage->ppid = ppid;
	usage->session = session;
	usage->nice = nice;
	usage->start = start;
	return 0;
}

/* Whether a process's stat says its main thread is the only one alive:
 * one thread (field 20) and the main one not a zombie (field 3), whose
 * end leaves the others running. Read as procinfo_parse_stat_cpu reads
 * the fields before it. */
bool procinfo_parse_stat_alone(const char *stat)
{
	const char *p = strrchr(stat, ')');
	char state = 0;
	int threads = 0;

	if (!p || !p[1] ||
	    sscanf(p + 2,
		   "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
		   "%*d %*d %*d %d",
		   &state, &threads) < 2)
		return false;
	return threads == 1 && state != 'Z' && state != 'X';
}

/* A process's or thread's stat line (tid 0: the process's). */
static int procinfo_stat_line(const char *procfs, pid_t pid, pid_t tid,
			      char *stat, size_t size)
{
	char path[96];

	if (tid)
		snprintf(path, sizeof(path), "%s/%d/task/%d/stat", procfs,
			 (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "%s/%d/stat", procfs, (int)pid);
	return procinfo_read_file(path, stat, size, NULL, true);
}

int procinfo_stat(const char *procfs, pid_t pid, pid_t tid, pid_t *ppid,
		  unsigned long long *start)
{
	char stat[1024];

	if (procinfo_stat_line(procfs, pid, tid, stat, sizeof(stat)) < 0)
		return -1;
	return procinfo_parse_stat(stat, ppid, start);
}

/* The age from the boot clock, which counts the suspended time as the
 * start field does. */
enum os_status procinfo_usage(pid_t pid, struct procinfo_usage *usage)
{
	static long hz;
	unsigned long long ticks, now;
	struct timespec boot;
	char stat[1024];

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	*usage = (struct procinfo_usage){0};
	if (procinfo_stat_line(paths_procfs(), pid, 0, stat, sizeof(stat)) <
		    0 ||
	    procinfo_parse_stat_usage(stat, &ticks, usage) < 0)
		return status_of_errno(errno);
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return status_of_errno(errno ? errno : EINVAL);
	usage->cpu_ns = ticks * (1000000000ULL / (unsigned long long)hz);
	now = (unsigned long long)boot.tv_sec * 1000000000ULL +
	      (unsigned long long)boot.tv_nsec;
	ticks = usage->start * (1000000000ULL / (unsigned long long)hz);
	usage->age_ns = now > ticks ? now - ticks : 0;
	return OS_OK;
}

/* schedstat: "ON_CPU_NS WAITING_NS TIMESLICES" (the scheduler's
 * statistics, Documentation/scheduler/sched-stats.rst). */
enum os_status procinfo_waited(pid_t pid, unsigned long long *ns)
{
	char path[64], text[128];
	unsigned long long on_cpu;

	snprintf(path, sizeof(path), "%s/%d/schedstat", paths_procfs(),
		 (int)pid);
	if (procinfo_read(path, text, sizeof(text), NULL) < 0)
		return status_of_errno(errno);
	if (sscanf(text, "%llu %llu", &on_cpu, ns) != 2)
		return OS_FAILED;
	return OS_OK;
}

enum os_status procinfo_start_time(pid_t pid, pid_t tid,
				   unsigned long long *start)
{
	const char *procfs = paths_procfs();
	return status_of_result(procinfo_stat(procfs, pid, tid, NULL, start));
}

enum os_status procinfo_state(pid_t pid, struct procinfo_state *state)
{
	const char *procfs = paths_procfs();
	char stat[1024];

	*state = (struct procinfo_state){0};
	if (procinfo_stat_line(procfs, pid, 0, stat, sizeof(stat)) < 0 ||
	    procinfo_parse_stat(stat, NULL, &state->start) < 0)
		return status_of_errno(errno);
	state->alone = procinfo_parse_stat_alone(stat);
	procinfo_parse_stat_comm(stat, state->comm, sizeof(state->comm));
	return OS_OK;
}

static int procinfo_parent_exe(const struct procinfo *pi, struct facts *facts)
{
	if (procinfo_stat(paths_procfs(), pi->pid, 0, &facts->ppid, NULL) < 0 ||
	    facts->ppid <= 0)
		return -1;
	return procinfo_exe(paths_procfs(), facts->ppid, facts->parent_exe,
			    sizeof(facts->parent_exe));
}

static int procinfo_read_fact(const struct procinfo *pi, unsigned fact,
			      struct facts *facts)
{
	switch (fact) {
	case MATCH_FACT_EXE:
		return procinfo_exe(paths_procfs(), pi->pid, facts->exe,
				    sizeof(facts->exe));
	case MATCH_FACT_COMM:
		return procinfo_comm(paths_procfs(), pi->pid, facts->comm,
				     sizeof(facts->comm));
	case MATCH_FACT_CMDLINE:
		return procinfo_cmdline(paths_procfs(), pi->pid, facts->cmdline,
					sizeof(facts->cmdline));
	case MATCH_FACT_CREDS:
		return procinfo_creds(paths_procfs(), pi->pid, facts);
	case MATCH_FACT_CGROUP:
		return procinfo_cgroups(paths_procfs(), pi->pid, facts->cgroups,
					sizeof(facts->cgroups));
	case MATCH_FACT_PARENT_EXE:
		return procinfo_parent_exe(pi, facts);
	default:
		errno = EINVAL;
		return -1;
	}
}

/* One fact of a process, for procinfo_fetch (procinfo.c). A kernel
 * thread has no exe: readlink fails with ENOENT, the fact is gone. */
enum os_status procinfo_fact(const struct procinfo *pi, unsigned fact,
			     struct facts *facts)
{
	errno = ENOENT;
	return status_of_result(procinfo_read_fact(pi, fact, facts));
}

/* The identity of the file behind an exe path already fetched. */
enum os_status procinfo_file(const struct procinfo *pi, pid_t pid,
			     const char *exe, enum match_file *file)
{
	(void)pi;
	return status_of_result(
		procinfo_exe_file(paths_procfs(), pid, exe, file));
}

static int procinfo_numbers(const char *path, pid_t **out, size_t *count)
{
	size_t capacity = 0;
	struct dirent *d;
	DIR *dp = opendir(path);

	*out = NULL;
	*count = 0;
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		char *end;
		long n;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		n = strtol(d->d_name, &end, 10);
		if (*end || n <= 0)
			continue;
		if (*count == capacity) {
			capacity = capacity ? capacity * 2 : 64;
			*out = xreallocarray(*out, capacity, sizeof(**out));
		}
		(*out)[(*count)++] = (pid_t)n;
	}
	closedir(dp);
	return 0;
}

enum os_status procinfo_threads(pid_t pid, pid_t **tids, size_t *count)
{
	const char *procfs = paths_procfs();
	char path[96];

	snprintf(path, sizeof(path), "%s/%d/task", procfs, (int)pid);
	return status_of_result(procinfo_numbers(path, tids, count));
}

enum os_status procinfo_pids(pid_t **pids, size_t *count)
{
	const char *procfs = paths_procfs();
	return status_of_result(procinfo_numbers(procfs, pids, count));
}

/* The main thread ended (a zombie) while others may run on: its facts
 * (exe, name) are gone from /proc/PID until the process ends. */
bool procinfo_zombie(pid_t pid)
{
	const char *procfs = paths_procfs();
	char path[96], stat[1024];
	const char *p;

	snprintf(path, sizeof(path), "%s/%d/stat", procfs, (int)pid);
	if (procinfo_read(path, stat, sizeof(stat), NULL) < 0)
		return false;
	p = strrchr(stat, ')');
	return p && p[1] == ' ' && p[2] == 'Z';
}

static bool procinfo_listed(const char *const *list, const char *path,
			    bool globs)
{
	for (; list && *list; list++) {
		if (globs ? pattern_match(*list, path)
			  : strcmp(*list, path) == 0)
			return true;
	}
	return false;
}

/* Root's own file: owned by root, and no one else may write it. */
static bool procinfo_roots(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == 0 &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The script an interpreter runs: its first argument that is no option
 * ("python3 -Es /usr/sbin/tuned -l"). */
static bool procinfo_runs_script(const char *procfs, pid_t pid,
				 const char *const *scripts)
{
	char path[64 + PATH_MAX], args[MATCH_CMDLINE_MAX];
	struct stat st;
	size_t len, at;

	snprintf(path, sizeof(path), "%s/%d/cmdline", procfs, (int)pid);
	if (procinfo_read(path, args, sizeof(args), &len) < 0)
		return false;
	for (at = strlen(args) + 1; at < len && args[at] == '-';)
		at += strlen(args + at) + 1;
	return at < len && procinfo_listed(scripts, args + at, false) &&
	       procinfo_statx(AT_FDCWD, args + at, 0, &st) == 0 &&
	       procinfo_roots(&st);
}

/* Every id root's: real, effective, saved and file system. A set-user-ID
 * program a user starts (passwd, sudo waiting for a password) runs with
 * an effective id of root but keeps the user's real one; only root, or
 * one root let become root, holds all four. */
static bool procinfo_all_root(const char *procfs, pid_t pid)
{
	char path[64 + PATH_MAX], status[4096], *line;
	unsigned ids[4];

	snprintf(path, sizeof(path), "%s/%d/status", procfs, (int)pid);
	if (procinfo_read(path, status, sizeof(status), NULL) < 0)
		return false;
	line = strstr(status, "\nUid:");
	return line &&
	       sscanf(line, "\nUid: %u %u %u %u", &ids[0], &ids[1], &ids[2],
		      &ids[3]) == 4 &&
	       !(ids[0] | ids[1] | ids[2] | ids[3]);
}

/* Whether the kernel refuses the daemon a process's exe (no ptrace access
 * to it). */
static bool procinfo_exe_denied(const char *procfs, pid_t pid)
{
	char path[64 + PATH_MAX], target[2];

	snprintf(path, sizeof(path), "%s/%d/exe", procfs, (int)pid);
	return readlink(path, target, sizeof(target)) < 0 && errno == EACCES;
}

/* A daemon run by root from its real binary: one that is the file the path
 * names here, not a copy or a bind mount under the same name, nor a
 * program that only took the daemon's process name. */
bool procinfo_is_daemon(pid_t pid, const struct procinfo_daemon *daemon)
{
	const char *procfs = paths_procfs();
	struct procinfo pi = {pid};
	struct facts facts;
	struct stat running;

	facts.have = facts.failed = 0;
	procinfo_fetch(&pi, MATCH_FACT_CREDS, &facts);
	if (!(facts.have & MATCH_FACT_CREDS) || facts.uid != 0)
		return false;
	/* A daemon without CAP_SYS_PTRACE cannot check root's binary; the
	 * name then counts, if the process is root's through and through:
	 * a set-user-ID program any user can start under that name (a link
	 * named tuned to passwd) is refused its exe just the same. */
	procinfo_fetch(&pi, MATCH_FACT_EXE_FILE, &facts);
	if (!(facts.have & MATCH_FACT_EXE_FILE))
		return procinfo_exe_denied(procfs, pid) &&
		       procinfo_all_root(procfs, pid);
	if (facts.exe_file != MATCH_FILE_SAME &&
	    facts.exe_file != MATCH_FILE_REPLACED)
		return false;
	if (procinfo_listed(daemon->exes, facts.exe, false))
		return true;
	/* A script's exe is its interpreter's, which runs any script: the
	 * script must be the daemon's, and both root's own. */
	return procinfo_listed(daemon->interpreters, facts.exe, true) &&
	       procinfo_exe_stat(procfs, pid, &running) == 0 &&
	       procinfo_roots(&running) &&
	       procinfo_runs_script(procfs, pid, daemon->scripts);
}

/* A thread's name (comm), for the explain report. */
enum os_status procinfo_thread_name(pid_t pid, pid_t tid, char *name,
				    size_t size)
{
	const char *procfs = paths_procfs();
	char path[96];
	size_t len;

	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", procfs, (int)pid,
		 (int)tid);
	if (procinfo_read(path, name, size, &len) < 0)
		return status_of_errno(errno);
	if (len && name[len - 1] == '\n')
		name[len - 1] = '\0';
	return OS_OK;
}

/* A pidfd: the process it names cannot be taken for another one that
 * gets its id later. */
enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin)
{
	int fd = pidfd_open(pid, 0);

	pin->fd = fd;
	return fd < 0 ? status_of_errno(errno) : OS_OK;
}

/* A pidfd becomes readable when its process has ended, all threads. */
static bool procinfo_fd_ended(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	return poll(&pfd, 1, 0) > 0;
}

bool procinfo_pin_ended(const struct procinfo_pin *pin)
{
	return procinfo_fd_ended(pin->fd);
}

void procinfo_unpin(struct procinfo_pin *pin)
{
	if (pin->fd >= 0)
		close(pin->fd);
	pin->fd = -1;
}

/* The whole process ended (all its threads), not only its main thread:
 * its pidfd is readable then, and cannot be opened once it is reaped. */
bool procinfo_ended(pid_t pid)
{
	int fd = pidfd_open(pid, 0);
	bool ended;

	if (fd < 0)
		return errno == ESRCH;
	ended = procinfo_fd_ended(fd);
	close(fd);
	return ended;
}

/* Does tid (still) belong to pid? EPERM: it does, we may not signal it. */
bool procinfo_thread_in(pid_t pid, pid_t tid)
{
	return syscall(SYS_tgkill, pid, tid, 0) == 0 || errno == EPERM;
}

bool procinfo_task_exists(pid_t tid)
{
	return kill(tid, 0) == 0 || errno == EPERM;
}

pid_t procinfo_self(void)
{
	return getpid();
}

/* /proc/PID/task is one process's: no listing to share across a scan. */
void procinfo_scan_begin(void)
{
}

void procinfo_scan_end(void)
{
}
