/* Windows: state files written whole, then moved into place, the state
 * directory made as the daemon's installation makes it; an import's
 * files staged beside their place and put there once read back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <sddl.h>

#include "util.h"
#include "win.h"
#include "../ctl.h"

/* A reader sees the old text or the new: MoveFileExW replaces the file
 * at once, and the text is on disk before it does (FlushFileBuffers,
 * MOVEFILE_WRITE_THROUGH). */
int files_replace(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	wchar_t wide[MAX_PATH], wide_tmp[MAX_PATH];
	HANDLE h;
	DWORD n, error = 0;

	if (!system_wide(path, wide, MAX_PATH) ||
	    !system_wide(tmp, wide_tmp, MAX_PATH)) {
		free(tmp);
		errno = ENAMETOOLONG;
		return -1;
	}
	free(tmp);
	h = CreateFileW(wide_tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = status_errno_of_win32(GetLastError());
		return -1;
	}
	if (!WriteFile(h, text, (DWORD)len, &n, NULL) || n != len ||
	    !FlushFileBuffers(h))
		error = GetLastError();
	CloseHandle(h);
	if (!error &&
	    !MoveFileExW(wide_tmp, wide,
			 MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		error = GetLastError();
	if (error) {
		DeleteFileW(wide_tmp);
		errno = status_errno_of_win32(error);
		return -1;
	}
	return 0;
}

/* SYSTEM's and Administrators' alone, as --install makes state\; one
 * there already stays as it is. */
void files_private_dir(const char *path)
{
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	wchar_t wide[MAX_PATH];

	if (!system_wide(path, wide, MAX_PATH) ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    L"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", SDDL_REVISION_1,
		    &sa.lpSecurityDescriptor, NULL))
		return;
	CreateDirectoryW(wide, &sa);
	LocalFree(sa.lpSecurityDescriptor);
}

/* The text in a new file beside path, under a name no rules directory
 * loads (a dot first, no .rules last): CREATE_NEW, so nothing someone
 * made ready under that name is written through; the next number when
 * one is there. On disk (FlushFileBuffers). *staged: its path, the
 * caller's to free. */
enum os_status files_stage(const char *path, const char *text, size_t len,
			   char **staged)
{
	const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
	const char *base = back > slash ? back + 1 : slash ? slash + 1 : path;
	wchar_t wide[MAX_PATH];
	HANDLE h = INVALID_HANDLE_VALUE;
	DWORD n, error = ERROR_FILE_EXISTS;
	char *tmp = NULL;

	for (unsigned i = 0; i < 100 && error == ERROR_FILE_EXISTS; i++) {
		free(tmp);
		tmp = xasprintf("%.*s.%s.%lu-%u", (int)(base - path), path,
				base, (unsigned long)GetCurrentProcessId(), i);
		if (!system_wide(tmp, wide, MAX_PATH)) {
			free(tmp);
			errno = ENAMETOOLONG;
			return OS_FAILED;
		}
		h = CreateFileW(wide, GENERIC_WRITE, 0, NULL, CREATE_NEW,
				FILE_ATTRIBUTE_NORMAL, NULL);
		error = h == INVALID_HANDLE_VALUE ? GetLastError() : 0;
	}
	if (error) {
		free(tmp);
		return status_of_win32(error);
	}
	if (!WriteFile(h, text, (DWORD)len, &n, NULL) || n != len ||
	    !FlushFileBuffers(h))
		error = GetLastError();
	CloseHandle(h);
	if (error) {
		DeleteFileW(wide);
		free(tmp);
		return status_of_win32(error);
	}
	*staged = tmp;
	return OS_OK;
}

/* A staged file in its place, at once. */
enum os_status files_commit(const char *staged, const char *path)
{
	wchar_t from[MAX_PATH], to[MAX_PATH];

	if (!system_wide(staged, from, MAX_PATH) ||
	    !system_wide(path, to, MAX_PATH)) {
		errno = ENAMETOOLONG;
		return OS_FAILED;
	}
	if (!MoveFileExW(from, to,
			 MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		return status_of_win32(GetLastError());
	return OS_OK;
}

void files_discard(const char *staged)
{
	wchar_t wide[MAX_PATH];

	if (system_wide(staged, wide, MAX_PATH))
		DeleteFileW(wide);
}

/* An output directory that is not there yet: this one alone, not its
 * parents; its ACL inherited from the folder it is in. */
enum os_status files_make_dir(const char *path)
{
	wchar_t wide[MAX_PATH];

	if (!system_wide(path, wide, MAX_PATH)) {
		errno = ENAMETOOLONG;
		return OS_FAILED;
	}
	if (!CreateDirectoryW(wide, NULL))
		return status_of_win32(GetLastError());
	return OS_OK;
}

void files_remove_dir(const char *path)
{
	wchar_t wide[MAX_PATH];

	if (system_wide(path, wide, MAX_PATH))
		RemoveDirectoryW(wide);
}
