/* The Windows tests' pool of waiting threads (poolfix.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "poolfix.h"

/* How long a thread may take to start, or once stopped to end (ms):
 * Wine under load is slow. */
#define POOLFIX_END_MS 10000

/* Manual reset: one SetEvent ends every thread of the pool. */
static HANDLE poolfix_stop_event;
/* Released once by each thread as it runs: Wine lists a thread only
 * once it runs (its server's snapshot counts running threads), where
 * Windows lists it from its creation. */
static HANDLE poolfix_running;

static DWORD WINAPI poolfix_thread(LPVOID arg)
{
	(void)arg;
	ReleaseSemaphore(poolfix_running, 1, NULL);
	WaitForSingleObject(poolfix_stop_event, 60000);
	return 0;
}

/* The threads are running when it returns (each waited for up to
 * POOLFIX_END_MS): a scan lists them all. */
void poolfix_start(struct poolfix *pool, size_t n)
{
	size_t started = 0;

	if (!poolfix_stop_event)
		poolfix_stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!poolfix_running)
		poolfix_running = CreateSemaphoreW(NULL, 0, POOLFIX_MAX, NULL);
	assert_non_null(poolfix_stop_event);
	assert_non_null(poolfix_running);
	for (size_t i = 0; i < n && pool->count < POOLFIX_MAX; i++) {
		DWORD tid;
		HANDLE h = CreateThread(NULL, 0, poolfix_thread, NULL, 0, &tid);

		assert_non_null(h);
		pool->handles[pool->count] = h;
		pool->tids[pool->count++] = tid;
		started++;
	}
	for (size_t i = 0; i < started; i++)
		assert_int_equal(
			WaitForSingleObject(poolfix_running, POOLFIX_END_MS),
			WAIT_OBJECT_0);
}

void poolfix_stop(struct poolfix *pool)
{
	SetEvent(poolfix_stop_event);
	for (size_t i = 0; i < pool->count; i++) {
		assert_int_equal(
			WaitForSingleObject(pool->handles[i], POOLFIX_END_MS),
			WAIT_OBJECT_0);
		CloseHandle(pool->handles[i]);
	}
	ResetEvent(poolfix_stop_event);
	pool->count = 0;
}
