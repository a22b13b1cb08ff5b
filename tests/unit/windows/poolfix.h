/* A pool of threads for the Windows tests that place threads: each waits
 * on one event of the pool's until the pool is stopped (a minute at the
 * most), alive for the backend and the model to read and move. */
#ifndef CPUPOLICY_POOLFIX_H
#define CPUPOLICY_POOLFIX_H

#include <stddef.h>

#include <windows.h>

#define POOLFIX_MAX 256

struct poolfix {
	HANDLE handles[POOLFIX_MAX];
	DWORD tids[POOLFIX_MAX];
	size_t count;
};

/* n threads more (POOLFIX_MAX in all at the most), running when it
 * returns. */
void poolfix_start(struct poolfix *pool, size_t n);
/* Every thread ended and waited for; the pool empty again. */
void poolfix_stop(struct poolfix *pool);

#endif
