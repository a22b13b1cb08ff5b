/* Power schemes: Balanced, High performance and Power saver, each with
 * the processor settings' AC and DC values; the active scheme; the power
 * mode overlay, set per power source and, with battery saver on,
 * overridden in effect. Kept over a reboot: Windows keeps all of it in
 * the registry (model.c). */
#include <string.h>

#include "model.h"

/* The schemes' GUIDs: "powercfg /list" and
 * https://learn.microsoft.com/windows-hardware/customize/power-settings/configure-power-settings
 */
const GUID model_scheme_balanced = {
	0x381b4222,
	0xf694,
	0x41f0,
	{0x96, 0x85, 0xff, 0x5b, 0xb2, 0x60, 0xdf, 0x2e}};
const GUID model_scheme_high = {
	0x8c5e7fda,
	0xe8bf,
	0x4a96,
	{0x9a, 0x85, 0xa6, 0xe2, 0x3a, 0x8c, 0x63, 0x5c}};
const GUID model_scheme_saver = {
	0xa1841308,
	0x3541,
	0x4fab,
	{0xbc, 0x81, 0xf7, 0x15, 0x56, 0xf2, 0x0b, 0x4a}};
/* SUB_PROCESSOR and its settings:
 * https://learn.microsoft.com/windows-hardware/customize/power-settings/options-for-perf-state-engine
 * (CPMINCORES, CPMINCORES1 "Processor performance core parking min
 * cores for Processor Power Efficiency Class 1", PERFEPP, PERFEPP1,
 * PERFBOOSTMODE). */
const GUID model_sub_processor = {
	0x54533251,
	0x82be,
	0x4824,
	{0x96, 0xc1, 0x47, 0xb6, 0x0b, 0x74, 0x0d, 0x00}};
/* The power mode overlays: "Better Battery" 961cc777-..., "Better
 * Performance" 3af9b8d9-..., "Best Performance" ded574b5-...:
 * https://learn.microsoft.com/windows-hardware/customize/desktop/customize-power-slider
 * None (00000000-...), the Balanced plan's own values, is what Windows
 * starts with and the slider's Balanced mode sets; that page does not
 * say so (not Microsoft's documentation: https://stackoverflow.com/a/56290499,
 * an answer by a Microsoft engineer). */
const GUID model_overlay_none = {0};
const GUID model_overlay_best_performance = {
	0xded574b5,
	0x45a0,
	0x4f42,
	{0x87, 0x37, 0x46, 0x34, 0x5c, 0x09, 0xc2, 0x38}};
const GUID model_overlay_better_battery = {
	0x961cc777,
	0x2547,
	0x4f9d,
	{0x81, 0x74, 0x7d, 0x86, 0x18, 0x1b, 0x8a, 0x7a}};

enum {
	MODEL_SCHEMES = 3,
};

const GUID model_power_settings[MODEL_POWER_SETTINGS] = {
	/* CPMINCORES, CPMINCORES1 */
	{0x0cc5b647,
	 0xc1df,
	 0x4637,
	 {0x89, 0x1a, 0xde, 0xc3, 0x5c, 0x31, 0x85, 0x83}},
	{0x0cc5b647,
	 0xc1df,
	 0x4637,
	 {0x89, 0x1a, 0xde, 0xc3, 0x5c, 0x31, 0x85, 0x84}},
	/* PERFEPP, PERFEPP1 */
	{0x36687f9e,
	 0xe3a5,
	 0x4dbf,
	 {0xb1, 0xdc, 0x15, 0xeb, 0x38, 0x1c, 0x68, 0x63}},
	{0x36687f9e,
	 0xe3a5,
	 0x4dbf,
	 {0xb1, 0xdc, 0x15, 0xeb, 0x38, 0x1c, 0x68, 0x64}},
	/* PERFBOOSTMODE */
	{0xbe337238,
	 0x0d82,
	 0x4146,
	 {0xa9, 0x60, 0x4f, 0x37, 0x49, 0xd4, 0x70, 0xc7}},
};
static const GUID *const model_schemes[MODEL_SCHEMES] = {
	&model_scheme_balanced, &model_scheme_high, &model_scheme_saver};
/* Balanced's defaults, AC then DC (the same for the others here): core
 * parking at 10 % / 5 %, EPP 25 / 50, boost enabled (1). */
static const DWORD model_defaults[MODEL_POWER_SETTINGS][2] = {
	{10, 5}, {10, 5}, {25, 50}, {25, 50}, {1, 1}};

struct model_pw {
	DWORD value[MODEL_SCHEMES][MODEL_POWER_SETTINGS][2];
	bool missing[MODEL_POWER_SETTINGS], refuse[MODEL_POWER_SETTINGS];
	GUID active, overlay[2]; /* AC, DC */
};
static struct model_pw model_pw;

void model_power_reset(void)
{
	memset(&model_pw, 0, sizeof(model_pw));
	for (int s = 0; s < MODEL_SCHEMES; s++) {
		for (int i = 0; i < MODEL_POWER_SETTINGS; i++) {
			model_pw.value[s][i][0] = model_defaults[i][0];
			model_pw.value[s][i][1] = model_defaults[i][1];
		}
	}
	model_pw.active = model_scheme_balanced;
}

static int model_setting_index(const GUID *setting)
{
	for (int i = 0; i < MODEL_POWER_SETTINGS; i++) {
		if (IsEqualGUID(setting, &model_power_settings[i]))
			return i;
	}
	return -1;
}

DWORD *model_power_value(const GUID *scheme, const GUID *sub,
			 const GUID *setting, bool ac)
{
	int i = model_setting_index(setting);

	if (i < 0 || model_pw.missing[i] ||
	    !IsEqualGUID(sub, &model_sub_processor))
		return NULL;
	for (int s = 0; s < MODEL_SCHEMES; s++) {
		if (IsEqualGUID(scheme, model_schemes[s]))
			return &model_pw.value[s][i][ac ? 0 : 1];
	}
	return NULL;
}

/* A crash's snapshot: what the settings were when the daemon died. */
static struct model_pw model_pw_kept;

void model_power_keep(void)
{
	model_pw_kept = model_pw;
}

void model_power_put_back(void)
{
	model_pw = model_pw_kept;
}

void model_power_missing(const GUID *setting, bool missing)
{
	model_pw.missing[model_setting_index(setting)] = missing;
}

void model_power_refuse(const GUID *setting, bool refuse)
{
	model_pw.refuse[model_setting_index(setting)] = refuse;
}

const GUID *model_power_active(void)
{
	return &model_pw.active;
}

const GUID *model_power_overlay(bool ac)
{
	return &model_pw.overlay[ac ? 0 : 1];
}

/* As the slider sets it on that power source, or a vendor's tool. */
void model_power_set_overlay(bool ac, const GUID *overlay)
{
	model_pw.overlay[ac ? 0 : 1] = *overlay;
}

/* "ActivePolicyGuid: ... When you are finished using the GUID, call
 * LocalFree to free it."
 * sdk-api-src/content/powersetting/nf-powersetting-powergetactivescheme.md */
static DWORD WINAPI model_get_active(HKEY root, GUID **scheme)
{
	(void)root;
	model_count("PowerGetActiveScheme");
	*scheme = LocalAlloc(LMEM_FIXED, sizeof(**scheme));
	if (!*scheme)
		return ERROR_NOT_ENOUGH_MEMORY;
	**scheme = model_pw.active;
	return ERROR_SUCCESS;
}

/* A scheme that is not there: the registry key is missing. What the
 * error is Microsoft does not document ("a nonzero value if the call
 * failed"); powrprof answers ERROR_FILE_NOT_FOUND, as Wine's powrprof
 * does (wine/dlls/powrprof/powrprof.c) -- not Microsoft's word.
 * sdk-api-src/content/powersetting/nf-powersetting-powersetactivescheme.md */
static DWORD WINAPI model_set_active(HKEY root, const GUID *scheme)
{
	(void)root;
	model_count("PowerSetActiveScheme");
	if (!model_power_value(scheme, &model_sub_processor, &model_power_settings[MODEL_POWER_PERFBOOSTMODE],
			       true))
		return ERROR_FILE_NOT_FOUND;
	model_pw.active = *scheme;
	return ERROR_SUCCESS;
}

static DWORD model_read(const GUID *scheme, const GUID *sub,
			const GUID *setting, bool ac, LPDWORD index)
{
	DWORD *v = model_power_value(scheme, sub, setting, ac);

	if (!v)
		return ERROR_FILE_NOT_FOUND;
	*index = *v;
	return ERROR_SUCCESS;
}

/* "Retrieves the AC/DC power value index of the specified power
 * setting"; a value written to the active scheme takes effect once the
 * scheme is set active again ("Changes to the settings for the active
 * power scheme do not take effect until you call PowerSetActiveScheme").
 * sdk-api-src/content/powersetting/nf-powersetting-powerreadacvalueindex.md,
 * sdk-api-src/content/powersetting/nf-powersetting-powerwriteacvalueindex.md */
static DWORD WINAPI model_read_ac(HKEY root, const GUID *scheme,
				  const GUID *sub, const GUID *setting,
				  LPDWORD index)
{
	(void)root;
	model_count("PowerReadACValueIndex");
	return model_read(scheme, sub, setting, true, index);
}

static DWORD WINAPI model_read_dc(HKEY root, const GUID *scheme,
				  const GUID *sub, const GUID *setting,
				  LPDWORD index)
{
	(void)root;
	model_count("PowerReadDCValueIndex");
	return model_read(scheme, sub, setting, false, index);
}

static DWORD model_write(const GUID *scheme, const GUID *sub,
			 const GUID *setting, bool ac, DWORD index)
{
	DWORD *v = model_power_value(scheme, sub, setting, ac);

	if (!v)
		return ERROR_FILE_NOT_FOUND;
	if (model_pw.refuse[model_setting_index(setting)])
		return ERROR_ACCESS_DENIED;
	*v = index;
	return ERROR_SUCCESS;
}

static DWORD WINAPI model_write_ac(HKEY root, const GUID *scheme,
				   const GUID *sub, const GUID *setting,
				   DWORD index)
{
	(void)root;
	model_count("PowerWriteACValueIndex");
	return model_write(scheme, sub, setting, true, index);
}

static DWORD WINAPI model_write_dc(HKEY root, const GUID *scheme,
				   const GUID *sub, const GUID *setting,
				   DWORD index)
{
	(void)root;
	model_count("PowerWriteDCValueIndex");
	return model_write(scheme, sub, setting, false, index);
}

/* The overlay calls are not documented by Microsoft. Their behaviour as
 * the power mode slider shows it (Settings > Power, powercfg
 * /getoverlayscheme): the active overlay is kept per power source (the
 * registry's ActiveOverlayAcPowerScheme and ActiveOverlayDcPowerScheme
 * under HKLM\SYSTEM\CurrentControlSet\Control\Power\User\PowerSchemes),
 * PowerSetActiveOverlayScheme sets the one of the power source in use,
 * PowerGetActualOverlayScheme reads it back, and
 * PowerGetEffectiveOverlayScheme answers what is in force, which battery
 * saver replaces by "Better battery". Sources: not Microsoft's; the
 * registry values as powercfg and the slider write them, and
 * semihartan/soscheme (include/oscheme.h), which calls them. */
static bool model_power_ac(void)
{
	return !model_config()->on_battery;
}

static DWORD WINAPI model_get_effective_overlay(GUID *overlay)
{
	model_count("PowerGetEffectiveOverlayScheme");
	*overlay = model_config()->battery_saver
			   ? model_overlay_better_battery
			   : model_pw.overlay[model_power_ac() ? 0 : 1];
	return ERROR_SUCCESS;
}

static DWORD WINAPI model_get_actual_overlay(GUID *overlay)
{
	model_count("PowerGetActualOverlayScheme");
	*overlay = model_pw.overlay[model_power_ac() ? 0 : 1];
	return ERROR_SUCCESS;
}

static DWORD WINAPI model_set_overlay(GUID overlay)
{
	model_count("PowerSetActiveOverlayScheme");
	model_pw.overlay[model_power_ac() ? 0 : 1] = overlay;
	return ERROR_SUCCESS;
}

/* "ACLineStatus: 0 Offline, 1 Online".
 * sdk-api-src/content/winbase/ns-winbase-system_power_status.md */
static BOOL WINAPI model_power_status(LPSYSTEM_POWER_STATUS status)
{
	model_count("GetSystemPowerStatus");
	memset(status, 0, sizeof(*status));
	status->ACLineStatus = model_power_ac() ? 1 : 0;
	/* SystemStatusFlag, 1: battery saver on (mingw-w64: Reserved1). */
	status->Reserved1 = model_config()->battery_saver ? 1 : 0;
	return TRUE;
}

void model_power_install(struct winapi *w)
{
	w->PowerGetActiveScheme = model_get_active;
	w->PowerSetActiveScheme = model_set_active;
	w->PowerReadACValueIndex = model_read_ac;
	w->PowerReadDCValueIndex = model_read_dc;
	w->PowerWriteACValueIndex = model_write_ac;
	w->PowerWriteDCValueIndex = model_write_dc;
	w->PowerGetEffectiveOverlayScheme = model_get_effective_overlay;
	w->PowerGetActualOverlayScheme = model_get_actual_overlay;
	w->PowerSetActiveOverlayScheme = model_set_overlay;
	w->GetSystemPowerStatus = model_power_status;
}
