/* Capabilities: the daemon keeps only what its rules need, and gives up
 * the rest for good (bounding set included) once its sockets are open. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "log.h"
#include "policyd.h"
#include "util.h"

static void caps_add(cap_value_t *caps, size_t *count, size_t max,
		     cap_value_t cap)
{
	for (size_t i = 0; i < *count; i++) {
		if (caps[i] == cap)
			return;
	}
	if (*count < max)
		caps[(*count)++] = cap;
}

/* Whether /proc hides processes (hidepid, as systemd's ProtectProc= mounts
 * it): then seeing other users' processes at all takes ptrace access. */
bool caps_proc_hidden(const char *procfs)
{
	char line[1024];
	bool hidden = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - proc ");
		char mount[512];

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %*s %511s", mount) != 1 ||
		    strcmp(mount, procfs) != 0)
			continue;
		hidden = strstr(dash, "hidepid=") &&
			 !strstr(dash, "hidepid=0") &&
			 !strstr(dash, "hidepid=off");
	}
	if (f)
		fclose(f);
	return hidden;
}

/* The settings another power manager may own. */
static bool caps_owned_power(const struct rule_power *p)
{
	return p->governor || p->epp || p->profile ||
	       p->turbo != RULE_TURBO_UNSET;
}

/* CAP_SYS_NICE: nice, policy, I/O priority and affinity of other users'
 * processes. CAP_SYS_PTRACE: /proc/PID/exe of other users' processes (the
 * kernel asks for ptrace read access), power-profiles-daemon's and tuned's
 * among them for the settings they own, and with a hidden /proc any look
 * at them. CAP_DAC_OVERRIDE: power settings when the daemon is not root
 * (the sysfs files are root's). */
size_t caps_needed(const struct rules *rules, bool proc_hidden, bool base_power,
		   cap_value_t *caps, size_t max)
{
	size_t count = 0;

	if (base_power && geteuid() != 0)
		caps_add(caps, &count, max, CAP_DAC_OVERRIDE);

	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];
		const struct rule_priority *p = &r->priority;
		const struct rule_placement *pl = &r->placement;

		if (p->class || p->has_nice || p->policy || p->io_class ||
		    p->io_level >= 0 || p->thread || pl->cores ||
		    pl->has_cpus || pl->spread)
			caps_add(caps, &count, max, CAP_SYS_NICE);
		if (r->match.exe.count || r->match.parent_exe.count ||
		    proc_hidden || caps_owned_power(&r->power))
			caps_add(caps, &count, max, CAP_SYS_PTRACE);
		if (rules_has_power(r) && geteuid() != 0)
			caps_add(caps, &count, max, CAP_DAC_OVERRIDE);
	}
	return count;
}

bool caps_cover(const cap_value_t *have, size_t have_count,
		const cap_value_t *need, size_t need_count,
		cap_value_t *missing)
{
	for (size_t n = 0; n < need_count; n++) {
		bool found = false;

		for (size_t h = 0; h < have_count && !found; h++)
			found = have[h] == need[n];
		if (!found) {
			*missing = need[n];
			return false;
		}
	}
	return true;
}

static bool caps_effective(cap_value_t cap)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t value = CAP_CLEAR;

	if (now) {
		cap_get_flag(now, cap, CAP_EFFECTIVE, &value);
		cap_free(now);
	}
	return value == CAP_SET;
}

/* Drops every other capability from the bounding set, then sets
 * permitted = effective = caps, inheritable empty. Any failure is fatal
 * for the caller: a daemon that meant to drop privileges must not run on
 * with them. */
int caps_keep_only(const cap_value_t *caps, size_t count)
{
	cap_t state;
	int status = -1;

	/* Only with CAP_SETPCAP: a service manager may have cut the
	 * bounding set already, and keep that capability from us. */
	for (cap_value_t cap = 0;
	     caps_effective(CAP_SETPCAP) && cap <= CAP_LAST_CAP; cap++) {
		bool keep = false;

		for (size_t i = 0; i < count && !keep; i++)
			keep = caps[i] == cap;
		if (!keep && CAP_IS_SUPPORTED(cap) && cap_get_bound(cap) > 0 &&
		    cap_drop_bound(cap) < 0) {
			log_warn("cannot drop capability %d from the bounding "
				 "set",
				 (int)cap);
			return -1;
		}
	}
	state = cap_init();
	if (!state)
		return -1;
	if ((count == 0 || (cap_set_flag(state, CAP_PERMITTED, (int)count, caps,
					 CAP_SET) == 0 &&
			    cap_set_flag(state, CAP_EFFECTIVE, (int)count, caps,
					 CAP_SET) == 0)) &&
	    cap_set_proc(state) == 0)
		status = 0;
	else
		log_warn("cannot set capabilities");
	cap_free(state);
	/* Our own later exec could not regain anything either. */
	if (status == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		log_warn("cannot set no_new_privs");
		status = -1;
	}
	return status;
}
