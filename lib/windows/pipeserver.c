/* Windows: who serves a named pipe, told from a handle to it (a client's
 * end): the process the pipe names (GetNamedPipeServerProcessId), that
 * process's token, and the pipe's owner, which its creator cannot make
 * SYSTEM or Administrators without being one (the daemon sets
 * Administrators, policyd/windows/listen.c). A pipe's name is anyone's
 * to take while the daemon is not there. */
#include <stdio.h>
#include <stdlib.h>

#include <windows.h>

#include <aclapi.h>

#include "win.h"
#include "winapi.h"

/* The group is in the token and counts (not there only to deny). */
static bool pipeserver_group_enabled(HANDLE token, WELL_KNOWN_SID_TYPE type)
{
	TOKEN_GROUPS *groups;
	DWORD len = 0;
	bool found = false;

	GetTokenInformation(token, TokenGroups, NULL, 0, &len);
	if (!len || !(groups = malloc(len)))
		return false;
	if (GetTokenInformation(token, TokenGroups, groups, len, &len)) {
		for (DWORD i = 0; i < groups->GroupCount && !found; i++)
			found = (groups->Groups[i].Attributes &
				 SE_GROUP_ENABLED) &&
				IsWellKnownSid(groups->Groups[i].Sid, type);
	}
	free(groups);
	return found;
}

/* SYSTEM (the service), or an elevated administrator (a daemon started
 * from an elevated console): TokenElevation, and Administrators enabled.
 * https://learn.microsoft.com/windows/win32/api/winnt/ne-winnt-token_information_class
 */
static bool pipeserver_token_trusted(HANDLE token, char *account, size_t size)
{
	union {
		TOKEN_USER user;
		unsigned char bytes[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	} u;
	TOKEN_ELEVATION elevation;
	DWORD len;

	if (!GetTokenInformation(token, TokenUser, &u, sizeof(u), &len))
		return false;
	accounts_text(u.user.User.Sid, account, size);
	if (IsWellKnownSid(u.user.User.Sid, WinLocalSystemSid))
		return true;
	return GetTokenInformation(token, TokenElevation, &elevation,
				   sizeof(elevation), &len) &&
	       elevation.TokenIsElevated &&
	       pipeserver_group_enabled(token, WinBuiltinAdministratorsSid);
}

/* The process the pipe names as its server: its program, and its token
 * where this process may read it (a standard user may not read a
 * service's). GetNamedPipeServerProcessId works on the client's end:
 * https://learn.microsoft.com/windows/win32/api/winbase/nf-winbase-getnamedpipeserverprocessid
 */
bool pipeserver_of(HANDLE pipe, struct pipeserver *s)
{
	wchar_t image[MAX_PATH];
	DWORD len = ARRAYSIZE(image);
	HANDLE process, token;

	*s = (struct pipeserver){0};
	if (!winapi_get()->GetNamedPipeServerProcessId(pipe, &s->pid))
		return false;
	process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, s->pid);
	if (!process)
		return true;
	if (QueryFullProcessImageNameW(process, 0, image, &len))
		system_utf8(image, s->image, sizeof(s->image));
	if (OpenProcessToken(process, TOKEN_QUERY, &token)) {
		s->token_read = true;
		s->trusted = pipeserver_token_trusted(token, s->account,
						      sizeof(s->account));
		CloseHandle(token);
	}
	CloseHandle(process);
	return true;
}

/* "pid 1234 (C:\Users\x\y.exe, DOMAIN\x)", as much as is known. */
void pipeserver_text(const struct pipeserver *s, char *buf, size_t size)
{
	snprintf(buf, size, "pid %lu%s%s%s%s%s", s->pid,
		 s->image[0] || s->account[0] ? " (" : "", s->image,
		 s->image[0] && s->account[0] ? ", " : "", s->account,
		 s->image[0] || s->account[0] ? ")" : "");
}

enum pipeserver_owner {
	PIPESERVER_OWNER_NONE, /* none recorded (Wine keeps none on pipes) */
	PIPESERVER_OWNER_TRUSTED,
	PIPESERVER_OWNER_OTHER,
	PIPESERVER_OWNER_UNREADABLE,
};

/* The pipe's owner, read with the READ_CONTROL that GENERIC_READ holds.
 * https://learn.microsoft.com/windows/win32/api/aclapi/nf-aclapi-getsecurityinfo
 */
static enum pipeserver_owner pipeserver_owner(HANDLE pipe, char *name,
					      size_t size)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	enum pipeserver_owner result;

	if (winapi_get()->GetSecurityInfo(
		    pipe, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION, &owner,
		    NULL, NULL, NULL, &sd) != ERROR_SUCCESS)
		return PIPESERVER_OWNER_UNREADABLE;
	if (!owner) {
		result = PIPESERVER_OWNER_NONE;
	} else if (IsWellKnownSid(owner, WinLocalSystemSid) ||
		   IsWellKnownSid(owner, WinBuiltinAdministratorsSid)) {
		result = PIPESERVER_OWNER_TRUSTED;
	} else {
		accounts_text(owner, name, size);
		result = PIPESERVER_OWNER_OTHER;
	}
	LocalFree(sd);
	return result;
}

/* Both must agree where both can be read: the pipe's owner, and the
 * token of the process it names. The owner alone decides where that
 * token is not this user's to read (a service's, for a standard user);
 * it also holds should the process named be gone and its number reused,
 * as the pid is only the creator's as the pipe recorded it. */
bool pipeserver_trusted(HANDLE pipe, char *why, size_t size)
{
	struct pipeserver s;
	char owner[160] = "", server[800];

	if (!pipeserver_of(pipe, &s)) {
		snprintf(why, size, "which process serves it cannot be told");
		return false;
	}
	pipeserver_text(&s, server, sizeof(server));
	switch (pipeserver_owner(pipe, owner, sizeof(owner))) {
	case PIPESERVER_OWNER_OTHER:
		snprintf(why, size,
			 "it belongs to %s, not SYSTEM nor Administrators "
			 "(served by %s)",
			 owner, server);
		return false;
	case PIPESERVER_OWNER_UNREADABLE:
		snprintf(why, size, "its owner cannot be read (served by %s)",
			 server);
		return false;
	case PIPESERVER_OWNER_TRUSTED:
		if (!s.token_read)
			return true;
		break;
	case PIPESERVER_OWNER_NONE:
		if (!s.token_read) {
			snprintf(why, size, "who serves it cannot be told (%s)",
				 server);
			return false;
		}
		break;
	}
	if (s.trusted)
		return true;
	snprintf(why, size,
		 "it is served by %s, not SYSTEM nor an elevated administrator",
		 server);
	return false;
}
