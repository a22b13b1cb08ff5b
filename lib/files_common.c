/* What both systems' files.c share of a directory's listing: its names in
 * the one order rule files are read in (strcmp, byte by byte, so that
 * "10-a.rules" comes before "20-b.rules" whatever the locale), and the
 * freeing of the list. */
#include <stdlib.h>
#include <string.h>

#include "os.h"

static int files_compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void files_sort_names(char **names, size_t count)
{
	if (count)
		qsort(names, count, sizeof(*names), files_compare_names);
}

void files_list_free(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}
