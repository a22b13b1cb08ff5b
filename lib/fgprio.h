/* A rule's foreground settings (foreground = { ... }, cpupolicy.rules(5))
 * on the process its user's desktop declares in the foreground: given to
 * every thread it has then, and given back, thread by thread, when the
 * foreground moves on, where a thread still holds what they left (else
 * its user changed it since: theirs now). A raise is marked reset on
 * fork, so no thread or child started meanwhile inherits it. Journaled
 * as a restraint is: a daemon killed while it holds one gives it back at
 * its next start (restrained_replay). OS-neutral: it reads and writes
 * through the seam (os.h). */
#ifndef CPUPOLICY_FGPRIO_H
#define CPUPOLICY_FGPRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "journal.h"
#include "prio.h"

/* The journal's key of a process given foreground settings: pid, then
 * start (a scanf format, and a printf one). */
#define FGPRIO_KEY "/foreground/%d/%llu"

struct fgprio_thread {
	pid_t tid;
	struct prio_state original, applied;
};

struct fgprio {
	pid_t pid; /* 0: holds nothing */
	unsigned long long start;
	struct fgprio_thread *threads;
	size_t count;
};

/* target on every thread of pid (of that start), journaled in j (NULL:
 * nowhere) before it is written; -1, *why set, where nothing was given. */
int fgprio_give(struct fgprio *f, pid_t pid, unsigned long long start,
		const struct prio_target *target, struct journal *j,
		const char **why);
/* Every thread back where it holds what fgprio_give left; f then holds
 * nothing. Harmless where it holds nothing, or the process is gone. */
void fgprio_give_back(struct fgprio *f, struct journal *j);

#endif
