/* Windows: the service manager. cpupolicyd.exe runs under it when the
 * SCM started it (StartServiceCtrlDispatcherW connects), in the
 * foreground otherwise. As a service it reports its state with
 * checkpoints while it starts and stops, takes stop, shutdown and a
 * reload (SERVICE_CONTROL_PARAMCHANGE, or the user control 128: "sc
 * control cpupolicyd paramchange" or "sc control cpupolicyd 128"), and
 * logs to %ProgramData%\cpupolicy\cpupolicyd.log, each line dated (in a
 * console: stderr). --install and --uninstall are install.c's. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <tlhelp32.h>

#include "internal.h"
#include "log.h"
#include "os.h"
#include "util.h"
#include "win.h"

#define SERVICE_NAME L"cpupolicyd"
/* A user-defined control code (128..255), for tools that cannot send
 * PARAMCHANGE. */
#define SERVICE_CONTROL_RELOAD 128
/* The log is moved aside to cpupolicyd.log.1 at start beyond this. */
#define SERVICE_LOG_MAX	     (8LL << 20)
#define SERVICE_WAIT_HINT_MS 30000

struct service {
	bool scm;
	SERVICE_STATUS_HANDLE handle;
	SERVICE_STATUS status;
	struct daemon *daemon;
	int (*run)(struct daemon *d);
	int exit_status;
};

/* One service per process; its handler runs on the dispatcher's thread,
 * which only sets the loop's events and reports states. */
static struct service service;

static void service_report(DWORD state, DWORD exit_code)
{
	SERVICE_STATUS *st = &service.status;

	if (!service.scm)
		return;
	st->dwServiceType = SERVICE_WIN32_OWN_PROCESS;
	st->dwCurrentState = state;
	st->dwControlsAccepted = state == SERVICE_RUNNING
					 ? SERVICE_ACCEPT_STOP |
						   SERVICE_ACCEPT_SHUTDOWN |
						   SERVICE_ACCEPT_PARAMCHANGE
					 : 0;
	st->dwWin32ExitCode = exit_code ? ERROR_SERVICE_SPECIFIC_ERROR : 0;
	st->dwServiceSpecificExitCode = exit_code;
	if (state == SERVICE_START_PENDING || state == SERVICE_STOP_PENDING) {
		st->dwCheckPoint++;
		st->dwWaitHint = SERVICE_WAIT_HINT_MS;
	} else {
		st->dwCheckPoint = 0;
		st->dwWaitHint = 0;
	}
	SetServiceStatus(service.handle, st);
}

static DWORD WINAPI service_control(DWORD control, DWORD type, void *data,
				    void *ctx)
{
	(void)type;
	(void)data;
	(void)ctx;
	switch (control) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_SHUTDOWN:
		service_report(SERVICE_STOP_PENDING, 0);
		loop_request_stop(control == SERVICE_CONTROL_STOP
					  ? "service stop"
					  : "system shutdown");
		return NO_ERROR;
	case SERVICE_CONTROL_PARAMCHANGE:
	case SERVICE_CONTROL_RELOAD:
		loop_request_reload();
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		return NO_ERROR;
	default:
		return ERROR_CALL_NOT_IMPLEMENTED;
	}
}

/* An exit on the way (a fatal error at start) still tells the SCM the
 * service stopped, with an error: its failure actions then apply. */
static void service_exited(void)
{
	if (service.status.dwCurrentState != SERVICE_STOPPED)
		service_report(SERVICE_STOPPED, 1);
}

/* stderr into the log file beside the config, unbuffered: a line is
 * there when it is written, a crash loses none. */
static void service_log_open(void)
{
	char dir[MAX_PATH * 3], *slash;
	wchar_t path[MAX_PATH], old[MAX_PATH + 4];
	WIN32_FILE_ATTRIBUTE_DATA attr;
	FILE *log;

	snprintf(dir, sizeof(dir), "%s", paths_conf_file());
	slash = strrchr(dir, '\\');
	if (slash)
		*slash = '\0';
	if (strlen(dir) + 20 >= sizeof(dir))
		return;
	strcat(dir, "\\cpupolicyd.log");
	if (!system_wide(dir, path, ARRAY_SIZE(path)))
		return;
	if (GetFileAttributesExW(path, GetFileExInfoStandard, &attr) &&
	    ((LONGLONG)attr.nFileSizeHigh << 32 | attr.nFileSizeLow) >
		    SERVICE_LOG_MAX) {
		_snwprintf(old, ARRAY_SIZE(old), L"%ls.1", path);
		old[ARRAY_SIZE(old) - 1] = L'\0';
		MoveFileExW(path, old, MOVEFILE_REPLACE_EXISTING);
	}
	/* A service has no stderr (the C runtime marks it unusable, and
	 * it cannot be reopened): the log gets a stream of its own,
	 * unbuffered, for the life of the process. */
	log = _wfopen(path, L"a");
	if (!log)
		return;
	setvbuf(log, NULL, _IONBF, 0);
	log_set_file(log);
	log_set_timestamps(true);
}

static void WINAPI service_main(DWORD argc, wchar_t **argv)
{
	(void)argc;
	(void)argv;
	service.scm = true;
	service.handle = RegisterServiceCtrlHandlerExW(SERVICE_NAME,
						       service_control, NULL);
	if (!service.handle)
		return;
	service_report(SERVICE_START_PENDING, 0);
	atexit(service_exited);
	service_log_open();
	service.exit_status = service.run(service.daemon);
	service_report(SERVICE_STOPPED, (DWORD)service.exit_status);
}

/* Whether services.exe started this process: only then is the
 * dispatcher worth a try. Wine's takes 10 s to give up otherwise. */
static bool service_parent_is_scm(void)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	DWORD self = GetCurrentProcessId(), parent = 0;
	bool scm = false;

	if (snap == INVALID_HANDLE_VALUE)
		return true; /* cannot tell: let the dispatcher say */
	for (BOOL ok = Process32FirstW(snap, &pe); ok && !parent;
	     ok = Process32NextW(snap, &pe)) {
		if (pe.th32ProcessID == self)
			parent = pe.th32ParentProcessID;
	}
	for (BOOL ok = parent && Process32FirstW(snap, &pe); ok && !scm;
	     ok = Process32NextW(snap, &pe))
		scm = pe.th32ProcessID == parent &&
		      _wcsicmp(pe.szExeFile, L"services.exe") == 0;
	CloseHandle(snap);
	return scm;
}

/* Started by the SCM, the dispatcher connects and calls service_main on
 * a thread of its own; started from a console (or by anything else), it
 * cannot connect, and the daemon runs here in the foreground. */
int service_run(struct daemon *d, int (*run)(struct daemon *d))
{
	SERVICE_TABLE_ENTRYW table[] = {
		{(wchar_t *)SERVICE_NAME, service_main},
		{NULL, NULL},
	};
	char why[256];

	service.daemon = d;
	service.run = run;
	if (!service_parent_is_scm())
		return run(d);
	if (StartServiceCtrlDispatcherW(table))
		return service.exit_status;
	if (GetLastError() == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT)
		return run(d);
	status_message(GetLastError(), why, sizeof(why));
	log_error("cannot connect to the service manager: %s", why);
	return 1;
}

/* Held until the process ends: the system closes it then, however the
 * daemon ends. */
static HANDLE service_lock = INVALID_HANDLE_VALUE;

/* An exclusive handle (no sharing) on STATE\cpupolicyd.lock: a second
 * daemon cannot open it while the first runs. A state directory others
 * may write is left to the journal, which refuses it and says why (and
 * the daemon does not start). */
enum os_status service_claim(const struct conf *conf)
{
	char why[512], *path;
	wchar_t *wide;
	DWORD error;
	enum os_status status = statefile_mkdir(conf->state_dir);

	if (status != OS_OK) {
		log_warn("not starting: cannot create the state directory %s, "
			 "which holds the lock that keeps a second daemon out",
			 conf->state_dir);
		return status;
	}
	if (statefile_dir_safe(conf->state_dir, why, sizeof(why)) != OS_OK)
		return OS_OK;
	path = xasprintf("%s\\cpupolicyd.lock", conf->state_dir);
	wide = system_wide_dup(path);
	if (wide)
		service_lock =
			CreateFileW(wide, GENERIC_READ | GENERIC_WRITE, 0, NULL,
				    OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	error = wide ? GetLastError() : ERROR_INVALID_NAME;
	free(wide);
	if (service_lock == INVALID_HANDLE_VALUE) {
		if (error == ERROR_SHARING_VIOLATION) {
			log_error("not starting: another cpupolicyd runs (it "
				  "holds %s)",
				  path);
		} else {
			status_message(error, why, sizeof(why));
			log_error("not starting: cannot open %s: %s", path,
				  why);
		}
		free(path);
		return status_of_win32(error);
	}
	free(path);
	return OS_OK;
}

bool service_command(int argc, char **argv, int *status)
{
	bool install;

	if (argc < 2 || (strcmp(argv[1], "--install") != 0 &&
			 strcmp(argv[1], "--uninstall") != 0))
		return false;
	install = strcmp(argv[1], "--install") == 0;
	if (argc > 2) {
		fprintf(stderr, "cpupolicyd: %s takes no other arguments\n",
			argv[1]);
		*status = 2;
		return true;
	}
	*status = install ? install_service() : install_remove();
	return true;
}

void service_usage(FILE *out)
{
	fprintf(out,
		"  --install      register the service cpupolicyd (automatic "
		"start,\n"
		"                 restarted on failure) and its folders under "
		"%%ProgramData%%\n"
		"  --uninstall    stop and remove the service; the config and "
		"rules stay\n");
}

/* Nothing is passed to a Windows service. */
void service_take_passed(struct service_passed *passed)
{
	passed->events = passed->control = -1;
}

void service_reloading(void)
{
}

/* Running, once set-up is done; a reload changes nothing the SCM sees. */
void service_ready(const char *status)
{
	(void)status;
	if (service.scm && service.status.dwCurrentState != SERVICE_RUNNING)
		service_report(SERVICE_RUNNING, 0);
}

void service_stopping(void)
{
	service_report(SERVICE_STOP_PENDING, 0);
}

/* High, not realtime: ahead of every normal process without
 * SeIncreaseBasePriorityPrivilege, and without starving the system's
 * own threads the way the realtime class can. */
enum os_status service_self_realtime(void)
{
	if (SetPriorityClass(GetCurrentProcess(), HIGH_PRIORITY_CLASS))
		return OS_OK;
	log_warnx("self_realtime: cannot run in the High priority class; "
		  "running at Normal");
	return status_of_win32(GetLastError());
}

/* A parse's peak is gone: the C runtime's heap gives back what it can. */
void service_trim(void)
{
	_heapmin();
}
