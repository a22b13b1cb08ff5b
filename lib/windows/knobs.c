/* Windows: power knobs are power scheme settings (parking, minimum
 * processor state, the performance boost mode), which come with the
 * power work of a later release. Until then nothing is planned, every
 * key answers OS_UNSUPPORTED, and cpupolicyctl check --system windows
 * warns of the power keys; a rule's priority and placement apply as
 * they do without power keys. */
#include <stdio.h>

#include "log.h"
#include "power.h"
#include "win.h"

void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan)
{
	(void)kn;
	(void)held;
	(void)held_count;
	(void)plan;
	/* Said when a rule wants something, not for an empty want. */
	if (want->all_online || want->min_online >= 0 ||
	    want->idle_latency_us >= 0 || want->governor || want->epp ||
	    want->profile || want->turbo)
		log_once(log_warnx,
			 "power settings are not applied on Windows yet: a "
			 "rule's power section does nothing here");
}

void knobs_owned(const struct knobs *kn, struct knobs_owners *owners)
{
	(void)kn;
	*owners = (struct knobs_owners){0};
}

enum os_status knobs_read(const char *key, char *value, size_t size)
{
	(void)key;
	if (size)
		value[0] = '\0';
	return OS_UNSUPPORTED;
}

enum os_status knobs_write(const char *key, const char *value)
{
	(void)key;
	(void)value;
	return OS_UNSUPPORTED;
}

enum knobs_order knobs_order(const char *key)
{
	(void)key;
	return KNOBS_ORDER_FIRST;
}

/* A journal of another system names keys this one cannot give back. */
bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size)
{
	(void)kn;
	snprintf(why, size, "'%.200s' is not a power setting of Windows", key);
	return false;
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
