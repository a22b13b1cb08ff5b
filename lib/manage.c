/* The managed processes: what each matched, what was applied to each of
 * its threads, and the reactions to process events, rescans and reloads.
 *
 * Identity: a pid is only a name. A process is matched on facts read
 * cheaply; only when a rule matches is it pinned (a pidfd, a handle), its
 * facts read again and matched again, and the pin checked after applying:
 * a process that died meanwhile may have lent its pid to another, whose
 * threads then get back what they had. Threads are checked to still
 * belong to their process around each write. Everything that asks the
 * system goes through os.h.
 *
 * A raise never outlives its match: what a thread would have without the
 * rule is kept as its original, also for threads created after the match
 * (which inherit the rule's values from their creator) and for children
 * the process forks (followed until their exec: one that runs a program
 * no rule matches gets the original back). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manage.h"
#include "os.h"
#include "util.h"

void manage_init(struct manage *m, const struct manage_options *options,
		 struct place_topology *topology)
{
	*m = (struct manage){.options = *options, .topology = topology};
	pidmap_init(&m->procs);
	pidmap_init(&m->heirs);
}

static void manage_set_mask(hwloc_bitmap_t *slot, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_free(*slot);
	*slot = set ? hwloc_bitmap_dup(set) : NULL;
}

static void manage_thread_clear(struct manage_thread *t)
{
	hwloc_bitmap_free(t->original_mask);
	hwloc_bitmap_free(t->applied_mask);
	t->original_mask = t->applied_mask = NULL;
}

static void manage_proc_free(struct manage_proc *p)
{
	for (size_t i = 0; i < p->thread_count; i++)
		manage_thread_clear(&p->threads[i]);
	free(p->threads);
	pidmap_free(&p->thread_index);
	hwloc_bitmap_free(p->original_mask);
	hwloc_bitmap_free(p->applied_mask);
	hwloc_bitmap_free(p->own_mask);
	hwloc_bitmap_free(p->process_original);
	hwloc_bitmap_free(p->process_applied);
	place_plan_free(&p->place);
	free(p);
}

static void manage_heir_free(struct manage_heir *h)
{
	hwloc_bitmap_free(h->original_mask);
	hwloc_bitmap_free(h->inherited_mask);
	free(h);
}

static void manage_heirs_clear(struct manage *m)
{
	for (size_t i = 0; i < m->heirs.capacity; i++) {
		if (m->heirs.slots[i].key)
			manage_heir_free(m->heirs.slots[i].value);
	}
	pidmap_free(&m->heirs);
	pidmap_init(&m->heirs);
}

void manage_free(struct manage *m)
{
	for (size_t i = 0; i < m->procs.capacity; i++) {
		if (m->procs.slots[i].key)
			manage_proc_free(m->procs.slots[i].value);
	}
	pidmap_free(&m->procs);
	manage_heirs_clear(m);
	pidmap_free(&m->heirs);
	if (m->rules)
		match_index_free(&m->index);
}

const struct manage_proc *manage_find(const struct manage *m, pid_t pid)
{
	return pidmap_get(&m->procs, pid);
}

/* Whether the children of a managed process are followed to their exec:
 * its rule's say. */
static bool manage_follows_children(const struct manage_proc *p)
{
	return p->rule && rules_follows_children(p->rule);
}

static unsigned manage_follow_how(const struct manage_proc *p)
{
	return (manage_follows_children(p) ? MANAGE_FOLLOW_CHILDREN : 0) |
	       (p->rule && rules_has_power(p->rule) ? MANAGE_FOLLOW_EXIT : 0);
}

/* The processes whose next exec must reach the daemon whatever they
 * run (those options.follow was told of, and the children followed to
 * their exec): an exec filter that lost some of them follows them
 * again. *followed is the caller's to free. */
size_t manage_followed(const struct manage *m,
		       struct manage_followed **followed)
{
	size_t count = 0;

	*followed = xcalloc(m->procs.count + m->heirs.count + 1,
			    sizeof(**followed));
	for (size_t i = 0; i < m->procs.capacity; i++) {
		if (m->procs.slots[i].key)
			(*followed)[count++] = (struct manage_followed){
				m->procs.slots[i].key,
				manage_follow_how(m->procs.slots[i].value)};
	}
	for (size_t i = 0; i < m->heirs.capacity; i++) {
		if (m->heirs.slots[i].key)
			(*followed)[count++] = (struct manage_followed){
				m->heirs.slots[i].key, MANAGE_FOLLOW_CHILDREN};
	}
	return count;
}

/* A write the kernel refused for good for this thread, not for now: tried
 * once; anything else is tried again at the next rescan. */
static bool manage_permanent(enum os_status status)
{
	return status == OS_DENIED || status == OS_UNSUPPORTED;
}

/* Threads of a process, found in O(1) by tid. */
static struct manage_thread *manage_thread_find(struct manage_proc *p,
						pid_t tid)
{
	uintptr_t index = (uintptr_t)pidmap_get(&p->thread_index, tid);

	return index ? &p->threads[index - 1] : NULL;
}

static struct manage_thread *manage_thread_add(struct manage_proc *p, pid_t tid)
{
	struct manage_thread *t;

	if (p->thread_count == MANAGE_THREADS_MAX) {
		if (!p->threads_capped)
			log_warnx("pid %d %s: more than %d threads: those "
				  "beyond are not managed",
				  (int)p->pid, p->exe, MANAGE_THREADS_MAX);
		p->threads_capped = true;
		return NULL;
	}
	if (p->thread_count == p->thread_capacity) {
		p->thread_capacity =
			p->thread_capacity ? p->thread_capacity * 2 : 4;
		p->threads = xreallocarray(p->threads, p->thread_capacity,
					   sizeof(*p->threads));
	}
	t = &p->threads[p->thread_count++];
	*t = (struct manage_thread){.tid = tid, .slot = (int)p->next_slot++};
	pidmap_put(&p->thread_index, tid, (void *)(uintptr_t)p->thread_count);
	return t;
}

static void manage_thread_remove(struct manage_proc *p, pid_t tid)
{
	uintptr_t index = (uintptr_t)pidmap_remove(&p->thread_index, tid);
	struct manage_thread *last;

	if (!index)
		return;
	manage_thread_clear(&p->threads[index - 1]);
	last = &p->threads[--p->thread_count];
	if (last != &p->threads[index - 1]) {
		p->threads[index - 1] = *last;
		pidmap_put(&p->thread_index, last->tid, (void *)index);
	}
}

/* Someone else set this thread after us: by default we leave it be. */
static bool manage_respect(struct manage *m, struct manage_proc *p,
			   struct manage_thread *t, const char *what)
{
	if (!m->options.respect_changes)
		return false;
	if (!t->left_alone) {
		t->left_alone = true;
		m->counters.left_alone++;
		log_info("pid %d tid %d (%s): %s changed by someone else after "
			 "rule %s set it: left alone",
			 (int)p->pid, (int)t->tid, p->exe, what, p->rule->name);
	}
	return true;
}

/* A failed read or write: a thread that exited is normal; a refusal for
 * good is said once per thread and not tried again; anything else is said
 * and tried again at the next rescan. */
static void manage_failed(struct manage *m, struct manage_proc *p,
			  struct manage_thread *t, enum os_status status,
			  bool *failed, const char *what)
{
	if (status == OS_GONE) {
		log_debug("pid %d tid %d exited while %s was applied",
			  (int)p->pid, (int)t->tid, what);
		return;
	}
	m->counters.failures++;
	if (!manage_permanent(status)) {
		log_warn("pid %d tid %d (%s): cannot set %s of rule %s now "
			 "(tried again at the next rescan)",
			 (int)p->pid, (int)t->tid, p->exe, what, p->rule->name);
		return;
	}
	if (!*failed)
		log_warn("pid %d tid %d (%s): cannot set %s of rule %s",
			 (int)p->pid, (int)t->tid, p->exe, what, p->rule->name);
	*failed = true;
}

/* On Windows the class, the EcoQoS, the I/O and memory priority are
 * the process's, not the thread's: once the rule wrote them through one thread,
 * every other thread reads the rule's. Their original is the one the first
 * thread found, or a restore would put the rule's class back. */
static void manage_process_original(const struct manage_proc *p,
				    struct manage_thread *t)
{
	if (!p->prio.windows)
		return;
	for (size_t i = 0; i < p->thread_count; i++) {
		const struct manage_thread *o = &p->threads[i];

		if (o == t || !o->prio_done)
			continue;
		prio_state_take_process(&t->original, &o->original);
		return;
	}
}

/* What a write through one thread set of the process's own values is
 * what the others hold from the rule now: not someone else's change.
 * Kept once for the process, and laid over each thread's "applied" when
 * that thread is next looked at (manage_thread_shared): a write through
 * every thread of a `thread` rule is then linear in the threads, where
 * copying it into every other thread at each write was quadratic. */
static void manage_process_applied(struct manage_proc *p,
				   struct manage_thread *t)
{
	if (!p->prio.windows)
		return;
	p->shared = t->applied;
	t->shared_stamp = ++p->shared_stamp;
}

/* A thread's "applied" with the process's values of the last write
 * through another thread, when it held a rule's values then. */
static void manage_thread_shared(const struct manage_proc *p,
				 struct manage_thread *t)
{
	if (!p->prio.windows || !t->prio_done ||
	    t->shared_stamp == p->shared_stamp)
		return;
	prio_state_take_process(&t->applied, &p->shared);
	t->shared_stamp = p->shared_stamp;
}

/* Returns 1 when written, 0 when nothing was needed, -1 on failure.
 * What the rule sets is laid over the thread's original values, so that
 * after a switch of rules nothing of the old rule stays behind. What is
 * recorded as applied is what the kernel holds afterwards, read back: a
 * refused write is not mistaken later for someone else's change. In a
 * dry run the thread's values are recorded as they are. fresh: what the
 * thread holds, read as its record was made just now; NULL: read it. */
static int manage_apply_prio(struct manage *m, struct manage_proc *p,
			     struct manage_thread *t,
			     const struct prio_state *fresh)
{
	struct prio_state now, wanted;
	enum os_status os;
	bool changed;
	int status = 0;

	if (t->left_alone || t->prio_failed ||
	    (prio_target_empty(&p->prio) && !t->prio_done))
		return 0;
	if (fresh) {
		now = *fresh;
	} else if ((os = apply_prio_read(p->pid, t->tid, &now)) != OS_OK) {
		manage_failed(m, p, t, os, &t->prio_failed, "priority");
		return -1;
	}
	manage_thread_shared(p, t);
	changed = t->prio_done && !prio_state_equal(&now, &t->applied);
	if (changed && manage_respect(m, p, t, "priority"))
		return 0;
	/* Its own values until now, unless it inherited a rule's. */
	if (!t->prio_done && !t->inherited) {
		t->original = now;
		manage_process_original(p, t);
	}
	prio_original_default(&t->original, &p->prio);
	/* A change enforced over (respect_changes = false) is measured
	 * against what the thread holds now, key by key in the rule's own
	 * direction: a lowering rule never raises a thread lowered further,
	 * and what the rule does not set stays as it was put. */
	prio_expected(&p->prio, changed ? &now : &t->original, &wanted);
	t->prio_done = !prio_target_empty(&p->prio);
	t->applied = now; /* read after any earlier write: up to date */
	t->shared_stamp = p->shared_stamp;
	if (prio_state_equal(&now, &wanted) || m->options.dry_run)
		return 0;
	if ((os = apply_prio_write(p->pid, t->tid, &now, &wanted)) != OS_OK) {
		manage_failed(m, p, t, os, &t->prio_failed, "priority");
		status = -1;
	} else {
		status = 1;
	}
	if (os == OS_OK && apply_prio_taken(&now, &wanted, &t->applied)) {
		manage_process_applied(p, t);
	} else if (apply_prio_read(p->pid, t->tid, &now) == OS_OK) {
		t->applied = now;
		manage_process_applied(p, t);
	}
	return status;
}

/* The CPUs the kernel lets a process run on now: its cpuset's, online. */
static hwloc_bitmap_t manage_allowed(struct manage *m, pid_t pid)
{
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc(),
		       online = hwloc_bitmap_alloc();

	if (apply_place_allowed(pid, allowed) != OS_OK)
		hwloc_bitmap_copy(allowed, m->topology->all);
	if (apply_place_online(online) == OS_OK)
		hwloc_bitmap_and(allowed, allowed, online);
	hwloc_bitmap_free(online);
	return allowed;
}

/* The kernel reports a thread's affinity within what it may run on now:
 * a CPU that went offline, or a cpuset that shrank, takes CPUs out of
 * what sched_getaffinity says without anyone changing the thread. The
 * kernel narrows, it never widens: a part of what was set is its doing
 * (the CPUs it takes out are not always offline yet in sysfs, nor out of
 * the cpuset's file, when it does), and so is the whole cpuset when
 * nothing of what was set is left. */
static bool manage_mask_holds(struct manage *m, struct manage_proc *p,
			      hwloc_const_bitmap_t now,
			      hwloc_const_bitmap_t applied)
{
	hwloc_bitmap_t allowed, seen;
	bool holds;

	if (hwloc_bitmap_isequal(now, applied) ||
	    (!hwloc_bitmap_iszero(now) &&
	     hwloc_bitmap_isincluded(now, applied)))
		return true;
	allowed = manage_allowed(m, p->pid);
	seen = hwloc_bitmap_alloc();
	hwloc_bitmap_and(seen, applied, allowed);
	holds = hwloc_bitmap_isequal(now, seen) ||
		(hwloc_bitmap_iszero(seen) &&
		 hwloc_bitmap_isequal(now, allowed));
	hwloc_bitmap_free(seen);
	hwloc_bitmap_free(allowed);
	return holds;
}

static int manage_apply_place(struct manage *m, struct manage_proc *p,
			      struct manage_thread *t)
{
	hwloc_const_bitmap_t wanted;
	hwloc_bitmap_t now;
	enum os_status os;
	int status = 0;

	/* A soft plan the process's default carries is no thread's. */
	bool placing = p->place.active && !(p->place.soft && p->process_placed);

	if (t->left_alone || t->place_failed || (!placing && !t->place_done))
		return 0;
	now = hwloc_bitmap_alloc();
	if ((os = apply_place_read(p->pid, t->tid, now)) != OS_OK) {
		manage_failed(m, p, t, os, &t->place_failed, "placement");
		hwloc_bitmap_free(now);
		return -1;
	}
	if (t->place_done && !manage_mask_holds(m, p, now, t->applied_mask) &&
	    manage_respect(m, p, t, "placement")) {
		hwloc_bitmap_free(now);
		return 0;
	}
	/* Seen first under a rule that placed nothing: its own mask yet. */
	if (placing && !t->place_done && !t->original_mask)
		manage_set_mask(&t->original_mask, now);
	/* A rule that places nothing any more: the original comes back. */
	wanted = placing ? place_plan_thread(&p->place, t->slot)
			 : t->original_mask;
	t->place_done = placing;
	/* "applied" is what was written, or found as wanted: the plan
	 * narrows with the CPUs online, the mask the kernel keeps does not. */
	if (!t->applied_mask || !manage_mask_holds(m, p, now, t->applied_mask))
		manage_set_mask(&t->applied_mask, now);
	if (wanted && !hwloc_bitmap_isequal(now, wanted) &&
	    !m->options.dry_run) {
		if ((os = apply_place_write(p->pid, t->tid, wanted)) != OS_OK) {
			manage_failed(m, p, t, os, &t->place_failed,
				      "placement");
			status = -1;
		} else {
			manage_set_mask(&t->applied_mask, wanted);
			status = 1;
		}
	}
	hwloc_bitmap_free(now);
	return status;
}

/* Puts back what a thread had: each setting that still holds what we set
 * goes back to its original, whatever else the thread changed. */
static void manage_restore_thread(struct manage *m, struct manage_proc *p,
				  struct manage_thread *t)
{
	struct prio_state now, back;
	hwloc_bitmap_t mask;

	if (m->options.dry_run)
		return;
	manage_thread_shared(p, t);
	if (t->prio_done && !t->left_alone &&
	    apply_prio_read(p->pid, t->tid, &now) == OS_OK) {
		prio_state_unwind(&now, &t->applied, &t->original, &back);
		if (!prio_state_equal(&now, &back))
			apply_prio_write(p->pid, t->tid, &now, &back);
	}
	if (t->place_done && !t->left_alone && t->original_mask &&
	    t->applied_mask) {
		mask = hwloc_bitmap_alloc();
		if (apply_place_read(p->pid, t->tid, mask) == OS_OK &&
		    manage_mask_holds(m, p, mask, t->applied_mask))
			apply_place_write(p->pid, t->tid, t->original_mask);
		hwloc_bitmap_free(mask);
	}
}

/* A thread seen for the first time. One that existed before the rule
 * holds its own original; one created since inherited what the rule gave
 * its creator (or, not knowing the creator, the main thread), and its
 * original is the creator's, for each setting it did not change itself.
 * Returns what the thread holds now (for the apply that follows: one read
 * for both), NULL when it cannot be read. */
static const struct prio_state *manage_thread_original(
	struct manage_proc *p, struct manage_thread *t,
	struct manage_thread *creator, bool created_since,
	struct prio_state *now_out)
{
	const struct prio_state *read = NULL;
	struct prio_state now;
	hwloc_bitmap_t mask;

	if (creator)
		manage_thread_shared(p, creator);

	if (apply_prio_read(p->pid, t->tid, &now) == OS_OK) {
		*now_out = now;
		read = now_out;
		t->original = now;
		if (created_since && creator && creator->prio_done)
			prio_state_unwind(&now, &creator->applied,
					  &creator->original, &t->original);
		else if (created_since && p->have_prio)
			prio_state_unwind(&now, &p->applied, &p->original,
					  &t->original);
		t->inherited = !prio_state_equal(&now, &t->original);
	}
	/* A rule that places nothing needs no mask: one that comes to place
	 * the thread later reads it then (manage_apply_place). */
	if (!p->place.active)
		return read;
	mask = hwloc_bitmap_alloc();
	if (apply_place_read(p->pid, t->tid, mask) != OS_OK) {
		hwloc_bitmap_free(mask);
		return read;
	}
	if (created_since && creator && creator->applied_mask &&
	    creator->original_mask &&
	    hwloc_bitmap_isequal(mask, creator->applied_mask))
		hwloc_bitmap_copy(mask, creator->original_mask);
	else if (created_since && p->applied_mask && p->original_mask &&
		 hwloc_bitmap_isequal(mask, p->applied_mask))
		hwloc_bitmap_copy(mask, p->original_mask);
	manage_set_mask(&t->original_mask, mask);
	hwloc_bitmap_free(mask);
	return read;
}

/* pinned: tid is the main thread of a process the caller holds pinned,
 * just read alive, and checks the pin after the writes: its tid names no
 * other task meanwhile (a matched exec's thread costs two signals less). */
static void manage_apply_thread(struct manage *m, struct manage_proc *p,
				pid_t tid, pid_t creator, bool created_since,
				bool pinned, size_t *written)
{
	struct manage_thread *t = manage_thread_find(p, tid);
	const struct prio_state *fresh = NULL;
	struct prio_state now;
	int prio, place;

	if (!t) {
		if ((!pinned && !procinfo_thread_in(p->pid, tid)) ||
		    !(t = manage_thread_add(p, tid)))
			return;
		fresh = manage_thread_original(
			p, t, creator ? manage_thread_find(p, creator) : NULL,
			created_since, &now);
	}
	/* A thread just read was there: asked again only when it was not
	 * read (a matched exec's thread costs one signal less). */
	if (!fresh && !procinfo_thread_in(p->pid, tid)) {
		manage_thread_remove(p, tid);
		return;
	}
	prio = manage_apply_prio(m, p, t, fresh);
	place = manage_apply_place(m, p, t);
	if (prio <= 0 && place <= 0)
		return;
	m->counters.applies++;
	(*written)++;
	/* Gone during the writes: its tid may now name another task, which
	 * must not keep our settings. */
	if (pinned || procinfo_thread_in(p->pid, tid))
		return;
	if (procinfo_task_exists(tid)) {
		m->counters.pid_reuse++;
		log_warnx("tid %d was reused while rule %s was applied: "
			  "restored",
			  (int)tid, p->rule->name);
		manage_restore_thread(m, p, t);
	}
	manage_thread_remove(p, tid);
}

/* The main thread's state stands for the process: what later threads
 * and forked children inherit, and what they would have without it. */
static void manage_note_leader(struct manage_proc *p)
{
	struct manage_thread *leader = manage_thread_find(p, p->pid);

	if (!leader)
		return;
	manage_thread_shared(p, leader);
	if (leader->prio_done || !p->have_prio) {
		p->original = leader->original;
		p->applied =
			leader->prio_done ? leader->applied : leader->original;
		p->have_prio = true;
	}
	if (leader->original_mask)
		manage_set_mask(&p->original_mask, leader->original_mask);
	if (leader->applied_mask)
		manage_set_mask(&p->applied_mask, leader->applied_mask);
}

/* The process's own default comes back (none where it had none), unless
 * it chose another since. */
static void manage_unplace_process(struct manage_proc *p)
{
	hwloc_bitmap_t now = hwloc_bitmap_alloc();

	if (apply_place_process_read(p->pid, now) != OS_OK ||
	    hwloc_bitmap_isequal(now, p->process_applied))
		apply_place_process(p->pid,
				    hwloc_bitmap_iszero(p->process_original)
					    ? NULL
					    : p->process_original);
	hwloc_bitmap_free(now);
	manage_set_mask(&p->process_original, NULL);
	manage_set_mask(&p->process_applied, NULL);
	p->process_placed = false;
}

/* A plan that gives every thread the same CPUs is also the process's
 * default where the system has one (Windows CPU Sets): threads started
 * before the daemon sees them run there from their first instruction,
 * and a soft plan is that alone. The default the process had is read
 * first, and given back when the plan goes; one that cannot be read is
 * not replaced. Tried once per plan. */
static void manage_place_process(struct manage *m, struct manage_proc *p)
{
	bool wanted = p->place.active && p->place.domains.count <= 1;

	if (m->options.dry_run || p->process_tried)
		return;
	p->process_tried = true;
	if (wanted && !p->process_original) {
		p->process_original = hwloc_bitmap_alloc();
		if (apply_place_process_read(p->pid, p->process_original) !=
		    OS_OK)
			manage_set_mask(&p->process_original, NULL);
	}
	if (wanted && p->process_placed &&
	    hwloc_bitmap_isequal(p->process_applied, p->place.base))
		return; /* set by an earlier plan: not again at each rescan */
	if (wanted && p->process_original &&
	    apply_place_process(p->pid, p->place.base) == OS_OK) {
		manage_set_mask(&p->process_applied, p->place.base);
		p->process_placed = true;
	} else if (p->process_placed) {
		manage_unplace_process(p);
	}
}

/* Every thread the process has now; records of threads that ended go.
 * alone: the main thread was the only one when the process was
 * followed, so that any other is reported (a matched exec's: its threads
 * are not listed). */
static size_t manage_apply_all(struct manage *m, struct manage_proc *p,
			       bool created_since, bool alone)
{
	size_t count = 0, written = 0;
	struct pidmap live;
	pid_t *tids;

	if (alone) {
		tids = xcalloc(1, sizeof(*tids));
		tids[count++] = p->pid;
	} else if (procinfo_threads(p->pid, &tids, &count) != OS_OK) {
		return 0;
	}
	pidmap_init(&live);
	for (size_t i = 0; i < count; i++)
		pidmap_put(&live, tids[i], (void *)1);
	for (size_t i = 0; i < p->thread_count;) {
		if (pidmap_get(&live, p->threads[i].tid))
			i++;
		else
			manage_thread_remove(p, p->threads[i].tid);
	}
	pidmap_free(&live);
	/* The process first: whether a soft plan needs its threads. */
	manage_place_process(m, p);
	for (size_t i = 0; i < count; i++)
		manage_apply_thread(m, p, tids[i], 0, created_since, alone,
				    &written);
	free(tids);
	manage_note_leader(p);
	return written;
}

static void manage_describe(const struct manage_proc *p, char *buf, size_t size)
{
	char prio[128] = "", cpus[256] = "";
	size_t used;

	prio_describe_target(&p->prio, prio, sizeof(prio));
	snprintf(buf, size, "%s%s%s", prio,
		 prio[0] && rules_has_power(p->rule) ? ", " : "",
		 rules_has_power(p->rule) ? "power held while it runs" : "");
	used = strlen(buf);
	if (!p->place.active || used + 1 >= size)
		return;
	place_format(p->place.base, cpus, sizeof(cpus));
	if (p->place.domains.count > 1)
		snprintf(buf + used, size - used,
			 "%scpus %s, threads spread over %zu domains",
			 used ? ", " : "", cpus, p->place.domains.count);
	else
		snprintf(buf + used, size - used, "%scpus %s", used ? ", " : "",
			 cpus);
}

static void manage_log_decision(struct manage *m, const struct manage_proc *p,
				size_t written)
{
	char what[512];

	manage_describe(p, what, sizeof(what));
	log_info("pid %d %s: rule %s (%s:%u): %s%s; %zu of %zu threads "
		 "changed",
		 (int)p->pid, p->exe, p->rule->name, p->rule->file,
		 p->rule->line, what[0] ? what : "nothing to set",
		 m->options.dry_run ? " (dry run)" : "", written,
		 p->thread_count);
}

/* Hostile text goes into log lines: keep it printable. */
static void manage_printable(char *text)
{
	for (char *c = text; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	}
}

static void manage_tracking(struct manage *m, bool on)
{
	if (m->options.tracking)
		m->options.tracking(m->options.hook_ctx, on);
}

/* The last record gone (a process or a child followed): thread events
 * are no longer needed. */
static void manage_untrack_if_idle(struct manage *m)
{
	if (!m->procs.count && !m->heirs.count)
		manage_tracking(m, false);
}

static void manage_hold(struct manage *m, struct manage_proc *p, bool on)
{
	if ((on || p->holds_power) && m->options.hold)
		m->options.hold(m->options.hook_ctx, p, on);
	p->holds_power = on;
}

static void manage_forget(struct manage *m, pid_t pid, bool restore)
{
	struct manage_proc *p = pidmap_remove(&m->procs, pid);

	if (!p)
		return;
	manage_hold(m, p, false);
	for (size_t i = 0; restore && i < p->thread_count; i++)
		manage_restore_thread(m, p, &p->threads[i]);
	if (restore && p->process_placed && !m->options.dry_run)
		manage_unplace_process(p);
	manage_proc_free(p);
	manage_untrack_if_idle(m);
}

static int manage_plan(struct manage *m, struct manage_proc *p,
		       const struct rule *rule, bool say)
{
	hwloc_bitmap_t allowed;
	char why[128];
	int status;

	place_plan_free(&p->place);
	p->process_tried = false;
	if (!m->topology || !rules_places(rule))
		return 0;
	allowed = manage_allowed(m, p->pid);
	if (!p->own_mask) {
		p->own_mask = hwloc_bitmap_alloc();
		if (apply_place_current(p->pid, p->own_mask) != OS_OK)
			hwloc_bitmap_copy(p->own_mask, allowed);
	}
	status = place_plan_make(m->topology, rules_placement(rule), allowed,
				 p->own_mask, &p->place, why, sizeof(why));
	if (status < 0 && say)
		log_info("pid %d %s: rule %s: placement not applied: %s",
			 (int)p->pid, p->exe, rule->name, why);
	hwloc_bitmap_free(allowed);
	return 0;
}

/* A new record; a child of a managed process brings what it inherited,
 * so that its threads' originals are what it would have without the
 * parent's rule. */
static struct manage_proc *manage_proc_new(struct manage *m, pid_t pid,
					   unsigned long long start,
					   struct manage_heir *heir)
{
	struct manage_proc *p = xcalloc(1, sizeof(*p));

	/* Thread events first, so that no thread created from here on goes
	 * unseen. */
	if (!m->procs.count && !m->heirs.count)
		manage_tracking(m, true);
	p->pid = pid;
	p->start_time = start;
	pidmap_init(&p->thread_index);
	if (heir) {
		p->have_prio = heir->have_prio;
		p->original = heir->original;
		p->applied = heir->inherited;
		manage_set_mask(&p->original_mask, heir->original_mask);
		manage_set_mask(&p->applied_mask, heir->inherited_mask);
	}
	pidmap_put(&m->procs, pid, p);
	return p;
}

/* Before anything is applied under a rule, and again when the rule
 * changes: what of the process the exec filter must let through. */
static void manage_follow(struct manage *m, const struct manage_proc *p)
{
	if (m->options.follow)
		m->options.follow(m->options.hook_ctx, p->pid,
				  manage_follow_how(p));
}

/* pid followed under rule before its record is made: see manage_take. */
static void manage_follow_early(struct manage *m, pid_t pid,
				const struct rule *rule)
{
	struct manage_proc as = {.pid = pid, .rule = rule};

	manage_follow(m, &as);
}

/* The child followed under pid ended: its record goes. */
static void manage_heir_drop(struct manage *m, pid_t pid)
{
	struct manage_heir *h = pidmap_remove(&m->heirs, pid);

	if (!h)
		return;
	manage_heir_free(h);
	manage_untrack_if_idle(m);
}

/* The heir record of pid, when it is the process that the fork made. */
static struct manage_heir *manage_heir_take(struct manage *m, pid_t pid,
					    unsigned long long start)
{
	struct manage_heir *h = pidmap_remove(&m->heirs, pid);

	if (h && h->start_time != start) {
		manage_heir_free(h);
		h = NULL;
	}
	return h;
}

/* What an exec's report said, against what the process shows now (one
 * read of it, after it is followed): false when it is another process
 * (the one that exec'd ended before the pin) or renamed itself since
 * (*renamed: its name is to be read again). */
static bool manage_known_holds(pid_t pid, const struct manage_known *known,
			       const struct facts *facts,
			       struct procinfo_state *now, bool *renamed)
{
	if (procinfo_state(pid, now) != OS_OK || now->start != known->start)
		return false;
	*renamed = (facts->have & MATCH_FACT_COMM) && now->comm[0] &&
		   strcmp(now->comm, facts->comm) != 0;
	return !*renamed;
}

/* pid under rule, pinned and matched to it on facts read since the pin
 * (the pin is the caller's, unpinned here): facts read while the pin
 * stands are the pinned process's, whatever became of the pid before.
 * known: what the exec's report said of it (NULL: nothing), checked
 * here; *renamed when the name it gave no longer holds. Applies; returns
 * the record, or NULL when the process went away. */
static struct manage_proc *manage_take(struct manage *m, pid_t pid, long rule,
				       struct manage_proc *p,
				       struct procinfo_pin pin,
				       struct facts *facts,
				       const struct manage_known *known,
				       bool *renamed)
{
	struct procinfo pi = {pid};
	const struct rule *r = &m->rules->list[rule];
	struct procinfo_state now = {0};
	unsigned long long start;
	struct manage_heir *heir;
	size_t written;
	bool changed, fresh, followed = false;

	/* An exec reported with what it was (known): followed before its
	 * threads are counted, so that a thread it starts from now on is
	 * reported, and one it started before is in the count; when the main
	 * thread is alone, its threads are not listed. */
	*renamed = false;
	if (known && (!p || p->rule != r)) {
		manage_follow_early(m, pid, r);
		followed = true;
	}
	/* Another process under the pid, whose own exec comes with its own
	 * report, or one renamed since. */
	if ((known ? !manage_known_holds(pid, known, facts, &now, renamed)
		   : procinfo_start_time(pid, 0, &now.start) != OS_OK ||
			     procinfo_pin_ended(&pin))) {
		procinfo_unpin(&pin);
		return NULL;
	}
	start = now.start;
	/* A record of an earlier process that had this pid (its exit event
	 * was lost): not this one. */
	if (p && p->start_time != start) {
		manage_forget(m, pid, false);
		p = NULL;
	}
	changed = !p || p->rule != &m->rules->list[rule];
	fresh = !p;
	if (!p) {
		heir = manage_heir_take(m, pid, start);
		p = manage_proc_new(m, pid, start, heir);
		if (heir)
			manage_heir_free(heir);
	}
	p->rule = r;
	p->generation = m->generation;
	if (changed && !followed)
		manage_follow(m, p);
	if (!(facts->have & MATCH_FACT_EXE))
		procinfo_fetch(&pi, MATCH_FACT_EXE, facts);
	snprintf(p->exe, sizeof(p->exe), "%.255s",
		 facts->have & MATCH_FACT_EXE ? facts->exe : "(no exe)");
	manage_printable(p->exe);
	prio_target_for_system(&p->rule->priority, rules_target(m->rules),
			       &p->prio);
	manage_plan(m, p, p->rule, changed);
	m->counters.matches += changed;
	/* Threads of a process seen for the first time existed before the
	 * rule, but for a child whose values came from its parent's rule.
	 * Alone counts only when it was read after the follow. */
	written = manage_apply_all(m, p, !fresh || p->have_prio,
				   now.alone && fresh && followed);
	if (procinfo_pin_ended(&pin)) {
		unsigned long long later;

		if (procinfo_start_time(pid, 0, &later) == OS_OK &&
		    later != start) {
			m->counters.pid_reuse++;
			log_warnx(
				"pid %d was reused while rule %s was applied: "
				"restored",
				(int)pid, p->rule->name);
			manage_forget(m, pid, true);
		} else {
			log_debug("pid %d exited while rule %s was applied",
				  (int)pid, p->rule->name);
			manage_forget(m, pid, false);
		}
		procinfo_unpin(&pin);
		return NULL;
	}
	procinfo_unpin(&pin);
	if (changed || p->holds_power != rules_has_power(p->rule))
		manage_hold(m, p, rules_has_power(p->rule));
	if (changed || written)
		manage_log_decision(m, p, written);
	return p;
}

/* A child that inherited a rule's values runs a program no rule matches:
 * each setting still as inherited goes back to what the parent had
 * without its rule. */
static void manage_heir_restore(struct manage *m, pid_t pid,
				const struct manage_heir *h)
{
	size_t count = 0, written = 0;
	pid_t *tids;

	if (m->options.dry_run || procinfo_threads(pid, &tids, &count) != OS_OK)
		return;
	for (size_t i = 0; i < count; i++) {
		struct prio_state now, back;
		hwloc_bitmap_t mask = hwloc_bitmap_alloc();

		if (h->have_prio &&
		    apply_prio_read(pid, tids[i], &now) == OS_OK) {
			prio_state_unwind(&now, &h->inherited, &h->original,
					  &back);
			if (!prio_state_equal(&now, &back) &&
			    apply_prio_write(pid, tids[i], &now, &back) ==
				    OS_OK)
				written++;
		}
		if (h->inherited_mask && h->original_mask &&
		    apply_place_read(pid, tids[i], mask) == OS_OK &&
		    hwloc_bitmap_isequal(mask, h->inherited_mask) &&
		    !hwloc_bitmap_isequal(mask, h->original_mask) &&
		    apply_place_write(pid, tids[i], h->original_mask) == OS_OK)
			written++;
		hwloc_bitmap_free(mask);
	}
	free(tids);
	if (written) {
		m->counters.inherited_restored++;
		log_info("pid %d: no rule matches its program; the values it "
			 "inherited from a managed parent are undone",
			 (int)pid);
	}
}

/* A rule matched on facts read without a pin: pinned, the facts are read
 * again and must match the same rule. */
static void manage_take_unpinned(struct manage *m, pid_t pid, long rule,
				 struct manage_proc *p)
{
	struct procinfo pi = {pid};
	struct procinfo_pin pin;
	struct facts facts;
	bool renamed;

	facts.have = facts.failed = 0;
	if (procinfo_pin(pid, &pin) != OS_OK)
		return;
	if (match_first(&m->index, &facts, procinfo_fetch, &pi) != rule) {
		procinfo_unpin(&pin);
		return;
	}
	manage_take(m, pid, rule, p, pin, &facts, NULL, &renamed);
}

/* pinned: the process is pinned before its facts are read (an exec the
 * filter sent, which some rule likely matches), and they are read once;
 * else they are read first, and again once pinned when a rule matches.
 * known: what the exec's report said of it (NULL: nothing), for a
 * pinned one, with its start to check it against. */
static void manage_evaluate(struct manage *m, pid_t pid, bool pinned,
			    const struct manage_known *known)
{
	struct procinfo pi = {pid};
	struct manage_proc *p = pidmap_get(&m->procs, pid);
	struct manage_heir *h;
	unsigned long long start;
	struct procinfo_pin pin;
	/* Only have/failed need clearing: a fact is read before it is used,
	 * and zeroing all 13 KiB per exec showed in profiles. */
	struct facts facts;
	long rule = -1;

	facts.have = facts.failed = 0;
	if (!pinned || (known && !known->start))
		known = NULL; /* what cannot be checked is not taken */
	if (pinned && procinfo_pin(pid, &pin) != OS_OK)
		return; /* gone: its end is on its way */
	if (known && known->comm[0]) {
		snprintf(facts.comm, sizeof(facts.comm), "%s", known->comm);
		facts.have |= MATCH_FACT_COMM;
	}
	if (m->rules)
		rule = match_first(&m->index, &facts, procinfo_fetch, &pi);
	if (rule >= 0 && pinned) {
		bool renamed;

		manage_take(m, pid, rule, p, pin, &facts, known, &renamed);
		/* Renamed since its exec: judged again by its name now. */
		if (renamed)
			manage_evaluate(m, pid, true, NULL);
		return;
	}
	if (pinned)
		procinfo_unpin(&pin);
	if (rule >= 0) {
		manage_take_unpinned(m, pid, rule, p);
		return;
	}
	if (p) {
		log_info("pid %d %s: no rule matches any more: restored",
			 (int)pid, p->exe);
		manage_forget(m, pid, true);
		return;
	}
	if (pidmap_get(&m->heirs, pid) &&
	    procinfo_start_time(pid, 0, &start) == OS_OK &&
	    (h = manage_heir_take(m, pid, start))) {
		manage_heir_restore(m, pid, h);
		manage_heir_free(h);
		manage_untrack_if_idle(m);
	}
}

/* An exec from a thread other than the main one: the kernel ends every
 * other thread (the main one too, with an exit event) and gives the
 * exec'ing thread the process's id. Its record is the one left whose
 * thread did not end. */
static void manage_exec_rekey(struct manage_proc *p)
{
	struct manage_thread moved;

	p->leader_exited = false;
	if (manage_thread_find(p, p->pid) || p->thread_count != 1)
		return;
	moved = p->threads[0];
	pidmap_remove(&p->thread_index, moved.tid);
	moved.tid = p->pid;
	p->threads[0] = moved;
	pidmap_put(&p->thread_index, p->pid, (void *)(uintptr_t)1);
}

static void manage_exec_any(struct manage *m, pid_t pid, bool pinned,
			    const struct manage_known *known)
{
	struct manage_proc *p = pidmap_get(&m->procs, pid);

	m->counters.execs++;
	if (p)
		manage_exec_rekey(p);
	manage_evaluate(m, pid, pinned, known);
}

void manage_exec(struct manage *m, pid_t pid)
{
	manage_exec_any(m, pid, false, NULL);
}

/* An exec an exec filter sent: some rule likely matches it. */
void manage_exec_sent(struct manage *m, pid_t pid)
{
	manage_exec_any(m, pid, true, NULL);
}

/* An exec an exec filter sent with what it knew of the process then: its
 * name is not read again, and the process must be the one that started
 * then. */
void manage_exec_known(struct manage *m, pid_t pid,
		       const struct manage_known *known)
{
	manage_exec_any(m, pid, true, known);
}

/* The same fork reported again (by the exec filter and by the proc
 * connector): the child's record is there, with its start time. A report
 * that comes after the child's exec makes a record its next exec finds
 * nothing to undo with: what it holds is no longer what it inherited. */
static bool manage_fork_known(struct manage *m, pid_t child)
{
	const struct manage_heir *h = pidmap_get(&m->heirs, child);
	unsigned long long start;

	return h && procinfo_start_time(child, 0, &start) == OS_OK &&
	       start == h->start_time;
}

/* A managed process (or a child of one not yet exec'd) forked: the child
 * is followed until its exec. */
void manage_fork(struct manage *m, pid_t parent, pid_t parent_tid, pid_t child)
{
	struct manage_proc *p = pidmap_get(&m->procs, parent);
	const struct manage_heir *from = pidmap_get(&m->heirs, parent);
	struct manage_thread *t;
	struct manage_heir *h;

	if (manage_fork_known(m, child))
		return;
	m->counters.forks++;
	/* A rule that only lowers: the child keeps what it inherited. */
	if ((!p && !from) || (p && !from && !manage_follows_children(p)))
		return;
	if (m->heirs.count >= MANAGE_HEIRS_MAX) {
		if (!m->heirs_capped)
			log_warnx("more than %d children of managed processes "
				  "at once: those beyond are not followed to "
				  "their exec",
				  MANAGE_HEIRS_MAX);
		m->heirs_capped = true;
		return;
	}
	h = xcalloc(1, sizeof(*h));
	if (procinfo_start_time(child, 0, &h->start_time) < 0) {
		free(h); /* gone already */
		return;
	}
	if (from) {
		h->have_prio = from->have_prio;
		h->original = from->original;
		h->inherited = from->inherited;
		manage_set_mask(&h->original_mask, from->original_mask);
		manage_set_mask(&h->inherited_mask, from->inherited_mask);
	} else if ((t = manage_thread_find(p, parent_tid)) && t->prio_done) {
		manage_thread_shared(p, t);
		h->have_prio = true;
		h->original = t->original;
		h->inherited = t->applied;
		manage_set_mask(&h->original_mask, t->original_mask);
		manage_set_mask(&h->inherited_mask, t->applied_mask);
	} else {
		h->have_prio = p->have_prio;
		h->original = p->original;
		h->inherited = p->applied;
		manage_set_mask(&h->original_mask, p->original_mask);
		manage_set_mask(&h->inherited_mask, p->applied_mask);
	}
	from = pidmap_remove(&m->heirs, child); /* a stale one */
	if (from)
		manage_heir_free((struct manage_heir *)from);
	pidmap_put(&m->heirs, child, h);
}

void manage_thread_new(struct manage *m, pid_t pid, pid_t tid, pid_t creator)
{
	struct manage_proc *p = pidmap_get(&m->procs, pid);
	size_t written = 0;

	m->counters.threads++;
	if (p && !manage_thread_find(p, tid))
		manage_apply_thread(m, p, tid, creator, true, false, &written);
}

/* A new name, user or group may change which rule matches. */
void manage_rename(struct manage *m, pid_t pid)
{
	m->counters.renames++;
	manage_evaluate(m, pid, false, NULL);
}

/* The main thread may end before the others (pthread_exit), and ends
 * first when another thread execs: only the end of the whole process
 * releases what it holds. */
void manage_exit(struct manage *m, pid_t pid, pid_t tid)
{
	struct manage_proc *p = pidmap_get(&m->procs, pid);

	if (pid == tid)
		manage_heir_drop(m, pid);
	if (!p)
		return;
	manage_thread_remove(p, tid);
	if (pid == tid) {
		m->counters.exits++;
		p->leader_exited = true;
	}
	if (p->leader_exited && procinfo_ended(pid))
		manage_forget(m, pid, false);
}

/* The last thread of the process that started at start exited: it has
 * ended, though /proc may show it a while yet; a record of another
 * process of that pid (made after the pid was reused, before this end
 * was read) stays. */
void manage_end(struct manage *m, pid_t pid, pid_t tid,
		unsigned long long start)
{
	struct manage_proc *p = pidmap_get(&m->procs, pid);
	struct manage_heir *h = pidmap_get(&m->heirs, pid);

	if (h && h->start_time == start)
		manage_heir_drop(m, pid);
	if (!p || p->start_time != start) {
		manage_exit(m, pid, tid);
		return;
	}
	m->counters.exits += !p->leader_exited;
	manage_forget(m, pid, false);
}

/* Children followed to their exec: those that ended go; one whose exec
 * went unseen (it runs another program than it forked with) is judged
 * as at its exec. */
static void manage_rescan_heirs(struct manage *m, struct pidmap *seen)
{
	pid_t *pids = NULL;
	size_t count = 0;

	for (size_t i = 0; i < m->heirs.capacity; i++) {
		pid_t pid = m->heirs.slots[i].key;
		const struct manage_heir *h = m->heirs.slots[i].value;

		if (pid && (uintptr_t)pidmap_get(seen, pid) != h->start_time) {
			pids = xreallocarray(pids, count + 1, sizeof(*pids));
			pids[count++] = pid;
		}
	}
	for (size_t i = 0; i < count; i++)
		manage_heir_free(pidmap_remove(&m->heirs, pids[i]));
	free(pids);
	manage_untrack_if_idle(m);
}

/* Every process is matched again: an exec, a rename, a move to another
 * cgroup or a change of user whose event was lost shows here. */
void manage_rescan(struct manage *m)
{
	struct pidmap seen;
	size_t count = 0;
	pid_t *pids;

	m->counters.rescans++;
	m->generation++;
	procinfo_scan_begin();
	if (procinfo_pids(&pids, &count) != OS_OK) {
		log_warn("cannot list the processes");
		procinfo_scan_end();
		return;
	}
	pidmap_init(&seen);
	for (size_t i = 0; i < count; i++) {
		struct manage_proc *p = pidmap_get(&m->procs, pids[i]);
		unsigned long long start;

		if (procinfo_start_time(pids[i], 0, &start) < 0)
			continue;
		pidmap_put(&seen, pids[i], (void *)(uintptr_t)start);
		/* A main thread that ended before its exit event reached us:
		 * the process is not to be matched again on what it lost. */
		if (p && p->start_time == start && !p->leader_exited &&
		    procinfo_zombie(pids[i]))
			p->leader_exited = true;
		if (p && (p->start_time != start ||
			  (p->leader_exited && procinfo_ended(pids[i])))) {
			manage_forget(m, pids[i], false);
			p = NULL;
		}
		if (p)
			p->generation = m->generation;
		/* Its main thread ended and no exec followed: nothing to
		 * match on, its other threads still run under the rule. */
		if (p && p->leader_exited && procinfo_zombie(pids[i])) {
			manage_apply_all(m, p, true, false);
			continue;
		}
		if (p && p->leader_exited) /* an exec whose event was lost */
			manage_exec_rekey(p);
		manage_evaluate(m, pids[i], false, NULL);
	}
	free(pids);
	procinfo_scan_end();
	manage_rescan_heirs(m, &seen);
	pidmap_free(&seen);
	/* Whatever the scan did not see has exited. */
	count = 0;
	pids = NULL;
	for (size_t i = 0; i < m->procs.capacity; i++) {
		struct manage_proc *p = m->procs.slots[i].value;

		if (m->procs.slots[i].key && p->generation != m->generation) {
			pids = xreallocarray(pids, count + 1, sizeof(*pids));
			pids[count++] = p->pid;
		}
	}
	for (size_t i = 0; i < count; i++)
		manage_forget(m, pids[i], false);
	free(pids);
}

/* A process whose main thread ended cannot be matched again (its exe and
 * name are gone from /proc): it keeps its rule by name while the new set
 * has it, and gets back what it had when the set does not. */
static void manage_keep_rule(struct manage *m, struct manage_proc *p)
{
	const struct rule *rule = rules_named(m->rules, p->rule->name);

	if (!rule) {
		log_info("pid %d %s: rule %s is gone: restored", (int)p->pid,
			 p->exe, p->rule->name);
		manage_forget(m, p->pid, true);
		return;
	}
	p->rule = rule;
	manage_follow(m, p);
	prio_target_for_system(&p->rule->priority, rules_target(m->rules),
			       &p->prio);
	manage_plan(m, p, p->rule, false);
	manage_apply_all(m, p, true, false);
	manage_hold(m, p, rules_has_power(p->rule));
}

/* A new rule set: processes already managed are matched again (and get
 * back what they had when no rule matches them now), then every other
 * process is matched afresh. */
void manage_set_rules(struct manage *m, const struct rules *rules)
{
	pid_t *pids = NULL;
	size_t count = 0;

	if (m->rules)
		match_index_free(&m->index);
	m->rules = rules;
	match_index_build(&m->index, rules);
	for (size_t i = 0; i < m->procs.capacity; i++) {
		if (!m->procs.slots[i].key)
			continue;
		pids = xreallocarray(pids, count + 1, sizeof(*pids));
		pids[count++] = m->procs.slots[i].key;
	}
	for (size_t i = 0; i < count; i++) {
		struct manage_proc *p = pidmap_get(&m->procs, pids[i]);

		if (p && procinfo_zombie(pids[i])) {
			p->leader_exited =
				true; /* its event may be on its way */
			manage_keep_rule(m, p);
			continue;
		}
		if (p)
			p->rule = NULL;
		manage_evaluate(m, pids[i], false, NULL);
		p = pidmap_get(&m->procs, pids[i]);
		if (p && !p->rule) /* went away meanwhile */
			manage_forget(m, pids[i], false);
	}
	free(pids);
	manage_rescan(m);
}
