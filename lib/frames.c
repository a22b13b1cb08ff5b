/* The frame task of the restraint benchmark and of saturate --compare
 * --restraint (frames.h): absolute deadlines, so that a late frame
 * delays the next ones as it does in a game that falls behind, and work
 * measured in the thread's own CPU time, so that time spent waiting for
 * a CPU is not counted as work done. The clocks are the seam's. */
#include <stdlib.h>

#include "frames.h"
#include "os.h"
#include "util.h"

long long frames_now_ns(void)
{
	return timing_now_ns();
}

/* work_ns of this thread's CPU time; false when stop_ns came first. The
 * clock is read every few thousand additions: it is a system call. */
static int frames_work(long long work_ns, long long stop_ns)
{
	long long end = timing_thread_cpu_ns() + work_ns;
	volatile unsigned long sink = 0;

	while (timing_thread_cpu_ns() < end) {
		for (int i = 0; i < 4096; i++)
			sink += (unsigned long)i;
		if (frames_now_ns() >= stop_ns)
			return 0;
	}
	return 1;
}

/* Frame i is released at start_ns + i * period_ns (or when frame i - 1
 * finished, if later) and due a period after its release time. Ends at
 * stop_ns, leaving the frames not finished by then at finish_ns 0.
 * Returns the frames finished. */
int frames_run(struct frames_frame *out, int count, long long start_ns,
	       long long period_ns, long long work_ns, long long stop_ns)
{
	int done = 0;

	for (int i = 0; i < count; i++) {
		out[i].deadline_ns = start_ns + (i + 1) * period_ns;
		out[i].finish_ns = 0;
	}
	for (int i = 0; i < count && frames_now_ns() < stop_ns; i++) {
		timing_sleep_until_ns(start_ns + i * period_ns);
		if (!frames_work(work_ns, stop_ns))
			break;
		out[i].finish_ns = frames_now_ns();
		done++;
	}
	return done;
}

static int frames_compare(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static long long frames_pct(const long long *sorted, int n, double p)
{
	int i = (int)((double)n * p);

	return n ? sorted[i < n ? i : n - 1] : 0;
}

void frames_window(const struct frames_frame *f, int count, long long from_ns,
		   long long to_ns, long long stop_ns, struct frames_window *w)
{
	long long *late = xcalloc((size_t)count + 1, sizeof(*late));

	*w = (struct frames_window){0};
	for (int i = 0; i < count; i++) {
		long long end = f[i].finish_ns ? f[i].finish_ns : stop_ns;
		long long by = end - f[i].deadline_ns;

		if (f[i].deadline_ns < from_ns || f[i].deadline_ns >= to_ns)
			continue;
		if (!f[i].finish_ns || by > 0)
			w->missed++;
		late[w->frames++] = by > 0 ? by : 0;
	}
	qsort(late, (size_t)w->frames, sizeof(*late), frames_compare);
	w->p50_ns = frames_pct(late, w->frames, 0.5);
	w->p99_ns = frames_pct(late, w->frames, 0.99);
	w->p999_ns = frames_pct(late, w->frames, 0.999);
	free(late);
}
