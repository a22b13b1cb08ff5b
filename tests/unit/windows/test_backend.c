/* The Windows backend against the system it runs on (Wine here, Windows
 * on a real machine): this process's facts, a thread of its own given a
 * priority and processors and given them back, the journal's files, the
 * poll seeing a thread come and go. What Wine does not have is checked
 * for what the backend says instead. */
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

#include <aclapi.h>
#include <sddl.h>

#include "log.h"
#include "place.h"
#include "procstat.h"
#include "win.h"

static HANDLE stop_event;

static DWORD WINAPI sleeper(LPVOID arg)
{
	(void)arg;
	WaitForSingleObject(stop_event, 30000);
	return 0;
}

static HANDLE start_thread(pid_t *tid)
{
	DWORD id;
	HANDLE h = CreateThread(NULL, 0, sleeper, NULL, 0, &id);

	assert_non_null(h);
	*tid = (pid_t)id;
	return h;
}

static void stop_thread(HANDLE h)
{
	SetEvent(stop_event);
	WaitForSingleObject(h, 5000);
	CloseHandle(h);
	ResetEvent(stop_event);
}

static void test_own_facts(void **state)
{
	struct procinfo pi = {procinfo_self()};
	struct facts f;
	const char *base;

	(void)state;
	f.have = f.failed = 0;
	procinfo_fetch(&pi,
		       MATCH_FACT_EXE | MATCH_FACT_COMM | MATCH_FACT_CMDLINE |
			       MATCH_FACT_CREDS | MATCH_FACT_EXE_FILE,
		       &f);
	assert_int_equal(f.failed, 0);
	/* A drive path, its file name the name. */
	assert_true(f.exe[1] == ':' && f.exe[2] == '\\');
	base = strrchr(f.exe, '\\') + 1;
	assert_string_equal(base, "test_backend.exe");
	assert_string_equal(f.comm, "test_backend.exe");
	assert_non_null(strstr(f.cmdline, "test_backend"));
	assert_true(f.uid > 0 && f.gid > 0);
	assert_int_equal(f.exe_file, MATCH_FILE_SAME);
}

static void test_cgroup_is_no_fact(void **state)
{
	struct procinfo pi = {procinfo_self()};
	struct facts f;

	(void)state;
	f.have = f.failed = 0;
	procinfo_fetch(&pi, MATCH_FACT_CGROUP, &f);
	assert_int_equal(f.failed, MATCH_FACT_CGROUP);
}

static void test_lists_and_pins(void **state)
{
	pid_t self = procinfo_self(), tid, *ids;
	unsigned long long start, again;
	struct procinfo_pin pin;
	size_t count;
	bool found = false;
	HANDLE h = start_thread(&tid);

	(void)state;
	assert_int_equal(procinfo_pids(&ids, &count), OS_OK);
	for (size_t i = 0; i < count; i++)
		found = found || ids[i] == self;
	free(ids);
	assert_true(found);
	assert_int_equal(procinfo_threads(self, &ids, &count), OS_OK);
	found = false;
	for (size_t i = 0; i < count; i++)
		found = found || ids[i] == tid;
	free(ids);
	assert_true(found);
	assert_true(procinfo_thread_in(self, tid));
	assert_false(procinfo_thread_in(self + 1000000, tid));
	assert_int_equal(procinfo_start_time(self, 0, &start), OS_OK);
	assert_int_equal(procinfo_start_time(self, 0, &again), OS_OK);
	assert_true(start > 0 && start == again);
	assert_int_equal(procinfo_start_time(self, tid, &again), OS_OK);
	assert_true(again >= start);
	assert_int_equal(procinfo_pin(self, &pin), OS_OK);
	assert_false(procinfo_pin_ended(&pin));
	procinfo_unpin(&pin);
	assert_false(procinfo_ended(self));
	stop_thread(h);
	assert_false(procinfo_thread_in(self, tid));
	assert_true(procinfo_ended(0x7ffffff0));
	assert_int_equal(procinfo_pin(0x7ffffff0, &pin), OS_GONE);
}

/* A thread of this process given the inference engine's priority, then
 * its own back: GetPriorityClass and GetThreadPriority agree. */
static void test_priority(void **state)
{
	pid_t self = procinfo_self(), tid;
	struct prio_state before, wanted, now;
	HANDLE h = start_thread(&tid);

	(void)state;
	assert_int_equal(apply_prio_read(self, tid, &before), OS_OK);
	assert_true(before.windows);
	wanted = before;
	apply_prio_state_of_class(HIGH_PRIORITY_CLASS, &wanted);
	wanted.thread_level = THREAD_PRIORITY_HIGHEST;
	wanted.efficiency = before.efficiency;
	assert_int_equal(apply_prio_write(self, tid, &before, &wanted), OS_OK);
	assert_int_equal(apply_prio_read(self, tid, &now), OS_OK);
	assert_true(prio_state_equal(&now, &wanted));
	assert_int_equal(GetPriorityClass(GetCurrentProcess()),
			 HIGH_PRIORITY_CLASS);
	assert_int_equal(GetThreadPriority(h), THREAD_PRIORITY_HIGHEST);
	assert_int_equal(apply_prio_write(self, tid, &now, &before), OS_OK);
	assert_int_equal(apply_prio_read(self, tid, &now), OS_OK);
	assert_true(prio_state_equal(&now, &before));
	stop_thread(h);
	assert_int_equal(apply_prio_read(self, tid, &now), OS_GONE);
}

/* Where SetProcessInformation refuses EcoQoS (Wine), the rest applies. */
static void test_efficiency_refused_rest_applies(void **state)
{
	pid_t self = procinfo_self(), tid;
	struct prio_state before, wanted, now;
	HANDLE h = start_thread(&tid);

	(void)state;
	assert_int_equal(apply_prio_read(self, tid, &before), OS_OK);
	wanted = before;
	wanted.thread_level = THREAD_PRIORITY_ABOVE_NORMAL;
	wanted.efficiency = RULE_EFFICIENCY_OFF;
	assert_int_equal(apply_prio_write(self, tid, &before, &wanted), OS_OK);
	assert_int_equal(apply_prio_read(self, tid, &now), OS_OK);
	assert_int_equal(now.thread_level, THREAD_PRIORITY_ABOVE_NORMAL);
	assert_true(now.efficiency == RULE_EFFICIENCY_OFF ||
		    now.efficiency == RULE_EFFICIENCY_UNSET);
	stop_thread(h);
}

/* 0 for the pid and tid is the caller's own thread, as on Linux. */
static void test_self(void **state)
{
	struct prio_state s;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	(void)state;
	assert_int_equal(apply_prio_read(0, 0, &s), OS_OK);
	assert_int_equal(s.thread_level, GetThreadPriority(GetCurrentThread()));
	assert_int_equal(apply_place_read(0, 0, set), OS_OK);
	assert_false(hwloc_bitmap_iszero(set));
	hwloc_bitmap_free(set);
}

static void test_placement(void **state)
{
	pid_t self = procinfo_self(), tid;
	hwloc_bitmap_t online = hwloc_bitmap_alloc(),
		       set = hwloc_bitmap_alloc(), first = hwloc_bitmap_alloc();
	HANDLE h = start_thread(&tid);

	(void)state;
	assert_int_equal(apply_place_online(online), OS_OK);
	assert_int_equal(apply_place_present(set), OS_OK);
	assert_true(hwloc_bitmap_isincluded(online, set));
	assert_int_equal(apply_place_allowed(self, set), OS_OK);
	assert_true(hwloc_bitmap_isincluded(set, online));
	assert_int_equal(apply_place_read(self, tid, set), OS_OK);
	assert_false(hwloc_bitmap_iszero(set));
	hwloc_bitmap_only(first, (unsigned)hwloc_bitmap_first(online));
	assert_int_equal(apply_place_write(self, tid, first), OS_OK);
	assert_int_equal(apply_place_read(self, tid, set), OS_OK);
	assert_true(hwloc_bitmap_isequal(set, first));
	assert_int_equal(apply_place_write(self, tid, online), OS_OK);
	assert_int_equal(apply_place_read(self, tid, set), OS_OK);
	assert_true(hwloc_bitmap_isequal(set, online));
	/* The process's default CPU Sets (a stub that succeeds on Wine),
	 * and Windows's choice given back. */
	assert_int_equal(apply_place_process(self, first), OS_OK);
	assert_int_equal(apply_place_process(self, NULL), OS_OK);
	stop_thread(h);
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(first);
}

static void test_statefile(void **state)
{
	const char *tmp = getenv("TEMP");
	char dir[512], file[600], why[256] = "", id[64], from[128];
	struct statefile sf;

	(void)state;
	assert_non_null(tmp);
	snprintf(dir, sizeof(dir), "%s\\cpupolicy-test-%d\\state", tmp,
		 (int)procinfo_self());
	snprintf(file, sizeof(file), "%s/journal", dir);
	assert_int_equal(statefile_mkdir(dir), OS_OK);
	assert_int_equal(statefile_dir_safe(dir, why, sizeof(why)), OS_OK);
	assert_int_equal(statefile_remove(file), OS_OK); /* an earlier run's */
	assert_int_equal(statefile_load(file, 1024, &sf), OS_GONE);
	assert_int_equal(statefile_replace(file, "a\tb\n", 4), OS_OK);
	assert_int_equal(statefile_replace(file, "c\td\ne\n", 6), OS_OK);
	assert_int_equal(statefile_load(file, 1024, &sf), OS_OK);
	assert_int_equal(sf.len, 6);
	assert_string_equal(sf.text, "c\td\ne\n");
	assert_false(sf.before_boot);
	free(sf.text);
	assert_int_equal(statefile_remove(file), OS_OK);
	assert_int_equal(statefile_remove(file), OS_OK);
	assert_int_equal(statefile_boot_id(id, sizeof(id), from, sizeof(from)),
			 OS_OK);
	/* A folder that is not there is the system's word, not a bare
	 * failure. */
	snprintf(file, sizeof(file), "%s\\missing\\journal", dir);
	assert_int_equal(statefile_replace(file, "a\n", 2), OS_GONE);
	assert_int_equal(strspn(id, "0123456789abcdef"), strlen(id));
	RemoveDirectoryA(dir);
	*strrchr(dir, '\\') = '\0';
	RemoveDirectoryA(dir);
}

/* A folder everyone may write is no place for the journal. The DACL is
 * set after the folder is made: Wine keeps it as the folder's mode,
 * where it ignores one given to CreateDirectoryW. */
static void test_statefile_unsafe(void **state)
{
	wchar_t dir[MAX_PATH];
	char path[MAX_PATH * 3], why[256] = "";
	PSECURITY_DESCRIPTOR sd = NULL;
	BOOL present, defaulted;
	PACL dacl = NULL;

	(void)state;
	assert_true(ConvertStringSecurityDescriptorToSecurityDescriptorW(
		L"D:P(A;;FA;;;WD)", SDDL_REVISION_1, &sd, NULL));
	assert_true(GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted));
	GetTempPathW(MAX_PATH, dir);
	wcscat(dir, L"cpupolicy-open");
	CreateDirectoryW(dir, NULL);
	assert_int_equal(SetNamedSecurityInfoW(
				 dir, SE_FILE_OBJECT,
				 DACL_SECURITY_INFORMATION |
					 PROTECTED_DACL_SECURITY_INFORMATION,
				 NULL, NULL, dacl, NULL),
			 ERROR_SUCCESS);
	assert_true(system_utf8(dir, path, sizeof(path)));
	assert_int_equal(statefile_dir_safe(path, why, sizeof(why)), OS_DENIED);
	assert_non_null(strstr(why, "writable by S-1-1-0"));
	RemoveDirectoryW(dir);
	LocalFree(sd);
}

struct seen {
	pid_t tid;
	bool created, exited;
};

static void watch(void *ctx, const struct events_event *e)
{
	struct seen *s = ctx;

	if (e->tid != s->tid || e->pid != procinfo_self())
		return;
	s->created |= e->kind == EVENTS_KIND_THREAD;
	s->exited |= e->kind == EVENTS_KIND_EXIT;
}

static void wait_for(struct events *ev, struct seen *s, bool *flag)
{
	bool lost;

	for (int i = 0; i < 40 && !*flag; i++) {
		assert_int_equal(WaitForSingleObject(events_handle(ev), 2000),
				 WAIT_OBJECT_0);
		assert_int_equal(events_read(ev, watch, s, &lost), OS_OK);
	}
	assert_true(*flag);
}

/* ETW where it opens, else the poll: either way a new thread and its end
 * come through the one handle. */
static void test_events(void **state)
{
	struct events_options opt = {.buffer_kb = 1024, .poll_ms = 20};
	struct events ev;
	struct seen s = {0};
	char why[160];
	HANDLE h;

	(void)state;
	assert_int_equal(events_open(&ev, &opt), OS_OK);
	assert_int_equal(events_want(&ev, EVENTS_WANT_THREADS), OS_OK);
	if (!events_etw(&ev, why, sizeof(why)))
		print_message("# the poll: %s\n", why);
	h = start_thread(&s.tid);
	wait_for(&ev, &s, &s.created);
	stop_thread(h);
	wait_for(&ev, &s, &s.exited);
	events_close(&ev);
	assert_null(events_handle(&ev));
}

static void test_cputimes(void **state)
{
	struct procstat stat;

	(void)state;
	assert_int_equal(cputimes_read(&stat), OS_OK);
	assert_int_equal(stat.count, GetActiveProcessorCount(0));
	assert_true(stat.cpus[0].busy + stat.cpus[0].idle > 0);
	procstat_free(&stat);
}

static void test_memstream_and_timing(void **state)
{
	struct memstream m;
	FILE *f = memstream_open(&m);
	size_t len;
	char *text;
	long long t0 = timing_now_ns(), slept;

	(void)state;
	assert_non_null(f);
	fprintf(f, "%zu %s\n", (size_t)42, "forty-two");
	text = memstream_close(&m, &len);
	assert_string_equal(text, "42 forty-two\n");
	assert_int_equal(len, 13);
	free(text);
	timing_sleep_ns(20000000);
	slept = timing_now_ns() - t0;
	assert_true(slept >= 19000000 && slept < 2000000000);
	assert_true(timing_thread_cpu_ns() >= 0);
}

static void test_same_file(void **state)
{
	const struct procinfo_file_id a = {1, 7}, b = {1, 8}, c = {2, 7};

	(void)state;
	assert_int_equal(procinfo_same_file(&a, true, &a, true),
			 MATCH_FILE_SAME);
	assert_int_equal(procinfo_same_file(&a, true, &b, true),
			 MATCH_FILE_OTHER);
	assert_int_equal(procinfo_same_file(&a, true, &c, true),
			 MATCH_FILE_OTHER);
	assert_int_equal(procinfo_same_file(&a, true, &a, false),
			 MATCH_FILE_UNSEEN);
	assert_int_equal(procinfo_same_file(&a, false, &a, true),
			 MATCH_FILE_DELETED);
}

/* The NUL device is a character device, as a console is, but nobody
 * watches it: live output written there is only cost. */
static void test_terminal(void **state)
{
	FILE *nul = fopen("NUL", "w");

	(void)state;
	assert_non_null(nul);
	assert_false(system_is_terminal(nul));
	fclose(nul);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_facts),
		cmocka_unit_test(test_cgroup_is_no_fact),
		cmocka_unit_test(test_lists_and_pins),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_efficiency_refused_rest_applies),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_statefile),
		cmocka_unit_test(test_statefile_unsafe),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_cputimes),
		cmocka_unit_test(test_memstream_and_timing),
		cmocka_unit_test(test_same_file),
		cmocka_unit_test(test_terminal),
	};

	log_init("test_backend", LOG_LEVEL_ERROR);
	stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	return unit_run("backend", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
