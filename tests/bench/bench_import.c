/* Benchmark: "cpupolicyctl import ananicy" of a generated tree the size
 * of the community rule set (15,600 rules in 360 files, 13,500 of them of
 * one raising type, as there), and of the sample beside the checkout when
 * it is there; then the imported set loaded, in process and by
 * "cpupolicyctl check". Then the inputs built to collide: 20,000 types
 * whose names share their first 28 bytes (one rule name base for all),
 * and a prolasso.ini of 20,000 processes of as many settings. Medians of
 * RUNS runs (default 7), min-max.
 *   bench_import [-r RUNS] [-s SAMPLE-DIR] CTL-BINARY */
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
			"{ \"type\": \"Shared_prefix_of_28_bytes_ab%05u\", "
			"\"nice\": %u }\n",
			i, 1 + i % 19);
	fclose(f);
	free(path);
	path = xasprintf("%s/colliding.rules", dir);
	f = bench_open(path);
	for (unsigned i = 0; i < BENCH_COLLIDING; i++)
		fprintf(f,
			"{ \"name\": \"c%05u\", \"type\": "
			"\"Shared_prefix_of_28_bytes_ab%05u\" }\n",
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
	printf("import: %s: %.1f ms (%.1f-%.1f)\n", what, st->median * 1e3,
	       st->min * 1e3, st->max * 1e3);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/cpupolicy-bench-import-XXXXXX";
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
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tree = xasprintf("%s/tree", dir);
	out = xasprintf("%s/out", dir);
	mkdir(tree, 0755);
	mkdir(out, 0755);
	printf("import: medians of %d runs, min-max of the runs in "
	       "parentheses\n",
	       runs);
	if (sample && access(sample, R_OK) == 0) {
		char *args[] = {argv[optind], "import",	      "ananicy", "-o",
				out,	      (char *)sample, NULL};

		bench_repeat(args, runs, &st);
		bench_print("the ananicy sample (161 rules, 97 files)", &st);
	}
	bench_generate(tree);
	{
		char *args[] = {
			argv[optind], "import", "ananicy", "--allow-spoofable",
			"-o",	      out,	tree,	   NULL};
		char *check[] = {argv[optind], "check", "--quiet", out, NULL};

		bench_repeat(args, runs, &st);
		bench_print("15,600 generated rules in 360 files", &st);
		stats_rules_load(out, runs, &count, &st);
		printf("import: the imported set (%zu rules) loaded and "
		       "validated: %.1f ms (%.1f-%.1f)\n",
		       count, st.median * 1e3, st.min * 1e3, st.max * 1e3);
		bench_repeat(check, runs, &st);
		bench_print("cpupolicyctl check of the imported set", &st);
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
		bench_repeat(args, runs, &st);
		bench_print("20,000 types of one 28-byte prefix (built to "
			    "collide)",
			    &st);
		bench_generate_prolasso(ini);
		bench_repeat(lasso, runs, &st);
		bench_print("prolasso: 20,000 processes of 20,000 settings",
			    &st);
		free(colliding);
		free(ini);
	}
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	free(tree);
	free(out);
	return 0;
}
