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
#include "latency.h"
#include "osstatus.h"

struct execfilter; /* the loaded program, its maps, its ring buffer */

/* The steps of a sent exec's time: from the kernel's send until the
 * daemon took it from the ring (the ring's wakeup, the daemon's own
 * scheduling); until the daemon began on it (the proc connector's queue,
 * read first, and the records before it); the daemon's work on it (its
 * reads and writes, the policy in place at its end). */
enum execfilter_phase {
	EXECFILTER_PHASE_WAKE,
	EXECFILTER_PHASE_QUEUE,
	EXECFILTER_PHASE_WORK,
	EXECFILTER_PHASES,
};

struct execfilter_stats {
	unsigned long long seen; /* execs the filter looked at */
	unsigned long long sent; /* of them, sent to the daemon */
	unsigned long long lost; /* of those, lost: the ring buffer full */
	/* Processes followed (managed, or a managed one's children): now,
	 * at most, and those it ever had no room for. */
	unsigned long long following, follow_max, follow_failed;
	bool full; /* some of those not made up for: every exec is sent */
	/* Where the time of each exec it sent went until the daemon had
	 * handled it (EXECFILTER_PHASE_*). */
	struct latency latency[EXECFILTER_PHASES];
};

/* execfilter.c */
struct execfilter *execfilter_open(unsigned follow_max, char *why,
				   size_t why_size);
/* The plan's literal exes are kept as the plan gives them, the rules'
 * own texts: the rules outlive the filter's next set, or its close. */
enum os_status execfilter_set(struct execfilter *f,
			      const struct execplan *plan);
/* *changed: a literal exe's file changed since the maps were written. */
enum os_status execfilter_refresh(struct execfilter *f, bool *changed);
/* The descriptors that wake the loop (the watch of the exes'
 * directories, the ring buffer): -1 where there is none. */
int execfilter_watch_fd(const struct execfilter *f);
/* *changed: how many literal exes' files changed; OS_FAILED: a key
 * could not be written alone (the caller writes the plan again). */
enum os_status execfilter_watch_read(struct execfilter *f, size_t *changed);
/* What of a followed process the filter sends besides its execs: its
 * children's execs (a child is followed from its fork on), and its end
 * at once (else an end waits for the next record that wakes the daemon,
 * or its tick). */
enum execfilter_follow_how {
	EXECFILTER_FOLLOWS_CHILDREN = 1 << 0,
	EXECFILTER_FOLLOWS_EXIT = 1 << 1,
};

/* pid's execs are let through, and what how says (enum
 * execfilter_follow_how); a second call sets that again. *added: not
 * followed before. OS_FAILED: the map has no room. */
enum os_status execfilter_follow(struct execfilter *f, int pid, unsigned how,
				 bool *added);
void execfilter_unfull(struct execfilter *f, unsigned long long failed);
int execfilter_fd(const struct execfilter *f);
enum os_status execfilter_take(struct execfilter *f);
void execfilter_deliver(struct execfilter *f, events_fn fn, void *ctx);
enum os_status execfilter_stats(const struct execfilter *f,
				struct execfilter_stats *st);
unsigned long long execfilter_received(const struct execfilter *f);
void execfilter_close(struct execfilter *f);

#endif
