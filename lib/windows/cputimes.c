/* Windows: each logical processor's time, from NtQuerySystemInformation's
 * SystemProcessorPerformanceInformation in 100 ns units. Its KernelTime
 * includes the idle time: busy is kernel - idle + user. There is no
 * steal (a hypervisor's share is not told to the guest this way). The
 * entries are the processors of the calling thread's group; with more
 * than one group each group is asked in turn
 * (NtQuerySystemInformationEx would; this reads the first 64 processors
 * and says so). */
#include <stdlib.h>

#include "log.h"
#include "procstat.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

enum os_status cputimes_read(const char *procfs, struct procstat *stat)
{
	const struct winapi *w = winapi_get();
	struct winapi_processor_times times[64];
	ULONG got = 0;
	LONG nt;
	size_t n;

	(void)procfs;
	*stat = (struct procstat){0};
	if (!w->NtQuerySystemInformation)
		return status_of_win32(ERROR_PROC_NOT_FOUND);
	nt = w->NtQuerySystemInformation(
		WINAPI_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION, times,
		sizeof(times), &got);
	if (nt < 0)
		return status_of_win32(ERROR_GEN_FAILURE);
	n = got / sizeof(times[0]);
	if (n == 0)
		return status_of_win32(ERROR_INVALID_DATA);
	if (GetActiveProcessorGroupCount() > 1)
		log_once(log_warnx, "CPU times: only the first processor "
				    "group's processors are read");
	stat->cpus = xcalloc(n, sizeof(*stat->cpus));
	for (size_t i = 0; i < n; i++) {
		unsigned long long
			idle = (unsigned long long)times[i].IdleTime.QuadPart,
			kernel = (unsigned long long)times[i]
					 .KernelTime.QuadPart,
			user = (unsigned long long)times[i].UserTime.QuadPart;

		stat->cpus[i] = (struct procstat_cpu){
			.cpu = (int)i,
			.busy = (kernel > idle ? kernel - idle : 0) + user,
			.idle = idle,
		};
	}
	stat->count = n;
	return OS_OK;
}
