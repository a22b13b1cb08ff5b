/* Windows power settings as knobs, OS-neutral (winpower.h). The wants map
 * to settings of the processor subgroup in the scheme that is (or is to
 * be) active, AC and DC alike, so that a laptop on battery keeps them:
 * parking off or min_online to CPMINCORES and CPMINCORES1 (the core
 * parking minimum, of efficiency class 0 and 1), epp to PERFEPP and
 * PERFEPP1, turbo to PERFBOOSTMODE; profile to the power mode overlay,
 * which Windows offers only under the Balanced plan; plan to the active
 * scheme. A setting written to the active scheme takes effect only when
 * the scheme is set active again, so each such write is followed by
 * that. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"
#include "winpower.h"

/* The plans Windows ships, by the names rules give them. */
static const struct {
	const char *name, *guid;
} winpower_plans[] = {
	{"ultimate-performance", "e9a42b02-d5df-448d-aa00-03f14749eb61"},
	{"high-performance", "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c"},
	{"balanced", WINPOWER_PLAN_BALANCED},
	{"power-saver", "a1841308-3541-4fab-bc81-f71556f20b4a"},
};

/* The settings of the processor subgroup we write. */
static const char *const winpower_settings[] = {
	WINPOWER_CPMINCORES, WINPOWER_CPMINCORES1,   WINPOWER_PERFEPP,
	WINPOWER_PERFEPP1,   WINPOWER_PERFBOOSTMODE,
};

bool winpower_guid_valid(const char *text)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	for (size_t i = 0; i < sizeof(shape) - 1; i++) {
		if (shape[i] == '-' ? text[i] != '-'
				    : !isxdigit((unsigned char)text[i]) ||
					      isupper((unsigned char)text[i]))
			return false;
	}
	return text[sizeof(shape) - 1] == '\0';
}

/* A plan's scheme GUID: a name's, or the GUID given (lowercase); NULL
 * for anything else. */
const char *winpower_plan_guid(const char *plan)
{
	for (size_t i = 0; i < ARRAY_SIZE(winpower_plans); i++) {
		if (strcmp(winpower_plans[i].name, plan) == 0)
			return winpower_plans[i].guid;
	}
	return winpower_guid_valid(plan) ? plan : NULL;
}

/* The name of a plan's GUID; NULL for a scheme without one. */
const char *winpower_plan_name(const char *guid)
{
	for (size_t i = 0; i < ARRAY_SIZE(winpower_plans); i++) {
		if (strcmp(winpower_plans[i].guid, guid) == 0)
			return winpower_plans[i].name;
	}
	return NULL;
}

/* A plan as a rule or the configuration gives it: a name, or the GUID
 * powercfg /list shows (braces and case as copied), kept as its name
 * where it has one. false: neither. */
bool winpower_plan_parse(const char *text, char *out, size_t size)
{
	char plan[WINPOWER_GUID_LEN + 32];
	size_t len = strlen(text);
	const char *name;

	if (len == 38 && text[0] == '{' && text[37] == '}') {
		text++;
		len -= 2;
	}
	if (len >= sizeof(plan))
		return false;
	for (size_t i = 0; i < len; i++)
		plan[i] = (char)tolower((unsigned char)text[i]);
	plan[len] = '\0';
	if (!winpower_plan_guid(plan))
		return false;
	name = winpower_plan_name(plan);
	snprintf(out, size, "%s", name ? name : plan);
	return true;
}

bool winpower_offered(const struct winpower_store *st, char *why, size_t size)
{
	const char *missing = !st->active     ? "PowerGetActiveScheme"
			      : !st->activate ? "PowerSetActiveScheme"
			      : !st->read     ? "PowerReadACValueIndex"
			      : !st->write    ? "PowerWriteACValueIndex"
					      : NULL;

	if (missing)
		snprintf(why, size, "%s is missing", missing);
	return !missing;
}

/* Epp as PERFEPP's percentage (0: performance), at the points of the
 * Linux hint's 0..255 scale; "default" is what intel_pstate starts
 * with, balance_performance. */
static unsigned long winpower_epp(const char *epp)
{
	static const struct {
		const char *name;
		unsigned long percent;
	} map[] = {
		{"performance", 0}, {"balance_performance", 50},
		{"default", 50},    {"balance_power", 75},
		{"power", 100},
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		if (strcmp(map[i].name, epp) == 0)
			return map[i].percent;
	}
	return 50;
}

static const char *winpower_overlay_of(const char *profile)
{
	if (strcmp(profile, "max-power") == 0 ||
	    strcmp(profile, "performance") == 0)
		return WINPOWER_OVERLAY_BEST_PERFORMANCE;
	if (strcmp(profile, "balanced-performance") == 0)
		return WINPOWER_OVERLAY_BETTER_PERFORMANCE;
	if (strcmp(profile, "balanced") == 0)
		return WINPOWER_NULL_GUID;
	return WINPOWER_OVERLAY_BEST_EFFICIENCY; /* cool, quiet, low-power */
}

/* One planning: where to, what is held, the plan so far. */
struct winpower_planning {
	const struct winpower_store *st;
	char *said;
	size_t said_size;
	const char *scheme; /* the one the settings go to */
	struct power_plan *plan;
};

/* Said again only when it changes: every planning would say it. */
static void winpower_say(const struct winpower_planning *p, const char *what)
{
	if (strcmp(p->said, what) == 0)
		return;
	snprintf(p->said, p->said_size, "%s", what);
	log_warnx("%s", what);
}

static void winpower_key(char *key, size_t size, const char *scheme,
			 const char *setting, bool ac)
{
	snprintf(key, size, "/scheme/%s/%s/%s/%s", scheme,
		 WINPOWER_SUB_PROCESSOR, setting, ac ? "ac" : "dc");
}

/* A setting, AC and DC, where this Windows has it. */
static void winpower_plan_setting(const struct winpower_planning *p,
				  const char *setting, unsigned long value)
{
	char key[160], text[32], what[256];
	unsigned long now;

	snprintf(text, sizeof(text), "%lu", value);
	for (int ac = 1; ac >= 0; ac--) {
		if (p->st->read(p->st->ctx, p->scheme, WINPOWER_SUB_PROCESSOR,
				setting, ac, &now) != OS_OK) {
			snprintf(what, sizeof(what),
				 "power setting %s is not offered in scheme "
				 "%s: not set",
				 setting, p->scheme);
			winpower_say(p, what);
			continue;
		}
		winpower_key(key, sizeof(key), p->scheme, setting, ac);
		power_plan_add(p->plan, key, text);
	}
}

static void winpower_plan_overlay(const struct winpower_planning *p,
				  const char *profile)
{
	char what[256];

	if (strcmp(p->scheme, WINPOWER_PLAN_BALANCED) != 0) {
		snprintf(what, sizeof(what),
			 "profile: Windows offers power modes only under the "
			 "Balanced plan (this one is %s): not set",
			 p->scheme);
		winpower_say(p, what);
	} else if (!p->st->overlay || !p->st->set_overlay) {
		log_once(log_warnx, "profile: this Windows does not offer "
				    "power modes (PowerSetActiveOverlayScheme "
				    "is missing): not set");
	} else {
		power_plan_add(p->plan, WINPOWER_KEY_OVERLAY,
			       winpower_overlay_of(profile));
	}
}

/* The scheme active before we switched it, else the active one. */
static bool winpower_base(const struct winpower_store *st,
			  const struct power_held *held, size_t held_count,
			  char *guid)
{
	for (size_t i = 0; i < held_count; i++) {
		if (strcmp(held[i].key, WINPOWER_KEY_ACTIVE) == 0 &&
		    held[i].original && winpower_guid_valid(held[i].original)) {
			snprintf(guid, WINPOWER_GUID_LEN, "%s",
				 held[i].original);
			return true;
		}
	}
	return st->active(st->ctx, guid) == OS_OK;
}

/* The wants as knobs. The caller checked that the store is offered
 * (winpower_offered). */
void winpower_plan(const struct winpower_store *st, char *said,
		   size_t said_size, const struct power_want *want,
		   const struct power_held *held, size_t held_count,
		   struct power_plan *plan)
{
	struct winpower_planning p = {st, said, said_size, NULL, plan};
	char base[WINPOWER_GUID_LEN];
	const char *target =
		want->plan[0] ? winpower_plan_guid(want->plan) : NULL;

	if (!winpower_base(st, held, held_count, base)) {
		log_once(log_warnx, "power: the active power scheme cannot be "
				    "read: power settings not set");
		return;
	}
	p.scheme = target ? target : base;
	/* First: the overlay is set under the plan switched to. */
	if (target)
		power_plan_add(plan, WINPOWER_KEY_ACTIVE, target);
	if (want->all_online || want->min_online >= 0) {
		unsigned long percent =
			want->all_online ? 100
					 : (unsigned long)want->min_online;

		winpower_plan_setting(&p, WINPOWER_CPMINCORES, percent);
		winpower_plan_setting(&p, WINPOWER_CPMINCORES1, percent);
	}
	if (want->epp) {
		winpower_plan_setting(&p, WINPOWER_PERFEPP,
				      winpower_epp(want->epp));
		winpower_plan_setting(&p, WINPOWER_PERFEPP1,
				      winpower_epp(want->epp));
	}
	/* 2: aggressive, boost whenever it can; 0: disabled. */
	if (want->turbo)
		winpower_plan_setting(&p, WINPOWER_PERFBOOSTMODE,
				      want->turbo == RULE_TURBO_ON ? 2 : 0);
	if (want->profile)
		winpower_plan_overlay(&p, want->profile);
}

/* A setting's key, split: "/scheme/S/SUB/SET/ac". */
struct winpower_setting_key {
	char scheme[WINPOWER_GUID_LEN], sub[WINPOWER_GUID_LEN],
		setting[WINPOWER_GUID_LEN];
	bool ac;
};

static bool winpower_split(const char *key, struct winpower_setting_key *k)
{
	const size_t g = WINPOWER_GUID_LEN - 1;
	const char *s = key + strlen("/scheme/");
	char *parts[] = {k->scheme, k->sub, k->setting};

	if (strncmp(key, "/scheme/", 8) != 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		if (strlen(s) < g + 1 || s[g] != '/')
			return false;
		memcpy(parts[i], s, g);
		parts[i][g] = '\0';
		if (!winpower_guid_valid(parts[i]))
			return false;
		s += g + 1;
	}
	if (strcmp(s, "ac") != 0 && strcmp(s, "dc") != 0)
		return false;
	k->ac = s[0] == 'a';
	return true;
}

static enum os_status winpower_read_guid(enum os_status (*get)(void *, char *),
					 void *ctx, char *value, size_t size)
{
	char guid[WINPOWER_GUID_LEN];
	enum os_status status;

	if (!get)
		return OS_UNSUPPORTED;
	status = get(ctx, guid);
	if (status == OS_OK)
		snprintf(value, size, "%s", guid);
	return status;
}

enum os_status winpower_read(const struct winpower_store *st, const char *key,
			     char *value, size_t size)
{
	struct winpower_setting_key k;
	unsigned long index;
	enum os_status status;

	if (size)
		value[0] = '\0';
	if (strcmp(key, WINPOWER_KEY_ACTIVE) == 0)
		return winpower_read_guid(st->active, st->ctx, value, size);
	if (strcmp(key, WINPOWER_KEY_OVERLAY) == 0)
		return winpower_read_guid(st->overlay, st->ctx, value, size);
	if (!winpower_split(key, &k))
		return OS_GONE;
	if (!st->read)
		return OS_UNSUPPORTED;
	status = st->read(st->ctx, k.scheme, k.sub, k.setting, k.ac, &index);
	if (status == OS_OK)
		snprintf(value, size, "%lu", index);
	return status;
}

/* The fewest cores the active scheme keeps unparked, in percent, on this
 * power source: the lower of its two classes' CPMINCORES (class 1 is the
 * P-cores on a hybrid CPU), for the saturation check's parking finding.
 * False where the scheme or neither setting can be read. */
bool winpower_min_cores(const struct winpower_store *st, bool ac, int *percent)
{
	static const char *const settings[] = {WINPOWER_CPMINCORES,
					       WINPOWER_CPMINCORES1};
	char scheme[WINPOWER_GUID_LEN];
	bool known = false;

	if (!st->active || !st->read || st->active(st->ctx, scheme) != OS_OK)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
		unsigned long index;

		if (st->read(st->ctx, scheme, WINPOWER_SUB_PROCESSOR,
			     settings[i], ac, &index) != OS_OK ||
		    index > 100)
			continue;
		if (!known || (int)index < *percent)
			*percent = (int)index;
		known = true;
	}
	return known;
}

/* A setting of the active scheme takes effect when it is set active
 * again. */
static enum os_status winpower_write_setting(
	const struct winpower_store *st, const struct winpower_setting_key *k,
	const char *value)
{
	char *end, active[WINPOWER_GUID_LEN];
	unsigned long index = strtoul(value, &end, 10);
	enum os_status status;

	if (!*value || *end || !isdigit((unsigned char)value[0]))
		return OS_FAILED;
	if (!st->write || !st->active || !st->activate)
		return OS_UNSUPPORTED;
	status =
		st->write(st->ctx, k->scheme, k->sub, k->setting, k->ac, index);
	if (status != OS_OK)
		return status;
	if (st->active(st->ctx, active) == OS_OK &&
	    strcmp(active, k->scheme) == 0)
		return st->activate(st->ctx, k->scheme);
	return OS_OK;
}

/* Write, then read back: a value the system keeps as another is a
 * failure, as on Linux. */
enum os_status winpower_write(const struct winpower_store *st, const char *key,
			      const char *value)
{
	struct winpower_setting_key k;
	enum os_status status;
	char check[JOURNAL_VALUE_MAX];

	if (strcmp(key, WINPOWER_KEY_ACTIVE) == 0 ||
	    strcmp(key, WINPOWER_KEY_OVERLAY) == 0) {
		bool active = key[1] == 's';

		if (!winpower_guid_valid(value))
			return OS_FAILED;
		if (!(active ? st->activate : st->set_overlay))
			return OS_UNSUPPORTED;
		status = (active ? st->activate : st->set_overlay)(st->ctx,
								   value);
	} else if (winpower_split(key, &k)) {
		status = winpower_write_setting(st, &k, value);
	} else {
		return OS_GONE;
	}
	if (status != OS_OK)
		return status;
	status = winpower_read(st, key, check, sizeof(check));
	if (status != OS_OK)
		return status;
	return strcmp(check, value) == 0 ? OS_OK : OS_FAILED;
}

/* Whether a journal entry names a setting we write: the journal is the
 * administrators', but what it names is written at the next start. */
bool winpower_valid(const char *key, char *why, size_t size)
{
	struct winpower_setting_key k;

	snprintf(why, size, "'%.200s' is not a power setting the daemon writes",
		 key);
	if (strcmp(key, WINPOWER_KEY_ACTIVE) == 0 ||
	    strcmp(key, WINPOWER_KEY_OVERLAY) == 0)
		return true;
	if (!winpower_split(key, &k) ||
	    strcmp(k.sub, WINPOWER_SUB_PROCESSOR) != 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(winpower_settings); i++) {
		if (strcmp(k.setting, winpower_settings[i]) == 0)
			return true;
	}
	return false;
}

/* The plan goes back last: the overlay is set under the Balanced plan,
 * and the settings went to schemes named by GUID, active or not. */
enum knobs_order winpower_order(const char *key)
{
	return strcmp(key, WINPOWER_KEY_ACTIVE) == 0 ? KNOBS_ORDER_LAST
						     : KNOBS_ORDER_FIRST;
}

/* Every Windows power knob outlives a reboot: a scheme's values, the
 * active scheme and the power mode overlay are the registry's ("Power
 * settings are stored in the registry",
 * https://learn.microsoft.com/windows-hardware/customize/power-settings/configure-power-settings;
 * the overlay as ActiveOverlayAcPowerScheme and ActiveOverlayDcPowerScheme
 * under HKLM\SYSTEM\CurrentControlSet\Control\Power\User\PowerSchemes,
 * not Microsoft's word: what the slider and powercfg write there). A key
 * of no such kind is no knob of ours: nothing to keep. */
bool winpower_lasting(const char *key)
{
	struct winpower_setting_key k;

	return strcmp(key, WINPOWER_KEY_ACTIVE) == 0 ||
	       strcmp(key, WINPOWER_KEY_OVERLAY) == 0 ||
	       winpower_split(key, &k);
}
