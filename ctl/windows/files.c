/* Windows: state files written whole, then moved into place, and the
 * state directory made as the daemon's installation makes it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
