/* The managed processes: what each matched, what was applied to each of
 * its threads, and the reactions to process events, rescans and reloads.
 *
 * Identity: a pid is only a name. A process is matched on facts read
 * cheaply; only when a rule matches is it pinned with a pidfd, its facts
 * read again and matched again, and the pidfd checked after applying: a
 * process that died meanwhile may have lent its pid to another, whose
 * threads then get back what they had. Threads are checked to still
 * belong to their process (tgkill with signal 0) around each write. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "manage.h"
#include "procinfo.h"
#include "util.h"

void manage_init(struct manage *m, const struct manage_options *options,
		 struct place_topology *topology)
{
	*m = (struct manage){.options = *options, .topology = topology};
	pidmap_init(&m->procs);
	pidmap_init(&m->ignored);
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
	place_plan_free(&p->place);
	free(p);
}

void manage_free(struct manage *m)
{
	for (size_t i = 0; i < m->procs.capacity; i++) {
		if (m->procs.slots[i].key)
			manage_proc_free(m->procs.slots[i].value);
	}
	pidmap_free(&m->procs);
	pidmap_free(&m->ignored);
	if (m->rules)
		match_index_free(&m->index);
}

const struct manage_proc *manage_find(const struct manage *m, pid_t pid)
{
	return pidmap_get(&m->procs, pid);
}

/* Does tid (still) belong to pid? EPERM: it does, we may not signal it. */
static bool manage_tid_in(pid_t pid, pid_t tid)
{
	return syscall(SYS_tgkill, pid, tid, 0) == 0 || errno == EPERM;
}

static bool manage_task_exists(pid_t tid)
{
	return kill(tid, 0) == 0 || errno == EPERM;
}

static bool manage_gone(int error)
{
	return error == ESRCH || error == ENOENT;
}

static struct manage_thread *manage_thread_find(struct manage_proc *p,
						pid_t tid)
{
	for (size_t i = 0; i < p->thread_count; i++) {
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	}
	return NULL;
}

static struct manage_thread *manage_thread_add(struct manage_proc *p, pid_t tid)
{
	struct manage_thread *t;

	if (p->thread_count == p->thread_capacity) {
		p->thread_capacity =
			p->thread_capacity ? p->thread_capacity * 2 : 4;
		p->threads = xreallocarray(p->threads, p->thread_capacity,
					   sizeof(*p->threads));
	}
	t = &p->threads[p->thread_count++];
	*t = (struct manage_thread){.tid = tid, .slot = (int)p->next_slot++};
	return t;
}

static void manage_thread_remove(struct manage_proc *p, pid_t tid)
{
	struct manage_thread *t = manage_thread_find(p, tid);

	if (!t)
		return;
	manage_thread_clear(t);
	*t = p->threads[--p->thread_count];
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

static void manage_failed(struct manage *m, struct manage_proc *p, pid_t tid,
			  const char *what)
{
	if (manage_gone(errno)) {
		log_debug("pid %d tid %d exited while %s was applied",
			  (int)p->pid, (int)tid, what);
		return;
	}
	m->counters.failures++;
	log_warn("pid %d tid %d (%s): cannot set %s of rule %s", (int)p->pid,
		 (int)tid, p->exe, what, p->rule->name);
}

/* Returns 1 when written, 0 when nothing was needed, -1 on failure.
 * What the rule sets is laid over the thread's original values, so that
 * after a switch of rules nothing of the old rule stays behind. In a dry
 * run the thread's values are recorded as they are. */
static int manage_apply_prio(struct manage *m, struct manage_proc *p,
			     struct manage_thread *t)
{
	struct prio_state now, wanted;

	if (t->left_alone || (prio_target_empty(&p->prio) && !t->prio_done))
		return 0;
	if (apply_prio_read(t->tid, &now) < 0) {
		manage_failed(m, p, t->tid, "priority");
		return -1;
	}
	if (!t->prio_done)
		t->original = now;
	else if (!prio_state_equal(&now, &t->applied) &&
		 manage_respect(m, p, t, "priority"))
		return 0;
	prio_expected(&p->prio, &t->original, &wanted);
	t->prio_done = !prio_target_empty(&p->prio);
	t->applied = m->options.dry_run ? now : wanted;
	if (prio_state_equal(&now, &wanted) || m->options.dry_run)
		return 0;
	if (apply_prio_write(t->tid, &now, &wanted) < 0) {
		manage_failed(m, p, t->tid, "priority");
		return -1;
	}
	return 1;
}

static void manage_set_mask(hwloc_bitmap_t *slot, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_free(*slot);
	*slot = set ? hwloc_bitmap_dup(set) : NULL;
}

static int manage_apply_place(struct manage *m, struct manage_proc *p,
			      struct manage_thread *t)
{
	hwloc_const_bitmap_t wanted;
	hwloc_bitmap_t now;
	int status = 0;

	if (t->left_alone || (!p->place.active && !t->place_done))
		return 0;
	now = hwloc_bitmap_alloc();
	if (apply_place_read(t->tid, now) < 0) {
		manage_failed(m, p, t->tid, "placement");
		hwloc_bitmap_free(now);
		return -1;
	}
	if (!t->place_done) {
		manage_set_mask(&t->original_mask, now);
	} else if (!hwloc_bitmap_isequal(now, t->applied_mask) &&
		   manage_respect(m, p, t, "placement")) {
		hwloc_bitmap_free(now);
		return 0;
	}
	/* A rule that places nothing any more: the original comes back. */
	wanted = p->place.active ? place_plan_thread(&p->place, t->slot)
				 : t->original_mask;
	t->place_done = p->place.active;
	manage_set_mask(&t->applied_mask, m->options.dry_run ? now : wanted);
	if (!hwloc_bitmap_isequal(now, wanted) && !m->options.dry_run) {
		status = apply_place_write(t->tid, wanted) < 0 ? -1 : 1;
		if (status < 0)
			manage_failed(m, p, t->tid, "placement");
	}
	hwloc_bitmap_free(now);
	return status;
}

/* Puts back what a thread had, where it still holds what we set. */
static void manage_restore_thread(struct manage *m, struct manage_thread *t)
{
	struct prio_state now;
	hwloc_bitmap_t mask;

	if (m->options.dry_run)
		return;
	if (t->prio_done && !t->left_alone &&
	    apply_prio_read(t->tid, &now) == 0 &&
	    prio_state_equal(&now, &t->applied))
		apply_prio_write(t->tid, &now, &t->original);
	if (t->place_done && !t->left_alone && t->original_mask) {
		mask = hwloc_bitmap_alloc();
		if (apply_place_read(t->tid, mask) == 0 &&
		    hwloc_bitmap_isequal(mask, t->applied_mask))
			apply_place_write(t->tid, t->original_mask);
		hwloc_bitmap_free(mask);
	}
}

static void manage_apply_thread(struct manage *m, struct manage_proc *p,
				pid_t tid, size_t *written)
{
	struct manage_thread *t = manage_thread_find(p, tid);
	int prio, place;

	if (!t)
		t = manage_thread_add(p, tid);
	if (!manage_tid_in(p->pid, tid)) {
		manage_thread_remove(p, tid);
		return;
	}
	prio = manage_apply_prio(m, p, t);
	place = manage_apply_place(m, p, t);
	if (prio <= 0 && place <= 0)
		return;
	m->counters.applies++;
	(*written)++;
	/* Gone during the writes: its tid may now name another task, which
	 * must not keep our settings. */
	if (manage_tid_in(p->pid, tid))
		return;
	if (manage_task_exists(tid)) {
		m->counters.pid_reuse++;
		log_warnx("tid %d was reused while rule %s was applied: "
			  "restored",
			  (int)tid, p->rule->name);
		manage_restore_thread(m, t);
	}
	manage_thread_remove(p, tid);
}

static size_t manage_apply_all(struct manage *m, struct manage_proc *p)
{
	size_t count = 0, written = 0;
	pid_t *tids;

	if (procinfo_threads(m->options.procfs, p->pid, &tids, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++)
		manage_apply_thread(m, p, tids[i], &written);
	free(tids);
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
		manage_restore_thread(m, &p->threads[i]);
	manage_proc_free(p);
	if (!m->procs.count)
		manage_tracking(m, false);
}

static bool manage_pidfd_exited(int pidfd)
{
	struct pollfd pfd = {.fd = pidfd, .events = POLLIN};

	return poll(&pfd, 1, 0) > 0;
}

static int manage_plan(struct manage *m, struct manage_proc *p,
		       const struct rule *rule, bool say)
{
	hwloc_bitmap_t allowed;
	char why[128];
	int status;

	place_plan_free(&p->place);
	if (!m->topology || !rules_places(rule))
		return 0;
	allowed = hwloc_bitmap_alloc();
	if (apply_place_allowed(m->options.procfs, m->options.sysfs, p->pid,
				allowed) < 0)
		hwloc_bitmap_copy(allowed, m->topology->all);
	status = place_plan_make(m->topology, &rule->placement, allowed,
				 &p->place, why, sizeof(why));
	if (status < 0 && say)
		log_info("pid %d %s: rule %s: placement not applied: %s",
			 (int)p->pid, p->exe, rule->name, why);
	hwloc_bitmap_free(allowed);
	return 0;
}

/* Match again on facts read after the pidfd pinned the process, and apply.
 * Returns the record, or NULL when the process went away. */
static struct manage_proc *manage_take(struct manage *m, pid_t pid, long rule,
				       struct manage_proc *p)
{
	struct procinfo pi = {m->options.procfs, pid};
	/* Only have/failed need clearing: a fact is read before it is used,
	 * and zeroing all 13 KiB per exec showed in profiles. */
	struct facts facts;
	unsigned long long start;
	size_t written;
	bool changed;
	int pidfd = pidfd_open(pid, 0);

	facts.have = facts.failed = 0;
	if (pidfd < 0)
		return NULL;
	if (match_first(&m->index, &facts, procinfo_fetch, &pi) != rule ||
	    procinfo_start_time(m->options.procfs, pid, 0, &start) < 0 ||
	    manage_pidfd_exited(pidfd)) {
		close(pidfd);
		return NULL;
	}
	/* A record of an earlier process that had this pid (its exit event
	 * was lost): not this one. */
	if (p && p->start_time != start) {
		manage_forget(m, pid, false);
		p = NULL;
	}
	changed = !p || p->rule != &m->rules->list[rule];
	if (!p) {
		/* Thread events first, so that no thread created from here
		 * on goes unseen. */
		if (!m->procs.count)
			manage_tracking(m, true);
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->start_time = start;
		pidmap_put(&m->procs, pid, p);
	}
	p->rule = &m->rules->list[rule];
	p->generation = m->generation;
	if (!(facts.have & MATCH_FACT_EXE))
		procinfo_fetch(&pi, MATCH_FACT_EXE, &facts);
	snprintf(p->exe, sizeof(p->exe), "%.255s",
		 facts.have & MATCH_FACT_EXE ? facts.exe : "(no exe)");
	manage_printable(p->exe);
	prio_target_from_rule(&p->rule->priority, &p->prio);
	manage_plan(m, p, p->rule, changed);
	m->counters.matches += changed;
	written = manage_apply_all(m, p);
	if (manage_pidfd_exited(pidfd)) {
		unsigned long long now;

		if (procinfo_start_time(m->options.procfs, pid, 0, &now) == 0 &&
		    now != start) {
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
		close(pidfd);
		return NULL;
	}
	close(pidfd);
	manage_hold(m, p, rules_has_power(p->rule));
	if (changed || written)
		manage_log_decision(m, p, written);
	return p;
}

static void manage_evaluate(struct manage *m, pid_t pid, bool rescan,
			    unsigned long long start)
{
	struct procinfo pi = {m->options.procfs, pid};
	struct manage_proc *p = pidmap_get(&m->procs, pid);
	struct facts facts;
	long rule = -1;

	facts.have = facts.failed = 0;
	if (m->rules)
		rule = match_first(&m->index, &facts, procinfo_fetch, &pi);
	if (rule < 0) {
		if (p) {
			log_info("pid %d %s: no rule matches any more: "
				 "restored",
				 (int)pid, p->exe);
			manage_forget(m, pid, true);
		}
		if (rescan)
			pidmap_put(&m->ignored, pid, (void *)(uintptr_t)start);
		return;
	}
	manage_take(m, pid, rule, p);
}

void manage_exec(struct manage *m, pid_t pid)
{
	m->counters.execs++;
	pidmap_remove(&m->ignored, pid);
	manage_evaluate(m, pid, false, 0);
}

void manage_thread_new(struct manage *m, pid_t pid, pid_t tid)
{
	struct manage_proc *p = pidmap_get(&m->procs, pid);
	size_t written = 0;

	m->counters.threads++;
	if (p && !manage_thread_find(p, tid))
		manage_apply_thread(m, p, tid, &written);
}

/* A new name, user or group may change which rule matches. */
void manage_rename(struct manage *m, pid_t pid)
{
	m->counters.renames++;
	pidmap_remove(&m->ignored, pid);
	manage_evaluate(m, pid, false, 0);
}

void manage_exit(struct manage *m, pid_t pid, pid_t tid)
{
	struct manage_proc *p;

	if (pid != tid) {
		p = pidmap_get(&m->procs, pid);
		if (p)
			manage_thread_remove(p, tid);
		return;
	}
	m->counters.exits++;
	pidmap_remove(&m->ignored, pid);
	manage_forget(m, pid, false);
}

/* Threads the events did not tell us about, and threads someone else
 * changed (left alone, or set again if the config says so). */
static void manage_sync_threads(struct manage *m, struct manage_proc *p)
{
	size_t count = 0, written = 0;
	pid_t *tids;

	if (procinfo_threads(m->options.procfs, p->pid, &tids, &count) < 0)
		return;
	for (size_t i = 0; i < p->thread_count;) {
		bool live = false;

		for (size_t k = 0; k < count && !live; k++)
			live = tids[k] == p->threads[i].tid;
		if (live) {
			i++;
			continue;
		}
		manage_thread_clear(&p->threads[i]);
		p->threads[i] = p->threads[--p->thread_count];
	}
	for (size_t i = 0; i < count; i++)
		manage_apply_thread(m, p, tids[i], &written);
	free(tids);
	if (written)
		log_info("pid %d %s: rule %s: %zu threads set on rescan",
			 (int)p->pid, p->exe, p->rule->name, written);
}

void manage_rescan(struct manage *m)
{
	struct pidmap seen_ignored = m->ignored;
	size_t count = 0;
	pid_t *pids;

	m->counters.rescans++;
	m->generation++;
	pidmap_init(&m->ignored);
	if (procinfo_pids(m->options.procfs, &pids, &count) < 0) {
		log_warn("cannot list %s", m->options.procfs);
		m->ignored = seen_ignored;
		return;
	}
	for (size_t i = 0; i < count; i++) {
		struct manage_proc *p = pidmap_get(&m->procs, pids[i]);
		unsigned long long start;

		if (procinfo_start_time(m->options.procfs, pids[i], 0, &start) <
		    0)
			continue;
		if (p && p->start_time != start) {
			manage_forget(m, pids[i], false);
			p = NULL;
		}
		if (p && m->options.polling) {
			/* No exec events: the program may have changed. */
			p->generation = m->generation;
			manage_evaluate(m, pids[i], true, start);
		} else if (p) {
			p->generation = m->generation;
			manage_sync_threads(m, p);
		} else if (!m->options.polling &&
			   (uintptr_t)pidmap_get(&seen_ignored, pids[i]) ==
				   start) {
			pidmap_put(&m->ignored, pids[i],
				   (void *)(uintptr_t)start);
		} else {
			manage_evaluate(m, pids[i], true, start);
		}
	}
	free(pids);
	pidmap_free(&seen_ignored);
	/* Whatever the scan did not see has exited. */
	count = 0;
	for (size_t i = 0; i < m->procs.capacity; i++) {
		struct manage_proc *p = m->procs.slots[i].value;

		if (m->procs.slots[i].key && p->generation != m->generation) {
			pids = xreallocarray(count ? pids : NULL, count + 1,
					     sizeof(*pids));
			pids[count++] = p->pid;
		}
	}
	for (size_t i = 0; i < count; i++)
		manage_forget(m, pids[i], false);
	if (count)
		free(pids);
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

		if (p)
			p->rule = NULL;
		manage_evaluate(m, pids[i], false, 0);
		p = pidmap_get(&m->procs, pids[i]);
		if (p && !p->rule) /* went away meanwhile */
			manage_forget(m, pids[i], false);
	}
	free(pids);
	pidmap_free(&m->ignored);
	pidmap_init(&m->ignored);
	manage_rescan(m);
}
