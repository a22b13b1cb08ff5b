/* Windows: CPU pressure as the processors busy while more threads are
 * ready to run than there are processors to run them (the "Processor
 * Queue Length" counter's rule of thumb: a queue longer than the
 * processors is a CPU bottleneck). Windows has no wakeup for it: the
 * daemon samples on its tick. Where the system tells no thread's state
 * (Wine), the queue is unknown and the busy share alone decides, said
 * once. */
#include <stdlib.h>

#include "log.h"
#include "procstat.h"
#include "util.h"
#include "win.h"

/* Busy at least this share between two samples, in percent. */
#define PRESSURE_BUSY_PCT 90

struct pressure {
	struct procstat last;
	bool sampled;
};

enum os_status pressure_open(struct pressure **pressure, unsigned pct)
{
	struct pressure *p = xcalloc(1, sizeof(*p));
	unsigned ready;
	bool states;
	enum os_status os = procinfo_ready_threads(&ready, &states);

	(void)pct; /* no trigger: the tick samples */
	if (os != OS_OK) {
		free(p);
		*pressure = NULL;
		return os;
	}
	if (!states)
		log_warnx("this system tells no thread's state (Wine): CPU "
			  "pressure is the processors' busy time alone, "
			  "without the ready threads");
	*pressure = p;
	return OS_OK;
}

long pressure_fd(const struct pressure *p)
{
	(void)p;
	return -1;
}

void pressure_fired(struct pressure *p)
{
	(void)p;
}

/* Without states every thread reads Initialized, none Ready: the
 * queue would never be long, and restraint never on. */
static bool pressure_queued(unsigned ready, bool states, size_t cpus)
{
	return !states || ready > cpus;
}

/* The busy share, when it is over PRESSURE_BUSY_PCT and the queue is
 * longer than the processors; 0 else. */
enum os_status pressure_sample(struct pressure *p, unsigned *pct)
{
	struct procstat now;
	struct procstat_share *shares;
	unsigned ready;
	bool states;
	double busy = 0;
	size_t n = 0;
	enum os_status os;

	*pct = 0;
	if ((os = cputimes_read(&now)) != OS_OK)
		return os;
	if ((os = procinfo_ready_threads(&ready, &states)) != OS_OK) {
		procstat_free(&now);
		return os;
	}
	if (p->sampled && now.count) {
		shares = xcalloc(now.count, sizeof(*shares));
		n = procstat_diff(&p->last, &now, shares, now.count);
		busy = procstat_mean_busy(shares, n);
		free(shares);
	}
	if (n && busy * 100 >= PRESSURE_BUSY_PCT &&
	    pressure_queued(ready, states, n))
		*pct = (unsigned)(busy * 100 + 0.5); /* 0.95 is 94.99... */
	procstat_free(&p->last);
	p->last = now;
	p->sampled = true;
	return OS_OK;
}

void pressure_close(struct pressure *p)
{
	if (!p)
		return;
	procstat_free(&p->last);
	free(p);
}
