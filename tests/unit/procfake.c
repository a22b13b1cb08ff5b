/* The fake process table of tests/unit/procfake.h: it stands in for the
 * backend's procinfo.c, apply_prio.c and apply_place.c, linked as an
 * object before libcpupolicy.a by the tests that name it (UNIT_FAKE_PROCS
 * in the Makefile), so that none of those three is taken from the
 * library; never from libfix.a, where a test of the real backend would
 * take it in by their names. Its placement is a system's without a
 * cpuset to read and with nothing process-wide: the managed processes'
 * tests ask for no more. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfake.h"
#include "util.h"

struct procfake procfake;

/* Threads outside struct procfake, which tests copy by value. */
static struct procfake_thread procfake_pool[PROCFAKE_PROCS][PROCFAKE_THREADS];

void procfake_reset(void)
{
	procfake = (struct procfake){.refuse = OS_OK};
}

struct procfake_proc *procfake_proc(pid_t pid)
{
	for (size_t i = 0; i < procfake.count; i++) {
		if (procfake.procs[i].pid == pid)
			return &procfake.procs[i];
	}
	return NULL;
}

/* Found at once where procfake_start put it (tid pid + i), else looked for:
 * the cost test's thousands of threads must not make the fake the
 * quadratic part. */
struct procfake_thread *procfake_thread(pid_t pid, pid_t tid)
{
	struct procfake_proc *p = procfake_proc(pid);
	size_t at = (size_t)(tid - pid);

	if (p && tid >= pid && at < p->thread_count &&
	    p->threads[at].tid == tid)
		return &p->threads[at];
	for (size_t i = 0; p && i < p->thread_count; i++) {
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	}
	return NULL;
}

struct procfake_proc *procfake_start(pid_t pid, const char *exe, size_t threads)
{
	static unsigned long long clock = 1000;
	struct procfake_proc *p = procfake_proc(pid);

	if (!p)
		p = &procfake.procs[procfake.count++];
	assert(threads <= PROCFAKE_THREADS);
	*p = (struct procfake_proc){.pid = pid,
				    .start = ++clock,
				    .exe = exe,
				    .threads =
					    procfake_pool[p - procfake.procs]};
	/* As the kernel starts them: nice 0, SCHED_OTHER, no I/O class. */
	for (size_t i = 0; i < threads; i++)
		p->threads[p->thread_count++] = (struct procfake_thread){
			.tid = i ? pid + (pid_t)i : pid,
			.prio = {.policy = RULE_POLICY_OTHER}};
	return p;
}

void procfake_drop_thread(struct procfake_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->thread_count; i++) {
		if (p->threads[i].tid == tid) {
			p->threads[i] = p->threads[--p->thread_count];
			return;
		}
	}
}

/* The seam (os.h), as the fake system answers it. */

void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	const struct procinfo *pi = ctx;
	struct procfake_proc *p = procfake_proc(pi->pid);

	if (!p || p->zombie) {
		facts->failed |= wanted;
		return;
	}
	if (wanted & MATCH_FACT_EXE)
		snprintf(facts->exe, sizeof(facts->exe), "%s", p->exe);
	if (wanted & MATCH_FACT_EXE_FILE) {
		facts->exe_file = MATCH_FILE_SAME;
		procfake.exe_checks++;
	}
	if (wanted & MATCH_FACT_COMM) {
		snprintf(facts->comm, sizeof(facts->comm), "%s",
			 p->comm ? p->comm : strrchr(p->exe, '/') + 1);
		procfake.comm_reads++;
	}
	if (wanted & MATCH_FACT_CMDLINE)
		snprintf(facts->cmdline, sizeof(facts->cmdline), "%s", p->exe);
	if (wanted & MATCH_FACT_CREDS) {
		facts->uid = facts->gid = p->uid;
		facts->group_count = 0;
	}
	if (wanted & MATCH_FACT_CGROUP)
		facts->cgroups[0] = '\0';
	facts->have |= wanted & ~(unsigned)MATCH_FACT_PARENT_EXE &
		       ~(unsigned)MATCH_FACT_PARENT_EXE_FILE;
	facts->failed |=
		wanted & (MATCH_FACT_PARENT_EXE | MATCH_FACT_PARENT_EXE_FILE);
}

static pid_t *procfake_list(size_t *count, pid_t pid)
{
	struct procfake_proc *p = pid ? procfake_proc(pid) : NULL;
	size_t n = pid ? (p ? p->thread_count : 0) : procfake.count;
	pid_t *list = calloc(n + 1, sizeof(*list));

	for (size_t i = 0; i < n; i++)
		list[i] = pid ? p->threads[i].tid : procfake.procs[i].pid;
	*count = n;
	return list;
}

enum os_status procinfo_pids(pid_t **pids, size_t *count)
{
	*pids = procfake_list(count, 0);
	return OS_OK;
}

enum os_status procinfo_threads(pid_t pid, pid_t **tids, size_t *count)
{
	if (!procfake_proc(pid))
		return OS_GONE;
	procfake.listings++;
	*tids = procfake_list(count, pid);
	return OS_OK;
}

void procinfo_scan_begin(void)
{
}

void procinfo_scan_end(void)
{
}

enum os_status procinfo_state(pid_t pid, struct procinfo_state *state)
{
	struct procfake_proc *p = procfake_proc(pid);

	if (!p)
		return OS_GONE;
	*state = (struct procinfo_state){.start = p->start,
					 .alone = p->thread_count == 1 &&
						  !p->zombie &&
						  p->threads[0].tid == pid};
	snprintf(state->comm, sizeof(state->comm), "%s",
		 p->comm ? p->comm : strrchr(p->exe, '/') + 1);
	return OS_OK;
}

/* Its nice is its main thread's. */
enum os_status procinfo_usage(pid_t pid, struct procinfo_usage *usage)
{
	struct procfake_proc *p = procfake_proc(pid);

	if (!p || !p->thread_count)
		return OS_GONE;
	procfake.usages++;
	*usage = (struct procinfo_usage){.start = p->start,
					 .cpu_ns = p->cpu_ns,
					 .age_ns = p->age_ns,
					 .ppid = p->ppid,
					 .session = p->session,
					 .nice = p->threads[0].prio.nice};
	return OS_OK;
}

enum os_status cpugroup_of(pid_t pid, struct cpugroup *g)
{
	struct procfake_proc *p = procfake_proc(pid);
	const struct procfake_group *fg;

	*g = (struct cpugroup){.kind = CPUGROUP_NONE};
	if (!p)
		return OS_GONE;
	if (!p->group)
		return OS_OK;
	fg = &procfake.groups[p->group - 1];
	g->kind = fg->kind;
	snprintf(g->id, sizeof(g->id), "%s", fg->id);
	g->via = pid;
	g->leaf = fg->leaf;
	return OS_OK;
}

static struct procfake_group *procfake_group(const struct cpugroup *g)
{
	for (size_t i = 0; i < 4; i++) {
		if (procfake.groups[i].id &&
		    strcmp(procfake.groups[i].id, g->id) == 0)
			return &procfake.groups[i];
	}
	return NULL;
}

enum os_status cpugroup_members(const struct cpugroup *g, pid_t **pids,
				size_t *count)
{
	struct procfake_group *fg = procfake_group(g);

	*pids = xcalloc(PROCFAKE_PROCS, sizeof(**pids));
	*count = 0;
	for (size_t i = 0; fg && i < procfake.count; i++) {
		if (procfake.procs[i].group &&
		    &procfake.groups[procfake.procs[i].group - 1] == fg)
			(*pids)[(*count)++] = procfake.procs[i].pid;
	}
	return fg ? OS_OK : OS_GONE;
}

/* An autogroup is read through a member that is still in it. */
static struct procfake_group *procfake_group_via(const struct cpugroup *g)
{
	struct procfake_proc *p = procfake_proc(g->via);

	if (g->kind == CPUGROUP_AUTOGROUP &&
	    (!p || !p->group ||
	     &procfake.groups[p->group - 1] != procfake_group(g)))
		return NULL;
	return procfake_group(g);
}

enum os_status cpugroup_read(const struct cpugroup *g, long *value)
{
	struct procfake_group *fg = procfake_group_via(g);

	if (!fg)
		return OS_GONE;
	*value = fg->value;
	return OS_OK;
}

enum os_status cpugroup_write(const struct cpugroup *g, long value)
{
	struct procfake_group *fg = procfake_group_via(g);

	if (!fg)
		return OS_GONE;
	if (fg->busy) {
		fg->busy--;
		return OS_FAILED;
	}
	fg->value = value;
	fg->writes++;
	return OS_OK;
}

/* An autogroup's nice; a cgroup's weight, 100 at nice 0, 9 less a step. */
long cpugroup_value_of_nice(const struct cpugroup *g, int nice)
{
	return g->kind == CPUGROUP_AUTOGROUP ? nice : 100 - 9 * nice;
}

bool cpugroup_less(const struct cpugroup *g, long a, long b)
{
	return g->kind == CPUGROUP_AUTOGROUP ? a > b : a < b;
}

enum os_status procinfo_waited(pid_t pid, unsigned long long *ns)
{
	struct procfake_proc *p = procfake_proc(pid);

	if (!p)
		return OS_GONE;
	*ns = p->wait_ns;
	return OS_OK;
}

/* No process of the table is the test itself. */
pid_t procinfo_self(void)
{
	return 1;
}

enum os_status procinfo_start_time(pid_t pid, pid_t tid,
				   unsigned long long *start)
{
	struct procfake_proc *p = procfake_proc(pid);

	(void)tid;
	if (!p)
		return OS_GONE;
	*start = p->start;
	return OS_OK;
}

bool procinfo_zombie(pid_t pid)
{
	struct procfake_proc *p = procfake_proc(pid);

	return p && p->zombie;
}

enum os_status procinfo_thread_name(pid_t pid, pid_t tid, char *name,
				    size_t size)
{
	(void)pid;
	(void)tid;
	snprintf(name, size, "stub");
	return OS_OK;
}

/* A pin holds the start time it saw: a process with another start under
 * the same pid is another process. The pin's fields are the system's
 * (ostypes.h): what it saw is kept here, as manage.c holds one pin at a
 * time. */
static struct {
	pid_t pid;
	unsigned long long start;
} pinned;

enum os_status procinfo_pin(pid_t pid, struct procinfo_pin *pin)
{
	struct procfake_proc *p = procfake_proc(pid);

	(void)pin;
	if (!p)
		return OS_GONE;
	pinned.pid = pid;
	pinned.start = p->start;
	return OS_OK;
}

bool procinfo_pin_ended(const struct procinfo_pin *pin)
{
	struct procfake_proc *p = procfake_proc(pinned.pid);

	(void)pin;
	return !p || p->start != pinned.start;
}

void procinfo_unpin(struct procinfo_pin *pin)
{
	(void)pin;
	pinned.pid = 0;
}

bool procinfo_ended(pid_t pid)
{
	struct procfake_proc *p = procfake_proc(pid);

	return !p || !p->thread_count;
}

bool procinfo_thread_in(pid_t pid, pid_t tid)
{
	return procfake_thread(pid, tid) != NULL;
}

bool procinfo_task_exists(pid_t tid)
{
	for (size_t i = 0; i < procfake.count; i++) {
		if (procfake_thread(procfake.procs[i].pid, tid))
			return true;
	}
	return false;
}

enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state)
{
	struct procfake_thread *t = procfake_thread(pid, tid);
	struct procfake_proc *p = procfake_proc(pid);

	if (!t)
		return OS_GONE;
	procfake.reads++;
	*state = t->prio;
	if (procfake.process_wide && p->shared_set) {
		state->nice = p->shared.nice;
		state->policy = p->shared.policy;
		state->rt_priority = p->shared.rt_priority;
		state->efficiency = p->shared.efficiency;
	}
	return OS_OK;
}

enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	struct procfake_thread *t = procfake_thread(pid, tid);
	struct procfake_proc *p = procfake_proc(pid);

	(void)now;
	if (!t)
		return OS_GONE;
	if (procfake.refuse != OS_OK)
		return procfake.refuse;
	procfake.writes++;
	t->prio = *wanted;
	if (procfake.process_wide) {
		p->shared = *wanted;
		p->shared_set = true;
	}
	if (procfake.gone_on_write == tid) {
		procfake.gone_on_write = 0;
		procfake_drop_thread(p, tid);
	}
	if (procfake.reuse_on_write == pid) {
		/* The process ends; another one gets its pid at once, with
		 * the values the write left on the thread of that id. */
		struct prio_state left = t->prio;

		procfake.reuse_on_write = 0;
		procfake_start(pid, "/usr/bin/other", 1)->threads[0].prio =
			left;
	}
	return OS_OK;
}

/* As Linux's, but where the threads share the process's values (a model
 * of Windows's class): there the write is read back. */
bool apply_prio_taken(const struct prio_state *now,
		      const struct prio_state *wanted, struct prio_state *taken)
{
	if (procfake.process_wide || now->io_class != wanted->io_class ||
	    now->io_level != wanted->io_level)
		return false;
	*taken = *wanted;
	return true;
}

enum os_status apply_place_read(pid_t pid, pid_t tid, hwloc_bitmap_t set)
{
	(void)set;
	procfake.mask_reads++;
	return procfake_thread(pid, tid) ? OS_OK : OS_GONE;
}

enum os_status apply_place_write(pid_t pid, pid_t tid, hwloc_const_bitmap_t set)
{
	(void)set;
	return procfake_thread(pid, tid) ? OS_OK : OS_GONE;
}

enum os_status apply_place_allowed(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	(void)set;
	return OS_GONE;
}

enum os_status apply_place_current(pid_t pid, hwloc_bitmap_t set)
{
	return apply_place_allowed(pid, set);
}

enum os_status apply_place_process(pid_t pid, hwloc_const_bitmap_t set)
{
	(void)pid;
	(void)set;
	return OS_UNSUPPORTED;
}

enum os_status apply_place_process_read(pid_t pid, hwloc_bitmap_t set)
{
	(void)pid;
	hwloc_bitmap_zero(set);
	return OS_UNSUPPORTED;
}

hwloc_bitmap_t *apply_place_kinds(size_t *count)
{
	*count = 0;
	return NULL;
}

enum os_status apply_place_online(hwloc_bitmap_t set)
{
	(void)set;
	return OS_FAILED;
}
