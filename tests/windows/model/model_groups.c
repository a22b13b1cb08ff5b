/* Processor groups: the machine's groups, each process's primary group
 * and the groups its threads are in, each thread's group affinity, and
 * the topology GetLogicalProcessorInformationEx reports. */
#include <string.h>

#include "model.h"

static struct model_process model_procs[MODEL_PROCS_MAX];
static size_t model_proc_count;
static struct model_thread model_threads[MODEL_THREADS_MAX];
static size_t model_thread_count;

/* The machines: how many logical processors each group holds. "The
 * operating system minimizes the number of groups in a system" and "A
 * NUMA node is assigned to a single group unless the capacity of the
 * node exceeds the maximum group size": 2x44 is two groups of 44, not
 * 64 + 24 (which is a machine of one 64 and one 24 node).
 * https://learn.microsoft.com/windows/win32/procthread/processor-groups */
WORD model_group_count(void)
{
	switch (model_config()->machine) {
	case MODEL_MACHINE_64_24:
	case MODEL_MACHINE_2X44:
		return 2;
	case MODEL_MACHINE_4X64:
		return 4;
	case MODEL_MACHINE_HYBRID_6P8E:
		return 1;
	}
	return 1;
}

BYTE model_group_size(WORD group)
{
	if (group >= model_group_count())
		return 0;
	switch (model_config()->machine) {
	case MODEL_MACHINE_64_24:
		return group == 0 ? 64 : 24;
	case MODEL_MACHINE_2X44:
		return 44;
	case MODEL_MACHINE_4X64:
		return 64;
	case MODEL_MACHINE_HYBRID_6P8E:
		return 6 * 2 + 8;
	}
	return 0;
}

/* "EfficiencyClass: ... a core with a higher value for the efficiency
 * class has intrinsically greater performance and less efficiency":
 * the P-cores (logical processors 0-11, two per core) 1, the E-cores 0;
 * on the other machines every core is of class 0.
 * sdk-api-src/content/winnt/ns-winnt-processor_relationship.md */
BYTE model_efficiency_class(WORD group, BYTE index)
{
	(void)group;
	return model_config()->machine == MODEL_MACHINE_HYBRID_6P8E &&
			       index < 12
		       ? 1
		       : 0;
}

static BYTE model_core_of(BYTE index)
{
	/* SMT pairs on the P-cores of the hybrid, and on the others;
	 * the E-cores have one thread each. */
	if (model_config()->machine == MODEL_MACHINE_HYBRID_6P8E && index >= 12)
		return (BYTE)(6 + (index - 12));
	return (BYTE)(index / 2);
}

static KAFFINITY model_group_mask(WORD group)
{
	BYTE n = model_group_size(group);

	return n >= 64 ? ~(KAFFINITY)0 : ((KAFFINITY)1 << n) - 1;
}

void model_groups_reset(void)
{
	model_proc_count = 0;
	model_thread_count = 0;
	memset(model_procs, 0, sizeof(model_procs));
}

/* "The operating system initially assigns each process to a single
 * group" (processor-groups): the configuration's start group. */
struct model_process *model_process(DWORD pid)
{
	for (size_t i = 0; i < model_proc_count; i++) {
		if (model_procs[i].pid == pid)
			return &model_procs[i];
	}
	if (model_proc_count == MODEL_PROCS_MAX)
		return NULL;
	model_procs[model_proc_count] = (struct model_process){
		.pid = pid,
		.primary = model_config()->start_group,
	};
	return &model_procs[model_proc_count++];
}

/* "The first thread of a process initially runs in the group to which
 * the process is assigned. Each newly created thread is assigned to the
 * same group as the thread that created it" (processor-groups): a
 * thread first seen is in its process's primary group, on all of it. */
struct model_thread *model_thread(DWORD pid, DWORD tid)
{
	struct model_process *p;

	for (size_t i = 0; i < model_thread_count; i++) {
		if (model_threads[i].tid == tid)
			return &model_threads[i];
	}
	p = model_process(pid);
	if (!p || model_thread_count == MODEL_THREADS_MAX)
		return NULL;
	model_threads[model_thread_count] = (struct model_thread){
		.pid = pid,
		.tid = tid,
		.affinity = {.Mask = model_group_mask(p->primary),
			     .Group = p->primary},
		.restricted = !model_spans_groups() || p->narrowed,
	};
	return &model_threads[model_thread_count++];
}

/* "If the process is running in a single group, it can read and modify
 * its affinity using GetProcessAffinityMask and SetProcessAffinityMask
 * ...; if the process affinity is modified, the new affinity is applied
 * to its threads" (processor-groups); from Windows 11 on, a thread so
 * confined is "restricted ... to the processors over the single
 * processor group", which "will also become the thread's primary group"
 * (sdk-api-src/content/processtopologyapi/nf-processtopologyapi-setthreadgroupaffinity.md).
 * New threads follow their creator, so the process stays in the group. */
void model_process_narrow(DWORD pid, WORD group)
{
	struct model_process *p = model_process(pid);

	if (!p)
		return;
	p->primary = group;
	p->narrowed = true;
	for (size_t i = 0; i < model_thread_count; i++) {
		if (model_threads[i].pid != pid)
			continue;
		model_threads[i].affinity = (GROUP_AFFINITY){
			.Mask = model_group_mask(group), .Group = group};
		model_threads[i].restricted = true;
	}
}

/* A thread's group affinity: one nobody asked about yet (the daemon
 * reads none of a rule's that places nothing) is where Windows started
 * it, as model_thread makes it. */
bool model_thread_group(DWORD pid, DWORD tid, GROUP_AFFINITY *affinity)
{
	const struct model_thread *t = model_thread(pid, tid);

	if (!t || t->pid != pid)
		return false;
	*affinity = t->affinity;
	return true;
}

static struct model_thread *model_thread_of(HANDLE thread)
{
	DWORD tid = GetThreadId(thread);

	return tid ? model_thread(GetProcessIdOfThread(thread), tid) : NULL;
}

/* The groups a process is in: its primary group and those its threads
 * were moved to: "If a thread is assigned to a different group than the
 * process, the process's affinity is updated to include the thread's
 * affinity and the process becomes a multi-group process"
 * (processor-groups). Where processes span groups by default, all of
 * them while one thread (or the process, before its threads are known)
 * is not restricted to its group. */
static USHORT model_process_groups(DWORD pid, USHORT *groups)
{
	struct model_process *p = model_process(pid);
	bool in[MODEL_GROUPS_MAX] = {false};
	bool spans = model_spans_groups() && !(p && p->narrowed);
	USHORT count = 0;

	if (!p)
		return 0;
	in[p->primary] = true;
	for (size_t i = 0; i < model_thread_count; i++) {
		if (model_threads[i].pid != pid)
			continue;
		in[model_threads[i].affinity.Group] = true;
		if (model_spans_groups() && !model_threads[i].restricted)
			spans = true;
	}
	for (WORD g = 0; g < model_group_count(); g++) {
		if (in[g] || spans)
			groups[count++] = g;
	}
	return count;
}

/* "If the array is too small, the function fails with
 * ERROR_INSUFFICIENT_BUFFER and sets the GroupCount parameter to the
 * number of elements required."
 * sdk-api-src/content/processtopologyapi/nf-processtopologyapi-getprocessgroupaffinity.md
 */
static BOOL WINAPI model_get_process_group_affinity(HANDLE process,
						    PUSHORT count,
						    PUSHORT array)
{
	USHORT groups[MODEL_GROUPS_MAX];
	USHORT n = model_process_groups(model_pid_of(process), groups);

	model_count("GetProcessGroupAffinity");
	if (n == 0) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	if (*count < n) {
		*count = n;
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	memcpy(array, groups, n * sizeof(*groups));
	*count = n;
	return TRUE;
}

static BOOL WINAPI model_get_thread_group_affinity(HANDLE thread,
						   PGROUP_AFFINITY affinity)
{
	struct model_thread *t = model_thread_of(thread);

	model_count("GetThreadGroupAffinity");
	if (!t) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	*affinity = t->affinity;
	return TRUE;
}

/* "If the function fails, the return value is zero": a group that is
 * not there, a mask of none of its processors or of processors it does
 * not have is ERROR_INVALID_PARAMETER; the thread moves to the group.
 * sdk-api-src/content/processtopologyapi/nf-processtopologyapi-setthreadgroupaffinity.md
 */
static BOOL WINAPI model_set_thread_group_affinity(HANDLE thread,
						   const GROUP_AFFINITY *ga,
						   PGROUP_AFFINITY previous)
{
	struct model_thread *t = model_thread_of(thread);

	model_count("SetThreadGroupAffinity");
	if (!t) {
		SetLastError(ERROR_INVALID_HANDLE);
		return FALSE;
	}
	if (ga->Group >= model_group_count() || ga->Mask == 0 ||
	    (ga->Mask & ~model_group_mask(ga->Group))) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	if (previous)
		*previous = t->affinity;
	t->affinity = (GROUP_AFFINITY){.Mask = ga->Mask, .Group = ga->Group};
	/* From Windows 11 on it "restricts a thread's affinity to the
	 * processors over the single processor group specified"
	 * (setthreadgroupaffinity). */
	t->restricted = true;
	return TRUE;
}

/* "If the calling process contains threads in multiple groups, the
 * function returns zero for both affinity masks"; in one group, the
 * process's mask and the group's active processors.
 * sdk-api-src/content/winbase/nf-winbase-getprocessaffinitymask.md */
static BOOL WINAPI model_get_process_affinity_mask(HANDLE process,
						   PDWORD_PTR mask,
						   PDWORD_PTR system)
{
	USHORT groups[MODEL_GROUPS_MAX];
	DWORD pid = model_pid_of(process);
	USHORT n = model_process_groups(pid, groups);

	model_count("GetProcessAffinityMask");
	if (n != 1) {
		*mask = *system = 0;
		return n > 0;
	}
	*mask = *system = model_group_mask(groups[0]);
	return TRUE;
}

/* ALL_PROCESSOR_GROUPS: the whole machine.
 * sdk-api-src/content/winbase/nf-winbase-getactiveprocessorcount.md */
static DWORD WINAPI model_get_active_processor_count(WORD group)
{
	DWORD n = 0;

	model_count("GetActiveProcessorCount");
	if (group != ALL_PROCESSOR_GROUPS)
		return model_group_size(group);
	for (WORD g = 0; g < model_group_count(); g++)
		n += model_group_size(g);
	return n;
}

/* "If this parameter is ALL_PROCESSOR_GROUPS, the function returns the
 * maximum number of processors that the system can have": the model's
 * machines have no processor to add, so the maximum is what is active.
 * sdk-api-src/content/winbase/nf-winbase-getmaximumprocessorcount.md */
static DWORD WINAPI model_get_maximum_processor_count(WORD group)
{
	model_count("GetMaximumProcessorCount");
	return model_get_active_processor_count(group);
}

/* "Returns the number of active processor groups in the system."
 * sdk-api-src/content/winbase/nf-winbase-getactiveprocessorgroupcount.md */
static WORD WINAPI model_get_active_processor_group_count(void)
{
	model_count("GetActiveProcessorGroupCount");
	return model_group_count();
}

/* One record per processor core of each group (RelationProcessorCore,
 * with its EfficiencyClass) or one for all groups (RelationGroup). */
static DWORD model_glpi_size(LOGICAL_PROCESSOR_RELATIONSHIP rel)
{
	DWORD cores = 0;

	if (rel == RelationGroup)
		return offsetof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX,
				Group.GroupInfo) +
		       model_group_count() * sizeof(PROCESSOR_GROUP_INFO);
	for (WORD g = 0; g < model_group_count(); g++) {
		for (BYTE i = 0; i < model_group_size(g); i++) {
			if (i == 0 || model_core_of(i) != model_core_of(i - 1))
				cores++;
		}
	}
	return cores * sizeof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX);
}

static void model_glpi_groups(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *e)
{
	WORD n = model_group_count();

	e->Relationship = RelationGroup;
	e->Size = (DWORD)(offsetof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX,
				   Group.GroupInfo) +
			  n * sizeof(PROCESSOR_GROUP_INFO));
	e->Group.MaximumGroupCount = n;
	e->Group.ActiveGroupCount = n;
	for (WORD g = 0; g < n; g++) {
		PROCESSOR_GROUP_INFO *gi = &e->Group.GroupInfo[g];

		gi->MaximumProcessorCount = model_group_size(g);
		gi->ActiveProcessorCount = model_group_size(g);
		gi->ActiveProcessorMask = model_group_mask(g);
	}
}

static void model_glpi_cores(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *e)
{
	for (WORD g = 0; g < model_group_count(); g++) {
		for (BYTE i = 0; i < model_group_size(g); i++) {
			if (i > 0 && model_core_of(i) == model_core_of(i - 1)) {
				e[-1].Processor.Flags = LTP_PC_SMT;
				e[-1].Processor.GroupMask[0].Mask |=
					(KAFFINITY)1 << i;
				continue;
			}
			memset(e, 0, sizeof(*e));
			e->Relationship = RelationProcessorCore;
			e->Size = sizeof(*e);
			/* EfficiencyClass follows Flags (mingw-w64's
			 * header still calls it Reserved[0]). */
			e->Processor.Reserved[0] = model_efficiency_class(g, i);
			e->Processor.GroupCount = 1;
			e->Processor.GroupMask[0].Group = g;
			e->Processor.GroupMask[0].Mask = (KAFFINITY)1 << i;
			e++;
		}
	}
}

/* "If the buffer is not large enough ... the function fails and
 * GetLastError returns ERROR_INSUFFICIENT_BUFFER", ReturnedLength the
 * size needed.
 * sdk-api-src/content/sysinfoapi/nf-sysinfoapi-getlogicalprocessorinformationex.md
 */
static BOOL WINAPI model_glpi(LOGICAL_PROCESSOR_RELATIONSHIP rel,
			      PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX buffer,
			      PDWORD length)
{
	DWORD need;

	model_count("GetLogicalProcessorInformationEx");
	if (rel != RelationGroup && rel != RelationProcessorCore) {
		SetLastError(ERROR_NOT_SUPPORTED); /* not modelled */
		return FALSE;
	}
	need = model_glpi_size(rel);
	if (!buffer || *length < need) {
		*length = need;
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	*length = need;
	if (rel == RelationGroup)
		model_glpi_groups(buffer);
	else
		model_glpi_cores(buffer);
	return TRUE;
}

void model_groups_install(struct winapi *w)
{
	w->GetProcessGroupAffinity = model_get_process_group_affinity;
	w->GetThreadGroupAffinity = model_get_thread_group_affinity;
	w->SetThreadGroupAffinity = model_set_thread_group_affinity;
	w->GetProcessAffinityMask = model_get_process_affinity_mask;
	w->GetActiveProcessorCount = model_get_active_processor_count;
	w->GetMaximumProcessorCount = model_get_maximum_processor_count;
	w->GetActiveProcessorGroupCount =
		model_get_active_processor_group_count;
	w->GetLogicalProcessorInformationEx = model_glpi;
}
