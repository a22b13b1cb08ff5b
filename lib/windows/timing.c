/* Windows: the monotonic clock is QueryPerformanceCounter, a thread's CPU
 * time GetThreadTimes' kernel and user times, sleeps a high-resolution
 * waitable timer (Windows 10 1803 and later; else a plain one, which keeps
 * to the system's timer tick). */
#include "win.h"

#define TIMING_NS 1000000000LL

long long timing_now_ns(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;

	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	/* Split, so that the product does not overflow after days. */
	return now.QuadPart / freq.QuadPart * TIMING_NS +
	       now.QuadPart % freq.QuadPart * TIMING_NS / freq.QuadPart;
}

static long long timing_filetime_ns(const FILETIME *ft)
{
	ULARGE_INTEGER u = {.LowPart = ft->dwLowDateTime,
			    .HighPart = ft->dwHighDateTime};

	return (long long)u.QuadPart * 100;
}

long long timing_thread_cpu_ns(void)
{
	FILETIME created, exited, kernel, user;

	if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel,
			    &user))
		return 0;
	return timing_filetime_ns(&kernel) + timing_filetime_ns(&user);
}

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x2
#endif

void timing_sleep_ns(long long ns)
{
	HANDLE timer;
	LARGE_INTEGER due;

	if (ns <= 0)
		return;
	timer = CreateWaitableTimerExW(NULL, NULL,
				       CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
				       TIMER_ALL_ACCESS);
	if (!timer)
		timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
	/* Negative: relative, in 100 ns units. */
	due.QuadPart = -((ns + 99) / 100);
	if (timer && SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE)) {
		WaitForSingleObject(timer, INFINITE);
	} else {
		long long ms = (ns + 999999) / 1000000;

		Sleep(ms > 0x7fffffff ? 0x7fffffff : (DWORD)ms);
	}
	if (timer)
		CloseHandle(timer);
}

void timing_sleep_until_ns(long long when)
{
	long long now = timing_now_ns();

	if (when > now)
		timing_sleep_ns(when - now);
}
