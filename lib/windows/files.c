/* Windows: the files a user names and the front ends write (os.h), by
 * the W functions, each UTF-8 path made UTF-16 first (the C library's
 * fopen, open and opendir would read it in the ANSI code page, where a
 * CJK name is "??" and "é" two other letters): whole-file reads,
 * streams, a directory's names, what a path is; state files written
 * whole, then moved into place, the state directory made as the daemon's
 * installation makes it; an import's files staged beside their place and
 * put there once read back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <sddl.h>

#include "util.h"
#include "win.h"

/* NULL, errno EILSEQ: not UTF-8 (no file has that name). */
static wchar_t *files_wide(const char *path)
{
	wchar_t *wide = system_wide_dup(path);

	if (!wide)
		errno = EILSEQ;
	return wide;
}

static enum os_status files_read_handle(HANDLE h, size_t max, char **text,
					size_t *len)
{
	struct files_buffer b;

	files_buffer_init(&b, max);
	for (;;) {
		DWORD chunk, n = 0;

		if (!files_buffer_room(&b))
			return OS_FAILED;
		/* ReadFile takes a DWORD: a gigabyte at a time. */
		chunk = b.cap - b.used > (1u << 30) ? 1u << 30
						    : (DWORD)(b.cap - b.used);
		if (!ReadFile(h, b.text + b.used, chunk, &n, NULL)) {
			enum os_status status = status_of_win32(GetLastError());

			free(b.text);
			return status;
		}
		if (n == 0)
			break;
		b.used += n;
	}
	files_buffer_done(&b, text, len);
	return OS_OK;
}

enum os_status files_read(const char *path, size_t max, char **text,
			  size_t *len)
{
	wchar_t *wide = files_wide(path);
	enum os_status status;
	HANDLE h;
	int saved;

	if (!wide)
		return OS_FAILED;
	/* Others may go on reading, writing, even renaming it meanwhile,
	 * as on Linux. */
	h = CreateFileW(wide, GENERIC_READ,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	free(wide);
	if (h == INVALID_HANDLE_VALUE)
		return status_of_win32(GetLastError());
	status = files_read_handle(h, max, text, len);
	saved = errno;
	CloseHandle(h);
	errno = saved;
	return status;
}

/* _wfopen sets errno, and leaves the error of the CreateFileW it calls:
 * that one decides, as for every other call here. A mode it refuses
 * calls nothing. */
enum os_status files_open(const char *path, const char *mode, FILE **file)
{
	wchar_t *wide = files_wide(path), *wide_mode = files_wide(mode);
	DWORD error = ERROR_SUCCESS;

	*file = NULL;
	if (wide && wide_mode) {
		SetLastError(ERROR_SUCCESS);
		*file = _wfopen(wide, wide_mode);
		error = GetLastError();
	}
	free(wide);
	free(wide_mode);
	if (*file)
		return OS_OK;
	if (!wide || !wide_mode || error == ERROR_SUCCESS)
		return OS_FAILED;
	return status_of_win32(error);
}

static void files_info_of(DWORD attributes, DWORD size_high, DWORD size_low,
			  struct files_info *info)
{
	*info = (struct files_info){.type = FILES_TYPE_REGULAR};
	if (attributes & FILE_ATTRIBUTE_DIRECTORY)
		info->type = FILES_TYPE_DIRECTORY;
	else if (attributes & FILE_ATTRIBUTE_DEVICE)
		info->type = FILES_TYPE_DEVICE;
	else
		info->size = (unsigned long long)size_high << 32 | size_low;
}

/* What a link leads to, or a device (NUL, CON: no attributes to ask),
 * read from the file opened for no access at all. */
static enum os_status files_info_opened(const wchar_t *wide,
					struct files_info *info)
{
	BY_HANDLE_FILE_INFORMATION bh;
	enum os_status status = OS_OK;
	HANDLE h = CreateFileW(
		wide, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
		NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);

	if (h == INVALID_HANDLE_VALUE)
		return status_of_win32(GetLastError());
	if (GetFileType(h) == FILE_TYPE_CHAR)
		*info = (struct files_info){.type = FILES_TYPE_DEVICE};
	else if (GetFileInformationByHandle(h, &bh))
		files_info_of(bh.dwFileAttributes, bh.nFileSizeHigh,
			      bh.nFileSizeLow, info);
	else
		status = status_of_win32(GetLastError());
	CloseHandle(h);
	return status;
}

enum os_status files_info(const char *path, struct files_info *info)
{
	WIN32_FILE_ATTRIBUTE_DATA data;
	wchar_t *wide = files_wide(path);
	enum os_status status = OS_OK;

	if (!wide)
		return OS_FAILED;
	if (GetFileAttributesExW(wide, GetFileExInfoStandard, &data) &&
	    !(data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
		files_info_of(data.dwFileAttributes, data.nFileSizeHigh,
			      data.nFileSizeLow, info);
	else
		status = files_info_opened(wide, info);
	free(wide);
	return status;
}

/* The names FindFirstFileW and FindNextFileW give, in UTF-8. */
static enum os_status files_found(HANDLE h, WIN32_FIND_DATAW *found,
				  char ***names, size_t *count)
{
	/* cFileName: MAX_PATH UTF-16 units, at most 3 bytes each in UTF-8. */
	char name[3 * MAX_PATH + 1];
	DWORD error;

	do {
		if (!system_utf8(found->cFileName, name, sizeof(name)) ||
		    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		*names = xgrow(*names, *count, sizeof(**names));
		(*names)[(*count)++] = xstrdup(name);
	} while (FindNextFileW(h, found));
	error = GetLastError();
	return error == ERROR_NO_MORE_FILES ? OS_OK : status_of_win32(error);
}

enum os_status files_list(const char *dir, char ***names, size_t *count)
{
	size_t len = strlen(dir);
	bool separated = len && (dir[len - 1] == '\\' || dir[len - 1] == '/');
	char *pattern = xasprintf("%s%s*", dir, separated ? "" : "\\");
	wchar_t *wide = files_wide(pattern);
	WIN32_FIND_DATAW found;
	enum os_status status;
	HANDLE h;

	free(pattern);
	*names = NULL;
	*count = 0;
	if (!wide)
		return OS_FAILED;
	h = FindFirstFileW(wide, &found);
	free(wide);
	/* ERROR_FILE_NOT_FOUND: a directory with nothing in it, not even
	 * "." (a drive's root); one that is not there is PATH_NOT_FOUND. */
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError() == ERROR_FILE_NOT_FOUND
			       ? OS_OK
			       : status_of_win32(GetLastError());
	status = files_found(h, &found, names, count);
	FindClose(h);
	if (status != OS_OK) {
		int saved = errno;

		files_list_free(*names, *count);
		*names = NULL;
		*count = 0;
		errno = saved;
	} else {
		files_sort_names(*names, *count);
	}
	return status;
}

enum os_status files_remove(const char *path)
{
	wchar_t *wide = files_wide(path);
	enum os_status status = OS_OK;

	if (!wide)
		return OS_FAILED;
	if (!DeleteFileW(wide))
		status = status_of_win32(GetLastError());
	free(wide);
	return status;
}

/* A reader sees the old text or the new: MoveFileExW replaces the file
 * at once, and the text is on disk before it does (FlushFileBuffers,
 * MOVEFILE_WRITE_THROUGH). */
enum os_status files_replace(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	wchar_t wide[MAX_PATH], wide_tmp[MAX_PATH];
	HANDLE h;
	DWORD n, error = 0;

	if (!system_wide(path, wide, MAX_PATH) ||
	    !system_wide(tmp, wide_tmp, MAX_PATH)) {
		free(tmp);
		errno = ENAMETOOLONG;
		return OS_FAILED;
	}
	free(tmp);
	h = CreateFileW(wide_tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return status_of_win32(GetLastError());
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
		return status_of_win32(error);
	}
	return OS_OK;
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
