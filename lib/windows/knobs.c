/* Windows: power knobs are power scheme settings, the power mode overlay
 * and the active plan (winpower.c maps the wants to them), read and
 * written through powrprof.dll (winapi.h's table). Its calls are
 * resolved at run time:
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
	DWORD error = winapi_get()->PowerGetActiveScheme(NULL, &scheme);

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
	return knobs_status(winapi_get()->PowerSetActiveScheme(NULL, &scheme));
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
	error = (ac ? winapi_get()->PowerReadACValueIndex
		    : winapi_get()->PowerReadDCValueIndex)(NULL, &g[0], &g[1],
							   &g[2], &index);
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
	return knobs_status((ac ? winapi_get()->PowerWriteACValueIndex
				: winapi_get()->PowerWriteDCValueIndex)(
		NULL, &g[0], &g[1], &g[2], (DWORD)value));
}

/* The overlay is read with the getter that answers what its setter set:
 * PowerSetActiveOverlayScheme sets the mode of the power source in use,
 * which PowerGetActualOverlayScheme reads back, while
 * PowerGetEffectiveOverlayScheme answers the mode in force, which battery
 * saver replaces (a read-back of that fails, and battery saver's mode
 * would be journaled as the original). The Win32 reference documents none
 * of the three (sdk-api's powersetting/ has no page for them). Their
 * signatures, DWORD (GUID *) for the getters and DWORD (GUID) by value
 * for the setter (winapi.h), and which reads what, are public reverse
 * engineering, not Microsoft's word: power-mode tools declare them so
 * (HandheldCompanion's PowerManager, LenovoLegionToolkit), and
 * Microsoft's PowerToys Command Palette reads the user's mode with
 * PowerGetActualOverlayScheme where the documented-nowhere
 * PowerGetUserConfigured*PowerMode are missing. */
static enum os_status knobs_overlay(void *ctx, char *guid)
{
	GUID overlay;
	DWORD error = winapi_get()->PowerGetActualOverlayScheme(&overlay);

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
	return knobs_status(winapi_get()->PowerSetActiveOverlayScheme(overlay));
}

/* The store powrprof offers: a call it lacks is left NULL. */
static const struct winpower_store *knobs_store(void)
{
	const struct winapi *w = winapi_get();
	static struct winpower_store store;

	store = (struct winpower_store){
		.active = w->PowerGetActiveScheme ? knobs_active : NULL,
		.activate = w->PowerSetActiveScheme ? knobs_activate : NULL,
		.read = w->PowerReadACValueIndex && w->PowerReadDCValueIndex
				? knobs_index_read
				: NULL,
		.write = w->PowerWriteACValueIndex && w->PowerWriteDCValueIndex
				 ? knobs_index_write
				 : NULL,
		.overlay =
			w->PowerGetActualOverlayScheme ? knobs_overlay : NULL,
		.set_overlay = w->PowerSetActiveOverlayScheme
				       ? knobs_set_overlay
				       : NULL,
	};
	return &store;
}

/* The power source decides which of a setting's values is in force;
 * where Windows cannot say, the AC one (a desktop or a server). */
bool knobs_min_cores(int *percent)
{
	SYSTEM_POWER_STATUS ps;
	bool ac = !winapi_get()->GetSystemPowerStatus(&ps) ||
		  ps.ACLineStatus != 0;

	return winpower_min_cores(knobs_store(), ac, percent);
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

bool knobs_lasting(const char *key)
{
	return winpower_lasting(key);
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

/* Never held here (knobs_latency_hold): named for completeness. */
void knobs_latency_name(char *name, size_t size)
{
	snprintf(name, size, "idle latency");
}
