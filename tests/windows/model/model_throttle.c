/* ProcessPowerThrottling (EcoQoS): the state set per process, and the
 * errors each Windows version gives. */
#include "model.h"

/* GetProcessInformation(ProcessPowerThrottling) answers only from
 * Windows 11 22H2 on; before, it fails with ERROR_INVALID_PARAMETER.
 * Microsoft's page lists the class without saying so; the source is
 * Microsoft Q&A ("GetProcessInformation ProcessPowerThrottling returns
 * ERROR_INVALID_PARAMETER", learn.microsoft.com/answers) -- not the
 * reference's word. Server 2019 (1809) and Server 2022 (21H2) are before
 * it, as Windows 10 22H2 is.
 * sdk-api-src/content/processthreadsapi/nf-processthreadsapi-getprocessinformation.md
 */
static bool model_throttle_readable(void)
{
	return model_config()->version == MODEL_WINDOWS_11_24H2;
}

/* The size must be the structure's and Version
 * PROCESS_POWER_THROTTLING_CURRENT_VERSION; ControlMask names what the
 * caller controls, StateMask which of those are on ("a bit set in
 * ControlMask and clear in StateMask turns the policy off").
 * sdk-api-src/content/processthreadsapi/ns-processthreadsapi-process_power_throttling_state.md
 */
static bool model_throttle_valid(PROCESS_INFORMATION_CLASS klass, LPVOID info,
				 DWORD size)
{
	const PROCESS_POWER_THROTTLING_STATE *st = info;

	return klass == ProcessPowerThrottling && size == sizeof(*st) &&
	       st->Version == PROCESS_POWER_THROTTLING_CURRENT_VERSION &&
	       !(st->StateMask & ~st->ControlMask);
}

static BOOL WINAPI
model_set_process_information(HANDLE process, PROCESS_INFORMATION_CLASS klass,
			      LPVOID info, DWORD size)
{
	struct model_process *p = model_process(model_pid_of(process));
	DWORD refuse;

	model_count("SetProcessInformation");
	if (!p || !model_throttle_valid(klass, info, size)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	if (p->throttle_refuse) {
		refuse = p->throttle_refuse;
		p->throttle_refuse = 0;
		SetLastError(refuse);
		return FALSE;
	}
	p->throttle = *(PROCESS_POWER_THROTTLING_STATE *)info;
	p->throttle_set = true;
	return TRUE;
}

/* Unset: the system manages it (ControlMask 0). */
static BOOL WINAPI
model_get_process_information(HANDLE process, PROCESS_INFORMATION_CLASS klass,
			      LPVOID info, DWORD size)
{
	struct model_process *p = model_process(model_pid_of(process));
	PROCESS_POWER_THROTTLING_STATE *st = info;

	model_count("GetProcessInformation");
	if (!p || !model_throttle_readable() ||
	    !model_throttle_valid(klass, info, size)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	st->ControlMask = p->throttle_set ? p->throttle.ControlMask : 0;
	st->StateMask = p->throttle_set ? p->throttle.StateMask : 0;
	return TRUE;
}

bool model_throttle_of(DWORD pid, PROCESS_POWER_THROTTLING_STATE *state)
{
	struct model_process *p = model_process(pid);

	if (!p || !p->throttle_set)
		return false;
	*state = p->throttle;
	return true;
}

void model_throttle_refuse(DWORD pid, DWORD error)
{
	struct model_process *p = model_process(pid);

	if (p)
		p->throttle_refuse = error;
}

void model_throttle_install(struct winapi *w)
{
	w->SetProcessInformation = model_set_process_information;
	w->GetProcessInformation = model_get_process_information;
}
