/* The journal of system settings the daemon changed: for each, its
 * original value and the value the daemon set, on disk (written and
 * synced) before the setting itself is written, so that a later start,
 * or "cpupolicyctl restore", can put every original back after a crash,
 * where the setting still has the daemon's value: in the same boot, or
 * in a later one for a setting that outlives a reboot. */
#ifndef CPUPOLICY_JOURNAL_H
#define CPUPOLICY_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_VALUE_MAX 128
/* The format written; see journal.c for what each version reads. */
#define JOURNAL_VERSION 2
/* A boot ID: 36 characters of a UUID. */
#define JOURNAL_BOOT_MAX 40

struct journal_entry {
	char *path;
	char original[JOURNAL_VALUE_MAX];
	char ours[JOURNAL_VALUE_MAX];
	/* While ours changes, the value set before: the setting keeps it
	 * until the write of ours is done. Empty otherwise. */
	char previous[JOURNAL_VALUE_MAX];
};

struct journal {
	char *file;
	char boot[JOURNAL_BOOT_MAX]; /* this boot's ID, written with it */
	struct journal_entry *entries;
	size_t count;
	/* journal_open refused the state directory or the file: someone
	 * other than root could have written them. */
	bool unsafe;
};

/* What a journal file says of itself, beside its settings. */
struct journal_head {
	unsigned long version; /* 1: no version line */
	char boot[JOURNAL_BOOT_MAX];
};

/* Whether the setting a journal line names outlives a reboot (os.h,
 * knobs_lasting). */
typedef bool (*journal_lasting_fn)(const char *path);

/* journal.c */
void journal_parse(struct journal *j, struct journal_head *head, char *text);
int journal_open(struct journal *j, const char *state_dir,
		 journal_lasting_fn lasting);
int journal_open_named(struct journal *j, const char *state_dir,
		       const char *name, journal_lasting_fn lasting);
void journal_close(struct journal *j);
struct journal_entry *journal_find(struct journal *j, const char *path);
bool journal_ours(const struct journal_entry *e, const char *value);
int journal_record(struct journal *j, const char *path, const char *original,
		   const char *ours);
int journal_settle(struct journal *j, const char *path);
int journal_forget(struct journal *j, const char *path);

#endif
