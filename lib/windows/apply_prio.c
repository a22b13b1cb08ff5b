/* Windows: a process's priority class (SetPriorityClass), each thread's
 * relative priority (SetThreadPriority) and the process's EcoQoS
 * (SetProcessInformation with ProcessPowerThrottling, resolved at run
 * time: Wine and Windows before 10 1709 lack it). The class is the
 * process's: every thread's read shows it, and writing it for one thread
 * writes it for all, which is the same value for every thread of a rule.
 * I/O priority has no documented call for another process (only a
 * process's own, PROCESS_MODE_BACKGROUND_BEGIN), and check warns that
 * the io keys are not applied here. */
#include <errno.h>

#include "log.h"
#include "prio.h"
#include "win.h"
#include "winapi.h"

static const struct {
	enum rule_class class;
	DWORD windows;
} apply_prio_classes[] = {
	{RULE_CLASS_IDLE, IDLE_PRIORITY_CLASS},
	{RULE_CLASS_BELOW_NORMAL, BELOW_NORMAL_PRIORITY_CLASS},
	{RULE_CLASS_NORMAL, NORMAL_PRIORITY_CLASS},
	{RULE_CLASS_ABOVE_NORMAL, ABOVE_NORMAL_PRIORITY_CLASS},
	{RULE_CLASS_HIGH, HIGH_PRIORITY_CLASS},
	{RULE_CLASS_REALTIME, REALTIME_PRIORITY_CLASS},
};

DWORD apply_prio_class_of_state(const struct prio_state *state)
{
	enum rule_class class = prio_class_of_state(state);

	for (size_t i = 0; i < ARRAYSIZE(apply_prio_classes); i++) {
		if (apply_prio_classes[i].class == class)
			return apply_prio_classes[i].windows;
	}
	return NORMAL_PRIORITY_CLASS;
}

/* An unknown class (none other exists today) reads as normal. */
void apply_prio_state_of_class(DWORD klass, struct prio_state *state)
{
	enum rule_class class = RULE_CLASS_NORMAL;

	for (size_t i = 0; i < ARRAYSIZE(apply_prio_classes); i++) {
		if (apply_prio_classes[i].windows == klass)
			class = apply_prio_classes[i].class;
	}
	prio_state_of_class(class, state);
	state->windows = true;
}

/* UNSET where GetProcessInformation is not there (Wine, older Windows)
 * or does not answer for this process. */
static enum rule_efficiency apply_prio_efficiency(HANDLE process)
{
	const struct winapi *w = winapi_get();
	PROCESS_POWER_THROTTLING_STATE st = {
		.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION,
	};

	if (!w->GetProcessInformation ||
	    !w->GetProcessInformation(process, ProcessPowerThrottling, &st,
				      sizeof(st)))
		return RULE_EFFICIENCY_UNSET;
	return prio_efficiency_of_flags(st.ControlMask, st.StateMask);
}

/* 0 for either is the caller's, as on Linux (cpupolicyctl's own). */
static void apply_prio_self(pid_t *pid, pid_t *tid)
{
	if (!*pid)
		*pid = procinfo_self();
	if (!*tid)
		*tid = (pid_t)GetCurrentThreadId();
}

enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state)
{
	enum os_status os;
	HANDLE process, thread;
	DWORD klass;
	int level;

	*state = (struct prio_state){0};
	apply_prio_self(&pid, &tid);
	process = procinfo_open(pid, PROCESS_QUERY_LIMITED_INFORMATION, &os);
	if (!process)
		return os;
	klass = GetPriorityClass(process);
	if (!klass) {
		os = status_of_win32(GetLastError());
		CloseHandle(process);
		return os;
	}
	apply_prio_state_of_class(klass, state);
	state->efficiency = apply_prio_efficiency(process);
	CloseHandle(process);
	thread = procinfo_open_thread(tid, THREAD_QUERY_LIMITED_INFORMATION,
				      &os);
	if (!thread)
		return os;
	level = GetThreadPriority(thread);
	os = level == THREAD_PRIORITY_ERROR_RETURN
		     ? status_of_win32(GetLastError())
		     : OS_OK;
	CloseHandle(thread);
	state->thread_level = level;
	return os;
}

/* Without SeIncreaseBasePriorityPrivilege Windows sets HIGH for REALTIME
 * and says it succeeded: read back and say so. */
static enum os_status apply_prio_class(HANDLE process, DWORD klass)
{
	DWORD now;

	if (!SetPriorityClass(process, klass))
		return status_of_win32(GetLastError());
	now = GetPriorityClass(process);
	if (klass == REALTIME_PRIORITY_CLASS && now != klass) {
		log_once(log_warnx,
			 "class realtime needs %s, which cpupolicyd does not "
			 "hold: Windows gave the high class instead",
			 PRIO_WINDOWS_REALTIME_PRIVILEGE);
		errno = EPERM;
		return OS_DENIED;
	}
	return OS_OK;
}

/* Where the call is missing or refuses the information class (Wine 8
 * does), the rest of the rule still applies: said once. */
static enum os_status apply_prio_set_efficiency(HANDLE process,
						enum rule_efficiency mode)
{
	const struct winapi *w = winapi_get();
	PROCESS_POWER_THROTTLING_STATE st = {
		.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION,
	};
	unsigned long control, state;
	DWORD error;

	static bool unsupported;

	/* A knob this system lacks: said once, then not tried again. */
	if (unsupported)
		return OS_OK;
	prio_efficiency_flags(mode, &control, &state);
	st.ControlMask = (ULONG)control;
	st.StateMask = (ULONG)state;
	if (w->SetProcessInformation &&
	    w->SetProcessInformation(process, ProcessPowerThrottling, &st,
				     sizeof(st)))
		return OS_OK;
	error = w->SetProcessInformation ? GetLastError()
					 : ERROR_PROC_NOT_FOUND;
	if (error == ERROR_ACCESS_DENIED)
		return status_of_win32(error);
	unsupported = true;
	log_once(log_warnx,
		 "efficiency_mode cannot be set on this system "
		 "(SetProcessInformation(ProcessPowerThrottling): %s, error "
		 "%lu): the rest of each rule applies",
		 w->SetProcessInformation ? "refused" : "not there",
		 (unsigned long)error);
	return OS_OK;
}

/* Writes only what differs: the class, then the thread's level (which
 * Windows adds to the class's base), then the process's EcoQoS. A
 * failure of one does not keep the others from being tried; the first
 * failure is the answer. */
enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	enum os_status os = OS_OK, step;
	DWORD want_class = apply_prio_class_of_state(wanted);
	bool efficiency =
		wanted->efficiency && wanted->efficiency != now->efficiency;
	HANDLE process = NULL, thread;

	apply_prio_self(&pid, &tid);
	if (want_class != apply_prio_class_of_state(now) || efficiency) {
		process =
			procinfo_open(pid,
				      PROCESS_SET_INFORMATION |
					      PROCESS_QUERY_LIMITED_INFORMATION,
				      &os);
		if (!process)
			return os;
	}
	if (process && want_class != apply_prio_class_of_state(now))
		os = apply_prio_class(process, want_class);
	if (wanted->thread_level != now->thread_level) {
		/* THREAD_SET_INFORMATION is what Wine asks for;
		 * Windows also takes the limited right, which a
		 * protected process may grant when it refuses the
		 * other. */
		thread = procinfo_open_thread(
			tid,
			THREAD_SET_INFORMATION |
				THREAD_QUERY_LIMITED_INFORMATION,
			&step);
		if (!thread && step == OS_DENIED)
			thread = procinfo_open_thread(
				tid,
				THREAD_SET_LIMITED_INFORMATION |
					THREAD_QUERY_LIMITED_INFORMATION,
				&step);
		if (thread) {
			if (!SetThreadPriority(thread, wanted->thread_level))
				step = status_of_win32(GetLastError());
			CloseHandle(thread);
		}
		if (os == OS_OK)
			os = step;
	}
	if (process && efficiency) {
		step = apply_prio_set_efficiency(process, wanted->efficiency);
		if (os == OS_OK)
			os = step;
	}
	if (process)
		CloseHandle(process);
	return os;
}
