/* Windows: the rules' share of Image File Execution Options, written to
 * HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution
 * Options\<file name>\PerfOptions (CpuPriorityClass, IoPriority), which
 * Windows applies as it creates a process. lib/ifeo_common.c plans which names
 * and values; lib/perfopts.c keeps the record, here in the daemon's own
 * key HKLM\SOFTWARE\cpupolicy\PerfOptions (one value per name: what it
 * wrote and what was there before), written before each value, so that a
 * removed rule, a stop, --uninstall and the start after a crash put back
 * exactly what was there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "internal.h"
#include "log.h"
#include "perfopts.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define IFEO_KEY                                                               \
	L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File "        \
	L"Execution Options"
#define IFEO_RECORDS L"SOFTWARE\\cpupolicy\\PerfOptions"
/* The 64-bit view, whatever reads it: a 32-bit program's IFEO is shared
 * with the 64-bit one on current Windows, but the record is ours. */
#define IFEO_VIEW KEY_WOW64_64KEY

static void ifeo_say(const char *what, const char *name, LSTATUS error)
{
	char why[256];

	status_message((DWORD)error, why, sizeof(why));
	log_warnx("ifeo: %s %s: %s", what, name, why);
}

static bool ifeo_path(const char *name, const wchar_t *under, wchar_t *out,
		      size_t count)
{
	wchar_t wide[IFEO_NAME_MAX + 1];
	int n;

	if (!system_wide(name, wide, ARRAY_SIZE(wide)) || wcschr(wide, L'\\'))
		return false;
	n = _snwprintf(out, count, L"%ls\\%ls%ls", IFEO_KEY, wide, under);
	return n > 0 && (size_t)n < count;
}

static int ifeo_read_dword(HKEY key, const wchar_t *value, int unset)
{
	DWORD v, size = sizeof(v), type;

	if (winapi_get()->RegQueryValueExW(key, value, NULL, &type, (BYTE *)&v,
					   &size) != ERROR_SUCCESS ||
	    type != REG_DWORD)
		return unset;
	return (int)v;
}

static int ifeo_read(void *ctx, const char *name, struct ifeo_values *now)
{
	wchar_t path[512];
	HKEY key;
	LSTATUS st;

	(void)ctx;
	*now = (struct ifeo_values){IFEO_CPU_CLASS_UNSET,
				    IFEO_IO_PRIORITY_UNSET};
	if (!ifeo_path(name, L"\\PerfOptions", path, ARRAY_SIZE(path)))
		return -1;
	st = winapi_get()->RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0,
					 KEY_QUERY_VALUE | IFEO_VIEW, &key);
	if (st == ERROR_FILE_NOT_FOUND)
		return 0;
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot read", name, st);
		return -1;
	}
	now->cpu_class = (enum ifeo_cpu_class)ifeo_read_dword(
		key, L"CpuPriorityClass", IFEO_CPU_CLASS_UNSET);
	now->io_priority = (enum ifeo_io_priority)ifeo_read_dword(
		key, L"IoPriority", IFEO_IO_PRIORITY_UNSET);
	winapi_get()->RegCloseKey(key);
	return 0;
}

/* A key left without values or subkeys is the daemon's own leftover. */
static void ifeo_prune(const wchar_t *path)
{
	HKEY key;
	DWORD subkeys = 1, values = 1;

	if (winapi_get()->RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0,
					KEY_QUERY_VALUE | IFEO_VIEW,
					&key) != ERROR_SUCCESS)
		return;
	winapi_get()->RegQueryInfoKeyW(key, NULL, NULL, NULL, &subkeys, NULL,
				       NULL, &values, NULL, NULL, NULL, NULL);
	winapi_get()->RegCloseKey(key);
	if (!subkeys && !values)
		winapi_get()->RegDeleteKeyExW(HKEY_LOCAL_MACHINE, path,
					      IFEO_VIEW, 0);
}

static LSTATUS ifeo_set(HKEY key, const wchar_t *value, int v, bool set,
			bool clear)
{
	DWORD d = (DWORD)v;
	LSTATUS st;

	if (set)
		return winapi_get()->RegSetValueExW(
			key, value, 0, REG_DWORD, (const BYTE *)&d, sizeof(d));
	if (!clear)
		return ERROR_SUCCESS;
	st = winapi_get()->RegDeleteValueW(key, value);
	return st == ERROR_FILE_NOT_FOUND ? ERROR_SUCCESS : st;
}

static int ifeo_write(void *ctx, const char *name, struct ifeo_values set,
		      struct ifeo_values clear)
{
	wchar_t path[512], parent[512];
	HKEY key;
	LSTATUS st;

	(void)ctx;
	if (!ifeo_path(name, L"\\PerfOptions", path, ARRAY_SIZE(path)) ||
	    !ifeo_path(name, L"", parent, ARRAY_SIZE(parent)))
		return -1;
	st = winapi_get()->RegCreateKeyExW(
		HKEY_LOCAL_MACHINE, path, 0, NULL, 0,
		KEY_SET_VALUE | KEY_QUERY_VALUE | IFEO_VIEW, NULL, &key, NULL);
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot write", name, st);
		return -1;
	}
	st = ifeo_set(key, L"CpuPriorityClass", (int)set.cpu_class,
		      set.cpu_class != IFEO_CPU_CLASS_UNSET,
		      clear.cpu_class != IFEO_CPU_CLASS_UNSET);
	if (st == ERROR_SUCCESS)
		st = ifeo_set(key, L"IoPriority", (int)set.io_priority,
			      set.io_priority != IFEO_IO_PRIORITY_UNSET,
			      clear.io_priority != IFEO_IO_PRIORITY_UNSET);
	winapi_get()->RegCloseKey(key);
	ifeo_prune(path);
	ifeo_prune(parent);
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot write", name, st);
		return -1;
	}
	return 0;
}

static LSTATUS ifeo_records_key(REGSAM access, bool create, HKEY *key)
{
	if (create)
		return winapi_get()->RegCreateKeyExW(
			HKEY_LOCAL_MACHINE, IFEO_RECORDS, 0, NULL, 0,
			access | IFEO_VIEW, NULL, key, NULL);
	return winapi_get()->RegOpenKeyExW(HKEY_LOCAL_MACHINE, IFEO_RECORDS, 0,
					   access | IFEO_VIEW, key);
}

/* A record that does not read is dropped with a warning: a value of
 * someone else's in the daemon's key. */
static int ifeo_records(void *ctx, struct perfopts_record **list, size_t *count)
{
	HKEY key;
	LSTATUS st = ifeo_records_key(KEY_QUERY_VALUE, false, &key);

	(void)ctx;
	*list = NULL;
	*count = 0;
	if (st == ERROR_FILE_NOT_FOUND)
		return 0;
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot read the record in",
			 "HKLM\\"
			 "SOFTWARE\\cpupolicy",
			 st);
		return -1;
	}
	for (DWORD i = 0;; i++) {
		wchar_t name[IFEO_NAME_MAX + 1], text[128];
		DWORD name_len = ARRAY_SIZE(name), size = sizeof(text) - 2,
		      type;
		struct perfopts_record r = {0};
		char utf8[128];

		st = winapi_get()->RegEnumValueW(key, i, name, &name_len, NULL,
						 &type, (BYTE *)text, &size);
		if (st == ERROR_NO_MORE_ITEMS)
			break;
		if (st != ERROR_SUCCESS && st != ERROR_MORE_DATA)
			break;
		text[st == ERROR_SUCCESS ? size / sizeof(wchar_t) : 0] = L'\0';
		if (st != ERROR_SUCCESS || type != REG_SZ ||
		    !system_utf8(name, r.name, sizeof(r.name)) ||
		    !system_utf8(text, utf8, sizeof(utf8)) ||
		    !perfopts_record_parse(utf8, &r)) {
			log_warnx("ifeo: a value in HKLM\\SOFTWARE\\cpupolicy\\"
				  "PerfOptions is not a record; ignored");
			continue;
		}
		*list = xreallocarray(*list, *count + 1, sizeof(**list));
		(*list)[(*count)++] = r;
	}
	winapi_get()->RegCloseKey(key);
	return 0;
}

/* Flushed: the record is on disk before the value it names. */
static int ifeo_record_put(void *ctx, const struct perfopts_record *r)
{
	wchar_t name[IFEO_NAME_MAX + 1], wide[128];
	char text[128];
	HKEY key;
	LSTATUS st;

	(void)ctx;
	perfopts_record_format(r, text, sizeof(text));
	if (!system_wide(r->name, name, ARRAY_SIZE(name)) ||
	    !system_wide(text, wide, ARRAY_SIZE(wide)))
		return -1;
	st = ifeo_records_key(KEY_SET_VALUE, true, &key);
	if (st == ERROR_SUCCESS) {
		st = winapi_get()->RegSetValueExW(
			key, name, 0, REG_SZ, (const BYTE *)wide,
			(DWORD)((wcslen(wide) + 1) * sizeof(wchar_t)));
		if (st == ERROR_SUCCESS)
			st = winapi_get()->RegFlushKey(key);
		winapi_get()->RegCloseKey(key);
	}
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot keep the record of", r->name, st);
		return -1;
	}
	return 0;
}

static int ifeo_record_drop(void *ctx, const char *name)
{
	wchar_t wide[IFEO_NAME_MAX + 1];
	HKEY key;
	LSTATUS st;

	(void)ctx;
	if (!system_wide(name, wide, ARRAY_SIZE(wide)))
		return -1;
	st = ifeo_records_key(KEY_SET_VALUE, false, &key);
	if (st == ERROR_FILE_NOT_FOUND)
		return 0;
	if (st == ERROR_SUCCESS) {
		st = winapi_get()->RegDeleteValueW(key, wide);
		if (st == ERROR_FILE_NOT_FOUND)
			st = ERROR_SUCCESS;
		winapi_get()->RegCloseKey(key);
	}
	if (st != ERROR_SUCCESS) {
		ifeo_say("cannot drop the record of", name, st);
		return -1;
	}
	return 0;
}

static const struct perfopts_store ifeo_store = {
	.read = ifeo_read,
	.write = ifeo_write,
	.records = ifeo_records,
	.record_put = ifeo_record_put,
	.record_drop = ifeo_record_drop,
};

/* A program of that name in the Windows folder, System32 or SysWOW64:
 * Windows starts it itself, as whoever it likes. */
static bool ifeo_reserved(void *ctx, const char *name)
{
	static const wchar_t *const under[] = {L"", L"\\System32",
					       L"\\SysWOW64"};
	wchar_t root[MAX_PATH], wide[IFEO_NAME_MAX + 1], path[MAX_PATH * 2];
	UINT n = GetSystemWindowsDirectoryW(root, MAX_PATH);

	(void)ctx;
	if (!n || n >= MAX_PATH || !system_wide(name, wide, ARRAY_SIZE(wide)))
		return true; /* when in doubt, not written */
	for (size_t i = 0; i < ARRAY_SIZE(under); i++) {
		_snwprintf(path, ARRAY_SIZE(path), L"%ls%ls\\%ls", root,
			   under[i], wide);
		path[ARRAY_SIZE(path) - 1] = L'\0';
		if (GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES)
			return true;
	}
	return false;
}

static void ifeo_log_plan(const struct rules *rules,
			  const struct ifeo_plan *plan)
{
	char what[128];

	for (size_t i = 0; i < plan->count; i++) {
		ifeo_values_describe(plan->entries[i].values, what,
				     sizeof(what));
		log_info("ifeo: %s: PerfOptions %s (rule %s)",
			 plan->entries[i].name, what,
			 rules->list[plan->entries[i].rule].name);
	}
	for (size_t i = 0; i < plan->skip_count; i++)
		log_info("ifeo: %s: not written (rule %s): %s",
			 plan->skips[i].name,
			 rules->list[plan->skips[i].rule].name,
			 ifeo_skip_text(plan->skips[i].why));
}

static int ifeo_apply(const struct ifeo_plan *plan)
{
	struct perfopts_result result;
	int status = perfopts_sync(&ifeo_store, plan, &result);

	if (result.restored || result.written)
		log_info("ifeo: %u names written, %u put back", result.written,
			 result.restored);
	if (result.left)
		log_info("ifeo: %u values changed by someone else since the "
			 "daemon wrote them: left as they are",
			 result.left);
	if (status < 0)
		log_warnx("ifeo: %u names could not be written or put back; "
			  "their record stays for the next try",
			  result.failed);
	return status;
}

/* The plan in force: what a new process of each name started with. */
static struct ifeo_plan ifeo_current;

void ifeo_sync(struct daemon *d, const struct rules *rules)
{
	struct ifeo_plan plan = {0};

	if (rules && d->conf.ifeo_mode != IFEO_MODE_OFF)
		ifeo_plan_make(rules->list, rules->count, d->conf.ifeo_mode,
			       ifeo_reserved, NULL, &plan);
	if (rules)
		ifeo_log_plan(rules, &plan);
	if (d->conf.dry_run) {
		if (plan.count)
			log_info("ifeo (dry run): nothing written");
		ifeo_plan_free(&plan);
	} else {
		ifeo_apply(&plan);
	}
	ifeo_plan_free(&ifeo_current);
	ifeo_current = plan;
}

static DWORD ifeo_win_class(enum ifeo_cpu_class c)
{
	switch (c) {
	case IFEO_CPU_CLASS_IDLE:
		return IDLE_PRIORITY_CLASS;
	case IFEO_CPU_CLASS_BELOW_NORMAL:
		return BELOW_NORMAL_PRIORITY_CLASS;
	case IFEO_CPU_CLASS_NORMAL:
		return NORMAL_PRIORITY_CLASS;
	case IFEO_CPU_CLASS_ABOVE_NORMAL:
		return ABOVE_NORMAL_PRIORITY_CLASS;
	case IFEO_CPU_CLASS_HIGH:
		return HIGH_PRIORITY_CLASS;
	case IFEO_CPU_CLASS_UNSET:
		break;
	}
	return 0;
}

/* What CreateProcess gives without PerfOptions (ifeo_class_without):
 * the parent's idle or below normal, else normal. */
static DWORD ifeo_class_of_parent(pid_t ppid)
{
	HANDLE h = ppid > 0 ? OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION,
					  FALSE, (DWORD)ppid)
			    : NULL;
	DWORD klass = h ? GetPriorityClass(h) : 0;
	enum rule_class parent = klass == IDLE_PRIORITY_CLASS ? RULE_CLASS_IDLE
				 : klass == BELOW_NORMAL_PRIORITY_CLASS
					 ? RULE_CLASS_BELOW_NORMAL
					 : RULE_CLASS_NORMAL;

	if (h)
		CloseHandle(h);
	switch (ifeo_class_without(parent)) {
	case RULE_CLASS_IDLE:
		return IDLE_PRIORITY_CLASS;
	case RULE_CLASS_BELOW_NORMAL:
		return BELOW_NORMAL_PRIORITY_CLASS;
	default:
		return NORMAL_PRIORITY_CLASS;
	}
}

/* The file name of the image, from the handle that pins the process. */
static bool ifeo_image_name(HANDLE h, char *name, size_t size)
{
	wchar_t path[MAX_PATH * 2], *base;
	DWORD len = ARRAY_SIZE(path);

	if (!QueryFullProcessImageNameW(h, 0, path, &len))
		return false;
	base = wcsrchr(path, L'\\');
	return system_utf8(base ? base + 1 : path, name, size);
}

/* A process whose file name has PerfOptions of the daemon's and whose
 * rule (or none: a same-named program elsewhere) does not give them:
 * its class goes back, unless something changed it already. Its I/O
 * priority cannot be put back through a documented call. */
void ifeo_exec(struct daemon *d, pid_t pid)
{
	struct procinfo pi = {.pid = pid};
	const struct ifeo_entry *e;
	const struct rule *rule = NULL;
	struct facts facts = {0};
	char name[IFEO_NAME_MAX + 1];
	DWORD want, now;
	HANDLE h;
	long index;

	if (!ifeo_current.count || d->conf.dry_run)
		return;
	h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION |
				PROCESS_SET_INFORMATION,
			FALSE, (DWORD)pid);
	if (!h)
		return;
	if (!ifeo_image_name(h, name, sizeof(name)) ||
	    !(e = ifeo_find(&ifeo_current, name)) ||
	    e->values.cpu_class == IFEO_CPU_CLASS_UNSET)
		goto out;
	index = match_first(&d->manage.index, &facts, procinfo_fetch, &pi);
	if (index >= 0)
		rule = &d->rules->list[index];
	if (!ifeo_put_back(e, rule))
		goto out;
	now = GetPriorityClass(h);
	if (now != ifeo_win_class(e->values.cpu_class))
		goto out;
	procinfo_fetch(&pi, MATCH_FACT_PARENT_EXE, &facts);
	want = ifeo_class_of_parent(facts.ppid);
	if (want != now && SetPriorityClass(h, want))
		log_info("pid %d %s: PerfOptions gave it a class %s: put "
			 "back",
			 (int)pid, name,
			 rule ? "its rule does not give" : "no rule gives");
out:
	CloseHandle(h);
}

/* At --uninstall: every value back, then the daemon's own keys, once
 * empty. */
int ifeo_remove_all(void)
{
	struct ifeo_plan none = {0};

	if (ifeo_apply(&none) < 0)
		return -1;
	ifeo_prune(IFEO_RECORDS);
	ifeo_prune(L"SOFTWARE\\cpupolicy");
	return 0;
}
