/* What the power tests share (test_power.c over Linux-like knobs,
 * test_winpower.c over a Windows power-scheme store, linux/test_knobs.c
 * over a fake sysfs tree): a state directory of the test's with the
 * journal in it; the holds engine opened on it and the journal replayed
 * as the next start does; wants from rule powers; a crash at a step — the
 * store and the journal as it left them — put back for the replay; and
 * the scenarios each store is put through alike. The store is each
 * test's: it says how to keep and put back its values. */
#ifndef CPUPOLICY_POWERFIX_H
#define CPUPOLICY_POWERFIX_H

#include <stdbool.h>

#include "power.h"

extern char powerfix_state[600], powerfix_journal[640];

/* cmocka's group setup and teardown: the directory, made and removed. */
int powerfix_setup(void **state);
int powerfix_teardown(void **state);
bool powerfix_journal_exists(void);
/* No journal, and the engine open on the state directory. */
void powerfix_open(struct power *pw);
/* The journal replayed: what apply_power_restore_all returns (-2: the
 * engine would not open). */
int powerfix_replay(void);
/* The journal as a crash in an earlier boot left it: its boot line
 * names another boot. */
void powerfix_journal_from_earlier_boot(void);
struct rule_power powerfix_want(void);
/* The wants of two holders (NULL: none) applied. */
void powerfix_set(struct power *pw, const struct rule_power *a,
		  const struct rule_power *b);

/* As a crash: the engine's memory let go, with everything it holds still
 * held and the journal as it is, for a replay to find. */
void powerfix_crash_now(struct power *pw);

/* A crash at step `at` of a run (-1: count the steps only): set
 * powerfix_crash_hook as the engine's step hook after powerfix_crash_arm;
 * at that step the store's keep() and the journal file are taken, and
 * powerfix_crash_restore() puts both back as the crash left them. */
struct powerfix_crash {
	int steps; /* seen in the run */
	bool kept; /* the step came */
};
extern struct powerfix_crash powerfix_crash;
void powerfix_crash_arm(int at, void (*keep)(void), void (*put_back)(void));
void powerfix_crash_hook(const char *step);
void powerfix_crash_restore(void);

/* A store as the scenarios see it: the engine opened on it with every
 * knob at its original, the name the journal gives a knob, a knob's value
 * read and set behind the engine's back, writes to a knob refused (or
 * allowed again), and its check that every knob has its original and no
 * journal is left. */
struct powerfix_store {
	void (*open)(struct power *pw);
	const char *(*path)(const char *key);
	const char *(*get)(const char *key);
	void (*set)(const char *key, const char *value);
	void (*refuse)(const char *key, bool refused);
	bool (*journal_exists)(void);
	void (*assert_originals)(void);
};

/* One full run of two holders: take several knobs, change some, give
 * everything back (the run every crash step is taken from). */
void powerfix_run_two_holders(struct power *pw);
/* Someone else sets CHANGED, one of the governors held at "performance"
 * (OTHER another, both ORIGINAL before): it is theirs from then on and
 * not restored; with reassert it is set again, and restored. */
void powerfix_someone_else(const struct powerfix_store *s, const char *changed,
			   const char *other, const char *original);
/* A restore of KEY (WANT's one knob) that fails keeps the original in the
 * journal for the next try, which restores it. */
void powerfix_failed_restore_kept(const struct powerfix_store *s,
				  const struct rule_power *want,
				  const char *key);

#endif
