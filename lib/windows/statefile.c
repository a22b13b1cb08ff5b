/* Windows: the daemon's state files (the journal, os.h), under
 * %ProgramData%\cpupolicy\state. The directory is made with a protected
 * DACL for SYSTEM and Administrators alone, and checked, from the
 * volume's root down, for anyone else who could have written it: only
 * SYSTEM, Administrators, TrustedInstaller and the account the daemon
 * runs as may own a directory on the way or hold a right there that
 * changes what the directory holds. A file is replaced whole through a
 * flushed temporary file and MoveFileExW with write-through, so that a
 * crash leaves the old text or the new. The boot a file belongs to is
 * named by the boot time the kernel keeps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "util.h"
#include "win.h"
#include "winapi.h"

/* The rights that change what a directory holds, or who may change it. */
#define STATEFILE_DIR_WRITE                                                    \
	(FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_DELETE_CHILD |           \
	 FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER |            \
	 GENERIC_WRITE | GENERIC_ALL)
/* Above the state directory, as /tmp's sticky bit on Linux: anyone may
 * add a folder (C:\ProgramData lets users), no one but its owner may
 * rename or remove it, unless they may delete any child or rewrite the
 * folder's DACL or owner. */
#define STATEFILE_PARENT_WRITE                                                 \
	(FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER | GENERIC_ALL)
#define STATEFILE_FILE_WRITE                                                   \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | DELETE | \
	 WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL)

/* The account this process runs as, for the owner and ACE checks. */
static bool statefile_is_self(PSID sid)
{
	union {
		TOKEN_USER user;
		unsigned char bytes[sizeof(TOKEN_USER) + ACCOUNTS_SID_MAX];
	} u;
	HANDLE token;
	DWORD len;
	bool self = false;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return false;
	if (GetTokenInformation(token, TokenUser, &u, sizeof(u), &len))
		self = EqualSid(u.user.User.Sid, sid);
	CloseHandle(token);
	return self;
}

static bool statefile_trusted(PSID sid)
{
	PSID ti = NULL;
	bool trusted;

	if (IsWellKnownSid(sid, WinLocalSystemSid) ||
	    IsWellKnownSid(sid, WinBuiltinAdministratorsSid) ||
	    statefile_is_self(sid))
		return true;
	/* NT SERVICE\TrustedInstaller owns C:\ and system folders. */
	if (!ConvertStringSidToSidW(L"S-1-5-80-956008885-3418522649-"
				    L"1831038044-1853292631-2271478464",
				    &ti))
		return false;
	trusted = EqualSid(sid, ti);
	LocalFree(ti);
	return trusted;
}

static void statefile_sid_text(PSID sid, char *buf, size_t size)
{
	wchar_t *text = NULL;

	if (ConvertSidToStringSidW(sid, &text) &&
	    system_utf8(text, buf, size)) {
		LocalFree(text);
		return;
	}
	if (text)
		LocalFree(text);
	snprintf(buf, size, "an unknown account");
}

/* Why an object's owner or DACL lets someone untrusted write it; NULL if
 * nobody can. An ACE only inherited by children (INHERIT_ONLY) does not
 * apply to the object itself; a deny ACE only takes rights away. */
static const char *statefile_unsafe_why(const wchar_t *path, DWORD rights,
					char *why, size_t size)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	char who[96];
	DWORD error;
	const char *result = NULL;

	error = GetNamedSecurityInfoW(path, SE_FILE_OBJECT,
				      OWNER_SECURITY_INFORMATION |
					      DACL_SECURITY_INFORMATION,
				      &owner, NULL, &dacl, NULL, &sd);
	if (error != ERROR_SUCCESS) {
		status_of_win32(error);
		snprintf(why, size, "its security cannot be read (error %lu)",
			 (unsigned long)error);
		return why;
	}
	if (!owner || !statefile_trusted(owner)) {
		statefile_sid_text(owner, who, sizeof(who));
		snprintf(why, size, "owned by %s", owner ? who : "nobody");
		result = why;
	} else if (!dacl) {
		snprintf(why, size, "open to everyone (no DACL)");
		result = why;
	}
	for (WORD i = 0; !result && dacl && i < dacl->AceCount; i++) {
		ACE_HEADER *ace;
		ACCESS_ALLOWED_ACE *allowed;

		if (!GetAce(dacl, i, (void **)&ace))
			continue;
		if (ace->AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->AceFlags & INHERIT_ONLY_ACE))
			continue;
		allowed = (ACCESS_ALLOWED_ACE *)ace;
		if (!(allowed->Mask & rights) ||
		    statefile_trusted((PSID)&allowed->SidStart))
			continue;
		statefile_sid_text((PSID)&allowed->SidStart, who, sizeof(who));
		snprintf(why, size, "writable by %s (rights 0x%lx)", who,
			 (unsigned long)(allowed->Mask & rights));
		result = why;
	}
	LocalFree(sd);
	return result;
}

static enum os_status statefile_step_safe(const char *path, bool last,
					  char *why, size_t size)
{
	wchar_t *wide = system_wide_dup(path);
	DWORD attrs;
	char reason[160];
	enum os_status status = OS_OK;

	if (!wide) {
		snprintf(why, size, "%s is not valid UTF-8", path);
		return OS_FAILED;
	}
	attrs = GetFileAttributesW(wide);
	if (attrs == INVALID_FILE_ATTRIBUTES) {
		status_of_win32(GetLastError());
		snprintf(why, size, "cannot check %s", path);
		status = OS_FAILED;
	} else if (!(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		snprintf(why, size, "%s is not a directory", path);
		status = OS_DENIED;
	} else if (last && (attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
		/* A junction or link: whoever made it chose where the
		 * journal goes. */
		snprintf(why, size, "%s is a junction or symbolic link", path);
		status = OS_DENIED;
	} else if (statefile_unsafe_why(wide,
					last ? STATEFILE_DIR_WRITE
					     : STATEFILE_PARENT_WRITE,
					reason, sizeof(reason))) {
		snprintf(why, size, "%s is %s", path, reason);
		status = OS_DENIED;
	}
	free(wide);
	return status;
}

/* The directory as a full path with backslashes, and where its root ends
 * (after "C:\" or "\\server\share\"); NULL when it is not absolute. */
static char *statefile_full(const char *dir, size_t *root)
{
	wchar_t *wide = system_wide_dup(dir), full[1024];
	char *out;
	DWORD n;

	if (!wide)
		return NULL;
	n = GetFullPathNameW(wide, ARRAYSIZE(full), full, NULL);
	free(wide);
	if (n == 0 || n >= ARRAYSIZE(full))
		return NULL;
	out = xmalloc(4 * ARRAYSIZE(full));
	if (!system_utf8(full, out, 4 * ARRAYSIZE(full))) {
		free(out);
		return NULL;
	}
	if (out[0] && out[1] == ':' && out[2] == '\\') {
		*root = 3;
	} else if (out[0] == '\\' && out[1] == '\\') {
		const char *share = strchr(out + 2, '\\');

		share = share ? strchr(share + 1, '\\') : NULL;
		if (!share) {
			free(out);
			return NULL;
		}
		*root = (size_t)(share - out) + 1;
	} else {
		free(out);
		return NULL;
	}
	while (strlen(out) > *root && out[strlen(out) - 1] == '\\')
		out[strlen(out) - 1] = '\0';
	return out;
}

enum os_status statefile_dir_safe(const char *dir, char *why, size_t size)
{
	size_t root;
	char *path = statefile_full(dir, &root);
	enum os_status status = OS_OK;

	if (!path) {
		snprintf(why, size, "cannot resolve it");
		errno = EINVAL;
		return OS_FAILED;
	}
	for (char *p = path + root; status == OS_OK;) {
		char *end = p + strcspn(p, "\\");
		char c = *end;
		bool last = c == '\0';

		*end = '\0';
		status = statefile_step_safe(path, last, why, size);
		*end = c;
		if (last)
			break;
		p = end + 1;
	}
	free(path);
	return status;
}

/* Each directory on the way made if missing; the last with a DACL of its
 * own (protected: nothing inherited from %ProgramData%, where users may
 * create folders) for SYSTEM and Administrators. */
enum os_status statefile_mkdir(const char *dir)
{
	size_t root;
	char *path = statefile_full(dir, &root);
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	enum os_status status = OS_OK;

	if (!path) {
		errno = EINVAL;
		return OS_FAILED;
	}
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", SDDL_REVISION_1,
		    &sa.lpSecurityDescriptor, NULL)) {
		status_of_win32(GetLastError());
		free(path);
		return OS_FAILED;
	}
	for (char *p = path + root; status == OS_OK;) {
		char *end = p + strcspn(p, "\\");
		char c = *end;
		bool last = c == '\0';
		wchar_t *wide;

		*end = '\0';
		wide = system_wide_dup(path);
		if (!wide || (!CreateDirectoryW(wide, last ? &sa : NULL) &&
			      GetLastError() != ERROR_ALREADY_EXISTS)) {
			if (wide)
				status_of_win32(GetLastError());
			status = OS_FAILED;
		}
		free(wide);
		*end = c;
		if (last)
			break;
		p = end + 1;
	}
	LocalFree(sa.lpSecurityDescriptor);
	free(path);
	return status;
}

/* 100 ns since 1601, as FILETIME and the kernel count. */
static bool statefile_boot_time(unsigned long long *boot)
{
	const struct winapi *w = winapi_get();
	struct {
		LARGE_INTEGER BootTime, CurrentTime, TimeZoneBias;
		ULONG TimeZoneId, Reserved;
		ULONGLONG BootTimeBias, SleepTimeBias;
	} tod;
	ULONG got = 0;

	if (!w->NtQuerySystemInformation ||
	    w->NtQuerySystemInformation(3 /* SystemTimeOfDayInformation */,
					&tod, sizeof(tod), &got) < 0 ||
	    got < sizeof(LARGE_INTEGER) || tod.BootTime.QuadPart <= 0)
		return false;
	*boot = (unsigned long long)tod.BootTime.QuadPart;
	return true;
}

/* OS_GONE: there is no such file. A file writable by the untrusted, or
 * not a plain file (a directory, a link), is refused. */
enum os_status statefile_load(const char *file, size_t max,
			      struct statefile *sf)
{
	WIN32_FILE_ATTRIBUTE_DATA data;
	wchar_t *wide = system_wide_dup(file);
	unsigned long long boot, written;
	enum os_status status;

	*sf = (struct statefile){0};
	if (!wide) {
		snprintf(sf->why, sizeof(sf->why), "not valid UTF-8");
		return OS_FAILED;
	}
	if (!GetFileAttributesExW(wide, GetFileExInfoStandard, &data)) {
		status = status_of_win32(GetLastError());
		snprintf(sf->why, sizeof(sf->why), "cannot check");
		free(wide);
		return status == OS_GONE ? OS_GONE : OS_FAILED;
	}
	if (data.dwFileAttributes &
	    (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT |
	     FILE_ATTRIBUTE_DEVICE)) {
		snprintf(sf->why, sizeof(sf->why), "not a regular file");
		free(wide);
		return OS_DENIED;
	}
	if (statefile_unsafe_why(wide, STATEFILE_FILE_WRITE, sf->why,
				 sizeof(sf->why))) {
		free(wide);
		return OS_DENIED;
	}
	free(wide);
	if (util_read_file(file, max, &sf->text, &sf->len) < 0) {
		snprintf(sf->why, sizeof(sf->why), "cannot read");
		return OS_FAILED;
	}
	written = (unsigned long long)data.ftLastWriteTime.dwHighDateTime
			  << 32 |
		  data.ftLastWriteTime.dwLowDateTime;
	sf->before_boot = !statefile_boot_time(&boot) || written < boot;
	return OS_OK;
}

static bool statefile_write_all(HANDLE h, const char *text, size_t len)
{
	while (len) {
		DWORD chunk = len > (1u << 30) ? 1u << 30 : (DWORD)len, n = 0;

		if (!WriteFile(h, text, chunk, &n, NULL) || n == 0)
			return false;
		text += n;
		len -= n;
	}
	return true;
}

enum os_status statefile_replace(const char *file, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.new", file);
	wchar_t *wtmp = system_wide_dup(tmp), *wfile = system_wide_dup(file);
	enum os_status status = OS_OK;
	HANDLE h = INVALID_HANDLE_VALUE;

	free(tmp);
	if (!wtmp || !wfile) {
		errno = EINVAL;
		status = OS_FAILED;
		goto out;
	}
	/* The new file inherits the directory's DACL. */
	h = CreateFileW(wtmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL | FILE_FLAG_WRITE_THROUGH, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		status_of_win32(GetLastError());
		status = OS_FAILED;
		goto out;
	}
	if (!statefile_write_all(h, text, len) || !FlushFileBuffers(h)) {
		status_of_win32(GetLastError());
		status = OS_FAILED;
	}
	if (!CloseHandle(h) && status == OS_OK) {
		status_of_win32(GetLastError());
		status = OS_FAILED;
	}
	if (status == OS_OK &&
	    !MoveFileExW(wtmp, wfile,
			 MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
		status_of_win32(GetLastError());
		status = OS_FAILED;
	}
	if (status != OS_OK) {
		int saved = errno;

		DeleteFileW(wtmp);
		errno = saved;
	}
out:
	free(wtmp);
	free(wfile);
	return status;
}

enum os_status statefile_remove(const char *file)
{
	wchar_t *wide = system_wide_dup(file);
	enum os_status status = OS_OK;

	if (!wide) {
		errno = EINVAL;
		return OS_FAILED;
	}
	if (!DeleteFileW(wide) && status_of_win32(GetLastError()) != OS_GONE)
		status = OS_FAILED;
	free(wide);
	return status;
}

/* The boot time the kernel keeps (SystemTimeOfDayInformation), in hex:
 * the same for the whole boot, another after a reboot. Windows moves it
 * with the clock when the time is set, which makes the journal take a
 * file of this boot for an earlier boot's. Without that call, the
 * current time less the time since boot, to the minute. */
enum os_status statefile_boot_id(const char *procfs, char *id, size_t size,
				 char *from, size_t from_size)
{
	unsigned long long boot;
	int n;

	(void)procfs;
	if (statefile_boot_time(&boot)) {
		snprintf(from, from_size,
			 "the boot time "
			 "(SystemTimeOfDayInformation)");
	} else {
		FILETIME now;

		GetSystemTimeAsFileTime(&now);
		boot = ((unsigned long long)now.dwHighDateTime << 32 |
			now.dwLowDateTime) -
		       GetTickCount64() * 10000ull;
		boot -= boot % (60ull * 10000000ull);
		snprintf(from, from_size, "the clock less the time since boot");
	}
	n = snprintf(id, size, "%016llx", boot);
	if (n < 0 || (size_t)n >= size) {
		errno = EOVERFLOW;
		return OS_FAILED;
	}
	return OS_OK;
}
