/* Summaries of a benchmark's repeated runs: the median, with the min and
 * the max of the runs as its spread, and the way a table of
 * docs/benchmarks.md prints them; the clock they are timed on, and the
 * one figure two benchmarks share, a rule set's load in process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "rules.h"
#include "stats.h"
#include "util.h"

double stats_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The rule files of dir loaded `runs` times, as the daemon loads them; the
 * rules they hold in count. A file with errors ends the benchmark. */
void stats_rules_load(char *dir, int runs, size_t *count, struct stats *st)
{
	double *t = xcalloc((size_t)runs, sizeof(*t));

	for (int i = 0; i < runs; i++) {
		struct rules rules;
		struct diag diag;
		double start = stats_now();

		rules_init(&rules);
		diag_init(&diag);
		if (rules_load_paths(&rules, &dir, 1, true, &diag) < 0 ||
		    diag.errors) {
			diag_print(&diag, stderr, false);
			exit(1);
		}
		t[i] = stats_now() - start;
		*count = rules.count;
		diag_free(&diag);
		rules_free(&rules);
	}
	stats_summary(t, (size_t)runs, st);
	free(t);
}

static int stats_compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts values (count >= 1) in place. An even count has the mean of the
 * two middle values as its median. */
void stats_summary(double *values, size_t count, struct stats *out)
{
	qsort(values, count, sizeof(*values), stats_compare);
	out->min = values[0];
	out->max = values[count - 1];
	if (count % 2)
		out->median = values[count / 2];
	else
		out->median = (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* A table cell: "median UNIT (min–max)", each value divided by scale;
 * the median alone when every run gave the same figure. unit may be "". */
void stats_cell(char *buf, size_t size, const struct stats *st, double scale,
		int decimals, const char *unit)
{
	const char *gap = *unit ? " " : "";
	char lo[32], hi[32];

	snprintf(lo, sizeof(lo), "%.*f", decimals, st->min / scale);
	snprintf(hi, sizeof(hi), "%.*f", decimals, st->max / scale);
	if (strcmp(lo, hi) == 0)
		snprintf(buf, size, "%s%s%s", lo, gap, unit);
	else
		snprintf(buf, size, "%.*f%s%s (%s–%s)", decimals,
			 st->median / scale, gap, unit, lo, hi);
}

/* n with a comma between thousands, as the tables' prose writes counts. */
const char *stats_count(char *buf, size_t size, long long n)
{
	if (n >= 1000 || n <= -1000) {
		char rest[32];

		stats_count(rest, sizeof(rest), n / 1000);
		snprintf(buf, size, "%s,%03lld", rest, llabs(n % 1000));
	} else {
		snprintf(buf, size, "%lld", n);
	}
	return buf;
}

/* The run's own directory, NAME-XXXXXX made under $TMPDIR (else /tmp)
 * into buf; NULL, said why, when it cannot be. */
char *stats_temp_dir(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int len = snprintf(buf, size, "%s/%s-XXXXXX",
			   tmp && *tmp ? tmp : "/tmp", name);

	if (len < 0 || (size_t)len >= size) {
		fprintf(stderr, "%s: TMPDIR is too long\n", name);
		return NULL;
	}
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		return NULL;
	}
	return buf;
}
