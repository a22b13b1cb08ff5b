/* Small helpers shared by every part: allocation that cannot fail
 * quietly. (Files are read through the seam: files_read, os.h.) */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		fatal("malloc %zu", size);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		fatal("calloc %zu x %zu", count, size);
	return p;
}

void *xreallocarray(void *ptr, size_t count, size_t size)
{
	size_t total;
	void *p;

	if (size && count > SIZE_MAX / size) {
		errno = ENOMEM;
		fatal("reallocarray %zu x %zu", count, size);
	}
	total = count * size;
	p = realloc(ptr, total ? total : 1);
	if (!p)
		fatal("reallocarray %zu x %zu", count, size);
	return p;
}

/* Room for one more element after count: the array doubles when count
 * reaches a power of two, so n appends copy O(n) elements in all. */
void *xgrow(void *ptr, size_t count, size_t size)
{
	if (count && (count & (count - 1)))
		return ptr;
	return xreallocarray(ptr, count ? count * 2 : 1, size);
}

char *xstrdup(const char *text)
{
	char *p = strdup(text);

	if (!p)
		fatal("strdup");
	return p;
}

char *xstrndup(const char *text, size_t len)
{
	size_t n = strnlen(text, len);
	char *p = xmalloc(n + 1);

	memcpy(p, text, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("asprintf");
	return p;
}
