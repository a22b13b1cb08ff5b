/* Windows: cpupolicyctl reaches the daemon on its named pipe. -S takes
 * the pipe's name (\\.\pipe\cpupolicy, or cpupolicy alone). Every
 * instance busy: it waits for one, until the deadline. The client lets
 * the server identify it, no more (SECURITY_IDENTIFICATION): a program
 * that took the pipe's name cannot act as the user who runs
 * cpupolicyctl, and is found out before it is sent anything
 * (pipeserver_trusted). Reads and writes are overlapped, so that each ends
 * by the deadline too. Only "no such pipe" means there is no daemon. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "os.h"
#include "util.h"
#include "win.h"
#include "../ctl.h"

struct dial {
	HANDLE pipe;
	OVERLAPPED ov;
	long long deadline_ns;
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

/* Milliseconds left, at least 1 while any is; 0 when none. */
static DWORD dial_left_ms(long long deadline_ns)
{
	long long left = deadline_ns - timing_now_ns();

	if (left <= 0)
		return 0;
	return (DWORD)((left + 999999) / 1000000);
}

static HANDLE dial_try(const wchar_t *name)
{
	return CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL,
			   OPEN_EXISTING,
			   FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT |
				   SECURITY_IDENTIFICATION,
			   NULL);
}

enum dial_status dial_open(const char *path, long long deadline_ns,
			   struct dial **out)
{
	wchar_t name[300];
	HANDLE pipe, event;

	if (!dial_name(path, name, ARRAY_SIZE(name))) {
		errno = ENAMETOOLONG;
		return DIAL_FAILED;
	}
	while ((pipe = dial_try(name)) == INVALID_HANDLE_VALUE) {
		DWORD error = GetLastError(), left = dial_left_ms(deadline_ns);

		if (error == ERROR_FILE_NOT_FOUND) {
			errno = ENOENT;
			return DIAL_NOBODY;
		}
		if (error == ERROR_PIPE_BUSY && !left) {
			errno = ETIMEDOUT;
			return DIAL_TIMEOUT;
		}
		if (error != ERROR_PIPE_BUSY) {
			errno = status_errno_of_win32(error);
			return DIAL_FAILED;
		}
		/* Another client took the instance: wait for the next (a
		 * wait of 0 would be the pipe's default). */
		WaitNamedPipeW(name, left);
	}
	event = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!event) {
		errno = status_errno_of_win32(GetLastError());
		CloseHandle(pipe);
		return DIAL_FAILED;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->pipe = pipe;
	(*out)->ov.hEvent = event;
	(*out)->deadline_ns = deadline_ns;
	return DIAL_OK;
}

bool dial_server_trusted(struct dial *d, char *why, size_t size)
{
	return pipeserver_trusted(d->pipe, why, size);
}

/* An overlapped read or write to its end, or to the deadline: then it is
 * cancelled, and waited for (its buffer must outlive it). */
static bool dial_io(struct dial *d, BOOL started, DWORD *n)
{
	DWORD error;

	if (!started && GetLastError() != ERROR_IO_PENDING)
		return false;
	if (WaitForSingleObject(d->ov.hEvent, dial_left_ms(d->deadline_ns)) ==
	    WAIT_OBJECT_0)
		return GetOverlappedResult(d->pipe, &d->ov, n, FALSE);
	CancelIoEx(d->pipe, &d->ov);
	if (GetOverlappedResult(d->pipe, &d->ov, n, TRUE))
		return true; /* done just as it was cancelled */
	error = GetLastError();
	SetLastError(error == ERROR_OPERATION_ABORTED ? WAIT_TIMEOUT : error);
	return false;
}

/* A failed dial_io as the caller's status: the deadline, or another
 * error (its errno for the message). */
static enum dial_status dial_failed(void)
{
	DWORD error = GetLastError();

	if (error == WAIT_TIMEOUT) {
		errno = ETIMEDOUT;
		return DIAL_TIMEOUT;
	}
	errno = status_errno_of_win32(error);
	return DIAL_FAILED;
}

enum dial_status dial_write(struct dial *d, const char *buf, size_t len)
{
	while (len) {
		DWORD n;

		if (!dial_io(d,
			     WriteFile(d->pipe, buf, (DWORD)len, NULL, &d->ov),
			     &n))
			return dial_failed();
		buf += n;
		len -= n;
	}
	return DIAL_OK;
}

/* The daemon closes its end after the answer: a broken pipe is the end. */
enum dial_status dial_read(struct dial *d, char *buf, size_t size, size_t *n)
{
	DWORD got;

	if (dial_io(d, ReadFile(d->pipe, buf, (DWORD)size, NULL, &d->ov),
		    &got)) {
		*n = got;
		return DIAL_OK;
	}
	if (GetLastError() == ERROR_BROKEN_PIPE) {
		*n = 0;
		return DIAL_OK;
	}
	return dial_failed();
}

void dial_close(struct dial *d)
{
	CloseHandle(d->pipe);
	CloseHandle(d->ov.hEvent);
	free(d);
}
