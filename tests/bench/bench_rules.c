/* Benchmark: load and validate 20,000 generated rules (20 files of 1,000),
 * in process and through "cpupolicyctl check", and print the figures the
 * README records. usage: bench_rules [CTL-BINARY] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules.h"
#include "util.h"

enum {
	FILES = 20,
	PER_FILE = 1000,
	RUNS = 7
};

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

static int bench_compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double bench_in_process(char *dir, size_t *count)
{
	double t[RUNS];

	for (int i = 0; i < RUNS; i++) {
		struct rules rules;
		struct diag diag;
		double start = bench_now();

		rules_init(&rules);
		diag_init(&diag);
		if (rules_load_paths(&rules, &dir, 1, true, &diag) < 0 ||
		    diag.errors) {
			diag_print(&diag, stderr, false);
			exit(1);
		}
		t[i] = bench_now() - start;
		*count = rules.count;
		diag_free(&diag);
		rules_free(&rules);
	}
	qsort(t, RUNS, sizeof(*t), bench_compare);
	return t[RUNS / 2];
}

static double bench_cli(const char *ctl, const char *dir, long *max_rss_kb)
{
	double t[RUNS];

	for (int i = 0; i < RUNS; i++) {
		double start = bench_now();
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
		wait4(pid, &status, 0, &ru);
		t[i] = bench_now() - start;
		*max_rss_kb = ru.ru_maxrss;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "%s check failed\n", ctl);
			exit(1);
		}
	}
	qsort(t, RUNS, sizeof(*t), bench_compare);
	return t[RUNS / 2];
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/cpupolicy-bench-XXXXXX";
	size_t count = 0;
	double in_process, cli;
	long rss_kb = 0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	bench_generate(dir);
	in_process = bench_in_process(dir, &count);
	printf("rules: loaded and validated %zu rules in %d files: %.1f ms "
	       "(median of %d)\n",
	       count, FILES, in_process * 1e3, RUNS);
	if (argc > 1) {
		cli = bench_cli(argv[1], dir, &rss_kb);
		printf("rules: cpupolicyctl check on them: %.1f ms, max RSS "
		       "%.1f MiB (median of %d)\n",
		       cli * 1e3, (double)rss_kb / 1024.0, RUNS);
	}
	if (system(xasprintf("rm -rf %s", dir)) != 0)
		return 1;
	return 0;
}
