/* The Windows backend's own code on the model of Windows
 * (tests/windows/model/): processor groups read and written through
 * apply_place.c, a process's default CPU Sets, power throttling read per
 * Windows version (apply_prio.c), the ETW session's parameters
 * (events.c), owners and DACLs judged by trust.c, and the registry's
 * persistent and volatile keys across a reboot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "events.h"
#include "log.h"
#include "manage.h"
#include "model.h"
#include "os.h"
#include "poolfix.h"
#include "prio.h"
#include "rules.h"
#include "win.h"

#include <tlhelp32.h> /* after win.h: it needs windows.h */

/* Wine lists a process only once its first thread runs (its server's
 * snapshot skips it before: a new process's first moments, suspended or
 * not, on a slow machine), where Windows lists it from its creation. A
 * test that scans waits, up to a deadline, until the listing holds pid
 * (the test's own threads are poolfix's, running once started). */
static bool listed(DWORD pid)
{
	ULONGLONG deadline = GetTickCount64() + 10000;

	do {
		THREADENTRY32 te = {.dwSize = sizeof(te)};
		HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
		size_t count = 0;

		if (snap == INVALID_HANDLE_VALUE)
			return false;
		for (BOOL more = Thread32First(snap, &te); more;
		     more = Thread32Next(snap, &te))
			count += te.th32OwnerProcessID == pid;
		CloseHandle(snap);
		if (count)
			return true;
		Sleep(10);
	} while (GetTickCount64() < deadline);
	return false;
}

static struct model_config config_of(enum model_version v, enum model_machine m)
{
	return (struct model_config){.version = v, .machine = m};
}

/* A process starts in one group on Windows 10 and Server 2019: it runs
 * in that group (64 of 64+24); on Windows 11 and Server 2022 it spans
 * both (88). Either way it may be given all 88. */
static void test_groups_allowed(void **state)
{
	static const struct {
		enum model_version version;
		int allowed;
	} cases[] = {
		{MODEL_WINDOWS_10_22H2, 64},
		{MODEL_SERVER_2019, 64},
		{MODEL_WINDOWS_11_24H2, 88},
		{MODEL_SERVER_2022, 88},
	};
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		struct model_config c =
			config_of(cases[i].version, MODEL_MACHINE_64_24);

		model_install(&c);
		assert_int_equal(apply_place_current(procinfo_self(), set),
				 OS_OK);
		assert_int_equal(hwloc_bitmap_weight(set), cases[i].allowed);
		assert_int_equal(apply_place_allowed(procinfo_self(), set),
				 OS_OK);
		assert_int_equal(hwloc_bitmap_weight(set), 88);
		assert_true(model_calls("GetProcessGroupAffinity") > 0);
		assert_int_equal(apply_place_online(set), OS_OK);
		assert_int_equal(hwloc_bitmap_weight(set), 88);
	}
	hwloc_bitmap_free(set);
	model_uninstall();
}

/* A thread given a set within group 1 is moved there (its group
 * affinity read back from the model and through apply_place_read), and
 * its process becomes a multi-group one. */
static void test_thread_moved_to_group(void **state)
{
	struct model_config c =
		config_of(MODEL_WINDOWS_10_22H2, MODEL_MACHINE_2X44);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct poolfix pool = {0};
	GROUP_AFFINITY ga;
	DWORD tid;

	(void)state;
	poolfix_start(&pool, 1);
	tid = pool.tids[0];
	model_install(&c);
	hwloc_bitmap_set_range(set, 64, 64 + 43);
	assert_int_equal(apply_place_write(procinfo_self(), (pid_t)tid, set),
			 OS_OK);
	assert_true(model_thread_group(GetCurrentProcessId(), tid, &ga));
	assert_int_equal(ga.Group, 1);
	assert_true(ga.Mask == (((KAFFINITY)1 << 44) - 1));
	hwloc_bitmap_zero(set);
	assert_int_equal(apply_place_read(procinfo_self(), (pid_t)tid, set),
			 OS_OK);
	assert_int_equal(hwloc_bitmap_first(set), 64);
	assert_int_equal(hwloc_bitmap_weight(set), 44);
	/* Now in both groups: it runs on 88. */
	assert_int_equal(apply_place_current(procinfo_self(), set), OS_OK);
	assert_int_equal(hwloc_bitmap_weight(set), 88);
	/* A group the machine lacks is refused. */
	hwloc_bitmap_only(set, 3 * 64);
	assert_int_not_equal(
		apply_place_write(procinfo_self(), (pid_t)tid, set), OS_OK);
	poolfix_stop(&pool);
	hwloc_bitmap_free(set);
	model_uninstall();
}

/* The process's default CPU Sets: the P-cores of the hybrid by their
 * ids, cleared again by NULL. */
static void test_default_cpu_sets(void **state)
{
	struct model_config c =
		config_of(MODEL_WINDOWS_11_24H2, MODEL_MACHINE_HYBRID_6P8E);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	ULONG ids[32];

	(void)state;
	model_install(&c);
	hwloc_bitmap_set_range(set, 0, 11);
	assert_int_equal(apply_place_process(procinfo_self(), set), OS_OK);
	assert_int_equal(
		model_process_default_cpu_sets(GetCurrentProcessId(), ids, 32),
		12);
	assert_int_equal(ids[0], MODEL_CPU_SET_ID_BASE);
	assert_int_equal(ids[11], MODEL_CPU_SET_ID_BASE + 11);
	assert_int_equal(apply_place_process(procinfo_self(), NULL), OS_OK);
	assert_int_equal(
		model_process_default_cpu_sets(GetCurrentProcessId(), ids, 32),
		0);
	hwloc_bitmap_free(set);
	model_uninstall();
}

/* GetProcessInformation(ProcessPowerThrottling) answers from Windows 11
 * 22H2 on: a mode set there reads back; before, the read fails (unset:
 * not known; manage.c then records the OS default as the original), and
 * the OS default written back reaches the process as ControlMask 0. */
static void test_throttling_by_version(void **state)
{
	struct model_config c =
		config_of(MODEL_WINDOWS_11_24H2, MODEL_MACHINE_HYBRID_6P8E);
	struct prio_state now, want;
	PROCESS_POWER_THROTTLING_STATE st;

	(void)state;
	model_install(&c);
	assert_int_equal(apply_prio_read(0, 0, &now), OS_OK);
	assert_int_equal(now.efficiency, RULE_EFFICIENCY_SYSTEM);
	want = now;
	want.efficiency = RULE_EFFICIENCY_ON;
	assert_int_equal(apply_prio_write(0, 0, &now, &want), OS_OK);
	assert_true(model_throttle_of(GetCurrentProcessId(), &st));
	assert_true(st.StateMask & PROCESS_POWER_THROTTLING_EXECUTION_SPEED);
	assert_int_equal(apply_prio_read(0, 0, &now), OS_OK);
	assert_int_equal(now.efficiency, RULE_EFFICIENCY_ON);
	c.version = MODEL_WINDOWS_10_22H2;
	model_install(&c);
	assert_int_equal(apply_prio_read(0, 0, &now), OS_OK);
	assert_int_equal(now.efficiency, RULE_EFFICIENCY_UNSET);
	want = now;
	want.efficiency = RULE_EFFICIENCY_ON;
	assert_int_equal(apply_prio_write(0, 0, &now, &want), OS_OK);
	want.efficiency = RULE_EFFICIENCY_SYSTEM;
	assert_int_equal(apply_prio_write(0, 0, &now, &want), OS_OK);
	assert_true(model_throttle_of(GetCurrentProcessId(), &st));
	assert_int_equal(st.ControlMask, 0);
	model_uninstall();
}

/* The session: real time with a millisecond flush timer,
 * Microsoft-Windows-Kernel-Process with the process and thread keywords,
 * its consumer open; stopped at close. */
static void test_etw_session(void **state)
{
	struct model_config c =
		config_of(MODEL_WINDOWS_11_24H2, MODEL_MACHINE_64_24);
	static const GUID kernel_process = {
		0x22fb2cd6,
		0x0e7b,
		0x422b,
		{0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16}};
	const struct model_etw_session *s;
	struct events_options opt = {.buffer_kb = 256};
	struct events ev = {0};
	char why[128];

	(void)state;
	model_install(&c);
	assert_int_equal(events_open(&ev, &opt), OS_OK);
	assert_true(events_etw(&ev, why, sizeof(why)));
	s = model_etw_session();
	assert_true(s->started && s->enabled && s->opened);
	assert_true(s->props.LogFileMode & EVENT_TRACE_REAL_TIME_MODE);
	/* A millisecond flush timer (EVENT_TRACE_USE_MS_FLUSH_TIMER,
	 * 0x10, phnt's ntwmi.h) well inside the 100 ms a start is to get
	 * its class in; without the bit FlushTimer counts seconds. */
	assert_true(s->props.LogFileMode & 0x10);
	assert_true(s->props.FlushTimer >= 1 && s->props.FlushTimer <= 50);
	assert_true(IsEqualGUID(&s->provider, &kernel_process));
	assert_true((s->any_keyword & 0x30) == 0x30); /* PROCESS | THREAD */
	events_close(&ev);
	assert_false(s->started);
	assert_false(s->opened);
	model_uninstall();
}

static void exec_to_manage(void *ctx, const struct events_event *e)
{
	if (e->kind == EVENTS_KIND_EXEC)
		manage_exec(ctx, e->pid);
}

/* A process started after the daemon's scan gets its class from the
 * session's ProcessStart record alone: no rescan runs, and before the
 * record is read the process is still at its own class. */
static void test_class_from_process_start(void **state)
{
	static const char text[] =
		"rules = ( { name = \"child\"; match = { name = "
		"\"cmd.exe\"; }; priority = { class = \"below-normal\"; "
		"}; } );\n";
	struct model_config c =
		config_of(MODEL_WINDOWS_11_24H2, MODEL_MACHINE_64_24);
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION child;
	wchar_t cmd[] = L"cmd.exe /c exit";
	struct events_options opt = {.buffer_kb = 256};
	struct events ev = {0};
	struct rules rules;
	struct manage m;
	struct diag diag;
	char why[128];
	DWORD before_read, after_read;
	bool delivered, etw, shown;
	enum os_status read;
	bool lost;

	(void)state;
	model_install(&c);
	assert_int_equal(events_open(&ev, &opt), OS_OK);
	etw = events_etw(&ev, why, sizeof(why));
	diag_init(&diag);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_WINDOWS;
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
	assert_true(CreateProcessW(NULL, cmd, NULL, NULL, FALSE,
				   CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL,
				   NULL, &si, &child));
	shown = listed(child.dwProcessId);
	before_read = GetPriorityClass(child.hProcess);
	delivered = model_etw_process_start(child.dwProcessId,
					    GetCurrentProcessId());
	read = events_read(&ev, exec_to_manage, &m, &lost);
	after_read = GetPriorityClass(child.hProcess);
	/* Read first, asserted after the child is gone. */
	TerminateProcess(child.hProcess, 0);
	WaitForSingleObject(child.hProcess, 5000);
	CloseHandle(child.hThread);
	CloseHandle(child.hProcess);
	manage_free(&m);
	rules_free(&rules);
	events_close(&ev);
	assert_int_equal(diag.errors, 0);
	diag_free(&diag);
	assert_true(shown);
	assert_true(etw);
	assert_true(delivered);
	assert_int_equal(read, OS_OK);
	assert_int_equal(before_read, NORMAL_PRIORITY_CLASS);
	assert_int_equal(after_read, BELOW_NORMAL_PRIORITY_CLASS);
	model_uninstall();
}

/* Threads are listed once per scan, whatever the number of processes:
 * the test's own process, under a rule, with sleeping threads, is
 * rescanned on one system-wide listing (its threads read from it, not
 * from one listing more for it), and an exec outside a scan takes its
 * own listing. */
static void test_threads_listed_once_per_scan(void **state)
{
	static const char text[] =
		"rules = ( { name = \"self\"; match = { name = "
		"\"test_model_backend.exe\"; }; priority = { thread = "
		"\"normal\"; }; }, { name = \"child\"; match = { name = "
		"\"cmd.exe\"; }; priority = { thread = \"normal\"; }; } );\n";
	static const char listing[] =
		"NtQuerySystemInformation(SystemProcessInformation)";
	struct model_config c =
		config_of(MODEL_WINDOWS_10_22H2, MODEL_MACHINE_64_24);
	pid_t self = (pid_t)GetCurrentProcessId();
	struct rules rules;
	struct manage m;
	struct diag diag;
	struct poolfix pool = {0};
	unsigned before;
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION child;
	wchar_t cmd[] = L"cmd.exe /c exit";
	unsigned scan, exec;
	size_t known;
	bool managed, shown;
	pid_t child_pid;

	(void)state;
	model_install(&c);
	/* A second process under a rule: suspended, it has its thread. */
	assert_true(CreateProcessW(NULL, cmd, NULL, NULL, FALSE,
				   CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL,
				   NULL, &si, &child));
	child_pid = (pid_t)child.dwProcessId;
	poolfix_start(&pool, 3);
	shown = listed(child.dwProcessId);
	diag_init(&diag);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_WINDOWS;
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    NULL);
	manage_set_rules(&m, &rules);
	/* Read first, asserted after the child is gone: a failed assertion
	 * must not leave it holding the runner's output open. */
	managed = manage_find(&m, self) && manage_find(&m, child_pid);
	known = managed ? manage_find(&m, self)->thread_count : 0;
	before = model_calls(listing);
	manage_rescan(&m);
	scan = model_calls(listing) - before;
	before = model_calls(listing);
	manage_exec(&m, self);
	exec = model_calls(listing) - before;
	manage_free(&m);
	rules_free(&rules);
	diag_free(&diag);
	TerminateProcess(child.hProcess, 0);
	WaitForSingleObject(child.hProcess, 5000);
	CloseHandle(child.hThread);
	CloseHandle(child.hProcess);
	poolfix_stop(&pool);
	assert_true(shown);
	assert_true(managed);
	assert_true(known >= 4);
	assert_int_equal(scan, 1);
	assert_int_equal(exec, 1);
	model_uninstall();
}

/* Owners and DACLs as Windows answers for them: SYSTEM's folder is
 * trusted, one Users may write is not, nor one owned by a user. */
static void test_trust_dacls(void **state)
{
	static const struct {
		const wchar_t *sddl;
		enum trust_fault fault;
	} cases[] = {
		{L"O:SYD:(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;BU)",
		 TRUST_FAULT_NONE},
		{L"O:SYD:(A;;FA;;;SY)(A;;FW;;;BU)", TRUST_FAULT_WRITABLE},
		{L"O:BUD:(A;;FA;;;SY)", TRUST_FAULT_OWNER},
		{L"O:SYD:(A;OI;FA;;;WD)", TRUST_FAULT_WRITABLE},
	};
	struct model_config c =
		config_of(MODEL_SERVER_2022, MODEL_MACHINE_64_24);
	char why[256];

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		model_install(&c);
		model_security_set(L"C:\\model\\state", cases[i].sddl);
		assert_int_equal(trust_object_fault(L"C:\\model\\state",
						    TRUST_DIR_WRITE, why,
						    sizeof(why)),
				 cases[i].fault);
	}
	assert_true(model_calls("GetNamedSecurityInfoW") > 0);
	model_uninstall();
}

/* A persistent key and its values outlive a reboot; a volatile one
 * does not. */
static void test_registry_reboot(void **state)
{
	struct model_config c =
		config_of(MODEL_WINDOWS_10_22H2, MODEL_MACHINE_64_24);
	DWORD one = 1, v;
	HKEY key;

	(void)state;
	model_install(&c);
	assert_int_equal(winapi.RegCreateKeyExW(HKEY_LOCAL_MACHINE,
						L"SOFTWARE\\kept", 0, NULL, 0,
						KEY_WRITE, NULL, &key, NULL),
			 ERROR_SUCCESS);
	winapi.RegSetValueExW(key, L"v", 0, REG_DWORD, (BYTE *)&one,
			      sizeof(one));
	winapi.RegCloseKey(key);
	assert_int_equal(winapi.RegCreateKeyExW(HKEY_LOCAL_MACHINE,
						L"SOFTWARE\\gone", 0, NULL,
						REG_OPTION_VOLATILE, KEY_WRITE,
						NULL, &key, NULL),
			 ERROR_SUCCESS);
	winapi.RegSetValueExW(key, L"v", 0, REG_DWORD, (BYTE *)&one,
			      sizeof(one));
	winapi.RegCloseKey(key);
	model_reboot();
	assert_true(model_registry_dword(L"software\\KEPT", L"v", &v));
	assert_int_equal(v, 1);
	assert_false(model_registry_dword(L"SOFTWARE\\gone", L"v", &v));
	model_uninstall();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_allowed),
		cmocka_unit_test(test_thread_moved_to_group),
		cmocka_unit_test(test_default_cpu_sets),
		cmocka_unit_test(test_throttling_by_version),
		cmocka_unit_test(test_etw_session),
		cmocka_unit_test(test_class_from_process_start),
		cmocka_unit_test(test_threads_listed_once_per_scan),
		cmocka_unit_test(test_trust_dacls),
		cmocka_unit_test(test_registry_reboot),
	};

	log_init("test_model_backend", LOG_LEVEL_ERROR);
	return unit_run("model_backend", (struct unit_table){0},
			UNIT_TESTS(tests), NULL, NULL);
}
