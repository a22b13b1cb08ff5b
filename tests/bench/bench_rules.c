/* Benchmark: load and validate 20,000 generated rules (20 files of 1,000),
 * in process and through "cpupolicyctl check", and the matcher's time
 * for one exec with one rule and with 20,000 globs before it, and print
 * them as the Rules section of docs/benchmarks.md (Markdown): the median
 * of RUNS runs (default 7) and their min-max.
 *   bench_rules [-r RUNS] [CTL-BINARY] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "match.h"
#include "rules.h"
#include "stats.h"
#include "util.h"

enum {
	FILES = 20,
	PER_FILE = 1000,
	MATCH_GLOBS = 20000, /* the globs before the probe's rule */
	MATCH_EXECS = 20000, /* the execs of one timed run */
};

/* A mix like a large fleet's: exact exe paths, globs, users, classes,
 * placement and power keys. */
static void bench_write_rule(FILE *f, unsigned n)
{
	fprintf(f, "  { name = \"rule-%u\";\n", n);
	switch (n % 4) {
	case 0:
		fprintf(f,
			"    match = { exe = \"/opt/app%u/bin/server\"; };\n"
			"    priority = { nice = %u; };\n",
			n, n % 20);
		break;
	case 1:
		fprintf(f,
			"    match = { exe = [\"/usr/lib/tool%u/*\", "
			"\"/usr/bin/tool%u\"]; user = \"root\"; };\n"
			"    priority = { class = \"high\"; io_class = "
			"\"best-effort\"; io_level = 2; };\n",
			n, n);
		break;
	case 2:
		fprintf(f,
			"    match = { name = \"w%u-*\"; group = \"root\"; "
			"cmdline = \"*--job=%u*\"; };\n"
			"    placement = { cpus = \"0-3,%u\"; spread = "
			"\"numa\"; };\n",
			n, n, n % 64);
		break;
	default:
		fprintf(f,
			"    match = { exe = \"/srv/svc%u\"; cgroup = "
			"\"/system.slice/svc%u.service\"; };\n"
			"    priority = { policy = \"batch\"; nice = 10; };\n"
			"    power = { parking = \"off\"; governor = "
			"\"performance\"; };\n",
			n, n);
		break;
	}
	fprintf(f, "  }%s\n", (n + 1) % PER_FILE ? "," : "");
}

static void bench_generate(const char *dir)
{
	for (unsigned file = 0; file < FILES; file++) {
		char *path = xasprintf("%s/%02u-bench.rules", dir, file);
		FILE *f = fopen(path, "w");

		if (!f) {
			perror(path);
			exit(1);
		}
		fprintf(f, "version = 1;\nrules = (\n");
		for (unsigned i = 0; i < PER_FILE; i++)
			bench_write_rule(f, file * PER_FILE + i);
		fprintf(f, ");\n");
		fclose(f);
		free(path);
	}
}

/* One "cpupolicyctl check": its time in s, its max RSS in MiB. */
static void bench_cli_once(const char *ctl, const char *dir, double *time,
			   double *rss_mib)
{
	double start = stats_now();
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout); /* or the child's freopen writes it again */
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(ctl, ctl, "check", "--quiet", dir, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s check failed\n", ctl);
		exit(1);
	}
	*time = stats_now() - start;
	*rss_mib = (double)ru.ru_maxrss / 1024.0;
}

static void bench_cli(const char *ctl, const char *dir, int runs,
		      struct stats *time, struct stats *rss)
{
	double *t = xcalloc((size_t)runs, sizeof(*t));
	double *m = xcalloc((size_t)runs, sizeof(*m));

	for (int i = 0; i < runs; i++)
		bench_cli_once(ctl, dir, &t[i], &m[i]);
	stats_summary(t, (size_t)runs, time);
	stats_summary(m, (size_t)runs, rss);
	free(t);
	free(m);
}

/* A glob of one of the shapes bench_exec's mixed row has, in turn: an
 * exe's start, an exe's middle, a name's start and end, a command line's
 * run; none matches the probe. */
static void bench_write_glob(FILE *f, int i)
{
	static const char *const keys[] = {"exe", "exe", "name", "name",
					   "cmdline"};
	static const char *const before[] = {"/opt/bench/app", "/opt/*/mid",
					     "app", "*-w", "*--bench-job="};
	static const char *const after[] = {"/*", "/*/server", "-*", "", " *"};

	fprintf(f,
		"{ name = \"glob-%d\"; match = { %s = \"%s%d%s\"; }; "
		"priority = { nice = 5; }; },\n",
		i, keys[i % 5], before[i % 5], i, after[i % 5]);
}

/* The facts of a probe's exec, all read before: the matcher's own time
 * is what is timed. */
static void bench_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	const struct facts *probe = ctx;
	unsigned have = facts->have;

	*facts = *probe;
	facts->have = have | wanted;
}

/* match_first for the probe's exec after globs rules that miss it, in
 * µs per exec. */
static void bench_match(int globs, int runs, struct stats *st)
{
	double *t = xcalloc((size_t)runs, sizeof(*t));
	struct facts probe = {.exe_file = MATCH_FILE_SAME};
	struct match_index index;
	struct rules rules;
	struct diag diag;
	size_t len;
	char *text;
	FILE *f;

	f = open_memstream(&text, &len);
	if (!f) {
		perror("open_memstream");
		exit(1);
	}
	fprintf(f, "rules = (\n");
	for (int i = 0; i < globs; i++)
		bench_write_glob(f, i);
	fprintf(f, "{ name = \"probe\"; match = { exe = \"/usr/bin/probe\"; "
		   "}; priority = { nice = 5; }; }\n);\n");
	fclose(f);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, "bench.rules", text, len, &diag);
	if (diag.errors) {
		diag_print(&diag, stderr, false);
		exit(1);
	}
	match_index_build(&index, &rules);
	snprintf(probe.exe, sizeof(probe.exe), "/usr/bin/probe");
	snprintf(probe.comm, sizeof(probe.comm), "probe");
	snprintf(probe.cmdline, sizeof(probe.cmdline),
		 "/usr/bin/probe --job=1 --out /srv/out input.txt");
	for (int r = 0; r < runs; r++) {
		double start = stats_now();

		for (int i = 0; i < MATCH_EXECS; i++) {
			struct facts facts = {0};

			if (match_first(&index, &facts, bench_fetch, &probe) !=
			    globs) {
				fprintf(stderr, "the probe's rule missed\n");
				exit(1);
			}
		}
		t[r] = (stats_now() - start) / MATCH_EXECS;
	}
	stats_summary(t, (size_t)runs, st);
	match_index_free(&index);
	diag_free(&diag);
	rules_free(&rules);
	free(text);
	free(t);
}

/* The matcher's rows: one rule, then globs before it. */
static void bench_print_match(const struct stats *one,
			      const struct stats *globs)
{
	char cell[96], n[32];

	stats_cell(cell, sizeof(cell), one, 1e-6, 2, "µs");
	printf("| one exec's match, in process: 1 rule | %s |\n", cell);
	stats_cell(cell, sizeof(cell), globs, 1e-6, 2, "µs");
	printf("| one exec's match, in process: %s globs before the rule | "
	       "%s |\n",
	       stats_count(n, sizeof(n), MATCH_GLOBS), cell);
}

/* The section's head and table head (with in_process), then its rows. */
static void bench_print(int runs, size_t count, const struct stats *in_process,
			const struct stats *cli, const struct stats *rss)
{
	char cell[96], n[32], globs[32];

	if (in_process) {
		printf("## Rules\n\n"
		       "%s generated rules in %d files (a mix of exact exe "
		       "paths, globs, users and groups, classes, placement and "
		       "power keys; `tests/bench/bench_rules.c`) loaded and "
		       "validated, in process as the daemon loads them, and by "
		       "a whole `cpupolicyctl check`; and the matcher alone "
		       "(`match_first`, the facts already read) for one exec "
		       "of a probe its rule matches, with that rule alone and "
		       "with %s globs before it that miss it (exe starts and "
		       "middles, name starts and ends, command-line runs, in "
		       "turn). Medians of %d runs, the runs' min–max in "
		       "parentheses.\n\n"
		       "| what | figure |\n|---|---|\n",
		       stats_count(n, sizeof(n), (long long)count), FILES,
		       stats_count(globs, sizeof(globs), MATCH_GLOBS), runs);
		stats_cell(cell, sizeof(cell), in_process, 1e-3, 1, "ms");
		printf("| load and validate, in process | %s |\n", cell);
	}
	if (cli) {
		stats_cell(cell, sizeof(cell), cli, 1e-3, 1, "ms");
		printf("| `cpupolicyctl check` on them, the whole process | %s "
		       "|\n",
		       cell);
		stats_cell(cell, sizeof(cell), rss, 1, 1, "MiB");
		printf("| `cpupolicyctl check`'s max RSS | %s |\n", cell);
	}
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX];
	struct stats in_process, cli, rss, match_one, match_globs;
	size_t count = 0;
	int runs = 7, c;
	char *cmd;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c != 'r' || (runs = atoi(optarg)) < 1) {
			fprintf(stderr, "usage: bench_rules [-r RUNS] "
					"[CTL-BINARY]\n");
			return 2;
		}
	}
	if (!stats_temp_dir(dir, sizeof(dir), "cpupolicy-bench"))
		return 1;
	bench_generate(dir);
	stats_rules_load(dir, runs, &count, &in_process);
	bench_print(runs, count, &in_process, NULL, NULL);
	bench_match(0, runs, &match_one);
	bench_match(MATCH_GLOBS, runs, &match_globs);
	bench_print_match(&match_one, &match_globs);
	if (optind < argc) {
		bench_cli(argv[optind], dir, runs, &cli, &rss);
		bench_print(runs, count, NULL, &cli, &rss);
	}
	printf("\n");
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	return 0;
}
