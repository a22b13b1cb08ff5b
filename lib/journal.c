/* The journal of changed system settings: "path TAB original TAB ours"
 * lines in STATE_DIR/journal. Every change rewrites it whole through a
 * temporary file, fsync and rename, then syncs the directory: after a
 * crash it holds either the old list or the new one, never half. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void journal_add(struct journal *j, const char *path,
			const char *original, const char *ours)
{
	struct journal_entry *e;

	j->entries =
		xreallocarray(j->entries, j->count + 1, sizeof(*j->entries));
	e = &j->entries[j->count++];
	e->path = xstrdup(path);
	snprintf(e->original, sizeof(e->original), "%s", original);
	snprintf(e->ours, sizeof(e->ours), "%s", ours);
}

/* A damaged line is reported and skipped: the rest still counts. */
static void journal_parse(struct journal *j, char *text)
{
	unsigned line_no = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *original = strchr(line, '\t');
		char *ours = original ? strchr(original + 1, '\t') : NULL;

		line_no++;
		if (!ours || line[0] != '/' || strchr(ours + 1, '\t') ||
		    strlen(original + 1) - strlen(ours) >= JOURNAL_VALUE_MAX ||
		    strlen(ours + 1) >= JOURNAL_VALUE_MAX) {
			log_warnx("%s:%u: damaged journal line skipped",
				  j->file, line_no);
			continue;
		}
		*original++ = '\0';
		*ours++ = '\0';
		journal_add(j, line, original, ours);
	}
}

int journal_open(struct journal *j, const char *state_dir)
{
	char *text;
	size_t len;

	*j = (struct journal){0};
	if (journal_mkdirs(state_dir) < 0) {
		log_warn("cannot create %s", state_dir);
		return -1;
	}
	j->file = xasprintf("%s/journal", state_dir);
	if (util_read_file(j->file, JOURNAL_MAX_SIZE, &text, &len) < 0) {
		if (errno == ENOENT)
			return 0;
		log_warn("cannot read %s", j->file);
		return -1;
	}
	journal_parse(j, text);
	free(text);
	return 0;
}

void journal_close(struct journal *j)
{
	for (size_t i = 0; i < j->count; i++)
		free(j->entries[i].path);
	free(j->entries);
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
	for (size_t i = 0; i < j->count; i++)
		fprintf(f, "%s\t%s\t%s\n", j->entries[i].path,
			j->entries[i].original, j->entries[i].ours);
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

/* The original is kept from the first record; later ones update ours.
 * On failure memory is left as the disk has it, and the caller must not
 * write the setting. */
int journal_record(struct journal *j, const char *path, const char *original,
		   const char *ours)
{
	struct journal_entry *e = journal_find(j, path);
	char before[JOURNAL_VALUE_MAX];
	size_t index;

	if (e && strcmp(e->ours, ours) == 0)
		return 0;
	if (!e) {
		journal_add(j, path, original, ours);
		index = j->count - 1;
		before[0] = '\0';
	} else {
		index = (size_t)(e - j->entries);
		snprintf(before, sizeof(before), "%s", e->ours);
		snprintf(e->ours, sizeof(e->ours), "%s", ours);
	}
	if (journal_save(j) == 0)
		return 0;
	log_warn("cannot write the journal %s", j->file);
	e = &j->entries[index];
	if (before[0]) {
		snprintf(e->ours, sizeof(e->ours), "%s", before);
	} else {
		free(e->path);
		*e = j->entries[--j->count];
	}
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
