/* Windows: each logical processor's time, from NtQuerySystemInformation's
 * SystemProcessorPerformanceInformation in 100 ns units. Its KernelTime
 * includes the idle time: busy is kernel - idle + user. There is no
 * steal (a hypervisor's share is not told to the guest this way). The
 * plain call answers for the calling thread's processor group: with
 * more than one, each group is asked by NtQuerySystemInformationEx, and
 * group g's processor n is CPU g * 64 + n, as hwloc numbers it. */
#include <stdlib.h>

#include "log.h"
#include "procstat.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define CPUTIMES_GROUP_SIZE 64

/* One group's processors appended; -1 when the call failed. */
static int cputimes_group(const struct winapi *w, USHORT group, bool ex,
			  struct procstat *stat)
{
	struct winapi_processor_times times[CPUTIMES_GROUP_SIZE];
	ULONG got = 0;
	LONG nt;
	size_t n;

	nt = ex ? w->NtQuerySystemInformationEx(
			  WINAPI_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION,
			  &group, sizeof(group), times, sizeof(times), &got)
		: w->NtQuerySystemInformation(
			  WINAPI_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION,
			  times, sizeof(times), &got);
	if (nt < 0)
		return -1;
	n = got / sizeof(times[0]);
	stat->cpus = xreallocarray(stat->cpus, stat->count + n + 1,
				   sizeof(*stat->cpus));
	for (size_t i = 0; i < n; i++) {
		unsigned long long idle =
			(unsigned long long)times[i].IdleTime.QuadPart;
		unsigned long long kernel =
			(unsigned long long)times[i].KernelTime.QuadPart;
		unsigned long long user =
			(unsigned long long)times[i].UserTime.QuadPart;

		stat->cpus[stat->count++] = (struct procstat_cpu){
			.cpu = (int)(group * CPUTIMES_GROUP_SIZE + i),
			.busy = (kernel > idle ? kernel - idle : 0) + user,
			.idle = idle,
		};
	}
	return 0;
}

enum os_status cputimes_read(struct procstat *stat)
{
	const struct winapi *w = winapi_get();
	WORD groups = GetActiveProcessorGroupCount();
	bool ex = groups > 1 && w->NtQuerySystemInformationEx;

	*stat = (struct procstat){0};
	if (!w->NtQuerySystemInformation)
		return status_of_win32(ERROR_PROC_NOT_FOUND);
	if (groups > 1 && !ex)
		log_once(log_warnx, "CPU times: only this thread's processor "
				    "group is read (no "
				    "NtQuerySystemInformationEx)");
	for (WORD g = 0; g < (ex ? groups : 1); g++) {
		if (cputimes_group(w, g, ex, stat) < 0) {
			procstat_free(stat);
			return status_of_win32(ERROR_GEN_FAILURE);
		}
	}
	if (stat->count == 0) {
		procstat_free(stat);
		return status_of_win32(ERROR_INVALID_DATA);
	}
	return OS_OK;
}
