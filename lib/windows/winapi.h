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

#include <aclapi.h>
#include <evntrace.h>

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
/* ProcessIoPriority, an IO_PRIORITY_HINT as a ULONG (IoPriorityVeryLow
 * 0, Low 1, Normal 2, High 3, Critical 4): not in Microsoft's SDK; the
 * class number and its type are phnt's (ntpsapi.h, "ProcessIoPriority,
 * // qs: IO_PRIORITY_HINT"), the same in ReactOS's ps/query.c, and
 * stable since Vista. */
#define WINAPI_PROCESS_IO_PRIORITY		33
#define WINAPI_PROCESS_COMMAND_LINE_INFORMATION 60

/* The table: every Win32 and NT call whose behaviour Wine does not show
 * (processor groups, CPU Sets, power schemes and the overlay, power
 * throttling, the registry across reboots, owners and DACLs, pipe
 * instances, the ETW session), each declared as Microsoft declares it.
 * The backend calls these through winapi_get() only; winapi_init fills
 * them from the system's DLLs, and the tests' model of Windows
 * (tests/windows/model/) overwrites them after it. */
struct winapi {
	/* Processor groups and topology (kernel32; Wine answers for one
	 * group). */
	BOOL(WINAPI *GetProcessGroupAffinity)
	(HANDLE hProcess, PUSHORT GroupCount, PUSHORT GroupArray);
	BOOL(WINAPI *GetThreadGroupAffinity)
	(HANDLE hThread, PGROUP_AFFINITY GroupAffinity);
	BOOL(WINAPI *SetThreadGroupAffinity)
	(HANDLE hThread, const GROUP_AFFINITY *GroupAffinity,
	 PGROUP_AFFINITY PreviousGroupAffinity);
	BOOL(WINAPI *GetProcessAffinityMask)
	(HANDLE hProcess, PDWORD_PTR lpProcessAffinityMask,
	 PDWORD_PTR lpSystemAffinityMask);
	DWORD(WINAPI *GetActiveProcessorCount)(WORD GroupNumber);
	DWORD(WINAPI *GetMaximumProcessorCount)(WORD GroupNumber);
	WORD(WINAPI *GetActiveProcessorGroupCount)(void);
	BOOL(WINAPI *GetLogicalProcessorInformationEx)
	(LOGICAL_PROCESSOR_RELATIONSHIP RelationshipType,
	 PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX Buffer,
	 PDWORD ReturnedLength);

	/* CPU Sets (Windows 10; resolved). */
	BOOL(WINAPI *GetSystemCpuSetInformation)
	(struct winapi_cpu_set_info *Information, ULONG BufferLength,
	 PULONG ReturnedLength, HANDLE Process, ULONG Flags);
	BOOL(WINAPI *SetProcessDefaultCpuSets)
	(HANDLE Process, const ULONG *CpuSetIds, ULONG CpuSetIdCount);
	BOOL(WINAPI *GetProcessDefaultCpuSets)
	(HANDLE Process, PULONG CpuSetIds, ULONG CpuSetIdCount,
	 PULONG RequiredIdCount);
	/* Windows 11 and Server 2022: sets that span groups. */
	BOOL(WINAPI *SetProcessDefaultCpuSetMasks)
	(HANDLE Process, PGROUP_AFFINITY CpuSetMasks, USHORT CpuSetMaskCount);
	BOOL(WINAPI *SetThreadSelectedCpuSets)
	(HANDLE Thread, const ULONG *CpuSetIds, ULONG CpuSetIdCount);
	BOOL(WINAPI *GetThreadSelectedCpuSets)
	(HANDLE Thread, PULONG CpuSetIds, ULONG CpuSetIdCount,
	 PULONG RequiredIdCount);

	/* Power throttling (ProcessPowerThrottling; resolved). */
	BOOL(WINAPI *GetProcessInformation)
	(HANDLE hProcess, PROCESS_INFORMATION_CLASS ProcessInformationClass,
	 LPVOID ProcessInformation, DWORD ProcessInformationSize);
	BOOL(WINAPI *SetProcessInformation)
	(HANDLE hProcess, PROCESS_INFORMATION_CLASS ProcessInformationClass,
	 LPVOID ProcessInformation, DWORD ProcessInformationSize);

	/* Power schemes (powrprof.dll, loaded apart; Wine 8 lacks the
	 * value index calls and the overlay ones). */
	DWORD(WINAPI *PowerGetActiveScheme)
	(HKEY UserRootPowerKey, GUID **ActivePolicyGuid);
	DWORD(WINAPI *PowerSetActiveScheme)
	(HKEY UserRootPowerKey, const GUID *SchemeGuid);
	DWORD(WINAPI *PowerReadACValueIndex)
	(HKEY RootPowerKey, const GUID *SchemeGuid,
	 const GUID *SubGroupOfPowerSettingsGuid, const GUID *PowerSettingGuid,
	 LPDWORD AcValueIndex);
	DWORD(WINAPI *PowerReadDCValueIndex)
	(HKEY RootPowerKey, const GUID *SchemeGuid,
	 const GUID *SubGroupOfPowerSettingsGuid, const GUID *PowerSettingGuid,
	 LPDWORD DcValueIndex);
	DWORD(WINAPI *PowerWriteACValueIndex)
	(HKEY RootPowerKey, const GUID *SchemeGuid,
	 const GUID *SubGroupOfPowerSettingsGuid, const GUID *PowerSettingGuid,
	 DWORD AcValueIndex);
	DWORD(WINAPI *PowerWriteDCValueIndex)
	(HKEY RootPowerKey, const GUID *SchemeGuid,
	 const GUID *SubGroupOfPowerSettingsGuid, const GUID *PowerSettingGuid,
	 DWORD DcValueIndex);
	/* The power mode overlay: not in the SDK's headers; powrprof.dll
	 * exports them from Windows 10 1709 (declared as in
	 * powersetting.h of later SDKs). */
	DWORD(WINAPI *PowerGetEffectiveOverlayScheme)
	(GUID *EffectiveOverlayGuid);
	DWORD(WINAPI *PowerGetActualOverlayScheme)(GUID *ActualOverlayGuid);
	DWORD(WINAPI *PowerSetActiveOverlayScheme)(GUID OverlaySchemeGuid);
	/* The power source: which of a setting's values is in force. */
	BOOL(WINAPI *GetSystemPowerStatus)
	(LPSYSTEM_POWER_STATUS lpSystemPowerStatus);

	/* The registry (IFEO values, which outlive a reboot). */
	LSTATUS(WINAPI *RegCreateKeyExW)
	(HKEY hKey, LPCWSTR lpSubKey, DWORD Reserved, LPWSTR lpClass,
	 DWORD dwOptions, REGSAM samDesired,
	 const LPSECURITY_ATTRIBUTES lpSecurityAttributes, PHKEY phkResult,
	 LPDWORD lpdwDisposition);
	LSTATUS(WINAPI *RegOpenKeyExW)
	(HKEY hKey, LPCWSTR lpSubKey, DWORD ulOptions, REGSAM samDesired,
	 PHKEY phkResult);
	LSTATUS(WINAPI *RegSetValueExW)
	(HKEY hKey, LPCWSTR lpValueName, DWORD Reserved, DWORD dwType,
	 const BYTE *lpData, DWORD cbData);
	LSTATUS(WINAPI *RegQueryValueExW)
	(HKEY hKey, LPCWSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
	 LPBYTE lpData, LPDWORD lpcbData);
	LSTATUS(WINAPI *RegDeleteValueW)(HKEY hKey, LPCWSTR lpValueName);
	LSTATUS(WINAPI *RegDeleteKeyExW)
	(HKEY hKey, LPCWSTR lpSubKey, REGSAM samDesired, DWORD Reserved);
	LSTATUS(WINAPI *RegEnumValueW)
	(HKEY hKey, DWORD dwIndex, LPWSTR lpValueName, LPDWORD lpcchValueName,
	 LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData);
	LSTATUS(WINAPI *RegQueryInfoKeyW)
	(HKEY hKey, LPWSTR lpClass, LPDWORD lpcchClass, LPDWORD lpReserved,
	 LPDWORD lpcSubKeys, LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen,
	 LPDWORD lpcValues, LPDWORD lpcbMaxValueNameLen,
	 LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
	 PFILETIME lpftLastWriteTime);
	LSTATUS(WINAPI *RegFlushKey)(HKEY hKey);
	LSTATUS(WINAPI *RegCloseKey)(HKEY hKey);

	/* Owners and DACLs (Wine keeps few). */
	DWORD(WINAPI *GetSecurityInfo)
	(HANDLE handle, SE_OBJECT_TYPE ObjectType,
	 SECURITY_INFORMATION SecurityInfo, PSID *ppsidOwner, PSID *ppsidGroup,
	 PACL *ppDacl, PACL *ppSacl,
	 PSECURITY_DESCRIPTOR *ppSecurityDescriptor);
	DWORD(WINAPI *GetNamedSecurityInfoW)
	(LPCWSTR pObjectName, SE_OBJECT_TYPE ObjectType,
	 SECURITY_INFORMATION SecurityInfo, PSID *ppsidOwner, PSID *ppsidGroup,
	 PACL *ppDacl, PACL *ppSacl,
	 PSECURITY_DESCRIPTOR *ppSecurityDescriptor);
	BOOL(WINAPI *GetAce)(PACL pAcl, DWORD dwAceIndex, LPVOID *pAce);

	/* Named pipes: instances and their server. */
	HANDLE(WINAPI *CreateNamedPipeW)
	(LPCWSTR lpName, DWORD dwOpenMode, DWORD dwPipeMode,
	 DWORD nMaxInstances, DWORD nOutBufferSize, DWORD nInBufferSize,
	 DWORD nDefaultTimeOut, LPSECURITY_ATTRIBUTES lpSecurityAttributes);
	BOOL(WINAPI *GetNamedPipeServerProcessId)
	(HANDLE Pipe, PULONG ServerProcessId);

	/* The ETW session (Wine starts none that delivers kernel
	 * events). */
	ULONG(WINAPI *StartTraceW)
	(PTRACEHANDLE TraceHandle, LPCWSTR InstanceName,
	 PEVENT_TRACE_PROPERTIES Properties);
	ULONG(WINAPI *ControlTraceW)
	(TRACEHANDLE TraceHandle, LPCWSTR InstanceName,
	 PEVENT_TRACE_PROPERTIES Properties, ULONG ControlCode);
	ULONG(WINAPI *EnableTraceEx2)
	(TRACEHANDLE TraceHandle, LPCGUID ProviderId, ULONG ControlCode,
	 UCHAR Level, ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword,
	 ULONG Timeout, PENABLE_TRACE_PARAMETERS EnableParameters);
	TRACEHANDLE(WINAPI *OpenTraceW)(PEVENT_TRACE_LOGFILEW Logfile);
	ULONG(WINAPI *ProcessTrace)
	(PTRACEHANDLE HandleArray, ULONG HandleCount, LPFILETIME StartTime,
	 LPFILETIME EndTime);
	ULONG(WINAPI *CloseTrace)(TRACEHANDLE TraceHandle);

	/* NT calls (ntdll) and the rest resolved at run time. */
	LONG(NTAPI *NtQueryInformationProcess)
	(HANDLE ProcessHandle, ULONG ProcessInformationClass,
	 PVOID ProcessInformation, ULONG ProcessInformationLength,
	 PULONG ReturnLength);
	/* ProcessIoPriority's setter (WINAPI_PROCESS_IO_PRIORITY). */
	LONG(NTAPI *NtSetInformationProcess)
	(HANDLE ProcessHandle, ULONG ProcessInformationClass,
	 PVOID ProcessInformation, ULONG ProcessInformationLength);
	LONG(NTAPI *NtQuerySystemInformation)
	(ULONG SystemInformationClass, PVOID SystemInformation,
	 ULONG SystemInformationLength, PULONG ReturnLength);
	/* Windows 7: the same, for one processor group (a USHORT in). */
	LONG(NTAPI *NtQuerySystemInformationEx)
	(ULONG SystemInformationClass, PVOID InputBuffer,
	 ULONG InputBufferLength, PVOID SystemInformation,
	 ULONG SystemInformationLength, PULONG ReturnLength);
	/* Windows 10 1607; Wine 8 lacks it. */
	HRESULT(WINAPI *GetThreadDescription)
	(HANDLE hThread, PWSTR *ppszThreadDescription);
	/* The system's version, where GetVersionEx answers for the
	 * manifest. */
	LONG(NTAPI *RtlGetVersion)(OSVERSIONINFOW *lpVersionInformation);
};

/* winapi.c: the table, filled once by winapi_init (winapi_get calls it
 * on its first use; the model of Windows calls it before it overwrites
 * the table). A pointer left NULL is a call this Windows (or Wine) does
 * not have. */
extern struct winapi winapi;
void winapi_init(void);
const struct winapi *winapi_get(void);
void *winapi_proc(HMODULE module, const char *name);

#endif
