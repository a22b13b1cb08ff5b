/* Power wants: what several holds ask for, combined. When they disagree
 * the more performant value wins: every CPU online over some, more CPUs
 * over fewer, a lower idle latency, a faster governor, EPP or profile,
 * turbo on. OS-neutral; so is the plan of knobs a backend maps them to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"
#include "util.h"

/* Most performant first. */
static const char *const power_governor_order[] = {
	"performance",	"schedutil", "ondemand",
	"conservative", "userspace", "powersave",
};
static const char *const power_epp_order[] = {
	"performance", "balance_performance", "default", "balance_power",
	"power",
};
static const char *const power_profile_order[] = {
	"max-power", "performance", "balanced-performance", "balanced", "cool",
	"quiet",     "low-power",
};

static const char *const power_plan_order[] = {
	"ultimate-performance",
	"high-performance",
	"balanced",
	"power-saver",
};

static size_t power_rank(const char *const *order, size_t count,
			 const char *value)
{
	for (size_t i = 0; i < count; i++) {
		if (strcmp(order[i], value) == 0)
			return i;
	}
	return count;
}

/* The more performant of two, as a pointer into the static order. */
static const char *power_pick(const char *const *order, size_t count,
			      const char *held, const char *asked)
{
	size_t rank;

	if (!asked)
		return held;
	rank = power_rank(order, count, asked);
	if (rank == count)
		return held;
	if (!held || rank < power_rank(order, count, held))
		return order[rank];
	return held;
}

/* Whether plan a is more performant than b: a named plan by the order
 * above, before any GUID (a scheme of the administrator's, whose
 * performance we cannot tell); of two GUIDs the lower, so that the
 * order of the holds does not decide. */
static bool power_plan_beats(const char *a, const char *b)
{
	size_t count = ARRAY_SIZE(power_plan_order);
	size_t ra = power_rank(power_plan_order, count, a);
	size_t rb = power_rank(power_plan_order, count, b);

	if (!a[0])
		return false;
	if (!b[0] || ra < rb)
		return true;
	return ra == count && rb == count && strcmp(a, b) < 0;
}

void power_want_init(struct power_want *want)
{
	*want = (struct power_want){.min_online = -1, .idle_latency_us = -1};
}

void power_want_add(struct power_want *want, const struct rule_power *rule,
		    long parking_latency_us)
{
	long latency = rule->idle_latency_us;

	/* The rule's own idle_latency_us, if it gives one, is its cap. */
	if (rule->parking == RULE_PARKING_OFF) {
		want->all_online = true;
		if (latency < 0)
			latency = parking_latency_us;
	}
	if (rule->min_online > want->min_online)
		want->min_online = rule->min_online;
	if (latency >= 0 &&
	    (want->idle_latency_us < 0 || latency < want->idle_latency_us))
		want->idle_latency_us = latency;
	want->governor = power_pick(power_governor_order,
				    ARRAY_SIZE(power_governor_order),
				    want->governor, rule->governor);
	want->epp = power_pick(power_epp_order, ARRAY_SIZE(power_epp_order),
			       want->epp, rule->epp);
	want->profile =
		power_pick(power_profile_order, ARRAY_SIZE(power_profile_order),
			   want->profile, rule->profile);
	if (rule->turbo == RULE_TURBO_ON || want->turbo == RULE_TURBO_UNSET)
		want->turbo = rule->turbo ? rule->turbo : want->turbo;
	if (power_plan_beats(rule->plan, want->plan))
		snprintf(want->plan, sizeof(want->plan), "%s", rule->plan);
}

/* What one rule's (or the config's) power section asks for alone. */
void power_want_of(struct power_want *want, const struct rule_power *rule,
		   long parking_latency_us)
{
	power_want_init(want);
	power_want_add(want, rule, parking_latency_us);
}

bool power_want_empty(const struct power_want *want)
{
	return !want->all_online && want->min_online < 0 &&
	       want->idle_latency_us < 0 && !want->governor && !want->epp &&
	       !want->profile && !want->turbo && !want->plan[0];
}

void power_want_describe(const struct power_want *want, char *buf, size_t size)
{
	size_t used = 0;

#define POWER_SAY(...)                                                         \
	do {                                                                   \
		int n_ = snprintf(buf + used, size - used, __VA_ARGS__);       \
		if (n_ > 0 && (size_t)n_ < size - used)                        \
			used += (size_t)n_;                                    \
	} while (0)
	buf[0] = '\0';
	if (want->all_online)
		POWER_SAY("%severy CPU online", used ? ", " : "");
	if (want->min_online >= 0)
		POWER_SAY("%s%d %% of CPUs online", used ? ", " : "",
			  want->min_online);
	if (want->idle_latency_us >= 0)
		POWER_SAY("%sidle latency <= %ld us", used ? ", " : "",
			  want->idle_latency_us);
	if (want->governor)
		POWER_SAY("%sgovernor %s", used ? ", " : "", want->governor);
	if (want->epp)
		POWER_SAY("%sepp %s", used ? ", " : "", want->epp);
	if (want->profile)
		POWER_SAY("%sprofile %s", used ? ", " : "", want->profile);
	if (want->turbo)
		POWER_SAY("%sturbo %s", used ? ", " : "",
			  want->turbo == RULE_TURBO_ON ? "on" : "off");
	if (want->plan[0])
		POWER_SAY("%splan %s", used ? ", " : "", want->plan);
#undef POWER_SAY
}

void power_plan_add(struct power_plan *plan, const char *key, const char *value)
{
	struct power_setting *s;

	plan->settings = xreallocarray(plan->settings, plan->count + 1,
				       sizeof(*plan->settings));
	s = &plan->settings[plan->count++];
	s->key = xstrdup(key);
	snprintf(s->value, sizeof(s->value), "%s", value);
}

/* The value the plan wants at a knob; NULL: the plan leaves it. */
const char *power_plan_find(const struct power_plan *plan, const char *key)
{
	for (size_t i = 0; i < plan->count; i++) {
		if (strcmp(plan->settings[i].key, key) == 0)
			return plan->settings[i].value;
	}
	return NULL;
}

void power_plan_free(struct power_plan *plan)
{
	for (size_t i = 0; i < plan->count; i++)
		free(plan->settings[i].key);
	free(plan->settings);
	*plan = (struct power_plan){0};
}
