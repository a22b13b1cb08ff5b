/* Windows: power knobs are power scheme settings, the power mode overlay
 * and the active plan (winpower.c maps the wants to them), read and
 * written through powrprof.dll. Its calls are resolved at run time:
 * Wine 8 lacks the value index calls and the overlay ones, and where one
 * is missing the daemon says once that power settings are not offered
 * and applies the rest of each rule. Nothing else on Windows owns these
 * settings as power-profiles-daemon does on Linux; a vendor tool that
 * sets them is someone else changing a held knob (apply_power_check).
 * There is no idle-latency hold on Windows (check warns of the key). */
#include <stdio.h>

#include "log.h"
#include "power.h"
#include "win.h"
#include "winapi.h"
#include "winpower.h"

typedef DWORD(WINAPI *knobs_get_active_fn)(HKEY root, GUID **scheme);
typedef DWORD(WINAPI *knobs_set_active_fn)(HKEY root, const GUID *scheme);
typedef DWORD(WINAPI *knobs_read_index_fn)(HKEY root, const GUID *scheme,
					   const GUID *sub, const GUID *setting,
					   LPDWORD index);
typedef DWORD(WINAPI *knobs_write_index_fn)(HKEY root, const GUID *scheme,
					    const GUID *sub,
					    const GUID *setting, DWORD index);
/* Not in the SDK; powrprof.dll exports them from Windows 10 1709 on. */
typedef DWORD(WINAPI *knobs_get_overlay_fn)(GUID *overlay);
typedef DWORD(WINAPI *knobs_set_overlay_fn)(GUID overlay);

static struct {
	knobs_get_active_fn get_active;
	knobs_set_active_fn set_active;
	knobs_read_index_fn read_ac, read_dc;
	knobs_write_index_fn write_ac, write_dc;
	knobs_get_overlay_fn get_overlay;
	knobs_set_overlay_fn set_overlay;
} knobs_powrprof;

static INIT_ONCE knobs_once = INIT_ONCE_STATIC_INIT;

/* Tests put an in-memory store here (knobs_store_use). */
static const struct winpower_store *knobs_override;

static BOOL CALLBACK knobs_resolve(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	HMODULE dll = LoadLibraryExW(L"powrprof.dll", NULL,
				     LOAD_LIBRARY_SEARCH_SYSTEM32);

	(void)once;
	(void)param;
	(void)ctx;
	if (!dll)
		dll = LoadLibraryW(L"powrprof.dll"); /* before KB2533623 */
	knobs_powrprof.get_active = winapi_proc(dll, "PowerGetActiveScheme");
	knobs_powrprof.set_active = winapi_proc(dll, "PowerSetActiveScheme");
	knobs_powrprof.read_ac = winapi_proc(dll, "PowerReadACValueIndex");
	knobs_powrprof.read_dc = winapi_proc(dll, "PowerReadDCValueIndex");
	knobs_powrprof.write_ac = winapi_proc(dll, "PowerWriteACValueIndex");
	knobs_powrprof.write_dc = winapi_proc(dll, "PowerWriteDCValueIndex");
	knobs_powrprof.get_overlay =
		winapi_proc(dll, "PowerGetEffectiveOverlayScheme");
	knobs_powrprof.set_overlay =
		winapi_proc(dll, "PowerSetActiveOverlayScheme");
	return TRUE;
}

static void knobs_guid_text(const GUID *g, char *text)
{
	snprintf(text, WINPOWER_GUID_LEN,
		 "%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 (unsigned long)g->Data1, g->Data2, g->Data3, g->Data4[0],
		 g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4],
		 g->Data4[5], g->Data4[6], g->Data4[7]);
}

static bool knobs_guid_of(const char *text, GUID *g)
{
	unsigned long d1;
	unsigned d2, d3, d4[8];

	if (!winpower_guid_valid(text) ||
	    sscanf(text, "%8lx-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &d1, &d2,
		   &d3, &d4[0], &d4[1], &d4[2], &d4[3], &d4[4], &d4[5], &d4[6],
		   &d4[7]) != 11)
		return false;
	g->Data1 = d1;
	g->Data2 = (WORD)d2;
	g->Data3 = (WORD)d3;
	for (int i = 0; i < 8; i++)
		g->Data4[i] = (BYTE)d4[i];
	return true;
}

static enum os_status knobs_status(DWORD error)
{
	return error == ERROR_SUCCESS ? OS_OK : status_of_win32(error);
}

static enum os_status knobs_active(void *ctx, char *guid)
{
	GUID *scheme = NULL;
	DWORD error = knobs_powrprof.get_active(NULL, &scheme);

	(void)ctx;
	if (error == ERROR_SUCCESS && !scheme)
		error = ERROR_INVALID_DATA;
	if (error == ERROR_SUCCESS)
		knobs_guid_text(scheme, guid);
	if (scheme)
		LocalFree(scheme);
	return knobs_status(error);
}

static enum os_status knobs_activate(void *ctx, const char *guid)
{
	GUID scheme;

	(void)ctx;
	if (!knobs_guid_of(guid, &scheme))
		return OS_FAILED;
	return knobs_status(knobs_powrprof.set_active(NULL, &scheme));
}

static bool knobs_guids(const char *scheme, const char *sub,
			const char *setting, GUID g[3])
{
	return knobs_guid_of(scheme, &g[0]) && knobs_guid_of(sub, &g[1]) &&
	       knobs_guid_of(setting, &g[2]);
}

static enum os_status knobs_index_read(void *ctx, const char *scheme,
				       const char *sub, const char *setting,
				       bool ac, unsigned long *value)
{
	GUID g[3];
	DWORD index = 0, error;

	(void)ctx;
	if (!knobs_guids(scheme, sub, setting, g))
		return OS_FAILED;
	error = (ac ? knobs_powrprof.read_ac : knobs_powrprof.read_dc)(
		NULL, &g[0], &g[1], &g[2], &index);
	*value = index;
	return knobs_status(error);
}

static enum os_status knobs_index_write(void *ctx, const char *scheme,
					const char *sub, const char *setting,
					bool ac, unsigned long value)
{
	GUID g[3];

	(void)ctx;
	if (!knobs_guids(scheme, sub, setting, g))
		return OS_FAILED;
	return knobs_status(
		(ac ? knobs_powrprof.write_ac : knobs_powrprof.write_dc)(
			NULL, &g[0], &g[1], &g[2], (DWORD)value));
}

static enum os_status knobs_overlay(void *ctx, char *guid)
{
	GUID overlay;
	DWORD error = knobs_powrprof.get_overlay(&overlay);

	(void)ctx;
	if (error == ERROR_SUCCESS)
		knobs_guid_text(&overlay, guid);
	return knobs_status(error);
}

static enum os_status knobs_set_overlay(void *ctx, const char *guid)
{
	GUID overlay;

	(void)ctx;
	if (!knobs_guid_of(guid, &overlay))
		return OS_FAILED;
	return knobs_status(knobs_powrprof.set_overlay(overlay));
}

/* The store powrprof offers: a call it lacks is left NULL. */
static const struct winpower_store *knobs_store(void)
{
	static struct winpower_store store;

	if (knobs_override)
		return knobs_override;
	InitOnceExecuteOnce(&knobs_once, knobs_resolve, NULL, NULL);
	store = (struct winpower_store){
		.active = knobs_powrprof.get_active ? knobs_active : NULL,
		.activate = knobs_powrprof.set_active ? knobs_activate : NULL,
		.read = knobs_powrprof.read_ac && knobs_powrprof.read_dc
				? knobs_index_read
				: NULL,
		.write = knobs_powrprof.write_ac && knobs_powrprof.write_dc
				 ? knobs_index_write
				 : NULL,
		.overlay = knobs_powrprof.get_overlay ? knobs_overlay : NULL,
		.set_overlay =
			knobs_powrprof.set_overlay ? knobs_set_overlay : NULL,
	};
	return &store;
}

/* The power source decides which of a setting's values is in force;
 * where Windows cannot say, the AC one (a desktop or a server). */
bool knobs_min_cores(int *percent)
{
	SYSTEM_POWER_STATUS ps;
	bool ac = !GetSystemPowerStatus(&ps) || ps.ACLineStatus != 0;

	return winpower_min_cores(knobs_store(), ac, percent);
}

void knobs_store_use(const struct winpower_store *store)
{
	knobs_override = store;
}

void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan)
{
	const struct winpower_store *st = knobs_store();
	char why[128];

	if (power_want_empty(want))
		return;
	if (!winpower_offered(st, why, sizeof(why))) {
		log_once(log_warnx,
			 "power settings are not offered on this Windows "
			 "(powrprof.dll: %s): a rule's power section does "
			 "nothing here, the rest of it applies",
			 why);
		return;
	}
	winpower_plan(st, kn->refused, sizeof(kn->refused), want, held,
		      held_count, plan);
}

void knobs_owned(const struct knobs *kn, struct knobs_owners *owners)
{
	(void)kn;
	*owners = (struct knobs_owners){0};
}

enum os_status knobs_read(const char *key, char *value, size_t size)
{
	return winpower_read(knobs_store(), key, value, size);
}

enum os_status knobs_write(const char *key, const char *value)
{
	return winpower_write(knobs_store(), key, value);
}

enum knobs_order knobs_order(const char *key)
{
	return winpower_order(key);
}

bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size)
{
	(void)kn;
	return winpower_valid(key, why, size);
}

void knobs_latency_hold(const struct knobs *kn, int *handle, long latency_us)
{
	(void)kn;
	(void)latency_us;
	*handle = -1;
}

void knobs_latency_release(const struct knobs *kn, int *handle)
{
	(void)kn;
	*handle = -1;
}
