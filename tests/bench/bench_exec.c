/* Benchmark: exec-to-applied latency, misses, daemon CPU per 1,000 execs
 * and RSS, with the real daemon (as root). Each started process (the
 * worker helper with -w) spins reading its own nice value from the first
 * line of main() and reports when it changed, or that it was already set
 * before main() ran.
 *   bench_exec [-r RUNS] [-s STATIC-WORKER] DAEMON WORKER [STARTS]
 * Every row of the table is run RUNS times (default 5), the rows taking
 * turns so that a noisy minute of a shared machine spreads over all of
 * them; each column prints the median of the runs, and the line beneath
 * the min-max of the runs. STATIC-WORKER (default WORKER-static, when it
 * exists) is the worker linked with -static: no dynamic loader runs
 * before its main(). */
#include <fcntl.h>
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
	BENCH_MANY_EXE_GLOB,	 /* scanned one by one at every exec */
	BENCH_MANY_NAME_GLOB,	 /* scanned, and needs /proc/PID/comm */
	BENCH_MANY_CMDLINE_GLOB, /* scanned, needs /proc/PID/cmdline */
	BENCH_MANY_ONE_CMDLINE,	 /* one rule the exec filter cannot judge */
	BENCH_MANY_IMPORTED,	 /* an ananicy import's shape: name lists */
};

enum {
	BENCH_MANY_COUNT = 20000,
	/* The community ananicy set, as "import ananicy" writes it: a rule
	 * per type and folder, a name and a source per ananicy rule. */
	BENCH_IMPORTED_NAMES = 15600,
	BENCH_IMPORTED_RULES = 20,
};

struct bench_row {
	const char *name;
	bool realtime;
	int batch_ms;
	enum bench_many many;
	bool static_probe;
	const char *events; /* the config's events = ...; NULL: auto */
	bool no_daemon;	    /* the storm alone: the baseline of an exec */
	/* The shipped rules beside the probe's, in a dry run: they would
	 * renice the machine's compilers meanwhile. For RSS and the cost of
	 * unmatched execs: no probe starts (0 in their columns). */
	bool shipped;
};

#define BENCH_ROW(n, rt, batch, m, st)                                         \
	.name = (n), .realtime = (rt), .batch_ms = (batch), .many = (m),       \
	.static_probe = (st)

static const struct bench_row bench_rows[] = {
	{BENCH_ROW("1 rule (defaults)", true, 0, BENCH_MANY_NONE, false)},
	{BENCH_ROW("1 rule, self_realtime off", false, 0, BENCH_MANY_NONE,
		   false)},
	{BENCH_ROW("1 rule, batch_ms = 20", true, 20, BENCH_MANY_NONE, false)},
	{BENCH_ROW("1 rule, static probe", true, 0, BENCH_MANY_NONE, true)},
	{BENCH_ROW("static, self_realtime off", false, 0, BENCH_MANY_NONE,
		   true)},
	{BENCH_ROW("20,001 rules, exact exe", true, 0, BENCH_MANY_EXE, false)},
	{BENCH_ROW("20,001 rules, exe globs", true, 0, BENCH_MANY_EXE_GLOB,
		   false)},
	{BENCH_ROW("20,001 rules, name globs", true, 0, BENCH_MANY_NAME_GLOB,
		   false)},
	{BENCH_ROW("20,001 rules, cmdline globs", true, 0,
		   BENCH_MANY_CMDLINE_GLOB, false)},
	{BENCH_ROW("15,600 imported names", true, 0, BENCH_MANY_IMPORTED,
		   false)},
	/* The sources of exec events side by side, and no daemon at all:
	 * what an exec costs the whole machine with each. */
	{BENCH_ROW("no daemon (baseline)", true, 0, BENCH_MANY_NONE, false),
	 .no_daemon = true},
	{BENCH_ROW("events = netlink", true, 0, BENCH_MANY_NONE, false),
	 .events = "netlink"},
	{BENCH_ROW("events = bpf", true, 0, BENCH_MANY_NONE, false),
	 .events = "bpf"},
	{BENCH_ROW("netlink, shipped rules", true, 0, BENCH_MANY_NONE, false),
	 .events = "netlink", .shipped = true},
	{BENCH_ROW("bpf, shipped rules", true, 0, BENCH_MANY_NONE, false),
	 .events = "bpf", .shipped = true},
	/* A cmdline rule: every exec goes to the daemon, as with netlink. */
	{BENCH_ROW("bpf, 1 cmdline rule", true, 0, BENCH_MANY_ONE_CMDLINE,
		   false),
	 .events = "bpf"},
};

/* The figures of one run, one per column. */
enum bench_col {
	BENCH_COL_TO_MAIN,	/* us, execve() to main(), p50 */
	BENCH_COL_BEFORE,	/* % of starts with the policy before main() */
	BENCH_COL_P50,		/* us, main() to the policy, 0 when before */
	BENCH_COL_P99,		/* us, the same, p99 */
	BENCH_COL_MAX,		/* us, the same, max */
	BENCH_COL_MISSES,	/* starts the policy did not reach in 1 s */
	BENCH_COL_CPU_MATCHING, /* daemon CPU ms per 1,000 probe starts */
	BENCH_COL_CPU_PACED,	/* the same for /bin/true, 1,000 a second */
	BENCH_COL_CPU_STORM,	/* the same for /bin/true, back to back */
	BENCH_COL_EXEC_COST,	/* us of the machine's CPU per /bin/true */
	BENCH_COL_FILTER_NS,	/* ns of the exec filter's programs in it */
	BENCH_COL_RSS,		/* MiB */
	BENCH_COL_PEAK,		/* MiB, VmHWM */
	BENCH_COL_COUNT
};

struct bench_col_format {
	const char *head;
	int width, decimals;
};

static const struct bench_col_format bench_cols[BENCH_COL_COUNT] = {
	[BENCH_COL_TO_MAIN] = {"main", 9, 0},
	[BENCH_COL_BEFORE] = {"<main %", 11, 1},
	[BENCH_COL_P50] = {"p50", 11, 0},
	[BENCH_COL_P99] = {"p99", 11, 0},
	[BENCH_COL_MAX] = {"max", 13, 0},
	[BENCH_COL_MISSES] = {"miss", 5, 0},
	[BENCH_COL_CPU_MATCHING] = {"cpu/1k m", 11, 1},
	[BENCH_COL_CPU_PACED] = {"cpu/1k p", 11, 1},
	[BENCH_COL_CPU_STORM] = {"cpu/1k s", 11, 1},
	[BENCH_COL_EXEC_COST] = {"exec us", 10, 1},
	[BENCH_COL_FILTER_NS] = {"bpf ns", 8, 0},
	[BENCH_COL_RSS] = {"RSS", 10, 1},
	[BENCH_COL_PEAK] = {"peak", 10, 1},
};

struct bench_sample {
	double v[BENCH_COL_COUNT];
};

struct bench {
	const char *daemon;
	const char *shipped; /* the shipped rules' directory, or NULL */
	const char *only;    /* run the rows whose name holds it; NULL: all */
	char dir[64];
	char *probe, *probe_static;
	int starts, runs;
};

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

/* One start: fork, note the time, exec the probe, read its report. */
static int bench_one(const char *probe, long long *to_main, long long *latency,
		     int *before_main)
{
	int fds[2];
	char buf[128] = "";
	ssize_t n;
	int status;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char when[32];

		dup2(fds[1], 1);
		close(fds[0]);
		snprintf(when, sizeof(when), "%lld", bench_now_ns());
		execl(probe, probe, "-w", "7", "-T", "1000", "-e", when,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%lld %lld %d", to_main, latency, before_main) == 3
		       ? 0
		       : -1;
}

static long long bench_rusage_ns(const struct rusage *ru)
{
	return ((long long)ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) *
		       1000000000LL +
	       ((long long)ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000;
}

/* /bin/true (no rule matches it) at 1,000 starts a second. */
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
		next += 1000000;
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

/* The probe's starts; fills the latency and miss columns. */
static void bench_starts(const char *probe, int starts, struct bench_sample *s)
{
	long long *lat = xcalloc((size_t)starts, sizeof(*lat));
	long long *to_main = xcalloc((size_t)starts, sizeof(*to_main));
	int n = 0, before_main = 0;

	for (int i = 0; i < starts; i++) {
		int before;

		if (bench_one(probe, &to_main[n], &lat[n], &before) < 0)
			continue;
		before_main += before;
		n++;
	}
	qsort(lat, (size_t)n, sizeof(*lat), bench_compare);
	qsort(to_main, (size_t)n, sizeof(*to_main), bench_compare);
	s->v[BENCH_COL_BEFORE] = 100.0 * before_main / starts;
	s->v[BENCH_COL_MISSES] = starts - n;
	if (n) {
		s->v[BENCH_COL_TO_MAIN] = (double)to_main[n / 2] / 1e3;
		s->v[BENCH_COL_P50] = (double)lat[n / 2] / 1e3;
		s->v[BENCH_COL_P99] =
			(double)lat[(size_t)((double)n * 0.99)] / 1e3;
		s->v[BENCH_COL_MAX] = (double)lat[n - 1] / 1e3;
	}
	free(lat);
	free(to_main);
}

static void bench_run(const struct bench *b, const struct bench_row *row,
		      struct bench_sample *s)
{
	const char *probe = row->static_probe ? b->probe_static : b->probe;
	long long cpu0, cpu1, cpu2, cpu3, storm, filter_ns;
	pid_t d;

	*s = (struct bench_sample){0};
	if (row->no_daemon) {
		storm = bench_storm_execs(b->starts);
		s->v[BENCH_COL_EXEC_COST] = (double)storm / 1e3 / b->starts;
		return;
	}
	d = bench_start_daemon(b);
	cpu0 = bench_settle(d);
	/* In a dry run no probe would see its policy: no starts. */
	if (!row->shipped)
		bench_starts(probe, b->starts, s);
	cpu1 = bench_settle(d);
	bench_paced_execs(b->starts);
	cpu2 = bench_settle(d);
	filter_ns = bench_filter_ns();
	storm = bench_storm_execs(b->starts);
	s->v[BENCH_COL_FILTER_NS] =
		(double)(bench_filter_ns() - filter_ns) / b->starts;
	cpu3 = bench_settle(d);
	s->v[BENCH_COL_CPU_MATCHING] =
		(double)(cpu1 - cpu0) / 1e6 * 1000.0 / b->starts;
	s->v[BENCH_COL_CPU_PACED] =
		(double)(cpu2 - cpu1) / 1e6 * 1000.0 / b->starts;
	s->v[BENCH_COL_CPU_STORM] =
		(double)(cpu3 - cpu2) / 1e6 * 1000.0 / b->starts;
	s->v[BENCH_COL_EXEC_COST] =
		(double)(storm + (cpu3 - cpu2)) / 1e3 / b->starts;
	s->v[BENCH_COL_RSS] = (double)bench_status_kb(d, "VmRSS:") / 1024.0;
	s->v[BENCH_COL_PEAK] = (double)bench_status_kb(d, "VmHWM:") / 1024.0;
	kill(d, SIGTERM);
	waitpid(d, NULL, 0);
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

/* Values that never match the probe (or /bin/true): every exec tries all
 * the scanned ones. */
static void bench_write_match(FILE *f, enum bench_many many, int i)
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
		bench_write_match(f, many, i);
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

static void bench_cell(const struct bench_col_format *c, const char *text)
{
	printf(" %*s", c->width, text);
}

static void bench_print_head(void)
{
	printf("%-28s", "run");
	for (int c = 0; c < BENCH_COL_COUNT; c++)
		bench_cell(&bench_cols[c], bench_cols[c].head);
	printf("\n");
}

/* The row's medians, and beneath them the min-max of its runs. */
static void bench_print_row(const struct bench *b, const struct bench_row *row,
			    const struct bench_sample *runs)
{
	double *values = xcalloc((size_t)b->runs, sizeof(*values));
	struct stats st[BENCH_COL_COUNT];
	char text[64];

	for (int c = 0; c < BENCH_COL_COUNT; c++) {
		for (int r = 0; r < b->runs; r++)
			values[r] = runs[r].v[c];
		stats_summary(values, (size_t)b->runs, &st[c]);
	}
	printf("%-28s", row->name);
	for (int c = 0; c < BENCH_COL_COUNT; c++) {
		snprintf(text, sizeof(text), "%.*f", bench_cols[c].decimals,
			 st[c].median);
		bench_cell(&bench_cols[c], text);
	}
	printf("\n%-28s", "  min-max");
	for (int c = 0; c < BENCH_COL_COUNT; c++) {
		snprintf(text, sizeof(text), "%.*f-%.*f",
			 bench_cols[c].decimals, st[c].min,
			 bench_cols[c].decimals, st[c].max);
		bench_cell(&bench_cols[c], text);
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

static bool bench_row_runs(const struct bench *b, const struct bench_row *row)
{
	return (!row->static_probe || b->probe_static) &&
	       (!row->shipped || b->shipped) &&
	       bench_chosen(b->only, row->name);
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

static void bench_setup(struct bench *b, const char *worker,
			const char *worker_static)
{
	char *rules_dir = xasprintf("%s/rules", b->dir);
	char *rule = xasprintf("%s/rules/10-probe.rules", b->dir);
	char *text;

	b->probe = xasprintf("%s/probe", b->dir);
	bench_copy(worker, b->probe);
	if (worker_static) {
		b->probe_static = xasprintf("%s/probe-static", b->dir);
		bench_copy(worker_static, b->probe_static);
	}
	mkdir(rules_dir, 0755);
	text = xasprintf("rules = ( { name = \"probe\"; match = { exe = "
			 "[\"%s\", \"%s/probe-static\"]; }; priority = { "
			 "nice = 7; }; } );\n",
			 b->probe, b->dir);
	bench_write(rule, text);
	free(text);
	free(rule);
	free(rules_dir);
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
	bench_print_head();
	for (size_t i = 0; i < rows; i++) {
		if (bench_row_runs(b, &bench_rows[i]))
			bench_print_row(b, &bench_rows[i], &s[i * b->runs]);
		else if (!b->only)
			printf("%-28s skipped: no %s\n", bench_rows[i].name,
			       bench_rows[i].shipped ? "shipped rules (-R)"
						     : "static worker");
	}
	free(s);
}

/* A rename flood: "nobody" renames itself as fast as it can for 2 s
 * (prctl(PR_SET_NAME), one event each), once with no rule on a name and
 * once with one, each with the kernel's filter of events and without it
 * (as before Linux 6.6). Returns the daemon's CPU during the flood in ms,
 * and the renames in *count. */
static double bench_flood_once(struct bench *b, bool name_rule, bool unfiltered,
			       unsigned long long *count)
{
	char *rule = xasprintf("%s/rules/20-name.rules", b->dir);
	char buf[64] = "";
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
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(126);
		execl(b->probe, b->probe, "-R", "2", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	cpu1 = bench_settle(d);
	kill(d, SIGTERM);
	waitpid(d, NULL, 0);
	unlink(rule);
	free(rule);
	*count = n > 0 ? strtoull(buf, NULL, 10) : 0;
	return (double)(cpu1 - cpu0) / 1e6;
}

static void bench_flood(struct bench *b)
{
	static const struct bench_row defaults = {.realtime = true};
	double *cpu = xcalloc((size_t)b->runs, sizeof(*cpu)),
	       *renames = xcalloc((size_t)b->runs, sizeof(*renames));
	struct stats c, r;

	/* The unprivileged renamer must reach its copy of the probe. */
	chmod(b->dir, 0711);
	chmod(b->probe, 0755);
	bench_config(b, &defaults);
	bench_many_rules(b, BENCH_MANY_NONE);
	printf("rename flood: an unprivileged process renaming itself for "
	       "2 s; median of %d runs (min-max)\n",
	       b->runs);
	for (int row = 0; row < 4; row++) {
		bool named = row & 1, unfiltered = row & 2;

		for (int i = 0; i < b->runs; i++) {
			unsigned long long count;

			cpu[i] = bench_flood_once(b, named, unfiltered, &count);
			renames[i] = (double)count;
		}
		stats_summary(cpu, (size_t)b->runs, &c);
		stats_summary(renames, (size_t)b->runs, &r);
		printf("  %-24s %-18s %.0f renames (%.0f-%.0f), daemon CPU "
		       "%.1f ms (%.1f-%.1f)\n",
		       named ? "with a name rule" : "no rule on a name",
		       unfiltered ? "no kernel filter" : "kernel filter",
		       r.median, r.min, r.max, c.median, c.min, c.max);
	}
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
			"[-R SHIPPED-RULES] [-o ROWS] DAEMON WORKER "
			"[STARTS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bench b = {.dir = "/tmp/cpupolicy-bench-exec-XXXXXX",
			  .starts = 1000,
			  .runs = 5};
	char *worker_static = NULL, *cmd;
	int stats_fd;
	int c;

	bool flood_only = false;

	while ((c = getopt(argc, argv, "Fr:s:R:o:")) != -1) {
		switch (c) {
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
			b.runs = atoi(optarg);
			break;
		case 's':
			worker_static = xstrdup(optarg);
			break;
		default:
			return bench_usage();
		}
	}
	if (argc - optind < 2 || argc - optind > 3 || b.runs < 1)
		return bench_usage();
	if (argc - optind == 3)
		b.starts = atoi(argv[optind + 2]);
	if (b.starts < 1)
		return bench_usage();
	if (geteuid() != 0) {
		printf("exec: skipped (needs root to run the daemon)\n");
		return 0;
	}
	b.daemon = argv[optind];
	if (!worker_static)
		worker_static = bench_default_static(argv[optind + 1]);
	if (!mkdtemp(b.dir))
		return 1;
	bench_setup(&b, argv[optind + 1], worker_static);
	/* The kernel counts BPF programs' run time while this is open. */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	printf("exec: %d sequential starts per run, each spinning on its own "
	       "nice value from the first line of main(); each row the median "
	       "of %d runs, min-max of the runs beneath\n",
	       b.starts, b.runs);
	fflush(stdout); /* before the progress lines on stderr */
	if (!flood_only)
		bench_all(&b);
	if (!flood_only)
		printf("(main: us from execve() to main(), p50; <main %%: "
		       "starts with "
		       "the policy in place when main() began; p50/p99/max: us "
		       "from "
		       "main() to the policy, 0 when before; miss: starts the "
		       "policy "
		       "did not reach within 1 s; cpu/1k: daemon CPU ms per "
		       "1,000 "
		       "execs, m = the matching starts above, p = /bin/true "
		       "paced at "
		       "1,000 a second, s = /bin/true back to back; exec us: "
		       "the machine's CPU per /bin/true back to back, its "
		       "fork, exec and wait, the kernel's work in them and "
		       "the daemon's; bpf ns: the exec filter's programs' "
		       "share of it, the kernel's count (fork, exec, exit; "
		       "for an exec it sends, the daemon's wakeup, which "
		       "preempts it, too); "
		       "RSS and peak (VmHWM) of the daemon in "
		       "MiB; "
		       "the 20,000 added rules match neither and come first in "
		       "rule "
		       "order; static: the probe linked with -static; "
		       "shipped rules: the package's rules beside the probe's, "
		       "in a dry run, which applies nothing: RSS and "
		       "unmatched execs only, no probe starts)\n");
	if (!b.only)
		bench_flood(&b);
	cmd = xasprintf("rm -rf %s", b.dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	if (stats_fd >= 0)
		close(stats_fd);
	free(worker_static);
	free(b.probe);
	free(b.probe_static);
	return 0;
}
