/* Small helpers shared by every part: allocation that cannot fail
 * quietly. */
#ifndef CPUPOLICY_UTIL_H
#define CPUPOLICY_UTIL_H

#include <stddef.h>

#include "ostypes.h" /* OS_PRINTF */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* util.c */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xreallocarray(void *ptr, size_t count, size_t size);
void *xgrow(void *ptr, size_t count, size_t size);
char *xstrdup(const char *text);
char *xstrndup(const char *text, size_t len);
char *xasprintf(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));

#endif
