/* Power, OS-neutral: wants combined (the more performant value wins),
 * and the holds engine against a stub knob backend (os.h, knobs.c
 * answered from a table), with the real journal: take and give back,
 * only what still has our value, someone else's change yielded to or set
 * again, the backend's order, an owned want refused, a journal entry the
 * backend disowns, a write refused, a knob gone, a failed restore kept,
 * and a crash at every step followed by replay. A crash is what survives
 * it: the hook keeps the knobs' values and the journal file at that step,
 * the run goes on, and the replay starts from what was kept. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "powerfix.h"
#include "unit.h"

#include "log.h"
#include "os.h"
#include "power.h"
#include "util.h"

/* The stub system. */

enum {
	STUB_KNOBS = 8,
	STUB_WRITES = 64
};

struct stub_knob {
	const char *key;
	char value[JOURNAL_VALUE_MAX];
	bool gone;	      /* reads and writes: OS_GONE */
	bool refuse;	      /* writes: OS_DENIED */
	const char *original; /* as the test set it up */
	bool foreign;	      /* there, but not a knob the backend writes */
};

static struct stub {
	struct stub_knob knobs[STUB_KNOBS];
	size_t count;
	const char *governor_owner; /* who manages the governor */
	char writes[STUB_WRITES][JOURNAL_VALUE_MAX * 2]; /* "KEY=VALUE" */
	size_t write_count;
	int latency_handle_next;
	/* What knobs_plan was last told of /gov/a. */
	const char *held_original;
} stub;

static const struct stub_knob stub_machine[] = {
	{.key = "/gov/a", .original = "schedutil"},
	{.key = "/gov/b", .original = "schedutil"},
	{.key = "/epp", .original = "balance_power"},
	{.key = "/cpu/1/online", .original = "0"},
	{.key = "/cpu/2/online", .original = "1"},
	{.key = "/secret", .original = "theirs", .foreign = true},
	/* The other kind: kept on disk across a reboot (knobs_lasting), as
	 * a Windows power plan is. */
	{.key = "/reg/plan", .original = "balanced"},
};

static void stub_reset(void)
{
	stub = (struct stub){.latency_handle_next = 100};
	for (size_t i = 0; i < ARRAY_SIZE(stub_machine); i++) {
		stub.knobs[i] = stub_machine[i];
		snprintf(stub.knobs[i].value, JOURNAL_VALUE_MAX, "%s",
			 stub_machine[i].original);
	}
	stub.count = ARRAY_SIZE(stub_machine);
}

static struct stub_knob *stub_knob(const char *key)
{
	for (size_t i = 0; i < stub.count; i++) {
		if (strcmp(stub.knobs[i].key, key) == 0)
			return &stub.knobs[i];
	}
	return NULL;
}

static const char *value_of(const char *key)
{
	return stub_knob(key)->value;
}

static void set_value(const char *key, const char *value)
{
	snprintf(stub_knob(key)->value, JOURNAL_VALUE_MAX, "%s", value);
}

/* The seam (os.h), as the stub system answers it. */

void knobs_plan(struct knobs *kn, const struct power_want *want,
		const struct power_held *held, size_t held_count,
		struct power_plan *plan)
{
	(void)kn;
	stub.held_original = NULL;
	for (size_t i = 0; i < held_count; i++) {
		if (strcmp(held[i].key, "/gov/a") == 0)
			stub.held_original = held[i].original;
	}
	if (want->all_online) {
		power_plan_add(plan, "/cpu/1/online", "1");
		power_plan_add(plan, "/cpu/2/online", "1");
	}
	if (want->governor) {
		power_plan_add(plan, "/gov/a", want->governor);
		power_plan_add(plan, "/gov/b", want->governor);
	}
	if (want->epp)
		power_plan_add(plan, "/epp", want->epp);
	if (want->plan[0])
		power_plan_add(plan, "/reg/plan", want->plan);
}

void knobs_owned(const struct knobs *kn, struct knobs_owners *owners)
{
	(void)kn;
	*owners = (struct knobs_owners){.governor = stub.governor_owner};
}

enum os_status knobs_read(const char *key, char *value, size_t size)
{
	struct stub_knob *k = stub_knob(key);

	if (!k || k->gone) {
		errno = ENOENT;
		return OS_GONE;
	}
	snprintf(value, size, "%s", k->value);
	return OS_OK;
}

enum os_status knobs_write(const char *key, const char *value)
{
	struct stub_knob *k = stub_knob(key);

	if (!k || k->gone) {
		errno = ENOENT;
		return OS_GONE;
	}
	if (k->refuse) {
		errno = EACCES;
		return OS_DENIED;
	}
	snprintf(k->value, sizeof(k->value), "%s", value);
	if (stub.write_count < STUB_WRITES)
		snprintf(stub.writes[stub.write_count++],
			 sizeof(stub.writes[0]), "%s=%s", key, value);
	return OS_OK;
}

enum knobs_order knobs_order(const char *key)
{
	size_t len = strlen(key);

	return len > 7 && strcmp(key + len - 7, "/online") == 0
		       ? KNOBS_ORDER_LAST
		       : KNOBS_ORDER_FIRST;
}

/* Two kinds: /reg/ outlives a reboot, the rest (CPU online, governor,
 * EPP: sysfs-like) does not. */
bool knobs_lasting(const char *key)
{
	return strncmp(key, "/reg/", 5) == 0;
}

bool knobs_valid(const struct knobs *kn, const char *key, char *why,
		 size_t size)
{
	struct stub_knob *k = stub_knob(key);

	(void)kn;
	snprintf(why, size, "not a knob the stub writes");
	return k && !k->foreign;
}

void knobs_latency_hold(const struct knobs *kn, int *handle, long latency_us)
{
	(void)kn;
	(void)latency_us;
	if (*handle < 0)
		*handle = stub.latency_handle_next++;
}

void knobs_latency_release(const struct knobs *kn, int *handle)
{
	(void)kn;
	*handle = -1;
}

static void open_power(struct power *pw)
{
	stub_reset();
	powerfix_open(pw);
}

static void assert_originals(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(stub_machine); i++)
		assert_string_equal(value_of(stub_machine[i].key),
				    stub_machine[i].original);
	assert_false(powerfix_journal_exists());
}

static const char *stub_path(const char *key)
{
	return key;
}

static void stub_refuse(const char *key, bool refused)
{
	stub_knob(key)->refuse = refused;
}

static const struct powerfix_store stub_store = {
	.open = open_power,
	.path = stub_path,
	.get = value_of,
	.set = set_value,
	.refuse = stub_refuse,
	.journal_exists = powerfix_journal_exists,
	.assert_originals = assert_originals,
};

static size_t write_index(const char *write)
{
	for (size_t i = 0; i < stub.write_count; i++) {
		if (strcmp(stub.writes[i], write) == 0)
			return i;
	}
	fail_msg("never written: %s", write);
	return 0;
}

static void test_combine(void **state_)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();
	struct power_want w;

	(void)state_;
	a.governor = "powersave";
	a.epp = "power";
	a.min_online = 50;
	a.turbo = RULE_TURBO_OFF;
	a.idle_latency_us = 100;
	b.governor = "schedutil";
	b.profile = "balanced";
	b.parking = RULE_PARKING_OFF;
	b.turbo = RULE_TURBO_ON;
	power_want_init(&w);
	assert_true(power_want_empty(&w));
	power_want_add(&w, &a, 20);
	power_want_add(&w, &b, 20);
	assert_string_equal(w.governor, "schedutil");
	assert_string_equal(w.epp, "power");
	assert_string_equal(w.profile, "balanced");
	assert_true(w.all_online);
	assert_int_equal(w.min_online, 50);
	assert_int_equal(w.idle_latency_us, 20); /* parking off's cap */
	assert_int_equal(w.turbo, RULE_TURBO_ON);
}

/* Held: the journal has each original before its write; a knob that has
 * the value already is held without one. The planner is told what is
 * held. Released: every original back, no journal left. */
static void test_take_and_release(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	a.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(value_of("/gov/a"), "performance");
	assert_string_equal(value_of("/cpu/1/online"), "1");
	assert_int_equal(pw.knob_count, 4);
	assert_int_equal(pw.journal.count, 3); /* cpu2 was online */
	assert_string_equal(journal_find(&pw.journal, "/gov/a")->original,
			    "schedutil");
	assert_null(journal_find(&pw.journal, "/cpu/2/online"));
	assert_true(pw.latency_fd >= 0);
	assert_int_equal(pw.latency_us, 20);
	assert_true(powerfix_journal_exists());
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(stub.held_original, "schedutil");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	assert_int_equal(pw.knob_count, 0);
	assert_int_equal(pw.latency_fd, -1);
	apply_power_close(&pw);
}

/* Given back in the backend's order: a CPU online last. */
static void test_order(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	a.parking = RULE_PARKING_OFF;
	powerfix_set(&pw, &a, NULL);
	stub.write_count = 0;
	powerfix_set(&pw, NULL, NULL);
	assert_true(write_index("/gov/a=schedutil") <
		    write_index("/cpu/1/online=0"));
	assert_true(write_index("/gov/b=schedutil") <
		    write_index("/cpu/1/online=0"));
	apply_power_close(&pw);

	/* The same at replay. */
	open_power(&pw);
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	stub.write_count = 0;
	assert_int_equal(powerfix_replay(), 3);
	assert_true(write_index("/gov/a=schedutil") <
		    write_index("/cpu/1/online=0"));
	assert_originals();
}

/* Someone else sets a held knob: theirs from then on, not restored; with
 * reassert it is set again. */
static void test_someone_else(void **state_)
{
	(void)state_;
	powerfix_someone_else(&stub_store, "/gov/b", "/gov/a", "schedutil");
}

/* The replay leaves what someone else set since the crash. */
static void test_replay_leaves_changed(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	set_value("/gov/b", "powersave");
	assert_int_equal(powerfix_replay(), 1);
	assert_string_equal(value_of("/gov/a"), "schedutil");
	assert_string_equal(value_of("/gov/b"), "powersave");
	assert_false(powerfix_journal_exists());
}

/* A want another power manager owns is left out, the others are not;
 * once it is gone the want is taken. */
static void test_owned(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	stub.governor_owner = "tuned";
	a.governor = "performance";
	a.epp = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(value_of("/gov/a"), "schedutil");
	assert_string_equal(value_of("/epp"), "performance");
	stub.governor_owner = NULL;
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(value_of("/gov/a"), "performance");
	powerfix_set(&pw, NULL, NULL);
	assert_originals();
	apply_power_close(&pw);
}

/* A journal entry naming what the backend does not write is not
 * written, and is dropped; the rest is restored. */
static void test_replay_disowned(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;
	FILE *f;

	(void)state_;
	open_power(&pw);
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	set_value("/secret", "planted");
	f = fopen(powerfix_journal, "ab");
	assert_non_null(f);
	fputs("/secret\ttheirs\tplanted\n", f);
	assert_int_equal(fclose(f), 0);
	stub.write_count = 0;
	assert_int_equal(powerfix_replay(), 2);
	assert_string_equal(value_of("/secret"), "planted");
	assert_string_equal(value_of("/gov/a"), "schedutil");
	assert_int_equal(stub.write_count, 2);
	assert_false(powerfix_journal_exists());
}

/* A write refused: not held, nothing journaled for it. A knob gone
 * mid-hold: forgotten at release. */
static void test_refused_and_gone(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	stub_knob("/gov/b")->refuse = true;
	a.governor = "performance";
	powerfix_set(&pw, &a, NULL);
	assert_int_equal(pw.knob_count, 1);
	assert_null(journal_find(&pw.journal, "/gov/b"));
	stub_knob("/gov/a")->gone = true;
	powerfix_set(&pw, NULL, NULL);
	assert_int_equal(pw.knob_count, 0);
	assert_int_equal(pw.journal.count, 0);
	assert_false(powerfix_journal_exists());
	apply_power_close(&pw);
}

/* A restore that fails keeps the original in the journal, for the next
 * try. */
static void test_failed_restore_kept(void **state_)
{
	struct rule_power a = powerfix_want();

	(void)state_;
	a.epp = "performance";
	powerfix_failed_restore_kept(&stub_store, &a, "/epp");
}

/* A crash, then a reboot, then the next start: the setting that
 * outlives a reboot (the /reg/ kind) still has the daemon's value and
 * gets its original back; those a boot resets (a CPU the kernel brought
 * online, a governor it started with) are not written, whatever they
 * have now, and the journal is gone. */
static void test_earlier_boot(void **state_)
{
	struct rule_power a = powerfix_want();
	struct power pw;

	(void)state_;
	open_power(&pw);
	a.parking = RULE_PARKING_OFF;
	a.governor = "performance";
	snprintf(a.plan, sizeof(a.plan), "high-performance");
	powerfix_set(&pw, &a, NULL);
	assert_string_equal(value_of("/reg/plan"), "high-performance");
	assert_string_equal(value_of("/cpu/1/online"), "1");
	powerfix_crash_now(&pw);
	powerfix_journal_from_earlier_boot();
	/* The boot left every CPU online and the governor at "performance"
	 * (the daemon's values, by chance): not ours to undo. */
	stub.write_count = 0;
	assert_int_equal(powerfix_replay(), 1);
	assert_int_equal(stub.write_count, 1);
	assert_string_equal(stub.writes[0], "/reg/plan=balanced");
	assert_string_equal(value_of("/cpu/1/online"), "1");
	assert_string_equal(value_of("/gov/a"), "performance");
	assert_false(powerfix_journal_exists());
	assert_int_equal(powerfix_replay(), 0);

	/* Only volatile settings: the journal is dropped whole. */
	open_power(&pw);
	a.plan[0] = '\0';
	powerfix_set(&pw, &a, NULL);
	powerfix_crash_now(&pw);
	powerfix_journal_from_earlier_boot();
	stub.write_count = 0;
	assert_int_equal(powerfix_replay(), 0);
	assert_int_equal(stub.write_count, 0);
	assert_string_equal(value_of("/cpu/1/online"), "1");
	assert_false(powerfix_journal_exists());
}

/* What a crash at a step leaves of the knobs (the journal is the
 * fixture's to keep). */
static char crash_values[STUB_KNOBS][JOURNAL_VALUE_MAX];

static void crash_keep(void)
{
	for (size_t i = 0; i < stub.count; i++)
		snprintf(crash_values[i], JOURNAL_VALUE_MAX, "%s",
			 stub.knobs[i].value);
}

static void crash_put_back(void)
{
	for (size_t i = 0; i < stub.count; i++)
		snprintf(stub.knobs[i].value, JOURNAL_VALUE_MAX, "%s",
			 crash_values[i]);
}

/* One full run (powerfix_run_two_holders), a crash kept at step AT. */
static void crash_run(int at)
{
	struct power pw;

	open_power(&pw);
	powerfix_crash_arm(at, crash_keep, crash_put_back);
	pw.step_hook = powerfix_crash_hook;
	powerfix_run_two_holders(&pw);
	apply_power_close(&pw);
}

static void test_crash_at_each_step(void **state_)
{
	int steps, left_changed = 0;

	(void)state_;
	crash_run(-1); /* count only */
	steps = powerfix_crash.steps;
	assert_originals();
	assert_true(steps > 10);
	for (int step = 1; step <= steps; step++) {
		bool changed;

		crash_run(step);
		assert_true(powerfix_crash.kept);
		powerfix_crash_restore();
		changed = powerfix_journal_exists();
		for (size_t i = 0; i < ARRAY_SIZE(stub_machine); i++)
			changed =
				changed || strcmp(value_of(stub_machine[i].key),
						  stub_machine[i].original);
		left_changed += changed;
		assert_true(powerfix_replay() >= 0);
		assert_originals();
		assert_int_equal(powerfix_replay(), 0);
	}
	/* Most crashes leave something to restore. */
	assert_true(left_changed > steps / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_take_and_release),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_someone_else),
		cmocka_unit_test(test_replay_leaves_changed),
		cmocka_unit_test(test_owned),
		cmocka_unit_test(test_replay_disowned),
		cmocka_unit_test(test_refused_and_gone),
		cmocka_unit_test(test_failed_restore_kept),
		cmocka_unit_test(test_crash_at_each_step),
		cmocka_unit_test(test_earlier_boot),
	};

	log_init("test_power", LOG_LEVEL_ERROR);
	return unit_run("power", (struct unit_table){0}, UNIT_TESTS(tests),
			powerfix_setup, powerfix_teardown);
}
