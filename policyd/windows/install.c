/* Windows: cpupolicyd.exe --install registers the service (own process,
 * LocalSystem, automatic start, restarted on failure, the daemon's own
 * full path), makes %ProgramData%\cpupolicy\ with rules.d\ and state\
 * under an ACL of their own, or takes over what is there (Administrators
 * own it all, with the install's ACLs) unless something in it may be
 * another account's, and writes a default cpupolicyd.conf where none is.
 * It fails (exit 1) when it cannot, and so does the MSI that runs it.
 * Installing again updates the service's path and settings.
 * --uninstall stops and deletes the service, takes away every Image
 * File Execution Options value the daemon wrote, and puts back the power
 * settings its journal still holds (a crash left them: Windows keeps them
 * across reboots, and with the service gone nothing else would); the
 * config, the rules and the log stay, as a package's removal leaves
 * /etc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "conf.h"
#include "diag.h"
#include "internal.h"
#include "log.h"
#include "os.h"
#include "power.h"
#include "util.h"
#include "win.h"

#define INSTALL_NAME	L"cpupolicyd"
#define INSTALL_DISPLAY L"cpupolicy daemon"
#define INSTALL_DESCRIPTION                                                    \
	L"Applies cpupolicy's rules (priority, placement) to processes as "    \
	L"they start. Config and rules: %ProgramData%\\cpupolicy."
#define INSTALL_STOP_WAIT_MS 30000

/* SYSTEM and Administrators own the folders; users may read the config
 * and rules (as /etc's), not the state. Protected: nothing inherited
 * from %ProgramData%, where any user may create folders. A folder's
 * entries are inherited by what is made in it (OICI); a file's are its
 * own. */
#define INSTALL_SDDL_READABLE                                                  \
	L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)"
#define INSTALL_SDDL_PRIVATE L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
#define INSTALL_SDDL_READABLE_FILE                                             \
	L"O:BAD:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;0x1200a9;;;BU)"
#define INSTALL_SDDL_PRIVATE_FILE L"O:BAD:P(A;;FA;;;SY)(A;;FA;;;BA)"
/* Deeper than this, %ProgramData%\cpupolicy holds nothing of ours. */
#define INSTALL_DEPTH_MAX 16

static const char install_conf[] =
	"# cpupolicyd configuration (INI), written by cpupolicyd --install.\r\n"
	"# The keys and what they do: the cpupolicyd.conf of the source, "
	"and\r\n"
	"# cpupolicyd(8). \"cpupolicyd -n\" checks this file and the rules.\r\n"
	"\r\n"
	"[daemon]\r\n"
	"# Rule directories, separated by ';'.\r\n"
	"rules_dirs = %s\r\n"
	"\r\n"
	"# The named pipe cpupolicyctl talks to.\r\n"
	"socket = %s\r\n"
	"\r\n"
	"# A group (DOMAIN\\name, name or SID) whose members may ask for\r\n"
	"# status and explain; empty: Administrators and SYSTEM only.\r\n"
	"socket_group =\r\n"
	"\r\n"
	"state_dir = %s\r\n"
	"\r\n"
	"# Milliseconds between looks at the processes when no ETW session\r\n"
	"# can be opened.\r\n"
	"events_poll_ms = 250\r\n"
	"\r\n"
	"log_level = info\r\n";

static void install_say(const char *what, DWORD error)
{
	char why[256];

	status_message(error, why, sizeof(why));
	fprintf(stderr, "cpupolicyd: %s: %s\n", what, why);
}

/* What is already in %ProgramData%\cpupolicy when --install runs: a
 * standard user may have made the folder before the first install (C:\
 * ProgramData lets users create folders) and put a config or rules in
 * it, which the MSI keeps and an install would then give to
 * Administrators. Judged before anything changes, each object opened
 * itself (never through a link): a junction or link, a file with more
 * than one name (taking it would take the others too: CreateHardLinkW
 * makes one of a system file), anything owned by another account, and a
 * file another account may write are refused, named with their owner;
 * folders others could merely add to are taken over, since what others
 * added is theirs and refused. */
struct install_tree {
	wchar_t path[MAX_PATH];
	int refused, taken;
	const wchar_t *state; /* the private folder below */
};

/* To the console, and to the Application event log (source cpupolicyd):
 * an MSI runs --install with no console, and its own log keeps only the
 * exit status. */
static void install_report(const char *line)
{
	wchar_t wide[2048];
	const wchar_t *strings[1] = {wide};
	HANDLE source;

	fprintf(stderr, "cpupolicyd: %s\n", line);
	if (!system_wide(line, wide, ARRAY_SIZE(wide)))
		return;
	source = RegisterEventSourceW(NULL, INSTALL_NAME);
	if (!source)
		return;
	ReportEventW(source, EVENTLOG_ERROR_TYPE, 0, 1, NULL, 1, 0, strings,
		     NULL);
	DeregisterEventSource(source);
}

static void install_refuse(struct install_tree *t, const char *why)
{
	char path[MAX_PATH * 3], line[MAX_PATH * 3 + 1024];

	if (!system_utf8(t->path, path, sizeof(path)))
		snprintf(path, sizeof(path), "a path that is not UTF-16");
	snprintf(line, sizeof(line), "%s: %s", path, why);
	install_report(line);
	t->refused++;
}

static HANDLE install_open(const wchar_t *path, DWORD access)
{
	return CreateFileW(
		path, access,
		FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
		OPEN_EXISTING,
		FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
		NULL);
}

typedef void install_visit_fn(struct install_tree *t, HANDLE h, bool dir);

/* Each object in the folder at t->path, then (a folder) what is in it,
 * with t->path naming each in turn. */
static void install_walk(struct install_tree *t, DWORD access,
			 install_visit_fn *visit, int depth)
{
	BY_HANDLE_FILE_INFORMATION info;
	WIN32_FIND_DATAW found;
	size_t len = wcslen(t->path);
	HANDLE h = install_open(t->path, access), find;
	bool dir;
	char why[256];

	if (h == INVALID_HANDLE_VALUE ||
	    !GetFileInformationByHandle(h, &info)) {
		status_message(GetLastError(), why, sizeof(why));
		install_refuse(t, why);
		if (h != INVALID_HANDLE_VALUE)
			CloseHandle(h);
		return;
	}
	dir = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
		install_refuse(t, "a junction or link: whoever made it chose "
				  "where it leads; remove it and install "
				  "again");
	} else if (!dir && info.nNumberOfLinks > 1) {
		snprintf(why, sizeof(why),
			 "a file of %lu names (hard links): taking it would "
			 "take the others too; remove it and install again",
			 (unsigned long)info.nNumberOfLinks);
		install_refuse(t, why);
	} else {
		visit(t, h, dir);
	}
	CloseHandle(h);
	if (!dir || (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
		return;
	if (depth >= INSTALL_DEPTH_MAX || len + 3 >= ARRAY_SIZE(t->path)) {
		install_refuse(t, "too deep to be cpupolicy's: remove it and "
				  "install again");
		return;
	}
	wcscpy(t->path + len, L"\\*");
	find = FindFirstFileW(t->path, &found);
	t->path[len] = L'\0';
	if (find == INVALID_HANDLE_VALUE)
		return;
	do {
		if (wcscmp(found.cFileName, L".") == 0 ||
		    wcscmp(found.cFileName, L"..") == 0)
			continue;
		if (len + 1 + wcslen(found.cFileName) >= ARRAY_SIZE(t->path)) {
			install_refuse(t, "holds a name too long to judge");
			continue;
		}
		_snwprintf(t->path + len, ARRAY_SIZE(t->path) - len, L"\\%ls",
			   found.cFileName);
		install_walk(t, access, visit, depth + 1);
		t->path[len] = L'\0';
	} while (FindNextFileW(find, &found));
	FindClose(find);
}

/* The judgement: owner for a folder, owner and DACL for a file. */
static void install_judge(struct install_tree *t, HANDLE h, bool dir)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	char why[400], said[512];
	enum trust_fault fault;
	DWORD error;

	error = GetSecurityInfo(h, SE_FILE_OBJECT,
				OWNER_SECURITY_INFORMATION |
					DACL_SECURITY_INFORMATION,
				&owner, NULL, &dacl, NULL, &sd);
	if (error != ERROR_SUCCESS) {
		status_message(error, why, sizeof(why));
		snprintf(said, sizeof(said), "its security cannot be read: %s",
			 why);
		install_refuse(t, said);
		return;
	}
	fault = trust_sd_fault(owner, dacl, dir ? 0 : TRUST_FILE_WRITE, why,
			       sizeof(why));
	if (fault == TRUST_FAULT_OWNER || (!dir && fault != TRUST_FAULT_NONE)) {
		snprintf(said, sizeof(said),
			 "%s: what it says may be theirs; look at it, remove "
			 "it, and install again",
			 why);
		install_refuse(t, said);
	}
	LocalFree(sd);
}

static bool install_is_in(const wchar_t *path, const wchar_t *dir)
{
	size_t len = wcslen(dir);

	return _wcsnicmp(path, dir, len) == 0 &&
	       (path[len] == L'\0' || path[len] == L'\\');
}

/* The takeover: Administrators own it, and the ACL of its kind. Set by
 * handle, on the object opened (no link followed); every folder on the
 * way is the install's already, so nobody else can swap what it holds. */
static void install_own(struct install_tree *t, HANDLE h, bool dir)
{
	bool private = install_is_in(t->path, t->state);
	const wchar_t *sddl =
		dir ? (private ? INSTALL_SDDL_PRIVATE : INSTALL_SDDL_READABLE)
		    : (private ? INSTALL_SDDL_PRIVATE_FILE
			       : INSTALL_SDDL_READABLE_FILE);
	PSECURITY_DESCRIPTOR sd = NULL;
	BOOL present = FALSE, defaulted = FALSE;
	PSID owner = NULL;
	PACL dacl = NULL;
	DWORD error = ERROR_INVALID_PARAMETER;
	char why[256];

	if (ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, &sd, NULL) &&
	    GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted) &&
	    GetSecurityDescriptorOwner(sd, &owner, &defaulted))
		error = SetSecurityInfo(
			h, SE_FILE_OBJECT,
			OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION |
				PROTECTED_DACL_SECURITY_INFORMATION,
			owner, NULL, dacl, NULL);
	if (sd)
		LocalFree(sd);
	if (error != ERROR_SUCCESS) {
		status_message(error, why, sizeof(why));
		install_refuse(t, why);
		return;
	}
	t->taken++;
}

/* A folder made here for the install: with its ACL from the start. */
static int install_make(const char *dir, const wchar_t *sddl)
{
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	wchar_t path[MAX_PATH];
	int status = 0;

	if (!system_wide(dir, path, ARRAY_SIZE(path)) ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, &sa.lpSecurityDescriptor, NULL)) {
		fprintf(stderr, "cpupolicyd: %s: cannot name it\n", dir);
		return -1;
	}
	if (!CreateDirectoryW(path, &sa) &&
	    GetLastError() != ERROR_ALREADY_EXISTS) {
		install_say(dir, GetLastError());
		status = -1;
	}
	LocalFree(sa.lpSecurityDescriptor);
	return status;
}

/* %ProgramData%\cpupolicy and everything in it Administrators', with
 * the install's ACLs, or (something there may be another's) nothing
 * changed and the install refused. */
static int install_take_tree(const char *base)
{
	wchar_t state[MAX_PATH];
	struct install_tree t = {.state = state};

	if (!system_wide(base, t.path, ARRAY_SIZE(t.path)) ||
	    !system_wide(paths_state_dir(), state, ARRAY_SIZE(state))) {
		fprintf(stderr, "cpupolicyd: %s: cannot name it\n", base);
		return -1;
	}
	if (GetFileAttributesW(t.path) == INVALID_FILE_ATTRIBUTES &&
	    GetLastError() == ERROR_FILE_NOT_FOUND)
		return install_make(base, INSTALL_SDDL_READABLE);
	install_walk(&t, READ_CONTROL, install_judge, 0);
	if (t.refused) {
		char line[MAX_PATH * 3 + 256];

		snprintf(line, sizeof(line),
			 "%s was there before the install, with %d thing%s "
			 "in it that another account could have written: "
			 "nothing changed, the install refused",
			 base, t.refused, t.refused == 1 ? "" : "s");
		install_report(line);
		return -1;
	}
	install_walk(&t, READ_CONTROL | WRITE_DAC | WRITE_OWNER, install_own,
		     0);
	if (t.refused) {
		fprintf(stderr,
			"cpupolicyd: %s: not all of it could be taken "
			"over\n",
			base);
		return -1;
	}
	printf("%s and what is in it (%d in all): Administrators' now, "
	       "writable by SYSTEM and Administrators alone\n",
	       base, t.taken);
	return 0;
}

static int install_default_conf(const char *conf)
{
	wchar_t path[MAX_PATH];
	char *text;
	HANDLE h;
	DWORD written;
	BOOL ok;

	if (!system_wide(conf, path, ARRAY_SIZE(path)))
		return -1;
	h = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_NEW,
			FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		if (GetLastError() == ERROR_FILE_EXISTS)
			return 0; /* the administrator's own stays */
		install_say(conf, GetLastError());
		return -1;
	}
	text = xasprintf(install_conf, paths_rules_dirs(), paths_endpoint(),
			 paths_state_dir());
	ok = WriteFile(h, text, (DWORD)strlen(text), &written, NULL) &&
	     written == strlen(text) && FlushFileBuffers(h);
	free(text);
	CloseHandle(h);
	if (!ok) {
		fprintf(stderr, "cpupolicyd: %s: cannot write it\n", conf);
		return -1;
	}
	printf("wrote %s\n", conf);
	return 0;
}

/* An Administrator's token holds these, disabled: taking over a folder
 * somebody else made, whose ACL may not even let Administrators in. */
static void install_take_over(void)
{
	static const wchar_t *const names[] = {L"SeTakeOwnershipPrivilege",
					       L"SeRestorePrivilege"};
	HANDLE token;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES,
			      &token))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		TOKEN_PRIVILEGES tp = {.PrivilegeCount = 1};

		tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
		if (LookupPrivilegeValueW(NULL, names[i],
					  &tp.Privileges[0].Luid))
			AdjustTokenPrivileges(token, FALSE, &tp, 0, NULL, NULL);
	}
	CloseHandle(token);
}

static int install_folders(void)
{
	char base[MAX_PATH * 3], *slash;

	install_take_over();

	snprintf(base, sizeof(base), "%s", paths_conf_file());
	slash = strrchr(base, '\\');
	if (slash)
		*slash = '\0';
	if (install_take_tree(base) < 0 ||
	    install_make(paths_rules_dirs(), INSTALL_SDDL_READABLE) < 0 ||
	    install_make(paths_state_dir(), INSTALL_SDDL_PRIVATE) < 0)
		return -1;
	return install_default_conf(paths_conf_file());
}

/* Restarted 5 s after a failure, then 30 s, then a minute; the count
 * starts again after a day without one. A fatal start (the SCM sees
 * SERVICE_STOPPED with an error) counts as a failure too. The
 * privileges it may ever need, and no other: what caps.c keeps is a
 * subset. Wine lacks some of these: they are warnings, not errors. */
static void install_settings(SC_HANDLE svc)
{
	SC_ACTION actions[] = {
		{SC_ACTION_RESTART, 5000},
		{SC_ACTION_RESTART, 30000},
		{SC_ACTION_RESTART, 60000},
	};
	SERVICE_DESCRIPTIONW description = {
		.lpDescription = (wchar_t *)INSTALL_DESCRIPTION};
	SERVICE_FAILURE_ACTIONSW failure = {
		.dwResetPeriod = 86400,
		.cActions = ARRAY_SIZE(actions),
		.lpsaActions = actions,
	};
	SERVICE_FAILURE_ACTIONS_FLAG flag = {
		.fFailureActionsOnNonCrashFailures = TRUE};
	static wchar_t privileges[] = L"SeDebugPrivilege\0"
				      L"SeIncreaseBasePriorityPrivilege\0"
				      L"SeChangeNotifyPrivilege\0";
	SERVICE_REQUIRED_PRIVILEGES_INFOW required = {.pmszRequiredPrivileges =
							      privileges};

	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_DESCRIPTION,
				   &description))
		install_say("warning: no description set", GetLastError());
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS,
				   &failure))
		install_say("warning: no restart on failure set",
			    GetLastError());
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS_FLAG,
				   &flag))
		install_say("warning: a failed start may not restart it",
			    GetLastError());
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_REQUIRED_PRIVILEGES_INFO,
				   &required))
		install_say("warning: the service's privileges are not "
			    "limited",
			    GetLastError());
}

static bool install_self(wchar_t *command, size_t count)
{
	wchar_t self[MAX_PATH];
	DWORD n = GetModuleFileNameW(NULL, self, ARRAY_SIZE(self));

	if (n == 0 || n >= ARRAY_SIZE(self))
		return false;
	_snwprintf(command, count, L"\"%ls\"", self);
	command[count - 1] = L'\0';
	return true;
}

int install_service(void)
{
	wchar_t command[MAX_PATH + 3];
	SC_HANDLE scm, svc;
	bool updated = false;

	if (!install_self(command, ARRAY_SIZE(command))) {
		fprintf(stderr, "cpupolicyd: cannot tell its own path\n");
		return 1;
	}
	scm = OpenSCManagerW(NULL, NULL,
			     SC_MANAGER_CONNECT | SC_MANAGER_CREATE_SERVICE);
	if (!scm) {
		install_say("cannot open the service manager (as an "
			    "Administrator?)",
			    GetLastError());
		return 1;
	}
	if (install_folders() < 0) {
		CloseServiceHandle(scm);
		return 1;
	}
	svc = CreateServiceW(scm, INSTALL_NAME, INSTALL_DISPLAY,
			     SERVICE_ALL_ACCESS, SERVICE_WIN32_OWN_PROCESS,
			     SERVICE_AUTO_START, SERVICE_ERROR_NORMAL, command,
			     NULL, NULL, NULL, NULL, NULL);
	if (!svc && GetLastError() == ERROR_SERVICE_EXISTS) {
		svc = OpenServiceW(scm, INSTALL_NAME, SERVICE_ALL_ACCESS);
		updated = svc &&
			  ChangeServiceConfigW(svc, SERVICE_WIN32_OWN_PROCESS,
					       SERVICE_AUTO_START,
					       SERVICE_ERROR_NORMAL, command,
					       NULL, NULL, NULL, NULL, NULL,
					       INSTALL_DISPLAY);
		if (svc && !updated) {
			CloseServiceHandle(svc);
			svc = NULL;
		}
	}
	if (!svc) {
		install_say("cannot register the service", GetLastError());
		CloseServiceHandle(scm);
		return 1;
	}
	install_settings(svc);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	printf("%s the service cpupolicyd: %ls, automatic start, restarted "
	       "on failure\n"
	       "config %s, rules %s, log cpupolicyd.log beside the config\n"
	       "start it with: sc start cpupolicyd\n",
	       updated ? "updated" : "installed", command, paths_conf_file(),
	       paths_rules_dirs());
	return 0;
}

static bool install_stopped(SC_HANDLE svc)
{
	SERVICE_STATUS st;
	DWORD waited = 0;

	if (!QueryServiceStatus(svc, &st))
		return false;
	if (st.dwCurrentState != SERVICE_STOPPED &&
	    !ControlService(svc, SERVICE_CONTROL_STOP, &st) &&
	    GetLastError() != ERROR_SERVICE_NOT_ACTIVE)
		install_say("cannot stop the service", GetLastError());
	while (QueryServiceStatus(svc, &st) &&
	       st.dwCurrentState != SERVICE_STOPPED &&
	       waited < INSTALL_STOP_WAIT_MS) {
		Sleep(250);
		waited += 250;
	}
	return st.dwCurrentState == SERVICE_STOPPED;
}

/* The journal the config names (or the default state directory, where
 * the config cannot be read), replayed as the daemon's start replays it:
 * only what still has the daemon's value. No state directory: nothing
 * was ever held. 0: nothing left in the journal. */
int install_restore_power(const char *conf_path)
{
	struct conf conf;
	struct diag diag;
	struct power pw;
	wchar_t state[MAX_PATH];
	int restored = -1;

	conf_init(&conf);
	diag_init(&diag);
	if (conf_load_trusted(&conf, conf_path, false, &diag) < 0 ||
	    diag.errors) {
		diag_print(&diag, stderr, false);
		conf_free(&conf);
		conf_init(&conf);
		fprintf(stderr,
			"cpupolicyd: power settings: the journal in %s is "
			"used\n",
			conf.state_dir);
	}
	diag_free(&diag);
	if (system_wide(conf.state_dir, state, ARRAY_SIZE(state)) &&
	    GetFileAttributesW(state) == INVALID_FILE_ATTRIBUTES) {
		conf_free(&conf);
		return 0;
	}
	if (apply_power_open(&pw, conf.state_dir) == 0)
		restored = apply_power_restore_all(&pw);
	apply_power_close(&pw);
	if (restored > 0)
		printf("restored %d power settings from the journal in %s\n",
		       restored, conf.state_dir);
	else if (restored < 0)
		fprintf(stderr,
			"cpupolicyd: not every power setting in the journal "
			"in %s could be restored (see above); it keeps them, "
			"for \"cpupolicyctl restore\"\n",
			conf.state_dir);
	conf_free(&conf);
	return restored < 0 ? -1 : 0;
}

int install_remove(void)
{
	SC_HANDLE scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT);
	SC_HANDLE svc;
	int status = 0;
	bool running = false;

	if (!scm) {
		install_say("cannot open the service manager (as an "
			    "Administrator?)",
			    GetLastError());
		return 1;
	}
	svc = OpenServiceW(scm, INSTALL_NAME,
			   SERVICE_STOP | SERVICE_QUERY_STATUS | DELETE);
	if (!svc && GetLastError() == ERROR_SERVICE_DOES_NOT_EXIST) {
		printf("the service cpupolicyd is not installed\n");
	} else if (!svc) {
		install_say("cannot open the service", GetLastError());
		status = 1;
	} else {
		running = !install_stopped(svc);
		if (running)
			fprintf(stderr, "cpupolicyd: the service did not stop "
					"within 30 s; removed all the same "
					"(it goes once it stops, and gives "
					"back its power settings then)\n");
		if (DeleteService(svc)) {
			printf("removed the service cpupolicyd\n");
		} else if (GetLastError() != ERROR_SERVICE_MARKED_FOR_DELETE) {
			install_say("cannot remove the service",
				    GetLastError());
			status = 1;
		}
		CloseServiceHandle(svc);
	}
	CloseServiceHandle(scm);
	if (ifeo_remove_all() < 0)
		status = 1;
	/* Not while a service that did not stop still holds them. */
	if (!running && install_restore_power(paths_conf_file()) < 0)
		status = 1;
	printf("left in place: %s and the rules in %s\n", paths_conf_file(),
	       paths_rules_dirs());
	return status;
}
