/* The [restraint] section of cpupolicyd.conf: when a process is a hog,
 * what it gets, and who is never one. Defaults a desktop needs not touch:
 * restraint.c's limits, nice 10 with SCHED_BATCH and I/O best-effort 7
 * (below normal with EcoQoS on Windows), and the compositors and audio
 * servers exempt. conf.c reads the file and reports with the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "match.h"
#include "util.h"

enum conf_restraint_key {
	CONF_RESTRAINT_ENABLED,
	CONF_RESTRAINT_SHARE_PCT,
	CONF_RESTRAINT_QUALIFY_MS,
	CONF_RESTRAINT_RELEASE_PCT,
	CONF_RESTRAINT_CALM_MS,
	CONF_RESTRAINT_HOLD_MS,
	CONF_RESTRAINT_PER_MINUTE,
	CONF_RESTRAINT_PRESSURE_PCT,
	CONF_RESTRAINT_SAMPLE_MS,
	CONF_RESTRAINT_NICE,
	CONF_RESTRAINT_POLICY,
	CONF_RESTRAINT_IO_CLASS,
	CONF_RESTRAINT_IO_LEVEL,
	CONF_RESTRAINT_CLASS,
	CONF_RESTRAINT_EFFICIENCY_MODE,
	CONF_RESTRAINT_SYSTEM,
	CONF_RESTRAINT_EXEMPT,
};

const char *const conf_restraint_keys[] = {
	[CONF_RESTRAINT_ENABLED] = "enabled",
	[CONF_RESTRAINT_SHARE_PCT] = "share_pct",
	[CONF_RESTRAINT_QUALIFY_MS] = "qualify_ms",
	[CONF_RESTRAINT_RELEASE_PCT] = "release_pct",
	[CONF_RESTRAINT_CALM_MS] = "calm_ms",
	[CONF_RESTRAINT_HOLD_MS] = "hold_ms",
	[CONF_RESTRAINT_PER_MINUTE] = "per_minute",
	[CONF_RESTRAINT_PRESSURE_PCT] = "pressure_pct",
	[CONF_RESTRAINT_SAMPLE_MS] = "sample_ms",
	[CONF_RESTRAINT_NICE] = "nice",
	[CONF_RESTRAINT_POLICY] = "policy",
	[CONF_RESTRAINT_IO_CLASS] = "io_class",
	[CONF_RESTRAINT_IO_LEVEL] = "io_level",
	[CONF_RESTRAINT_CLASS] = "class",
	[CONF_RESTRAINT_EFFICIENCY_MODE] = "efficiency_mode",
	[CONF_RESTRAINT_SYSTEM] = "system",
	[CONF_RESTRAINT_EXEMPT] = "exempt",
	NULL,
};

/* The compositors, display servers and audio servers of the desktops
 * Debian ships, by process name: a busy one is the desktop being busy,
 * and lowering it makes every frame and every sound late. Windows: the
 * Desktop Window Manager and the audio engine. */
static const char *const conf_restraint_exempt_default[] = {
	"Xorg",	    "Xwayland",	      "gnome-shell", "kwin_wayland",
	"kwin_x11", "plasmashell",    "sway",	     "weston",
	"mutter",   "labwc",	      "wayfire",     "Hyprland",
	"pipewire", "pipewire-pulse", "wireplumber", "pulseaudio",
	"jackd",    "jackdbus",	      "dwm.exe",     "audiodg.exe",
};

static void conf_restraint_add(struct conf_restraint *rc, const char *name)
{
	rc->exempt = xreallocarray(rc->exempt, rc->exempt_count + 1,
				   sizeof(*rc->exempt));
	rc->exempt[rc->exempt_count++] = xstrdup(name);
}

static void conf_restraint_clear(struct conf_restraint *rc)
{
	for (size_t i = 0; i < rc->exempt_count; i++)
		free(rc->exempt[i]);
	free(rc->exempt);
	rc->exempt = NULL;
	rc->exempt_count = 0;
}

void conf_restraint_init(struct conf_restraint *rc)
{
	*rc = (struct conf_restraint){
		.pressure_pct = 10,
		.sample_ms = 250,
		.lowering = {.nice = 10,
			     .has_nice = true,
			     .policy = RULE_POLICY_BATCH,
			     .io_class = RULE_IO_CLASS_BEST_EFFORT,
			     .io_level = 7,
			     .class = RULE_CLASS_BELOW_NORMAL,
			     .efficiency_mode = RULE_EFFICIENCY_ON},
	};
	restraint_limits_default(&rc->limits);
	for (size_t i = 0; i < ARRAY_SIZE(conf_restraint_exempt_default); i++)
		conf_restraint_add(rc, conf_restraint_exempt_default[i]);
}

void conf_restraint_free(struct conf_restraint *rc)
{
	conf_restraint_clear(rc);
}

/* A number key: its range in the message. */
static bool conf_restraint_range(const char *key, const char *value,
				 unsigned long min, unsigned long max,
				 const char *unit, unsigned *out, char *why,
				 size_t size)
{
	unsigned long n;

	if (conf_number(value, max, &n) == 0 && n >= min) {
		*out = (unsigned)n;
		return true;
	}
	snprintf(why, size, "%s: '%.64s' is not %s from %lu to %lu", key, value,
		 unit, min, max);
	return false;
}

static bool conf_restraint_bool(const char *key, const char *value, bool *out,
				char *why, size_t size)
{
	if (conf_parse_bool(value, out) == 0)
		return true;
	snprintf(why, size, "%s: '%.64s' is not a boolean (true or false)", key,
		 value);
	return false;
}

/* A word of the rule language's (policy, io_class, class,
 * efficiency_mode): the same names, and only the lowering ones. */
static bool conf_restraint_word(const char *key, const char *value,
				enum rules_enum which, const int *lowering,
				size_t lowering_count, int *out, char *why,
				size_t size)
{
	int index = rules_enum_lookup(which, value);
	char valid[256];

	for (size_t i = 0; index >= 0 && i < lowering_count; i++) {
		if (index == lowering[i]) {
			*out = index;
			return true;
		}
	}
	rules_enum_list(which, valid, sizeof(valid));
	snprintf(why, size,
		 index < 0 ? "%s: '%.64s' is not valid (valid: %s)"
			   : "%s: '%.64s' does not lower a process (a "
			     "restraint only lowers)",
		 key, value, valid);
	return false;
}

/* Comma-separated process names, each as long as a name can be. */
static bool conf_restraint_exempt(struct conf_restraint *rc, const char *value,
				  char *why, size_t size)
{
	char *copy = xstrdup(value), *save = NULL;
	bool ok = true;

	conf_restraint_clear(rc);
	for (char *name = strtok_r(copy, ", \t", &save); name && ok;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (strlen(name) >= MATCH_COMM_MAX) {
			snprintf(why, size,
				 "exempt: '%.64s' is longer than a process "
				 "name can be (%d characters)",
				 name, MATCH_COMM_MAX - 1);
			ok = false;
		} else {
			conf_restraint_add(rc, name);
		}
	}
	free(copy);
	return ok;
}

static bool conf_restraint_priority(struct conf_restraint *rc, size_t key,
				    const char *value, char *why, size_t size)
{
	static const int policies[] = {RULE_POLICY_OTHER, RULE_POLICY_BATCH,
				       RULE_POLICY_IDLE};
	static const int io[] = {RULE_IO_CLASS_BEST_EFFORT, RULE_IO_CLASS_IDLE};
	static const int classes[] = {RULE_CLASS_IDLE, RULE_CLASS_BELOW_NORMAL,
				      RULE_CLASS_NORMAL};
	static const int efficiency[] = {RULE_EFFICIENCY_ON,
					 RULE_EFFICIENCY_SYSTEM};
	struct rule_priority *lp = &rc->lowering;
	unsigned n;
	int word;

	switch (key) {
	case CONF_RESTRAINT_NICE:
		if (!conf_restraint_range("nice", value, 0, 19, "a nice value",
					  &n, why, size))
			return false;
		lp->nice = (int8_t)n;
		return true;
	case CONF_RESTRAINT_IO_LEVEL:
		if (!conf_restraint_range("io_level", value, 0, 7,
					  "an I/O level", &n, why, size))
			return false;
		lp->io_level = (int8_t)n;
		return true;
	case CONF_RESTRAINT_POLICY:
		if (!conf_restraint_word("policy", value, RULES_ENUM_POLICY,
					 policies, ARRAY_SIZE(policies), &word,
					 why, size))
			return false;
		lp->policy = (enum rule_policy)word;
		return true;
	case CONF_RESTRAINT_IO_CLASS:
		if (!conf_restraint_word("io_class", value, RULES_ENUM_IO_CLASS,
					 io, ARRAY_SIZE(io), &word, why, size))
			return false;
		lp->io_class = (enum rule_io_class)word;
		return true;
	case CONF_RESTRAINT_CLASS:
		if (!conf_restraint_word("class", value, RULES_ENUM_CLASS,
					 classes, ARRAY_SIZE(classes), &word,
					 why, size))
			return false;
		lp->class = (enum rule_class)word;
		return true;
	default:
		if (!conf_restraint_word("efficiency_mode", value,
					 RULES_ENUM_EFFICIENCY, efficiency,
					 ARRAY_SIZE(efficiency), &word, why,
					 size))
			return false;
		lp->efficiency_mode = (enum rule_efficiency)word;
		return true;
	}
}

bool conf_restraint_set(struct conf_restraint *rc, size_t key,
			const char *value, char *why, size_t size)
{
	struct restraint_limits *l = &rc->limits;
	const char *name = conf_restraint_keys[key];

	switch ((enum conf_restraint_key)key) {
	case CONF_RESTRAINT_ENABLED:
		return conf_restraint_bool(name, value, &rc->enabled, why,
					   size);
	case CONF_RESTRAINT_SYSTEM:
		return conf_restraint_bool(name, value, &rc->system, why, size);
	case CONF_RESTRAINT_SHARE_PCT:
		return conf_restraint_range(name, value, 1, 100, "a percentage",
					    &l->share_pct, why, size);
	case CONF_RESTRAINT_RELEASE_PCT:
		return conf_restraint_range(name, value, 0, 99, "a percentage",
					    &l->release_pct, why, size);
	case CONF_RESTRAINT_PRESSURE_PCT:
		return conf_restraint_range(name, value, 1, 100, "a percentage",
					    &rc->pressure_pct, why, size);
	case CONF_RESTRAINT_QUALIFY_MS:
		return conf_restraint_range(name, value, 100, 60000,
					    "a number of milliseconds",
					    &l->qualify_ms, why, size);
	case CONF_RESTRAINT_CALM_MS:
		return conf_restraint_range(name, value, 100, 600000,
					    "a number of milliseconds",
					    &l->calm_ms, why, size);
	case CONF_RESTRAINT_HOLD_MS:
		return conf_restraint_range(name, value, 0, 3600000,
					    "a number of milliseconds",
					    &l->hold_ms, why, size);
	case CONF_RESTRAINT_SAMPLE_MS:
		return conf_restraint_range(name, value, 50, 5000,
					    "a number of milliseconds",
					    &rc->sample_ms, why, size);
	case CONF_RESTRAINT_PER_MINUTE:
		return conf_restraint_range(name, value, 1, RESTRAINT_RATE_MAX,
					    "a number of restraints",
					    &l->per_minute, why, size);
	case CONF_RESTRAINT_EXEMPT:
		return conf_restraint_exempt(rc, value, why, size);
	default:
		return conf_restraint_priority(rc, key, value, why, size);
	}
}

/* A release share at or over the restraining one would release a hog
 * at the sample after its restraint; passes slower than the qualifying
 * time could never see it qualify. */
bool conf_restraint_check(const struct conf_restraint *rc, char *why,
			  size_t size)
{
	if (rc->limits.release_pct >= rc->limits.share_pct) {
		snprintf(why, size,
			 "release_pct (%u) must be under share_pct (%u)",
			 rc->limits.release_pct, rc->limits.share_pct);
		return false;
	}
	if (rc->sample_ms > rc->limits.qualify_ms) {
		snprintf(why, size,
			 "sample_ms (%u) must not be over qualify_ms (%u)",
			 rc->sample_ms, rc->limits.qualify_ms);
		return false;
	}
	return true;
}
