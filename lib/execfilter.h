/* An exec filter in the kernel: only execs some rule may match wake the
 * daemon (the plan of execplan.h, written into the kernel's maps). Part
 * of the seam: Linux loads a BPF program (lib/linux/execfilter.c); the
 * other systems have none (execfilter_open fails with an empty why). Forks,
 * exits, renames and the rest still come from events.h. */
#ifndef CPUPOLICY_EXECFILTER_H
#define CPUPOLICY_EXECFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "events.h"
#include "execplan.h"

struct execfilter; /* the loaded program, its maps, its ring buffer */

struct execfilter_stats {
	unsigned long long seen; /* execs the filter looked at */
	unsigned long long sent; /* of them, sent to the daemon */
	unsigned long long lost; /* of those, lost: the ring buffer full */
	/* Processes followed (managed, or a managed one's children): now,
	 * at most, and those it ever had no room for. */
	unsigned long long following, follow_max, follow_failed;
	bool full; /* some of those not made up for: every exec is sent */
};

/* execfilter.c */
struct execfilter *execfilter_open(unsigned follow_max, char *why,
				   size_t why_size);
int execfilter_set(struct execfilter *f, const struct execplan *plan);
int execfilter_refresh(struct execfilter *f);
int execfilter_watch_fd(const struct execfilter *f);
int execfilter_watch_read(struct execfilter *f);
int execfilter_follow(struct execfilter *f, int pid);
void execfilter_unfull(struct execfilter *f, unsigned long long failed);
int execfilter_fd(const struct execfilter *f);
int execfilter_take(struct execfilter *f);
void execfilter_deliver(struct execfilter *f, events_fn fn, void *ctx);
int execfilter_stats(const struct execfilter *f, struct execfilter_stats *st);
unsigned long long execfilter_received(const struct execfilter *f);
void execfilter_close(struct execfilter *f);

#endif
