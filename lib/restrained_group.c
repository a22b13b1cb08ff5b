/* The groups restraint lowers beside the threads. Where the scheduler
 * shares the CPUs among groups first (os.h, cpugroup_of: a session's
 * autogroup, a cgroup of the cpu controller), a restrained hog's nice
 * counts only against its own group's other members: a hog in another
 * session than the one it starves keeps its group's whole share. The
 * group is lowered as well, but only while every one of its members is
 * restrained, for the lowering weighs on all of them (a foreground task in
 * the hog's session would lose as much as the hog); it is given back when
 * one is released or a member that is not restrained joins. A group whose
 * weight someone set (not the default) is theirs, and left alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "os.h"
#include "restrained.h"
#include "util.h"

/* A process in the group's session or cgroup, as a pass saw it. */
struct restrained_member {
	pid_t pid;
	long session;
	bool held;
};

struct restrained_census {
	struct restrained_member *members;
	size_t count;
	bool taken;
};

static bool restrained_group_held(const struct restrained *r, pid_t pid)
{
	const struct restrained_proc *p = pidmap_get(&r->procs, pid);

	return p && p->held;
}

/* Every process's session: under pressure the pass saw them all (each has
 * a record of this generation); after it they are listed again. */
static void restrained_group_take(struct restrained *r,
				  struct restrained_census *c, bool under)
{
	pid_t *pids = NULL;
	size_t count = 0;

	c->taken = true;
	if (under) {
		c->members = xcalloc(r->procs.count + 1, sizeof(*c->members));
		for (size_t i = 0; i < r->procs.capacity; i++) {
			const struct restrained_proc *p =
				r->procs.slots[i].value;

			if (r->procs.slots[i].key &&
			    p->generation == r->generation)
				c->members[c->count++] =
					(struct restrained_member){
						p->pid, p->session, p->held};
		}
		return;
	}
	if (procinfo_pids(&pids, &count) != OS_OK)
		count = 0;
	c->members = xcalloc(count + 1, sizeof(*c->members));
	for (size_t i = 0; i < count; i++) {
		struct procinfo_usage u;

		if (procinfo_usage(pids[i], &u) == OS_OK)
			c->members[c->count++] = (struct restrained_member){
				pids[i], u.session,
				restrained_group_held(r, pids[i])};
	}
	free(pids);
}

/* Whether every member of p's group is restrained. */
static bool restrained_group_whole(struct restrained *r,
				   const struct restrained_proc *p,
				   struct restrained_census *c, bool under)
{
	pid_t *pids = NULL;
	size_t count = 0;
	bool whole;

	if (p->group->kind == CPUGROUP_CGROUP) {
		if (!p->group->leaf ||
		    cpugroup_members(p->group, &pids, &count) != OS_OK)
			count = 0;
		whole = count > 0;
		for (size_t i = 0; i < count && whole; i++)
			whole = restrained_group_held(r, pids[i]);
		free(pids);
		return whole;
	}
	if (!c->taken)
		restrained_group_take(r, c, under);
	whole = p->session > 0;
	for (size_t i = 0; i < c->count && whole; i++) {
		if (c->members[i].session == p->session)
			whole = c->members[i].held;
	}
	return whole;
}

static struct restrained_group *restrained_group_lowered(
	const struct restrained *r, const struct cpugroup *g)
{
	for (size_t i = 0; i < r->group_count; i++) {
		if (strcmp(r->groups[i].group.id, g->id) == 0)
			return &r->groups[i];
	}
	return NULL;
}

static void restrained_group_key(const struct cpugroup *g, char *key,
				 size_t size)
{
	snprintf(key, size, "/cpugroup%s", g->id);
}

static bool restrained_group_journal(struct restrained *r,
				     const struct cpugroup *g, long original,
				     long ours)
{
	char key[CPUGROUP_ID_MAX + 16], a[32], b[32];

	if (!r->options.journal || r->options.dry_run)
		return true;
	restrained_group_key(g, key, sizeof(key));
	snprintf(a, sizeof(a), "%ld", original);
	snprintf(b, sizeof(b), "%ld", ours);
	return journal_record(r->options.journal, key, a, b) == 0;
}

static void restrained_group_unjournal(struct restrained *r,
				       const struct cpugroup *g)
{
	char key[CPUGROUP_ID_MAX + 16];

	if (!r->options.journal)
		return;
	restrained_group_key(g, key, sizeof(key));
	journal_forget(r->options.journal, key);
}

const char *restrained_group_kind(const struct cpugroup *g)
{
	return g->kind == CPUGROUP_AUTOGROUP ? "autogroup" : "cgroup";
}

/* The group's lowering, where it has the default weight and the
 * restraint's nice gives it less. */
static void restrained_group_lower(struct restrained *r,
				   const struct restrained_proc *p,
				   long long now_ns)
{
	const struct cpugroup *g = p->group;
	long original, wanted = cpugroup_value_of_nice(g, p->target.nice);
	struct restrained_group *lowered;
	enum os_status os;

	if (cpugroup_read(g, &original) != OS_OK ||
	    original != cpugroup_value_of_nice(g, 0) ||
	    !cpugroup_less(g, wanted, original) ||
	    !restrained_group_journal(r, g, original, wanted))
		return;
	if (!r->options.dry_run && (os = cpugroup_write(g, wanted)) != OS_OK) {
		/* Not now (os.h: OS_FAILED) is tried again at the next pass. */
		if (os != OS_FAILED)
			log_warn("restraint: the %s %s could not be lowered",
				 restrained_group_kind(g), g->id);
		restrained_group_unjournal(r, g);
		return;
	}
	r->groups = xreallocarray(r->groups, r->group_count + 1,
				  sizeof(*r->groups));
	lowered = &r->groups[r->group_count++];
	*lowered = (struct restrained_group){.group = *g,
					     .original = original,
					     .applied = wanted,
					     .since_ns = now_ns};
	r->counters.groups++;
	log_info("%s the %s %s of %d (%s): %ld, was %ld: all its processes "
		 "are restrained",
		 r->options.dry_run ? "would lower" : "lowered",
		 restrained_group_kind(g), g->id, (int)p->pid, p->name, wanted,
		 original);
}

/* An autogroup is reached through a member: the one it was lowered
 * through, or another restrained member where that one ended. */
static bool restrained_group_reach(struct restrained *r,
				   struct restrained_group *l, long *now)
{
	enum os_status os = cpugroup_read(&l->group, now);

	for (size_t i = 0; i < r->procs.capacity && os != OS_OK &&
			   l->group.kind == CPUGROUP_AUTOGROUP;
	     i++) {
		const struct restrained_proc *p = r->procs.slots[i].value;

		if (!r->procs.slots[i].key || !p->group ||
		    strcmp(p->group->id, l->group.id) != 0)
			continue;
		l->group.via = p->pid;
		os = cpugroup_read(&l->group, now);
	}
	return os == OS_OK;
}

/* Given back where it still has the restraint's weight (else whoever
 * changed it keeps theirs), and forgotten; false, kept to be tried again,
 * where the system said not now (Linux takes one autogroup write in
 * 100 ms from a process without CAP_SYS_ADMIN). */
static bool restrained_group_restore(struct restrained *r, size_t index,
				     const char *why)
{
	struct restrained_group *l = &r->groups[index];
	long now;

	if (!r->options.dry_run && restrained_group_reach(r, l, &now)) {
		if (now != l->applied)
			r->counters.left_alone++;
		else if (cpugroup_write(&l->group, l->original) == OS_FAILED) {
			l->restoring = true;
			return false;
		}
	}
	log_info("%s the %s %s: %s",
		 r->options.dry_run ? "would give back" : "gave back",
		 restrained_group_kind(&l->group), l->group.id, why);
	restrained_group_unjournal(r, &l->group);
	r->groups[index] = r->groups[--r->group_count];
	return true;
}

const struct restrained_group *restrained_group_of(
	const struct restrained *r, const struct restrained_proc *p)
{
	struct restrained_group *l =
		p->group ? restrained_group_lowered(r, p->group) : NULL;

	return l && !l->restoring ? l : NULL;
}

void restrained_group_find(struct restrained_proc *p)
{
	struct cpugroup g;

	free(p->group);
	p->group = NULL;
	if (!p->target.set_nice || p->target.nice <= 0 ||
	    cpugroup_of(p->pid, &g) != OS_OK || g.kind == CPUGROUP_NONE)
		return;
	p->group = xmalloc(sizeof(*p->group));
	*p->group = g;
}

void restrained_group_leave(struct restrained *r,
			    const struct restrained_proc *p, const char *why)
{
	struct restrained_group *l =
		p->group ? restrained_group_lowered(r, p->group) : NULL;

	if (l)
		restrained_group_restore(r, (size_t)(l - r->groups), why);
}

void restrained_group_pass(struct restrained *r, long long now_ns, bool under)
{
	struct restrained_census census = {0};

	for (size_t i = r->group_count; i-- > 0;) {
		const struct restrained_proc *p = NULL;

		if (r->groups[i].restoring) {
			restrained_group_restore(r, i, "tried again");
			continue;
		}

		for (size_t k = 0; k < r->procs.capacity && !p; k++) {
			const struct restrained_proc *q =
				r->procs.slots[k].value;

			if (r->procs.slots[k].key && q->held && q->group &&
			    strcmp(q->group->id, r->groups[i].group.id) == 0)
				p = q;
		}
		if (!p || !restrained_group_whole(r, p, &census, under))
			restrained_group_restore(
				r, i, "a process in it is not restrained");
	}
	for (size_t k = 0; k < r->procs.capacity; k++) {
		const struct restrained_proc *p = r->procs.slots[k].value;

		if (r->procs.slots[k].key && p->held && p->group &&
		    !restrained_group_lowered(r, p->group) &&
		    restrained_group_whole(r, p, &census, under))
			restrained_group_lower(r, p, now_ns);
	}
	free(census.members);
}

/* At the stop, tried again after the system's 100 ms, a few times. */
void restrained_group_free(struct restrained *r, const char *why)
{
	for (int round = 0; r->group_count && round < 5; round++) {
		if (round)
			timing_sleep_ns(110 * 1000000LL);
		for (size_t i = r->group_count; i-- > 0;)
			restrained_group_restore(r, i, why);
	}
	free(r->groups);
	r->group_count = 0;
	r->groups = NULL;
}

/* A journaled group's original back, where a process the journal
 * restrained is still in it and it still has the restraint's weight. */
bool restrained_group_replay(struct journal *j, const struct journal_entry *e)
{
	const char *id = e->path + strlen("/cpugroup");
	char *end;
	long original = strtol(e->original, &end, 10), ours;

	if (*end || (ours = strtol(e->ours, &end, 10), *end))
		return false;
	for (size_t i = 0; i < j->count; i++) {
		struct procinfo_usage u;
		struct cpugroup g;
		unsigned long long start;
		long now;
		int pid;

		if (sscanf(j->entries[i].path, "/restraint/%d/%llu", &pid,
			   &start) != 2 ||
		    procinfo_usage(pid, &u) != OS_OK || u.start != start ||
		    cpugroup_of(pid, &g) != OS_OK || g.kind == CPUGROUP_NONE ||
		    strcmp(g.id, id) != 0)
			continue;
		return cpugroup_read(&g, &now) == OS_OK && now == ours &&
		       cpugroup_write(&g, original) == OS_OK;
	}
	return false;
}
