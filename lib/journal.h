/* The journal of system settings the daemon changed: for each, its
 * original value and the value the daemon set, on disk (written and
 * synced) before the setting itself is written, so that a later start,
 * or "cpupolicyctl restore", can put every original back after a crash. */
#ifndef CPUPOLICY_JOURNAL_H
#define CPUPOLICY_JOURNAL_H

#include <stddef.h>

#define JOURNAL_VALUE_MAX 128

struct journal_entry {
	char *path;
	char original[JOURNAL_VALUE_MAX];
	char ours[JOURNAL_VALUE_MAX];
};

struct journal {
	char *file;
	struct journal_entry *entries;
	size_t count;
};

/* journal.c */
int journal_open(struct journal *j, const char *state_dir);
void journal_close(struct journal *j);
struct journal_entry *journal_find(struct journal *j, const char *path);
int journal_record(struct journal *j, const char *path, const char *original,
		   const char *ours);
int journal_forget(struct journal *j, const char *path);

#endif
