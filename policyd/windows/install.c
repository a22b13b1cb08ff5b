/* Windows: cpupolicyd.exe --install registers the service (own process,
 * LocalSystem, automatic start, restarted on failure, the daemon's own
 * full path), makes %ProgramData%\cpupolicy\ with rules.d\ and state\
 * under an ACL of their own, and writes a default cpupolicyd.conf where
 * none is. Installing again updates the service's path and settings.
 * --uninstall stops and deletes the service and takes away every Image
 * File Execution Options value the daemon wrote; the config, the rules
 * and the log stay, as a package's removal leaves /etc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "internal.h"
#include "log.h"
#include "os.h"
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
 * from %ProgramData%, where any user may create folders. */
#define INSTALL_SDDL_READABLE                                                  \
	L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)"
#define INSTALL_SDDL_PRIVATE L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"

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

/* A folder with the ACL given; one there already (made by anybody) gets
 * it, and Administrators as its owner, in its place. */
static int install_folder(const char *dir, const wchar_t *sddl)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	wchar_t path[MAX_PATH];
	PACL dacl = NULL;
	PSID owner = NULL;
	BOOL present = FALSE, defaulted = FALSE;
	DWORD error;
	int status = -1;

	if (!system_wide(dir, path, ARRAY_SIZE(path)) ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, &sd, NULL)) {
		fprintf(stderr, "cpupolicyd: %s: cannot name it\n", dir);
		goto out;
	}
	sa.lpSecurityDescriptor = sd;
	if (CreateDirectoryW(path, &sa)) {
		status = 0;
		goto out;
	}
	if (GetLastError() != ERROR_ALREADY_EXISTS) {
		install_say(dir, GetLastError());
		goto out;
	}
	GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
	GetSecurityDescriptorOwner(sd, &owner, &defaulted);
	error = SetNamedSecurityInfoW(
		path, SE_FILE_OBJECT,
		DACL_SECURITY_INFORMATION |
			PROTECTED_DACL_SECURITY_INFORMATION |
			OWNER_SECURITY_INFORMATION,
		owner, NULL, dacl, NULL);
	if (error != ERROR_SUCCESS) {
		install_say(dir, error);
		fprintf(stderr,
			"cpupolicyd: %s was there already and keeps an ACL "
			"cpupolicyd did not set: check who may write to it\n",
			dir);
		goto out;
	}
	/* Inheritable entries reach what is inside, unless it protects
	 * its own ACL: a file planted before the install keeps it. */
	printf("%s was there already: its ACL and owner reset; check what "
	       "is in it\n",
	       dir);
	status = 0;
out:
	if (sd)
		LocalFree(sd);
	return status;
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
	if (install_folder(base, INSTALL_SDDL_READABLE) < 0 ||
	    install_folder(paths_rules_dirs(), INSTALL_SDDL_READABLE) < 0 ||
	    install_folder(paths_state_dir(), INSTALL_SDDL_PRIVATE) < 0)
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

int install_remove(void)
{
	SC_HANDLE scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT);
	SC_HANDLE svc;
	int status = 0;

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
		if (!install_stopped(svc))
			fprintf(stderr, "cpupolicyd: the service did not stop "
					"within 30 s; removed all the same "
					"(it goes once it stops)\n");
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
	printf("left in place: %s and the rules in %s\n", paths_conf_file(),
	       paths_rules_dirs());
	return status;
}
