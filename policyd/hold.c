/* Power holds: which managed processes (and the config's base policy)
 * hold which power settings. Their wants combine into one, applied to the
 * system whenever a hold comes or goes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "policyd.h"
#include "util.h"

void hold_apply(struct daemon *d)
{
	struct power_want want;

	power_want_of(&want, &d->conf.base_power, d->conf.parking_latency_us);
	for (size_t i = 0; i < d->hold_count; i++)
		power_want_add(&want, &d->holds[i].power,
			       d->conf.parking_latency_us);
	if (d->conf.dry_run) {
		char what[256];

		power_want_describe(&want, what, sizeof(what));
		log_info("power (dry run): would hold %s",
			 what[0] ? what : "nothing");
		return;
	}
	apply_power_set(&d->power, &want);
}

struct hold *hold_find(struct daemon *d, pid_t pid)
{
	for (size_t i = 0; i < d->hold_count; i++) {
		if (d->holds[i].pid == pid)
			return &d->holds[i];
	}
	return NULL;
}

void hold_update(void *ctx, const struct manage_proc *p, bool on)
{
	struct daemon *d = ctx;
	struct hold *h = hold_find(d, p->pid);
	struct power_want want;

	/* parking = "on" alone asks for nothing: no hold. */
	if (on) {
		power_want_of(&want, rules_power(p->rule),
			      d->conf.parking_latency_us);
		on = !power_want_empty(&want);
	}
	if (!on && !h)
		return;
	if (!on) {
		log_info("pid %d %s: rule %s: power hold released", (int)p->pid,
			 p->exe, h->rule);
		*h = d->holds[--d->hold_count];
	} else {
		if (!h) {
			d->holds = xreallocarray(d->holds, d->hold_count + 1,
						 sizeof(*d->holds));
			h = &d->holds[d->hold_count++];
		}
		h->pid = p->pid;
		h->power = *rules_power(p->rule);
		snprintf(h->rule, sizeof(h->rule), "%s", p->rule->name);
	}
	hold_apply(d);
}
