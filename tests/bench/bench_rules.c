/* Benchmark: load and validate 20,000 generated rules (20 files of 1,000),
 * in process and through "cpupolicyctl check", and print them as the
 * Rules section of docs/benchmarks.md (Markdown): the median of RUNS
 * runs (default 7) and their min-max.
 *   bench_rules [-r RUNS] [CTL-BINARY] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules.h"
#include "stats.h"
#include "util.h"

enum {
	FILES = 20,
	PER_FILE = 1000
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

/* The section's head and table head (with in_process), then its rows. */
static void bench_print(int runs, size_t count, const struct stats *in_process,
			const struct stats *cli, const struct stats *rss)
{
	char cell[96], n[32];

	if (in_process) {
		printf("## Rules\n\n"
		       "%s generated rules in %d files (a mix of exact exe "
		       "paths, globs, users and groups, classes, placement and "
		       "power keys; `tests/bench/bench_rules.c`) loaded and "
		       "validated, in process as the daemon loads them, and by "
		       "a whole `cpupolicyctl check`. Medians of %d runs, the "
		       "runs' min–max in parentheses.\n\n"
		       "| what | figure |\n|---|---|\n",
		       stats_count(n, sizeof(n), (long long)count), FILES,
		       runs);
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
	char dir[] = "/tmp/cpupolicy-bench-XXXXXX";
	struct stats in_process, cli, rss;
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
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	bench_generate(dir);
	stats_rules_load(dir, runs, &count, &in_process);
	bench_print(runs, count, &in_process, NULL, NULL);
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
