/* Benchmark: load and validate 20,000 generated rules (20 files of 1,000),
 * in process and through "cpupolicyctl check", and print the figures the
 * README records: the median of RUNS runs (default 7) and their min-max.
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
	printf("rules: medians of %d runs, min-max of the runs in "
	       "parentheses\n",
	       runs);
	printf("rules: loaded and validated %zu rules in %d files: %.1f ms "
	       "(%.1f-%.1f)\n",
	       count, FILES, in_process.median * 1e3, in_process.min * 1e3,
	       in_process.max * 1e3);
	if (optind < argc) {
		bench_cli(argv[optind], dir, runs, &cli, &rss);
		printf("rules: cpupolicyctl check on them: %.1f ms "
		       "(%.1f-%.1f), max RSS %.1f MiB (%.1f-%.1f)\n",
		       cli.median * 1e3, cli.min * 1e3, cli.max * 1e3,
		       rss.median, rss.min, rss.max);
	}
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	return 0;
}
