/* Linux: privileges are capabilities (libcap). The daemon keeps only
 * those its rules need, and gives up the rest for good (bounding set
 * included) once its sockets are open. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "linux.h"
#include "log.h"
#include "../policyd.h"
#include "util.h"

/* CAP_SYS_NICE: nice, policy, I/O priority and affinity of other users'
 * processes. CAP_SYS_PTRACE: /proc/PID/exe of other users' processes,
 * and any look at them with a hidden /proc. CAP_DAC_OVERRIDE: power
 * settings when the daemon is not root (the sysfs files are root's), and
 * others' /proc/PID/autogroup and delegated cgroups, root or not. */
static size_t caps_of(unsigned need, cap_value_t caps[3])
{
	size_t count = 0;

	if (need & CAPS_NEED_PRIORITY)
		caps[count++] = CAP_SYS_NICE;
	if (need & CAPS_NEED_INSPECT)
		caps[count++] = CAP_SYS_PTRACE;
	if ((need & CAPS_NEED_GROUPS) ||
	    ((need & CAPS_NEED_SYSTEM) && geteuid() != 0))
		caps[count++] = CAP_DAC_OVERRIDE;
	return count;
}

/* Whether /proc hides processes (hidepid, as systemd's ProtectProc= mounts
 * it): then seeing other users' processes at all takes ptrace access. */
bool caps_proc_hidden(void)
{
	char line[1024];
	bool hidden = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - proc ");
		char mount[512];

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %*s %511s", mount) != 1 ||
		    strcmp(mount, paths_procfs()) != 0)
			continue;
		hidden = strstr(dash, "hidepid=") &&
			 !strstr(dash, "hidepid=0") &&
			 !strstr(dash, "hidepid=off");
	}
	if (f)
		fclose(f);
	return hidden;
}

static void caps_name(cap_value_t cap, char *buf, size_t size)
{
	char *name = cap_to_name(cap);

	snprintf(buf, size, "%s", name ? name : "a capability");
	cap_free(name);
}

/* The capabilities a need takes, by name (caps_common.c compares and lists
 * them). */
size_t caps_names(unsigned need, char names[CAPS_NAMES_MAX][CAPS_NAME_MAX])
{
	cap_value_t caps[3];
	size_t count = caps_of(need, caps);

	for (size_t i = 0; i < count; i++)
		caps_name(caps[i], names[i], CAPS_NAME_MAX);
	return count;
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

/* Only with CAP_SETPCAP: a service manager may have cut the bounding set
 * already, and keep that capability from us. */
static int caps_bound_only(const cap_value_t *caps, size_t count)
{
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
	return 0;
}

/* Drops every other capability from the bounding set, then sets
 * permitted = effective = what need takes, inheritable empty. Any failure
 * is fatal for the caller: a daemon that meant to drop privileges must
 * not run on with them. */
enum os_status caps_keep_only(unsigned need)
{
	cap_value_t caps[3];
	size_t count = caps_of(need, caps);
	cap_t state;
	enum os_status status = OS_OK;

	if (caps_bound_only(caps, count) < 0)
		return status_of_errno(errno);
	state = cap_init();
	if (!state)
		return status_of_errno(errno);
	if ((count != 0 && (cap_set_flag(state, CAP_PERMITTED, (int)count, caps,
					 CAP_SET) < 0 ||
			    cap_set_flag(state, CAP_EFFECTIVE, (int)count, caps,
					 CAP_SET) < 0)) ||
	    cap_set_proc(state) < 0) {
		status = status_of_errno(errno);
		log_warn("cannot set capabilities");
	}
	cap_free(state);
	/* Our own later exec could not regain anything either. */
	if (status == OS_OK && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		status = status_of_errno(errno);
		log_warn("cannot set no_new_privs");
	}
	return status;
}
