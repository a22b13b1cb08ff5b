/* Windows: a process's priority class (SetPriorityClass), each thread's
 * relative priority (SetThreadPriority), the process's EcoQoS
 * (SetProcessInformation with ProcessPowerThrottling, resolved at run
 * time: Wine and Windows before 10 1709 lack it), its memory priority
 * (ProcessMemoryPriority, documented) and its I/O priority
 * (NtSetInformationProcess with ProcessIoPriority: undocumented, as
 * nothing documented sets another process's, but stable since Vista and
 * what every process manager uses). All but the thread level are the
 * process's: every thread's read shows them, and writing them for one
 * thread writes them for all, the same values for every thread of a
 * rule. */
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
 * or does not answer: before Windows 11 22H2 it fails with
 * ERROR_INVALID_PARAMETER for this class (model_throttle.c has the
 * source), and the portable caller then records the original as the OS
 * default (prio_original_default). Not "system" here: a read that
 * answered the default whatever the process holds would make a restore
 * after the rule's write look needless. */
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

static const struct {
	enum rule_memory memory;
	ULONG windows;
} apply_prio_memories[] = {
	{RULE_MEMORY_VERY_LOW, MEMORY_PRIORITY_VERY_LOW},
	{RULE_MEMORY_LOW, MEMORY_PRIORITY_LOW},
	{RULE_MEMORY_MEDIUM, MEMORY_PRIORITY_MEDIUM},
	{RULE_MEMORY_BELOW_NORMAL, MEMORY_PRIORITY_BELOW_NORMAL},
	{RULE_MEMORY_NORMAL, MEMORY_PRIORITY_NORMAL},
};

/* UNSET where it cannot be read (Wine): then it is not set either. */
static enum rule_memory apply_prio_memory(HANDLE process)
{
	const struct winapi *w = winapi_get();
	MEMORY_PRIORITY_INFORMATION info = {0};

	if (!w->GetProcessInformation ||
	    !w->GetProcessInformation(process, ProcessMemoryPriority, &info,
				      sizeof(info)))
		return RULE_MEMORY_UNSET;
	for (size_t i = 0; i < ARRAYSIZE(apply_prio_memories); i++) {
		if (apply_prio_memories[i].windows == info.MemoryPriority)
			return apply_prio_memories[i].memory;
	}
	return RULE_MEMORY_UNSET;
}

/* The I/O priority as prio_io_of_hint reads it; left UNSET where it
 * cannot be read, and then not set either. */
static void apply_prio_io(HANDLE process, struct prio_state *state)
{
	const struct winapi *w = winapi_get();
	ULONG hint = 0;

	if (!w->NtQueryInformationProcess ||
	    w->NtQueryInformationProcess(process, WINAPI_PROCESS_IO_PRIORITY,
					 &hint, sizeof(hint), NULL) < 0 ||
	    !prio_io_of_hint((int)hint, &state->io_class, &state->io_level)) {
		state->io_class = RULE_IO_CLASS_UNSET;
		state->io_level = 0;
	}
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
	state->memory = apply_prio_memory(process);
	apply_prio_io(process, state);
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

/* Where the call is missing (Wine, Windows before 10 1709) the system
 * lacks it: said once, the rest of each rule applies. A refusal is this
 * process's answer at this moment (one exiting, a protected one, Wine's
 * refusal of the class), not the system's: said once, and the next write
 * (another thread, another process, the next rescan) tries again, as
 * one refusal says nothing of the next. Access denied is a denial, as
 * for the class. */
static enum os_status apply_prio_set_efficiency(HANDLE process,
						enum rule_efficiency mode)
{
	const struct winapi *w = winapi_get();
	PROCESS_POWER_THROTTLING_STATE st = {
		.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION,
	};
	unsigned long control, state;
	DWORD error;

	if (!w->SetProcessInformation) {
		log_once(log_warnx,
			 "efficiency_mode cannot be set on this system "
			 "(SetProcessInformation is not there): the rest of "
			 "each rule applies");
		return OS_OK;
	}
	prio_efficiency_flags(mode, &control, &state);
	st.ControlMask = (ULONG)control;
	st.StateMask = (ULONG)state;
	if (w->SetProcessInformation(process, ProcessPowerThrottling, &st,
				     sizeof(st)))
		return OS_OK;
	error = GetLastError();
	if (error == ERROR_ACCESS_DENIED)
		return status_of_win32(error);
	log_once(log_warnx,
		 "efficiency_mode refused for pid %lu "
		 "(SetProcessInformation(ProcessPowerThrottling): error %lu): "
		 "the rest of the rule applies, and it is tried again",
		 (unsigned long)GetProcessId(process), (unsigned long)error);
	log_debug("pid %lu: efficiency_mode refused (error %lu)",
		  (unsigned long)GetProcessId(process), (unsigned long)error);
	return OS_OK;
}

/* MEMORY_PRIORITY_INFORMATION through SetProcessInformation
 * (ProcessMemoryPriority, Windows 8 on). */
static enum os_status apply_prio_set_memory(HANDLE process,
					    enum rule_memory memory)
{
	const struct winapi *w = winapi_get();
	MEMORY_PRIORITY_INFORMATION info = {0};

	for (size_t i = 0; i < ARRAYSIZE(apply_prio_memories); i++) {
		if (apply_prio_memories[i].memory == memory)
			info.MemoryPriority = apply_prio_memories[i].windows;
	}
	if (!w->SetProcessInformation || !info.MemoryPriority)
		return OS_UNSUPPORTED;
	if (!w->SetProcessInformation(process, ProcessMemoryPriority, &info,
				      sizeof(info)))
		return status_of_win32(GetLastError());
	return OS_OK;
}

/* STATUS_ACCESS_DENIED and STATUS_PRIVILEGE_NOT_HELD (a hint above
 * normal needs SeIncreaseBasePriorityPrivilege, which the service
 * holds) are denials; anything else may work later. */
static enum os_status apply_prio_set_io(HANDLE process,
					enum rule_io_class class, int level)
{
	const struct winapi *w = winapi_get();
	int hint = prio_io_hint(class, level);
	ULONG value = (ULONG)hint;
	LONG nt;

	if (!w->NtSetInformationProcess || hint < 0)
		return OS_UNSUPPORTED;
	nt = w->NtSetInformationProcess(process, WINAPI_PROCESS_IO_PRIORITY,
					&value, sizeof(value));
	if (nt >= 0)
		return OS_OK;
	if ((ULONG)nt == 0xC0000022ul || (ULONG)nt == 0xC0000061ul) {
		errno = EPERM;
		return OS_DENIED;
	}
	errno = EIO;
	return OS_FAILED;
}

static bool apply_prio_io_differs(const struct prio_state *now,
				  const struct prio_state *wanted)
{
	return wanted->io_class && (wanted->io_class != now->io_class ||
				    wanted->io_level != now->io_level);
}

/* The process's own values that differ: each tried, the first failure
 * the answer. */
static enum os_status apply_prio_process(HANDLE process,
					 const struct prio_state *now,
					 const struct prio_state *wanted)
{
	enum os_status os = OS_OK, step = OS_OK;

	if (wanted->efficiency && wanted->efficiency != now->efficiency)
		os = apply_prio_set_efficiency(process, wanted->efficiency);
	if (apply_prio_io_differs(now, wanted))
		step = apply_prio_set_io(process, wanted->io_class,
					 wanted->io_level);
	if (os == OS_OK)
		os = step;
	step = OS_OK;
	if (wanted->memory && wanted->memory != now->memory)
		step = apply_prio_set_memory(process, wanted->memory);
	return os == OS_OK ? step : os;
}

/* Writes only what differs: the class, then the thread's level (which
 * Windows adds to the class's base), then the process's EcoQoS, I/O and
 * memory priority. A
 * failure of one does not keep the others from being tried; the first
 * failure is the answer. */
/* A class may be granted as another (realtime as high without the
 * privilege), and EcoQoS and the I/O and memory priorities say nothing
 * back: always read. */
bool apply_prio_taken(const struct prio_state *now,
		      const struct prio_state *wanted, struct prio_state *taken)
{
	(void)now;
	(void)wanted;
	(void)taken;
	return false;
}

enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	enum os_status os = OS_OK, step;
	DWORD want_class = apply_prio_class_of_state(wanted);
	bool own =
		(wanted->efficiency && wanted->efficiency != now->efficiency) ||
		apply_prio_io_differs(now, wanted) ||
		(wanted->memory && wanted->memory != now->memory);
	HANDLE process = NULL, thread;

	apply_prio_self(&pid, &tid);
	if (want_class != apply_prio_class_of_state(now) || own) {
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
	if (process && own) {
		step = apply_prio_process(process, now, wanted);
		if (os == OS_OK)
			os = step;
	}
	if (process)
		CloseHandle(process);
	return os;
}
