/* The journal of changed system settings, STATE_DIR/journal: its format,
 * its records, and which boot and version it belongs to; OS-neutral (the
 * files, their safety and the boot ID are statefile.c's, os.h). One line
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
 * A setting is named by its knob's key (os.h), which begins with '/'.
 * Every change replaces the file whole (statefile_replace): after a crash
 * it holds either the old list or the new one, never half. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "log.h"
#include "os.h"
#include "util.h"

#define JOURNAL_MAX_SIZE (1u << 20)

/* Whoever may write the state directory decides what the journal says,
 * and so what root writes at the next start. */
static bool journal_dir_safe(const char *state_dir)
{
	char why[1024];

	switch (statefile_dir_safe(state_dir, why, sizeof(why))) {
	case OS_OK:
		return true;
	case OS_DENIED:
		log_warnx("state directory %s refused: %s, and whoever may "
			  "write there could plant a journal of settings for "
			  "root to write",
			  state_dir, why);
		return false;
	case OS_GONE:
	case OS_UNSUPPORTED:
	case OS_FAILED:
		break;
	}
	log_warn("state directory %s refused: %s", state_dir, why);
	return false;
}

/* A boot ID as the kernel prints it: hex digits and dashes. */
static bool journal_boot_ok(const char *boot)
{
	size_t len = strlen(boot);

	return len > 0 && len < JOURNAL_BOOT_MAX &&
	       strspn(boot, "0123456789abcdef-") == len;
}

static int journal_read_boot(struct journal *j)
{
	char id[2 * JOURNAL_BOOT_MAX], from[512];

	if (statefile_boot_id(id, sizeof(id), from, sizeof(from)) != OS_OK) {
		log_warn("cannot read this boot's ID from %s: the journal "
			 "could not tell this boot's settings from an earlier "
			 "one's",
			 from);
		return -1;
	}
	if (!journal_boot_ok(id)) {
		log_warnx("%s: '%s' is not a boot ID", from, id);
		return -1;
	}
	snprintf(j->boot, sizeof(j->boot), "%s", id);
	return 0;
}

/* Values come from the system's settings: no control characters,
 * bounded. */
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
static bool journal_this_boot(const struct journal *j,
			      const struct journal_head *head,
			      const struct statefile *sf)
{
	if (head->boot[0])
		return strcmp(head->boot, j->boot) == 0;
	return !sf->before_boot;
}

static int journal_save(struct journal *j);

/* Settings of another boot that a boot resets are not this boot's to
 * restore: after a power loss the machine starts with its own defaults,
 * and "restoring" them would, say, take CPUs offline that came up online
 * (Linux sysfs). Settings the system keeps on disk (Windows power
 * settings) still have the daemon's values, which nothing else would
 * ever put back: those lines stay, now this boot's, for the replay. */
static bool journal_keeps(const struct journal_entry *e,
			  journal_lasting_fn lasting)
{
	return lasting && lasting(e->path);
}

static void journal_carry_over(struct journal *j,
			       const struct journal_head *head,
			       journal_lasting_fn lasting)
{
	const char *boot = head->boot[0] ? head->boot : "not recorded";
	size_t kept = 0;

	for (size_t i = 0; i < j->count; i++)
		kept += journal_keeps(&j->entries[i], lasting);
	if (kept < j->count)
		log_warnx("%s: written in an earlier boot (boot ID %s, this "
			  "boot is %s): its %zu settings are not restored, "
			  "%s",
			  j->file, boot, j->boot, j->count - kept,
			  kept ? "as the reboot reset them"
			       : "and the journal is dropped");
	if (kept)
		log_warnx("%s: written in an earlier boot (boot ID %s, this "
			  "boot is %s): its %zu settings that outlive a "
			  "reboot are restored",
			  j->file, boot, j->boot, kept);
	kept = 0;
	for (size_t i = 0; i < j->count; i++) {
		struct journal_entry *e = &j->entries[i];

		if (journal_keeps(e, lasting)) {
			j->entries[kept++] = *e;
			continue;
		}
		log_info("%s: %s in the earlier boot's journal: not restored",
			 e->path, e->original);
		free(e->path);
	}
	j->count = kept;
	if (journal_save(j) < 0)
		log_warn("cannot rewrite the journal %s", j->file);
}

/* Reads what the file holds: 0 when there is none, -1 when it cannot be
 * used; refused as others could have written it, it is unsafe. */
static int journal_load(struct journal *j, journal_lasting_fn lasting)
{
	struct journal_head head;
	struct statefile sf;

	switch (statefile_load(j->file, JOURNAL_MAX_SIZE, &sf)) {
	case OS_OK:
		break;
	case OS_GONE:
		return 0;
	case OS_DENIED:
		log_warnx("journal %s refused: %s", j->file, sf.why);
		j->unsafe = true;
		return -1;
	case OS_UNSUPPORTED:
	case OS_FAILED:
		log_warn("%s the journal %s", sf.why, j->file);
		return -1;
	}
	journal_parse(j, &head, sf.text);
	free(sf.text);
	if (head.version > JOURNAL_VERSION) {
		log_warnx("%s: written by a newer version (journal version "
			  "%lu): left as it is, for that version",
			  j->file, head.version);
		journal_free_entries(j);
		return -1;
	}
	if (j->count && !journal_this_boot(j, &head, &sf))
		journal_carry_over(j, &head, lasting);
	return 0;
}

/* lasting: which settings outlive a reboot (NULL: none). */
int journal_open(struct journal *j, const char *state_dir,
		 journal_lasting_fn lasting)
{
	return journal_open_named(j, state_dir, "journal", lasting);
}

/* A journal of its own in the state directory (restraint's: the
 * priorities of processes, which no power setting's line names). */
int journal_open_named(struct journal *j, const char *state_dir,
		       const char *name, journal_lasting_fn lasting)
{
	*j = (struct journal){0};
	if (statefile_mkdir(state_dir) != OS_OK) {
		log_warn("cannot create %s", state_dir);
		return -1;
	}
	if (!journal_dir_safe(state_dir)) {
		j->unsafe = true;
		return -1;
	}
	j->file = xasprintf("%s/%s", state_dir, name);
	if (journal_read_boot(j) < 0)
		return -1;
	return journal_load(j, lasting);
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

/* The file's text, built up as it grows. */
struct journal_text {
	char *buf;
	size_t len, cap;
};

static void journal_append(struct journal_text *t, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 2, 3)));

static void journal_append(struct journal_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("vsnprintf");
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->buf = xreallocarray(t->buf, t->cap, 1);
	}
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static void journal_format(const struct journal *j, struct journal_text *t)
{
	journal_append(t, "version\t%d\nboot\t%s\n", JOURNAL_VERSION, j->boot);
	for (size_t i = 0; i < j->count; i++) {
		const struct journal_entry *e = &j->entries[i];

		journal_append(t, "%s\t%s\t%s\n", e->path, e->original,
			       e->ours);
		if (e->previous[0])
			journal_append(t, "previous\t%s\t%s\n", e->path,
				       e->previous);
	}
}

/* No settings left: no file, as after a clean stop. */
static int journal_save(struct journal *j)
{
	struct journal_text t = {0};
	enum os_status status;

	if (j->count == 0)
		return statefile_remove(j->file) == OS_OK ? 0 : -1;
	journal_format(j, &t);
	status = statefile_replace(j->file, t.buf, t.len);
	free(t.buf);
	return status == OS_OK ? 0 : -1;
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
