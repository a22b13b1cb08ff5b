/* Windows power settings as knobs (os.h): the power wants mapped to power
 * scheme settings, the power mode overlay and the active plan, and the
 * knob keys read and written through a store (powrprof on Windows, a
 * table in memory in tests). OS-neutral, so that the mapping and the key
 * logic are tested natively as well as under Wine. */
#ifndef CPUPOLICY_WINPOWER_H
#define CPUPOLICY_WINPOWER_H

#include <stdbool.h>
#include <stddef.h>

#include "os.h"
#include "power.h"

/* A GUID as text: 8-4-4-4-12 lowercase hex digits and the NUL. */
#define WINPOWER_GUID_LEN 37

#define WINPOWER_SUB_PROCESSOR "54533251-82be-4824-96c1-47b60b740d00"
#define WINPOWER_CPMINCORES    "0cc5b647-c1df-4637-891a-dec35c318583"
#define WINPOWER_CPMINCORES1   "0cc5b647-c1df-4637-891a-dec35c318584"
#define WINPOWER_PERFEPP       "36687f9e-e3a5-4dbf-b1dc-15eb381c6863"
#define WINPOWER_PERFEPP1      "36687f9e-e3a5-4dbf-b1dc-15eb381c6864"
#define WINPOWER_PERFBOOSTMODE "be337238-0d82-4146-a960-4f3749d470c7"
#define WINPOWER_PLAN_BALANCED "381b4222-f694-41f0-9685-ff5bb260df2e"
#define WINPOWER_NULL_GUID     "00000000-0000-0000-0000-000000000000"

/* The power mode overlays, the slider's modes under the Balanced plan, as
 * Microsoft lists them ("Better Battery", "Better Performance", "Best
 * Performance", in its case: 961CC777-2547-4F9D-8174-7D86181b8A7A,
 * 3af9B8d9-7c97-431d-ad78-34a8bfea439f,
 * ded574b5-45a0-4f42-8737-46345c09c238):
 * https://learn.microsoft.com/windows-hardware/customize/desktop/customize-power-slider
 * (test_winpower.c compares them). No overlay, the Balanced plan's own
 * values, is WINPOWER_NULL_GUID: the slider's Balanced mode on Windows 11
 * writes it, which that page does not say (not Microsoft's documentation:
 * a Microsoft engineer's answer, "that's the default performance, and
 * don't need to be overlay", https://stackoverflow.com/a/56290499). */
#define WINPOWER_OVERLAY_BEST_PERFORMANCE "ded574b5-45a0-4f42-8737-46345c09c238"
#define WINPOWER_OVERLAY_BETTER_PERFORMANCE                                    \
	"3af9b8d9-7c97-431d-ad78-34a8bfea439f"
#define WINPOWER_OVERLAY_BEST_EFFICIENCY "961cc777-2547-4f9d-8174-7d86181b8a7a"

/* The knob keys: a setting of one scheme, AC or DC
 * ("/scheme/SCHEME/SUBGROUP/SETTING/ac", a decimal value index), the
 * active plan ("/scheme/active", a scheme's GUID) and the power mode
 * overlay ("/overlay", an overlay's GUID). */
#define WINPOWER_KEY_ACTIVE  "/scheme/active"
#define WINPOWER_KEY_OVERLAY "/overlay"

/* Where the settings are. Each call answers OS_OK or why not; a NULL
 * call is one this Windows does not offer (Wine 8 lacks several). GUIDs
 * in and out are text (WINPOWER_GUID_LEN). */
struct winpower_store {
	void *ctx;
	enum os_status (*active)(void *ctx, char *guid);
	enum os_status (*activate)(void *ctx, const char *guid);
	enum os_status (*read)(void *ctx, const char *scheme, const char *sub,
			       const char *setting, bool ac,
			       unsigned long *value);
	enum os_status (*write)(void *ctx, const char *scheme, const char *sub,
				const char *setting, bool ac,
				unsigned long value);
	enum os_status (*overlay)(void *ctx, char *guid);
	enum os_status (*set_overlay)(void *ctx, const char *guid);
};

/* winpower.c */
bool winpower_guid_valid(const char *text);
const char *winpower_plan_guid(const char *plan);
const char *winpower_plan_name(const char *guid);
bool winpower_plan_parse(const char *text, char *out, size_t size);
bool winpower_offered(const struct winpower_store *st, char *why, size_t size);
void winpower_plan(const struct winpower_store *st, char *said,
		   size_t said_size, const struct power_want *want,
		   const struct power_held *held, size_t held_count,
		   struct power_plan *plan);
enum os_status winpower_read(const struct winpower_store *st, const char *key,
			     char *value, size_t size);
enum os_status winpower_write(const struct winpower_store *st, const char *key,
			      const char *value);
bool winpower_valid(const char *key, char *why, size_t size);
bool winpower_min_cores(const struct winpower_store *st, bool ac, int *percent);
enum knobs_order winpower_order(const char *key);
bool winpower_lasting(const char *key);

#endif
