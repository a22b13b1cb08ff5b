/* Windows: each step's workers are a fresh copy of cpupolicyctl.exe
 * (`saturate --worker HANDLE`), as a fork is on Linux, so that what a
 * --compare trial sets (a class, a thread level, EcoQoS, all of them the
 * process's or its threads') is the workers' alone and not the probe's
 * or the background's. The step goes over as data (a work_order: the
 * rule body, the pinned CPUs) in a mapping the child inherits by handle
 * (no name another user could take first), with the counters; the child
 * is in a job that kills it when cpupolicyctl ends. The probe is a
 * thread of cpupolicyctl, at its normal priority. Threads are placed
 * with SetThreadGroupAffinity: a Windows process starts in one processor
 * group, so with more than one a worker is moved to its share's group. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>

#include "procgroups.h"
#include "os.h"
#include "util.h"
#include "win.h"
#include "winapi.h"
#include "../work.h"

#define WORK_GROUP_BITS 64
#define WORK_MAX_GROUPS 64 /* more processor groups than Windows has */

/* The mapping both processes see; the handles are cpupolicyctl's. */
struct work_box {
	struct work_shared sh;
	struct work_order order;
	HANDLE mapping, process;
};

struct work_probe_box {
	struct work_probe probe;
	HANDLE thread;
};

bool work_supported(char *why, size_t size)
{
	(void)why;
	(void)size;
	return true;
}

static struct work_box *work_box_of(struct work_shared *sh)
{
	return (struct work_box *)((char *)sh - offsetof(struct work_box, sh));
}

struct work_shared *work_shared_new(void)
{
	SECURITY_ATTRIBUTES inherit = {.nLength = sizeof(inherit),
				       .bInheritHandle = TRUE};
	HANDLE mapping = CreateFileMappingW(INVALID_HANDLE_VALUE, &inherit,
					    PAGE_READWRITE, 0,
					    sizeof(struct work_box), NULL);
	struct work_box *box;

	if (!mapping)
		return NULL;
	box = MapViewOfFile(mapping, FILE_MAP_ALL_ACCESS, 0, 0, sizeof(*box));
	if (!box) {
		CloseHandle(mapping);
		return NULL;
	}
	box->mapping = mapping;
	return &box->sh;
}

void work_shared_free(struct work_shared *sh)
{
	struct work_box *box = work_box_of(sh);
	HANDLE mapping = box->mapping;

	/* A step that failed half-way: its workers go with it. */
	if (box->process) {
		TerminateProcess(box->process, 1);
		WaitForSingleObject(box->process, INFINITE);
		CloseHandle(box->process);
	}
	UnmapViewOfFile(box);
	CloseHandle(mapping);
}

struct work_probe *work_probe_new(void)
{
	struct work_probe_box *box = calloc(1, sizeof(*box));

	return box ? &box->probe : NULL;
}

void work_probe_free(struct work_probe *probe)
{
	struct work_probe_box *box = (struct work_probe_box *)probe;

	if (!box->thread)
		free(box);
}

pid_t work_thread_id(void)
{
	return (pid_t)GetCurrentThreadId();
}

/* The last error's status; a failure that set none is OS_FAILED. */
static enum os_status work_last_status(void)
{
	DWORD error = GetLastError();

	return error ? status_of_win32(error) : OS_FAILED;
}

/* A set's CPUs in the group of its first, as hwloc numbers them
 * (group * 64 + bit): SetThreadGroupAffinity takes one group. */
enum os_status work_pin(pthread_t thread, hwloc_const_bitmap_t set)
{
	int first = hwloc_bitmap_first(set);
	GROUP_AFFINITY ga = {0};
	int cpu;

	if (first < 0)
		return OS_UNSUPPORTED;
	ga.Group = (WORD)(first / WORK_GROUP_BITS);
	hwloc_bitmap_foreach_begin(cpu, set)
	{
		if (cpu / WORK_GROUP_BITS == ga.Group)
			ga.Mask |= (KAFFINITY)1 << (cpu % WORK_GROUP_BITS);
	}
	hwloc_bitmap_foreach_end();
	if (!winapi_get()->SetThreadGroupAffinity(pthread_gethandle(thread),
						  &ga, NULL))
		return work_last_status();
	return OS_OK;
}

/* Worker `index` to its turn's group, dealt in proportion to the groups'
 * active processors (procgroups.c), so that every group gets its share; with
 * one group nothing to do. The groups and the move go through the table
 * (winapi.h): Wine has one group, the model of Windows several. */
enum os_status work_spread(pthread_t thread, unsigned index, unsigned threads)
{
	const struct winapi *w = winapi_get();
	WORD groups = w->GetActiveProcessorGroupCount();
	uint64_t masks[WORK_MAX_GROUPS];
	const struct procgroups_affinity *a;
	struct procgroups_plan plan;
	GROUP_AFFINITY ga = {0};
	enum os_status status;
	BOOL ok;

	(void)threads;
	if (groups <= 1 || groups > WORK_MAX_GROUPS)
		return OS_OK;
	for (WORD g = 0; g < groups; g++)
		masks[g] = procgroups_mask(w->GetActiveProcessorCount(g));
	if (procgroups_plan_make(masks, groups, &plan) == 0) {
		procgroups_plan_free(&plan);
		return OS_OK;
	}
	a = procgroups_plan_thread(&plan, index);
	ga.Group = a->group;
	ga.Mask = (KAFFINITY)a->mask;
	ok = w->SetThreadGroupAffinity(pthread_gethandle(thread), &ga, NULL);
	status = ok ? OS_OK : work_last_status();
	procgroups_plan_free(&plan);
	return status;
}

/* The step as data, checked for what fits the order. */
static int work_order_fill(const struct work_spec *spec,
			   struct work_order *order)
{
	*order = (struct work_order){.threads = spec->threads,
				     .kind = spec->kind};
	if (spec->threads == 0 || spec->threads > WORK_MAX_THREADS ||
	    spec->pin_count > WORK_PINS_MAX ||
	    (spec->policy && strlen(spec->policy) >= WORK_POLICY_MAX)) {
		errno = E2BIG;
		return -1;
	}
	if (spec->policy)
		snprintf(order->policy, sizeof(order->policy), "%s",
			 spec->policy);
	for (unsigned i = 0; i < spec->pin_count; i++)
		order->pins[i] = spec->pins[i];
	order->pin_count = spec->pin_count;
	return 0;
}

/* The job every worker is in: closed when cpupolicyctl ends, however it
 * ends, which kills the workers still running. */
static HANDLE work_job(void)
{
	static HANDLE job;
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = {0};

	if (job)
		return job;
	job = CreateJobObjectW(NULL, NULL);
	limits.BasicLimitInformation.LimitFlags =
		JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (job &&
	    !SetInformationJobObject(job, JobObjectExtendedLimitInformation,
				     &limits, sizeof(limits))) {
		CloseHandle(job);
		job = NULL;
	}
	return job;
}

/* This program again, told the mapping's handle; started suspended so
 * that it is in the job before it runs. */
static HANDLE work_spawn(HANDLE mapping, DWORD *pid)
{
	wchar_t exe[MAX_PATH], line[MAX_PATH + 64];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	DWORD n = GetModuleFileNameW(NULL, exe, MAX_PATH);
	HANDLE job = work_job();

	if (n == 0 || n >= MAX_PATH)
		return NULL;
	swprintf(line, sizeof(line) / sizeof(line[0]),
		 L"\"%ls\" saturate --worker %llu", exe,
		 (unsigned long long)(uintptr_t)mapping);
	if (!CreateProcessW(exe, line, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL,
			    NULL, &si, &pi))
		return NULL;
	if (job)
		AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	*pid = pi.dwProcessId;
	return pi.hProcess;
}

/* Ready once every worker has said who it is; OS_FAILED when the worker
 * program ended first (a step that failed: its exit status says which).
 * A step larger than the order holds is one this system cannot run. */
enum os_status work_start(const struct work_spec *spec, struct work_shared *sh,
			  pid_t *pid)
{
	struct work_box *box = work_box_of(sh);
	DWORD id = 0;

	*sh = (struct work_shared){0};
	*pid = -1;
	if (work_order_fill(spec, &box->order) < 0)
		return OS_UNSUPPORTED;
	box->process = work_spawn(box->mapping, &id);
	if (!box->process)
		return work_last_status();
	while (!sh->ready) {
		if (WaitForSingleObject(box->process, 1) == WAIT_OBJECT_0) {
			CloseHandle(box->process);
			box->process = NULL;
			return OS_FAILED;
		}
	}
	*pid = (pid_t)id;
	return OS_OK;
}

enum os_status work_stop(pid_t pid, struct work_shared *sh)
{
	struct work_box *box = work_box_of(sh);
	DWORD status = 1;

	(void)pid;
	sh->stop = 1;
	if (!box->process)
		return OS_FAILED;
	WaitForSingleObject(box->process, INFINITE);
	GetExitCodeProcess(box->process, &status);
	CloseHandle(box->process);
	box->process = NULL;
	return status == 0 ? OS_OK : OS_FAILED;
}

/* In the worker program: the mapping cpupolicyctl handed down. Its
 * handle is a number only our parent could have made inheritable here;
 * the order is checked all the same, as input. */
struct work_shared *work_attach(const char *arg, struct work_order *order)
{
	char *end;
	unsigned long long handle = strtoull(arg, &end, 10);
	struct work_box *box;

	if (*arg == '\0' || *end != '\0' || handle == 0 ||
	    !(box = MapViewOfFile((HANDLE)(uintptr_t)handle,
				  FILE_MAP_ALL_ACCESS, 0, 0, sizeof(*box)))) {
		fprintf(stderr,
			"cpupolicyctl: saturate: --worker: '%s' is "
			"not a mapping of cpupolicyctl's\n",
			arg);
		return NULL;
	}
	*order = box->order;
	order->policy[sizeof(order->policy) - 1] = '\0';
	if (order->threads == 0 || order->threads > WORK_MAX_THREADS ||
	    order->kind > WORK_KIND_MEM || order->pin_count > WORK_PINS_MAX) {
		fprintf(stderr, "cpupolicyctl: saturate: --worker: the step "
				"makes no sense\n");
		return NULL;
	}
	return &box->sh;
}

static DWORD WINAPI work_probe_thread(void *arg)
{
	work_probe_run(arg);
	return 0;
}

/* The probe runs at normal priority, as a program among others would. */
enum os_status work_probe_start(struct work_probe *probe, long period_us,
				pid_t *pid)
{
	struct work_probe_box *box = (struct work_probe_box *)probe;

	*probe = (struct work_probe){0};
	probe->period_ns = period_us * 1000LL;
	box->thread = CreateThread(NULL, 0, work_probe_thread, probe, 0, NULL);
	*pid = box->thread ? (pid_t)GetCurrentProcessId() : -1;
	return box->thread ? OS_OK : work_last_status();
}

void work_probe_stop(pid_t pid, struct work_probe *probe)
{
	struct work_probe_box *box = (struct work_probe_box *)probe;

	(void)pid;
	probe->stop = 1;
	if (!box->thread)
		return;
	WaitForSingleObject(box->thread, INFINITE);
	CloseHandle(box->thread);
	box->thread = NULL;
}
