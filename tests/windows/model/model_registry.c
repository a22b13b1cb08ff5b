/* The registry under HKEY_LOCAL_MACHINE: keys, persistent or volatile,
 * and their values. A reboot keeps the persistent keys and their values
 * and drops the volatile ones. */
#include <string.h>
#include <wchar.h>

#include "model.h"

enum {
	MODEL_KEYS = 64,
	MODEL_VALUES = 256,
	MODEL_PATH = 260,
	MODEL_DATA = 256,
};

static struct {
	struct {
		wchar_t path[MODEL_PATH];
		bool used, volatile_;
	} keys[MODEL_KEYS];
	struct {
		int key;
		wchar_t name[64];
		DWORD type, size;
		BYTE data[MODEL_DATA];
	} values[MODEL_VALUES];
	size_t value_count;
} model_reg;

#define MODEL_HKEY_BASE 0x4b000
#define MODEL_HKEY(i)	((HKEY)(ULONG_PTR)(MODEL_HKEY_BASE + (i)))

static int model_key_index(HKEY key)
{
	ULONG_PTR k = (ULONG_PTR)key;

	if (key == HKEY_LOCAL_MACHINE)
		return -1;
	if (k < MODEL_HKEY_BASE || k >= MODEL_HKEY_BASE + MODEL_KEYS ||
	    !model_reg.keys[k - MODEL_HKEY_BASE].used)
		return -2;
	return (int)(k - MODEL_HKEY_BASE);
}

/* Key names are case-insensitive ("Key names are not case sensitive").
 * https://learn.microsoft.com/windows/win32/sysinfo/structure-of-the-registry
 */
static int model_key_find(const wchar_t *path)
{
	for (int i = 0; i < MODEL_KEYS; i++) {
		if (model_reg.keys[i].used &&
		    _wcsicmp(model_reg.keys[i].path, path) == 0)
			return i;
	}
	return -1;
}

static bool model_key_path(HKEY parent, const wchar_t *sub, wchar_t *out)
{
	int p = model_key_index(parent);

	if (p == -2)
		return false;
	if (p < 0)
		swprintf(out, MODEL_PATH, L"%ls", sub ? sub : L"");
	else if (!sub || !*sub)
		swprintf(out, MODEL_PATH, L"%ls", model_reg.keys[p].path);
	else
		swprintf(out, MODEL_PATH, L"%ls\\%ls", model_reg.keys[p].path,
			 sub);
	return true;
}

/* The key of a path, made where it is not there; -1: no room. */
static int model_key_make(const wchar_t *path, bool volatile_)
{
	int i = model_key_find(path);

	for (int k = 0; i < 0 && k < MODEL_KEYS; k++) {
		if (!model_reg.keys[k].used) {
			model_reg.keys[k].used = true;
			model_reg.keys[k].volatile_ = volatile_;
			wcscpy(model_reg.keys[k].path, path);
			i = k;
		}
	}
	return i;
}

/* "The RegCreateKeyEx function creates all missing keys in the
 * specified path": each key above the one asked for, with its options.
 * sdk-api-src/content/winreg/nf-winreg-regcreatekeyexw.md */
static bool model_key_make_parents(const wchar_t *path, bool volatile_)
{
	wchar_t above[MODEL_PATH];

	for (const wchar_t *p = wcschr(path, L'\\'); p;
	     p = wcschr(p + 1, L'\\')) {
		swprintf(above, MODEL_PATH, L"%.*ls", (int)(p - path), path);
		if (model_key_make(above, volatile_) < 0)
			return false;
	}
	return true;
}

/* "REG_OPTION_VOLATILE: All keys created by the function are volatile.
 * The information is stored in memory and is not preserved when the
 * corresponding registry hive is unloaded"; an existing key is opened
 * (REG_OPENED_EXISTING_KEY), with the options it was created with.
 * sdk-api-src/content/winreg/nf-winreg-regcreatekeyexw.md */
static LSTATUS WINAPI model_create_key(HKEY parent, LPCWSTR sub, DWORD reserved,
				       LPWSTR klass, DWORD options, REGSAM sam,
				       const LPSECURITY_ATTRIBUTES sa,
				       PHKEY out, LPDWORD disposition)
{
	bool volatile_ = (options & REG_OPTION_VOLATILE) != 0;
	wchar_t path[MODEL_PATH];
	int i;

	(void)reserved;
	(void)klass;
	(void)sam;
	(void)sa;
	model_count("RegCreateKeyExW");
	if (!model_key_path(parent, sub, path))
		return ERROR_INVALID_HANDLE;
	i = model_key_find(path);
	if (disposition)
		*disposition =
			i >= 0 ? REG_OPENED_EXISTING_KEY : REG_CREATED_NEW_KEY;
	if (i < 0 && model_key_make_parents(path, volatile_))
		i = model_key_make(path, volatile_);
	if (i < 0)
		return ERROR_OUTOFMEMORY;
	*out = MODEL_HKEY(i);
	return ERROR_SUCCESS;
}

/* "If the key does not exist ... ERROR_FILE_NOT_FOUND".
 * sdk-api-src/content/winreg/nf-winreg-regopenkeyexw.md */
static LSTATUS WINAPI model_open_key(HKEY parent, LPCWSTR sub, DWORD options,
				     REGSAM sam, PHKEY out)
{
	wchar_t path[MODEL_PATH];
	int i;

	(void)options;
	(void)sam;
	model_count("RegOpenKeyExW");
	if (!model_key_path(parent, sub, path))
		return ERROR_INVALID_HANDLE;
	i = model_key_find(path);
	if (i < 0)
		return ERROR_FILE_NOT_FOUND;
	*out = MODEL_HKEY(i);
	return ERROR_SUCCESS;
}

static int model_value_find(int key, const wchar_t *name)
{
	for (size_t v = 0; v < model_reg.value_count; v++) {
		if (model_reg.values[v].key == key &&
		    _wcsicmp(model_reg.values[v].name, name ? name : L"") == 0)
			return (int)v;
	}
	return -1;
}

/* sdk-api-src/content/winreg/nf-winreg-regsetvalueexw.md */
static LSTATUS WINAPI model_set_value(HKEY key, LPCWSTR name, DWORD reserved,
				      DWORD type, const BYTE *data, DWORD size)
{
	int k = model_key_index(key), v;

	(void)reserved;
	model_count("RegSetValueExW");
	if (k < 0)
		return ERROR_INVALID_HANDLE;
	if (size > MODEL_DATA)
		return ERROR_OUTOFMEMORY;
	v = model_value_find(k, name);
	if (v < 0) {
		if (model_reg.value_count == MODEL_VALUES)
			return ERROR_OUTOFMEMORY;
		v = (int)model_reg.value_count++;
		model_reg.values[v].key = k;
		swprintf(model_reg.values[v].name,
			 ARRAYSIZE(model_reg.values[v].name), L"%ls",
			 name ? name : L"");
	}
	model_reg.values[v].type = type;
	model_reg.values[v].size = size;
	memcpy(model_reg.values[v].data, data, size);
	return ERROR_SUCCESS;
}

/* "If the buffer specified by lpData parameter is not large enough ...
 * the function returns ERROR_MORE_DATA and stores the required buffer
 * size in the variable pointed to by lpcbData"; a value not there:
 * ERROR_FILE_NOT_FOUND.
 * sdk-api-src/content/winreg/nf-winreg-regqueryvalueexw.md */
static LSTATUS model_value_out(int v, LPDWORD type, LPBYTE data, LPDWORD size)
{
	if (type)
		*type = model_reg.values[v].type;
	if (data && size && *size < model_reg.values[v].size) {
		*size = model_reg.values[v].size;
		return ERROR_MORE_DATA;
	}
	if (data && size)
		memcpy(data, model_reg.values[v].data,
		       model_reg.values[v].size);
	if (size)
		*size = model_reg.values[v].size;
	return ERROR_SUCCESS;
}

static LSTATUS WINAPI model_query_value(HKEY key, LPCWSTR name,
					LPDWORD reserved, LPDWORD type,
					LPBYTE data, LPDWORD size)
{
	int k = model_key_index(key), v;

	(void)reserved;
	model_count("RegQueryValueExW");
	if (k < 0)
		return ERROR_INVALID_HANDLE;
	v = model_value_find(k, name);
	return v < 0 ? ERROR_FILE_NOT_FOUND
		     : model_value_out(v, type, data, size);
}

static void model_value_drop(int v)
{
	model_reg.values[v] = model_reg.values[--model_reg.value_count];
}

static LSTATUS WINAPI model_delete_value(HKEY key, LPCWSTR name)
{
	int k = model_key_index(key), v;

	model_count("RegDeleteValueW");
	if (k < 0)
		return ERROR_INVALID_HANDLE;
	v = model_value_find(k, name);
	if (v < 0)
		return ERROR_FILE_NOT_FOUND;
	model_value_drop(v);
	return ERROR_SUCCESS;
}

static size_t model_subkeys(const wchar_t *path)
{
	size_t n = 0, len = wcslen(path);

	for (int i = 0; i < MODEL_KEYS; i++) {
		if (model_reg.keys[i].used &&
		    _wcsnicmp(model_reg.keys[i].path, path, len) == 0 &&
		    model_reg.keys[i].path[len] == L'\\')
			n++;
	}
	return n;
}

/* "The subkey to be deleted must not have subkeys"
 * (ERROR_ACCESS_DENIED, as RegDeleteKey answers it).
 * sdk-api-src/content/winreg/nf-winreg-regdeletekeyexw.md */
static void model_key_drop(int i)
{
	for (size_t v = model_reg.value_count; v-- > 0;) {
		if (model_reg.values[v].key == i)
			model_value_drop((int)v);
	}
	model_reg.keys[i].used = false;
}

static LSTATUS WINAPI model_delete_key(HKEY parent, LPCWSTR sub, REGSAM sam,
				       DWORD reserved)
{
	wchar_t path[MODEL_PATH];
	int i;

	(void)sam;
	(void)reserved;
	model_count("RegDeleteKeyExW");
	if (!model_key_path(parent, sub, path))
		return ERROR_INVALID_HANDLE;
	i = model_key_find(path);
	if (i < 0)
		return ERROR_FILE_NOT_FOUND;
	if (model_subkeys(path))
		return ERROR_ACCESS_DENIED;
	model_key_drop(i);
	return ERROR_SUCCESS;
}

/* "If there are no more values available, the function returns
 * ERROR_NO_MORE_ITEMS"; lpcchValueName in characters, without the NUL.
 * sdk-api-src/content/winreg/nf-winreg-regenumvaluew.md */
static LSTATUS WINAPI model_enum_value(HKEY key, DWORD index, LPWSTR name,
				       LPDWORD name_len, LPDWORD reserved,
				       LPDWORD type, LPBYTE data, LPDWORD size)
{
	int k = model_key_index(key);
	DWORD n = 0;

	(void)reserved;
	model_count("RegEnumValueW");
	if (k < 0)
		return ERROR_INVALID_HANDLE;
	for (size_t v = 0; v < model_reg.value_count; v++) {
		size_t len;

		if (model_reg.values[v].key != k || n++ != index)
			continue;
		len = wcslen(model_reg.values[v].name);
		if (len + 1 > *name_len)
			return ERROR_MORE_DATA;
		wcscpy(name, model_reg.values[v].name);
		*name_len = (DWORD)len;
		return model_value_out((int)v, type, data, size);
	}
	return ERROR_NO_MORE_ITEMS;
}

/* sdk-api-src/content/winreg/nf-winreg-regqueryinfokeyw.md: the counts
 * of subkeys and values (the rest is not modelled: zeros). */
static LSTATUS WINAPI model_query_info(HKEY key, LPWSTR klass,
				       LPDWORD klass_len, LPDWORD reserved,
				       LPDWORD subkeys, LPDWORD max_sub,
				       LPDWORD max_class, LPDWORD values,
				       LPDWORD max_name, LPDWORD max_value,
				       LPDWORD sd_len, PFILETIME written)
{
	int k = model_key_index(key);
	DWORD n = 0;

	(void)klass;
	(void)reserved;
	model_count("RegQueryInfoKeyW");
	if (k < 0)
		return ERROR_INVALID_HANDLE;
	for (size_t v = 0; v < model_reg.value_count; v++)
		n += model_reg.values[v].key == k;
	if (subkeys)
		*subkeys = (DWORD)model_subkeys(model_reg.keys[k].path);
	if (values)
		*values = n;
	if (klass_len)
		*klass_len = 0;
	if (max_sub)
		*max_sub = MODEL_PATH;
	if (max_class)
		*max_class = 0;
	if (max_name)
		*max_name = 63;
	if (max_value)
		*max_value = MODEL_DATA;
	if (sd_len)
		*sd_len = 0;
	if (written)
		*written = (FILETIME){0};
	return ERROR_SUCCESS;
}

static LSTATUS WINAPI model_flush_key(HKEY key)
{
	model_count("RegFlushKey");
	return model_key_index(key) == -2 ? ERROR_INVALID_HANDLE
					  : ERROR_SUCCESS;
}

static LSTATUS WINAPI model_close_key(HKEY key)
{
	model_count("RegCloseKey");
	return model_key_index(key) == -2 ? ERROR_INVALID_HANDLE
					  : ERROR_SUCCESS;
}

bool model_registry_dword(const wchar_t *path, const wchar_t *value, DWORD *out)
{
	int k = model_key_find(path),
	    v = k < 0 ? -1 : model_value_find(k, value);

	if (v < 0 || model_reg.values[v].type != REG_DWORD)
		return false;
	memcpy(out, model_reg.values[v].data, sizeof(*out));
	return true;
}

void model_registry_reset(void)
{
	memset(&model_reg, 0, sizeof(model_reg));
}

void model_registry_reboot(void)
{
	for (int i = 0; i < MODEL_KEYS; i++) {
		if (model_reg.keys[i].used && model_reg.keys[i].volatile_)
			model_key_drop(i);
	}
}

void model_registry_install(struct winapi *w)
{
	w->RegCreateKeyExW = model_create_key;
	w->RegOpenKeyExW = model_open_key;
	w->RegSetValueExW = model_set_value;
	w->RegQueryValueExW = model_query_value;
	w->RegDeleteValueW = model_delete_value;
	w->RegDeleteKeyExW = model_delete_key;
	w->RegEnumValueW = model_enum_value;
	w->RegQueryInfoKeyW = model_query_info;
	w->RegFlushKey = model_flush_key;
	w->RegCloseKey = model_close_key;
}
