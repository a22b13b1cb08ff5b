/* Windows: the daemon's state files (the journal, os.h), under
 * %ProgramData%\cpupolicy\state. The directory is made with a protected
 * DACL for SYSTEM and Administrators alone, and checked, from the
 * volume's root down, for anyone else who could have written it (the
 * walk of trust.c): only SYSTEM, Administrators, TrustedInstaller and
 * the account the daemon runs as may own a directory on the way or hold
 * a right there that changes what the directory holds. A file is replaced whole
 * through a flushed temporary file and MoveFileExW with write-through, so that
 * a crash leaves the old text or the new. The boot a file belongs to is named
 * by the boot time the kernel keeps. */
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

enum os_status statefile_dir_safe(const char *dir, char *why, size_t size)
{
	char reason[400], *at = NULL;
	bool resolved;
	enum trust_fault fault = trust_walk(dir, TRUST_DIR, &at, &resolved,
					    reason, sizeof(reason));

	switch (fault) {
	case TRUST_FAULT_NONE:
		return OS_OK;
	case TRUST_FAULT_OWNER:
	case TRUST_FAULT_WRITABLE:
	case TRUST_FAULT_TYPE:
		snprintf(why, size, "%s is %s", at, reason);
		free(at);
		return OS_DENIED;
	case TRUST_FAULT_UNKNOWN:
		break;
	}
	if (at && strcmp(at, dir) != 0)
		snprintf(why, size, "cannot check %s", at);
	else
		snprintf(why, size, "cannot resolve it");
	free(at);
	return OS_FAILED;
}

/* The last error as the caller's status (errno too, for its message);
 * never OS_OK, even where a failed call left no error. */
static enum os_status statefile_status(void)
{
	enum os_status status = status_of_win32(GetLastError());

	return status == OS_OK ? OS_FAILED : status;
}

/* Each directory on the way made if missing; the last with a DACL of its
 * own (protected: nothing inherited from %ProgramData%, where users may
 * create folders) for SYSTEM and Administrators. */
enum os_status statefile_mkdir(const char *dir)
{
	size_t root;
	char *path = trust_full_path(dir, &root);
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	enum os_status status = OS_OK;

	if (!path) {
		errno = EINVAL;
		return OS_FAILED;
	}
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", SDDL_REVISION_1,
		    &sa.lpSecurityDescriptor, NULL)) {
		status = statefile_status();
		free(path);
		return status;
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
			status = wide ? statefile_status() : OS_FAILED;
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
	if (trust_object_fault(wide, TRUST_FILE_WRITE, sf->why,
			       sizeof(sf->why)) != TRUST_FAULT_NONE) {
		free(wide);
		return OS_DENIED;
	}
	free(wide);
	if (files_read(file, max, &sf->text, &sf->len) != OS_OK) {
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
		status = statefile_status();
		goto out;
	}
	if (!statefile_write_all(h, text, len) || !FlushFileBuffers(h)) {
		status = statefile_status();
	}
	if (!CloseHandle(h) && status == OS_OK) {
		status = statefile_status();
	}
	if (status == OS_OK &&
	    !MoveFileExW(wtmp, wfile,
			 MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
		status = statefile_status();
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
	if (!DeleteFileW(wide)) {
		status = statefile_status();
		if (status == OS_GONE) /* already gone is what was asked */
			status = OS_OK;
	}
	free(wide);
	return status;
}

/* The boot time the kernel keeps (SystemTimeOfDayInformation), in hex:
 * the same for the whole boot, another after a reboot. Windows moves it
 * with the clock when the time is set, which makes the journal take a
 * file of this boot for an earlier boot's. Without that call, the
 * current time less the time since boot, to the minute. */
enum os_status statefile_boot_id(char *id, size_t size, char *from,
				 size_t from_size)
{
	unsigned long long boot;
	int n;

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
