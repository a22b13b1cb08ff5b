/* CPU Sets: one per logical processor, the process's default sets and
 * each thread's selected ones. */
#include <string.h>

#include "model.h"

static ULONG model_cpu_count(void)
{
	ULONG n = 0;

	for (WORD g = 0; g < model_group_count(); g++)
		n += model_group_size(g);
	return n;
}

/* Ids are opaque: "the CPU Set IDs ... are not related to logical
 * processor numbers"; the model numbers them from 0x100 as Windows does
 * (the ids real machines report, e.g. Process Lasso's DefaultCPUSets).
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-getsystemcpusetinformation.md
 */
static bool model_cpu_of_id(ULONG id, WORD *group, BYTE *index)
{
	ULONG k;

	if (id < MODEL_CPU_SET_ID_BASE)
		return false;
	k = id - MODEL_CPU_SET_ID_BASE;
	for (WORD g = 0; g < model_group_count(); g++) {
		if (k < model_group_size(g)) {
			*group = g;
			*index = (BYTE)k;
			return true;
		}
		k -= model_group_size(g);
	}
	return false;
}

static void model_cpu_set_entry(struct winapi_cpu_set_info *e, ULONG id)
{
	WORD g = 0;
	BYTE i = 0;

	model_cpu_of_id(id, &g, &i);
	memset(e, 0, sizeof(*e));
	e->Size = sizeof(*e);
	e->Type = CpuSetInformation;
	e->CpuSet.Id = id;
	e->CpuSet.Group = g;
	e->CpuSet.LogicalProcessorIndex = i;
	e->CpuSet.CoreIndex = (BYTE)(i / 2);
	e->CpuSet.NumaNodeIndex = (BYTE)g;
	e->CpuSet.EfficiencyClass = model_efficiency_class(g, i);
}

/* "If the buffer is not large enough ... FALSE, ERROR_INSUFFICIENT_BUFFER,
 * ReturnedLength set to the size required" (getsystemcpusetinformation). */
static BOOL WINAPI model_get_system_cpu_sets(struct winapi_cpu_set_info *info,
					     ULONG length, PULONG returned,
					     HANDLE process, ULONG flags)
{
	ULONG n = model_cpu_count();

	(void)process;
	(void)flags;
	model_count("GetSystemCpuSetInformation");
	*returned = n * (ULONG)sizeof(*info);
	if (!info || length < *returned) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	for (ULONG k = 0; k < n; k++)
		model_cpu_set_entry(&info[k], MODEL_CPU_SET_ID_BASE + k);
	return TRUE;
}

static bool model_ids_valid(const ULONG *ids, ULONG count)
{
	WORD g;
	BYTE i;

	for (ULONG k = 0; k < count; k++) {
		if (!model_cpu_of_id(ids[k], &g, &i))
			return false;
	}
	return count <= MODEL_CPUS_MAX;
}

/* "This function can fail with ERROR_INSUFFICIENT_BUFFER if the
 * CpuSetIdCount is too small"; none set: TRUE, RequiredIdCount 0.
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-getprocessdefaultcpusets.md
 */
static BOOL model_ids_out(const ULONG *have, ULONG have_count, PULONG ids,
			  ULONG count, PULONG needed)
{
	*needed = have_count;
	if (count < have_count) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	if (have_count)
		memcpy(ids, have, have_count * sizeof(*ids));
	return TRUE;
}

/* "If this value is NULL, SetProcessDefaultCpuSets clears out any
 * assignment"; an id not of this machine: ERROR_INVALID_PARAMETER.
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setprocessdefaultcpusets.md
 */
static BOOL WINAPI model_set_process_default(HANDLE process, const ULONG *ids,
					     ULONG count)
{
	struct model_process *p = model_process(model_pid_of(process));

	model_count("SetProcessDefaultCpuSets");
	if (!p || !model_ids_valid(ids, ids ? count : 0)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	p->default_count = ids ? count : 0;
	if (p->default_count)
		memcpy(p->defaults, ids, count * sizeof(*ids));
	return TRUE;
}

static BOOL WINAPI model_get_process_default(HANDLE process, PULONG ids,
					     ULONG count, PULONG needed)
{
	struct model_process *p = model_process(model_pid_of(process));

	model_count("GetProcessDefaultCpuSets");
	if (!p) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	return model_ids_out(p->defaults, p->default_count, ids, count, needed);
}

/* "the resulting process default CPU Set assignment is the set of all
 * CPU sets with a home processor in the provided list of group
 * affinities"; Windows 11 and Server 2022 only (the table's pointer is
 * NULL before).
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setprocessdefaultcpusetmasks.md
 */
static BOOL WINAPI model_set_process_default_masks(HANDLE process,
						   PGROUP_AFFINITY masks,
						   USHORT count)
{
	struct model_process *p = model_process(model_pid_of(process));
	ULONG base = MODEL_CPU_SET_ID_BASE;

	model_count("SetProcessDefaultCpuSetMasks");
	if (!p) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	p->default_count = 0;
	for (WORD g = 0; masks && g < model_group_count(); g++) {
		for (BYTE i = 0; i < model_group_size(g); i++) {
			for (USHORT m = 0; m < count; m++) {
				if (masks[m].Group == g &&
				    (masks[m].Mask & ((KAFFINITY)1 << i)))
					p->defaults[p->default_count++] =
						base + i;
			}
		}
		base += model_group_size(g);
	}
	return TRUE;
}

static struct model_thread *model_cpusets_thread(HANDLE thread)
{
	DWORD tid = GetThreadId(thread);

	return tid ? model_thread(GetProcessIdOfThread(thread), tid) : NULL;
}

/* "Clears the assignment if NULL": the thread runs on its process's
 * default sets again.
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setthreadselectedcpusets.md
 */
static BOOL WINAPI model_set_thread_selected(HANDLE thread, const ULONG *ids,
					     ULONG count)
{
	struct model_thread *t = model_cpusets_thread(thread);

	model_count("SetThreadSelectedCpuSets");
	if (!t || !model_ids_valid(ids, ids ? count : 0)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	t->selected_count = ids ? count : 0;
	if (t->selected_count)
		memcpy(t->selected, ids, count * sizeof(*ids));
	return TRUE;
}

static BOOL WINAPI model_get_thread_selected(HANDLE thread, PULONG ids,
					     ULONG count, PULONG needed)
{
	struct model_thread *t = model_cpusets_thread(thread);

	model_count("GetThreadSelectedCpuSets");
	if (!t) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	return model_ids_out(t->selected, t->selected_count, ids, count,
			     needed);
}

ULONG model_process_default_cpu_sets(DWORD pid, ULONG *ids, ULONG max)
{
	struct model_process *p = model_process(pid);
	ULONG n = p ? p->default_count : 0;

	for (ULONG k = 0; k < n && k < max; k++)
		ids[k] = p->defaults[k];
	return n;
}

ULONG model_thread_cpu_sets(DWORD pid, DWORD tid, ULONG *ids, ULONG max)
{
	struct model_thread *t = model_thread(pid, tid);
	ULONG n = t ? t->selected_count : 0;

	for (ULONG k = 0; k < n && k < max; k++)
		ids[k] = t->selected[k];
	return n;
}

void model_cpusets_install(struct winapi *w)
{
	bool masks = model_spans_groups();

	w->GetSystemCpuSetInformation = model_get_system_cpu_sets;
	w->SetProcessDefaultCpuSets = model_set_process_default;
	w->GetProcessDefaultCpuSets = model_get_process_default;
	w->SetProcessDefaultCpuSetMasks =
		masks ? model_set_process_default_masks : NULL;
	w->SetThreadSelectedCpuSets = model_set_thread_selected;
	w->GetThreadSelectedCpuSets = model_get_thread_selected;
}
