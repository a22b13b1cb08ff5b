/* Windows: the saturation check's workers are threads of cpupolicyctl
 * itself, under a controller thread that plays the Linux worker
 * process's part (work_child): a second copy of the .exe would need the
 * step's settings passed over, and the check's own steps need nothing a
 * process has apart (its threads are timed one by one, GetThreadTimes).
 * The "pid" a step is known by is this process's; the controller's
 * handle sits beside the shared memory. Threads are placed with
 * SetThreadGroupAffinity: a Windows process starts in one processor
 * group, so with more than one a worker is moved to its share's group.
 * What a step's setup changes of the process (--compare's class and
 * EcoQoS) is put back when the step stops, so that the next trial starts
 * as this one did; the probe and background threads, being threads of
 * this process too, share the class while a B trial runs. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <windows.h>

#include "groups.h"
#include "os.h"
#include "prio.h"
#include "util.h"
#include "../work.h"

#define WORK_GROUP_BITS 64
#define WORK_MAX_GROUPS 64 /* more processor groups than Windows has */

/* The shared memory and the thread that runs the step. */
struct work_box {
	struct work_shared sh;
	const struct work_spec *spec;
	HANDLE thread;
	DWORD status;
	struct prio_state before; /* the process's, to put back */
	bool have_before;
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
	struct work_box *box = calloc(1, sizeof(*box));

	return box ? &box->sh : NULL;
}

void work_shared_free(struct work_shared *sh)
{
	struct work_box *box = work_box_of(sh);

	/* A step that failed half-way may have threads still spinning on
	 * its memory: left to the process's end. */
	if (box->thread)
		return;
	free(box);
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

/* A set's CPUs in the group of its first, as hwloc numbers them
 * (group * 64 + bit): SetThreadGroupAffinity takes one group. */
int work_pin(pthread_t thread, hwloc_const_bitmap_t set)
{
	int first = hwloc_bitmap_first(set);
	GROUP_AFFINITY ga = {0};
	int cpu;

	if (first < 0) {
		errno = EINVAL;
		return -1;
	}
	ga.Group = (WORD)(first / WORK_GROUP_BITS);
	hwloc_bitmap_foreach_begin(cpu, set)
	{
		if (cpu / WORK_GROUP_BITS == ga.Group)
			ga.Mask |= (KAFFINITY)1 << (cpu % WORK_GROUP_BITS);
	}
	hwloc_bitmap_foreach_end();
	if (!SetThreadGroupAffinity(pthread_gethandle(thread), &ga, NULL)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Worker `index` to its turn's group, dealt in proportion to the groups'
 * active processors (groups.c), so that every group gets its share; with
 * one group nothing to do. */
int work_spread(pthread_t thread, unsigned index, unsigned threads)
{
	WORD groups = GetActiveProcessorGroupCount();
	uint64_t masks[WORK_MAX_GROUPS];
	const struct groups_affinity *a;
	struct groups_plan plan;
	GROUP_AFFINITY ga = {0};
	BOOL ok;

	(void)threads;
	if (groups <= 1 || groups > WORK_MAX_GROUPS)
		return 0;
	for (WORD g = 0; g < groups; g++)
		masks[g] = groups_mask(GetActiveProcessorCount(g));
	if (groups_plan_make(masks, groups, &plan) == 0) {
		groups_plan_free(&plan);
		return 0;
	}
	a = groups_plan_thread(&plan, index);
	ga.Group = a->group;
	ga.Mask = (KAFFINITY)a->mask;
	ok = SetThreadGroupAffinity(pthread_gethandle(thread), &ga, NULL);
	groups_plan_free(&plan);
	return ok ? 0 : -1;
}

/* The process's class and EcoQoS as before the step's setup. */
static void work_restore(struct work_box *box)
{
	struct prio_state now;

	if (!box->have_before || apply_prio_read(0, 0, &now) != OS_OK)
		return;
	apply_prio_write(0, 0, &now, &box->before);
}

static DWORD WINAPI work_controller(void *arg)
{
	struct work_box *box = arg;

	return (DWORD)work_child(box->spec, &box->sh);
}

/* Ready once every worker has said who it is; -1 when the controller
 * ended first (a step that failed: its status says which). */
pid_t work_start(const struct work_spec *spec, struct work_shared *sh)
{
	struct work_box *box = work_box_of(sh);

	*sh = (struct work_shared){0};
	box->spec = spec;
	box->have_before =
		spec->setup && apply_prio_read(0, 0, &box->before) == OS_OK;
	box->thread = CreateThread(NULL, 0, work_controller, box, 0, NULL);
	if (!box->thread)
		return -1;
	while (!sh->ready) {
		if (WaitForSingleObject(box->thread, 1) == WAIT_OBJECT_0) {
			GetExitCodeThread(box->thread, &box->status);
			sh->start = sh->stop = 1;
			errno = ECHILD;
			return -1;
		}
	}
	return (pid_t)GetCurrentProcessId();
}

int work_stop(pid_t pid, struct work_shared *sh)
{
	struct work_box *box = work_box_of(sh);
	DWORD status = 1;

	(void)pid;
	sh->stop = 1;
	if (!box->thread)
		return -1;
	WaitForSingleObject(box->thread, INFINITE);
	GetExitCodeThread(box->thread, &status);
	CloseHandle(box->thread);
	box->thread = NULL;
	work_restore(box);
	return status == 0 ? 0 : -1;
}

static DWORD WINAPI work_probe_thread(void *arg)
{
	work_probe_run(arg);
	return 0;
}

/* The probe runs at normal priority, as a program among others would. */
pid_t work_probe_start(struct work_probe *probe, long period_us)
{
	struct work_probe_box *box = (struct work_probe_box *)probe;

	*probe = (struct work_probe){0};
	probe->period_ns = period_us * 1000LL;
	box->thread = CreateThread(NULL, 0, work_probe_thread, probe, 0, NULL);
	return box->thread ? (pid_t)GetCurrentProcessId() : -1;
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
