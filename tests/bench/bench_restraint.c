/* Benchmark: restraint, side by side, printed as a section of
 * docs/benchmarks.md (Markdown). A frame task (frames.c: every 16.7 ms,
 * 11 ms of CPU work) runs while CPU hogs of an unprivileged user, two per
 * CPU, start mid-run, in the task's own session (its autogroup) or each
 * in a session of its own; with no daemon, with Debian's and as its
 * package ships it, and with cpupolicyd's restraint on. Per row: the
 * frames missed and their lateness, the hogs' throughput, the time from
 * their start until every hog was lowered, the restraints that flapped,
 * the daemon's CPU; and the hogs alone, for what restraint costs them
 * when nothing else wants the CPUs.
 *   bench_restraint [-r RUNS] [-s SECONDS] [-A AND-BINARY] DAEMON HOG
 * HOG is the static worker (tests/helpers/worker.c; -w -20 spins), which
 * a user who may not read the shared libraries still runs. Root only;
 * the bench makes the hogs' account and removes it at exit. The rows
 * take turns, RUNS times (default 3), each run SECONDS long (default 7),
 * so that a noisy moment of a shared machine spreads over all of them. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"
#include "stats.h"
#include "util.h"

#define BENCH_S	 1000000000LL /* ns */
#define BENCH_MS 1000000LL

enum {
	BENCH_PERIOD_US = FRAMES_PERIOD_US, /* a 60 Hz frame */
	BENCH_WORK_US = FRAMES_WORK_US,	    /* its CPU work */
	BENCH_HOGS_AT_MS = 2000, /* the hogs start this far into a run */
	BENCH_SETTLED_MS = FRAMES_SETTLED_MS, /* frames count from this */
	BENCH_TICK_MS = 10,   /* the hogs' state is read this often */
	BENCH_UID = 4250,     /* the hogs' user, made for the bench */
	BENCH_GID = 65534,    /* nogroup */
	BENCH_WAIT_MS = 5000, /* a process given this long to end */
	BENCH_HOGS_PER_CPU = 2,
	BENCH_QUIET_S = 30,   /* a run waits this long for a quiet machine */
	BENCH_QUIET_PCT = 5,  /* quiet: the CPUs this busy at most */
	BENCH_OTHER_PCT = 10, /* a run others used this much of a CPU in */
	BENCH_RETRIES = 2,    /* is run again, this many times at most */
};
static const char bench_user[] = "cpupolicy-bench";

enum bench_daemon {
	BENCH_DAEMON_NONE,
	BENCH_DAEMON_AND, /* Debian's and, its package's config */
	BENCH_DAEMON_RESTRAINT,
};

enum bench_hogs {
	BENCH_HOGS_NONE,
	BENCH_HOGS_SAME,  /* in the probe's session */
	BENCH_HOGS_OTHER, /* all in one other session */
	BENCH_HOGS_ALONE, /* no probe: what the hogs do by themselves */
};

/* The rows, in the table's order; the targets name them. */
enum bench_row_id {
	BENCH_ROW_BASE,
	BENCH_ROW_NONE_SAME,
	BENCH_ROW_NONE_OTHER,
	BENCH_ROW_AND_SAME,
	BENCH_ROW_AND_OTHER,
	BENCH_ROW_ON_SAME,
	BENCH_ROW_ON_OTHER,
	BENCH_ROW_ALONE_NONE,
	BENCH_ROW_ALONE_ON,
	BENCH_ROW_COUNT
};

struct bench_row {
	const char *name;
	enum bench_daemon daemon;
	enum bench_hogs hogs;
};

static const struct bench_row bench_rows[BENCH_ROW_COUNT] = {
	[BENCH_ROW_BASE] = {"no hogs, no daemon", BENCH_DAEMON_NONE,
			    BENCH_HOGS_NONE},
	[BENCH_ROW_NONE_SAME] = {"no daemon, hogs in the probe's session",
				 BENCH_DAEMON_NONE, BENCH_HOGS_SAME},
	[BENCH_ROW_NONE_OTHER] = {"no daemon, hogs in another session",
				  BENCH_DAEMON_NONE, BENCH_HOGS_OTHER},
	[BENCH_ROW_AND_SAME] = {"Debian's `and`, hogs in the probe's session",
				BENCH_DAEMON_AND, BENCH_HOGS_SAME},
	[BENCH_ROW_AND_OTHER] = {"Debian's `and`, hogs in another session",
				 BENCH_DAEMON_AND, BENCH_HOGS_OTHER},
	[BENCH_ROW_ON_SAME] = {"restraint on, hogs in the probe's session",
			       BENCH_DAEMON_RESTRAINT, BENCH_HOGS_SAME},
	[BENCH_ROW_ON_OTHER] = {"restraint on, hogs in another session",
				BENCH_DAEMON_RESTRAINT, BENCH_HOGS_OTHER},
	[BENCH_ROW_ALONE_NONE] = {"hogs alone, no daemon", BENCH_DAEMON_NONE,
				  BENCH_HOGS_ALONE},
	[BENCH_ROW_ALONE_ON] = {"hogs alone, restraint on",
				BENCH_DAEMON_RESTRAINT, BENCH_HOGS_ALONE},
};

enum bench_col {
	BENCH_COL_MISSED, /* percent of the window's frames */
	BENCH_COL_P50,	  /* lateness, ns */
	BENCH_COL_P99,
	BENCH_COL_P999,
	BENCH_COL_THROUGHPUT, /* the hogs' CPUs' worth */
	BENCH_COL_RELIEF,     /* hogs' start to every hog lowered, ns */
	BENCH_COL_FLAPS,      /* lowered, given back, while they ran */
	BENCH_COL_DAEMON_CPU, /* percent of one CPU */
	BENCH_COL_COUNT
};

/* One run of a row; has[] false where the column does not apply, or (the
 * relief) it did not happen. */
struct bench_sample {
	double v[BENCH_COL_COUNT];
	bool has[BENCH_COL_COUNT];
	bool probe_lowered;
	bool quiet;	  /* the machine was quiet at its start */
	double other_pct; /* the rest of the machine's CPU, % of one */
};

struct bench {
	const char *daemon, *and;
	char *hog, *and_conf, *and_prio;
	char dir[PATH_MAX];
	int runs, seconds, hogs, retries;
	bool user_made;
	struct bench_sample *samples[BENCH_ROW_COUNT];
};

/* What must not outlive the bench however it ends: the daemon, the
 * hogs, the probe, the account and the directory. */
static pid_t bench_daemon_pid, bench_probe_pid;
static pid_t *bench_hog_pids;
static int bench_hog_count;
static const struct bench *bench_cleanup;
static volatile sig_atomic_t bench_stopping;

static void bench_on_signal(int sig)
{
	(void)sig;
	bench_stopping = 1;
}

static long long bench_now(void)
{
	return frames_now_ns();
}

static void bench_sleep_until(long long at)
{
	struct timespec ts = {at / BENCH_S, at % BENCH_S};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Whether pid has ended: reaped, or gone. A hog of the other session is
 * its leader's child until that one ends, then the bench's (a
 * subreaper): ECHILD until then. */
static bool bench_ended(pid_t pid)
{
	pid_t r = waitpid(pid, NULL, WNOHANG);

	if (r == pid || (r < 0 && errno != ECHILD))
		return true;
	return r < 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

/* Waits for pid to end, until wait_ms; then kills it and waits again.
 * A child that does not end even then is left, said so. */
static void bench_reap(pid_t pid, int wait_ms)
{
	for (int round = 0; round < 2 && pid > 0; round++) {
		long long end = bench_now() + wait_ms * BENCH_MS;

		while (bench_now() < end) {
			if (bench_ended(pid))
				return;
			bench_sleep_until(bench_now() + 2 * BENCH_MS);
		}
		kill(pid, SIGKILL);
		wait_ms = BENCH_WAIT_MS;
	}
	fprintf(stderr, "bench: process %d did not end\n", (int)pid);
}

static void bench_hogs_stop(void)
{
	for (int i = 0; i < bench_hog_count; i++)
		kill(bench_hog_pids[i], SIGKILL);
	for (int i = 0; i < bench_hog_count; i++)
		bench_reap(bench_hog_pids[i], BENCH_WAIT_MS);
	bench_hog_count = 0;
}

static void bench_daemon_stop(void)
{
	if (bench_daemon_pid > 0) {
		kill(bench_daemon_pid, SIGTERM);
		bench_reap(bench_daemon_pid, BENCH_WAIT_MS);
	}
	bench_daemon_pid = 0;
}

static void bench_at_exit(void)
{
	const struct bench *b = bench_cleanup;
	char *cmd;

	if (bench_probe_pid > 0) {
		kill(bench_probe_pid, SIGKILL);
		bench_reap(bench_probe_pid, BENCH_WAIT_MS);
	}
	bench_hogs_stop();
	bench_daemon_stop();
	if (!b)
		return;
	if (b->user_made && system("userdel cpupolicy-bench") != 0)
		fprintf(stderr, "bench: the account %s is left behind\n",
			bench_user);
	cmd = xasprintf("rm -rf '%s'", b->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench: %s is left behind\n", b->dir);
	free(cmd);
}

static void bench_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* CPU time of every thread of pid, ns (schedstat: precise, unlike the
 * clock ticks of /proc/PID/stat); -1 when it is gone. */
static long long bench_cpu_ns(pid_t pid)
{
	char path[64];
	long long sum = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char file[sizeof(path) + 288];
		long long ns;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/schedstat", path,
			 e->d_name);
		f = fopen(file, "r");
		if (f && fscanf(f, "%lld", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

/* 1 when pid runs lowered (nice above 0, SCHED_BATCH or SCHED_IDLE: what
 * restraint gives, and and's renice), 0 when not, -1 when it is gone.
 * The fields after the name's ')': nice is stat's 19th, policy its 41st. */
static int bench_lowered(pid_t pid)
{
	char path[64], buf[1024];
	int nice = 0, policy = 0, field = 3;
	char *p, *save = NULL;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || !(p = strrchr((buf[n] = '\0', buf), ')')))
		return -1;
	for (char *t = strtok_r(p + 1, " ", &save); t;
	     t = strtok_r(NULL, " ", &save), field++) {
		if (field == 19)
			nice = atoi(t);
		if (field == 41)
			policy = atoi(t);
	}
	return nice > 0 || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

/* The hogs' account: made unless the id is taken (then that account
 * runs them; only its id matters to a daemon), removed at exit. Without
 * useradd the id runs them bare. */
static void bench_user_make(struct bench *b)
{
	struct passwd *pw = getpwuid(BENCH_UID);

	if (pw)
		return;
	b->user_made = system("useradd --no-create-home --uid 4250 --gid "
			      "nogroup --shell /usr/sbin/nologin "
			      "cpupolicy-bench") == 0;
}

/* The daemon, or and, in a session of its own as a service manager
 * starts it: its autogroup is not the probe's. */
static pid_t bench_spawn(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		setsid();
		dup2(out, 1);
		dup2(out, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	bench_daemon_pid = pid;
	return pid;
}

/* Ready: the control socket is there (its last one removed first). */
static void bench_start_restraint(const struct bench *b)
{
	char *conf = xasprintf("%s/bench.conf", b->dir);
	char *rules = xasprintf("%s/rules", b->dir);
	char *sock = xasprintf("%s/ctl.sock", b->dir);
	char *log = xasprintf("%s/daemon.log", b->dir);
	char *argv[] = {(char *)b->daemon, "-c", conf, "-r", rules, NULL};
	struct stat st;
	int i;

	unlink(sock);
	bench_spawn(argv, log);
	for (i = 0; i < 1000 && stat(sock, &st) != 0; i++) {
		if (waitpid(bench_daemon_pid, NULL, WNOHANG) != 0)
			i = 1000;
		bench_sleep_until(bench_now() + 10 * BENCH_MS);
	}
	if (i == 1000) {
		fprintf(stderr, "bench: the daemon did not start (%s)\n", log);
		exit(1);
	}
	free(conf);
	free(rules);
	free(sock);
	free(log);
}

/* and with its package's and.conf and and.priorities, as its service
 * runs it; ready once it logs so. */
static void bench_start_and(const struct bench *b)
{
	char *log = xasprintf("%s/and.log", b->dir);
	char *argv[] = {(char *)b->and, "-f", "-s",	   "-c",
			b->and_conf,	"-d", b->and_prio, NULL};
	bool ready = false;

	bench_spawn(argv, log);
	for (int i = 0; !ready; i++) {
		char line[256];
		FILE *f = fopen(log, "r");

		while (f && !ready && fgets(line, sizeof(line), f))
			ready = strncmp(line, "AND ready.", 10) == 0;
		if (f)
			fclose(f);
		if (!ready && (i == 1000 ||
			       waitpid(bench_daemon_pid, NULL, WNOHANG) != 0)) {
			fprintf(stderr, "bench: and did not start (%s)\n", log);
			exit(1);
		}
		bench_sleep_until(bench_now() + 10 * BENCH_MS);
	}
	free(log);
}

/* The probe: a child of the bench, in its session, as root (restraint
 * and and leave root's processes alone: no foreground is declared). Its
 * frames go to memory shared with the bench. */
static pid_t bench_probe_start(struct frames_frame *frames, int count,
			       long long start, long long stop)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, "frame-probe", 0, 0, 0);
		frames_run(frames, count, start, BENCH_PERIOD_US * 1000LL,
			   BENCH_WORK_US * 1000LL, stop);
		_exit(0);
	}
	bench_probe_pid = pid;
	return pid;
}

/* The bench's user, or _exit: a hog must never run as root. */
static void bench_hog_user(void)
{
	gid_t gid = BENCH_GID;
	uid_t uid = BENCH_UID;

	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		_exit(126);
}

static void bench_hog_exec(const struct bench *b, const char *life)
{
	execl(b->hog, b->hog, "-w", "-20", "-T", life, (char *)NULL);
	_exit(127);
}

/* The other session's hogs: the first makes the session and forks the
 * rest into it, as a build started in another terminal is one session;
 * it sends their pids down fd, then becomes a hog itself. */
static void bench_hog_leader(const struct bench *b, const char *life, int fd)
{
	if (setsid() < 0)
		_exit(126);
	bench_hog_user();
	for (int i = 1; i < b->hogs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fd);
			bench_hog_exec(b, life);
		}
		if (pid < 0 || write(fd, &pid, sizeof(pid)) != sizeof(pid))
			_exit(126);
	}
	close(fd);
	bench_hog_exec(b, life);
}

/* The pids the leader sends, until it has sent them all, closed the
 * pipe or BENCH_WAIT_MS passed. */
static void bench_hogs_read(int fd, int count)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	long long end = bench_now() + BENCH_WAIT_MS * BENCH_MS;
	pid_t pid;

	while (count > 0 && bench_now() < end &&
	       poll(&pfd, 1, (int)((end - bench_now()) / BENCH_MS)) > 0 &&
	       read(fd, &pid, sizeof(pid)) == sizeof(pid)) {
		bench_hog_pids[bench_hog_count++] = pid;
		count--;
	}
	if (count > 0) {
		fprintf(stderr, "bench: the hogs did not start\n");
		exit(1);
	}
}

/* b->hogs spinning workers of the bench's user, in the bench's session
 * (the probe's) or all in one other; each ends by itself after life_ms
 * too. */
static void bench_hogs_start(const struct bench *b, bool other_session,
			     long long life_ms)
{
	char life[32];
	int fds[2];
	pid_t pid;

	snprintf(life, sizeof(life), "%lld", life_ms);
	if (!other_session) {
		for (int i = 0; i < b->hogs; i++) {
			pid = fork();
			if (pid == 0) {
				bench_hog_user();
				bench_hog_exec(b, life);
			}
			bench_hog_pids[bench_hog_count++] = pid;
		}
		return;
	}
	if (pipe(fds) < 0) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		bench_hog_leader(b, life, fds[1]);
	}
	close(fds[1]);
	bench_hog_pids[bench_hog_count++] = pid;
	bench_hogs_read(fds[0], b->hogs - 1);
	close(fds[0]);
}

static long long bench_hogs_cpu_ns(void)
{
	long long sum = 0;

	for (int i = 0; i < bench_hog_count; i++) {
		long long ns = bench_cpu_ns(bench_hog_pids[i]);

		sum += ns > 0 ? ns : 0;
	}
	return sum;
}

/* What one tick sees: the first moment every hog is lowered (the relief),
 * each hog given back while it runs (a flap), the probe lowered. */
struct bench_watch {
	bool *lowered;
	long long relief_at;
	int flaps;
	bool probe_lowered;
};

static void bench_watch_tick(struct bench_watch *w, pid_t probe, long long now)
{
	int all = bench_hog_count > 0;

	for (int i = 0; i < bench_hog_count; i++) {
		int low = bench_lowered(bench_hog_pids[i]);

		if (low == 0 && w->lowered[i])
			w->flaps++;
		if (low >= 0)
			w->lowered[i] = low;
		all &= low == 1;
	}
	if (all && !w->relief_at)
		w->relief_at = now;
	if (probe > 0 && bench_lowered(probe) == 1)
		w->probe_lowered = true;
}

/* The run's moments, ns: its start, the hogs' start, the window's start
 * (frames and throughput) and the end. */
struct bench_times {
	long long start, hogs, from, stop;
};

static void bench_times_of(const struct bench *b, const struct bench_row *row,
			   struct bench_times *t)
{
	bool alone = row->hogs == BENCH_HOGS_ALONE;

	/* Time for the fork of the probe, before its first frame. */
	t->start = bench_now() + 50 * BENCH_MS;
	t->hogs = t->start + (alone ? 0 : BENCH_HOGS_AT_MS * BENCH_MS);
	t->from = t->hogs + BENCH_SETTLED_MS * BENCH_MS;
	t->stop = t->start + b->seconds * BENCH_S -
		  (alone ? BENCH_HOGS_AT_MS * BENCH_MS : 0);
}

/* The machine's busy CPU time so far, ns: /proc/stat's first line in
 * clock ticks (user nice system idle iowait irq softirq steal). */
static long long bench_busy_ns(void)
{
	long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	int n = f ? fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7])
		  : 0;

	if (f)
		fclose(f);
	if (n != 8)
		return 0;
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * BENCH_S /
	       sysconf(_SC_CLK_TCK);
}

/* CPU time, ns, read at a run's start, at its window's start (the
 * hogs') and at its end. */
struct bench_cpu {
	long long busy, daemon, hogs_from, hogs, probe;
};

static void bench_cpu_read(pid_t probe, struct bench_cpu *c)
{
	c->busy = bench_busy_ns();
	c->daemon = bench_daemon_pid ? bench_cpu_ns(bench_daemon_pid) : 0;
	c->hogs = bench_hogs_cpu_ns();
	c->probe = probe > 0 ? bench_cpu_ns(probe) : 0;
}

/* The run's timeline, tick by tick: the hogs started at their moment,
 * their CPU read at the window's start. */
static void bench_timeline(const struct bench *b, const struct bench_row *row,
			   const struct bench_times *t, pid_t probe,
			   struct bench_watch *w, struct bench_cpu *end)
{
	bool started = row->hogs == BENCH_HOGS_NONE, from = false;

	for (long long at = t->start; at < t->stop && !bench_stopping;
	     at += BENCH_TICK_MS * BENCH_MS) {
		bench_sleep_until(at);
		if (!started && at >= t->hogs) {
			bench_hogs_start(b, row->hogs != BENCH_HOGS_SAME,
					 (t->stop - at) / BENCH_MS + 10000);
			started = true;
		}
		if (!from && at >= t->from) {
			end->hogs_from = bench_hogs_cpu_ns();
			from = true;
		}
		bench_watch_tick(w, probe, at);
	}
	bench_sleep_until(t->stop);
	bench_cpu_read(probe, end);
}

static void bench_frames_cells(const struct frames_frame *frames, int count,
			       const struct bench_times *t,
			       struct bench_sample *s)
{
	struct frames_window w;

	frames_window(frames, count, t->from, t->stop, t->stop, &w);
	s->v[BENCH_COL_MISSED] = w.frames ? 100.0 * w.missed / w.frames : 0;
	s->v[BENCH_COL_P50] = (double)w.p50_ns;
	s->v[BENCH_COL_P99] = (double)w.p99_ns;
	s->v[BENCH_COL_P999] = (double)w.p999_ns;
	for (int c = BENCH_COL_MISSED; c <= BENCH_COL_P999; c++)
		s->has[c] = true;
}

static void bench_start_row_daemon(const struct bench *b,
				   const struct bench_row *row)
{
	switch (row->daemon) {
	case BENCH_DAEMON_NONE:
		break;
	case BENCH_DAEMON_AND:
		bench_start_and(b);
		break;
	case BENCH_DAEMON_RESTRAINT:
		bench_start_restraint(b);
		break;
	}
}

/* The daemon's columns, the hogs' throughput, and the CPU the rest of
 * the machine used meanwhile. */
static void bench_fill(const struct bench_row *row, const struct bench_times *t,
		       const struct bench_watch *w, const struct bench_cpu *c0,
		       const struct bench_cpu *c1, struct bench_sample *s)
{
	double run = (double)(t->stop - t->start);

	if (row->daemon != BENCH_DAEMON_NONE) {
		s->v[BENCH_COL_DAEMON_CPU] =
			100.0 * (double)(c1->daemon - c0->daemon) / run;
		s->has[BENCH_COL_DAEMON_CPU] = s->has[BENCH_COL_FLAPS] = true;
		s->v[BENCH_COL_FLAPS] = w->flaps;
		s->has[BENCH_COL_RELIEF] = w->relief_at != 0;
		s->v[BENCH_COL_RELIEF] = (double)(w->relief_at - t->hogs);
	}
	if (row->hogs != BENCH_HOGS_NONE) {
		s->v[BENCH_COL_THROUGHPUT] =
			(double)(c1->hogs - c1->hogs_from) /
			(double)(t->stop - t->from);
		s->has[BENCH_COL_THROUGHPUT] = true;
	}
	s->other_pct =
		100.0 *
		(double)(c1->busy - c0->busy - (c1->daemon - c0->daemon) -
			 c1->hogs - c1->probe) /
		run;
	/* /proc/stat counts clock ticks, the rest ns: a run of nothing
	 * else can come out a tick or two under 0. */
	if (s->other_pct < 0)
		s->other_pct = 0;
	s->probe_lowered = w->probe_lowered;
}

/* Waits for a quiet machine, the last run's processes gone and nobody
 * else's busy (under BENCH_QUIET_PCT of the CPUs through 300 ms), for
 * BENCH_QUIET_S at most: another's build would be in the figures.
 * Whether it was. */
static bool bench_quiet(void)
{
	long long end = bench_now() + BENCH_QUIET_S * BENCH_S;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	while (bench_now() < end && !bench_stopping) {
		long long busy = bench_busy_ns(), at = bench_now();

		bench_sleep_until(at + 300 * BENCH_MS);
		busy = bench_busy_ns() - busy;
		if (100.0 * (double)busy / (double)(bench_now() - at) <
		    BENCH_QUIET_PCT * (double)(cpus > 0 ? cpus : 1))
			return true;
	}
	return false;
}

static void bench_run(const struct bench *b, const struct bench_row *row,
		      struct bench_sample *s)
{
	int count = b->seconds * 1000000 / BENCH_PERIOD_US;
	size_t size = (size_t)count * sizeof(struct frames_frame);
	struct frames_frame *frames = mmap(NULL, size, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct bench_watch w = {xcalloc((size_t)b->hogs, sizeof(bool)), 0, 0,
				false};
	struct bench_cpu c0, c1 = {0};
	struct bench_times t;
	pid_t probe = 0;

	if (frames == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	*s = (struct bench_sample){0};
	s->quiet = bench_quiet();
	bench_start_row_daemon(b, row);
	bench_times_of(b, row, &t);
	if (row->hogs != BENCH_HOGS_ALONE)
		probe = bench_probe_start(frames, count, t.start, t.stop);
	bench_sleep_until(t.start);
	bench_cpu_read(0, &c0);
	bench_timeline(b, row, &t, probe, &w, &c1);
	bench_fill(row, &t, &w, &c0, &c1, s);
	bench_hogs_stop();
	if (probe) {
		bench_reap(probe, BENCH_WAIT_MS);
		bench_probe_pid = 0;
		bench_frames_cells(frames, count, &t, s);
	}
	bench_daemon_stop();
	munmap(frames, size);
	free(w.lowered);
}

static bool bench_row_runs(const struct bench *b, const struct bench_row *row)
{
	return row->daemon != BENCH_DAEMON_AND || b->and;
}

/* Every row once per round, RUNS rounds. A run during which the rest
 * of the machine was busy is run again, BENCH_RETRIES times at most:
 * another's build in a run is noise, not the row's figure. */
static void bench_all(struct bench *b)
{
	for (int r = 0; r < b->runs && !bench_stopping; r++) {
		for (int i = 0; i < BENCH_ROW_COUNT && !bench_stopping; i++) {
			struct bench_sample *s = &b->samples[i][r];

			if (!bench_row_runs(b, &bench_rows[i]))
				continue;
			for (int again = 0; again <= BENCH_RETRIES; again++) {
				fprintf(stderr, "bench: restraint %d/%d: %s\n",
					r + 1, b->runs, bench_rows[i].name);
				bench_run(b, &bench_rows[i], s);
				if (s->other_pct <= BENCH_OTHER_PCT)
					break;
				b->retries += again < BENCH_RETRIES;
			}
		}
	}
	if (bench_stopping) {
		fprintf(stderr, "bench: stopped\n");
		exit(1);
	}
}

/* The runs of a row that have column col, summarised; their count. */
static int bench_summary(const struct bench *b, enum bench_row_id row,
			 enum bench_col col, struct stats *st)
{
	double *v = xcalloc((size_t)b->runs, sizeof(*v));
	int n = 0;

	for (int r = 0; r < b->runs; r++) {
		if (b->samples[row][r].has[col])
			v[n++] = b->samples[row][r].v[col];
	}
	if (n)
		stats_summary(v, (size_t)n, st);
	free(v);
	return n;
}

static const struct {
	double scale;
	int decimals;
	const char *unit;
} bench_units[BENCH_COL_COUNT] = {
	[BENCH_COL_MISSED] = {1, 1, "%"},
	[BENCH_COL_P50] = {1e6, 1, "ms"},
	[BENCH_COL_P99] = {1e6, 1, "ms"},
	[BENCH_COL_P999] = {1e6, 1, "ms"},
	[BENCH_COL_THROUGHPUT] = {1, 2, "CPUs"},
	[BENCH_COL_RELIEF] = {1e9, 2, "s"},
	[BENCH_COL_FLAPS] = {1, 0, ""},
	[BENCH_COL_DAEMON_CPU] = {1, 2, "%"},
};

/* Whether a row has the column at all: the relief is the one a run may
 * lack (nothing lowered every hog). */
static bool bench_applies(const struct bench_row *row, enum bench_col col)
{
	switch (col) {
	case BENCH_COL_MISSED:
	case BENCH_COL_P50:
	case BENCH_COL_P99:
	case BENCH_COL_P999:
		return row->hogs != BENCH_HOGS_ALONE;
	case BENCH_COL_THROUGHPUT:
		return row->hogs != BENCH_HOGS_NONE;
	case BENCH_COL_RELIEF:
	case BENCH_COL_FLAPS:
	case BENCH_COL_DAEMON_CPU:
		return row->daemon != BENCH_DAEMON_NONE;
	case BENCH_COL_COUNT:
		break;
	}
	return false;
}

static void bench_print_cell(const struct bench *b, enum bench_row_id row,
			     enum bench_col col)
{
	struct stats st;
	char cell[96];
	int n = bench_summary(b, row, col, &st);

	if (!n || !bench_applies(&bench_rows[row], col)) {
		printf(" — |");
		return;
	}
	stats_cell(cell, sizeof(cell), &st, bench_units[col].scale,
		   bench_units[col].decimals, bench_units[col].unit);
	if (n < b->runs)
		printf(" %s, %d of %d runs |", cell, n, b->runs);
	else
		printf(" %s |", cell);
}

/* How quiet the machine was: runs that began without a quiet moment,
 * and the CPU the rest of it used during the runs (its busy time less
 * the task's, the hogs' and the daemon's: the bench's own reads are in
 * it). */
static void bench_print_others(const struct bench *b)
{
	int total = 0, noisy = 0;
	double *v = xcalloc((size_t)(b->runs * BENCH_ROW_COUNT), sizeof(*v));
	struct stats st;
	char cell[64];

	for (int i = 0; i < BENCH_ROW_COUNT; i++) {
		for (int r = 0;
		     r < b->runs && bench_row_runs(b, &bench_rows[i]); r++) {
			v[total++] = b->samples[i][r].other_pct;
			noisy += !b->samples[i][r].quiet;
		}
	}
	stats_summary(v, (size_t)total, &st);
	stats_cell(cell, sizeof(cell), &st, 1, 1, "%");
	printf("Each run waits, up to %d s, for the machine to be quiet (its "
	       "CPUs under %d %% busy through 300 ms); %d of the %d runs "
	       "began without. A run during which the rest of the machine "
	       "(its busy time less the task's, the hogs' and the daemon's) "
	       "used more than %d %% of a CPU is run again, %d times at "
	       "most; runs again: %d. In the runs kept it used %s of a "
	       "CPU.\n\n",
	       BENCH_QUIET_S, BENCH_QUIET_PCT, noisy, total, BENCH_OTHER_PCT,
	       BENCH_RETRIES, b->retries, cell);
	free(v);
}

static void bench_print_intro(const struct bench *b)
{
	printf("## Restraint: a frame task against CPU hogs\n\n");
	printf("A frame task (`lib/frames.c`: every %.1f ms, %.0f ms "
	       "of its own CPU time, as a game or a busy UI does; absolute "
	       "deadlines, so a late frame delays the next) runs %d s while "
	       "%d CPU hogs (`tests/helpers/worker -w`, %d per CPU) of an "
	       "unprivileged user (uid %d) start %.0f s into the run, all in "
	       "the task's own session (its autogroup) or all in another, as "
	       "a build started from another terminal; "
	       "`tests/bench/bench_restraint.c`. The task runs "
	       "as root, which neither restraint nor `and` lowers: no "
	       "foreground is declared. A frame is missed when it finishes "
	       "after its period's end; its lateness is how long after, 0 "
	       "for a frame on time; a frame the run's end cut short counts "
	       "as missed, late by the time to that end. Frames, lateness "
	       "and the hogs' throughput (the CPU time they got, in CPUs) "
	       "count from %.0f s after the hogs' start to the run's end. "
	       "Relief is the time from the hogs' start until every hog runs "
	       "lowered (nice above 0, SCHED_BATCH or SCHED_IDLE; read every "
	       "%d ms); a flap a hog given back and lowered again while it "
	       "runs; the daemon's CPU its own over the run, in percent of "
	       "one CPU. Restraint runs with `enabled = true` and the "
	       "defaults; Debian's `and` with its package's `and.conf` and "
	       "`and.priorities`, as its service starts it. The hogs-alone "
	       "rows have no task: what restraint costs the hogs when "
	       "nothing else wants the CPUs. The rows take turns, %d runs "
	       "each; medians, the runs' min–max in parentheses; — where a "
	       "column does not apply, or no run had it.\n\n",
	       BENCH_PERIOD_US / 1000.0, BENCH_WORK_US / 1000.0, b->seconds,
	       b->hogs, BENCH_HOGS_PER_CPU, BENCH_UID,
	       BENCH_HOGS_AT_MS / 1000.0, BENCH_SETTLED_MS / 1000.0,
	       BENCH_TICK_MS, b->runs);
	bench_print_others(b);
	if (!b->and)
		printf("Debian's `and` not measured: its package could not be "
		       "fetched.\n\n");
}

static void bench_print_table(const struct bench *b)
{
	printf("| run | frames missed | lateness p50 | p99 | p99.9 | hogs' "
	       "throughput | hogs' start to relief | flaps | daemon CPU "
	       "|\n|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < BENCH_ROW_COUNT; i++) {
		if (!bench_row_runs(b, &bench_rows[i]))
			continue;
		printf("| %s |", bench_rows[i].name);
		for (int c = 0; c < BENCH_COL_COUNT; c++)
			bench_print_cell(b, (enum bench_row_id)i,
					 (enum bench_col)c);
		printf("\n");
	}
	printf("\n");
}

/* The median of a row's column, 0 when no run had it; *all whether every
 * run did. */
static double bench_median(const struct bench *b, enum bench_row_id row,
			   enum bench_col col, bool *all)
{
	struct stats st;
	int n = bench_summary(b, row, col, &st);

	if (all)
		*all = n == b->runs;
	return n ? st.median : 0;
}

static const char *bench_met(bool ok)
{
	return ok ? "met" : "**not met**";
}

/* The targets, judged from the medians above. */
static void bench_print_targets(const struct bench *b)
{
	double base_miss =
		bench_median(b, BENCH_ROW_BASE, BENCH_COL_MISSED, NULL);
	double base_p99 = bench_median(b, BENCH_ROW_BASE, BENCH_COL_P99, NULL);
	double alone = bench_median(b, BENCH_ROW_ALONE_NONE,
				    BENCH_COL_THROUGHPUT, NULL);
	double alone_on =
		bench_median(b, BENCH_ROW_ALONE_ON, BENCH_COL_THROUGHPUT, NULL);
	int lowered = 0;

	printf("Targets, from the medians above:\n\n");
	for (int i = BENCH_ROW_ON_SAME; i <= BENCH_ROW_ON_OTHER; i++) {
		bool all;
		double miss = bench_median(b, i, BENCH_COL_MISSED, NULL);
		double p99 = bench_median(b, i, BENCH_COL_P99, NULL);
		double relief = bench_median(b, i, BENCH_COL_RELIEF, &all);
		double cpu = bench_median(b, i, BENCH_COL_DAEMON_CPU, NULL);

		printf("- %s: frames missed %.1f points from the run without "
		       "hogs (at most 2): %s; p99 %.1f ms against %.1f ms "
		       "(at most twice): %s; relief %.2f s (within 1 s, and "
		       "some in every run): %s; the daemon %.2f %% of a CPU "
		       "(under "
		       "0.5 %%): %s.\n",
		       bench_rows[i].name, miss - base_miss,
		       bench_met(miss - base_miss <= 2), p99 / 1e6,
		       base_p99 / 1e6, bench_met(p99 <= 2 * base_p99),
		       relief / 1e9, bench_met(all && relief <= 1e9), cpu,
		       bench_met(cpu < 0.5));
	}
	printf("- The hogs alone with restraint on: %.0f %% of their "
	       "throughput with no daemon (at least 90 %%): %s.\n",
	       alone ? 100 * alone_on / alone : 0,
	       bench_met(alone && alone_on >= 0.9 * alone));
	for (int i = 0; i < BENCH_ROW_COUNT; i++) {
		for (int r = 0; r < b->runs; r++)
			lowered += b->samples[i][r].probe_lowered;
	}
	printf("- The task lowered in %d runs (none): %s.\n\n", lowered,
	       bench_met(lowered == 0));
}

/* The daemon's config: restraint on, its defaults; its paths in the
 * bench's directory. An empty rules directory, and and's files beside
 * its binary (AND is PKG/usr/sbin/and). */
static void bench_setup(struct bench *b, const char *hog)
{
	char *conf = xasprintf("%s/bench.conf", b->dir);
	char *rules = xasprintf("%s/rules", b->dir);
	char *text = xasprintf("[daemon]\nsocket = %s/ctl.sock\nstate_dir = "
			       "%s\n[restraint]\nenabled = true\n",
			       b->dir, b->dir);
	char *cmd;

	bench_write(conf, text);
	mkdir(rules, 0755);
	b->hog = xasprintf("%s/hog", b->dir);
	cmd = xasprintf("cp '%s' '%s'", hog, b->hog);
	if (system(cmd) != 0)
		exit(1);
	chmod(b->dir, 0711);
	chmod(b->hog, 0755);
	if (b->and) {
		char *top = xstrdup(b->and);
		char *end = strstr(top, "/usr/sbin/and");

		if (end)
			*end = '\0';
		b->and_conf = xasprintf("%s/etc/and.conf", top);
		b->and_prio = xasprintf("%s/etc/and.priorities", top);
		free(top);
	}
	for (int i = 0; i < BENCH_ROW_COUNT; i++)
		b->samples[i] = xcalloc((size_t)b->runs, sizeof(**b->samples));
	free(cmd);
	free(text);
	free(rules);
	free(conf);
}

static int bench_usage(void)
{
	fprintf(stderr,
		"usage: bench_restraint [-r RUNS] [-s SECONDS] [-A AND] "
		"DAEMON HOG\n");
	return 2;
}

/* A whole number from min to max, or -1. */
static int bench_number(const char *text, long min, long max)
{
	char *end;
	long v = strtol(text, &end, 10);

	return *text && !*end && v >= min && v <= max ? (int)v : -1;
}

/* Not measured, and why: the section is there all the same. */
static int bench_not_measured(const char *why)
{
	printf("## Restraint: a frame task against CPU hogs\n\nNot measured: "
	       "%s.\n\n",
	       why);
	return 0;
}

static void bench_signals(void)
{
	struct sigaction sa = {0};

	sa.sa_handler = bench_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int main(int argc, char **argv)
{
	static struct bench b = {.runs = 3, .seconds = 7};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	while ((c = getopt(argc, argv, "A:r:s:")) != -1) {
		switch (c) {
		case 'A':
			b.and = *optarg ? optarg : NULL;
			break;
		case 'r':
			b.runs = bench_number(optarg, 1, 100);
			break;
		case 's':
			b.seconds = bench_number(optarg, 4, 600);
			break;
		default:
			return bench_usage();
		}
	}
	if (argc - optind != 2 || b.runs < 1 || b.seconds < 1)
		return bench_usage();
	if (geteuid() != 0)
		return bench_not_measured("the daemon runs as root, and this "
					  "run was not");
	if (access("/proc/pressure/cpu", R_OK) != 0)
		return bench_not_measured("the kernel reports no CPU pressure "
					  "(no PSI, or psi=0)");
	/* The probe's session is the bench's own: the same-session hogs
	 * are its children too, and nothing else of the machine's is in
	 * it. */
	if (getsid(0) != getpid() && setsid() < 0) {
		fprintf(stderr, "bench_restraint: run it as the leader of a "
				"session of its own (setsid -w)\n");
		return 2;
	}
	/* Out of the terminal's session, a Ctrl-C reaches the bench through
	 * its parent's end. */
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	/* The other session's hogs are its leader's children: the bench
	 * reaps them once it ends. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	b.daemon = argv[optind];
	b.hogs = BENCH_HOGS_PER_CPU * (int)(cpus > 0 ? cpus : 1);
	bench_hog_pids = xcalloc((size_t)b.hogs, sizeof(*bench_hog_pids));
	if (!stats_temp_dir(b.dir, sizeof(b.dir), "cpupolicy-bench-restraint"))
		return 1;
	bench_cleanup = &b;
	atexit(bench_at_exit);
	bench_signals();
	bench_user_make(&b);
	bench_setup(&b, argv[optind + 1]);
	bench_all(&b);
	bench_print_intro(&b);
	bench_print_table(&b);
	bench_print_targets(&b);
	return 0;
}
