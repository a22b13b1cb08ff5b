/* Windows: a stream into memory. The C runtime has no open_memstream, and
 * its tmpfile() makes its file in the root of the current drive, which a
 * user may not write: the stream is a file of the user's temporary folder,
 * deleted on close and kept in memory by the cache as long as it fits
 * (FILE_ATTRIBUTE_TEMPORARY), read back whole when it closes. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>

#include "win.h"

static HANDLE memstream_file(void)
{
	wchar_t dir[MAX_PATH + 1], path[MAX_PATH + 1];

	if (!GetTempPathW(ARRAYSIZE(dir), dir) ||
	    !GetTempFileNameW(dir, L"cpp", 0, path))
		return INVALID_HANDLE_VALUE;
	return CreateFileW(
		path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
		FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
}

FILE *memstream_open(struct memstream *m)
{
	HANDLE h;
	int fd;

	*m = (struct memstream){0};
	h = memstream_file();
	if (h == INVALID_HANDLE_VALUE) {
		/* NULL says it failed, as open_memstream's would: errno is
		 * its only word on why. */
		errno = status_errno_of_win32(GetLastError());
		return NULL;
	}
	fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		return NULL;
	}
	m->file = _fdopen(fd, "w+b");
	if (!m->file)
		_close(fd);
	return m->file;
}

static char *memstream_read(FILE *f, size_t *len)
{
	long end;
	char *text;

	if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_END) != 0 ||
	    (end = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		return NULL;
	text = malloc((size_t)end + 1);
	if (!text)
		return NULL;
	if (fread(text, 1, (size_t)end, f) != (size_t)end) {
		free(text);
		return NULL;
	}
	text[end] = '\0';
	*len = (size_t)end;
	return text;
}

char *memstream_close(struct memstream *m, size_t *len)
{
	m->text = memstream_read(m->file, &m->len);
	if (fclose(m->file) != 0 && m->text) {
		free(m->text);
		m->text = NULL;
	}
	if (!m->text)
		m->len = 0;
	if (len)
		*len = m->len;
	return m->text;
}
