/* Linux: the daemon's state files (the journal, os.h). Their directory
 * is made for root alone and checked, from / down, for anyone else who
 * could have written it; a file is replaced whole through a synced
 * temporary file and a rename, then the directory is synced, so that a
 * crash leaves the old text or the new, never half. The boot a file
 * belongs to is the kernel's boot ID. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"

/* The status of a failed call, errno kept for the caller's message. */
static enum os_status statefile_failed(void)
{
	return status_of_errno(errno) == OS_GONE ? OS_GONE : OS_FAILED;
}

enum os_status statefile_mkdir(const char *dir)
{
	char *copy = xstrdup(dir);
	enum os_status status = OS_OK;

	for (char *p = copy + 1; *p && status == OS_OK; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			status = OS_FAILED;
		*p = '/';
	}
	/* Originals of system settings are nobody else's business. */
	if (status == OS_OK && mkdir(copy, 0700) < 0 && errno != EEXIST)
		status = OS_FAILED;
	free(copy);
	return status;
}

/* Why something on the way to the journal could have been written by
 * someone other than root (or the user this runs as); NULL if it could
 * not. In a sticky directory, as /tmp, no one may rename or remove what
 * is not theirs: one is allowed above the state directory. */
static const char *statefile_unsafe_why(const struct stat *st, bool last,
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

/* One directory on the way. A symbolic link is as safe as the directory
 * that holds it; where it leads is walked as the resolved path. */
static enum os_status statefile_step_safe(const char *path, bool last,
					  char *why, size_t size)
{
	struct stat st;
	char reason[64];

	if (lstat(path, &st) < 0) {
		snprintf(why, size, "cannot check %s", path);
		return OS_FAILED;
	}
	if (S_ISLNK(st.st_mode))
		return OS_OK;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s is not a directory", path);
		return OS_DENIED;
	}
	if (statefile_unsafe_why(&st, last, reason, sizeof(reason))) {
		snprintf(why, size, "%s is %s", path, reason);
		return OS_DENIED;
	}
	return OS_OK;
}

/* Every directory from / down to dir. */
static enum os_status statefile_walk_safe(const char *dir, char *why,
					  size_t size)
{
	char *path = xstrdup(dir);
	enum os_status status = statefile_step_safe("/", false, why, size);
	int saved;

	for (char *p = path; status == OS_OK && *p;) {
		char *end;
		char c;
		bool last;

		p += strspn(p, "/");
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		last = end[strspn(end, "/")] == '\0';
		c = *end;
		*end = '\0';
		status = statefile_step_safe(path, last, why, size);
		*end = c;
		p = end;
	}
	saved = errno;
	free(path);
	errno = saved;
	return status;
}

/* Whoever may write the state directory decides what the journal says,
 * and so what root writes at the next start: every directory on the way,
 * by the path given and by the path it resolves to, must be root's.
 * OS_DENIED: why says which is not ("PATH is REASON"); OS_FAILED: what
 * could not be checked, errno says why. */
enum os_status statefile_dir_safe(const char *dir, char *why, size_t size)
{
	char *real = realpath(dir, NULL);
	enum os_status status;
	int saved;

	if (!real) {
		snprintf(why, size, "cannot resolve it");
		return OS_FAILED;
	}
	status = statefile_walk_safe(dir, why, size);
	if (status == OS_OK && strcmp(real, dir) != 0)
		status = statefile_walk_safe(real, why, size);
	saved = errno;
	free(real);
	errno = saved;
	return status;
}

/* Last written before this boot began, by the clocks. A clock set
 * forward since the boot makes a file of this boot look older. */
static bool statefile_before_boot(const struct stat *st)
{
	struct timespec now, up;
	time_t boot;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &up) < 0)
		return true;
	boot = now.tv_sec - up.tv_sec;
	return st->st_mtim.tv_sec < boot;
}

/* OS_GONE: there is no such file. A file root's alone only: a symbolic
 * link, or one others may write, is refused (OS_DENIED). */
enum os_status statefile_load(const char *file, size_t max,
			      struct statefile *sf)
{
	struct stat st;

	*sf = (struct statefile){0};
	if (lstat(file, &st) < 0) {
		enum os_status status = statefile_failed();

		snprintf(sf->why, sizeof(sf->why), "cannot check");
		return status;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(sf->why, sizeof(sf->why), "not a regular file");
		return OS_DENIED;
	}
	if (statefile_unsafe_why(&st, true, sf->why, sizeof(sf->why)))
		return OS_DENIED;
	if (util_read_file(file, max, &sf->text, &sf->len) < 0) {
		snprintf(sf->why, sizeof(sf->why), "cannot read");
		return OS_FAILED;
	}
	sf->before_boot = statefile_before_boot(&st);
	return OS_OK;
}

/* A rename or removal lasts once the directory holding it is synced. */
static enum os_status statefile_sync_dir(const char *file)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');
	enum os_status status = OS_OK;
	int fd, saved;

	if (slash)
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		status = OS_FAILED;
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	errno = saved;
	return status;
}

static int statefile_write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

enum os_status statefile_replace(const char *file, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.new", file);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int failed, saved;

	if (fd < 0) {
		free(tmp);
		return OS_FAILED;
	}
	failed = statefile_write_all(fd, text, len) < 0 || fsync(fd) < 0;
	saved = errno;
	if (close(fd) < 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed && rename(tmp, file) < 0) {
		failed = 1;
		saved = errno;
	}
	if (failed)
		unlink(tmp);
	free(tmp);
	errno = saved;
	return failed ? OS_FAILED : statefile_sync_dir(file);
}

enum os_status statefile_remove(const char *file)
{
	if (unlink(file) < 0 && errno != ENOENT)
		return OS_FAILED;
	return statefile_sync_dir(file);
}

/* The kernel's random boot ID, as it prints it, without the newline;
 * from names the file, for messages. */
enum os_status statefile_boot_id(const char *procfs, char *id, size_t size,
				 char *from, size_t from_size)
{
	char *path = xasprintf("%s/sys/kernel/random/boot_id", procfs);
	char *text = NULL;
	size_t len;
	int failed = util_read_file(path, 64, &text, &len) < 0;

	snprintf(from, from_size, "%s", path);
	free(path);
	if (failed)
		return OS_FAILED;
	text[strcspn(text, "\n")] = '\0';
	len = strlen(text);
	if (len >= size) {
		free(text);
		errno = EOVERFLOW;
		return OS_FAILED;
	}
	memcpy(id, text, len + 1);
	free(text);
	return OS_OK;
}
