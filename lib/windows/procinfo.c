/* Windows: facts about a process and its threads. Processes and threads
 * are listed by NtQuerySystemInformation, once per scan (Toolhelp where
 * it is not there); each fact is read through a handle
 * with the least access that gives it (PROCESS_QUERY_LIMITED_INFORMATION:
 * granted for most processes of other users to an administrator, and
 * without SeDebugPrivilege). The image name and command line are chosen
 * by whoever started the process and treated as hostile: bounded, never
 * cut to a shorter string that might match. A process or thread that is
 * gone is normal: the caller sees a failed fact. */
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <tlhelp32.h>

#include "pidmap.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define PROCINFO_QUERY PROCESS_QUERY_LIMITED_INFORMATION
/* SYSTEM_PROCESS_INFORMATION as Microsoft documents it is 0x100 bytes on
 * x64 (mingw-w64's declares fewer members); its threads follow it. */
#define PROCINFO_PROCESS_ENTRY 0x100

HANDLE procinfo_open(pid_t pid, DWORD access, enum os_status *os)
{
	HANDLE h;

	/* 0 is the idle process: OpenProcess fails for it, and for a
	 * negative pid the DWORD would be another process's. */
	if (pid <= 0) {
		*os = status_of_win32(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	h = OpenProcess(access, FALSE, (DWORD)pid);
	*os = h ? OS_OK : status_of_win32(GetLastError());
	return h;
}

HANDLE procinfo_open_thread(pid_t tid, DWORD access, enum os_status *os)
{
	HANDLE h;

	if (tid <= 0) {
		*os = status_of_win32(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	h = OpenThread(access, FALSE, (DWORD)tid);
	*os = h ? OS_OK : status_of_win32(GetLastError());
	return h;
}

/* The image path: flags 0 the Win32 form (C:\dir\x.exe), in the daemon's
 * own view of drive letters; PROCESS_NAME_NATIVE the device form. A path
 * that does not fit is not cut: it fails. */
static enum os_status procinfo_image(HANDLE h, DWORD flags, char *out,
				     size_t size)
{
	wchar_t wide[1024];
	DWORD len = ARRAYSIZE(wide);

	if (!QueryFullProcessImageNameW(h, flags, wide, &len))
		return status_of_win32(GetLastError());
	if (!system_utf8(wide, out, size))
		return OS_FAILED; /* too long for the facts */
	return OS_OK;
}

static enum os_status procinfo_exe(pid_t pid, char *exe, size_t size)
{
	enum os_status os;
	HANDLE h = procinfo_open(pid, PROCINFO_QUERY, &os);

	if (!h)
		return os;
	os = procinfo_image(h, 0, exe, size);
	CloseHandle(h);
	return os;
}

/* The image file name, as Task Manager and Toolhelp show it (x.exe). */
static enum os_status procinfo_comm(pid_t pid, char *comm, size_t size)
{
	char exe[PATH_MAX];
	const char *base;
	enum os_status os = procinfo_exe(pid, exe, sizeof(exe));

	if (os != OS_OK)
		return os;
	base = strrchr(exe, '\\');
	base = base ? base + 1 : exe;
	if (strlen(base) >= size)
		return OS_FAILED;
	memcpy(comm, base, strlen(base) + 1);
	return OS_OK;
}

static void procinfo_cmdline_store(wchar_t *text, size_t chars, char *cmdline,
				   size_t size)
{
	for (size_t i = 0; i < chars; i++) {
		if (text[i] == L'\0')
			text[i] = L' ';
	}
	text[chars] = L'\0';
	/* Cut at a character boundary until it fits. */
	while (!system_utf8(text, cmdline, size) && chars > 0)
		text[--chars] = L'\0';
}

/* Where ProcessCommandLineInformation is not there (Wine, Windows 8 and
 * older): the command line from the process's parameters in its PEB,
 * read from its memory (PROCESS_VM_READ). Offsets of the 64-bit layouts:
 * PEB.ProcessParameters at 0x20, its CommandLine UNICODE_STRING at 0x70. */
static enum os_status procinfo_cmdline_peb(pid_t pid, char *cmdline,
					   size_t size)
{
	const struct winapi *w = winapi_get();
	PROCESS_BASIC_INFORMATION pbi;
	enum os_status os;
	HANDLE h;
	void *params = NULL;
	UNICODE_STRING us;
	wchar_t *text = NULL;
	SIZE_T got;
	bool ok;

	h = procinfo_open(pid, PROCINFO_QUERY | PROCESS_VM_READ, &os);
	if (!h)
		return os;
	ok = w->NtQueryInformationProcess(h, ProcessBasicInformation, &pbi,
					  sizeof(pbi), NULL) >= 0 &&
	     pbi.PebBaseAddress &&
	     ReadProcessMemory(h, (char *)pbi.PebBaseAddress + 0x20, &params,
			       sizeof(params), &got) &&
	     got == sizeof(params) && params &&
	     ReadProcessMemory(h, (char *)params + 0x70, &us, sizeof(us),
			       &got) &&
	     got == sizeof(us) && us.Length <= 65534;
	if (ok) {
		text = xcalloc((size_t)us.Length / 2 + 1, sizeof(wchar_t));
		ok = us.Length == 0 ||
		     (ReadProcessMemory(h, us.Buffer, text, us.Length, &got) &&
		      got == us.Length);
	}
	if (!ok)
		os = status_of_win32(GetLastError());
	CloseHandle(h);
	if (ok)
		procinfo_cmdline_store(text, (size_t)us.Length / 2, cmdline,
				       size);
	free(text);
	return os;
}

/* The command line as the process was given it (one string on Windows),
 * through ProcessCommandLineInformation (Windows 8.1 and later): a
 * UNICODE_STRING and its text after it. Longer than the facts hold: cut,
 * as on Linux, since a glob anchored at its end then fails. */
static enum os_status procinfo_cmdline(pid_t pid, char *cmdline, size_t size)
{
	const struct winapi *w = winapi_get();
	enum os_status os;
	HANDLE h;
	ULONG got = 0;
	UNICODE_STRING *us;
	wchar_t *text;
	size_t chars;
	union {
		UNICODE_STRING us;
		unsigned char bytes[sizeof(UNICODE_STRING) + 65536];
	} * buf;
	LONG nt;

	if (!w->NtQueryInformationProcess)
		return OS_UNSUPPORTED;
	if (!(h = procinfo_open(pid, PROCINFO_QUERY, &os)))
		return os;
	buf = xmalloc(sizeof(*buf));
	nt = w->NtQueryInformationProcess(
		h, WINAPI_PROCESS_COMMAND_LINE_INFORMATION, buf, sizeof(*buf),
		&got);
	CloseHandle(h);
	us = &buf->us;
	if (nt < 0) {
		free(buf);
		return procinfo_cmdline_peb(pid, cmdline, size);
	}
	if (got < sizeof(*us) || (unsigned char *)us->Buffer < buf->bytes ||
	    (unsigned char *)us->Buffer + us->Length > buf->bytes + got) {
		free(buf);
		return OS_FAILED; /* an answer that does not hold together */
	}
	chars = us->Length / sizeof(wchar_t);
	text = xcalloc(chars + 1, sizeof(wchar_t));
	memcpy(text, us->Buffer, chars * sizeof(wchar_t));
	free(buf);
	procinfo_cmdline_store(text, chars, cmdline, size);
	free(text);
	return OS_OK;
}

/* A group counts only when enabled: a deny-only group (a filtered
 * administrator's token) gives no membership, and neither does a logon
 * SID, which is no account. */
static void procinfo_token_groups(HANDLE token, struct facts *facts)
{
	DWORD len = 0;
	TOKEN_GROUPS *groups;

	GetTokenInformation(token, TokenGroups, NULL, 0, &len);
	if (!len)
		return;
	groups = xmalloc(len);
	if (GetTokenInformation(token, TokenGroups, groups, len, &len)) {
		for (DWORD i = 0; i < groups->GroupCount &&
				  facts->group_count < MATCH_GROUPS_MAX;
		     i++) {
			DWORD attrs = groups->Groups[i].Attributes;
			unsigned id;

			if (!(attrs & SE_GROUP_ENABLED) ||
			    (attrs &
			     (SE_GROUP_USE_FOR_DENY_ONLY | SE_GROUP_LOGON_ID)))
				continue;
			if (accounts_intern(groups->Groups[i].Sid, &id))
				facts->groups[facts->group_count++] = id;
		}
	}
	free(groups);
}

/* The token's user is the uid, its primary group the gid (what a file
 * it creates gets), its enabled groups the groups. */
static enum os_status procinfo_creds(pid_t pid, struct facts *facts)
{
	union {
		TOKEN_USER user;
		unsigned char bytes[sizeof(TOKEN_USER) + ACCOUNTS_SID_MAX];
	} user;
	union {
		TOKEN_PRIMARY_GROUP group;
		unsigned char
			bytes[sizeof(TOKEN_PRIMARY_GROUP) + ACCOUNTS_SID_MAX];
	} group;
	enum os_status os;
	HANDLE h = procinfo_open(pid, PROCINFO_QUERY, &os), token;
	DWORD len;
	unsigned uid, gid;
	bool ok;

	if (!h)
		return os;
	ok = OpenProcessToken(h, TOKEN_QUERY, &token);
	if (!ok)
		os = status_of_win32(GetLastError());
	CloseHandle(h);
	if (!ok)
		return os;
	ok = GetTokenInformation(token, TokenUser, &user, sizeof(user), &len) &&
	     GetTokenInformation(token, TokenPrimaryGroup, &group,
				 sizeof(group), &len) &&
	     accounts_intern(user.user.User.Sid, &uid) &&
	     accounts_intern(group.group.PrimaryGroup, &gid);
	if (ok) {
		facts->uid = uid;
		facts->gid = gid;
		facts->group_count = 0;
		procinfo_token_groups(token, facts);
	} else {
		os = status_of_win32(GetLastError());
	}
	CloseHandle(token);
	return os;
}

static unsigned long long procinfo_filetime(const FILETIME *ft)
{
	return (unsigned long long)ft->dwHighDateTime << 32 | ft->dwLowDateTime;
}

/* Windows keeps no count of a process's threads to read with its start
 * (its threads are listed), and no exec filter gives a name to check. */
enum os_status procinfo_state(pid_t pid, struct procinfo_state *state)
{
	*state = (struct procinfo_state){0};
	return procinfo_start_time(pid, 0, &state->start);
}

enum os_status procinfo_start_time(pid_t pid, pid_t tid,
				   unsigned long long *start)
{
	FILETIME created, exited, kernel, user;
	enum os_status os;
	HANDLE h;
	BOOL ok;

	if (tid) {
		h = procinfo_open_thread(tid, THREAD_QUERY_LIMITED_INFORMATION,
					 &os);
		if (!h)
			return os;
		ok = GetThreadTimes(h, &created, &exited, &kernel, &user);
	} else {
		h = procinfo_open(pid, PROCINFO_QUERY, &os);
		if (!h)
			return os;
		ok = GetProcessTimes(h, &created, &exited, &kernel, &user);
	}
	if (!ok)
		os = status_of_win32(GetLastError());
	CloseHandle(h);
	if (!ok)
		return os;
	*start = procinfo_filetime(&created);
	return OS_OK;
}

/* The parent is the process it was created from (or by whom a creator
 * named, PROC_THREAD_ATTRIBUTE_PARENT_PROCESS). Windows keeps its id
 * after it ended, when the id may name another process by now: one
 * started after the child is not its parent. */
static enum os_status procinfo_parent_exe(pid_t pid, struct facts *facts)
{
	const struct winapi *w = winapi_get();
	PROCESS_BASIC_INFORMATION pbi;
	unsigned long long child, parent;
	enum os_status os;
	HANDLE h;
	LONG nt;

	if (!w->NtQueryInformationProcess)
		return OS_UNSUPPORTED;
	if (!(h = procinfo_open(pid, PROCINFO_QUERY, &os)))
		return os;
	nt = w->NtQueryInformationProcess(h, ProcessBasicInformation, &pbi,
					  sizeof(pbi), NULL);
	CloseHandle(h);
	if (nt < 0 || pbi.InheritedFromUniqueProcessId == 0 ||
	    pbi.InheritedFromUniqueProcessId > 0x7fffffff)
		return OS_GONE;
	facts->ppid = (pid_t)pbi.InheritedFromUniqueProcessId;
	if ((os = procinfo_start_time(pid, 0, &child)) != OS_OK ||
	    (os = procinfo_start_time(facts->ppid, 0, &parent)) != OS_OK)
		return os;
	if (parent > child)
		return OS_GONE; /* the id names a later process now */
	return procinfo_exe(facts->ppid, facts->parent_exe,
			    sizeof(facts->parent_exe));
}

bool procinfo_file_id_of(const wchar_t *path, struct procinfo_file_id *id)
{
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE h;
	bool ok;

	/* Attributes only, sharing everything: a running image is open
	 * without FILE_SHARE_WRITE, and nothing here may get in the way
	 * of its owner. BACKUP_SEMANTICS: a directory opens too, and is
	 * then told apart. */
	h = CreateFileW(path, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return false;
	ok = GetFileInformationByHandle(h, &info) &&
	     !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
	CloseHandle(h);
	if (!ok)
		return false;
	id->volume = info.dwVolumeSerialNumber;
	id->index = (ULONGLONG)info.nFileIndexHigh << 32 | info.nFileIndexLow;
	return true;
}

/* Windows keeps a running image from being written or deleted; it can
 * only be renamed. So the file a process runs is the one its image path
 * names unless the path was renamed away and another file put there,
 * which only a writer of its folder can do. What is compared is the file
 * the kernel's device path names (\Device\HarddiskVolumeN\...) and the
 * file the Win32 path the rules match names in the daemon's view of
 * drive letters: a drive of another meaning (a subst, a per-session DOS
 * device, a remapped share) gives another volume serial or file index. */
enum match_file procinfo_same_file(const struct procinfo_file_id *running,
				   bool running_ok,
				   const struct procinfo_file_id *named,
				   bool named_ok)
{
	if (!named_ok)
		return MATCH_FILE_UNSEEN;
	if (!running_ok)
		return MATCH_FILE_DELETED;
	if (running->volume == named->volume && running->index == named->index)
		return MATCH_FILE_SAME;
	return MATCH_FILE_OTHER;
}

/* A device path (\Device\HarddiskVolume2\dir\x.exe) as the drive letter
 * whose device it is names it (Z:\dir\x.exe): QueryDosDeviceW over the
 * drive letters, for where \\?\GLOBALROOT opens nothing (Wine). */
static bool procinfo_device_to_drive(const wchar_t *native, wchar_t *out,
				     size_t count)
{
	for (wchar_t d = L'A'; d <= L'Z'; d++) {
		wchar_t drive[3] = {d, L':', L'\0'}, device[512];
		size_t len;

		if (!QueryDosDeviceW(drive, device, ARRAYSIZE(device)))
			continue;
		len = wcslen(device);
		if (len == 0 || wcsncmp(native, device, len) != 0 ||
		    native[len] != L'\\')
			continue;
		if (wcslen(native + len) + 3 > count)
			return false;
		swprintf(out, count, L"%ls%ls", drive, native + len);
		return true;
	}
	return false;
}

/* The file the kernel's device path names: opened through the
 * \\?\GLOBALROOT prefix, or through its drive letter. */
static bool procinfo_running_id(pid_t pid, struct procinfo_file_id *id)
{
	wchar_t native[1024], path[1100];
	DWORD len = ARRAYSIZE(native);
	enum os_status os;
	HANDLE h = procinfo_open(pid, PROCINFO_QUERY, &os);
	bool ok;

	if (!h)
		return false;
	ok = QueryFullProcessImageNameW(h, PROCESS_NAME_NATIVE, native, &len);
	CloseHandle(h);
	if (!ok || native[0] != L'\\')
		return false;
	swprintf(path, ARRAYSIZE(path), L"\\\\?\\GLOBALROOT%ls", native);
	if (procinfo_file_id_of(path, id))
		return true;
	return procinfo_device_to_drive(native, path, ARRAYSIZE(path)) &&
	       procinfo_file_id_of(path, id);
}

static enum os_status procinfo_exe_file(pid_t pid, const char *exe,
					enum match_file *file)
{
	struct procinfo_file_id running = {0}, named = {0};
	bool running_ok = procinfo_running_id(pid, &running), named_ok = false;
	wchar_t *wide = system_wide_dup(exe);

	if (wide) {
		named_ok = procinfo_file_id_of(wide, &named);
		free(wide);
	}
	if (procinfo_ended(pid))
		return OS_GONE;
	*file = procinfo_same_file(&running, running_ok, &named, named_ok);
	return OS_OK;
}

/* One fact of a process, for procinfo_fetch (procinfo_common.c). */
enum os_status procinfo_fact(const struct procinfo *pi, unsigned fact,
			     struct facts *facts)
{
	switch (fact) {
	case MATCH_FACT_EXE:
		return procinfo_exe(pi->pid, facts->exe, sizeof(facts->exe));
	case MATCH_FACT_COMM:
		return procinfo_comm(pi->pid, facts->comm, sizeof(facts->comm));
	case MATCH_FACT_CMDLINE:
		return procinfo_cmdline(pi->pid, facts->cmdline,
					sizeof(facts->cmdline));
	case MATCH_FACT_CREDS:
		return procinfo_creds(pi->pid, facts);
	case MATCH_FACT_PARENT_EXE:
		return procinfo_parent_exe(pi->pid, facts);
	default: /* no cgroups: check refuses the key */
		return OS_UNSUPPORTED;
	}
}

enum os_status procinfo_file(const struct procinfo *pi, pid_t pid,
			     const char *exe, enum match_file *file)
{
	(void)pi;
	return procinfo_exe_file(pid, exe, file);
}

static void procinfo_push(pid_t **out, size_t *count, size_t *cap, DWORD id)
{
	if (*count == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*out = xreallocarray(*out, *cap, sizeof(**out));
	}
	(*out)[(*count)++] = (pid_t)id;
}

/* The system's processes and their threads in one listing:
 * NtQuerySystemInformation(SystemProcessInformation) gives "a
 * SYSTEM_PROCESS_INFORMATION structure for each process. Each of these
 * structures is immediately followed in memory by one or more
 * SYSTEM_THREAD_INFORMATION structures", the next at NextEntryOffset, 0
 * for the last
 * (sdk-api-src/content/winternl/nf-winternl-ntquerysysteminformation.md). A
 * Toolhelp thread snapshot holds every thread of the system too, whatever
 * process is named: taken per process it made each scan cost processes x
 * threads. So a scan takes one listing (procinfo_scan_begin) and every
 * process's threads are read from it; outside a scan each call lists anew, as a
 * listing goes stale at once. (NtGetNextThread walks one process only, but
 * needs PROCESS_QUERY_INFORMATION, which a protected process refuses, and is
 * not documented.) */
#define PROCINFO_SYSTEM_PROCESS_INFORMATION  5
#define PROCINFO_STATUS_INFO_LENGTH_MISMATCH ((LONG)0xC0000004)

struct procinfo_listing {
	unsigned char *buf;
	struct pidmap by_pid; /* pid -> its SYSTEM_PROCESS_INFORMATION */
	bool wine_bases;      /* BasePriority as Wine gives it */
};

static struct {
	bool active; /* within a scan */
	bool taken;  /* the scan's listing is there */
	struct procinfo_listing listing;
} procinfo_scan_state;

static void procinfo_listing_free(struct procinfo_listing *l)
{
	free(l->buf);
	pidmap_free(&l->by_pid);
	*l = (struct procinfo_listing){0};
}

/* Entries whose offsets or thread counts leave the buffer end the walk:
 * the listing is the kernel's, but a short one is not read past. */
static void procinfo_listing_index(struct procinfo_listing *l, ULONG len)
{
	ULONG at = 0;

	pidmap_init(&l->by_pid);
	while (at + PROCINFO_PROCESS_ENTRY <= len) {
		SYSTEM_PROCESS_INFORMATION *e = (void *)(l->buf + at);
		uintptr_t pid = (uintptr_t)e->UniqueProcessId;
		size_t threads = (size_t)e->NumberOfThreads *
				 sizeof(SYSTEM_THREAD_INFORMATION);

		if (at + PROCINFO_PROCESS_ENTRY + threads > len)
			break;
		if (pid != 0 && pid <= 0x7fffffff)
			pidmap_put(&l->by_pid, (pid_t)pid, e);
		if (e->NextEntryOffset == 0)
			break;
		at += e->NextEntryOffset;
	}
}

/* A process's base priority by its class: 4 idle, 6 below normal, 8
 * normal, 10 above normal, 13 high, 24 realtime
 * (sdk-api-src/content/processthreadsapi/nf-processthreadsapi-setpriorityclass.md,
 * "Scheduling Priorities"); Wine's listing gives its own class numbers
 * instead (PROCESS_PRIOCLASS_IDLE 1, NORMAL 2, HIGH 3, REALTIME 4,
 * BELOW_NORMAL 5, ABOVE_NORMAL 6: its dlls/ntdll/unix/system.c copies
 * the server's class into BasePriority). */
static const struct {
	enum rule_class class;
	DWORD windows;
	LONG base, wine;
} procinfo_bases[] = {
	{RULE_CLASS_IDLE, IDLE_PRIORITY_CLASS, 4, 1},
	{RULE_CLASS_BELOW_NORMAL, BELOW_NORMAL_PRIORITY_CLASS, 6, 5},
	{RULE_CLASS_NORMAL, NORMAL_PRIORITY_CLASS, 8, 2},
	{RULE_CLASS_ABOVE_NORMAL, ABOVE_NORMAL_PRIORITY_CLASS, 10, 6},
	{RULE_CLASS_HIGH, HIGH_PRIORITY_CLASS, 13, 3},
	{RULE_CLASS_REALTIME, REALTIME_PRIORITY_CLASS, 24, 4},
};

/* Which numbering the listing uses, told by this process's own entry
 * against the class it has: the two share values (6 is below normal's
 * base and Wine's above normal), never for one class. */
static bool procinfo_wine_bases(const struct procinfo_listing *l)
{
	const SYSTEM_PROCESS_INFORMATION *e =
		pidmap_get(&l->by_pid, procinfo_self());
	DWORD klass = GetPriorityClass(GetCurrentProcess());

	for (size_t i = 0; e && i < ARRAYSIZE(procinfo_bases); i++) {
		if (procinfo_bases[i].windows == klass)
			return e->BasePriority == procinfo_bases[i].wine &&
			       e->BasePriority != procinfo_bases[i].base;
	}
	return false;
}

static enum os_status procinfo_listing_take(struct procinfo_listing *l)
{
	const struct winapi *w = winapi_get();
	ULONG size = 256 * 1024, got = 0;
	LONG nt = PROCINFO_STATUS_INFO_LENGTH_MISMATCH;

	*l = (struct procinfo_listing){0};
	if (!w->NtQuerySystemInformation)
		return OS_UNSUPPORTED;
	/* Processes come and go between the size asked and the call. */
	for (int tries = 0;
	     tries < 8 && nt == PROCINFO_STATUS_INFO_LENGTH_MISMATCH; tries++) {
		free(l->buf);
		l->buf = xmalloc(size);
		nt = w->NtQuerySystemInformation(
			PROCINFO_SYSTEM_PROCESS_INFORMATION, l->buf, size,
			&got);
		if (got > size - 65536)
			size = got + 65536;
		else if (nt == PROCINFO_STATUS_INFO_LENGTH_MISMATCH)
			size *= 2;
	}
	if (nt < 0) {
		free(l->buf);
		l->buf = NULL;
		return OS_FAILED;
	}
	procinfo_listing_index(l, got < size ? got : size);
	l->wine_bases = procinfo_wine_bases(l);
	return OS_OK;
}

/* The scan's listing, taken at its first use; NULL outside a scan. */
static struct procinfo_listing *procinfo_scan_listing(void)
{
	if (!procinfo_scan_state.active)
		return NULL;
	if (!procinfo_scan_state.taken &&
	    procinfo_listing_take(&procinfo_scan_state.listing) == OS_OK)
		procinfo_scan_state.taken = true;
	return procinfo_scan_state.taken ? &procinfo_scan_state.listing : NULL;
}

void procinfo_scan_begin(void)
{
	procinfo_scan_end();
	procinfo_scan_state.active = true;
}

void procinfo_scan_end(void)
{
	if (procinfo_scan_state.taken)
		procinfo_listing_free(&procinfo_scan_state.listing);
	procinfo_scan_state.active = procinfo_scan_state.taken = false;
}

static void procinfo_listing_pids(const struct procinfo_listing *l,
				  pid_t **pids, size_t *count)
{
	size_t cap = 0;

	for (size_t i = 0; i < l->by_pid.capacity; i++) {
		if (l->by_pid.slots[i].key)
			procinfo_push(pids, count, &cap,
				      (DWORD)l->by_pid.slots[i].key);
	}
}

static enum os_status procinfo_toolhelp_pids(pid_t **pids, size_t *count)
{
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	size_t cap = 0;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);

	if (snap == INVALID_HANDLE_VALUE)
		return status_of_win32(GetLastError());
	for (BOOL more = Process32FirstW(snap, &pe); more;
	     more = Process32NextW(snap, &pe)) {
		if (pe.th32ProcessID != 0 && pe.th32ProcessID <= 0x7fffffff)
			procinfo_push(pids, count, &cap, pe.th32ProcessID);
	}
	CloseHandle(snap);
	return OS_OK;
}

/* Every process but the idle one (0), whose id names nothing: from the
 * scan's listing, else from Toolhelp. */
enum os_status procinfo_pids(pid_t **pids, size_t *count)
{
	const struct procinfo_listing *l = procinfo_scan_listing();

	*pids = NULL;
	*count = 0;
	if (!l)
		return procinfo_toolhelp_pids(pids, count);
	procinfo_listing_pids(l, pids, count);
	return OS_OK;
}

/* A base priority as its class: in Windows' numbers the highest class
 * whose base is at or under it, in Wine's its own number; a number of
 * Wine's it has no class for reads as normal. */
static enum rule_class procinfo_class_of_base(LONG base, bool wine)
{
	enum rule_class class = RULE_CLASS_IDLE;
	LONG best = -1;

	for (size_t i = 0; i < ARRAYSIZE(procinfo_bases); i++) {
		LONG b = wine ? procinfo_bases[i].wine : procinfo_bases[i].base;

		if (wine ? base == b : (base >= b && b > best)) {
			class = procinfo_bases[i].class;
			best = b;
		}
	}
	return wine && best < 0 ? RULE_CLASS_NORMAL : class;
}

static void procinfo_listing_usage(const struct procinfo_listing *l,
				   const SYSTEM_PROCESS_INFORMATION *e,
				   unsigned long long now,
				   struct procinfo_usage *usage)
{
	struct prio_state cls;
	unsigned long long created = (unsigned long long)e->CreateTime.QuadPart;

	prio_state_of_class(
		procinfo_class_of_base(e->BasePriority, l->wine_bases), &cls);
	*usage = (struct procinfo_usage){
		.start = created,
		.cpu_ns = ((unsigned long long)e->UserTime.QuadPart +
			   (unsigned long long)e->KernelTime.QuadPart) *
			  100ULL,
		.age_ns = now > created ? (now - created) * 100ULL : 0,
		.ppid = (pid_t)(uintptr_t)e->InheritedFromUniqueProcessId,
		.session = (long)e->SessionId,
		.nice = cls.nice,
	};
}

/* From the scan's listing (restraint samples within one), else from a
 * listing of its own. */
enum os_status procinfo_usage(pid_t pid, struct procinfo_usage *usage)
{
	struct procinfo_listing own, *l = procinfo_scan_listing();
	const SYSTEM_PROCESS_INFORMATION *e;
	enum os_status os = OS_OK;
	FILETIME now;

	*usage = (struct procinfo_usage){0};
	if (!l) {
		if ((os = procinfo_listing_take(&own)) != OS_OK)
			return os;
		l = &own;
	}
	GetSystemTimeAsFileTime(&now);
	e = pidmap_get(&l->by_pid, pid);
	if (e)
		procinfo_listing_usage(l, e, procinfo_filetime(&now), usage);
	else
		os = OS_GONE;
	if (l == &own)
		procinfo_listing_free(&own);
	return os;
}

/* Windows keeps no count of a thread's time ready but not running. */
enum os_status procinfo_waited(pid_t pid, unsigned long long *ns)
{
	(void)pid;
	*ns = 0;
	return OS_UNSUPPORTED;
}

/* Threads ready to run and waiting for a processor: KTHREAD_STATE Ready
 * (1), Standby (3, chosen for a processor next) and DeferredReady (7),
 * what the "Processor Queue Length" counter counts, in one listing.
 * Whether the listing tells states at all: on Windows the calling thread
 * is Running (2) as it asks; Wine leaves every thread's state 0
 * (Initialized: its dlls/ntdll/unix/system.c fills no state). */
enum os_status procinfo_ready_threads(unsigned *ready, bool *states)
{
	struct procinfo_listing l;
	enum os_status os = procinfo_listing_take(&l);

	*ready = 0;
	*states = false;
	if (os != OS_OK)
		return os;
	for (size_t i = 0; i < l.by_pid.capacity; i++) {
		const SYSTEM_PROCESS_INFORMATION *e = l.by_pid.slots[i].value;
		const SYSTEM_THREAD_INFORMATION *t;

		if (!l.by_pid.slots[i].key)
			continue;
		t = (const void *)((const unsigned char *)e +
				   PROCINFO_PROCESS_ENTRY);
		for (ULONG k = 0; k < e->NumberOfThreads; k++) {
			*ready += t[k].ThreadState == 1 ||
				  t[k].ThreadState == 3 ||
				  t[k].ThreadState == 7;
			*states |= t[k].ThreadState == 2;
		}
	}
	procinfo_listing_free(&l);
	return OS_OK;
}

static void procinfo_listing_threads(const struct procinfo_listing *l,
				     pid_t pid, pid_t **tids, size_t *count)
{
	const SYSTEM_PROCESS_INFORMATION *e = pidmap_get(&l->by_pid, pid);
	const SYSTEM_THREAD_INFORMATION *t;
	size_t cap = 0;

	if (!e)
		return;
	t = (const void *)((const unsigned char *)e + PROCINFO_PROCESS_ENTRY);
	for (ULONG i = 0; i < e->NumberOfThreads; i++) {
		uintptr_t tid = (uintptr_t)t[i].ClientId.UniqueThread;

		if (tid != 0 && tid <= 0x7fffffff)
			procinfo_push(tids, count, &cap, (DWORD)tid);
	}
}

static enum os_status procinfo_toolhelp_threads(pid_t pid, pid_t **tids,
						size_t *count)
{
	THREADENTRY32 te = {.dwSize = sizeof(te)};
	size_t cap = 0;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);

	if (snap == INVALID_HANDLE_VALUE)
		return status_of_win32(GetLastError());
	for (BOOL more = Thread32First(snap, &te); more;
	     more = Thread32Next(snap, &te)) {
		if (te.th32OwnerProcessID == (DWORD)pid &&
		    te.th32ThreadID <= 0x7fffffff)
			procinfo_push(tids, count, &cap, te.th32ThreadID);
	}
	CloseHandle(snap);
	return OS_OK;
}

/* One process's threads: from the scan's listing, or a listing of its
 * own outside a scan, or Toolhelp where NtQuerySystemInformation is not
 * there. No thread: the process ended. */
enum os_status procinfo_threads(pid_t pid, pid_t **tids, size_t *count)
{
	struct procinfo_listing own, *l = procinfo_scan_listing();
	enum os_status status = OS_OK;

	*tids = NULL;
	*count = 0;
	if (pid <= 0)
		return OS_GONE;
	if (l) {
		procinfo_listing_threads(l, pid, tids, count);
	} else if (procinfo_listing_take(&own) == OS_OK) {
		procinfo_listing_threads(&own, pid, tids, count);
		procinfo_listing_free(&own);
	} else {
		status = procinfo_toolhelp_threads(pid, tids, count);
	}
	if (status == OS_OK && *count == 0) {
		free(*tids);
		*tids = NULL;
		return OS_GONE;
	}
	return status;
}

/* No zombies: a process whose threads have all ended has ended. */
bool procinfo_zombie(pid_t pid)
{
	(void)pid;
	return false;
}

/* A thread's description (SetThreadDescription, Windows 10 1607), for
 * the explain report; resolved at run time, as Wine 8 lacks it. */
enum os_status procinfo_thread_name(pid_t pid, pid_t tid, char *name,
				    size_t size)
{
	const struct winapi *w = winapi_get();
	enum os_status os;
	HANDLE h;
	PWSTR text = NULL;
	bool ok;

	(void)pid;
	if (size)
		name[0] = '\0';
	if (!w->GetThreadDescription)
		return OS_UNSUPPORTED;
	if (!(h = procinfo_open_thread(tid, THREAD_QUERY_LIMITED_INFORMATION,
				       &os)))
		return os;
	ok = SUCCEEDED(w->GetThreadDescription(h, &text)) && text && text[0] &&
	     system_utf8(text, name, size);
	if (text)
		LocalFree(text);
	CloseHandle(h);
	if (!ok)
		return OS_GONE; /* no description */
	return OS_OK;
}

/* A process handle: Windows gives no other process the id while one is
 * open. Kernel handles fit in 32 bits (sign-extending them back is what
 * Windows documents for handles shared with 32-bit processes), so the
 * seam's long holds one. */
enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin)
{
	enum os_status os;
	HANDLE h = procinfo_open(pid, SYNCHRONIZE | PROCINFO_QUERY, &os);

	pin->handle = h;
	return os;
}

static bool procinfo_handle_ended(HANDLE h)
{
	return WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
}

bool procinfo_pin_ended(const struct procinfo_pin *pin)
{
	if (!pin->handle)
		return true;
	return procinfo_handle_ended(pin->handle);
}

void procinfo_unpin(struct procinfo_pin *pin)
{
	if (pin->handle)
		CloseHandle(pin->handle);
	pin->handle = NULL;
}

/* Refused (another user's protected process): it is there. */
bool procinfo_ended(pid_t pid)
{
	enum os_status os;
	HANDLE h = procinfo_open(pid, SYNCHRONIZE, &os);
	bool ended;

	if (!h)
		return os == OS_GONE;
	ended = procinfo_handle_ended(h);
	CloseHandle(h);
	return ended;
}

/* Thread and process ids come from one table: a tid names no process. */
bool procinfo_thread_in(pid_t pid, pid_t tid)
{
	enum os_status os;
	HANDLE h = procinfo_open_thread(
		tid, SYNCHRONIZE | THREAD_QUERY_LIMITED_INFORMATION, &os);
	bool in;

	if (!h)
		return false;
	in = GetProcessIdOfThread(h) == (DWORD)pid && !procinfo_handle_ended(h);
	CloseHandle(h);
	return in;
}

bool procinfo_task_exists(pid_t tid)
{
	enum os_status os;
	HANDLE h = procinfo_open_thread(tid, SYNCHRONIZE, &os);
	bool exists;

	if (!h)
		return os == OS_DENIED;
	exists = !procinfo_handle_ended(h);
	CloseHandle(h);
	return exists;
}

pid_t procinfo_self(void)
{
	return (pid_t)GetCurrentProcessId();
}
