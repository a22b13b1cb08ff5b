/* The directories of the rules' literal exes, watched with inotify for a
 * file put in place under one of their names: an upgrade renames a new
 * file (a new inode) over the old one, and the exec filter's key must
 * follow at once, not at its next periodic look. Part of the exec filter
 * (execfilter.c), which re-stats the paths reported here; the periodic
 * look stays for what no event of these directories shows (a directory
 * above replaced, a bind mount). The paths have their links resolved
 * (as /proc/PID/exe has, which they must equal to match). No capability
 * is needed: only read access to the directory, which root keeps as
 * their owner. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "linux.h"
#include "log.h"
#include "pidmap.h"
#include "strmap.h"
#include "util.h"

/* What can put another file under a name, or take it away: an inode
 * changes by nothing else (a write in place or a chmod keeps it). The
 * directory's own end or move loses its watch. */
#define EXECWATCH_MASK                                                         \
	(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |                 \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Reads of the queue per wakeup, at most: a flood of events in a
 * directory others may write waits for the next one. */
#define EXECWATCH_READS 64

/* The path is the caller's (execwatch_set): with 20,000 literal exes,
 * copies of their directories and names were 2 MiB of the daemon. 40
 * bytes: a path is shorter than PATH_MAX, the caller's count than 2^31. */
struct execwatch_entry {
	const char *path_text;
	char *key;	  /* "wd/name" while its directory is watched */
	unsigned dir_len; /* its directory: path_text[0, dir_len), "/" if 0 */
	int wd;		  /* -1: not watched */
	unsigned path;	  /* the caller's index */
	unsigned next;	  /* the next entry of the same key, + 1 */
	bool retry;	  /* its directory missing or gone: tried again */
};

struct execwatch {
	int fd;
	struct execwatch_entry *entries;
	size_t count, capacity;
	struct strmap index; /* key -> its first entry + 1 */
};

/* NULL when inotify cannot be had: then only the periodic look. */
struct execwatch *execwatch_open(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	struct execwatch *w;

	if (fd < 0) {
		log_warn("cannot watch the directories of the rules' programs "
			 "(inotify); their files are looked at once a second");
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	strmap_init(&w->index);
	return w;
}

int execwatch_fd(const struct execwatch *w)
{
	return w ? w->fd : -1;
}

static void execwatch_entries_free(struct execwatch_entry *entries,
				   size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(entries[i].key);
	free(entries);
}

static const char *execwatch_name(const struct execwatch_entry *e)
{
	return e->path_text + e->dir_len + 1;
}

void execwatch_close(struct execwatch *w)
{
	if (!w)
		return;
	close(w->fd);
	strmap_free(&w->index);
	execwatch_entries_free(w->entries, w->count);
	free(w);
}

/* The keys of the watched entries, each chained to the next of the same
 * directory and name. */
static void execwatch_index(struct execwatch *w)
{
	strmap_free(&w->index);
	strmap_init(&w->index);
	for (size_t i = w->count; i-- > 0;) {
		struct execwatch_entry *e = &w->entries[i];

		free(e->key);
		e->key = NULL;
		e->next = 0;
		if (e->wd < 0)
			continue;
		e->key = xasprintf("%d/%s", e->wd, execwatch_name(e));
		e->next = (unsigned)(uintptr_t)strmap_get(&w->index, e->key);
		strmap_put(&w->index, e->key, (void *)(uintptr_t)(i + 1));
	}
}

/* Cached per directory while a call lasts: its wd, or why not. */
#define EXECWATCH_WD 4096 /* values from here: wd + this; below: an errno */

/* The directories asked during one call, each with its wd or why not:
 * the keys are copies, freed with the map. */
static void execwatch_dirs_free(struct strmap *dirs)
{
	for (size_t i = 0; i < dirs->capacity; i++)
		free((char *)dirs->slots[i].key);
	strmap_free(dirs);
}

/* An entry's directory's watch, asked once per directory per call. */
static int execwatch_dir(struct execwatch *w, struct strmap *dirs,
			 const struct execwatch_entry *e, int *error)
{
	char *dir = e->dir_len
			    ? xasprintf("%.*s", (int)e->dir_len, e->path_text)
			    : xstrdup("/");
	uintptr_t known = (uintptr_t)strmap_get(dirs, dir);
	int wd;

	if (known) {
		free(dir);
		*error = known >= EXECWATCH_WD ? 0 : (int)known;
		return known >= EXECWATCH_WD ? (int)(known - EXECWATCH_WD) : -1;
	}
	wd = inotify_add_watch(w->fd, dir, EXECWATCH_MASK);
	*error = wd < 0 ? (errno ? errno : EINVAL) : 0;
	if (wd < 0)
		log_debug("exec filter: cannot watch %s: %s", dir,
			  strerror(*error));
	strmap_put(dirs, dir,
		   (void *)(wd < 0 ? (uintptr_t)*error
				   : (uintptr_t)wd + EXECWATCH_WD));
	return wd;
}

/* Not there (yet): an install to come, tried again. */
static bool execwatch_missing(int error)
{
	return error == ENOENT || error == ENOTDIR;
}

static void execwatch_add(struct execwatch *w, struct strmap *dirs,
			  const char *path, size_t index, int *refused)
{
	const char *slash = strrchr(path, '/');
	struct execwatch_entry *e;
	int error;

	if (!slash || !slash[1])
		return;
	if (w->count == w->capacity) {
		w->capacity = w->capacity ? w->capacity * 2 : 16;
		w->entries = xreallocarray(w->entries, w->capacity,
					   sizeof(*w->entries));
	}
	e = &w->entries[w->count++];
	*e = (struct execwatch_entry){
		.path_text = path,
		.dir_len = (unsigned)(slash - path),
		.path = (unsigned)index,
	};
	e->wd = execwatch_dir(w, dirs, e, &error);
	e->retry = e->wd < 0 && execwatch_missing(error);
	if (e->wd < 0 && !e->retry)
		*refused = error;
}

/* The watches of the paths of a new plan (paths[i], as the caller
 * numbers them), and none left of the old ones. The paths are borrowed:
 * they stay the caller's until the next execwatch_set or execwatch_close,
 * and the old ones are not read here. */
void execwatch_set(struct execwatch *w, char *const *paths, size_t count)
{
	struct execwatch_entry *old;
	size_t old_count;
	struct strmap dirs;
	struct pidmap used;
	int refused = 0;

	if (!w)
		return;
	old = w->entries;
	old_count = w->count;
	/* One entry a path at most, allocated once: doubling left a third
	 * of 20,000 literal exes' entries unused. */
	w->entries = xcalloc(count + 1, sizeof(*w->entries));
	w->count = 0;
	w->capacity = count + 1;
	strmap_init(&dirs);
	for (size_t i = 0; i < count; i++)
		execwatch_add(w, &dirs, paths[i], i, &refused);
	execwatch_dirs_free(&dirs);
	if (refused)
		log_info("exec filter: some directories of the rules' programs "
			 "cannot be watched (%s): their files are looked at "
			 "once a second",
			 strerror(refused));
	execwatch_index(w);
	/* The same directory keeps its watch (the kernel gives its wd
	 * again); one no path needs now goes. */
	pidmap_init(&used);
	for (size_t i = 0; i < w->count; i++) {
		if (w->entries[i].wd >= 0)
			pidmap_put(&used, w->entries[i].wd + 1, (void *)1);
	}
	for (size_t i = 0; i < old_count; i++) {
		int wd = old[i].wd;

		if (wd >= 0 && !pidmap_get(&used, wd + 1)) {
			inotify_rm_watch(w->fd, wd);
			pidmap_put(&used, wd + 1, (void *)1);
		}
	}
	pidmap_free(&used);
	execwatch_entries_free(old, old_count);
}

/* A watched directory gone, moved or unmounted: its paths are looked
 * at, and the directory watched again once it is there. */
static void execwatch_lost(struct execwatch *w, int wd, bool moved,
			   execwatch_fn fn, void *ctx)
{
	if (moved)
		inotify_rm_watch(w->fd, wd);
	for (size_t i = 0; i < w->count; i++) {
		if (w->entries[i].wd != wd)
			continue;
		w->entries[i].wd = -1;
		w->entries[i].retry = true;
		fn(ctx, w->entries[i].path);
	}
	execwatch_index(w);
}

static void execwatch_event(struct execwatch *w, const struct inotify_event *e,
			    execwatch_fn fn, void *ctx)
{
	char key[32 + NAME_MAX + 1];
	uintptr_t at;

	if (e->mask & IN_Q_OVERFLOW) {
		for (size_t i = 0; i < w->count; i++)
			fn(ctx, w->entries[i].path);
		return;
	}
	if (e->mask &
	    (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
		execwatch_lost(w, e->wd, e->mask & IN_MOVE_SELF, fn, ctx);
		return;
	}
	if (!e->len || !memchr(e->name, '\0', e->len))
		return;
	snprintf(key, sizeof(key), "%d/%s", e->wd, e->name);
	for (at = (uintptr_t)strmap_get(&w->index, key); at;
	     at = w->entries[at - 1].next)
		fn(ctx, w->entries[at - 1].path);
}

/* What the directories reported since: fn(ctx, path) for each path
 * whose name in a watched directory changed (maybe more than once).
 * Returns 0, or -1 when the watch failed. */
int execwatch_read(struct execwatch *w, execwatch_fn fn, void *ctx)
{
	_Alignas(struct inotify_event) char buf[4096];

	for (int reads = 0; w && reads < EXECWATCH_READS; reads++) {
		ssize_t n = read(w->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		for (size_t at = 0;
		     at + sizeof(struct inotify_event) <= (size_t)n;) {
			const struct inotify_event *e =
				(const struct inotify_event *)(buf + at);

			at += sizeof(*e) + e->len;
			if (at > (size_t)n)
				break;
			execwatch_event(w, e, fn, ctx);
		}
	}
	return 0;
}

/* Directories missing or gone, tried again: fn(ctx, path) for the paths
 * of each one watched now, whose file may have come meanwhile. */
void execwatch_retry(struct execwatch *w, execwatch_fn fn, void *ctx)
{
	struct strmap dirs;
	bool changed = false;

	if (!w)
		return;
	strmap_init(&dirs);
	for (size_t i = 0; i < w->count; i++) {
		struct execwatch_entry *e = &w->entries[i];
		int error;

		if (!e->retry)
			continue;
		e->wd = execwatch_dir(w, &dirs, e, &error);
		e->retry = e->wd < 0 && execwatch_missing(error);
		if (e->wd < 0)
			continue;
		changed = true;
		fn(ctx, e->path);
	}
	execwatch_dirs_free(&dirs);
	if (changed)
		execwatch_index(w);
}
