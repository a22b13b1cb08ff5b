/* The listing of every process and thread (NtQuerySystemInformation's
 * SystemProcessInformation): Wine answers it from its own processes and
 * threads (Wine's dlls/ntdll/unix/system.c, SystemProcessInformation),
 * which are the ones the model's other calls name, so the model passes
 * it on and counts it: how many system-wide listings a scan takes. */
#include "model.h"

static LONG(NTAPI *model_procs_next)(ULONG, PVOID, ULONG, PULONG);

#define MODEL_SYSTEM_PROCESS_INFORMATION 5

static LONG NTAPI model_nt_query_system_information(ULONG klass, PVOID buf,
						    ULONG len, PULONG got)
{
	if (klass == MODEL_SYSTEM_PROCESS_INFORMATION)
		model_count(
			"NtQuerySystemInformation(SystemProcessInformation)");
	return model_procs_next(klass, buf, len, got);
}

void model_procs_install(struct winapi *w)
{
	if (!w->NtQuerySystemInformation ||
	    w->NtQuerySystemInformation == model_nt_query_system_information)
		return;
	model_procs_next = w->NtQuerySystemInformation;
	w->NtQuerySystemInformation = model_nt_query_system_information;
}
