/* The calls of winapi.h resolved at run time: from kernelbase.dll where
 * Windows 10 puts them (kernel32.dll forwards to it), else kernel32.dll;
 * the NT calls from ntdll.dll. Each may stay NULL. */
#include "winapi.h"

static struct winapi winapi_table;
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

static BOOL CALLBACK winapi_resolve(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	HMODULE base = GetModuleHandleW(L"kernelbase.dll");
	HMODULE k32 = GetModuleHandleW(L"kernel32.dll");
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	struct winapi *w = &winapi_table;

	(void)once;
	(void)param;
	(void)ctx;
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
	w->NtQueryInformationProcess =
		winapi_proc(nt, "NtQueryInformationProcess");
	w->NtQuerySystemInformation =
		winapi_proc(nt, "NtQuerySystemInformation");
	w->NtQuerySystemInformationEx =
		winapi_proc(nt, "NtQuerySystemInformationEx");
	w->GetThreadDescription =
		winapi_kernel(base, k32, "GetThreadDescription");
	w->RtlGetVersion = winapi_proc(nt, "RtlGetVersion");
	return TRUE;
}

const struct winapi *winapi_get(void)
{
	InitOnceExecuteOnce(&winapi_once, winapi_resolve, NULL, NULL);
	return &winapi_table;
}
