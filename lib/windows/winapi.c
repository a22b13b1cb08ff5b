/* The table of winapi.h, filled once: the calls every supported Windows
 * and Wine export by their addresses (a static import), those Wine or an
 * older Windows lacks from kernelbase.dll where Windows 10 puts them
 * (kernel32.dll forwards to it) or kernel32.dll, the NT calls from
 * ntdll.dll, the power calls from powrprof.dll, loaded apart. Each of
 * those may stay NULL. */
#include "winapi.h"

struct winapi winapi;
static INIT_ONCE winapi_once = INIT_ONCE_STATIC_INIT;

/* A FARPROC to a function pointer of another type: through a union, as
 * casting between function pointer types is what -Wcast-function-type
 * is about, and GetProcAddress's result needs it by design. */
void *winapi_proc(HMODULE module, const char *name)
{
	union {
		FARPROC proc;
		void *p;
	} u;

	if (!module)
		return NULL;
	u.proc = GetProcAddress(module, name);
	return u.p;
}

static void *winapi_kernel(HMODULE base, HMODULE k32, const char *name)
{
	void *p = winapi_proc(base, name);

	return p ? p : winapi_proc(k32, name);
}

/* The calls every Windows from 7 and Wine export. */
static void winapi_static(struct winapi *w)
{
	w->GetProcessGroupAffinity = GetProcessGroupAffinity;
	w->GetThreadGroupAffinity = GetThreadGroupAffinity;
	w->SetThreadGroupAffinity = SetThreadGroupAffinity;
	w->GetProcessAffinityMask = GetProcessAffinityMask;
	w->GetActiveProcessorCount = GetActiveProcessorCount;
	w->GetMaximumProcessorCount = GetMaximumProcessorCount;
	w->GetActiveProcessorGroupCount = GetActiveProcessorGroupCount;
	w->GetLogicalProcessorInformationEx = GetLogicalProcessorInformationEx;
	w->GetSystemPowerStatus = GetSystemPowerStatus;
	w->RegCreateKeyExW = RegCreateKeyExW;
	w->RegOpenKeyExW = RegOpenKeyExW;
	w->RegSetValueExW = RegSetValueExW;
	w->RegQueryValueExW = RegQueryValueExW;
	w->RegDeleteValueW = RegDeleteValueW;
	w->RegDeleteKeyExW = RegDeleteKeyExW;
	w->RegEnumValueW = RegEnumValueW;
	w->RegQueryInfoKeyW = RegQueryInfoKeyW;
	w->RegFlushKey = RegFlushKey;
	w->RegCloseKey = RegCloseKey;
	w->GetSecurityInfo = GetSecurityInfo;
	w->GetNamedSecurityInfoW = GetNamedSecurityInfoW;
	w->GetAce = GetAce;
	w->CreateNamedPipeW = CreateNamedPipeW;
	w->GetNamedPipeServerProcessId = GetNamedPipeServerProcessId;
	w->StartTraceW = StartTraceW;
	w->ControlTraceW = ControlTraceW;
	w->EnableTraceEx2 = EnableTraceEx2;
	w->OpenTraceW = OpenTraceW;
	w->ProcessTrace = ProcessTrace;
	w->CloseTrace = CloseTrace;
}

static void winapi_kernelbase(struct winapi *w)
{
	HMODULE base = GetModuleHandleW(L"kernelbase.dll");
	HMODULE k32 = GetModuleHandleW(L"kernel32.dll");

	w->GetSystemCpuSetInformation =
		winapi_kernel(base, k32, "GetSystemCpuSetInformation");
	w->SetProcessDefaultCpuSets =
		winapi_kernel(base, k32, "SetProcessDefaultCpuSets");
	w->GetProcessDefaultCpuSets =
		winapi_kernel(base, k32, "GetProcessDefaultCpuSets");
	w->SetProcessDefaultCpuSetMasks =
		winapi_kernel(base, k32, "SetProcessDefaultCpuSetMasks");
	w->SetThreadSelectedCpuSets =
		winapi_kernel(base, k32, "SetThreadSelectedCpuSets");
	w->GetThreadSelectedCpuSets =
		winapi_kernel(base, k32, "GetThreadSelectedCpuSets");
	w->GetProcessInformation =
		winapi_kernel(base, k32, "GetProcessInformation");
	w->SetProcessInformation =
		winapi_kernel(base, k32, "SetProcessInformation");
	w->GetThreadDescription =
		winapi_kernel(base, k32, "GetThreadDescription");
}

static void winapi_ntdll(struct winapi *w)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	w->NtQueryInformationProcess =
		winapi_proc(nt, "NtQueryInformationProcess");
	w->NtSetInformationProcess = winapi_proc(nt, "NtSetInformationProcess");
	w->NtQuerySystemInformation =
		winapi_proc(nt, "NtQuerySystemInformation");
	w->NtQuerySystemInformationEx =
		winapi_proc(nt, "NtQuerySystemInformationEx");
	w->RtlGetVersion = winapi_proc(nt, "RtlGetVersion");
}

static void winapi_powrprof(struct winapi *w)
{
	HMODULE dll = LoadLibraryExW(L"powrprof.dll", NULL,
				     LOAD_LIBRARY_SEARCH_SYSTEM32);

	if (!dll)
		dll = LoadLibraryW(L"powrprof.dll"); /* before KB2533623 */
	w->PowerGetActiveScheme = winapi_proc(dll, "PowerGetActiveScheme");
	w->PowerSetActiveScheme = winapi_proc(dll, "PowerSetActiveScheme");
	w->PowerReadACValueIndex = winapi_proc(dll, "PowerReadACValueIndex");
	w->PowerReadDCValueIndex = winapi_proc(dll, "PowerReadDCValueIndex");
	w->PowerWriteACValueIndex = winapi_proc(dll, "PowerWriteACValueIndex");
	w->PowerWriteDCValueIndex = winapi_proc(dll, "PowerWriteDCValueIndex");
	w->PowerGetEffectiveOverlayScheme =
		winapi_proc(dll, "PowerGetEffectiveOverlayScheme");
	w->PowerGetActualOverlayScheme =
		winapi_proc(dll, "PowerGetActualOverlayScheme");
	w->PowerSetActiveOverlayScheme =
		winapi_proc(dll, "PowerSetActiveOverlayScheme");
}

static BOOL CALLBACK winapi_resolve(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	(void)once;
	(void)param;
	(void)ctx;
	winapi_static(&winapi);
	winapi_kernelbase(&winapi);
	winapi_ntdll(&winapi);
	winapi_powrprof(&winapi);
	return TRUE;
}

void winapi_init(void)
{
	InitOnceExecuteOnce(&winapi_once, winapi_resolve, NULL, NULL);
}

const struct winapi *winapi_get(void)
{
	winapi_init();
	return &winapi;
}
