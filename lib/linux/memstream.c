/* Linux: a stream into memory is the C library's open_memstream. */
#include <stdlib.h>

#include "os.h"

FILE *memstream_open(struct memstream *m)
{
	*m = (struct memstream){0};
	m->file = open_memstream(&m->text, &m->len);
	return m->file;
}

char *memstream_close(struct memstream *m, size_t *len)
{
	if (fclose(m->file) != 0) {
		free(m->text);
		m->text = NULL;
		m->len = 0;
	}
	if (len)
		*len = m->len;
	return m->text;
}
