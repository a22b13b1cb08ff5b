/* Windows: what limits cpupolicyctl on this machine, and what other
 * processes take of it, as the saturation check reports them: logical
 * processors over every group, each process's CPU time (Toolhelp,
 * GetProcessTimes) and a thread's (GetThreadTimes), the parked cores and
 * the power scheme's CPMINCORES, and a job object's CPU rate limit. No
 * cgroups, cpusets or cpufreq here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <tlhelp32.h>

#include "os.h"
#include "prio.h"
#include "saturate.h"
#include "util.h"
#include "win.h"
#include "winapi.h"
#include "../ctl.h"

/* Over every group: processor groups are what Wine does not show, so
 * through the table (winapi.h), as the rest of the backend asks. */
unsigned machine_cpu_count(bool online)
{
	const struct winapi *w = winapi_get();
	DWORD n = online ? w->GetActiveProcessorCount(ALL_PROCESSOR_GROUPS)
			 : w->GetMaximumProcessorCount(ALL_PROCESSOR_GROUPS);

	return (unsigned)n;
}

/* The CPU rate limit of the job this process is in (the immediate one
 * of nested jobs), in CPUs; -1 for none. The rate's union holds MinRate
 * and MaxRate as its low and high words, which mingw-w64's header does
 * not name. */
double machine_quota(char *cgroup, size_t size)
{
	JOBOBJECT_CPU_RATE_CONTROL_INFORMATION info = {0};
	BOOL in_job = FALSE;
	double quota;

	if (size)
		cgroup[0] = '\0';
	if (!IsProcessInJob(GetCurrentProcess(), NULL, &in_job) || !in_job ||
	    !QueryInformationJobObject(NULL, JobObjectCpuRateControlInformation,
				       &info, sizeof(info), NULL))
		return -1;
	quota = saturate_job_quota(info.ControlFlags, info.CpuRate,
				   info.CpuRate >> 16, machine_cpu_count(true));
	if (quota >= 0)
		snprintf(cgroup, size, "the job object of this process");
	return quota;
}

void machine_cpuset_cgroup(char *name, size_t size)
{
	if (size)
		name[0] = '\0';
}

void machine_freq(struct saturate_input *in)
{
	(void)in;
}

/* FILETIME's 100 ns units, kernel and user time together. */
static double machine_seconds(const FILETIME *kernel, const FILETIME *user)
{
	ULARGE_INTEGER k = {.LowPart = kernel->dwLowDateTime,
			    .HighPart = kernel->dwHighDateTime};
	ULARGE_INTEGER u = {.LowPart = user->dwLowDateTime,
			    .HighPart = user->dwHighDateTime};

	return (double)(k.QuadPart + u.QuadPart) / 1e7;
}

/* The class as the nice value prio.c maps it to, for the report. */
static int machine_nice(DWORD klass)
{
	switch (klass) {
	case IDLE_PRIORITY_CLASS:
		return 19;
	case BELOW_NORMAL_PRIORITY_CLASS:
		return 10;
	case ABOVE_NORMAL_PRIORITY_CLASS:
		return -5;
	case HIGH_PRIORITY_CLASS:
		return -10;
	case REALTIME_PRIORITY_CLASS:
		return -20;
	default:
		return 0;
	}
}

static double machine_own_seconds(void)
{
	FILETIME created, ended, kernel, user;

	return GetProcessTimes(GetCurrentProcess(), &created, &ended, &kernel,
			       &user)
		       ? machine_seconds(&kernel, &user)
		       : -1;
}

/* Wine 8 answers GetProcessTimes for another process with the caller's
 * own times: such an answer (ours just before or after it, to the
 * 100 ns) says nothing of the other process, and would make every
 * process a competitor that took what our workers took. */
static bool machine_echo(double theirs, double before, double after)
{
	return theirs == before || theirs == after;
}

size_t machine_tasks(struct machine_task **out)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	size_t n = 0, cap = 0;

	*out = NULL;
	if (snap == INVALID_HANDLE_VALUE)
		return 0;
	for (BOOL ok = Process32FirstW(snap, &pe); ok;
	     ok = Process32NextW(snap, &pe)) {
		HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
				       pe.th32ProcessID);
		FILETIME created, ended, kernel, user;
		struct machine_task *t;
		double own;

		if (!h)
			continue;
		own = machine_own_seconds();

		if (GetProcessTimes(h, &created, &ended, &kernel, &user) &&
		    (pe.th32ProcessID == GetCurrentProcessId() ||
		     !machine_echo(machine_seconds(&kernel, &user), own,
				   machine_own_seconds()))) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				*out = xreallocarray(*out, cap, sizeof(**out));
			}
			t = &(*out)[n++];
			*t = (struct machine_task){
				.pid = (pid_t)pe.th32ProcessID,
				.cpu_s = machine_seconds(&kernel, &user),
				.nice = machine_nice(GetPriorityClass(h)),
			};
			if (!system_utf8(pe.szExeFile, t->name,
					 sizeof(t->name)))
				snprintf(t->name, sizeof(t->name), "?");
		}
		CloseHandle(h);
	}
	CloseHandle(snap);
	return n;
}

double machine_thread_cpu(pid_t pid, pid_t tid)
{
	HANDLE h =
		OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)tid);
	FILETIME created, ended, kernel, user;
	double s = 0;

	(void)pid;
	if (!h)
		return 0;
	if (GetThreadTimes(h, &created, &ended, &kernel, &user))
		s = machine_seconds(&kernel, &user);
	CloseHandle(h);
	return s;
}

#define FACTS_GROUP_BITS 64
#define FACTS_PARKED	 1 /* AllFlags' Parked bit */

/* The logical processors the power manager has parked now, from the
 * machine's CPU Sets; none where Windows (or Wine) has no CPU Sets. */
static void machine_parked(hwloc_bitmap_t parked)
{
	const struct winapi *w = winapi_get();
	struct winapi_cpu_set_info *info;
	ULONG len = 0;

	if (!w->GetSystemCpuSetInformation)
		return;
	w->GetSystemCpuSetInformation(NULL, 0, &len, GetCurrentProcess(), 0);
	if (len == 0)
		return;
	info = xmalloc(len);
	if (w->GetSystemCpuSetInformation(info, len, &len, GetCurrentProcess(),
					  0)) {
		for (char *p = (char *)info;
		     p + sizeof(*info) <= (char *)info + len;) {
			struct winapi_cpu_set_info *e = (void *)p;

			if (e->Size < sizeof(*e))
				break;
			if (e->CpuSet.AllFlags & FACTS_PARKED)
				hwloc_bitmap_set(
					parked,
					e->CpuSet.Group * FACTS_GROUP_BITS +
						e->CpuSet
							.LogicalProcessorIndex);
			p += e->Size;
		}
	}
	free(info);
}

/* Groups by hwloc's numbering (group g's processor n is g * 64 + n); the
 * process's "cpuset" is its affinity here, said as the affinity. */
void machine_system(struct saturate_machine *m, struct saturate_input *in)
{
	hwloc_bitmap_t parked = hwloc_bitmap_alloc();
	struct prio_state prio;

	in->system = SATURATE_SYSTEM_WINDOWS;
	/* The workers are this process's threads: its EcoQoS is theirs. */
	in->ecoqos = apply_prio_read(0, 0, &prio) == OS_OK &&
		     prio.efficiency == RULE_EFFICIENCY_ON;
	saturate_machine_groups(m, FACTS_GROUP_BITS);
	machine_parked(parked);
	saturate_machine_park(m, parked);
	hwloc_bitmap_free(parked);
	in->min_cores_known = knobs_min_cores(&in->min_cores);
}
