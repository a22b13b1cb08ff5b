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
#include <sys/stat.h>
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
 * copies of their directories and names were 2 MiB of the daemon. 32
 * bytes: a path is shorter than PATH_MAX, the caller's count than 2^31.
 * A directory not there (a program not installed, as most of a large
 * imported rule set are) has the nearest directory above it that is
 * watched instead, for the next one on the way to it: its making is an
 * event, where trying each missing directory again at every tick cost
 * 20,000 calls a second. */
struct execwatch_entry {
	const char *path_text;
	/* Its directory: path_text[0, dir_len), "/" if 0 (a longer one than
	 * EXECWATCH_DIR_MAX is not watched: no exec names it). */
	unsigned dir_len : 16;
	/* The directory watched: path_text[0, watch_len), "/" if 0; its
	 * own (dir_len) or one above it, and then the name in the key is
	 * the next directory's on the way. */
	unsigned watch_len : 15;
	bool retry : 1; /* none could be watched (refused): tried again */
	int wd;		/* -1: none watched */
	unsigned path;	/* the caller's index */
	unsigned next;	/* the next entry of the same key, + 1 */
};

/* 20,000 literal exes have an entry each: 24 bytes, with the lengths in
 * 15 bits, more than any path the kernel takes (PATH_MAX). */
#define EXECWATCH_DIR_MAX 32767

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

/* A map whose keys are its own copies. */
static void execwatch_keys_free(struct strmap *map)
{
	for (size_t i = 0; i < map->capacity; i++)
		free((char *)map->slots[i].key);
	strmap_free(map);
}

/* The name the watched directory must show for the entry: its file's,
 * or the next directory's on the way to it; *len bytes. */
static const char *execwatch_name(const struct execwatch_entry *e, int *len)
{
	const char *name = e->path_text + e->watch_len + 1;
	const char *slash = strchr(name, '/');

	*len = slash ? (int)(slash - name) : (int)strlen(name);
	return name;
}

void execwatch_close(struct execwatch *w)
{
	if (!w)
		return;
	close(w->fd);
	execwatch_keys_free(&w->index);
	free(w->entries);
	free(w);
}

/* The keys of the watched entries ("wd/name"), each chained to the next
 * of the same key; a key's text is the index's, once (the 20,000 paths
 * of programs not installed wait under one directory's one name). */
static void execwatch_index(struct execwatch *w)
{
	execwatch_keys_free(&w->index);
	strmap_init(&w->index);
	for (size_t i = w->count; i-- > 0;) {
		struct execwatch_entry *e = &w->entries[i];
		char key[32 + PATH_MAX];
		const char *name;
		uintptr_t first;
		int len;

		e->next = 0;
		if (e->wd < 0)
			continue;
		name = execwatch_name(e, &len);
		snprintf(key, sizeof(key), "%d/%.*s", e->wd, len, name);
		first = (uintptr_t)strmap_get(&w->index, key);
		e->next = (unsigned)first;
		/* Its key is kept only when it is new. */
		strmap_put(&w->index, first ? key : xstrdup(key),
			   (void *)(uintptr_t)(i + 1));
	}
}

/* Cached per directory while a call lasts: its wd, or why not. */
#define EXECWATCH_WD 4096 /* values from here: wd + this; below: an errno */

/* The watch of text[0, len) ("/" if 0), asked once per directory per
 * call. */
static int execwatch_dir(struct execwatch *w, struct strmap *dirs,
			 const char *text, unsigned len, int *error)
{
	char *dir = len ? xasprintf("%.*s", (int)len, text) : xstrdup("/");
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

/* The directory above text[0, len): its length ("/": 0). */
static unsigned execwatch_up(const char *text, unsigned len)
{
	while (len > 0 && text[--len] != '/')
		;
	return len;
}

/* Whether the next directory on the way from the watched one is there
 * already: made between the look at it and the watch above it, which
 * then saw nothing. A file of that name is not: the watch sees it go. */
static bool execwatch_next_there(const struct execwatch_entry *e)
{
	int len;
	const char *name = execwatch_name(e, &len);
	char *next = xasprintf("%.*s", (int)(name - e->path_text) + len,
			       e->path_text);
	struct stat st;
	bool there = stat(next, &st) == 0 && S_ISDIR(st.st_mode);

	free(next);
	return there;
}

/* The entry's directory watched, or the nearest one above it that is
 * there; *error: why none could be. Tried again at ticks (retry) when
 * the one above was made as it was watched. */
static void execwatch_attach(struct execwatch *w, struct strmap *dirs,
			     struct execwatch_entry *e, int *error)
{
	unsigned len = e->dir_len;

	for (;;) {
		e->wd = execwatch_dir(w, dirs, e->path_text, len, error);
		if (e->wd >= 0 || !execwatch_missing(*error) || len == 0)
			break;
		len = execwatch_up(e->path_text, len);
	}
	e->watch_len = len;
	/* Refused (no access, no more watches): the periodic look only. */
	e->retry = e->wd < 0 ? execwatch_missing(*error)
			     : len < e->dir_len && execwatch_next_there(e);
}

static void execwatch_add(struct execwatch *w, struct strmap *dirs,
			  const char *path, size_t index, int *refused)
{
	const char *slash = strrchr(path, '/');
	struct execwatch_entry *e;
	int error;

	if (!slash || !slash[1] || slash - path > EXECWATCH_DIR_MAX)
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
	execwatch_attach(w, dirs, e, &error);
	if (e->wd < 0)
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
	execwatch_keys_free(&dirs);
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
	free(old);
}

/* A watched directory gone, moved or unmounted: its paths are looked
 * at, and watched through the nearest directory above that is there. */
static void execwatch_lost(struct execwatch *w, struct strmap *dirs, int wd,
			   bool moved, execwatch_fn fn, void *ctx)
{
	int error;

	if (moved)
		inotify_rm_watch(w->fd, wd);
	for (size_t i = 0; i < w->count; i++) {
		if (w->entries[i].wd != wd)
			continue;
		execwatch_attach(w, dirs, &w->entries[i], &error);
		fn(ctx, w->entries[i].path);
	}
	execwatch_index(w);
}

/* One event: fn for each path whose name it names. An entry waiting in
 * a directory above its own moves down (or up) to where the path is
 * there now; *moved then (the caller re-keys them). */
static void execwatch_event(struct execwatch *w, struct strmap *dirs,
			    const struct inotify_event *e, bool *moved,
			    execwatch_fn fn, void *ctx)
{
	char key[32 + NAME_MAX + 1];
	uintptr_t at;
	int error;

	if (e->mask & IN_Q_OVERFLOW) {
		for (size_t i = 0; i < w->count; i++)
			fn(ctx, w->entries[i].path);
		return;
	}
	if (e->mask &
	    (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
		execwatch_lost(w, dirs, e->wd, e->mask & IN_MOVE_SELF, fn, ctx);
		return;
	}
	if (!e->len || !memchr(e->name, '\0', e->len))
		return;
	snprintf(key, sizeof(key), "%d/%s", e->wd, e->name);
	for (at = (uintptr_t)strmap_get(&w->index, key); at;
	     at = w->entries[at - 1].next) {
		struct execwatch_entry *entry = &w->entries[at - 1];

		if (entry->watch_len < entry->dir_len) {
			execwatch_attach(w, dirs, entry, &error);
			*moved = true;
		}
		fn(ctx, entry->path);
	}
}

/* A read of the queue's events. Entries that moved are re-keyed once
 * it is handled: the events of a watch added meanwhile come in a later
 * read. */
static void execwatch_buffer(struct execwatch *w, const char *buf, size_t n,
			     execwatch_fn fn, void *ctx)
{
	struct strmap dirs;
	bool moved = false;

	strmap_init(&dirs);
	for (size_t at = 0; at + sizeof(struct inotify_event) <= n;) {
		const struct inotify_event *e =
			(const struct inotify_event *)(buf + at);

		at += sizeof(*e) + e->len;
		if (at > n)
			break;
		execwatch_event(w, &dirs, e, &moved, fn, ctx);
	}
	execwatch_keys_free(&dirs);
	if (moved)
		execwatch_index(w);
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
		execwatch_buffer(w, buf, (size_t)n, fn, ctx);
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
		execwatch_attach(w, &dirs, e, &error);
		if (e->wd < 0)
			continue;
		changed = true;
		fn(ctx, e->path);
	}
	execwatch_keys_free(&dirs);
	if (changed)
		execwatch_index(w);
}
