/* What both systems' files.c share: the buffer a whole file is read
 * into, and a directory's names in the one order rule files are read in
 * (strcmp, byte by byte, so that "10-a.rules" comes before "20-b.rules"
 * whatever the locale), with the freeing of the list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "util.h"

/* One byte past the most is read to tell a longer file; the first piece
 * is small, as most files read whole are. */
void files_buffer_init(struct files_buffer *b, size_t max)
{
	b->limit = max + 1;
	b->cap = b->limit < 4096 ? b->limit : 4096;
	b->used = 0;
	b->text = xmalloc(b->cap + 1);
}

bool files_buffer_room(struct files_buffer *b)
{
	if (b->used < b->cap)
		return true;
	if (b->cap == b->limit) {
		free(b->text);
		b->text = NULL;
		errno = EFBIG;
		return false;
	}
	b->cap = b->cap * 2 > b->limit ? b->limit : b->cap * 2;
	b->text = xreallocarray(b->text, b->cap + 1, 1);
	return true;
}

void files_buffer_done(struct files_buffer *b, char **text, size_t *len)
{
	b->text[b->used] = '\0';
	*text = b->text;
	*len = b->used;
}

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
