/* Windows: no exec filter in the kernel; the daemon goes on with
 * events.c. execfilter_open fails without a word: nothing to explain. */
#include "execfilter.h"

struct execfilter *execfilter_open(unsigned follow_max, char *why,
				   size_t why_size)
{
	(void)follow_max;
	if (why_size)
		why[0] = '\0';
	return NULL;
}

enum os_status execfilter_set(struct execfilter *f, const struct execplan *plan)
{
	(void)f;
	(void)plan;
	return OS_UNSUPPORTED;
}

enum os_status execfilter_refresh(struct execfilter *f, bool *changed)
{
	(void)f;
	*changed = false;
	return OS_OK;
}

int execfilter_watch_fd(const struct execfilter *f)
{
	(void)f;
	return -1;
}

enum os_status execfilter_watch_read(struct execfilter *f, size_t *changed)
{
	(void)f;
	*changed = 0;
	return OS_OK;
}

enum os_status execfilter_follow(struct execfilter *f, int pid, unsigned how,
				 bool *added)
{
	(void)f;
	(void)pid;
	(void)how;
	*added = false;
	return OS_UNSUPPORTED;
}

void execfilter_unfull(struct execfilter *f, unsigned long long failed)
{
	(void)f;
	(void)failed;
}

int execfilter_fd(const struct execfilter *f)
{
	(void)f;
	return -1;
}

enum os_status execfilter_take(struct execfilter *f)
{
	(void)f;
	return OS_UNSUPPORTED;
}

void execfilter_deliver(struct execfilter *f, events_fn fn, void *ctx)
{
	(void)f;
	(void)fn;
	(void)ctx;
}

enum os_status execfilter_stats(const struct execfilter *f,
				struct execfilter_stats *st)
{
	(void)f;
	*st = (struct execfilter_stats){0};
	return OS_UNSUPPORTED;
}

unsigned long long execfilter_received(const struct execfilter *f)
{
	(void)f;
	return 0;
}

void execfilter_close(struct execfilter *f)
{
	(void)f;
}
