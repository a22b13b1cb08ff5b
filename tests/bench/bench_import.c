/* Benchmark: "cpupolicyctl import ananicy" of a generated tree the size
 * of the community rule set (15,600 rules in 360 files, 13,500 of them of
 * one raising type, as there), and of the sample beside the checkout when
 * it is there; then the imported set loaded, in process and by
 * "cpupolicyctl check". Then the inputs built to collide: 20,000 types
 * whose names share their first 28 bytes (one rule name base for all),
 * and a prolasso.ini of 20,000 processes of as many settings. Medians of
 * RUNS runs (default 7), min-max, printed as the Imports section of
 * docs/benchmarks.md (Markdown).
 *   bench_import [-r RUNS] [-s SAMPLE-DIR] CTL-BINARY */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules.h"
#include "stats.h"
#include "util.h"

/* The start every colliding type name shares (28 bytes). */
#define BENCH_SHARED "Shared_prefix_of_28_bytes_ab"

enum {
	BENCH_FILES = 360,
	BENCH_RULES = 15600,
	BENCH_GAMES = 13500,
	BENCH_COLLIDING = 20000,
};

/* Types like the community set's: one raising (games), the rest
 * lowering. */
static const char *const bench_types[] = {
	"{ \"type\": \"Game\", \"nice\": -5, \"ioclass\": \"best-effort\", "
	"\"sched\": \"normal\" }",
	"{ \"type\": \"BG_CPUIO\", \"nice\": 16, \"ioclass\": \"idle\", "
	"\"sched\": \"idle\" }",
	"{ \"type\": \"Heavy_CPU\", \"nice\": 9, \"ioclass\": "
	"\"best-effort\", \"ionice\": 7 }",
	"{ \"type\": \"Service\", \"nice\": 10, \"ioclass\": "
	"\"best-effort\", \"ionice\": 6 }",
};

static FILE *bench_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

/* Games in folders of 20 files, the rest in 4 folders of their own. */
static void bench_generate(const char *dir)
{
	char *path = xasprintf("%s/00-types.types", dir);
	FILE *f = bench_open(path);
	unsigned per_file = BENCH_RULES / BENCH_FILES + 1, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bench_types); i++)
		fprintf(f, "%s\n", bench_types[i]);
	fclose(f);
	free(path);
	for (unsigned file = 0; file < BENCH_FILES && n < BENCH_RULES; file++) {
		char *folder = xasprintf("%s/folder %02u", dir, file / 20);

		mkdir(folder, 0755);
		path = xasprintf("%s/file-%03u.rules", folder, file);
		f = bench_open(path);
		fprintf(f, "# generated\n");
		for (unsigned i = 0; i < per_file && n < BENCH_RULES; i++, n++)
			fprintf(f,
				"{ \"name\": \"prog%05u\", \"type\": \"%s\" "
				"}\n",
				n,
				n < BENCH_GAMES ? "Game"
				: n % 3 == 0	? "BG_CPUIO"
				: n % 3 == 1	? "Heavy_CPU"
						: "Service");
		fclose(f);
		free(path);
		free(folder);
	}
}

/* Types whose slugs are the same 28 bytes, each with a rule of its own:
 * every rule name is the same base until its suffix. */
static void bench_generate_colliding(const char *dir)
{
	char *path = xasprintf("%s/colliding.types", dir);
	FILE *f = bench_open(path);

	for (unsigned i = 0; i < BENCH_COLLIDING; i++)
		fprintf(f,
			"{ \"type\": \"" BENCH_SHARED "%05u\", "
			"\"nice\": %u }\n",
			i, 1 + i % 19);
	fclose(f);
	free(path);
	path = xasprintf("%s/colliding.rules", dir);
	f = bench_open(path);
	for (unsigned i = 0; i < BENCH_COLLIDING; i++)
		fprintf(f,
			"{ \"name\": \"c%05u\", \"type\": "
			"\"" BENCH_SHARED "%05u\" }\n",
			i, i);
	fclose(f);
	free(path);
}

/* Processes of as many settings (CPU lists) as there are processes. */
static void bench_generate_prolasso(const char *path)
{
	FILE *f = bench_open(path);

	fprintf(f, "[ProcessDefaults]\nDefaultCPUSets=");
	for (unsigned i = 0; i < BENCH_COLLIDING; i++)
		fprintf(f, "%sp%05u.exe,%u;%u;%u", i ? "," : "", i, i % 64,
			64 + i / 64 % 64, 128 + i / 4096);
	fprintf(f, "\n");
	fclose(f);
}

/* One run of CTL ARGS... with stdout and stderr to /dev/null: seconds. */
static double bench_run(char *const argv[])
{
	double start = stats_now();
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s %s failed\n", argv[0], argv[1]);
		exit(1);
	}
	return stats_now() - start;
}

static void bench_repeat(char *const argv[], int runs, struct stats *st)
{
	double *t = xcalloc((size_t)runs, sizeof(*t));

	for (int i = 0; i < runs; i++)
		t[i] = bench_run(argv);
	stats_summary(t, (size_t)runs, st);
	free(t);
}

static void bench_print(const char *what, const struct stats *st)
{
	char cell[96];

	stats_cell(cell, sizeof(cell), st, 1e-3, 1, "ms");
	printf("| %s | %s |\n", what, cell);
}

/* The sample's rule files and the rules in them (one JSON object a line,
 * as ananicy writes them), for its row's name. */
static long bench_sample_files, bench_sample_rules;

static int bench_count_file(const char *path, const struct stat *st, int type,
			    struct FTW *ftw)
{
	size_t len = strlen(path);
	char line[4096];
	FILE *f;

	(void)st;
	(void)ftw;
	if (type != FTW_F || len < 6 || strcmp(path + len - 6, ".rules") != 0)
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	bench_sample_files++;
	while (fgets(line, sizeof(line), f))
		bench_sample_rules += line[0] == '{';
	fclose(f);
	return 0;
}

static char *bench_sample_name(const char *sample)
{
	char files[32], rules[32];

	bench_sample_files = bench_sample_rules = 0;
	nftw(sample, bench_count_file, 16, FTW_PHYS);
	return xasprintf("`import ananicy` of the sample beside the checkout "
			 "(%s rules in %s files)",
			 stats_count(rules, sizeof(rules), bench_sample_rules),
			 stats_count(files, sizeof(files), bench_sample_files));
}

static void bench_head(int runs)
{
	char rules[32], games[32];

	printf("## Imports\n\n"
	       "`cpupolicyctl import` (`tests/bench/bench_import.c`): of the "
	       "ananicy sample beside the checkout, when it is there, and of "
	       "a generated tree the size of the community set (%s rules, %s "
	       "of one raising type); the imported set loaded in process and "
	       "by `cpupolicyctl check`; then inputs built to collide: types "
	       "whose names share their first bytes (one rule name base for "
	       "all), and a Process Lasso file of as many settings as "
	       "processes. Each import reads back what it wrote before it "
	       "takes its place: the times include it. Medians of %d runs, "
	       "the runs' min–max in parentheses.\n\n"
	       "| what | figure |\n|---|---|\n",
	       stats_count(rules, sizeof(rules), BENCH_RULES),
	       stats_count(games, sizeof(games), BENCH_GAMES), runs);
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX];
	const char *sample = NULL;
	struct stats st;
	size_t count = 0;
	int runs = 7, c;
	char *tree, *out, *cmd;

	while ((c = getopt(argc, argv, "r:s:")) != -1) {
		if (c == 's')
			sample = optarg;
		else if (c != 'r' || (runs = atoi(optarg)) < 1)
			optind = argc + 1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: bench_import [-r RUNS] [-s SAMPLE-DIR] "
				"CTL-BINARY\n");
		return 2;
	}
	if (!stats_temp_dir(dir, sizeof(dir), "cpupolicy-bench-import"))
		return 1;
	tree = xasprintf("%s/tree", dir);
	out = xasprintf("%s/out", dir);
	mkdir(tree, 0755);
	mkdir(out, 0755);
	bench_head(runs);
	if (sample && access(sample, R_OK) == 0) {
		char *args[] = {argv[optind], "import",	      "ananicy", "-o",
				out,	      (char *)sample, NULL};

		char *name = bench_sample_name(sample);

		bench_repeat(args, runs, &st);
		bench_print(name, &st);
		free(name);
	}
	bench_generate(tree);
	{
		char *args[] = {
			argv[optind], "import", "ananicy", "--allow-spoofable",
			"-o",	      out,	tree,	   NULL};
		char *check[] = {argv[optind], "check", "--quiet", out, NULL};

		char rules[32], files[32], *name;

		bench_repeat(args, runs, &st);
		name = xasprintf(
			"`import ananicy` of a generated tree the size "
			"of the community set (%s rules in %s files)",
			stats_count(rules, sizeof(rules), BENCH_RULES),
			stats_count(files, sizeof(files), BENCH_FILES));
		bench_print(name, &st);
		free(name);
		stats_rules_load(out, runs, &count, &st);
		name = xasprintf("the imported set (%zu rules) loaded and "
				 "validated, in process",
				 count);
		bench_print(name, &st);
		free(name);
		bench_repeat(check, runs, &st);
		bench_print("`cpupolicyctl check` of the imported set, the "
			    "whole process",
			    &st);
	}
	{
		char *colliding = xasprintf("%s/colliding", dir);
		char *ini = xasprintf("%s/prolasso.ini", dir);
		char *args[] = {argv[optind], "import",	 "ananicy", "-o",
				out,	      colliding, NULL};
		char *lasso[] = {argv[optind], "import", "prolasso", "-o",
				 out,	       ini,	 NULL};

		mkdir(colliding, 0755);
		bench_generate_colliding(colliding);
		char n[32], *name;

		bench_repeat(args, runs, &st);
		name = xasprintf("`import ananicy` of %s types of one %d-byte "
				 "prefix (built to collide)",
				 stats_count(n, sizeof(n), BENCH_COLLIDING),
				 (int)strlen(BENCH_SHARED));
		bench_print(name, &st);
		free(name);
		bench_generate_prolasso(ini);
		bench_repeat(lasso, runs, &st);
		name = xasprintf("`import prolasso` of %s processes of as many "
				 "settings",
				 stats_count(n, sizeof(n), BENCH_COLLIDING));
		bench_print(name, &st);
		free(name);
		free(colliding);
		free(ini);
	}
	printf("\n");
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	free(tree);
	free(out);
	return 0;
}
