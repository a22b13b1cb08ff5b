/* Restraint on the model of Windows (tests/windows/model/), through the
 * daemon's own restraint (lib/restrained.c) and the backend's
 * pressure.c, procinfo.c, apply_prio.c and accounts.c: the pressure
 * rule (processors at least 90 % busy with more threads ready than
 * processors) at its edges, and the busy time alone where the listing
 * tells no state (Wine); a hog lowered to below normal with EcoQoS and
 * given its class and EcoQoS back when calm, or when the daemon stops;
 * a class its user chose, high and realtime left alone; the system
 * accounts' SIDs. The hogs are real processes (this test started as
 * "hog"), whose CPU time Wine counts; their states and base priorities
 * in the listing and the processors' times are the model's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include <windows.h>

#include <sddl.h>

#include "conf.h"
#include "log.h"
#include "model.h"
#include "os.h"
#include "poolfix.h"
#include "prio.h"
#include "restrained.h"
#include "win.h"

#define HOG_ARG	   "hog"
#define HOG_LIFE   60000 /* ms: a hog left behind ends by itself */
#define PASS_MS	   50
#define DEADLINE   15000 /* ms, for a restraint or a release */
#define EXCLUDE_MS 1500	 /* ms of passes a hog is watched for */

/* A spinning thread until the named event is set, then idle. */
static int hog_main(const char *event)
{
	HANDLE calm = OpenEventA(SYNCHRONIZE, FALSE, event);
	ULONGLONG start = GetTickCount64();
	volatile unsigned long long n = 0;

	while (GetTickCount64() - start < HOG_LIFE) {
		if (calm && WaitForSingleObject(calm, 0) == WAIT_OBJECT_0) {
			Sleep(HOG_LIFE);
			break;
		}
		for (int i = 0; i < 1000000; i++)
			n++;
	}
	return 0;
}

struct hog {
	PROCESS_INFORMATION pi;
	HANDLE calm;
};

static struct hog hog_start(void)
{
	static unsigned serial;
	wchar_t path[MAX_PATH], cmd[MAX_PATH + 96];
	char name[64];
	STARTUPINFOW si = {.cb = sizeof(si)};
	struct hog h;

	snprintf(name, sizeof(name), "cpupolicy-test-calm-%lu-%u",
		 GetCurrentProcessId(), serial++);
	h.calm = CreateEventA(NULL, TRUE, FALSE, name);
	assert_non_null(h.calm);
	GetModuleFileNameW(NULL, path, MAX_PATH);
	swprintf(cmd, ARRAYSIZE(cmd), L"\"%ls\" " HOG_ARG " %hs", path, name);
	assert_true(CreateProcessW(path, cmd, NULL, NULL, FALSE, 0, NULL, NULL,
				   &si, &h.pi));
	return h;
}

static void hog_stop(struct hog *h)
{
	TerminateProcess(h->pi.hProcess, 0);
	assert_int_equal(WaitForSingleObject(h->pi.hProcess, 5000),
			 WAIT_OBJECT_0);
	CloseHandle(h->pi.hProcess);
	CloseHandle(h->pi.hThread);
	CloseHandle(h->calm);
}

static struct model_config config_of(enum model_version v)
{
	return (struct model_config){.version = v,
				     .machine = MODEL_MACHINE_HYBRID_6P8E};
}

/* The defaults' lowering (below normal, EcoQoS on), quick limits: over
 * 2 % of the host's CPUs for 100 ms, calm under 1 % for 100 ms. The CPUs
 * are the host's, whose time Wine counts, not the model's twenty. */
static void restraint_start(struct restrained *r)
{
	struct conf_restraint rc;
	struct restrained_options o = {
		.limits = {.share_pct = 2,
			   .qualify_ms = 100,
			   .release_pct = 1,
			   .calm_ms = 100,
			   .hold_ms = 0,
			   .per_minute = 16},
		.pressure_pct = 10,
	};

	conf_restraint_init(&rc);
	prio_target_for_system(&rc.lowering, RULES_SYSTEM_WINDOWS, &o.target);
	conf_restraint_free(&rc);
	restrained_init(r, &o, GetActiveProcessorCount(ALL_PROCESSOR_GROUPS));
}

static bool held(const struct restrained *r, DWORD pid)
{
	const struct restrained_proc *p = restrained_find(r, (pid_t)pid);

	return p && p->held;
}

/* Passes at pressure_pct until pid is held (or not), DEADLINE at most. */
static bool passes_until(struct restrained *r, DWORD pid, bool want,
			 unsigned pressure_pct)
{
	ULONGLONG deadline = GetTickCount64() + DEADLINE;

	do {
		restrained_pass(r, timing_now_ns(), pressure_pct);
		if (held(r, pid) == want)
			return true;
		Sleep(PASS_MS);
	} while (GetTickCount64() < deadline);
	return false;
}

/* EcoQoS on: the model holds the control and state bits
 * (sdk-api-src/content/processthreadsapi/ns-processthreadsapi-process_power_throttling_state.md,
 * model_throttle.c). */
static bool throttled(DWORD pid)
{
	PROCESS_POWER_THROTTLING_STATE st;

	return model_throttle_of(pid, &st) &&
	       st.ControlMask == PROCESS_POWER_THROTTLING_EXECUTION_SPEED &&
	       st.StateMask == PROCESS_POWER_THROTTLING_EXECUTION_SPEED;
}

/* Given back to the system: written with no bit controlled. */
static bool system_managed(DWORD pid)
{
	PROCESS_POWER_THROTTLING_STATE st;

	return model_throttle_of(pid, &st) && st.ControlMask == 0 &&
	       st.StateMask == 0;
}

/* Every processor of the model's twenty busy busy_pct of a second, with
 * ready threads waiting: the pressure the sample after it reads. */
static unsigned pressure_after(struct pressure *p, struct poolfix *pool,
			       bool stateless, unsigned busy_pct, size_t ready)
{
	unsigned pct = 77;

	model_procs_reset();
	model_procs_stateless_set(stateless);
	for (size_t i = 0; i < ready; i++)
		model_procs_ready(pool->tids[i]);
	model_cputimes_advance(busy_pct, 1000);
	assert_int_equal(pressure_sample(p, &pct), OS_OK);
	return pct;
}

/* Busy 90 % and ready > CPUs (21 of 20) is pressure, its figure the busy
 * share; 89 %, or 20 ready, is not; a listing without states (Wine's)
 * leaves the busy share alone to decide. */
static void test_pressure_edges(void **state)
{
	static const struct {
		const char *name;
		bool stateless;
		unsigned busy;
		size_t ready;
		unsigned want;
	} cases[] = {
		{"busy 90 %, 21 ready", false, 90, 21, 90},
		{"busy 89 %, 21 ready", false, 89, 21, 0},
		{"busy 100 %, 20 ready", false, 100, 20, 0},
		{"busy 100 %, 21 ready", false, 100, 21, 100},
		{"busy 90 %, 20 ready", false, 90, 20, 0},
		{"idle, 40 ready", false, 10, 40, 0},
		{"no states, busy 95 %", true, 95, 0, 95},
		{"no states, busy 89 %", true, 89, 0, 0},
	};
	struct model_config c = config_of(MODEL_WINDOWS_11_24H2);
	struct poolfix pool = {0};
	struct pressure *p;
	unsigned pct;

	(void)state;
	poolfix_start(&pool, 40);
	model_install(&c);
	model_cputimes_advance(0, 1);
	assert_int_equal(pressure_open(&p, 10), OS_OK);
	assert_int_equal(pressure_fd(p), -1);
	assert_int_equal(pressure_sample(p, &pct), OS_OK);
	assert_int_equal(pct, 0); /* the first sample has nothing before */
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		pct = pressure_after(p, &pool, cases[i].stateless,
				     cases[i].busy, cases[i].ready);
		if (pct != cases[i].want)
			fail_msg("%s: pressure %u, want %u", cases[i].name, pct,
				 cases[i].want);
	}
	assert_true(model_calls("NtQuerySystemInformation("
				"SystemProcessorPerformanceInformation)") >
		    ARRAYSIZE(cases));
	pressure_close(p);
	model_uninstall();
	poolfix_stop(&pool);
}

/* Restrained: below normal and EcoQoS; calm: normal again and EcoQoS
 * given back to the system; restrained again, the daemon's stop gives
 * both back as well. On Windows 11 24H2 the original EcoQoS is read (the
 * system's); on Windows 10 22H2 it cannot be (model_throttle.c), and
 * the OS default is what is to go back. What each step left, for the
 * caller to judge once the hogs are gone. */
struct restrain_seen {
	bool restrained, lowered, throttled;
	bool released, normal, eco_back;
	bool again, stop_normal, stop_eco_back;
};

static void restrain_and_release(enum model_version version,
				 struct restrain_seen *seen)
{
	struct model_config c = config_of(version);
	struct restrained r;
	struct hog h;
	DWORD pid;

	model_install(&c);
	h = hog_start();
	pid = h.pi.dwProcessId;
	restraint_start(&r);
	seen->restrained = passes_until(&r, pid, true, 100);
	seen->lowered =
		GetPriorityClass(h.pi.hProcess) == BELOW_NORMAL_PRIORITY_CLASS;
	seen->throttled = throttled(pid);
	SetEvent(h.calm);
	seen->released = passes_until(&r, pid, false, 0);
	seen->normal = GetPriorityClass(h.pi.hProcess) == NORMAL_PRIORITY_CLASS;
	seen->eco_back = system_managed(pid);
	hog_stop(&h);

	h = hog_start();
	pid = h.pi.dwProcessId;
	seen->again =
		passes_until(&r, pid, true, 100) &&
		GetPriorityClass(h.pi.hProcess) == BELOW_NORMAL_PRIORITY_CLASS;
	restrained_free(&r, "the daemon stops");
	seen->stop_normal =
		GetPriorityClass(h.pi.hProcess) == NORMAL_PRIORITY_CLASS;
	seen->stop_eco_back = system_managed(pid);
	hog_stop(&h);
	model_uninstall();
}

/* The class: lowered and given back, at the release and at the stop. */
static void restrain_class_checks(const struct restrain_seen *s)
{
	assert_true(s->restrained);
	assert_true(s->lowered);
	assert_true(s->throttled);
	assert_true(s->released);
	assert_true(s->normal);
	assert_true(s->again);
	assert_true(s->stop_normal);
}

static void test_restrain_release_11(void **state)
{
	struct restrain_seen seen = {0};

	(void)state;
	restrain_and_release(MODEL_WINDOWS_11_24H2, &seen);
	restrain_class_checks(&seen);
	assert_true(seen.eco_back);
	assert_true(seen.stop_eco_back);
}

/* Where EcoQoS cannot be read, the original is the OS default, as the
 * rules' own path records it (prio_original_default, lib/manage.c):
 * EcoQoS is cleared at the release as on Windows 11. */
static void test_restrain_release_10(void **state)
{
	struct restrain_seen seen = {0};

	(void)state;
	restrain_and_release(MODEL_WINDOWS_10_22H2, &seen);
	restrain_class_checks(&seen);
	assert_true(seen.eco_back);
	assert_true(seen.stop_eco_back);
}

/* A hog whose class its user set (below or above normal), or that runs
 * high, keeps it: qualified, not restrained, and why; one that runs
 * realtime (nice 0 under RR, prio.c's mapping) keeps it as a realtime
 * thread, or as its user's choice where Windows gave high instead. */
static void test_class_kept(void **state)
{
	static const char user[] = "its priority was set by its user";
	static const struct {
		DWORD class;
		const char *name, *why;
	} cases[] = {
		{BELOW_NORMAL_PRIORITY_CLASS, "below normal", user},
		{ABOVE_NORMAL_PRIORITY_CLASS, "above normal", user},
		{HIGH_PRIORITY_CLASS, "high", user},
		{REALTIME_PRIORITY_CLASS, "realtime", "a realtime thread"},
	};
	struct model_config c = config_of(MODEL_WINDOWS_11_24H2);

	(void)state;
	model_install(&c);
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		struct hog h = hog_start();
		DWORD pid = h.pi.dwProcessId, set;
		const struct restrained_proc *p;
		ULONGLONG until = GetTickCount64() + EXCLUDE_MS;
		struct restrained r;

		assert_true(SetPriorityClass(h.pi.hProcess, cases[i].class));
		/* Without SeIncreaseBasePriorityPrivilege realtime may be
		 * given as high: whichever it holds is to stay. */
		set = GetPriorityClass(h.pi.hProcess);
		restraint_start(&r);
		while (GetTickCount64() < until) {
			restrained_pass(&r, timing_now_ns(), 100);
			if (held(&r, pid))
				fail_msg("%s: restrained", cases[i].name);
			Sleep(PASS_MS);
		}
		p = restrained_find(&r, (pid_t)pid);
		if (!p || strcmp(p->why_not, set == HIGH_PRIORITY_CLASS
						     ? user
						     : cases[i].why) != 0)
			fail_msg("%s: not excluded as '%s' (%s)", cases[i].name,
				 cases[i].why, p ? p->why_not : "not seen");
		assert_int_equal(GetPriorityClass(h.pi.hProcess), set);
		assert_false(model_throttle_of(
			pid, &(PROCESS_POWER_THROTTLING_STATE){0}));
		restrained_free(&r, "done");
		hog_stop(&h);
	}
	model_uninstall();
}

/* The NT authority's well-known accounts of the system: LocalSystem
 * S-1-5-18, LocalService S-1-5-19, NetworkService S-1-5-20
 * (learn.microsoft.com/windows/win32/secauthz/well-known-sids), the
 * service accounts S-1-5-80-... (NT SERVICE\name), the Desktop Window
 * Manager's S-1-5-90-0-N (Window Manager\DWM-N) and the font driver
 * host's S-1-5-96-0-N (Font Driver Host\UMFD-N)
 * (learn.microsoft.com/windows/security/identity-protection/access-control/service-accounts,
 * "Virtual accounts"); a user's, the Administrators alias, Everyone and
 * Authenticated Users are not. */
static void test_system_accounts(void **state)
{
	static const struct {
		const wchar_t *sid;
		bool system;
	} cases[] = {
		{L"S-1-5-18", true},
		{L"S-1-5-19", true},
		{L"S-1-5-20", true},
		{L"S-1-5-80-3232712927-1625117661-2590453128-1738570065-"
		 L"3637376297",
		 true},
		{L"S-1-5-90-0-1", true},
		{L"S-1-5-96-0-1", true},
		{L"S-1-5-21-1004336348-1177238915-682003330-1001", false},
		{L"S-1-5-32-544", false},
		{L"S-1-1-0", false},
		{L"S-1-5-11", false},
		{L"S-1-16-16384", false}, /* the system integrity level */
	};

	(void)state;
	accounts_reset();
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		PSID sid = NULL;
		unsigned id = 0;

		assert_true(ConvertStringSidToSidW(cases[i].sid, &sid));
		assert_true(accounts_intern(sid, &id));
		LocalFree(sid);
		if (accounts_system(id) != cases[i].system)
			fail_msg("%ls: system %d, want %d", cases[i].sid,
				 accounts_system(id), cases[i].system);
	}
	assert_false(accounts_system(0));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pressure_edges),
		cmocka_unit_test(test_restrain_release_11),
		cmocka_unit_test(test_restrain_release_10),
		cmocka_unit_test(test_class_kept),
		cmocka_unit_test(test_system_accounts),
	};

	if (argc > 2 && strcmp(argv[1], HOG_ARG) == 0)
		return hog_main(argv[2]);
	log_init("test_model_restraint", LOG_LEVEL_ERROR);
	return unit_run("model_restraint", (struct unit_table){0},
			UNIT_TESTS(tests), NULL, NULL);
}
