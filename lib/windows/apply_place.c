/* Windows: a thread's processors. The core's sets number processors as
 * hwloc's Windows backend does: group g's logical processor n is
 * g * 64 + n. A thread runs in one processor group at a time (before
 * Windows 11 and Server 2022 always; after, unless CPU Sets spread it),
 * so a set within one group is the thread's GROUP_AFFINITY
 * (SetThreadGroupAffinity, which also moves the thread to that group:
 * how spread = "group" deals a pool's threads over the groups), and a
 * set over several groups is the thread's selected CPU Sets
 * (SetThreadSelectedCpuSets, Windows 10 and later, resolved at run time),
 * which Windows 11 honours across groups and older Windows within the
 * thread's own group. Reads give what the thread has: its selected CPU
 * Sets when it has any, else its group affinity. */
#include <stdlib.h>

#include "log.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define APPLY_PLACE_GROUP_BITS 64

static void apply_place_add_mask(hwloc_bitmap_t set, WORD group, KAFFINITY mask)
{
	for (unsigned bit = 0; bit < APPLY_PLACE_GROUP_BITS; bit++) {
		if (mask & ((KAFFINITY)1 << bit))
			hwloc_bitmap_set(set,
					 group * APPLY_PLACE_GROUP_BITS + bit);
	}
}

/* The machine's CPU Sets, NULL when Windows (or Wine) has none. */
static struct winapi_cpu_set_info *apply_place_cpu_sets(ULONG *len)
{
	const struct winapi *w = winapi_get();
	struct winapi_cpu_set_info *info;

	*len = 0;
	if (!w->GetSystemCpuSetInformation)
		return NULL;
	w->GetSystemCpuSetInformation(NULL, 0, len, GetCurrentProcess(), 0);
	if (*len == 0)
		return NULL;
	info = xmalloc(*len);
	if (!w->GetSystemCpuSetInformation(info, *len, len, GetCurrentProcess(),
					   0)) {
		free(info);
		return NULL;
	}
	return info;
}

/* Each entry of the CPU Set list, walked by its own Size. */
#define APPLY_PLACE_FOR_EACH(e, info, len)                                     \
	for (struct winapi_cpu_set_info *e = (info);                           \
	     (char *)e + sizeof(*e) <= (char *)(info) + (len) &&               \
	     e->Size >= sizeof(*e);                                            \
	     e = (struct winapi_cpu_set_info *)((char *)e + e->Size))

/* The ids of the CPU Sets whose home processors are the set's, in the
 * machine's order; *count of them (0: none of the set's). */
static ULONG *apply_place_ids_of(hwloc_const_bitmap_t set,
				 struct winapi_cpu_set_info *info, ULONG len,
				 ULONG *count)
{
	ULONG n = 0, *ids;

	APPLY_PLACE_FOR_EACH(e, info, len)
	{
		(void)e;
		n++;
	}
	ids = xcalloc(n ? n : 1, sizeof(*ids));
	*count = 0;
	APPLY_PLACE_FOR_EACH(e, info, len)
	{
		if (hwloc_bitmap_isset(
			    set, e->CpuSet.Group * APPLY_PLACE_GROUP_BITS +
					 e->CpuSet.LogicalProcessorIndex))
			ids[(*count)++] = e->CpuSet.Id;
	}
	return ids;
}

static void apply_place_of_ids(const ULONG *ids, ULONG count,
			       hwloc_bitmap_t set)
{
	ULONG len;
	struct winapi_cpu_set_info *info = apply_place_cpu_sets(&len);

	if (!info)
		return;
	APPLY_PLACE_FOR_EACH(e, info, len)
	{
		for (ULONG i = 0; i < count; i++) {
			if (e->CpuSet.Id == ids[i])
				hwloc_bitmap_set(
					set,
					e->CpuSet.Group *
							APPLY_PLACE_GROUP_BITS +
						e->CpuSet
							.LogicalProcessorIndex);
		}
	}
	free(info);
}

/* The thread's selected CPU Sets as processors; false when it has none
 * (or the call is not there). */
static bool apply_place_read_cpu_sets(HANDLE thread, hwloc_bitmap_t set)
{
	const struct winapi *w = winapi_get();
	ULONG needed = 0, *ids;
	bool ok;

	if (!w->GetThreadSelectedCpuSets)
		return false;
	if (w->GetThreadSelectedCpuSets(thread, NULL, 0, &needed) ||
	    needed == 0)
		return false;
	ids = xcalloc(needed, sizeof(*ids));
	ok = w->GetThreadSelectedCpuSets(thread, ids, needed, &needed);
	if (ok)
		apply_place_of_ids(ids, needed, set);
	free(ids);
	return ok && !hwloc_bitmap_iszero(set);
}

enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set)
{
	enum os_status os;
	GROUP_AFFINITY ga;
	HANDLE thread;

	(void)pid;
	hwloc_bitmap_zero(set);
	/* 0: the caller's thread, as on Linux. */
	if (!tid)
		tid = (pid_t)GetCurrentThreadId();
	thread = procinfo_open_thread(tid, THREAD_QUERY_LIMITED_INFORMATION,
				      &os);
	if (!thread)
		return os;
	if (!apply_place_read_cpu_sets(thread, set)) {
		if (winapi_get()->GetThreadGroupAffinity(thread, &ga))
			apply_place_add_mask(set, ga.Group, ga.Mask);
		else
			os = status_of_win32(GetLastError());
	}
	CloseHandle(thread);
	return os;
}

/* The one group a set lies in, or -1 when it spans several (or none). */
static int apply_place_one_group(hwloc_const_bitmap_t set, KAFFINITY *mask)
{
	int first = hwloc_bitmap_first(set), last = hwloc_bitmap_last(set);
	int group;

	if (first < 0 || last < 0 ||
	    first / APPLY_PLACE_GROUP_BITS != last / APPLY_PLACE_GROUP_BITS)
		return -1;
	group = first / APPLY_PLACE_GROUP_BITS;
	*mask = 0;
	for (int i = first; i >= 0 && i <= last; i = hwloc_bitmap_next(set, i))
		*mask |= (KAFFINITY)1 << (i % APPLY_PLACE_GROUP_BITS);
	return group;
}

static enum os_status apply_place_write_cpu_sets(HANDLE thread,
						 hwloc_const_bitmap_t set)
{
	const struct winapi *w = winapi_get();
	ULONG len, *ids, count;
	struct winapi_cpu_set_info *info;
	enum os_status os = OS_OK;

	if (!w->SetThreadSelectedCpuSets ||
	    !(info = apply_place_cpu_sets(&len))) {
		log_once(log_warnx, "this system has no CPU Sets: a set of "
				    "processors over several groups cannot "
				    "be given to a thread");
		return status_of_win32(ERROR_NOT_SUPPORTED);
	}
	ids = apply_place_ids_of(set, info, len, &count);
	free(info);
	if (count == 0 || !w->SetThreadSelectedCpuSets(thread, ids, count))
		os = status_of_win32(count ? GetLastError()
					   : ERROR_INVALID_PARAMETER);
	free(ids);
	return os;
}

/* A thread given a group affinity also loses any CPU Sets selected for it
 * earlier: they would narrow it further. */
static void apply_place_clear_cpu_sets(HANDLE thread)
{
	const struct winapi *w = winapi_get();
	ULONG needed = 0;

	if (w->SetThreadSelectedCpuSets && w->GetThreadSelectedCpuSets &&
	    !w->GetThreadSelectedCpuSets(thread, NULL, 0, &needed) &&
	    needed > 0)
		w->SetThreadSelectedCpuSets(thread, NULL, 0);
}

enum os_status apply_place_write(pid_t pid, pid_t tid, hwloc_const_bitmap_t set)
{
	enum os_status os;
	KAFFINITY mask = 0;
	int group = apply_place_one_group(set, &mask);
	HANDLE thread;

	(void)pid;
	if (!tid)
		tid = (pid_t)GetCurrentThreadId();
	thread = procinfo_open_thread(
		tid, THREAD_SET_INFORMATION | THREAD_QUERY_INFORMATION, &os);
	if (!thread)
		return os;
	if (group >= 0) {
		GROUP_AFFINITY ga = {.Mask = mask, .Group = (WORD)group};

		os = winapi_get()->SetThreadGroupAffinity(thread, &ga, NULL)
			     ? OS_OK
			     : status_of_win32(GetLastError());
		if (os == OS_OK)
			apply_place_clear_cpu_sets(thread);
	} else {
		os = apply_place_write_cpu_sets(thread, set);
	}
	CloseHandle(thread);
	return os;
}

/* The process's default CPU Sets, which its threads without CPU Sets of
 * their own run on, new ones from their start: soft, "a 'soft' manner
 * that is compatible with OS power management", where "a restrictive
 * affinity mask ... is respected above any conflicting CPU Set
 * assignment" (https://learn.microsoft.com/windows/win32/procthread/cpu-sets).
 * The groups' masks when the set spans several and Windows has
 * SetProcessDefaultCpuSetMasks (Windows 11, Server 2022); else the ids
 * of the set's processors (SetProcessDefaultCpuSets), of which a thread
 * uses those in its own group: "On multi-group systems, CPU assignments
 * are ignored if they are in groups that do not match the group in the
 * thread's affinity mask" (same page), so CPU Sets never move a thread
 * to another group, and spread = "group" is the threads' affinities.
 * NULL clears the default: Windows chooses again. */
enum os_status apply_place_process(pid_t pid, hwloc_const_bitmap_t set)
{
	const struct winapi *w = winapi_get();
	GROUP_AFFINITY masks[64];
	USHORT mask_count = 0;
	ULONG len, *ids = NULL, count = 0;
	struct winapi_cpu_set_info *info = NULL;
	enum os_status os;
	KAFFINITY one;
	HANDLE process;
	BOOL ok;

	if (!w->SetProcessDefaultCpuSets)
		return status_of_win32(ERROR_NOT_SUPPORTED);
	if (set && !(info = apply_place_cpu_sets(&len)))
		return status_of_win32(ERROR_NOT_SUPPORTED);
	if (!pid)
		pid = procinfo_self();
	process = procinfo_open(pid, PROCESS_SET_LIMITED_INFORMATION, &os);
	if (!process) {
		free(info);
		return os;
	}
	if (!set) {
		ok = w->SetProcessDefaultCpuSets(process, NULL, 0);
	} else if (apply_place_one_group(set, &one) >= 0 ||
		   !w->SetProcessDefaultCpuSetMasks) {
		ids = apply_place_ids_of(set, info, len, &count);
		ok = count > 0 &&
		     w->SetProcessDefaultCpuSets(process, ids, count);
	} else {
		for (int i = hwloc_bitmap_first(set); i >= 0;
		     i = hwloc_bitmap_next(set, i)) {
			WORD g = (WORD)(i / APPLY_PLACE_GROUP_BITS);

			if (!mask_count || masks[mask_count - 1].Group != g) {
				if (mask_count == ARRAYSIZE(masks))
					break;
				masks[mask_count++] =
					(GROUP_AFFINITY){.Group = g};
			}
			masks[mask_count - 1].Mask |=
				(KAFFINITY)1 << (i % APPLY_PLACE_GROUP_BITS);
		}
		ok = w->SetProcessDefaultCpuSetMasks(process, masks,
						     mask_count);
	}
	os = ok ? OS_OK : status_of_win32(GetLastError());
	CloseHandle(process);
	free(ids);
	free(info);
	return os;
}

/* The process's default CPU Sets as processors, empty when it has none
 * ("If the process has no default CPU Sets ... RequiredIdCount is 0",
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-getprocessdefaultcpusets.md):
 * what a rule that places it gives back. */
enum os_status apply_place_process_read(pid_t pid, hwloc_bitmap_t set)
{
	const struct winapi *w = winapi_get();
	ULONG needed = 0, *ids;
	enum os_status os;
	HANDLE process;
	BOOL ok;

	hwloc_bitmap_zero(set);
	if (!w->GetProcessDefaultCpuSets)
		return status_of_win32(ERROR_NOT_SUPPORTED);
	process = procinfo_open(pid ? pid : procinfo_self(),
				PROCESS_QUERY_LIMITED_INFORMATION, &os);
	if (!process)
		return os;
	ok = w->GetProcessDefaultCpuSets(process, NULL, 0, &needed);
	if (!ok && GetLastError() == ERROR_INSUFFICIENT_BUFFER && needed) {
		ids = xcalloc(needed, sizeof(*ids));
		ok = w->GetProcessDefaultCpuSets(process, ids, needed, &needed);
		if (ok)
			apply_place_of_ids(ids, needed, set);
		free(ids);
	}
	os = ok ? OS_OK : status_of_win32(GetLastError());
	CloseHandle(process);
	return os;
}

/* The kinds of CPU by EfficiencyClass: "CPU Sets with higher numerical
 * values of this field have home processors that are faster but less
 * power-efficient than ones with lower values"
 * (sdk-api-src/content/winnt/ns-winnt-system_cpu_set_information.md),
 * lowest class first. hwloc's own kinds come from
 * GetLogicalProcessorInformationEx; this is what the CPU Sets a rule
 * hands over are ranked by. */
hwloc_bitmap_t *apply_place_kinds(size_t *count)
{
	ULONG len;
	struct winapi_cpu_set_info *info = apply_place_cpu_sets(&len);
	hwloc_bitmap_t by_class[256] = {NULL}, *kinds;

	*count = 0;
	if (!info)
		return NULL;
	APPLY_PLACE_FOR_EACH(e, info, len)
	{
		BYTE c = e->CpuSet.EfficiencyClass;

		if (!by_class[c])
			by_class[c] = hwloc_bitmap_alloc();
		hwloc_bitmap_set(by_class[c],
				 e->CpuSet.Group * APPLY_PLACE_GROUP_BITS +
					 e->CpuSet.LogicalProcessorIndex);
	}
	free(info);
	kinds = xcalloc(ARRAYSIZE(by_class), sizeof(*kinds));
	for (size_t c = 0; c < ARRAYSIZE(by_class); c++) {
		if (by_class[c])
			kinds[(*count)++] = by_class[c];
	}
	return kinds;
}

/* What a process may be given: every active processor of the machine.
 * A process starts in one processor group, but that is where Windows put
 * it, not a limit: SetThreadGroupAffinity moves its threads to any group
 * ("If a thread is assigned to a different group than the process, the
 * process's affinity is updated to include the thread's affinity",
 * https://learn.microsoft.com/windows/win32/procthread/processor-groups),
 * which is how spread = "group" deals a pool. A job's group limit
 * (JobObjectGroupInformationEx) is not read: a write outside it fails
 * and is logged. */
enum os_status apply_place_allowed(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	return apply_place_online(set);
}

/* Where the process runs now: its affinity mask in its one group, or
 * every active processor of each of its groups (all of them where
 * Windows 11 and Server 2022 span a process over the groups itself,
 * unless it narrowed itself to fewer). */
enum os_status apply_place_current(pid_t pid, hwloc_bitmap_t set)
{
	const struct winapi *w = winapi_get();
	USHORT groups[64], count = ARRAYSIZE(groups);
	DWORD_PTR mask, system;
	enum os_status os;
	HANDLE process;
	bool ok;

	hwloc_bitmap_zero(set);
	process = procinfo_open(pid, PROCESS_QUERY_LIMITED_INFORMATION, &os);
	if (!process)
		return os;
	ok = w->GetProcessGroupAffinity(process, &count, groups) && count > 0;
	if (!ok) {
		/* Wine has no GetProcessGroupAffinity, and one group. */
		groups[0] = 0;
		count = 1;
		ok = true;
	}
	if (count == 1) {
		ok = w->GetProcessAffinityMask(process, &mask, &system);
		if (ok)
			apply_place_add_mask(set, groups[0], mask);
	} else {
		for (USHORT i = 0; i < count; i++) {
			DWORD n = w->GetActiveProcessorCount(groups[i]);

			for (DWORD b = 0; b < n && b < APPLY_PLACE_GROUP_BITS;
			     b++)
				hwloc_bitmap_set(
					set,
					groups[i] * APPLY_PLACE_GROUP_BITS + b);
		}
	}
	os = !ok			? status_of_win32(GetLastError())
	     : hwloc_bitmap_iszero(set) ? OS_FAILED
					: OS_OK;
	CloseHandle(process);
	return os;
}

/* Active (online) or all (present, hot-add included) processors of every
 * group, as GetLogicalProcessorInformationEx(RelationGroup) lists them. */
static enum os_status apply_place_groups(hwloc_bitmap_t set, bool active)
{
	const struct winapi *w = winapi_get();
	DWORD len = 0;
	SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *info;

	hwloc_bitmap_zero(set);
	w->GetLogicalProcessorInformationEx(RelationGroup, NULL, &len);
	if (len == 0)
		return status_of_win32(GetLastError());
	info = xmalloc(len);
	if (!w->GetLogicalProcessorInformationEx(RelationGroup, info, &len)) {
		enum os_status os = status_of_win32(GetLastError());

		free(info);
		return os;
	}
	for (WORD g = 0; g < info->Group.ActiveGroupCount; g++) {
		const PROCESSOR_GROUP_INFO *gi = &info->Group.GroupInfo[g];

		if (active) {
			apply_place_add_mask(set, g, gi->ActiveProcessorMask);
		} else {
			for (BYTE b = 0; b < gi->MaximumProcessorCount &&
					 b < APPLY_PLACE_GROUP_BITS;
			     b++)
				hwloc_bitmap_set(
					set, g * APPLY_PLACE_GROUP_BITS + b);
		}
	}
	free(info);
	return hwloc_bitmap_iszero(set) ? OS_FAILED : OS_OK;
}

enum os_status apply_place_online(hwloc_bitmap_t set)
{
	return apply_place_groups(set, true);
}

enum os_status apply_place_present(hwloc_bitmap_t set)
{
	return apply_place_groups(set, false);
}
