/* The listing of every process and thread (NtQuerySystemInformation's
 * SystemProcessInformation): Wine answers it from its own processes and
 * threads (Wine's dlls/ntdll/unix/system.c, SystemProcessInformation),
 * which are the ones the model's other calls name, so the model passes
 * it on, counts it (how many system-wide listings a scan takes), and
 * writes in what Windows tells there and Wine does not: each process's
 * base priority and each thread's state. */
#include "model.h"

static LONG(NTAPI *model_procs_next)(ULONG, PVOID, ULONG, PULONG);

#define MODEL_SYSTEM_PROCESS_INFORMATION 5
#define MODEL_PROCESS_ENTRY		 0x100 /* winternl.h's, on x64 */

/* KTHREAD_STATE as System.Diagnostics.ThreadState numbers it:
 * Initialized 0, Ready 1 ("waiting to use a processor because no
 * processor is free"), Running 2 ("currently using a processor"), Wait 5
 * (learn.microsoft.com/dotnet/api/system.diagnostics.threadstate); the
 * listing's ThreadState "contains the current thread state"
 * (sdk-api-src/content/winternl/nf-winternl-ntquerysysteminformation.md). */
enum {
	MODEL_STATE_INITIALIZED = 0,
	MODEL_STATE_READY = 1,
	MODEL_STATE_RUNNING = 2,
	MODEL_STATE_WAIT = 5,
};

static DWORD model_procs_ready_tids[MODEL_THREADS_MAX];
static size_t model_procs_ready_count;
static bool model_procs_stateless;

void model_procs_reset(void)
{
	model_procs_ready_count = 0;
	model_procs_stateless = false;
}

void model_procs_ready(DWORD tid)
{
	if (model_procs_ready_count < MODEL_THREADS_MAX)
		model_procs_ready_tids[model_procs_ready_count++] = tid;
}

void model_procs_stateless_set(bool stateless)
{
	model_procs_stateless = stateless;
}

/* The thread that asks runs as it asks; the ones the test made ready
 * wait for a processor; every other one the model takes as waiting. A
 * stateless listing is Wine's: every thread Initialized. */
static ULONG model_procs_state(DWORD tid)
{
	if (model_procs_stateless)
		return MODEL_STATE_INITIALIZED;
	if (tid == GetCurrentThreadId())
		return MODEL_STATE_RUNNING;
	for (size_t i = 0; i < model_procs_ready_count; i++) {
		if (model_procs_ready_tids[i] == tid)
			return MODEL_STATE_READY;
	}
	return MODEL_STATE_WAIT;
}

/* BasePriority "contains the base priority of the process, which is the
 * starting priority for threads created within the associated process"
 * (the same page): 4 idle, 6 below normal, 8 normal, 10 above normal, 13
 * high, 24 realtime by the "Scheduling Priorities" table
 * (sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setpriorityclass.md).
 * Wine gives its own class numbers there (PROCESS_PRIOCLASS_IDLE 1 to
 * ABOVE_NORMAL 6); a stateless listing keeps them, as Wine's. */
static LONG model_procs_base(LONG wine)
{
	static const LONG bases[] = {8, 4, 8, 13, 24, 6, 10};

	return wine >= 1 && wine <= 6 ? bases[wine] : wine;
}

static void model_procs_rewrite(unsigned char *buf, ULONG len)
{
	ULONG at = 0;

	while (at + MODEL_PROCESS_ENTRY <= len) {
		SYSTEM_PROCESS_INFORMATION *e = (void *)(buf + at);
		SYSTEM_THREAD_INFORMATION *t =
			(void *)(buf + at + MODEL_PROCESS_ENTRY);

		if (at + MODEL_PROCESS_ENTRY + e->NumberOfThreads * sizeof(*t) >
		    len)
			return;
		if (!model_procs_stateless)
			e->BasePriority = model_procs_base(e->BasePriority);
		for (ULONG k = 0; k < e->NumberOfThreads; k++)
			t[k].ThreadState = model_procs_state(
				(DWORD)(uintptr_t)t[k].ClientId.UniqueThread);
		if (!e->NextEntryOffset)
			return;
		at += e->NextEntryOffset;
	}
}

static LONG NTAPI model_nt_query_system_information(ULONG klass, PVOID buf,
						    ULONG len, PULONG got)
{
	LONG nt;
	ULONG filled = 0;

	if (klass != MODEL_SYSTEM_PROCESS_INFORMATION)
		return model_procs_next(klass, buf, len, got);
	model_count("NtQuerySystemInformation(SystemProcessInformation)");
	nt = model_procs_next(klass, buf, len, &filled);
	if (got)
		*got = filled;
	if (nt >= 0)
		model_procs_rewrite(buf, filled < len ? filled : len);
	return nt;
}

void model_procs_install(struct winapi *w)
{
	if (!w->NtQuerySystemInformation ||
	    w->NtQuerySystemInformation == model_nt_query_system_information)
		return;
	model_procs_next = w->NtQuerySystemInformation;
	w->NtQuerySystemInformation = model_nt_query_system_information;
}
