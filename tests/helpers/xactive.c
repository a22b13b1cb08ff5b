/* A window in the foreground of an X display, as a window manager would
 * make it: the root's _NET_ACTIVE_WINDOW names it.
 *   xactive [-p PID] [-s] SECONDS
 * Creates a window whose _NET_WM_PID is PID (default: its own, -p lets
 * it lie), makes it the active one, prints "active WINDOW" and, with -s,
 * spins on the CPU (a foreground hog); it ends after SECONDS. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <X11/Xatom.h>
#include <X11/Xlib.h>

static double xactive_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long pid = (long)getpid();
	int spin = 0, c;
	double end;
	Display *display;
	Window window;
	unsigned long value;

	while ((c = getopt(argc, argv, "p:s")) != -1) {
		if (c == 'p')
			pid = atol(optarg);
		else if (c == 's')
			spin = 1;
		else
			return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: xactive [-p PID] [-s] SECONDS\n");
		return 2;
	}
	end = xactive_now() + atof(argv[optind]);
	if (!(display = XOpenDisplay(NULL))) {
		fprintf(stderr, "xactive: no display\n");
		return 1;
	}
	window = XCreateSimpleWindow(display, DefaultRootWindow(display), 0, 0,
				     10, 10, 0, 0, 0);
	value = (unsigned long)pid;
	XChangeProperty(display, window,
			XInternAtom(display, "_NET_WM_PID", False), XA_CARDINAL,
			32, PropModeReplace, (unsigned char *)&value, 1);
	value = window;
	XChangeProperty(display, DefaultRootWindow(display),
			XInternAtom(display, "_NET_ACTIVE_WINDOW", False),
			XA_WINDOW, 32, PropModeReplace, (unsigned char *)&value,
			1);
	XSync(display, False);
	printf("active %lu\n", (unsigned long)window);
	fflush(stdout);
	while (xactive_now() < end) {
		if (!spin)
			usleep(50000);
	}
	XCloseDisplay(display);
	return 0;
}
