/* A frame task, the restraint benchmark's and saturate --compare
 * --restraint's: every period it does a fixed amount of CPU work, as a
 * game's or a busy UI's frame loop does, and each frame's lateness is
 * recorded; and the summary of a window of them (pure). */
#ifndef CPUPOLICY_FRAMES_H
#define CPUPOLICY_FRAMES_H

/* The task both run: a 60 Hz frame, its CPU work, and the frames counted
 * from this long after the hogs start (the time restraint is given). */
enum {
	FRAMES_PERIOD_US = 16667,
	FRAMES_WORK_US = 11000,
	FRAMES_SETTLED_MS = 1000,
};

/* One frame, on timing_now_ns's clock (ns): its deadline is its period's end;
 * finish_ns 0 when the run ended first. */
struct frames_frame {
	long long deadline_ns, finish_ns;
};

/* The frames whose deadline fell in a window. Lateness is how long after
 * its deadline a frame finished, 0 for one on time; a frame unfinished
 * when the run ended is missed and late by the time to that end (a lower
 * bound). */
struct frames_window {
	int frames, missed;
	long long p50_ns, p99_ns, p999_ns;
};

/* frames.c */
long long frames_now_ns(void);
int frames_run(struct frames_frame *out, int count, long long start_ns,
	       long long period_ns, long long work_ns, long long stop_ns);
void frames_window(const struct frames_frame *f, int count, long long from_ns,
		   long long to_ns, long long stop_ns, struct frames_window *w);

#endif
