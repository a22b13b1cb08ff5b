/* A process's I/O priority (NtQueryInformationProcess and
 * NtSetInformationProcess with ProcessIoPriority) and memory priority
 * (GetProcessInformation and SetProcessInformation with
 * ProcessMemoryPriority). The calls of other classes go on to what was
 * installed before: model_throttle.c's, or the system's. */
#include "model.h"

#define MODEL_STATUS_INVALID_PARAMETER	  ((LONG)0xC000000Dl)
#define MODEL_STATUS_INFO_LENGTH_MISMATCH ((LONG)0xC0000004l)
#define MODEL_IO_NORMAL			  2ul
#define MODEL_IO_HIGH			  3ul

static struct winapi model_prio_next;

/* ProcessIoPriority takes and gives one ULONG, an IO_PRIORITY_HINT;
 * another length is STATUS_INFO_LENGTH_MISMATCH. Not Microsoft's: the
 * class and its type are phnt's (ntpsapi.h, "ProcessIoPriority, // qs:
 * IO_PRIORITY_HINT") and ReactOS's (ntoskrnl/ps/query.c). A process
 * starts at IoPriorityNormal, as Process Explorer and Process Hacker
 * show every process not lowered (no reference says so either). The
 * model takes VeryLow to High and refuses Critical and above with
 * STATUS_INVALID_PARAMETER: Critical is the memory manager's paging
 * priority, a simplification of ours, not a documented rule. */
static LONG NTAPI model_query_information_process(HANDLE process, ULONG klass,
						  PVOID info, ULONG length,
						  PULONG returned)
{
	struct model_process *p;

	if (klass != WINAPI_PROCESS_IO_PRIORITY)
		return model_prio_next.NtQueryInformationProcess(
			process, klass, info, length, returned);
	model_count("NtQueryInformationProcess(ProcessIoPriority)");
	if (length != sizeof(ULONG))
		return MODEL_STATUS_INFO_LENGTH_MISMATCH;
	p = model_process(model_pid_of(process));
	if (!p)
		return MODEL_STATUS_INVALID_PARAMETER;
	*(ULONG *)info = p->io_hint_set ? p->io_hint_set - 1 : MODEL_IO_NORMAL;
	if (returned)
		*returned = sizeof(ULONG);
	return 0;
}

static LONG NTAPI model_set_information_process(HANDLE process, ULONG klass,
						PVOID info, ULONG length)
{
	struct model_process *p;
	ULONG hint;

	if (klass != WINAPI_PROCESS_IO_PRIORITY)
		return model_prio_next.NtSetInformationProcess
			       ? model_prio_next.NtSetInformationProcess(
					 process, klass, info, length)
			       : MODEL_STATUS_INVALID_PARAMETER;
	model_count("NtSetInformationProcess(ProcessIoPriority)");
	if (length != sizeof(ULONG))
		return MODEL_STATUS_INFO_LENGTH_MISMATCH;
	hint = *(const ULONG *)info;
	p = model_process(model_pid_of(process));
	if (!p || hint > MODEL_IO_HIGH)
		return MODEL_STATUS_INVALID_PARAMETER;
	p->io_hint_set = hint + 1;
	return 0;
}

/* MEMORY_PRIORITY_INFORMATION: MemoryPriority is one of
 * MEMORY_PRIORITY_VERY_LOW (1) to MEMORY_PRIORITY_NORMAL (5), "the
 * default priority for all threads and processes on the system".
 * sdk-api-src/content/processthreadsapi/ns-processthreadsapi-memory_priority_information.md
 * The size must be the structure's; another value, or another size, is
 * ERROR_INVALID_PARAMETER ("If the function fails, the return value is
 * zero",
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setprocessinformation.md;
 * the error code is the model's choice, as the page names none). */
static bool model_memory_valid(LPVOID info, DWORD size)
{
	const MEMORY_PRIORITY_INFORMATION *m = info;

	return size == sizeof(*m) &&
	       m->MemoryPriority >= MEMORY_PRIORITY_VERY_LOW &&
	       m->MemoryPriority <= MEMORY_PRIORITY_NORMAL;
}

static BOOL WINAPI
model_set_process_information(HANDLE process, PROCESS_INFORMATION_CLASS klass,
			      LPVOID info, DWORD size)
{
	struct model_process *p;

	if (klass != ProcessMemoryPriority)
		return model_prio_next.SetProcessInformation(process, klass,
							     info, size);
	model_count("SetProcessInformation(ProcessMemoryPriority)");
	p = model_process(model_pid_of(process));
	if (!p || !model_memory_valid(info, size)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	p->memory_priority =
		((MEMORY_PRIORITY_INFORMATION *)info)->MemoryPriority;
	return TRUE;
}

static BOOL WINAPI
model_get_process_information(HANDLE process, PROCESS_INFORMATION_CLASS klass,
			      LPVOID info, DWORD size)
{
	struct model_process *p;

	if (klass != ProcessMemoryPriority)
		return model_prio_next.GetProcessInformation(process, klass,
							     info, size);
	p = model_process(model_pid_of(process));
	if (!p || size != sizeof(MEMORY_PRIORITY_INFORMATION)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	((MEMORY_PRIORITY_INFORMATION *)info)->MemoryPriority =
		model_memory_priority_of(model_pid_of(process));
	return TRUE;
}

ULONG model_io_priority_of(DWORD pid)
{
	struct model_process *p = model_process(pid);

	return p && p->io_hint_set ? p->io_hint_set - 1 : MODEL_IO_NORMAL;
}

ULONG model_memory_priority_of(DWORD pid)
{
	struct model_process *p = model_process(pid);

	return p && p->memory_priority ? p->memory_priority
				       : MEMORY_PRIORITY_NORMAL;
}

void model_prio_install(struct winapi *w)
{
	model_prio_next = *w;
	w->NtQueryInformationProcess = model_query_information_process;
	w->NtSetInformationProcess = model_set_information_process;
	w->SetProcessInformation = model_set_process_information;
	w->GetProcessInformation = model_get_process_information;
}
