/* What the rules need beyond an ordinary user's rights (enum caps_need),
 * decided from the rules alone; linux/caps.c turns it into capabilities
 * and gives up the rest for good once the daemon's sockets are open. */
#include <stdio.h>
#include <string.h>

#include "policyd.h"

/* The settings another power manager may own. */
static bool caps_owned_power(const struct rule_power *p)
{
	return p->governor || p->epp || p->profile ||
	       p->turbo != RULE_TURBO_UNSET;
}

/* Priority settings of others' processes, at exec or in the
 * foreground. */
static bool caps_sets_priority(const struct rule_priority *p)
{
	return p && (p->class || p->has_nice || p->policy || p->io_class ||
		     p->io_level >= 0 || p->thread);
}

static unsigned caps_of_rule(const struct rule *r, bool proc_hidden)
{
	const struct rule_priority *p = &r->priority;
	const struct rule_placement *pl = rules_placement(r);
	unsigned need = 0;

	if (caps_sets_priority(p) || caps_sets_priority(rules_foreground(r)) ||
	    pl->cores || pl->has_cpus || pl->spread)
		need |= CAPS_NEED_PRIORITY;
	if (r->match.exe.count ||
	    rules_match_more(&r->match)->parent_exe.count || proc_hidden ||
	    caps_owned_power(rules_power(r)))
		need |= CAPS_NEED_INSPECT;
	if (rules_has_power(r))
		need |= CAPS_NEED_SYSTEM;
	if (p->class == RULE_CLASS_REALTIME)
		need |= CAPS_NEED_REALTIME;
	return need;
}

/* Priority and placement of other users' processes; their exe (the
 * kernel asks for ptrace read access), power-profiles-daemon's and
 * tuned's among them for the settings they own, and with a hidden /proc
 * any look at them; power settings, the config's base policy too. */
unsigned caps_needed(const struct rules *rules, bool proc_hidden,
		     bool base_power)
{
	unsigned need = base_power ? CAPS_NEED_SYSTEM : 0;

	for (size_t i = 0; i < rules->count; i++)
		need |= caps_of_rule(&rules->list[i], proc_hidden);
	return need;
}

/* Whether what was kept (have) covers what new rules need; else the
 * first capability (privilege) missing, by name. */
bool caps_cover(unsigned have, unsigned need, char *missing, size_t size)
{
	char kept[CAPS_NAMES_MAX][CAPS_NAME_MAX],
		wanted[CAPS_NAMES_MAX][CAPS_NAME_MAX];
	size_t kept_count = caps_names(have, kept);
	size_t wanted_count = caps_names(need, wanted);

	for (size_t n = 0; n < wanted_count; n++) {
		bool found = false;

		for (size_t h = 0; h < kept_count && !found; h++)
			found = strcmp(kept[h], wanted[n]) == 0;
		if (!found) {
			snprintf(missing, size, "%s", wanted[n]);
			return false;
		}
	}
	return true;
}

/* For the start's log line: "cap_sys_nice, cap_sys_ptrace" (Windows:
 * "SeDebugPrivilege"), or "none". */
void caps_describe(unsigned have, char *buf, size_t size)
{
	char names[CAPS_NAMES_MAX][CAPS_NAME_MAX];
	size_t count = caps_names(have, names), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
				 names[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!count)
		snprintf(buf, size, "none");
}
