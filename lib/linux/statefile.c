/* Linux: the daemon's state files (the journal, os.h). Their directory
 * is made for root alone and checked, from / down, for anyone else who
 * could have written it (the walk of trust.c); a file is replaced whole through
 * a synced temporary file and a rename, then the directory is synced, so that a
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

/* Why a component on the way to the journal could have been written by
 * someone other than root (or the user this runs as), as trust.c found
 * it: "PATH is REASON". */
static void statefile_flaw_why(const struct trust_flaw *f, char *why,
			       size_t size)
{
	switch (f->fault) {
	case TRUST_FAULT_OWNER:
		snprintf(why, size, "%s is owned by uid %u", f->path,
			 (unsigned)f->st.st_uid);
		return;
	case TRUST_FAULT_WRITABLE:
		snprintf(why, size,
			 "%s is writable by group or others (mode %04o)",
			 f->path, (unsigned)(f->st.st_mode & 07777));
		return;
	case TRUST_FAULT_TYPE:
		snprintf(why, size, "%s is not a directory", f->path);
		return;
	case TRUST_FAULT_NONE:
	case TRUST_FAULT_UNKNOWN:
		break;
	}
	snprintf(why, size, "cannot check %s", f->path);
}

/* Whoever may write the state directory decides what the journal says,
 * and so what root writes at the next start: every directory on the way,
 * by the path given and by the path it resolves to, must be root's (a
 * sticky one, as /tmp, may be above it). OS_DENIED: why says which is
 * not ("PATH is REASON"); OS_FAILED: what could not be checked, errno
 * says why. */
enum os_status statefile_dir_safe(const char *dir, char *why, size_t size)
{
	struct trust_flaw flaw;

	if (trust_walk(dir, TRUST_SELF | TRUST_DIR, &flaw))
		return OS_OK;
	if (flaw.fault != TRUST_FAULT_UNKNOWN) {
		statefile_flaw_why(&flaw, why, size);
		return OS_DENIED;
	}
	if (flaw.last && !flaw.resolved && strcmp(flaw.path, dir) == 0)
		snprintf(why, size, "cannot resolve it");
	else
		statefile_flaw_why(&flaw, why, size);
	errno = flaw.error;
	return OS_FAILED;
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
	switch (trust_judge(&st, true, TRUST_SELF)) {
	case TRUST_FAULT_NONE:
		break;
	case TRUST_FAULT_OWNER:
		snprintf(sf->why, sizeof(sf->why), "owned by uid %u",
			 (unsigned)st.st_uid);
		return OS_DENIED;
	case TRUST_FAULT_WRITABLE:
	case TRUST_FAULT_TYPE:
	case TRUST_FAULT_UNKNOWN:
		snprintf(sf->why, sizeof(sf->why),
			 "writable by group or others (mode %04o)",
			 (unsigned)(st.st_mode & 07777));
		return OS_DENIED;
	}
	if (files_read(file, max, &sf->text, &sf->len) != OS_OK) {
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
enum os_status statefile_boot_id(char *id, size_t size, char *from,
				 size_t from_size)
{
	const char *procfs = paths_procfs();
	char *path = xasprintf("%s/sys/kernel/random/boot_id", procfs);
	char *text = NULL;
	size_t len;
	int failed = files_read(path, 64, &text, &len) != OS_OK;

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
