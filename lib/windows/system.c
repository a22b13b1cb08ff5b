/* Which system this backend is (rule files are checked for it unless a
 * caller names another), and the UTF-8 <-> UTF-16 conversion at the edge:
 * the core holds UTF-8, the W functions take UTF-16; main's arguments
 * too. */
#include <io.h>
#include <stdio.h>
#include <stdlib.h>

#include <windows.h>

#include <shellapi.h>

#include "util.h"
#include "win.h"
#include "winapi.h"

enum rules_system system_native(void)
{
	return RULES_SYSTEM_WINDOWS;
}

/* RtlGetVersion: GetVersionEx answers for the manifest, not the
 * system. */
unsigned long system_build(void)
{
	const struct winapi *w = winapi_get();
	OSVERSIONINFOW v = {.dwOSVersionInfoSize = sizeof(v)};

	if (!w->RtlGetVersion || w->RtlGetVersion(&v) != 0)
		return 0;
	return v.dwBuildNumber;
}

bool system_wide(const char *utf8, wchar_t *out, size_t count)
{
	int n;

	if (count == 0 || count > INT_MAX)
		return false;
	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, out,
				(int)count);
	if (n <= 0) {
		out[0] = L'\0';
		return false;
	}
	return true;
}

/* Invalid UTF-16 (an unpaired surrogate, which a starter may put in a
 * process's name) becomes U+FFFD: WideCharToMultiByte does that unless
 * told WC_ERR_INVALID_CHARS. */
bool system_utf8(const wchar_t *wide, char *out, size_t size)
{
	int n;

	if (size == 0 || size > INT_MAX)
		return false;
	n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, out, (int)size, NULL,
				NULL);
	if (n <= 0) {
		out[0] = '\0';
		return false;
	}
	return true;
}

wchar_t *system_wide_dup(const char *utf8)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1,
				    NULL, 0);
	wchar_t *wide;

	if (n <= 0)
		return NULL;
	wide = malloc((size_t)n * sizeof(*wide));
	if (!wide)
		return NULL;
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, wide,
				n) != n) {
		free(wide);
		return NULL;
	}
	return wide;
}

/* UTF-8, what cannot be converted (an unpaired surrogate) as U+FFFD. */
static char *system_utf8_dup(const wchar_t *wide)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
	char *utf8;

	if (n <= 0)
		return NULL;
	utf8 = xmalloc((size_t)n);
	if (WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, n, NULL, NULL) !=
	    n) {
		free(utf8);
		return NULL;
	}
	return utf8;
}

/* The arguments again, from the UTF-16 command line, parsed as the C
 * runtime parses it for main (CommandLineToArgvW); where that does not
 * give as many, main's own stay. They live as long as the program, as
 * main's do. */
void system_args(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **wide = CommandLineToArgvW(GetCommandLineW(), &n);
	char **utf8;

	if (!wide)
		return;
	if (n != *argc) {
		LocalFree(wide);
		return;
	}
	utf8 = xcalloc((size_t)n + 1, sizeof(*utf8));
	for (int i = 0; i < n; i++) {
		utf8[i] = system_utf8_dup(wide[i]);
		if (!utf8[i]) {
			while (i > 0)
				free(utf8[--i]);
			free(utf8);
			LocalFree(wide);
			return;
		}
	}
	LocalFree(wide);
	*argv = utf8;
}

/* _isatty says yes to every character device, NUL among them: only a
 * console has a console mode. */
bool system_is_terminal(FILE *stream)
{
	HANDLE handle = (HANDLE)_get_osfhandle(_fileno(stream));
	DWORD mode;

	return handle != INVALID_HANDLE_VALUE && GetConsoleMode(handle, &mode);
}
