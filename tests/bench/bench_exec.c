/* Benchmark: exec-to-applied latency, misses, daemon CPU per 1,000 execs
 * and RSS, with the real daemon (as root), printed as sections of
 * docs/benchmarks.md (Markdown). Each started process (the worker helper
 * with -w) spins reading its own nice value from the first line of main()
 * and reports when it changed, or that it was already set before main()
 * ran; one that the policy does not reach in time is a miss, counted
 * beside the percentiles and in them as its timeout.
 *   bench_exec [-r RUNS] [-s STATIC-WORKER] [-R SHIPPED-RULES]
 *              [-A AND-BINARY] [-c COMPARE-STARTS] DAEMON WORKER [STARTS]
 * Every row is run RUNS times (default 5), the rows taking turns so that
 * a noisy minute of a shared machine spreads over all of them; each cell
 * is the median of the runs with their min-max. STATIC-WORKER (default
 * WORKER-static, when it exists) is the worker linked with -static: no
 * dynamic loader runs before its main(). AND-BINARY is Debian's auto
 * nice daemon, which renices by polling /proc: the comparison rows. */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "stats.h"
#include "util.h"

/* What fills 05-many.rules: it comes before the probe's 10-probe.rules in
 * rule order, so every exec of the probe tries these first. */
enum bench_many {
	BENCH_MANY_NONE,
	BENCH_MANY_EXE,		 /* literal exe: found through the index */
	BENCH_MANY_EXE_GLOB,	 /* found by their literal exe start */
	BENCH_MANY_NAME_GLOB,	 /* by their name's start: needs comm */
	BENCH_MANY_CMDLINE_GLOB, /* by a literal run: needs the cmdline */
	BENCH_MANY_MIXED,	 /* exe starts and middles, name starts and
				  * ends, cmdline runs, in turn */
	BENCH_MANY_ONE_CMDLINE,	 /* one rule the exec filter cannot judge */
	BENCH_MANY_IMPORTED,	 /* an ananicy import's shape: name lists */
};

enum {
	BENCH_MANY_COUNT = 20000,
	/* The community ananicy set, as "import ananicy" writes it: a rule
	 * per type and folder, a name and a source per ananicy rule. */
	BENCH_IMPORTED_NAMES = 15600,
	BENCH_IMPORTED_RULES = 20,
	BENCH_PER = 1000,	     /* CPU figures are per this many execs */
	BENCH_PACED_PER_S = 1000,    /* unmatched execs a second, paced */
	BENCH_TIMEOUT_MS = 1000,     /* a start not reached by then: a miss */
	BENCH_CMP_TIMEOUT_MS = 3000, /* the same in the comparison */
	BENCH_AND_INTERVAL_S = 1,    /* and's shortest interval (-i) */
	BENCH_IDLE_S = 3,	     /* the window of the idle CPU figure */
	BENCH_FLOOD_S = 2,	     /* the rename flood's length */
	BENCH_NICE = 7,		     /* what the probe's rule sets */
	BENCH_NOBODY = 65534,	     /* and leaves root's processes alone */
};

/* The tables, each a section of docs/benchmarks.md. */
enum bench_table {
	BENCH_TABLE_EXEC,    /* exec to applied, by rule set and setting */
	BENCH_TABLE_EVENTS,  /* the sources of exec events side by side */
	BENCH_TABLE_COMPARE, /* against Debian's and */
	BENCH_TABLE_COUNT
};

/* Who starts the storm of /bin/true: the bench itself, or a process a
 * rule matches, whose children /bin/true's processes are (the storm
 * parent: a copy of the bench, run as "--storm N"). */
enum bench_parent {
	BENCH_PARENT_NONE,
	BENCH_PARENT_LOWERED, /* nice 5: its children are not followed */
	BENCH_PARENT_RAISED,  /* nice -1: followed, their raise undone */
};

static const char *const bench_parent_names[] = {
	[BENCH_PARENT_LOWERED] = "storm-lowered",
	[BENCH_PARENT_RAISED] = "storm-raised",
};

enum bench_daemon {
	BENCH_DAEMON_CPUPOLICYD,
	BENCH_DAEMON_NONE, /* the storm alone: the baseline of an exec */
	BENCH_DAEMON_AND,
};

struct bench_row {
	/* A format: its %s is the count of the added rules. */
	const char *name;
	enum bench_table table;
	enum bench_daemon daemon;
	bool realtime;
	int batch_ms;
	enum bench_many many;
	bool static_probe;
	const char *events; /* the config's events = ...; NULL: auto */
	/* The shipped rules beside the probe's, in a dry run: they would
	 * renice the machine's compilers meanwhile. For RSS and the cost of
	 * unmatched execs: no probe starts. */
	bool shipped;
	enum bench_parent parent;
	/* A busy loop on every CPU while the probe starts: the daemon and
	 * the probe compete for the CPUs, as on a loaded machine. */
	bool hogs;
};

#define BENCH_ROW(n, rt, batch, m, st)                                         \
	.name = (n), .realtime = (rt), .batch_ms = (batch), .many = (m),       \
	.static_probe = (st)

static const struct bench_row bench_rows[] = {
	{BENCH_ROW("1 rule (defaults)", true, 0, BENCH_MANY_NONE, false)},
	{BENCH_ROW("1 rule, `self_realtime = false`", false, 0, BENCH_MANY_NONE,
		   false)},
	{BENCH_ROW("1 rule, `batch_ms = 20`", true, 20, BENCH_MANY_NONE,
		   false)},
	{BENCH_ROW("1 rule, a CPU hog on every CPU", true, 0, BENCH_MANY_NONE,
		   false),
	 .hogs = true},
	{BENCH_ROW("1 rule, a CPU hog on every CPU, `self_realtime = false`",
		   false, 0, BENCH_MANY_NONE, false),
	 .hogs = true},
	{BENCH_ROW("1 rule, static probe", true, 0, BENCH_MANY_NONE, true)},
	{BENCH_ROW("1 rule, static probe, `self_realtime = false`", false, 0,
		   BENCH_MANY_NONE, true)},
	{BENCH_ROW("%s rules, exact exe (indexed)", true, 0, BENCH_MANY_EXE,
		   false)},
	{BENCH_ROW("%s rules, exe globs (by their start)", true, 0,
		   BENCH_MANY_EXE_GLOB, false)},
	{BENCH_ROW("%s rules, name globs (by their start)", true, 0,
		   BENCH_MANY_NAME_GLOB, false)},
	{BENCH_ROW("%s rules, cmdline globs (by a literal run)", true, 0,
		   BENCH_MANY_CMDLINE_GLOB, false)},
	{BENCH_ROW("%s rules, globs of mixed shapes", true, 0, BENCH_MANY_MIXED,
		   false)},
	{BENCH_ROW("%s imported names", true, 0, BENCH_MANY_IMPORTED, false)},
	{BENCH_ROW("%s imported names, `events = netlink`", true, 0,
		   BENCH_MANY_IMPORTED, false),
	 .events = "netlink"},
	/* The sources of exec events side by side, and no daemon at all:
	 * what an exec costs the whole machine with each. */
	{BENCH_ROW("no daemon (baseline)", true, 0, BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .daemon = BENCH_DAEMON_NONE},
	{BENCH_ROW("`events = netlink` (the proc connector)", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "netlink"},
	{BENCH_ROW("`events = bpf` (the exec filter)", true, 0, BENCH_MANY_NONE,
		   false),
	 .table = BENCH_TABLE_EVENTS, .events = "bpf"},
	{BENCH_ROW("`netlink`, shipped rules", true, 0, BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "netlink", .shipped = true},
	{BENCH_ROW("`bpf`, shipped rules", true, 0, BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "bpf", .shipped = true},
	/* Children of a process a lowering rule matched run /bin/true: not
	 * followed, they cost what an unmatched exec does; a raising rule's
	 * are followed, and each exec undoes the raise it inherited. */
	{BENCH_ROW("`bpf`, children of a lowered parent", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "bpf",
	 .parent = BENCH_PARENT_LOWERED},
	{BENCH_ROW("`bpf`, children of a raised parent", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "bpf",
	 .parent = BENCH_PARENT_RAISED},
	{BENCH_ROW("`netlink`, children of a lowered parent", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "netlink",
	 .parent = BENCH_PARENT_LOWERED},
	{BENCH_ROW("`netlink`, children of a raised parent", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "netlink",
	 .parent = BENCH_PARENT_RAISED},
	/* A cmdline rule: every exec goes to the daemon, as with netlink. */
	{BENCH_ROW("`bpf`, 1 cmdline rule (every exec sent)", true, 0,
		   BENCH_MANY_ONE_CMDLINE, false),
	 .table = BENCH_TABLE_EVENTS, .events = "bpf"},
	/* The same probe as nobody, against a daemon that polls. */
	{BENCH_ROW("cpupolicyd, `events = bpf`", true, 0, BENCH_MANY_NONE,
		   false),
	 .table = BENCH_TABLE_COMPARE, .events = "bpf"},
	{BENCH_ROW("cpupolicyd, `events = netlink`", true, 0, BENCH_MANY_NONE,
		   false),
	 .table = BENCH_TABLE_COMPARE, .events = "netlink"},
	{BENCH_ROW("and, `-i 1` (its shortest interval)", true, 0,
		   BENCH_MANY_NONE, false),
	 .table = BENCH_TABLE_COMPARE, .daemon = BENCH_DAEMON_AND},
};

/* The figures of one run, one per column. */
enum bench_col {
	BENCH_COL_TO_MAIN,	/* us, execve() to main(), p50 */
	BENCH_COL_BEFORE,	/* % of starts with the policy before main() */
	BENCH_COL_P50,		/* us, main() to the policy, 0 when before */
	BENCH_COL_P99,		/* us, the same, p99 */
	BENCH_COL_MAX,		/* us, the same, max */
	BENCH_COL_MISSES,	/* starts the policy did not reach in time */
	BENCH_COL_CPU_MATCHING, /* daemon CPU ms per BENCH_PER starts */
	BENCH_COL_CPU_PACED,	/* the same for /bin/true, paced */
	BENCH_COL_CPU_STORM,	/* the same for /bin/true, back to back */
	BENCH_COL_CPU_IDLE,	/* daemon CPU ms per s with nothing to do */
	BENCH_COL_EXEC_COST,	/* us of the machine's CPU per /bin/true */
	BENCH_COL_FILTER_NS,	/* ns of the exec filter's programs in it */
	BENCH_COL_RSS,		/* MiB */
	BENCH_COL_PEAK,		/* MiB, VmHWM */
	BENCH_COL_COUNT
};

/* A column of a table: its head (a format: %s is BENCH_PER), the figure
 * divided by scale, shown with decimals and unit. */
struct bench_column {
	enum bench_col col;
	const char *head;
	double scale;
	int decimals;
	const char *unit;
};

static const struct bench_column bench_exec_columns[] = {
	{BENCH_COL_TO_MAIN, "execve() to main(), p50", 1, 0, "µs"},
	{BENCH_COL_BEFORE, "policy before main()", 1, 1, "%"},
	{BENCH_COL_P50, "main() to policy, p50", 1, 0, "µs"},
	{BENCH_COL_P99, "p99", 1, 0, "µs"},
	{BENCH_COL_MAX, "max", 1, 0, "µs"},
	{BENCH_COL_MISSES, "misses", 1, 0, ""},
	{BENCH_COL_CPU_MATCHING, "daemon CPU per %s matching starts", 1, 1,
	 "ms"},
	{BENCH_COL_CPU_PACED, "daemon CPU per %s unmatched execs", 1, 1, "ms"},
	{BENCH_COL_RSS, "RSS", 1, 1, "MiB"},
	{BENCH_COL_PEAK, "peak", 1, 1, "MiB"},
};

static const struct bench_column bench_events_columns[] = {
	{BENCH_COL_BEFORE, "policy before main()", 1, 1, "%"},
	{BENCH_COL_MISSES, "misses", 1, 0, ""},
	{BENCH_COL_CPU_PACED, "daemon CPU per %s unmatched execs, paced", 1, 1,
	 "ms"},
	{BENCH_COL_CPU_STORM, "the same, back to back", 1, 1, "ms"},
	{BENCH_COL_EXEC_COST, "machine's CPU per exec", 1, 1, "µs"},
	{BENCH_COL_FILTER_NS, "exec filter's own time per exec", 1000, 2, "µs"},
	{BENCH_COL_RSS, "RSS", 1, 1, "MiB"},
	{BENCH_COL_PEAK, "peak", 1, 1, "MiB"},
};

static const struct bench_column bench_compare_columns[] = {
	{BENCH_COL_BEFORE, "policy before main()", 1, 1, "%"},
	{BENCH_COL_P50, "main() to policy, p50", 1000, 1, "ms"},
	{BENCH_COL_P99, "p99", 1000, 1, "ms"},
	{BENCH_COL_MAX, "max", 1000, 1, "ms"},
	{BENCH_COL_MISSES, "misses", 1, 0, ""},
	{BENCH_COL_CPU_MATCHING, "daemon CPU per %s starts", 1, 1, "ms"},
	{BENCH_COL_CPU_IDLE, "daemon CPU with nothing to do", 10, 2, "%"},
	{BENCH_COL_RSS, "RSS", 1, 1, "MiB"},
};

struct bench_table_format {
	const struct bench_column *columns;
	size_t count;
};

static const struct bench_table_format bench_tables[BENCH_TABLE_COUNT] = {
	[BENCH_TABLE_EXEC] = {bench_exec_columns,
			      ARRAY_SIZE(bench_exec_columns)},
	[BENCH_TABLE_EVENTS] = {bench_events_columns,
				ARRAY_SIZE(bench_events_columns)},
	[BENCH_TABLE_COMPARE] = {bench_compare_columns,
				 ARRAY_SIZE(bench_compare_columns)},
};

struct bench_sample {
	double v[BENCH_COL_COUNT];
};

struct bench {
	const char *daemon;
	const char *shipped; /* the shipped rules' directory, or NULL */
	const char *and;     /* Debian's and, or NULL */
	const char *only;    /* run the rows whose name holds it; NULL: all */
	char dir[PATH_MAX];
	char *probe, *probe_static;
	int starts, cmp_starts, runs;
};

/* The daemon (ours or and) running now, stopped if the bench ends early:
 * a daemon left behind would go on renicing the machine's processes. */
static pid_t bench_running;
/* The bench's directory, removed at exit however the bench ends. */
static const char *bench_dir;

static void bench_at_exit(void)
{
	if (bench_running > 0) {
		kill(bench_running, SIGKILL);
		waitpid(bench_running, NULL, 0);
		bench_running = 0;
	}
	if (bench_dir) {
		char *cmd = xasprintf("rm -rf '%s'", bench_dir);

		if (system(cmd) != 0)
			fprintf(stderr, "bench: %s is left behind\n",
				bench_dir);
		free(cmd);
	}
}

static long long bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void bench_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void bench_copy(const char *from, const char *to)
{
	char *cmd = xasprintf("cp '%s' '%s'", from, to);

	if (system(cmd) != 0)
		exit(1);
	free(cmd);
}

/* CPU time the daemon has used, in ns (schedstat: precise, unlike the
 * clock ticks of /proc/PID/stat). */
static long long bench_cpu_ns(pid_t pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &ns) != 1)
			ns = -1;
		fclose(f);
	}
	/* A daemon that died in a phase would leave figures of nothing. */
	if (ns < 0) {
		fprintf(stderr, "bench: the daemon (pid %d) is gone\n",
			(int)pid);
		exit(1);
	}
	return ns;
}

/* Waits until the daemon is idle (under 0.1 ms of CPU in 20 ms), at most
 * 10 s: the events still queued when a phase ends are its work, and with
 * thousands of scanned rules the daemon can lag the paced execs. Returns
 * its CPU time then. */
static long long bench_settle(pid_t pid)
{
	long long last = bench_cpu_ns(pid), now = last;

	for (int i = 0; i < 500; i++) {
		usleep(20000);
		now = bench_cpu_ns(pid);
		if (now - last < 100000)
			break;
		last = now;
	}
	return now;
}

static long bench_status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)) == 0)
			kb = atol(line + strlen(key));
	}
	if (f)
		fclose(f);
	return kb;
}

static pid_t bench_start_daemon(const struct bench *b)
{
	char *conf = xasprintf("%s/bench.conf", b->dir);
	char *rules = xasprintf("%s/rules", b->dir);
	char *sock = xasprintf("%s/ctl.sock", b->dir);
	pid_t pid;

	unlink(sock); /* the last run's, or it would look ready at once */
	pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(b->daemon, b->daemon, "-c", conf, "-r", rules,
		      (char *)NULL);
		_exit(127);
	}
	bench_running = pid;
	/* Ready once the control socket exists; 20,000 rules take a while
	 * to load on a busy machine. */
	for (int i = 0;; i++) {
		struct stat st;

		if (stat(sock, &st) == 0)
			break;
		if (i == 1000 || waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "bench: the daemon did not start\n");
			exit(1);
		}
		usleep(10000);
	}
	free(conf);
	free(rules);
	free(sock);
	return pid;
}

static int bench_compare(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Debian's and, polling every BENCH_AND_INTERVAL_S, with one entry: the
 * comparison probe (as nobody; and leaves root's processes alone) to
 * BENCH_NICE from its first second of CPU on (lv1time 0). Every other
 * process keeps its nice value: defaultnice 0, and and never raises a
 * priority. Ready once it logs so. */
static pid_t bench_start_and(const struct bench *b)
{
	char *conf = xasprintf("%s/and.conf", b->dir);
	char *prio = xasprintf("%s/and.priorities", b->dir);
	char *log = xasprintf("%s/and.log", b->dir);
	char *text = xasprintf("nobody * cmp-probe * %d %d %d\n", BENCH_NICE,
			       BENCH_NICE, BENCH_NICE);
	char interval[16];
	pid_t pid;

	bench_write(conf, "defaultnice 0\nlv1time 0\nlv2time 100000\n"
			  "lv3time 100001\naffinity cpug\nminuid 1\n"
			  "mingid 1\n");
	bench_write(prio, text);
	unlink(log);
	snprintf(interval, sizeof(interval), "%d", BENCH_AND_INTERVAL_S);
	pid = fork();
	if (pid == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(out, 1);
		dup2(out, 2);
		execl(b->and, b->and, "-f", "-s", "-c", conf, "-d", prio, "-i",
		      interval, (char *)NULL);
		_exit(127);
	}
	bench_running = pid;
	for (int i = 0;; i++) {
		char line[256] = "";
		FILE *f = fopen(log, "r");
		bool ready = false;

		while (f && !ready && fgets(line, sizeof(line), f))
			ready = strncmp(line, "AND ready.", 10) == 0;
		if (f)
			fclose(f);
		if (ready)
			break;
		if (i == 1000 || waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "bench: and did not start (%s)\n", log);
			exit(1);
		}
		usleep(10000);
	}
	free(conf);
	free(prio);
	free(log);
	free(text);
	return pid;
}

/* How one start of the probe went. */
struct bench_start {
	const char *probe;
	uid_t uid;	/* run as this user (0: root, as the daemon) */
	int timeout_ms; /* the probe gives up then: a miss */
};

/* One start: fork, note the time, exec the probe, read its report.
 * Returns 0 when the policy reached it, 1 for a miss (the probe waited
 * its whole timeout: status 1, nothing said); anything else is a broken
 * bench, not a miss, and ends it. */
static int bench_one(const struct bench_start *how, long long *to_main,
		     long long *latency, int *before_main)
{
	long long started;
	int fds[2];
	char buf[128] = "";
	ssize_t n;
	int status;
	pid_t pid;

	if (pipe(fds) < 0) {
		perror("pipe");
		exit(1);
	}
	started = bench_now_ns();
	pid = fork();
	if (pid == 0) {
		char when[32], timeout[16], nice[16];

		dup2(fds[1], 1);
		close(fds[0]);
		if (how->uid && (setgroups(0, NULL) < 0 ||
				 setresgid(how->uid, how->uid, how->uid) < 0 ||
				 setresuid(how->uid, how->uid, how->uid) < 0))
			_exit(126);
		snprintf(timeout, sizeof(timeout), "%d", how->timeout_ms);
		snprintf(nice, sizeof(nice), "%d", BENCH_NICE);
		snprintf(when, sizeof(when), "%lld", bench_now_ns());
		execl(how->probe, how->probe, "-w", nice, "-T", timeout, "-e",
		      when, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	/* A miss waited its whole timeout; a probe that gave up sooner is
	 * broken, and a miss of it would hide that. */
	if (n <= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
	    bench_now_ns() - started >= how->timeout_ms * 1000000LL)
		return 1;
	if (n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%lld %lld %d", to_main, latency,
			   before_main) == 3)
			return 0;
	}
	fprintf(stderr, "bench: the probe %s failed (status %#x): %s\n",
		how->probe, (unsigned)status, buf);
	exit(1);
}

static long long bench_rusage_ns(const struct rusage *ru)
{
	return ((long long)ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) *
		       1000000000LL +
	       ((long long)ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000;
}

/* /bin/true (no rule matches it) at BENCH_PACED_PER_S starts a second. */
static void bench_paced_execs(int count)
{
	long long next = bench_now_ns();

	for (int i = 0; i < count; i++) {
		long long wait;
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		next += 1000000000LL / BENCH_PACED_PER_S;
		wait = next - bench_now_ns();
		if (wait > 0)
			nanosleep(&(struct timespec){0, (long)wait}, NULL);
	}
}

/* The run time of the exec filter's programs so far (BPF_ENABLE_STATS on
 * while the bench runs), in ns: the kernel's own count, far finer than
 * the noise of a whole exec. */
static long long bench_filter_ns(void)
{
	unsigned id = 0;
	long long ns = 0;

	while (bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info = {0};
		unsigned len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strncmp(info.name, "execfilter_", 11) == 0)
			ns += (long long)info.run_time_ns;
		close(fd);
	}
	return ns;
}

/* /bin/true (no rule matches it) back to back: the CPU it took, its
 * children's and this process's, in ns (the kernel's share of each exec
 * included: the proc connector's message, the filter's program). */
static long long bench_storm_execs(int count)
{
	struct rusage self0, self1, kids0, kids1;

	getrusage(RUSAGE_SELF, &self0);
	getrusage(RUSAGE_CHILDREN, &kids0);
	for (int i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	}
	getrusage(RUSAGE_SELF, &self1);
	getrusage(RUSAGE_CHILDREN, &kids1);
	return bench_rusage_ns(&self1) - bench_rusage_ns(&self0) +
	       bench_rusage_ns(&kids1) - bench_rusage_ns(&kids0);
}

/* The storm run by the storm parent (a rule matches it): its CPU, and
 * its children's, in ns. */
static long long bench_parent_storm(const struct bench *b,
				    enum bench_parent parent, int count)
{
	char *path = xasprintf("%s/%s", b->dir, bench_parent_names[parent]);
	char n[32];
	struct rusage kids0, kids1;
	pid_t pid;

	snprintf(n, sizeof(n), "%d", count);
	getrusage(RUSAGE_CHILDREN, &kids0);
	pid = fork();
	if (pid == 0) {
		execl(path, path, "--storm", n, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	getrusage(RUSAGE_CHILDREN, &kids1);
	free(path);
	return bench_rusage_ns(&kids1) - bench_rusage_ns(&kids0);
}

/* One busy loop per CPU (nice 0, no rule matches it), until stopped:
 * pids[] of count. */
static pid_t *bench_hogs_start(int *count)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t *pids;

	*count = cpus > 0 ? (int)cpus : 1;
	pids = xcalloc((size_t)*count, sizeof(*pids));
	for (int i = 0; i < *count; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			for (volatile unsigned long n = 0;; n++)
				;
		}
	}
	return pids;
}

static void bench_hogs_stop(pid_t *pids, int count)
{
	for (int i = 0; i < count; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
	free(pids);
}

/* A wait of up to a poll interval before a start, at random: a poller's
 * starts would otherwise lock onto its phase (each begins just after the
 * scan that found the last one). */
static void bench_random_phase(int interval_ms)
{
	long ms = random() % interval_ms;

	nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL);
}

static long long bench_pct(const long long *sorted, int n, double p)
{
	int i = (int)((double)n * p);

	return sorted[i < n ? i : n - 1];
}

/* The probe's starts; fills the latency and miss columns. A miss is in
 * the percentiles as its timeout, and counted; execve() to main() is the
 * p50 of the starts that reported it. */
static void bench_starts(const struct bench_start *how, int starts,
			 int phase_ms, struct bench_sample *s)
{
	long long *lat = xcalloc((size_t)starts, sizeof(*lat));
	long long *to_main = xcalloc((size_t)starts, sizeof(*to_main));
	int reported = 0, before_main = 0, misses = 0;

	for (int i = 0; i < starts; i++) {
		int before = 0;

		if (phase_ms)
			bench_random_phase(phase_ms);
		if (bench_one(how, &to_main[reported], &lat[i], &before)) {
			lat[i] = how->timeout_ms * 1000000LL;
			misses++;
			continue;
		}
		before_main += before;
		reported++;
	}
	qsort(lat, (size_t)starts, sizeof(*lat), bench_compare);
	qsort(to_main, (size_t)reported, sizeof(*to_main), bench_compare);
	s->v[BENCH_COL_BEFORE] = 100.0 * before_main / starts;
	s->v[BENCH_COL_MISSES] = misses;
	if (reported)
		s->v[BENCH_COL_TO_MAIN] = (double)to_main[reported / 2] / 1e3;
	s->v[BENCH_COL_P50] = (double)bench_pct(lat, starts, 0.5) / 1e3;
	s->v[BENCH_COL_P99] = (double)bench_pct(lat, starts, 0.99) / 1e3;
	s->v[BENCH_COL_MAX] = (double)lat[starts - 1] / 1e3;
	free(lat);
	free(to_main);
}

static void bench_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	bench_running = 0;
}

static void bench_memory(pid_t d, struct bench_sample *s)
{
	s->v[BENCH_COL_RSS] = (double)bench_status_kb(d, "VmRSS:") / 1024.0;
	s->v[BENCH_COL_PEAK] = (double)bench_status_kb(d, "VmHWM:") / 1024.0;
}

/* A row of the comparison: the daemon's CPU with nothing to do, then the
 * probe's starts as nobody, each at a random moment of a poller's
 * interval. */
static void bench_run_compare(const struct bench *b,
			      const struct bench_row *row,
			      struct bench_sample *s)
{
	bool poller = row->daemon == BENCH_DAEMON_AND;
	char *probe = xasprintf("%s/cmp-probe", b->dir);
	struct bench_start how = {probe, BENCH_NOBODY, BENCH_CMP_TIMEOUT_MS};
	pid_t d = poller ? bench_start_and(b) : bench_start_daemon(b);
	long long cpu0, cpu1, cpu2;

	cpu0 = bench_settle(d);
	sleep(BENCH_IDLE_S);
	cpu1 = bench_cpu_ns(d);
	bench_starts(&how, b->cmp_starts,
		     poller ? BENCH_AND_INTERVAL_S * 1000 : 0, s);
	cpu2 = bench_settle(d);
	s->v[BENCH_COL_CPU_IDLE] = (double)(cpu1 - cpu0) / 1e6 / BENCH_IDLE_S;
	s->v[BENCH_COL_CPU_MATCHING] =
		(double)(cpu2 - cpu1) / 1e6 * BENCH_PER / b->cmp_starts;
	bench_memory(d, s);
	bench_stop(d);
	free(probe);
}

static void bench_run(const struct bench *b, const struct bench_row *row,
		      struct bench_sample *s)
{
	struct bench_start how = {row->static_probe ? b->probe_static
						    : b->probe,
				  0, BENCH_TIMEOUT_MS};
	long long cpu0, cpu1, cpu2, cpu3, storm, filter_ns;
	pid_t d;

	*s = (struct bench_sample){0};
	if (row->table == BENCH_TABLE_COMPARE) {
		bench_run_compare(b, row, s);
		return;
	}
	if (row->daemon == BENCH_DAEMON_NONE) {
		storm = bench_storm_execs(b->starts);
		s->v[BENCH_COL_EXEC_COST] = (double)storm / 1e3 / b->starts;
		return;
	}
	d = bench_start_daemon(b);
	cpu0 = bench_settle(d);
	/* In a dry run no probe would see its policy: no starts. */
	if (row->hogs) {
		int count;
		pid_t *hogs = bench_hogs_start(&count);

		bench_starts(&how, b->starts, 0, s);
		bench_hogs_stop(hogs, count);
	} else if (!row->shipped) {
		bench_starts(&how, b->starts, 0, s);
	}
	cpu1 = bench_settle(d);
	bench_paced_execs(b->starts);
	cpu2 = bench_settle(d);
	filter_ns = bench_filter_ns();
	storm = row->parent ? bench_parent_storm(b, row->parent, b->starts)
			    : bench_storm_execs(b->starts);
	s->v[BENCH_COL_FILTER_NS] =
		(double)(bench_filter_ns() - filter_ns) / b->starts;
	cpu3 = bench_settle(d);
	s->v[BENCH_COL_CPU_MATCHING] =
		(double)(cpu1 - cpu0) / 1e6 * BENCH_PER / b->starts;
	s->v[BENCH_COL_CPU_PACED] =
		(double)(cpu2 - cpu1) / 1e6 * BENCH_PER / b->starts;
	s->v[BENCH_COL_CPU_STORM] =
		(double)(cpu3 - cpu2) / 1e6 * BENCH_PER / b->starts;
	s->v[BENCH_COL_EXEC_COST] =
		(double)(storm + (cpu3 - cpu2)) / 1e3 / b->starts;
	bench_memory(d, s);
	bench_stop(d);
}

static void bench_config(const struct bench *b, const struct bench_row *row)
{
	char *path = xasprintf("%s/bench.conf", b->dir);
	/* No periodic rescan: its work would land in whichever phase it
	 * fell in. */
	char *text =
		xasprintf("[daemon]\nsocket = %s/ctl.sock\nstate_dir = %s\n"
			  "log_level = warning\nrescan_interval_ms = 0\n"
			  "self_realtime = %s\nbatch_ms = %d\nevents = %s\n"
			  "dry_run = %s\n",
			  b->dir, b->dir, row->realtime ? "true" : "false",
			  row->batch_ms, row->events ? row->events : "auto",
			  row->shipped ? "true" : "false");

	bench_write(path, text);
	free(text);
	free(path);
}

/* Values that never match the probe (or /bin/true), found through the
 * index by their literals. The mixed shapes take turns: an exe's start
 * (in vendor/, a directory that is there, which the exec filter judges
 * by: the apps in it are not yet), an exe's middle (found by its end), a
 * name's start and end, a command line's run. */
static void bench_write_mixed(FILE *f, const struct bench *b, int i)
{
	switch (i % 5) {
	case 0:
		fprintf(f, "exe = \"%s/vendor/app%d/*\";", b->dir, i);
		break;
	case 1:
		fprintf(f, "exe = \"/opt/*/mid%d/*/server\";", i);
		break;
	case 2:
		fprintf(f, "name = \"app%d-*\";", i);
		break;
	case 3:
		fprintf(f, "name = \"*-w%d\";", i);
		break;
	default:
		fprintf(f, "cmdline = \"*--bench-job=%d *\";", i);
		break;
	}
}

static void bench_write_match(FILE *f, const struct bench *b,
			      enum bench_many many, int i)
{
	switch (many) {
	case BENCH_MANY_NONE:
		break;
	case BENCH_MANY_EXE:
		fprintf(f, "exe = \"/opt/bench/app%d/bin/server\";", i);
		break;
	case BENCH_MANY_EXE_GLOB:
		fprintf(f, "exe = \"/opt/bench/app%d/*/server\";", i);
		break;
	case BENCH_MANY_NAME_GLOB:
		fprintf(f, "name = \"app%d-*\";", i);
		break;
	case BENCH_MANY_CMDLINE_GLOB:
	case BENCH_MANY_ONE_CMDLINE:
		fprintf(f, "cmdline = \"*--bench-job=%d *\";", i);
		break;
	case BENCH_MANY_MIXED:
		bench_write_mixed(f, b, i);
		break;
	case BENCH_MANY_IMPORTED:
		break;
	}
}

/* A rule of an import: names prog00000... (never the probe's), each
 * with the ananicy file and line it came from. */
static void bench_write_imported(FILE *f, int rule)
{
	int per = BENCH_IMPORTED_NAMES / BENCH_IMPORTED_RULES;

	fprintf(f, "{ name = \"imported-%d\"; match = { name = [", rule);
	for (int i = 0; i < per; i++)
		fprintf(f, "%s\"prog%05d\"", i ? ", " : " ", rule * per + i);
	fprintf(f, " ]; };\n  priority = { nice = 10; };\n  source = [");
	for (int i = 0; i < per; i++)
		fprintf(f,
			"%s\"/etc/ananicy.d/00-default/Games/prog%05d."
			"rules:2\"",
			i ? ", " : " ", rule * per + i);
	fprintf(f, " ]; }%s\n", rule + 1 < BENCH_IMPORTED_RULES ? "," : "");
}

static void bench_many_rules(const struct bench *b, enum bench_many many)
{
	char *path = xasprintf("%s/rules/05-many.rules", b->dir);
	int count = many == BENCH_MANY_ONE_CMDLINE ? 1 : BENCH_MANY_COUNT;
	FILE *f;

	if (many == BENCH_MANY_NONE) {
		unlink(path);
		free(path);
		return;
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "rules = (\n");
	for (int i = 0; many == BENCH_MANY_IMPORTED && i < BENCH_IMPORTED_RULES;
	     i++)
		bench_write_imported(f, i);
	for (int i = 0; many != BENCH_MANY_IMPORTED && i < count; i++) {
		fprintf(f, "{ name = \"many-%d\"; match = { ", i);
		bench_write_match(f, b, many, i);
		fprintf(f, " }; priority = { nice = %d; }; }%s\n", i % 20,
			i + 1 < count ? "," : "");
	}
	fprintf(f, ");\n");
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	free(path);
}

/* The row's name, its count of added rules filled in. */
static void bench_row_name(const struct bench_row *row, char *buf, size_t size)
{
	char count[32];

	stats_count(count, sizeof(count),
		    row->many == BENCH_MANY_IMPORTED ? BENCH_IMPORTED_NAMES
						     : BENCH_MANY_COUNT + 1);
	snprintf(buf, size, row->name, count);
}

/* Whether a column means something for a row: no probe starts without a
 * daemon or in a dry run, no filter without it, no exec storm in the
 * comparison. */
static bool bench_applies(const struct bench_row *row, enum bench_col col)
{
	switch (col) {
	case BENCH_COL_TO_MAIN:
	case BENCH_COL_BEFORE:
	case BENCH_COL_P50:
	case BENCH_COL_P99:
	case BENCH_COL_MAX:
	case BENCH_COL_MISSES:
	case BENCH_COL_CPU_MATCHING:
		return row->daemon != BENCH_DAEMON_NONE && !row->shipped;
	case BENCH_COL_FILTER_NS:
		return row->daemon == BENCH_DAEMON_CPUPOLICYD &&
		       (!row->events || strcmp(row->events, "netlink") != 0);
	case BENCH_COL_CPU_PACED:
	case BENCH_COL_CPU_STORM:
	case BENCH_COL_RSS:
	case BENCH_COL_PEAK:
		return row->daemon != BENCH_DAEMON_NONE;
	case BENCH_COL_CPU_IDLE:
		return row->table == BENCH_TABLE_COMPARE;
	case BENCH_COL_EXEC_COST:
		return true;
	case BENCH_COL_COUNT:
		break;
	}
	return false;
}

static void bench_print_head(enum bench_table table)
{
	const struct bench_table_format *t = &bench_tables[table];
	char per[32], head[128];

	stats_count(per, sizeof(per), BENCH_PER);
	printf("| run |");
	for (size_t c = 0; c < t->count; c++) {
		snprintf(head, sizeof(head), t->columns[c].head, per);
		printf(" %s |", head);
	}
	printf("\n|---|");
	for (size_t c = 0; c < t->count; c++)
		printf("---|");
	printf("\n");
}

/* The row: each cell the median of its runs, their min-max beside it. */
static void bench_print_row(const struct bench *b, const struct bench_row *row,
			    const struct bench_sample *runs)
{
	const struct bench_table_format *t = &bench_tables[row->table];
	double *values = xcalloc((size_t)b->runs, sizeof(*values));
	char name[128], cell[96];

	bench_row_name(row, name, sizeof(name));
	printf("| %s |", name);
	for (size_t c = 0; c < t->count; c++) {
		const struct bench_column *col = &t->columns[c];
		struct stats st;

		if (!bench_applies(row, col->col)) {
			printf(" — |");
			continue;
		}
		for (int r = 0; r < b->runs; r++)
			values[r] = runs[r].v[col->col];
		stats_summary(values, (size_t)b->runs, &st);
		stats_cell(cell, sizeof(cell), &st, col->scale, col->decimals,
			   col->unit);
		printf(" %s |", cell);
	}
	printf("\n");
	free(values);
}

/* Whether one of the '|'-separated words of only is in name. */
static bool bench_chosen(const char *only, const char *name)
{
	char *copy, *save = NULL;
	bool found = false;

	if (!only)
		return true;
	copy = xstrdup(only);
	for (char *w = strtok_r(copy, "|", &save); w && !found;
	     w = strtok_r(NULL, "|", &save))
		found = strstr(name, w) != NULL;
	free(copy);
	return found;
}

/* Why a row cannot run here, or NULL. */
static const char *bench_missing(const struct bench *b,
				 const struct bench_row *row)
{
	if (row->static_probe && !b->probe_static)
		return "no static worker (-s)";
	if (row->shipped && !b->shipped)
		return "no shipped rules (-R)";
	if (row->daemon == BENCH_DAEMON_AND && !b->and)
		return "no and binary (-A)";
	return NULL;
}

static bool bench_row_runs(const struct bench *b, const struct bench_row *row)
{
	char name[128];

	bench_row_name(row, name, sizeof(name));
	return !bench_missing(b, row) && bench_chosen(b->only, name);
}

/* The shipped rules beside the probe's, or not (files 10-*, 20-*, 30-*;
 * the probe's is 10-probe.rules). */
static void bench_shipped_rules(const struct bench *b, bool on)
{
	char *cmd = on ? xasprintf("for f in '%s'/*.rules; do cp \"$f\" "
				   "'%s'/rules/shipped-$(basename \"$f\"); "
				   "done",
				   b->shipped, b->dir)
		       : xasprintf("rm -f '%s'/rules/shipped-*", b->dir);

	if (system(cmd) != 0)
		exit(1);
	free(cmd);
}

/* The probes, their rule, and a directory nobody may enter: the rename
 * flood and the comparison run the probe as nobody. */
static void bench_setup(struct bench *b, const char *worker,
			const char *worker_static)
{
	char *rules_dir = xasprintf("%s/rules", b->dir);
	char *rule = xasprintf("%s/rules/10-probe.rules", b->dir);
	char *cmp = xasprintf("%s/cmp-probe", b->dir);
	char *text, *self, *vendor;

	b->probe = xasprintf("%s/probe", b->dir);
	bench_copy(worker, b->probe);
	/* Read here: in cp, /proc/self/exe would be cp. */
	self = realpath("/proc/self/exe", NULL);
	if (!self)
		exit(1);
	for (size_t i = BENCH_PARENT_LOWERED; i <= BENCH_PARENT_RAISED; i++) {
		char *parent =
			xasprintf("%s/%s", b->dir, bench_parent_names[i]);

		bench_copy(self, parent);
		chmod(parent, 0755);
		free(parent);
	}
	bench_copy(worker, cmp);
	if (worker_static) {
		b->probe_static = xasprintf("%s/probe-static", b->dir);
		bench_copy(worker_static, b->probe_static);
	}
	chmod(b->dir, 0711);
	chmod(b->probe, 0755);
	chmod(cmp, 0755);
	mkdir(rules_dir, 0755);
	vendor = xasprintf("%s/vendor", b->dir);
	mkdir(vendor, 0755);
	free(vendor);
	text = xasprintf("rules = ( { name = \"probe\"; match = { exe = "
			 "[\"%s\", \"%s/probe-static\", \"%s\"]; }; "
			 "priority = { nice = %d; }; },\n"
			 "{ name = \"storm-lowered\"; match = { exe = "
			 "\"%s/%s\"; }; priority = { nice = 5; }; },\n"
			 "{ name = \"storm-raised\"; match = { exe = "
			 "\"%s/%s\"; }; priority = { nice = -1; }; } );\n",
			 b->probe, b->dir, cmp, BENCH_NICE, b->dir,
			 bench_parent_names[BENCH_PARENT_LOWERED], b->dir,
			 bench_parent_names[BENCH_PARENT_RAISED]);
	bench_write(rule, text);
	free(text);
	free(rule);
	free(rules_dir);
	free(cmp);
	free(self);
}

static const char *bench_table_names[BENCH_TABLE_COUNT] = {
	[BENCH_TABLE_EXEC] = "Exec to applied",
	[BENCH_TABLE_EVENTS] = "Exec events: the proc connector and the exec "
			       "filter",
	[BENCH_TABLE_COMPARE] = "Compared with and, which renices by polling",
};

/* What a table measures, before it: fixed text, and the run's own
 * parameters. */
static void bench_print_intro(const struct bench *b, enum bench_table table)
{
	char per[32], paced[32], many[32], starts[32];

	stats_count(per, sizeof(per), BENCH_PER);
	stats_count(paced, sizeof(paced), BENCH_PACED_PER_S);
	stats_count(many, sizeof(many), BENCH_MANY_COUNT);
	stats_count(starts, sizeof(starts), b->starts);
	printf("## %s\n\n", bench_table_names[table]);
	switch (table) {
	case BENCH_TABLE_EXEC:
		printf("Sequential starts of a probe (`tests/helpers/worker "
		       "-w`) that reads its own nice value from the first "
		       "line of `main()`, %s per run, as root, with a rule "
		       "for it (nice %d); `tests/bench/bench_exec.c`. "
		       "\"execve() to main()\" is the probe's own time to "
		       "its `main()` (p50 of the starts that reported); "
		       "\"policy before main()\" the share of starts that "
		       "found the policy already in place there; \"main() to "
		       "policy\" the time after that (0 when before), over "
		       "**all** starts, a miss (a start the policy did not "
		       "reach within %d ms) counted in them as that timeout "
		       "and in the misses column. CPU is the daemon's own "
		       "(`/proc/PID/schedstat`) per %s execs: the probe's "
		       "starts, and `/bin/true` (no rule matches it) started "
		       "%s times a second; the periodic rescan is off, and "
		       "each phase waits for the daemon to go idle before its "
		       "CPU is read. RSS and peak (VmHWM) are the daemon's at "
		       "the end of the row; the peak is the most it ever had "
		       "resident: the rules' parse. The %s added rules come "
		       "first in rule order and match neither the probe nor "
		       "`/bin/true`: exact exe keys are found through the exe "
		       "index, globs (exe `/opt/bench/appN/*/server`, name "
		       "`appN-*`, cmdline `*--bench-job=N *`) through the glob "
		       "index by their literal start or run; the mixed shapes "
		       "take turns: exe `DIR/vendor/appN/*` (DIR/vendor is "
		       "there, its apps are not) and "
		       "`/opt/*/midN/*/server`, name `appN-*` and `*-wN`, "
		       "cmdline `*--bench-job=N *`; the imported names are "
		       "rules of "
		       "the shape `import ananicy` writes (%d rules of names "
		       "and their sources). The static probe is the same "
		       "probe linked with `-static`: no dynamic loader runs "
		       "before its `main()`. The hog rows start the probe "
		       "while a busy loop "
		       "(nice 0, matched by no rule) runs on every CPU, as on "
		       "a loaded machine: the daemon and the probe compete "
		       "for the CPUs, under SCHED_FIFO (`self_realtime`, the "
		       "default) or not. The rows run with `events = "
		       "auto` (the exec filter where it loads) unless they "
		       "say otherwise.\n\n",
		       starts, BENCH_NICE, BENCH_TIMEOUT_MS, per, paced, many,
		       BENCH_IMPORTED_RULES);
		break;
	case BENCH_TABLE_EVENTS:
		printf("The sources of exec events side by side, with the same "
		       "probe and `/bin/true` started %s times a second and "
		       "back to back: the daemon's CPU per %s unmatched "
		       "execs; the whole machine's CPU per `/bin/true` back "
		       "to back (its fork, exec and wait, the kernel's share "
		       "of them and the daemon's), with no daemon for the "
		       "baseline; of that, the exec filter's programs' own "
		       "run time as the kernel counts it (`BPF_ENABLE_STATS`, "
		       "over fork, exec and exit; for an exec it sends, "
		       "waking the daemon too). The shipped-rules rows run "
		       "the package's rules beside the probe's in a dry run, "
		       "which applies nothing (so as not to renice the "
		       "machine's compilers meanwhile): no probe starts "
		       "there. In the children rows `/bin/true` is started "
		       "back to back by a process a rule matches (a copy of "
		       "the bench): one lowering it (nice 5), whose children "
		       "are not followed, or one raising it (nice -1), whose "
		       "children's execs the daemon sees and undoes the raise "
		       "of. A cell of — does not apply to its row.\n\n",
		       paced, per);
		break;
	case BENCH_TABLE_COMPARE:
		printf("Debian's `and` (the auto nice daemon) renices by "
		       "scanning `/proc` every interval; cpupolicyd acts at "
		       "the exec. The same probe, %d starts per run, as "
		       "`nobody` (`and` leaves root's processes alone), each "
		       "after a wait of a random part of `and`'s interval "
		       "(%d s, its shortest; its default is a minute) when "
		       "`and` runs, so that the starts do not lock onto its "
		       "scans; both set nice %d. Percentiles over all starts, "
		       "a miss (not reached within %d ms) counted in them as "
		       "that timeout and in the misses column. The daemon's "
		       "CPU per %s starts is over the window of the starts "
		       "(a poller's scans in it included); with nothing to do, "
		       "over %d s before them, in %% of a CPU. `and` comes "
		       "from Debian's package, unpacked under the build "
		       "directory by `make bench` (never installed: its "
		       "service would renice the machine's processes).\n\n",
		       b->cmp_starts, BENCH_AND_INTERVAL_S, BENCH_NICE,
		       BENCH_CMP_TIMEOUT_MS, per, BENCH_IDLE_S);
		break;
	case BENCH_TABLE_COUNT:
		break;
	}
}

static void bench_print_table(const struct bench *b, enum bench_table table,
			      const struct bench_sample *s)
{
	bool head = false;

	bench_print_intro(b, table);
	for (size_t i = 0; i < ARRAY_SIZE(bench_rows); i++) {
		const struct bench_row *row = &bench_rows[i];

		if (row->table != table || !bench_row_runs(b, row))
			continue;
		if (!head)
			bench_print_head(table);
		head = true;
		bench_print_row(b, row, &s[i * (size_t)b->runs]);
	}
	if (!head)
		printf("Not measured: no row of it was chosen (-o).\n");
	printf("\n");
	for (size_t i = 0; i < ARRAY_SIZE(bench_rows); i++) {
		const struct bench_row *row = &bench_rows[i];
		const char *why = bench_missing(b, row);
		char name[128];

		bench_row_name(row, name, sizeof(name));
		if (row->table == table && why && bench_chosen(b->only, name))
			printf("Not measured: \"%s\": %s.\n\n", name, why);
	}
}

static void bench_all(struct bench *b)
{
	size_t rows = ARRAY_SIZE(bench_rows);
	struct bench_sample *s = xcalloc(rows * (size_t)b->runs, sizeof(*s));

	for (int r = 0; r < b->runs; r++) {
		fprintf(stderr, "exec: run %d of %d\n", r + 1, b->runs);
		for (size_t i = 0; i < rows; i++) {
			if (!bench_row_runs(b, &bench_rows[i]))
				continue;
			bench_config(b, &bench_rows[i]);
			bench_many_rules(b, bench_rows[i].many);
			bench_shipped_rules(b, bench_rows[i].shipped);
			bench_run(b, &bench_rows[i], &s[i * b->runs + r]);
		}
	}
	for (int t = 0; t < BENCH_TABLE_COUNT; t++)
		bench_print_table(b, (enum bench_table)t, s);
	free(s);
}

/* A rename flood: "nobody" renames itself as fast as it can for
 * BENCH_FLOOD_S (prctl(PR_SET_NAME), one event each), once with no rule
 * on a name and once with one, each with the kernel's filter of events
 * and without it (as before Linux 6.6). Returns the daemon's CPU during
 * the flood in ms, and the renames in *count. */
static double bench_flood_once(struct bench *b, bool name_rule, bool unfiltered,
			       unsigned long long *count)
{
	char *rule = xasprintf("%s/rules/20-name.rules", b->dir);
	char buf[64] = "", secs[16];
	long long cpu0, cpu1;
	int fds[2];
	pid_t d, pid;
	ssize_t n;

	unlink(rule);
	if (name_rule)
		bench_write(rule, "rules = ( { name = \"named\"; match = { "
				  "name = \"no-such-name\"; }; priority = { "
				  "nice = 5; }; } );\n");
	if (unfiltered)
		setenv("CPUPOLICY_EVENTS_UNFILTERED", "1", 1);
	d = bench_start_daemon(b);
	unsetenv("CPUPOLICY_EVENTS_UNFILTERED");
	cpu0 = bench_settle(d);
	if (pipe(fds) < 0)
		exit(1);
	snprintf(secs, sizeof(secs), "%d", BENCH_FLOOD_S);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		if (setgroups(0, NULL) < 0 ||
		    setresgid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0 ||
		    setresuid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0)
			_exit(126);
		execl(b->probe, b->probe, "-R", secs, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	cpu1 = bench_settle(d);
	bench_stop(d);
	unlink(rule);
	free(rule);
	if (n <= 0) {
		fprintf(stderr, "bench: the renamer reported nothing\n");
		exit(1);
	}
	*count = strtoull(buf, NULL, 10);
	return (double)(cpu1 - cpu0) / 1e6;
}

/* Counts with commas between thousands: "3,206,000 (2,694,000–3,591,000)". */
static void bench_count_cell(char *buf, size_t size, const struct stats *st)
{
	char m[32], lo[32], hi[32];

	stats_count(m, sizeof(m), (long long)st->median);
	stats_count(lo, sizeof(lo), (long long)st->min);
	stats_count(hi, sizeof(hi), (long long)st->max);
	if (strcmp(lo, hi) == 0)
		snprintf(buf, size, "%s", lo);
	else
		snprintf(buf, size, "%s (%s–%s)", m, lo, hi);
}

static void bench_flood(struct bench *b)
{
	static const struct bench_row defaults = {.realtime = true};
	double *cpu = xcalloc((size_t)b->runs, sizeof(*cpu)),
	       *renames = xcalloc((size_t)b->runs, sizeof(*renames));
	struct stats c, r;

	bench_config(b, &defaults);
	bench_many_rules(b, BENCH_MANY_NONE);
	printf("## A rename flood\n\n"
	       "An unprivileged process renaming itself "
	       "(`prctl(PR_SET_NAME)`) as fast as it can for %d s, each "
	       "rename one event for the daemon, which runs with the "
	       "defaults and the probe's rule; with a rule on a name or "
	       "none, and with the kernel's filter of process events or "
	       "without it (the daemon run with "
	       "`CPUPOLICY_EVENTS_UNFILTERED=1`, which makes the proc "
	       "connector behave as before Linux 6.6). Medians of %d runs, "
	       "the runs' min–max in parentheses.\n\n"
	       "| rules, kernel | renames | the daemon's CPU |\n"
	       "|---|---|---|\n",
	       BENCH_FLOOD_S, b->runs);
	for (int row = 0; row < 4; row++) {
		bool named = row & 1, unfiltered = row & 2;
		char rcell[160], ccell[96];

		fprintf(stderr, "flood: row %d of 4\n", row + 1);
		for (int i = 0; i < b->runs; i++) {
			unsigned long long count;

			cpu[i] = bench_flood_once(b, named, unfiltered, &count);
			renames[i] = (double)count;
		}
		stats_summary(cpu, (size_t)b->runs, &c);
		stats_summary(renames, (size_t)b->runs, &r);
		bench_count_cell(rcell, sizeof(rcell), &r);
		stats_cell(ccell, sizeof(ccell), &c, 1, 1, "ms");
		printf("| %s, %s | %s | %s |\n",
		       named ? "a rule on a name" : "no rule on a name",
		       unfiltered
			       ? "a kernel that cannot filter (as before 6.6)"
			       : "a kernel that filters (6.6 and later)",
		       rcell, ccell);
	}
	printf("\n");
	free(cpu);
	free(renames);
}

/* WORKER-static when it is there, else none. */
static char *bench_default_static(const char *worker)
{
	char *path = xasprintf("%s-static", worker);

	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

static int bench_usage(void)
{
	fprintf(stderr, "usage: bench_exec [-F] [-r RUNS] [-s STATIC-WORKER] "
			"[-R SHIPPED-RULES] [-A AND] [-c COMPARE-STARTS] "
			"[-o ROWS] DAEMON WORKER [STARTS]\n");
	return 2;
}

/* A whole number of at least 1, or -1. */
static int bench_positive(const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);

	return *text && !*end && v >= 1 && v <= 1000000 ? (int)v : -1;
}

int main(int argc, char **argv)
{
	struct bench b = {.starts = 1000, .cmp_starts = 20, .runs = 5};
	char *worker_static = NULL;
	bool flood_only = false;
	int stats_fd;
	int c;

	/* The storm parent: a copy of this program that a rule matches. */
	if (argc == 3 && strcmp(argv[1], "--storm") == 0) {
		bench_storm_execs(bench_positive(argv[2]));
		return 0;
	}
	while ((c = getopt(argc, argv, "FA:c:r:s:R:o:")) != -1) {
		switch (c) {
		case 'A':
			b.and = optarg;
			break;
		case 'c':
			b.cmp_starts = bench_positive(optarg);
			break;
		case 'R':
			b.shipped = optarg;
			break;
		case 'o': /* the rows whose name holds one of these, '|' */
			b.only = optarg;
			break;
		case 'F': /* the rename flood alone */
			flood_only = true;
			break;
		case 'r':
			b.runs = bench_positive(optarg);
			break;
		case 's':
			worker_static = xstrdup(optarg);
			break;
		default:
			return bench_usage();
		}
	}
	if (argc - optind < 2 || argc - optind > 3)
		return bench_usage();
	if (argc - optind == 3)
		b.starts = bench_positive(argv[optind + 2]);
	if (b.starts < 1 || b.runs < 1 || b.cmp_starts < 1)
		return bench_usage();
	if (geteuid() != 0) {
		printf("## Exec to applied\n\nNot measured: the daemon runs as "
		       "root, and this run was not.\n\n");
		return 0;
	}
	b.daemon = argv[optind];
	if (!worker_static)
		worker_static = bench_default_static(argv[optind + 1]);
	if (!stats_temp_dir(b.dir, sizeof(b.dir), "cpupolicy-bench-exec"))
		return 1;
	srandom((unsigned)bench_now_ns());
	bench_dir = b.dir;
	atexit(bench_at_exit);
	bench_setup(&b, argv[optind + 1], worker_static);
	/* The kernel counts BPF programs' run time while this is open. */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (!flood_only)
		bench_all(&b);
	if (!b.only)
		bench_flood(&b);
	if (stats_fd >= 0)
		close(stats_fd);
	free(worker_static);
	free(b.probe);
	free(b.probe_static);
	return 0;
}
