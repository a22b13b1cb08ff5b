/* Windows: privileges are the token's. The daemon enables only those its
 * rules need: SeDebugPrivilege to open other users' and services'
 * processes (their priority, placement and image path), and
 * SeIncreaseBasePriorityPrivilege where a rule asks for the realtime
 * class (without it Windows gives High instead, silently). Every other
 * privilege is removed from the token for good (SE_PRIVILEGE_REMOVED):
 * it cannot be enabled again, by the daemon or by anything that takes
 * it over. SeChangeNotifyPrivilege stays, as the service manager keeps it
 * for every service: without it each folder on a path is access-checked
 * on the way through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "internal.h"
#include "log.h"
#include "util.h"
#include "win.h"

#define CAPS_DEBUG     L"SeDebugPrivilege"
#define CAPS_REALTIME  L"SeIncreaseBasePriorityPrivilege"
#define CAPS_TRAVERSE  L"SeChangeNotifyPrivilege"
#define CAPS_MAX_NAMES 3

/* The privileges a need takes (SeChangeNotifyPrivilege aside). Power
 * settings (CAPS_NEED_SYSTEM) take an Administrator's token, no
 * privilege. */
static size_t caps_of(unsigned need, const wchar_t *names[CAPS_MAX_NAMES])
{
	size_t count = 0;

	if (need & (CAPS_NEED_PRIORITY | CAPS_NEED_INSPECT))
		names[count++] = CAPS_DEBUG;
	if (need & CAPS_NEED_REALTIME)
		names[count++] = CAPS_REALTIME;
	return count;
}

/* Windows hides no process from an Administrator's or SYSTEM's view the
 * way a hidepid /proc does: opening it is what SeDebugPrivilege is for. */
bool caps_proc_hidden(void)
{
	return false;
}

static void caps_name(const wchar_t *name, char *buf, size_t size)
{
	if (!system_utf8(name, buf, size))
		snprintf(buf, size, "a privilege");
}

/* The privileges a need takes, by name (caps_common.c compares and lists
 * them). */
size_t caps_names(unsigned need, char names[CAPS_NAMES_MAX][CAPS_NAME_MAX])
{
	const wchar_t *wide[CAPS_MAX_NAMES];
	size_t count = caps_of(need, wide);

	for (size_t i = 0; i < count; i++)
		caps_name(wide[i], names[i], CAPS_NAME_MAX);
	return count;
}

static TOKEN_PRIVILEGES *caps_token_privileges(HANDLE token)
{
	DWORD len = 0;
	TOKEN_PRIVILEGES *tp;

	GetTokenInformation(token, TokenPrivileges, NULL, 0, &len);
	if (!len)
		return NULL;
	tp = xmalloc(len);
	if (!GetTokenInformation(token, TokenPrivileges, tp, len, &len)) {
		free(tp);
		return NULL;
	}
	return tp;
}

static bool caps_is(const LUID_AND_ATTRIBUTES *p, const wchar_t *name)
{
	LUID luid;

	return LookupPrivilegeValueW(NULL, name, &luid) &&
	       luid.LowPart == p->Luid.LowPart &&
	       luid.HighPart == p->Luid.HighPart;
}

static bool caps_wanted(const LUID_AND_ATTRIBUTES *p,
			const wchar_t *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (caps_is(p, names[i]))
			return true;
	}
	return caps_is(p, CAPS_TRAVERSE);
}

/* A kept privilege the token never had: the daemon runs on (it still
 * manages what its own rights reach), and says what it will miss. */
static void caps_absent(const wchar_t *name)
{
	if (wcscmp(name, CAPS_REALTIME) == 0)
		log_warnx("SeIncreaseBasePriorityPrivilege is not held: rules "
			  "asking for the realtime class get High instead "
			  "(Windows does so without an error)");
	else
		log_warnx("SeDebugPrivilege is not held: processes of other "
			  "users and of services may refuse their policy (run "
			  "cpupolicyd as the service, or as an elevated "
			  "Administrator)");
}

/* Each privilege of the token is enabled when kept, removed otherwise;
 * one adjustment for all, then checked: AdjustTokenPrivileges succeeds
 * with ERROR_NOT_ALL_ASSIGNED when it did not do everything. Any
 * failure is fatal for the caller. */
static int caps_adjust(HANDLE token, const wchar_t *const *names, size_t count)
{
	TOKEN_PRIVILEGES *tp = caps_token_privileges(token);
	bool held[CAPS_MAX_NAMES] = {false};
	int status = -1;

	if (!tp)
		return -1;
	for (DWORD i = 0; i < tp->PrivilegeCount; i++) {
		LUID_AND_ATTRIBUTES *p = &tp->Privileges[i];
		bool keep = caps_wanted(p, names, count);

		for (size_t n = 0; n < count; n++)
			held[n] = held[n] || caps_is(p, names[n]);
		p->Attributes =
			keep ? SE_PRIVILEGE_ENABLED : SE_PRIVILEGE_REMOVED;
	}
	if (AdjustTokenPrivileges(token, FALSE, tp, 0, NULL, NULL) &&
	    GetLastError() == ERROR_SUCCESS)
		status = 0;
	free(tp);
	for (size_t n = 0; status == 0 && n < count; n++) {
		if (!held[n])
			caps_absent(names[n]);
	}
	return status;
}

/* What is left, for the check: nothing beyond the kept ones. */
static bool caps_only(HANDLE token, const wchar_t *const *names, size_t count)
{
	TOKEN_PRIVILEGES *tp = caps_token_privileges(token);
	bool only = tp != NULL;

	for (DWORD i = 0; tp && i < tp->PrivilegeCount; i++)
		only = only && caps_wanted(&tp->Privileges[i], names, count);
	free(tp);
	return only;
}

/* Any failure is fatal for the caller, as on Linux; one of the token's
 * own is OS_FAILED, as no single error tells why a privilege stayed. */
enum os_status caps_keep_only(unsigned need)
{
	const wchar_t *names[CAPS_MAX_NAMES];
	size_t count = caps_of(need, names);
	HANDLE token;
	enum os_status status = OS_FAILED;

	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token)) {
		status = status_of_win32(GetLastError());
		log_error("cannot open the daemon's own token");
		return status;
	}
	if (caps_adjust(token, names, count) == 0 &&
	    caps_only(token, names, count))
		status = OS_OK;
	else
		log_error("cannot remove the privileges the rules do not "
			  "need from the daemon's token");
	CloseHandle(token);
	return status;
}
