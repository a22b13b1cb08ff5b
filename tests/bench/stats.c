/* Summaries of a benchmark's repeated runs: the median, with the min and
 * the max of the runs as its spread. */
#include <stdlib.h>

#include "stats.h"

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
