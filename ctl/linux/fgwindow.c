/* Linux: the window its user is looking at, on the user's X display: the
 * root window's _NET_ACTIVE_WINDOW, as every EWMH window manager keeps it,
 * watched with PropertyNotify so that the agent sleeps between changes.
 * Its process is the X client's real pid as the server knows it (the
 * X-Resource extension, XResQueryClientIds), not the _NET_WM_PID the
 * window says of itself: any client may write that. Only where the server
 * has no X-Resource is _NET_WM_PID taken. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/XRes.h>

#include "../ctl.h"

struct fgwindow {
	Display *display;
	Window root;
	Atom active, wm_pid;
	bool xres;
};

/* A window closed between the property's read and the next request is
 * no error of the agent's. */
static int fgwindow_ignore(Display *display, XErrorEvent *e)
{
	(void)display;
	(void)e;
	return 0;
}

struct fgwindow *fgwindow_open(char *why, size_t size)
{
	struct fgwindow *w;
	Display *display = XOpenDisplay(NULL);
	int event, error;

	if (!display) {
		snprintf(why, size, "no X display to watch (DISPLAY %s)",
			 getenv("DISPLAY") ? "refused" : "is not set");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		XCloseDisplay(display);
		snprintf(why, size, "out of memory");
		return NULL;
	}
	w->display = display;
	w->root = DefaultRootWindow(display);
	w->active = XInternAtom(display, "_NET_ACTIVE_WINDOW", False);
	w->wm_pid = XInternAtom(display, "_NET_WM_PID", False);
	w->xres = XResQueryExtension(display, &event, &error);
	XSetErrorHandler(fgwindow_ignore);
	XSelectInput(display, w->root, PropertyChangeMask);
	if (!w->xres)
		fprintf(stderr, "cpupolicyctl agent: the X server has no "
				"X-Resource extension: a window's own "
				"_NET_WM_PID is taken\n");
	return w;
}

/* One CARDINAL or WINDOW property; 0: none. */
static unsigned long fgwindow_property(struct fgwindow *w, Window window,
				       Atom name, Atom type)
{
	Atom got;
	int format;
	unsigned long count, after, value = 0;
	unsigned char *data = NULL;

	if (XGetWindowProperty(w->display, window, name, 0, 1, False, type,
			       &got, &format, &count, &after,
			       &data) == Success &&
	    data && got == type && format == 32 && count == 1)
		value = *(unsigned long *)data; /* Xlib's 32-bit format */
	if (data)
		XFree(data);
	return value;
}

/* The pid of the client that made the window, as the server knows it. */
static long fgwindow_client_pid(struct fgwindow *w, Window window)
{
	XResClientIdSpec spec = {.client = window,
				 .mask = XRES_CLIENT_ID_PID_MASK};
	XResClientIdValue *ids = NULL;
	long num = 0, pid = 0;

	if (XResQueryClientIds(w->display, 1, &spec, &num, &ids) != Success)
		return 0;
	for (long i = 0; i < num && pid <= 0; i++)
		pid = XResGetClientPid(&ids[i]);
	XResClientIdsDestroy(num, ids);
	return pid > 0 ? pid : 0;
}

static long fgwindow_pid(struct fgwindow *w)
{
	Window active =
		(Window)fgwindow_property(w, w->root, w->active, XA_WINDOW);

	if (!active)
		return 0;
	if (w->xres)
		return fgwindow_client_pid(w, active);
	return (long)fgwindow_property(w, active, w->wm_pid, XA_CARDINAL);
}

long fgwindow_wait(struct fgwindow *w, int timeout_ms)
{
	struct pollfd pfd = {.fd = ConnectionNumber(w->display),
			     .events = POLLIN};

	XFlush(w->display);
	if (!XPending(w->display) && poll(&pfd, 1, timeout_ms) < 0 &&
	    errno != EINTR)
		return -1;
	if (pfd.revents & (POLLHUP | POLLERR))
		return -1;
	while (XPending(w->display)) {
		XEvent e;

		XNextEvent(w->display, &e);
	}
	return fgwindow_pid(w);
}

void fgwindow_close(struct fgwindow *w)
{
	if (!w)
		return;
	XCloseDisplay(w->display);
	free(w);
}
