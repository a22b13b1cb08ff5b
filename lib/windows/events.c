/* Windows: process and thread events. (First cut: none; ETW and the poll
 * come next.) */
#include <stdio.h>

#include "win.h"

int events_open(struct events *ev, unsigned buffer_kb)
{
	(void)buffer_kb;
	ev->fd = -1;
	return -1;
}

int events_adopt(struct events *ev, int fd, unsigned buffer_kb)
{
	(void)fd;
	return events_open(ev, buffer_kb);
}

void events_close(struct events *ev)
{
	ev->fd = -1;
}

int events_read(struct events *ev, events_fn fn, void *ctx)
{
	(void)ev;
	(void)fn;
	(void)ctx;
	return 0;
}

int events_parse(const void *buf, size_t len, events_fn fn, void *ctx,
		 struct events_acks *acks)
{
	(void)buf;
	(void)len;
	(void)fn;
	(void)ctx;
	(void)acks;
	return -1;
}

int events_want(struct events *ev, unsigned wanted)
{
	ev->wanted = wanted;
	return 0;
}

void events_why_not(int error, char *buf, size_t size)
{
	snprintf(buf, size, "process events are not implemented yet (%d)",
		 error);
}

HANDLE events_handle(const struct events *ev)
{
	(void)ev;
	return NULL;
}
