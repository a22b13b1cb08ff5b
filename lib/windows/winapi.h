/* What the mingw-w64 headers lack of the Windows API the backend uses, and
 * the calls resolved at run time (winapi_init) because Wine or an older
 * Windows does not export them: a static import of a missing function
 * keeps the .exe from loading at all. A pointer left NULL means the call
 * is not there; each user says what it does without. (libuv's
 * src/win/winapi.h is the model.) */
#ifndef CPUPOLICY_WINAPI_H
#define CPUPOLICY_WINAPI_H

#include <windows.h>
#include <winternl.h>

/* Windows 10: CPU Sets (processtopologyapi.h lacks them). */
#ifndef CPU_SET_INFORMATION_TYPE_DEFINED
#define CPU_SET_INFORMATION_TYPE_DEFINED
typedef enum _CPU_SET_INFORMATION_TYPE {
	CpuSetInformation,
} CPU_SET_INFORMATION_TYPE;
#endif

struct winapi_cpu_set {
	DWORD Id;
	WORD Group;
	BYTE LogicalProcessorIndex;
	BYTE CoreIndex;
	BYTE LastLevelCacheIndex;
	BYTE NumaNodeIndex;
	BYTE EfficiencyClass;
	BYTE AllFlags; /* Parked 1, Allocated 2, AllocatedToTargetProcess 4,
			* RealTime 8 */
	union {
		DWORD Reserved;
		BYTE SchedulingClass;
	};
	DWORD64 AllocationTag;
};

/* SYSTEM_CPU_SET_INFORMATION: a Size first, then the one CpuSet member;
 * entries are walked by Size, which a later Windows may grow. */
struct winapi_cpu_set_info {
	DWORD Size;
	CPU_SET_INFORMATION_TYPE Type;
	struct winapi_cpu_set CpuSet;
};

/* NtQuerySystemInformation: one entry per logical processor, 100 ns
 * units; KernelTime includes IdleTime. */
struct winapi_processor_times {
	LARGE_INTEGER IdleTime;
	LARGE_INTEGER KernelTime;
	LARGE_INTEGER UserTime;
	LARGE_INTEGER DpcTime;
	LARGE_INTEGER InterruptTime;
	ULONG InterruptCount;
};

/* Windows 10's access right for SetProcessDefaultCpuSets. */
#ifndef PROCESS_SET_LIMITED_INFORMATION
#define PROCESS_SET_LIMITED_INFORMATION 0x2000
#endif

#define WINAPI_SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION 8
#define WINAPI_PROCESS_COMMAND_LINE_INFORMATION		60

typedef BOOL(WINAPI *winapi_get_system_cpu_set_information_fn)(
	struct winapi_cpu_set_info *info, ULONG length, PULONG returned,
	HANDLE process, ULONG flags);
typedef BOOL(WINAPI *winapi_set_process_default_cpu_sets_fn)(HANDLE process,
							     const ULONG *ids,
							     ULONG count);
typedef BOOL(WINAPI *winapi_get_process_default_cpu_sets_fn)(HANDLE process,
							     PULONG ids,
							     ULONG count,
							     PULONG needed);
typedef BOOL(WINAPI *winapi_set_process_default_cpu_set_masks_fn)(
	HANDLE process, const GROUP_AFFINITY *masks, USHORT count);
typedef BOOL(WINAPI *winapi_set_thread_selected_cpu_sets_fn)(HANDLE thread,
							     const ULONG *ids,
							     ULONG count);
typedef BOOL(WINAPI *winapi_get_thread_selected_cpu_sets_fn)(HANDLE thread,
							     PULONG ids,
							     ULONG count,
							     PULONG needed);
typedef BOOL(WINAPI *winapi_process_information_fn)(
	HANDLE process, PROCESS_INFORMATION_CLASS klass, LPVOID info,
	DWORD size);
typedef LONG(NTAPI *winapi_nt_query_information_process_fn)(
	HANDLE process, ULONG klass, PVOID info, ULONG length, PULONG returned);
typedef LONG(NTAPI *winapi_nt_query_system_information_fn)(ULONG klass,
							   PVOID info,
							   ULONG length,
							   PULONG returned);

typedef LONG(NTAPI *winapi_nt_query_system_information_ex_fn)(
	ULONG klass, PVOID input, ULONG input_length, PVOID info, ULONG length,
	PULONG returned);
typedef HRESULT(WINAPI *winapi_get_thread_description_fn)(HANDLE thread,
							  PWSTR *text);
typedef LONG(NTAPI *winapi_rtl_get_version_fn)(OSVERSIONINFOW *version);

struct winapi {
	winapi_get_system_cpu_set_information_fn GetSystemCpuSetInformation;
	winapi_set_process_default_cpu_sets_fn SetProcessDefaultCpuSets;
	winapi_get_process_default_cpu_sets_fn GetProcessDefaultCpuSets;
	/* Windows 11 and Server 2022: sets that span groups. */
	winapi_set_process_default_cpu_set_masks_fn
		SetProcessDefaultCpuSetMasks;
	winapi_set_thread_selected_cpu_sets_fn SetThreadSelectedCpuSets;
	winapi_get_thread_selected_cpu_sets_fn GetThreadSelectedCpuSets;
	winapi_process_information_fn GetProcessInformation;
	winapi_process_information_fn SetProcessInformation;
	winapi_nt_query_information_process_fn NtQueryInformationProcess;
	winapi_nt_query_system_information_fn NtQuerySystemInformation;
	/* Windows 7: the same, for one processor group (a USHORT in). */
	winapi_nt_query_system_information_ex_fn NtQuerySystemInformationEx;
	/* Windows 10 1607; Wine 8 lacks it. */
	winapi_get_thread_description_fn GetThreadDescription;
	/* The system's version, where GetVersionEx answers for the
	 * manifest. */
	winapi_rtl_get_version_fn RtlGetVersion;
};

/* winapi.c: resolved once, on the first call; never NULL itself. A call
 * of a module loaded apart (powrprof.dll): NULL where it is missing. */
const struct winapi *winapi_get(void);
void *winapi_proc(HMODULE module, const char *name);

#endif
