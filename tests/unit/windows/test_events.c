/* Windows events from their two sources, without the system: the poll's
 * snapshots diffed into events, and ETW records of
 * Microsoft-Windows-Kernel-Process parsed by event id and version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "win.h"

#define SEEN_MAX 16

struct seen {
	struct events_event e[SEEN_MAX];
	size_t count;
};

static void collect(void *ctx, const struct events_event *e)
{
	struct seen *s = ctx;

	assert_true(s->count < SEEN_MAX);
	s->e[s->count++] = *e;
}

/* One entry: P(pid, parent, stamp) a process, T(pid, tid) a thread. */
struct entry {
	DWORD pid, tid, parent;
	unsigned long long stamp;
};
#define P(pid, parent, stamp)                                                  \
	{                                                                      \
		(pid), 0, (parent), (stamp)                                    \
	}
#define T(pid, tid)                                                            \
	{                                                                      \
		(pid), (tid), 0, 0                                             \
	}
#define E(kind_, pid_, tid_, parent_)                                          \
	{                                                                      \
		.kind = EVENTS_KIND_##kind_, .pid = (pid_), .tid = (tid_),     \
		.parent = (parent_)                                            \
	}

struct diff_case {
	const char *name;
	struct entry before[8], after[8];
	struct events_event want[8];
};

static const struct diff_case diff_cases[] = {
	{"nothing changed",
	 {P(4, 1, 9), T(4, 8)},
	 {T(4, 8), P(4, 1, 9)},
	 {{0}}},
	{"a new process: one exec with its parent, not its threads",
	 {P(4, 1, 9), T(4, 8)},
	 {P(4, 1, 9), T(4, 8), P(12, 4, 7), T(12, 16), T(12, 20)},
	 {E(EXEC, 12, 12, 4)}},
	{"a new thread of a process seen before",
	 {P(4, 1, 9), T(4, 8)},
	 {P(4, 1, 9), T(4, 8), T(4, 24)},
	 {E(THREAD, 4, 24, 0)}},
	{"a thread ended",
	 {P(4, 1, 9), T(4, 8), T(4, 24)},
	 {P(4, 1, 9), T(4, 8)},
	 {E(EXIT, 4, 24, 0)}},
	{"a process ended: itself (tid == pid), then its threads",
	 {P(4, 1, 9), T(4, 8), P(12, 4, 7), T(12, 16)},
	 {P(4, 1, 9), T(4, 8)},
	 {E(EXIT, 12, 12, 0), E(EXIT, 12, 16, 0)}},
	{"an id reused by another program: an exit, then an exec",
	 {P(12, 4, 7), T(12, 16)},
	 {P(12, 4, 5), T(12, 16)},
	 {E(EXIT, 12, 12, 0), E(EXEC, 12, 12, 4)}},
	{"an id reused by another parent's child",
	 {P(12, 4, 7)},
	 {P(12, 6, 7)},
	 {E(EXIT, 12, 12, 0), E(EXEC, 12, 12, 6)}},
	{"the first snapshot after none",
	 {{0}},
	 {P(4, 1, 9), T(4, 8)},
	 {E(EXEC, 4, 4, 1)}},
};

static void fill(struct events_snapshot *s, const struct entry *e)
{
	*s = (struct events_snapshot){0};
	for (size_t i = 0; i < 8 && e[i].pid; i++)
		events_snapshot_add(s, e[i].pid, e[i].tid, e[i].parent,
				    e[i].stamp);
	events_snapshot_sort(s);
}

static void test_diff_case(void **state)
{
	const struct diff_case *c = *state;
	struct events_snapshot before, after;
	struct seen seen = {0};
	size_t want = 0;

	fill(&before, c->before);
	fill(&after, c->after);
	events_diff(&before, &after, collect, &seen);
	while (want < 8 && c->want[want].pid)
		want++;
	if (seen.count != want)
		fail_msg("%s: %zu events, expected %zu", c->name, seen.count,
			 want);
	for (size_t i = 0; i < want; i++) {
		const struct events_event *g = &seen.e[i], *w = &c->want[i];

		if (g->kind != w->kind || g->pid != w->pid ||
		    g->tid != w->tid || g->parent != w->parent)
			fail_msg("%s: event %zu is kind %d pid %d tid %d "
				 "parent %d",
				 c->name, i, g->kind, g->pid, g->tid,
				 g->parent);
	}
	events_snapshot_free(&before);
	events_snapshot_free(&after);
}

struct etw_case {
	const char *name;
	unsigned id, version;
	unsigned char data[32];
	size_t len;
	bool ok;
	struct events_event want;
};

/* Little-endian UInt32s at their offsets; FILETIMEs and sequence numbers
 * between them are left 0xee, as noise. */
#define U32(v)                                                                 \
	(unsigned char)((v)&0xff), (unsigned char)(((v) >> 8) & 0xff),         \
		(unsigned char)(((v) >> 16) & 0xff),                           \
		(unsigned char)(((v) >> 24) & 0xff)
#define NOISE8 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee

static const struct etw_case etw_cases[] = {
	{"ProcessStart v0: ProcessID, CreateTime, ParentProcessID",
	 1,
	 0,
	 {U32(4660), NOISE8, U32(100), U32(1)},
	 20,
	 true,
	 E(EXEC, 4660, 4660, 100)},
	{"ProcessStart v2: the same start",
	 1,
	 2,
	 {U32(4660), NOISE8, U32(100), U32(1), U32(0)},
	 24,
	 true,
	 E(EXEC, 4660, 4660, 100)},
	{"ProcessStart v3: a sequence number before CreateTime",
	 1,
	 3,
	 {U32(4660), NOISE8, NOISE8, U32(100), NOISE8},
	 32,
	 true,
	 E(EXEC, 4660, 4660, 100)},
	{"ProcessStart cut before its parent",
	 1,
	 3,
	 {U32(4660), NOISE8, NOISE8},
	 20,
	 false,
	 {0}},
	{"ProcessStop",
	 2,
	 0,
	 {U32(4660), NOISE8},
	 12,
	 true,
	 E(EXIT, 4660, 4660, 0)},
	{"ThreadStart",
	 3,
	 1,
	 {U32(4660), U32(5000), NOISE8},
	 16,
	 true,
	 E(THREAD, 4660, 5000, 0)},
	{"ThreadStop",
	 4,
	 1,
	 {U32(4660), U32(5000)},
	 8,
	 true,
	 E(EXIT, 4660, 5000, 0)},
	{"ThreadStart without its thread", 3, 1, {U32(4660)}, 4, false, {0}},
	{"a process 0 is none", 2, 0, {U32(0)}, 4, false, {0}},
	{"an id past what pid_t holds",
	 2,
	 0,
	 {U32(0x80000000u)},
	 4,
	 false,
	 {0}},
	{"ImageLoad is not ours", 5, 0, {U32(4660), NOISE8}, 12, false, {0}},
	{"empty", 1, 0, {0}, 0, false, {0}},
};

static void test_etw_case(void **state)
{
	const struct etw_case *c = *state;
	struct events_event e;
	bool ok = events_etw_parse(c->id, c->version, c->data, c->len, &e);

	if (ok != c->ok)
		fail_msg("%s: parsed %d", c->name, ok);
	if (!ok)
		return;
	assert_int_equal(e.kind, c->want.kind);
	assert_int_equal(e.pid, c->want.pid);
	assert_int_equal(e.tid, c->want.tid);
	assert_int_equal(e.parent, c->want.parent);
}

int main(void)
{
	int failed = unit_run("diff", UNIT_TABLE(diff_cases, test_diff_case),
			      NULL, 0, NULL, NULL);

	return failed + unit_run("etw", UNIT_TABLE(etw_cases, test_etw_case),
				 NULL, 0, NULL, NULL);
}
