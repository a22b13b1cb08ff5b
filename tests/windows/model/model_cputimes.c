/* Each logical processor's times (NtQuerySystemInformation's
 * SystemProcessorPerformanceInformation) as a test advances them: Wine
 * answers from the host's /proc/stat, whose busy share the test cannot
 * choose. Until a test advances them, the call is the system's. */
#include <string.h>

#include "model.h"

#define MODEL_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION 8
#define MODEL_STATUS_INFO_LENGTH_MISMATCH	       ((LONG)0xC0000004l)

static LONG(NTAPI *model_cputimes_next)(ULONG, PVOID, ULONG, PULONG);
static struct winapi_processor_times model_cputimes_cpus[64];
static bool model_cputimes_on;

void model_cputimes_reset(void)
{
	memset(model_cputimes_cpus, 0, sizeof(model_cputimes_cpus));
	model_cputimes_on = false;
}

/* Group 0's processors, each busy busy_pct of ms. The kernel time "also
 * includes the amount of time the system has been idle"
 * (sdk-api-src/content/processthreadsapi/nf-processthreadsapi-getsystemtimes.md);
 * the times are "in 100-nanosecond intervals"
 * (sdk-api-src/content/winternl/nf-winternl-ntquerysysteminformation.md,
 * SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION). Busy time is the model's
 * user time. */
void model_cputimes_advance(unsigned busy_pct, unsigned ms)
{
	LONGLONG span = (LONGLONG)ms * 10000, busy = span * busy_pct / 100;

	model_cputimes_on = true;
	for (BYTE i = 0; i < model_group_size(0) && i < 64; i++) {
		model_cputimes_cpus[i].UserTime.QuadPart += busy;
		model_cputimes_cpus[i].IdleTime.QuadPart += span - busy;
		model_cputimes_cpus[i].KernelTime.QuadPart += span - busy;
	}
}

/* "one for each processor installed in the system" (the same page); a
 * buffer too small for them is STATUS_INFO_LENGTH_MISMATCH. */
static LONG NTAPI model_cputimes_query(ULONG klass, PVOID buf, ULONG len,
				       PULONG got)
{
	ULONG need;

	if (klass != MODEL_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION ||
	    !model_cputimes_on)
		return model_cputimes_next(klass, buf, len, got);
	model_count("NtQuerySystemInformation("
		    "SystemProcessorPerformanceInformation)");
	need = model_group_size(0) * sizeof(model_cputimes_cpus[0]);
	if (got)
		*got = need;
	if (len < need)
		return MODEL_STATUS_INFO_LENGTH_MISMATCH;
	memcpy(buf, model_cputimes_cpus, need);
	return 0;
}

void model_cputimes_install(struct winapi *w)
{
	if (!w->NtQuerySystemInformation ||
	    w->NtQuerySystemInformation == model_cputimes_query)
		return;
	model_cputimes_next = w->NtQuerySystemInformation;
	w->NtQuerySystemInformation = model_cputimes_query;
}
