/* Windows: a GetLastError value as the seam's status (os.h), with an errno
 * for the caller's message. What each means for the calls behind the
 * seam: ERROR_INVALID_PARAMETER from OpenProcess and OpenThread is a
 * process or thread id that names nothing (any more); the *_NOT_FOUND
 * ones a file; ACCESS_DENIED and PRIVILEGE_NOT_HELD a refusal (a
 * protected process, another user's without SeDebugPrivilege); the
 * NOT_SUPPORTED family a call this Windows (or Wine) does not have;
 * anything else may work when tried again. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "win.h"

enum os_status status_of_win32(DWORD error)
{
	errno = status_errno_of_win32(error);
	switch (error) {
	case ERROR_SUCCESS:
		return OS_OK;
	case ERROR_INVALID_PARAMETER:
	case ERROR_INVALID_HANDLE:
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_PARTIAL_COPY: /* reading a process that is exiting */
	case ERROR_NOACCESS:
		return OS_GONE;
	case ERROR_ACCESS_DENIED:
	case ERROR_PRIVILEGE_NOT_HELD:
	case ERROR_WRITE_PROTECT:
		return OS_DENIED;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
	case ERROR_INVALID_FUNCTION:
	case ERROR_PROC_NOT_FOUND:
		return OS_UNSUPPORTED;
	}
	return OS_FAILED;
}

int status_errno_of_win32(DWORD error)
{
	switch (error) {
	case ERROR_SUCCESS:
		return 0;
	case ERROR_INVALID_PARAMETER:
	case ERROR_INVALID_HANDLE:
	case ERROR_PARTIAL_COPY:
	case ERROR_NOACCESS:
		return ESRCH;
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_WRITE_PROTECT:
		return EACCES;
	case ERROR_PRIVILEGE_NOT_HELD:
		return EPERM;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
	case ERROR_INVALID_FUNCTION:
	case ERROR_PROC_NOT_FOUND:
		return ENOSYS;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_INSUFFICIENT_BUFFER:
	case ERROR_BUFFER_OVERFLOW:
		return ENAMETOOLONG;
	}
	return EIO;
}

void status_message(DWORD error, char *buf, size_t size)
{
	wchar_t wide[256];
	DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM |
					 FORMAT_MESSAGE_IGNORE_INSERTS,
				 NULL, error, 0, wide, ARRAYSIZE(wide), NULL);

	while (n > 0 && (wide[n - 1] == L'\r' || wide[n - 1] == L'\n' ||
			 wide[n - 1] == L'.' || wide[n - 1] == L' '))
		wide[--n] = L'\0';
	if (n == 0 || !system_utf8(wide, buf, size))
		snprintf(buf, size, "Windows error %lu", (unsigned long)error);
}
