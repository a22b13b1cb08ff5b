/* Windows: the window its user is looking at, GetForegroundWindow's, and
 * the process that made it (GetWindowThreadProcessId), which the window
 * cannot say otherwise of itself. Windows has no wakeup for a change that
 * a console program can wait on without a window of its own: the agent
 * looks every quarter second, no more than the change needs. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "os.h"
#include "../ctl.h"

#define FGWINDOW_LOOK_MS 250

struct fgwindow {
	int unused;
};

struct fgwindow *fgwindow_open(char *why, size_t size)
{
	struct fgwindow *w = calloc(1, sizeof(*w));

	if (!w)
		snprintf(why, size, "out of memory");
	return w;
}

long fgwindow_wait(struct fgwindow *w, int timeout_ms)
{
	HWND window;
	DWORD pid = 0;

	(void)w;
	timing_sleep_ns((long long)(timeout_ms < FGWINDOW_LOOK_MS
					    ? timeout_ms
					    : FGWINDOW_LOOK_MS) *
			1000000LL);
	window = GetForegroundWindow();
	if (window)
		GetWindowThreadProcessId(window, &pid);
	return (long)pid;
}

void fgwindow_close(struct fgwindow *w)
{
	free(w);
}
