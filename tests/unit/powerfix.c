/* The power tests' shared parts (powerfix.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "os.h"
#include "powerfix.h"
#include "util.h"

char powerfix_state[600], powerfix_journal[640];
static char powerfix_root[512];

int powerfix_setup(void **state)
{
	const char *tmp = getenv("TEMP");

	(void)state;
	/* Made through the seam, for the daemon's user alone: TEMP where
	 * the system names one (Windows), else /tmp. */
	snprintf(powerfix_root, sizeof(powerfix_root),
		 "%s/cpupolicy-power-%d-%lld", tmp && *tmp ? tmp : "/tmp",
		 (int)procinfo_self(), timing_now_ns() % 1000000000);
	if (statefile_mkdir(powerfix_root) != OS_OK)
		return -1;
	snprintf(powerfix_state, sizeof(powerfix_state), "%s/state",
		 powerfix_root);
	snprintf(powerfix_journal, sizeof(powerfix_journal), "%s/journal",
		 powerfix_state);
	return 0;
}

int powerfix_teardown(void **state)
{
	(void)state;
	unlink(powerfix_journal);
	rmdir(powerfix_state);
	rmdir(powerfix_root);
	return 0;
}

bool powerfix_journal_exists(void)
{
	return access(powerfix_journal, F_OK) == 0;
}

void powerfix_open(struct power *pw)
{
	unlink(powerfix_journal);
	assert_int_equal(apply_power_open(pw, powerfix_state), 0);
}

int powerfix_replay(void)
{
	struct power pw;
	int restored = -2;

	if (apply_power_open(&pw, powerfix_state) == 0)
		restored = apply_power_restore_all(&pw);
	apply_power_close(&pw);
	return restored;
}

void powerfix_journal_from_earlier_boot(void)
{
	char *text, *boot, *end;
	size_t len;
	FILE *f;

	assert_int_equal(files_read(powerfix_journal, 1 << 20, &text, &len),
			 OS_OK);
	boot = strstr(text, "\nboot\t");
	assert_non_null(boot);
	end = strchr(boot + 1, '\n');
	assert_non_null(end);
	f = fopen(powerfix_journal, "wb"); /* no CR LF on Windows */
	assert_non_null(f);
	fprintf(f, "%.*s\nboot\t00000000-0000-4000-8000-000000000000%s",
		(int)(boot - text), text, end);
	assert_int_equal(fclose(f), 0);
	free(text);
}

struct rule_power powerfix_want(void)
{
	return (struct rule_power){.min_online = -1, .idle_latency_us = -1};
}

void powerfix_set(struct power *pw, const struct rule_power *a,
		  const struct rule_power *b)
{
	struct power_want want;

	power_want_init(&want);
	if (a)
		power_want_add(&want, a, 20);
	if (b)
		power_want_add(&want, b, 20);
	apply_power_set(pw, &want);
}

void powerfix_crash_now(struct power *pw)
{
	for (size_t i = 0; i < pw->knob_count; i++)
		free(pw->knobs[i].path);
	free(pw->knobs);
	journal_close(&pw->journal);
}

struct powerfix_crash powerfix_crash;

static struct {
	int at; /* the step to keep; counts down */
	void (*keep)(void), (*put_back)(void);
	char *journal; /* NULL: none */
} powerfix_kept;

void powerfix_crash_arm(int at, void (*keep)(void), void (*put_back)(void))
{
	powerfix_crash = (struct powerfix_crash){0};
	free(powerfix_kept.journal);
	powerfix_kept.journal = NULL;
	powerfix_kept.at = at;
	powerfix_kept.keep = keep;
	powerfix_kept.put_back = put_back;
}

void powerfix_crash_hook(const char *step)
{
	size_t len;

	(void)step;
	powerfix_crash.steps++;
	if (--powerfix_kept.at != 0)
		return;
	powerfix_crash.kept = true;
	powerfix_kept.keep();
	if (files_read(powerfix_journal, 1 << 20, &powerfix_kept.journal,
		       &len) != OS_OK)
		powerfix_kept.journal = NULL;
}

void powerfix_crash_restore(void)
{
	FILE *f;

	powerfix_kept.put_back();
	unlink(powerfix_journal);
	if (!powerfix_kept.journal)
		return;
	f = fopen(powerfix_journal, "wb"); /* no CR LF on Windows */
	assert_non_null(f);
	fputs(powerfix_kept.journal, f);
	assert_int_equal(fclose(f), 0);
	free(powerfix_kept.journal);
	powerfix_kept.journal = NULL;
}

void powerfix_run_two_holders(struct power *pw)
{
	struct rule_power a = powerfix_want(), b = powerfix_want();

	a.governor = "performance";
	a.min_online = 60;
	b.epp = "performance";
	b.parking = RULE_PARKING_OFF;
	powerfix_set(pw, &a, NULL);
	powerfix_set(pw, &a, &b);
	a.governor = "powersave";
	powerfix_set(pw, &a, &b);
	powerfix_set(pw, &a, NULL);
	powerfix_set(pw, NULL, NULL);
}

/* Held, changed by someone else, checked by the engine (reassert or
 * not), then given back. */
static void powerfix_held_and_changed(const struct powerfix_store *s,
				      struct power *pw, const char *changed)
{
	struct rule_power a = powerfix_want();

	a.governor = "performance";
	powerfix_set(pw, &a, NULL);
	s->set(changed, "powersave");
	apply_power_check(pw);
}

void powerfix_someone_else(const struct powerfix_store *s, const char *changed,
			   const char *other, const char *original)
{
	struct power pw;

	s->open(&pw);
	powerfix_held_and_changed(s, &pw, changed);
	assert_string_equal(s->get(changed), "powersave");
	assert_null(journal_find(&pw.journal, s->path(changed)));
	assert_non_null(journal_find(&pw.journal, s->path(other)));
	powerfix_set(&pw, NULL, NULL);
	assert_string_equal(s->get(changed), "powersave");
	assert_string_equal(s->get(other), original);
	assert_int_equal(pw.journal.count, 0);
	assert_false(s->journal_exists());
	apply_power_close(&pw);

	s->open(&pw);
	pw.reassert = true;
	powerfix_held_and_changed(s, &pw, changed);
	assert_string_equal(s->get(changed), "performance");
	powerfix_set(&pw, NULL, NULL);
	assert_string_equal(s->get(changed), original);
	s->assert_originals();
	apply_power_close(&pw);
}

void powerfix_failed_restore_kept(const struct powerfix_store *s,
				  const struct rule_power *want,
				  const char *key)
{
	struct power pw;

	s->open(&pw);
	powerfix_set(&pw, want, NULL);
	assert_int_equal(pw.journal.count, 1);
	s->refuse(key, true);
	powerfix_set(&pw, NULL, NULL);
	assert_int_equal(pw.journal.count, 1);
	assert_int_equal(apply_power_restore_all(&pw), -1);
	assert_int_equal(pw.journal.count, 1);
	s->refuse(key, false);
	assert_int_equal(apply_power_restore_all(&pw), 1);
	s->assert_originals();
	apply_power_close(&pw);
}
