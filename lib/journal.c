/* The journal of changed system settings, STATE_DIR/journal, one line
 * each, fields between tabs:
 *
 *   version	2		first: the format (none in version 1)
 *   boot	BOOT_ID		the boot it was written in (from version 2)
 *   PATH	ORIGINAL	OURS	a setting: its original, the value set
 *   previous	PATH	VALUE	while OURS of PATH changes: the value set
 *				before it, which the setting keeps until
 *				the write of OURS is done
 *
 * Version 1 wrote only the setting lines; it skips the others as damaged
 * and reads the settings still. This version skips lines of a kind it
 * does not know, which a later version may add without raising the
 * version; a later version that changes what a line above means raises
 * it, and this one then leaves the file alone.
 *
 * Every change rewrites the file whole through a temporary file, fsync
 * and rename, then syncs the directory: after a crash it holds either
 * the old list or the new one, never half. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "util.h"

#define JOURNAL_MAX_SIZE (1u << 20)

static int journal_mkdirs(const char *dir)
{
	char *copy = xstrdup(dir);
	int status = 0;

	for (char *p = copy + 1; *p && status == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			status = -1;
		*p = '/';
	}
	/* Originals of system settings are nobody else's business. */
	if (status == 0 && mkdir(copy, 0700) < 0 && errno != EEXIST)
		status = -1;
	free(copy);
	return status;
}

/* Why something on the way to the journal could have been written by
 * someone other than root (or the user this runs as); NULL if it could
 * not. In a sticky directory, as /tmp, no one may rename or remove what
 * is not theirs: one is allowed above the state directory. */
static const char *journal_unsafe_why(const struct stat *st, bool last,
				      char *why, size_t size)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, size, "owned by uid %u", (unsigned)st->st_uid);
		return why;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    (last || !(st->st_mode & S_ISVTX))) {
		snprintf(why, size, "writable by group or others (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

static void journal_refuse(const char *state_dir, const char *path,
			   const char *why)
{
	log_warnx("state directory %s refused: %s is %s, and whoever may "
		  "write there could plant a journal of settings for root "
		  "to write",
		  state_dir, path, why);
}

/* One directory on the way. A symbolic link is as safe as the directory
 * that holds it; where it leads is walked as the resolved path. */
static bool journal_step_safe(const char *path, bool last,
			      const char *state_dir)
{
	struct stat st;
	char why[64];

	if (lstat(path, &st) < 0) {
		log_warn("state directory %s refused: cannot check %s",
			 state_dir, path);
		return false;
	}
	if (S_ISLNK(st.st_mode))
		return true;
	if (!S_ISDIR(st.st_mode)) {
		journal_refuse(state_dir, path, "not a directory");
		return false;
	}
	if (journal_unsafe_why(&st, last, why, sizeof(why))) {
		journal_refuse(state_dir, path, why);
		return false;
	}
	return true;
}

/* Every directory from / down to dir. */
static bool journal_walk_safe(const char *dir, const char *state_dir)
{
	char *path = xstrdup(dir);
	bool safe = journal_step_safe("/", false, state_dir);

	for (char *p = path; safe && *p;) {
		char *end;
		char saved;
		bool last;

		p += strspn(p, "/");
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		last = end[strspn(end, "/")] == '\0';
		saved = *end;
		*end = '\0';
		safe = journal_step_safe(path, last, state_dir);
		*end = saved;
		p = end;
	}
	free(path);
	return safe;
}

/* Whoever may write the state directory decides what the journal says,
 * and so what root writes at the next start: every directory on the way,
 * by the path given and by the path it resolves to, must be root's. */
static bool journal_dir_safe(const char *state_dir)
{
	char *real = realpath(state_dir, NULL);
	bool safe;

	if (!real) {
		log_warn("state directory %s refused: cannot resolve it",
			 state_dir);
		return false;
	}
	safe = journal_walk_safe(state_dir, state_dir) &&
	       (strcmp(real, state_dir) == 0 ||
		journal_walk_safe(real, state_dir));
	free(real);
	return safe;
}

/* 1: a journal to read, 0: none, -1: refused (unsafe, said). */
static int journal_file_check(struct journal *j, struct stat *st)
{
	char why[64];

	if (lstat(j->file, st) < 0) {
		if (errno == ENOENT)
			return 0;
		log_warn("cannot check the journal %s", j->file);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		log_warnx("journal %s refused: not a regular file", j->file);
		j->unsafe = true;
		return -1;
	}
	if (journal_unsafe_why(st, true, why, sizeof(why))) {
		log_warnx("journal %s refused: %s", j->file, why);
		j->unsafe = true;
		return -1;
	}
	return 1;
}

/* A boot ID as the kernel prints it: hex digits and dashes. */
static bool journal_boot_ok(const char *boot)
{
	size_t len = strlen(boot);

	return len > 0 && len < JOURNAL_BOOT_MAX &&
	       strspn(boot, "0123456789abcdef-") == len;
}

static int journal_read_boot(struct journal *j, const char *procfs)
{
	char *path = xasprintf("%s/sys/kernel/random/boot_id", procfs);
	char *text = NULL;
	size_t len;
	int status = -1;

	if (util_read_file(path, 64, &text, &len) < 0) {
		log_warn("cannot read this boot's ID from %s: the journal "
			 "could not tell this boot's settings from an earlier "
			 "one's",
			 path);
	} else {
		text[strcspn(text, "\n")] = '\0';
		if (!journal_boot_ok(text)) {
			log_warnx("%s: '%s' is not a boot ID", path, text);
		} else {
			snprintf(j->boot, sizeof(j->boot), "%s", text);
			status = 0;
		}
	}
	free(text);
	free(path);
	return status;
}

/* Values come from sysfs: no control characters, bounded. */
static bool journal_value_ok(const char *value)
{
	size_t len = strlen(value);

	if (len >= JOURNAL_VALUE_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

static void journal_add(struct journal *j, const char *path,
			const char *original, const char *ours)
{
	struct journal_entry *e;

	j->entries =
		xreallocarray(j->entries, j->count + 1, sizeof(*j->entries));
	e = &j->entries[j->count++];
	*e = (struct journal_entry){.path = xstrdup(path)};
	snprintf(e->original, sizeof(e->original), "%s", original);
	snprintf(e->ours, sizeof(e->ours), "%s", ours);
}

/* Splits a line at its tabs: the number of fields, at most max + 1
 * (one more than max says there were too many). */
static size_t journal_fields(char *line, char **field, size_t max)
{
	size_t n = 0;

	for (char *p = line; p; n++) {
		char *tab = strchr(p, '\t');

		if (n == max)
			return max + 1;
		field[n] = p;
		if (tab)
			*tab++ = '\0';
		p = tab;
	}
	return n;
}

/* 0: understood, -1: damaged, 1: of a kind this version does not know. */
static int journal_parse_line(struct journal *j, struct journal_head *head,
			      char *line, unsigned line_no)
{
	char *f[3];
	size_t n = journal_fields(line, f, 3);
	struct journal_entry *e;

	if (n == 2 && strcmp(f[0], "version") == 0 && line_no == 1) {
		char *end;
		unsigned long v = strtoul(f[1], &end, 10);

		if (!isdigit((unsigned char)f[1][0]) || *end || v < 2)
			return -1;
		head->version = v;
		return 0;
	}
	if (n == 2 && strcmp(f[0], "boot") == 0) {
		if (!journal_boot_ok(f[1]))
			return -1;
		snprintf(head->boot, sizeof(head->boot), "%s", f[1]);
		return 0;
	}
	if (n == 3 && f[0][0] == '/') {
		if (journal_find(j, f[0]) || !journal_value_ok(f[1]) ||
		    !journal_value_ok(f[2]))
			return -1;
		journal_add(j, f[0], f[1], f[2]);
		return 0;
	}
	if (n == 3 && strcmp(f[0], "previous") == 0) {
		e = journal_find(j, f[1]);
		if (!e || !journal_value_ok(f[2]))
			return -1;
		snprintf(e->previous, sizeof(e->previous), "%s", f[2]);
		return 0;
	}
	return f[0][0] == '/' || head->version < 2 ? -1 : 1;
}

/* A damaged line is reported and skipped: the rest still counts. The
 * text is hostile input like any file others might have written. */
void journal_parse(struct journal *j, struct journal_head *head, char *text)
{
	unsigned line_no = 0;
	char *save = NULL;

	*head = (struct journal_head){.version = 1};
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int kind = journal_parse_line(j, head, line, ++line_no);

		if (kind < 0)
			log_warnx("%s:%u: damaged journal line skipped",
				  j->file, line_no);
		else if (kind > 0)
			log_warnx("%s:%u: journal line of a kind this version "
				  "does not know skipped",
				  j->file, line_no);
	}
}

static void journal_free_entries(struct journal *j)
{
	for (size_t i = 0; i < j->count; i++)
		free(j->entries[i].path);
	free(j->entries);
	j->entries = NULL;
	j->count = 0;
}

/* A journal without a boot ID (version 1) by its time: last written
 * before this boot began, it is an earlier boot's. A clock set forward
 * since the boot can make a journal of this boot look older: it is then
 * dropped, which leaves settings as held rather than restoring them in
 * another boot. */
static bool journal_before_boot(const struct stat *st)
{
	struct timespec now, up;
	time_t boot;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &up) < 0)
		return true;
	boot = now.tv_sec - up.tv_sec;
	return st->st_mtim.tv_sec < boot;
}

static bool journal_this_boot(const struct journal *j,
			      const struct journal_head *head,
			      const struct stat *st)
{
	if (head->boot[0])
		return strcmp(head->boot, j->boot) == 0;
	return !journal_before_boot(st);
}

static int journal_save(struct journal *j);

/* Settings of another boot are not this boot's to restore: after a
 * power loss the machine starts with its own defaults, and "restoring"
 * the journal would, say, take CPUs offline that came up online. */
static void journal_drop_other_boot(struct journal *j,
				    const struct journal_head *head)
{
	log_warnx("%s: written in an earlier boot (boot ID %s, this boot is "
		  "%s): its %zu settings are not restored, and the journal "
		  "is dropped",
		  j->file, head->boot[0] ? head->boot : "not recorded", j->boot,
		  j->count);
	for (size_t i = 0; i < j->count; i++)
		log_info("%s: %s in the earlier boot's journal: not restored",
			 j->entries[i].path, j->entries[i].original);
	journal_free_entries(j);
	if (journal_save(j) < 0)
		log_warn("cannot remove the journal %s", j->file);
}

/* Reads what the file holds; -1 when it cannot be used. */
static int journal_load(struct journal *j, const struct stat *st)
{
	struct journal_head head;
	char *text;
	size_t len;

	if (util_read_file(j->file, JOURNAL_MAX_SIZE, &text, &len) < 0) {
		log_warn("cannot read %s", j->file);
		return -1;
	}
	journal_parse(j, &head, text);
	free(text);
	if (head.version > JOURNAL_VERSION) {
		log_warnx("%s: written by a newer version (journal version "
			  "%lu): left as it is, for that version",
			  j->file, head.version);
		journal_free_entries(j);
		return -1;
	}
	if (j->count && !journal_this_boot(j, &head, st))
		journal_drop_other_boot(j, &head);
	return 0;
}

int journal_open(struct journal *j, const char *state_dir, const char *procfs)
{
	struct stat st;
	int found;

	*j = (struct journal){0};
	if (journal_mkdirs(state_dir) < 0) {
		log_warn("cannot create %s", state_dir);
		return -1;
	}
	if (!journal_dir_safe(state_dir)) {
		j->unsafe = true;
		return -1;
	}
	j->file = xasprintf("%s/journal", state_dir);
	if (journal_read_boot(j, procfs) < 0)
		return -1;
	found = journal_file_check(j, &st);
	if (found <= 0)
		return found;
	return journal_load(j, &st);
}

void journal_close(struct journal *j)
{
	journal_free_entries(j);
	free(j->file);
	*j = (struct journal){0};
}

struct journal_entry *journal_find(struct journal *j, const char *path)
{
	for (size_t i = 0; i < j->count; i++) {
		if (strcmp(j->entries[i].path, path) == 0)
			return &j->entries[i];
	}
	return NULL;
}

/* Whether a setting's value is one the daemon set there. */
bool journal_ours(const struct journal_entry *e, const char *value)
{
	return strcmp(value, e->ours) == 0 ||
	       (e->previous[0] && strcmp(value, e->previous) == 0);
}

static int journal_sync_dir(const char *file)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');
	int fd, status;

	if (slash)
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	status = fd < 0 || fsync(fd) < 0 ? -1 : 0;
	if (fd >= 0)
		close(fd);
	free(dir);
	return status;
}

static void journal_write(const struct journal *j, FILE *f)
{
	fprintf(f, "version\t%d\nboot\t%s\n", JOURNAL_VERSION, j->boot);
	for (size_t i = 0; i < j->count; i++) {
		const struct journal_entry *e = &j->entries[i];

		fprintf(f, "%s\t%s\t%s\n", e->path, e->original, e->ours);
		if (e->previous[0])
			fprintf(f, "previous\t%s\t%s\n", e->path, e->previous);
	}
}

static int journal_save(struct journal *j)
{
	char *tmp = xasprintf("%s.new", j->file);
	FILE *f;
	int status = 0;

	if (j->count == 0) {
		if (unlink(j->file) < 0 && errno != ENOENT)
			status = -1;
		free(tmp);
		return status == 0 ? journal_sync_dir(j->file) : -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		free(tmp);
		return -1;
	}
	journal_write(j, f);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		status = -1;
	if (fclose(f) != 0)
		status = -1;
	if (status == 0 && rename(tmp, j->file) < 0)
		status = -1;
	if (status < 0)
		unlink(tmp);
	free(tmp);
	return status == 0 ? journal_sync_dir(j->file) : -1;
}

/* The original is kept from the first record; later ones update ours,
 * and keep the value set before as previous until journal_settle. On
 * failure memory is left as the disk has it, and the caller must not
 * write the setting. */
int journal_record(struct journal *j, const char *path, const char *original,
		   const char *ours)
{
	struct journal_entry *e = journal_find(j, path);
	struct journal_entry before = {0};
	bool existed = e != NULL;
	size_t index;

	if (e && strcmp(e->ours, ours) == 0)
		return 0;
	if (!existed) {
		journal_add(j, path, original, ours);
		index = j->count - 1;
	} else {
		index = (size_t)(e - j->entries);
		before = *e;
		snprintf(e->previous, sizeof(e->previous), "%s", e->ours);
		snprintf(e->ours, sizeof(e->ours), "%s", ours);
	}
	if (journal_save(j) == 0)
		return 0;
	log_warn("cannot write the journal %s", j->file);
	e = &j->entries[index];
	if (existed) {
		*e = before;
	} else {
		free(e->path);
		*e = j->entries[--j->count];
	}
	return -1;
}

/* The write of ours is done: the setting no longer has the previous
 * value, and finding it there later means someone else put it back. */
int journal_settle(struct journal *j, const char *path)
{
	struct journal_entry *e = journal_find(j, path);
	char previous[JOURNAL_VALUE_MAX];

	if (!e || !e->previous[0])
		return 0;
	snprintf(previous, sizeof(previous), "%s", e->previous);
	e->previous[0] = '\0';
	if (journal_save(j) == 0)
		return 0;
	log_warn("cannot write the journal %s", j->file);
	snprintf(e->previous, sizeof(e->previous), "%s", previous);
	return -1;
}

int journal_forget(struct journal *j, const char *path)
{
	struct journal_entry *e = journal_find(j, path);

	if (!e)
		return 0;
	free(e->path);
	*e = j->entries[--j->count];
	if (journal_save(j) < 0) {
		log_warn("cannot write the journal %s", j->file);
		return -1;
	}
	return 0;
}
