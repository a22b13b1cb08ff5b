/* Windows: cpupolicyctl reaches the daemon on its named pipe. -S takes
 * the pipe's name (\\.\pipe\cpupolicy, or cpupolicy alone). Every
 * instance busy: it waits for one, 5 s at most. The client lets the
 * server identify it, no more (SECURITY_IDENTIFICATION): a program that
 * took the pipe's name cannot act as the user who runs cpupolicyctl.
 * Only "no such pipe" means there is no daemon. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "util.h"
#include "win.h"
#include "../ctl.h"

#define DIAL_WAIT_MS 5000

struct dial {
	HANDLE pipe;
};

static bool dial_name(const char *path, wchar_t *out, size_t count)
{
	char full[300];

	if (strchr(path, '\\') || strchr(path, '/'))
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "\\\\.\\pipe\\%s", path);
	return system_wide(full, out, count);
}

static HANDLE dial_try(const wchar_t *name)
{
	return CreateFileW(
		name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
		SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
}

enum dial_status dial_open(const char *path, struct dial **out)
{
	wchar_t name[300];
	ULONGLONG until = GetTickCount64() + DIAL_WAIT_MS;
	HANDLE pipe;

	if (!dial_name(path, name, ARRAY_SIZE(name))) {
		errno = ENAMETOOLONG;
		return DIAL_FAILED;
	}
	while ((pipe = dial_try(name)) == INVALID_HANDLE_VALUE) {
		DWORD error = GetLastError();
		ULONGLONG now = GetTickCount64();

		if (error == ERROR_FILE_NOT_FOUND) {
			errno = ENOENT;
			return DIAL_NOBODY;
		}
		if (error != ERROR_PIPE_BUSY || now >= until) {
			errno = error == ERROR_PIPE_BUSY
					? ETIMEDOUT
					: status_errno_of_win32(error);
			return DIAL_FAILED;
		}
		/* Another client took the instance: wait for the next. */
		WaitNamedPipeW(name, (DWORD)(until - now));
	}
	*out = xmalloc(sizeof(**out));
	(*out)->pipe = pipe;
	return DIAL_OK;
}

int dial_write(struct dial *d, const char *buf, size_t len)
{
	while (len) {
		DWORD n;

		if (!WriteFile(d->pipe, buf, (DWORD)len, &n, NULL)) {
			errno = status_errno_of_win32(GetLastError());
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* The daemon closes its end after the answer: a broken pipe is the end. */
long dial_read(struct dial *d, char *buf, size_t size)
{
	DWORD n;

	if (ReadFile(d->pipe, buf, (DWORD)size, &n, NULL))
		return (long)n;
	if (GetLastError() == ERROR_BROKEN_PIPE)
		return 0;
	errno = status_errno_of_win32(GetLastError());
	return -1;
}

void dial_close(struct dial *d)
{
	CloseHandle(d->pipe);
	free(d);
}
