/* Priority on the model of Windows (tests/windows/model/), through the
 * daemon's own managed-process logic (lib/manage.c) and the backend's
 * apply_prio.c: efficiency mode per Windows version, applied, refused
 * once and given back as the OS default where the original cannot be
 * read; an inference engine's HIGH class and THREAD_PRIORITY_HIGHEST on
 * every thread, later ones too; the I/O and memory priority applied,
 * read back and restored. The processes are real (this test and copies
 * of it started as "child"); what Wine cannot show is the model's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "log.h"
#include "manage.h"
#include "model.h"
#include "os.h"
#include "prio.h"
#include "rules.h"
#include "rulesfix.h"
#include "win.h"

#define CHILD_ARG   "child"
#define CHILD_LIFE  60000 /* ms: a child left behind ends by itself */
#define THREADS	    40
#define WAIT_THREAD 5000

static char self_exe[MAX_PATH * 3];
static HANDLE stop_event;

/* This program's path as a rule's exe: UTF-8, forward slashes. */
static void self_exe_init(void)
{
	wchar_t w[MAX_PATH];
	DWORD n = GetModuleFileNameW(NULL, w, MAX_PATH);

	assert_true(n > 0 && n < MAX_PATH);
	assert_true(WideCharToMultiByte(CP_UTF8, 0, w, -1, self_exe,
					sizeof(self_exe), NULL, NULL) > 0);
	for (char *c = self_exe; *c; c++) {
		if (*c == '\\')
			*c = '/';
	}
}

static PROCESS_INFORMATION child_start(void)
{
	wchar_t path[MAX_PATH], cmd[MAX_PATH + 16];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	GetModuleFileNameW(NULL, path, MAX_PATH);
	swprintf(cmd, ARRAYSIZE(cmd), L"\"%ls\" " CHILD_ARG, path);
	assert_true(CreateProcessW(path, cmd, NULL, NULL, FALSE, 0, NULL, NULL,
				   &si, &pi));
	return pi;
}

static void child_stop(PROCESS_INFORMATION *pi)
{
	TerminateProcess(pi->hProcess, 0);
	assert_int_equal(WaitForSingleObject(pi->hProcess, 5000),
			 WAIT_OBJECT_0);
	CloseHandle(pi->hProcess);
	CloseHandle(pi->hThread);
}

static void load(struct rules *r, const char *priority)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "version = 1;\nrules = ({ name = \"t\"; match = { exe = "
		 "\"%s\"; };\npriority = { %s }; });\n",
		 self_exe, priority);
	rulesfix_load(r, RULES_SYSTEM_WINDOWS, text);
}

static void load_none(struct rules *r)
{
	rulesfix_load(r, RULES_SYSTEM_WINDOWS, "version = 1;\nrules = ();\n");
}

static void manage_start(struct manage *m)
{
	manage_init(m, &(struct manage_options){0}, NULL);
}

static struct model_config config_of(enum model_version v)
{
	return (struct model_config){.version = v,
				     .machine = MODEL_MACHINE_HYBRID_6P8E};
}

/* EcoQoS on: the model holds the control and state bits. */
static bool throttled(DWORD pid)
{
	PROCESS_POWER_THROTTLING_STATE st;

	return model_throttle_of(pid, &st) &&
	       st.ControlMask == PROCESS_POWER_THROTTLING_EXECUTION_SPEED &&
	       st.StateMask == PROCESS_POWER_THROTTLING_EXECUTION_SPEED;
}

/* Given back as the OS default: written, with no bit controlled. */
static bool os_default(DWORD pid)
{
	PROCESS_POWER_THROTTLING_STATE st;

	return model_throttle_of(pid, &st) && st.ControlMask == 0 &&
	       st.StateMask == 0;
}

/* On Windows 10 22H2 (the original unreadable) and 11 24H2 (readable):
 * a rule puts a process in efficiency mode; one refusal for a process
 * keeps neither the next process nor a later try of the same one from
 * getting it; unmatched, both are back to the OS default. */
static void test_efficiency_by_version(void **state)
{
	static const enum model_version versions[] = {
		MODEL_WINDOWS_10_22H2,
		MODEL_WINDOWS_11_24H2,
	};

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(versions); i++) {
		struct model_config c = config_of(versions[i]);
		PROCESS_INFORMATION a, b;
		struct rules eco, none;
		struct manage m;

		model_install(&c);
		load(&eco, "efficiency_mode = \"on\";");
		load_none(&none);
		manage_start(&m);
		a = child_start();
		model_throttle_refuse(a.dwProcessId, ERROR_GEN_FAILURE);
		manage_set_rules(&m, &eco);
		assert_non_null(manage_find(&m, (pid_t)a.dwProcessId));
		b = child_start();
		manage_exec(&m, (pid_t)b.dwProcessId);
		if (!throttled(b.dwProcessId))
			fail_msg("version %zu: the next process lacks "
				 "efficiency mode after one refusal",
				 i);
		manage_rescan(&m);
		assert_true(throttled(a.dwProcessId));
		manage_set_rules(&m, &none);
		if (!os_default(a.dwProcessId) || !os_default(b.dwProcessId))
			fail_msg("version %zu: efficiency mode not given back "
				 "as the OS default",
				 i);
		manage_free(&m);
		rules_free(&eco);
		rules_free(&none);
		child_stop(&a);
		child_stop(&b);
	}
	model_uninstall();
}

static DWORD WINAPI sleeper(LPVOID arg)
{
	(void)arg;
	WaitForSingleObject(stop_event, 30000);
	return 0;
}

static int thread_level(DWORD tid)
{
	HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, tid);
	int level;

	assert_non_null(h);
	level = GetThreadPriority(h);
	CloseHandle(h);
	return level;
}

/* An inference engine's rule: HIGH_PRIORITY_CLASS and
 * THREAD_PRIORITY_HIGHEST on its 20 threads at the match and on the 20
 * it starts afterwards; all back to normal when unmatched. */
static void test_inference_engine(void **state)
{
	struct model_config c = config_of(MODEL_WINDOWS_11_24H2);
	HANDLE threads[THREADS];
	DWORD tids[THREADS];
	struct rules hi, none;
	struct manage m;

	(void)state;
	model_install(&c);
	load(&hi, "class = \"high\"; thread = \"highest\";");
	load_none(&none);
	manage_start(&m);
	ResetEvent(stop_event);
	for (size_t i = 0; i < THREADS / 2; i++)
		assert_non_null(threads[i] = CreateThread(NULL, 0, sleeper,
							  NULL, 0, &tids[i]));
	manage_set_rules(&m, &hi);
	assert_non_null(manage_find(&m, (pid_t)GetCurrentProcessId()));
	for (size_t i = THREADS / 2; i < THREADS; i++) {
		assert_non_null(threads[i] = CreateThread(NULL, 0, sleeper,
							  NULL, 0, &tids[i]));
		manage_thread_new(&m, (pid_t)GetCurrentProcessId(),
				  (pid_t)tids[i], (pid_t)GetCurrentThreadId());
	}
	assert_int_equal(GetPriorityClass(GetCurrentProcess()),
			 HIGH_PRIORITY_CLASS);
	for (size_t i = 0; i < THREADS; i++) {
		if (thread_level(tids[i]) != THREAD_PRIORITY_HIGHEST)
			fail_msg("thread %zu of %d at level %d", i, THREADS,
				 thread_level(tids[i]));
	}
	manage_set_rules(&m, &none);
	assert_int_equal(GetPriorityClass(GetCurrentProcess()),
			 NORMAL_PRIORITY_CLASS);
	for (size_t i = 0; i < THREADS; i++)
		assert_int_equal(thread_level(tids[i]), THREAD_PRIORITY_NORMAL);
	SetEvent(stop_event);
	for (size_t i = 0; i < THREADS; i++) {
		assert_int_equal(WaitForSingleObject(threads[i], WAIT_THREAD),
				 WAIT_OBJECT_0);
		CloseHandle(threads[i]);
	}
	manage_free(&m);
	rules_free(&hi);
	rules_free(&none);
	model_uninstall();
}

/* The io keys' IO_PRIORITY_HINT (cpupolicy.rules(5)). */
static void test_io_hint_mapping(void **state)
{
	static const struct {
		enum rule_io_class class;
		int level, hint;
	} cases[] = {
		{RULE_IO_CLASS_IDLE, 0, 0},
		{RULE_IO_CLASS_BEST_EFFORT, 7, 1},
		{RULE_IO_CLASS_BEST_EFFORT, 5, 1},
		{RULE_IO_CLASS_BEST_EFFORT, 4, 2},
		{RULE_IO_CLASS_BEST_EFFORT, 0, 2},
		{RULE_IO_CLASS_REALTIME, 4, 3},
	};

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(cases); i++)
		assert_int_equal(prio_io_hint(cases[i].class, cases[i].level),
				 cases[i].hint);
}

/* io_class and memory_priority on a process: applied (the model's
 * values), read back by the backend, and restored when unmatched. */
static void test_io_and_memory(void **state)
{
	struct model_config c = config_of(MODEL_WINDOWS_10_22H2);
	PROCESS_INFORMATION a;
	struct prio_state now;
	struct rules low, none;
	struct manage m;

	(void)state;
	model_install(&c);
	load(&low, "io_class = \"best-effort\"; io_level = 6; "
		   "memory_priority = \"low\";");
	load_none(&none);
	manage_start(&m);
	a = child_start();
	assert_int_equal(model_io_priority_of(a.dwProcessId), 2);
	assert_int_equal(model_memory_priority_of(a.dwProcessId),
			 MEMORY_PRIORITY_NORMAL);
	manage_set_rules(&m, &low);
	assert_int_equal(model_io_priority_of(a.dwProcessId), 1);
	assert_int_equal(model_memory_priority_of(a.dwProcessId),
			 MEMORY_PRIORITY_LOW);
	assert_int_equal(apply_prio_read((pid_t)a.dwProcessId,
					 (pid_t)a.dwThreadId, &now),
			 OS_OK);
	assert_int_equal(now.io_class, RULE_IO_CLASS_BEST_EFFORT);
	assert_int_equal(now.io_level, 7);
	assert_int_equal(now.memory, RULE_MEMORY_LOW);
	assert_true(model_calls("NtSetInformationProcess(ProcessIoPriority)") >
		    0);
	manage_set_rules(&m, &none);
	assert_int_equal(model_io_priority_of(a.dwProcessId), 2);
	assert_int_equal(model_memory_priority_of(a.dwProcessId),
			 MEMORY_PRIORITY_NORMAL);
	manage_free(&m);
	rules_free(&low);
	rules_free(&none);
	child_stop(&a);
	model_uninstall();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_efficiency_by_version),
		cmocka_unit_test(test_inference_engine),
		cmocka_unit_test(test_io_hint_mapping),
		cmocka_unit_test(test_io_and_memory),
	};

	if (argc > 1 && strcmp(argv[1], CHILD_ARG) == 0) {
		Sleep(CHILD_LIFE);
		return 0;
	}
	log_init("test_model_prio", LOG_LEVEL_ERROR);
	stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	self_exe_init();
	return unit_run("model_prio", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
