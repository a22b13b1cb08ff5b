/* The foreground: the process each user's desktop says the user is
 * looking at, believed only for that user's own processes. On Linux:
 * the D-Bus method system76-scheduler's desktop extensions call
 * (fgsource.c), the user's agent over the control endpoint (the X11
 * window's client), and GNOME's mark on the focused app's cgroup
 * (cpugroup_focused), which moves without a word to the daemon and is
 * looked at each pass. Being foreground, or a descendant of the
 * foreground, only exempts from restraint and undoes it: a game's
 * launcher declares the game's tree, and a compile in another window is
 * still a hog. */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "os.h"
#include "policyd.h"
#include "prio.h"

/* Ancestors looked at, at most, for whether a process descends from a
 * foreground one. */
#define FOREGROUND_DEPTH 32

/* What explain names as the source of GNOME's focus. */
#define FOREGROUND_GNOME "GNOME's user.xdg.inactive-since"

static struct foreground_slot *foreground_of_user(struct daemon *d,
						  unsigned user)
{
	struct foreground_slot *oldest = &d->foreground[0];

	for (size_t i = 0; i < FOREGROUND_USERS; i++) {
		struct foreground_slot *s = &d->foreground[i];

		if (s->pid && s->user == user)
			return s;
		if (!s->pid || (oldest->pid && s->since_ns < oldest->since_ns))
			oldest = s;
	}
	return oldest; /* a free slot, else the longest-held one */
}

/* Each held process the new foreground covers is given back now. */
void foreground_release(struct daemon *d)
{
	struct restrained *r = &d->restrained;
	pid_t covered[64];
	size_t count = 0;

	if (!d->restraining)
		return;
	for (size_t i = 0; i < r->procs.capacity && count < 64; i++) {
		const struct restrained_proc *p = r->procs.slots[i].value;

		if (r->procs.slots[i].key && p->held &&
		    foreground_covers(d, p->pid, p->start))
			covered[count++] = p->pid;
	}
	for (size_t i = 0; i < count; i++)
		restrained_release(r, covered[i], "it is in the foreground");
}

/* The foreground settings of the rule the slot's process is under (its
 * rule's exe identity checked as for any match: restrain_rule), on
 * every thread of it. */
static void foreground_give(struct daemon *d, struct foreground_slot *s)
{
	const struct rule *rule = restrain_rule(d, s->pid, s->start);
	struct prio_target target;
	const char *why;
	char desc[160];

	if (!rule || !rules_foreground(rule))
		return;
	prio_target_for_system(rules_foreground(rule), system_native(),
			       &target);
	if (prio_target_empty(&target))
		return;
	prio_describe_target(&target, desc, sizeof(desc));
	if (d->conf.dry_run) {
		log_info(
			"dry run: would give process %d rule '%s''s foreground "
			"settings (%s)",
			(int)s->pid, rule->name, desc);
		return;
	}
	if (fgprio_give(&s->given, s->pid, s->start, &target,
			&d->restrain_journal, &why) < 0) {
		log_warnx("foreground: rule '%s''s settings not given to "
			  "process %d: %s",
			  rule->name, (int)s->pid, why);
		return;
	}
	log_info("foreground: process %d gets rule '%s''s foreground "
		 "settings (%s) while it is in the foreground",
		 (int)s->pid, rule->name, desc);
}

void foreground_give_back_all(struct daemon *d)
{
	for (size_t i = 0; i < FOREGROUND_USERS; i++)
		fgprio_give_back(&d->foreground[i].given, &d->restrain_journal);
}

/* New rules: what the old ones gave back, what the new ones give. */
void foreground_renew(struct daemon *d)
{
	foreground_give_back_all(d);
	for (size_t i = 0; d->restraining && i < FOREGROUND_USERS; i++) {
		if (d->foreground[i].pid)
			foreground_give(d, &d->foreground[i]);
	}
}

int foreground_declare(struct daemon *d, pid_t pid, unsigned caller, bool admin,
		       const char *source, char *why, size_t size)
{
	struct procinfo_usage u;
	struct foreground_slot *slot;
	unsigned owner;

	if (pid <= 0 || procinfo_usage(pid, &u) != OS_OK ||
	    !restrain_owner(pid, &owner)) {
		snprintf(why, size, "no process %d", (int)pid);
		return -1;
	}
	if (!admin && owner != caller) {
		snprintf(why, size, "process %d is not yours", (int)pid);
		log_info("%s: uid %u declared process %d of uid %u foreground: "
			 "refused",
			 source, caller, (int)pid, owner);
		return -1;
	}
	slot = foreground_of_user(d, owner);
	if (slot->pid == pid && slot->start == u.start) {
		slot->since_ns = timing_now_ns(); /* said again: as it is */
		return 0;
	}
	fgprio_give_back(&slot->given, &d->restrain_journal);
	*slot = (struct foreground_slot){.pid = pid,
					 .start = u.start,
					 .user = owner,
					 .since_ns = timing_now_ns()};
	snprintf(slot->source, sizeof(slot->source), "%s", source);
	log_debug("%s: process %d of uid %u is in the foreground", source,
		  (int)pid, owner);
	foreground_release(d);
	if (d->restraining)
		foreground_give(d, slot);
	return 0;
}

/* From a user's agent (cpupolicyctl agent), over the control endpoint:
 * believed, as over D-Bus, only for the caller's own processes. */
int foreground_control(struct daemon *d, pid_t pid,
		       const struct control_peer *peer, FILE *out)
{
	char why[96];

	if (foreground_declare(d, pid, peer->user, peer->admin,
			       "cpupolicyctl agent", why, sizeof(why)) < 0) {
		fprintf(out, "%s%s\n",
			strstr(why, "not yours") ? "permission denied: " : "",
			why);
		return 1;
	}
	fprintf(out, "%d is in the foreground\n", (int)pid);
	return 0;
}

/* The slot pid (with its start) stands for. */
static const struct foreground_slot *foreground_slot_of(
	const struct daemon *d, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < FOREGROUND_USERS; i++) {
		const struct foreground_slot *s = &d->foreground[i];

		if (s->pid && s->pid == pid && s->start == start)
			return s;
	}
	return NULL;
}

/* GNOME's word on a process: its cgroup marked focused by its own user
 * (the cgroup's owner) or by root. */
static bool foreground_focused(pid_t pid)
{
	unsigned writer, owner;

	return cpugroup_focused(pid, &writer) &&
	       (writer == 0 ||
		(restrain_owner(pid, &owner) && owner == writer));
}

/* The source that declared pid (of that start), or an ancestor of it,
 * foreground; NULL: none. */
const char *foreground_covers(const struct daemon *d, pid_t pid,
			      unsigned long long start)
{
	const struct foreground_slot *s;
	struct procinfo_usage u;

	if (procinfo_usage(pid, &u) != OS_OK || u.start != start)
		return NULL;
	for (int depth = 0; depth < FOREGROUND_DEPTH; depth++) {
		if ((s = foreground_slot_of(d, pid, u.start)))
			return s->source;
		if (foreground_focused(pid))
			return FOREGROUND_GNOME;
		pid = u.ppid;
		if (pid <= 1 || procinfo_usage(pid, &u) != OS_OK)
			return NULL;
	}
	return NULL;
}
