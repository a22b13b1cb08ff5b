/* A rule's foreground settings on the fake process table: given to every
 * thread and journaled first, a raise marked reset on fork; given back
 * thread by thread, where a thread still holds them (a thread its user
 * changed meanwhile stays theirs), to nothing where another process took
 * the pid; a realtime thread left alone; and what a killed daemon gave
 * put back at the next start (restrained_replay). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fgprio.h"
#include "procfake.h"
#include "restrained.h"

#define GAME 700

/* nice -5, I/O best-effort 0: a game's focus. */
static const struct prio_target focus = {.set_nice = true,
					 .nice = -5,
					 .io_class = RULE_IO_CLASS_BEST_EFFORT,
					 .io_level = 0};

static char journal_dir[512];

/* A journal in a directory of the test's own. */
static int fix_setup(void **state)
{
	static struct journal j;
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR")
			   : getenv("TEMP") ? getenv("TEMP")
					    : ".";

	procfake_reset();
	snprintf(journal_dir, sizeof(journal_dir), "%s/fgprio-%ld", base,
		 (long)getpid());
	files_remove_dir(journal_dir);
	if (files_make_dir(journal_dir) != OS_OK)
		return -1;
	j = (struct journal){0};
	j.file = malloc(sizeof(journal_dir) + 16);
	snprintf(j.file, sizeof(journal_dir) + 16, "%s/restraint", journal_dir);
	*state = &j;
	return 0;
}

static int fix_teardown(void **state)
{
	struct journal *j = *state;

	files_remove(j->file);
	files_remove_dir(journal_dir);
	journal_close(j);
	return 0;
}

static unsigned long long start_of(pid_t pid)
{
	return procfake_proc(pid) ? procfake_proc(pid)->start : 0;
}

static struct prio_state *prio_of(pid_t tid)
{
	return &procfake_thread(GAME, tid)->prio;
}

static void test_given_to_every_thread_and_back(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;

	procfake_start(GAME, "/usr/games/game", 3);
	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 0);
	for (pid_t tid = GAME; tid < GAME + 3; tid++) {
		assert_int_equal(prio_of(tid)->nice, -5);
		assert_int_equal(prio_of(tid)->io_level, 0);
		assert_true(prio_of(tid)->reset_on_fork);
	}
	assert_int_equal(j->count, 1);
	assert_non_null(strstr(j->entries[0].path, "/foreground/700/"));
	assert_string_equal(j->entries[0].ours, "-5 1 0 2 0 1 0 0 0 0");
	fgprio_give_back(&f, j);
	for (pid_t tid = GAME; tid < GAME + 3; tid++) {
		assert_int_equal(prio_of(tid)->nice, 0);
		assert_false(prio_of(tid)->reset_on_fork);
	}
	assert_int_equal(j->count, 0);
	assert_int_equal(f.pid, 0);
}

static void test_changed_thread_stays_theirs(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;

	procfake_start(GAME, "/usr/games/game", 2);
	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 0);
	prio_of(GAME + 1)->nice = 4;
	fgprio_give_back(&f, j);
	assert_int_equal(prio_of(GAME)->nice, 0);
	assert_int_equal(prio_of(GAME + 1)->nice, 4);
}

static void test_pid_taken_gets_nothing(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;
	unsigned writes;

	procfake_start(GAME, "/usr/games/game", 1);
	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 0);
	procfake_start(GAME, "/usr/bin/other", 1)->start = 42;
	prio_of(GAME)->nice = -5; /* as the old one's: still not ours */
	writes = procfake.writes;
	fgprio_give_back(&f, j);
	assert_int_equal(procfake.writes, writes);
	assert_int_equal(prio_of(GAME)->nice, -5);
	assert_int_equal(j->count, 0);
}

static void test_realtime_thread_left(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;

	procfake_start(GAME, "/usr/games/game", 2);
	prio_of(GAME + 1)->policy = RULE_POLICY_FIFO;
	prio_of(GAME + 1)->rt_priority = 10;
	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 0);
	assert_int_equal(prio_of(GAME)->nice, -5);
	assert_int_equal(prio_of(GAME + 1)->nice, 0);
	assert_int_equal(prio_of(GAME + 1)->policy, RULE_POLICY_FIFO);
	fgprio_give_back(&f, j);
}

static void test_gone_gives_nothing(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;

	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 -1);
	assert_non_null(why);
	assert_int_equal(j->count, 0);
	fgprio_give_back(&f, j); /* holds nothing: harmless */
}

/* A daemon killed while it held them: the next start puts them back. */
static void test_replay_after_a_crash(void **state)
{
	struct journal *j = *state;
	struct fgprio f;
	const char *why = NULL;

	procfake_start(GAME, "/usr/games/game", 2);
	assert_int_equal(fgprio_give(&f, GAME, start_of(GAME), &focus, j, &why),
			 0);
	free(f.threads); /* the crash: nothing given back */
	assert_int_equal(restrained_replay(j), 1);
	assert_int_equal(prio_of(GAME)->nice, 0);
	assert_int_equal(prio_of(GAME + 1)->nice, 0);
	assert_int_equal(j->count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_given_to_every_thread_and_back, fix_setup,
			fix_teardown),
		cmocka_unit_test_setup_teardown(
			test_changed_thread_stays_theirs, fix_setup,
			fix_teardown),
		cmocka_unit_test_setup_teardown(test_pid_taken_gets_nothing,
						fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_realtime_thread_left,
						fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_gone_gives_nothing,
						fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_replay_after_a_crash,
						fix_setup, fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
