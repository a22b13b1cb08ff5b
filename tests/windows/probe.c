/* The Windows integration test's program: it starts a thread at once
 * and another after a delay, and on request reports its priority class
 * and each thread's priority as Windows returns them (GetPriorityClass,
 * GetThreadPriority), read from inside the process.
 *
 *   probe.exe DIR [DELAY_MS]
 *
 * It writes DIR\ready once running; each time DIR\ask appears it writes
 * DIR\report (whole: written aside, then moved into place) and removes
 * DIR\ask; it exits when DIR\stop appears, or after 120 s whatever
 * happens. A report:
 *
 *   pid 1234
 *   class 0x80
 *   threads 3
 *   thread main 2
 *   thread early 2
 *   thread late 2
 *
 *   probe.exe --until-high FILE [TIMEOUT_MS]
 *
 * (the benchmark) looks at its own class every millisecond from its first
 * line on, and writes to FILE the milliseconds from its creation
 * (GetProcessTimes) to the first look that found HIGH_PRIORITY_CLASS, or
 * "miss" after TIMEOUT_MS (default 5000).
 *
 *   probe.exe --privileges PID
 *
 * prints the privileges in PID's token, one a line: name and "enabled"
 * or "disabled".
 *
 *   probe.exe --control SERVICE CODE
 *
 * sends the service control CODE (8: PARAMCHANGE; 128..255: the
 * service's own) to SERVICE, which Wine's sc.exe cannot ("sc control").
 *
 *   probe.exe --hold-pipe PIPE DIR
 *
 * takes the pipe's name, as a user may while the daemon is not there:
 * it writes DIR\ready once it holds it, then holds every connection
 * without a word until DIR\stop appears (120 s at most).
 *
 *   probe.exe --hog DIR THREADS
 *
 * (restraint's hog) spins THREADS threads until DIR\calm appears, then
 * idles; it writes DIR\ready once they spin and answers DIR\ask as
 * above (pid and class; "threads 0": its spinners are not reported); it
 * exits when DIR\stop appears, or after 120 s.
 *
 *   probe.exe --hog-window DIR THREADS
 *
 * (the agent's test) the same hog, with a window of its own that it
 * makes the foreground window (SetForegroundWindow) once DIR\window
 * appears; its report says "foreground yes" while GetForegroundWindow
 * is that window, else "foreground no".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#define PROBE_LIFE_MS 120000
#define PROBE_TICK_MS 20

struct probe_thread {
	const char *name;
	HANDLE handle;
};

static struct probe_thread probe_threads[3];
static volatile LONG probe_thread_count;
static volatile LONG probe_stop;
static volatile LONG probe_calm;

static void probe_add(const char *name, HANDLE h)
{
	LONG i = probe_thread_count;

	probe_threads[i] = (struct probe_thread){name, h};
	InterlockedIncrement(&probe_thread_count);
}

static DWORD WINAPI probe_idle(void *arg)
{
	(void)arg;
	while (!probe_stop)
		Sleep(PROBE_TICK_MS);
	return 0;
}

static HANDLE probe_start(void)
{
	return CreateThread(NULL, 0, probe_idle, NULL, 0, NULL);
}

static char *probe_path(const char *dir, const char *file)
{
	size_t len = strlen(dir) + strlen(file) + 2;
	char *p = malloc(len);

	if (!p)
		exit(2);
	snprintf(p, len, "%s\\%s", dir, file);
	return p;
}

static int probe_touch(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A report: pid, class and threads; for the window hog (window not
 * NULL, *window NULL until it has one), also whether its window is the
 * foreground window. */
static void probe_report(const char *dir, const HWND *window)
{
	char *tmp = probe_path(dir, "report.tmp"),
	     *out = probe_path(dir, "report");
	FILE *f = fopen(tmp, "w");
	LONG count = probe_thread_count;

	if (!f)
		exit(2);
	fprintf(f, "pid %lu\nclass 0x%lx\nthreads %ld\n", GetCurrentProcessId(),
		GetPriorityClass(GetCurrentProcess()), count);
	for (LONG i = 0; i < count; i++)
		fprintf(f, "thread %s %d\n", probe_threads[i].name,
			GetThreadPriority(probe_threads[i].handle));
	if (window)
		fprintf(f, "foreground %s\n",
			*window && GetForegroundWindow() == *window ? "yes"
								    : "no");
	if (fclose(f) == 0)
		MoveFileExA(tmp, out, MOVEFILE_REPLACE_EXISTING);
	free(tmp);
	free(out);
}

static unsigned long long probe_filetime(FILETIME t)
{
	return (unsigned long long)t.dwHighDateTime << 32 | t.dwLowDateTime;
}

static int probe_until_high(const char *file, DWORD timeout)
{
	FILETIME created, ended, kernel, user, now;
	ULONGLONG start = GetTickCount64();
	FILE *f;

	GetProcessTimes(GetCurrentProcess(), &created, &ended, &kernel, &user);
	while (GetPriorityClass(GetCurrentProcess()) != HIGH_PRIORITY_CLASS &&
	       GetTickCount64() - start < timeout)
		Sleep(1);
	GetSystemTimePreciseAsFileTime(&now);
	f = fopen(file, "w");
	if (!f)
		return 2;
	if (GetPriorityClass(GetCurrentProcess()) == HIGH_PRIORITY_CLASS)
		fprintf(f, "%.1f\n",
			(double)(probe_filetime(now) -
				 probe_filetime(created)) /
				1e4);
	else
		fprintf(f, "miss\n");
	return fclose(f) == 0 ? 0 : 2;
}

static int probe_control(const char *name, DWORD code)
{
	SC_HANDLE scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_CONNECT);
	SC_HANDLE svc = scm ? OpenServiceA(scm, name,
					   SERVICE_PAUSE_CONTINUE |
						   SERVICE_USER_DEFINED_CONTROL)
			    : NULL;
	SERVICE_STATUS st;
	BOOL ok = svc && ControlService(svc, code, &st);

	if (!ok)
		fprintf(stderr, "probe: control %lu to %s: error %lu\n", code,
			name, GetLastError());
	if (svc)
		CloseServiceHandle(svc);
	if (scm)
		CloseServiceHandle(scm);
	return ok ? 0 : 1;
}

static int probe_privileges(DWORD pid)
{
	HANDLE p = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, pid), t;
	TOKEN_PRIVILEGES *tp;
	BYTE buf[8192];
	DWORD len;

	if (!p || !OpenProcessToken(p, TOKEN_QUERY, &t) ||
	    !GetTokenInformation(t, TokenPrivileges, buf, sizeof(buf), &len)) {
		fprintf(stderr, "probe: token of %lu: error %lu\n", pid,
			GetLastError());
		return 1;
	}
	tp = (TOKEN_PRIVILEGES *)buf;
	for (DWORD i = 0; i < tp->PrivilegeCount; i++) {
		char name[128];
		DWORD n = sizeof(name);

		if (LookupPrivilegeNameA(NULL, &tp->Privileges[i].Luid, name,
					 &n))
			printf("%s %s\n", name,
			       tp->Privileges[i].Attributes &
					       SE_PRIVILEGE_ENABLED
				       ? "enabled"
				       : "disabled");
	}
	return 0;
}

static DWORD WINAPI probe_spin(void *arg)
{
	volatile unsigned long long n = 0;

	(void)arg;
	while (!probe_calm && !probe_stop)
		n++;
	return 0;
}

/* The hog's window: a plain top-level one, its messages answered by
 * DefWindowProc; none of its own matter to the test. */
static HWND probe_window(void)
{
	WNDCLASSA wc = {.lpfnWndProc = DefWindowProcA,
			.hInstance = GetModuleHandleA(NULL),
			.lpszClassName = "probe"};
	HWND w;

	if (!RegisterClassA(&wc))
		return NULL;
	w = CreateWindowExA(0, "probe", "probe", WS_OVERLAPPEDWINDOW,
			    CW_USEDEFAULT, CW_USEDEFAULT, 200, 100, NULL, NULL,
			    wc.hInstance, NULL);
	if (!w)
		return NULL;
	ShowWindow(w, SW_SHOW);
	SetForegroundWindow(w);
	return w;
}

/* A thread that owns a window answers its messages, or Windows takes it
 * for hung: the tick waits on them as well as on the clock. */
static void probe_tick(bool window)
{
	MSG m;

	if (!window) {
		Sleep(PROBE_TICK_MS);
		return;
	}
	MsgWaitForMultipleObjects(0, NULL, FALSE, PROBE_TICK_MS, QS_ALLINPUT);
	while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {
		TranslateMessage(&m);
		DispatchMessageA(&m);
	}
}

static int probe_hog(const char *dir, unsigned threads, bool window)
{
	char *ready = probe_path(dir, "ready"), *ask = probe_path(dir, "ask"),
	     *stop = probe_path(dir, "stop"), *calm = probe_path(dir, "calm"),
	     *front = probe_path(dir, "window");
	ULONGLONG start = GetTickCount64();
	HWND w = NULL;

	for (unsigned i = 0; i < threads; i++)
		CloseHandle(CreateThread(NULL, 0, probe_spin, NULL, 0, NULL));
	probe_touch(ready, "ready\n");
	while (GetFileAttributesA(stop) == INVALID_FILE_ATTRIBUTES &&
	       GetTickCount64() - start < PROBE_LIFE_MS) {
		if (GetFileAttributesA(calm) != INVALID_FILE_ATTRIBUTES)
			probe_calm = 1;
		if (window && !w &&
		    GetFileAttributesA(front) != INVALID_FILE_ATTRIBUTES &&
		    !(w = probe_window())) {
			fprintf(stderr, "probe: a window: error %lu\n",
				GetLastError());
			return 1;
		}
		if (GetFileAttributesA(ask) != INVALID_FILE_ATTRIBUTES) {
			probe_report(dir, window ? &w : NULL);
			DeleteFileA(ask);
		}
		probe_tick(window);
	}
	probe_stop = 1;
	return 0;
}

/* One instance waiting at a time, overlapped, so that the stop file is
 * seen while nobody connects; connected ones are kept open. */
static int probe_hold_pipe(const char *pipe, const char *dir)
{
	char *ready = probe_path(dir, "ready"), *stop = probe_path(dir, "stop");
	OVERLAPPED ov = {.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL)};
	ULONGLONG start = GetTickCount64();
	HANDLE h = INVALID_HANDLE_VALUE;

	while (GetFileAttributesA(stop) == INVALID_FILE_ATTRIBUTES &&
	       GetTickCount64() - start < PROBE_LIFE_MS) {
		if (h == INVALID_HANDLE_VALUE) {
			h = CreateNamedPipeA(
				pipe, PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED,
				PIPE_TYPE_BYTE | PIPE_WAIT,
				PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, NULL);
			if (h == INVALID_HANDLE_VALUE) {
				fprintf(stderr, "probe: %s: error %lu\n", pipe,
					GetLastError());
				return 1;
			}
			probe_touch(ready, "ready\n");
			if (!ConnectNamedPipe(h, &ov) &&
			    GetLastError() == ERROR_PIPE_CONNECTED)
				SetEvent(ov.hEvent);
		}
		if (WaitForSingleObject(ov.hEvent, PROBE_TICK_MS) ==
		    WAIT_OBJECT_0) {
			ResetEvent(ov.hEvent);
			h = INVALID_HANDLE_VALUE; /* kept, never answered */
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	HANDLE self;
	DWORD delay = argc > 2 ? (DWORD)strtoul(argv[2], NULL, 10) : 1000;
	ULONGLONG start = GetTickCount64();
	char *ready, *ask, *stop;

	if (argc > 2 && strcmp(argv[1], "--privileges") == 0)
		return probe_privileges((DWORD)strtoul(argv[2], NULL, 10));
	if (argc > 3 && strcmp(argv[1], "--control") == 0)
		return probe_control(argv[2],
				     (DWORD)strtoul(argv[3], NULL, 10));
	if (argc > 3 && strcmp(argv[1], "--hold-pipe") == 0)
		return probe_hold_pipe(argv[2], argv[3]);
	if (argc > 3 && strcmp(argv[1], "--hog") == 0)
		return probe_hog(argv[2], (unsigned)strtoul(argv[3], NULL, 10),
				 false);
	if (argc > 3 && strcmp(argv[1], "--hog-window") == 0)
		return probe_hog(argv[2], (unsigned)strtoul(argv[3], NULL, 10),
				 true);
	if (argc > 2 && strcmp(argv[1], "--until-high") == 0)
		return probe_until_high(
			argv[2],
			argc > 3 ? (DWORD)strtoul(argv[3], NULL, 10) : 5000);
	if (argc < 2) {
		fprintf(stderr, "usage: probe.exe DIR [DELAY_MS]\n"
				"       probe.exe --until-high FILE "
				"[TIMEOUT_MS]\n");
		return 2;
	}
	ready = probe_path(argv[1], "ready");
	ask = probe_path(argv[1], "ask");
	stop = probe_path(argv[1], "stop");
	/* A real handle to the main thread (GetCurrentThread's is a
	 * pseudo-handle, the same for every thread). */
	DuplicateHandle(GetCurrentProcess(), GetCurrentThread(),
			GetCurrentProcess(), &self, 0, FALSE,
			DUPLICATE_SAME_ACCESS);
	probe_add("main", self);
	probe_add("early", probe_start());
	probe_touch(ready, "ready\n");
	while (GetFileAttributesA(stop) == INVALID_FILE_ATTRIBUTES &&
	       GetTickCount64() - start < PROBE_LIFE_MS) {
		if (probe_thread_count == 2 &&
		    GetTickCount64() - start >= delay)
			probe_add("late", probe_start());
		if (GetFileAttributesA(ask) != INVALID_FILE_ATTRIBUTES) {
			probe_report(argv[1], NULL);
			DeleteFileA(ask);
		}
		Sleep(PROBE_TICK_MS);
	}
	probe_stop = 1;
	return 0;
}
