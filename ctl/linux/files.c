/* Linux: state files written whole, then renamed into place, the state
 * directory made as the daemon makes it; an import's files staged beside
 * their place and put there once read back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"
#include "../ctl.h"

/* A reader sees the old text or the new, never half of it: a rename
 * within a directory replaces the file at once, and the text is on disk
 * before it does (fsync). */
int files_replace(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int saved;

	if (!f) {
		free(tmp);
		return -1;
	}
	if (fwrite(text, 1, len, f) != len || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0) {
		saved = errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		saved = errno;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		saved = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = saved;
	return -1;
}

/* Root's alone (0700), as the daemon makes it; one there already stays
 * as it is. */
void files_private_dir(const char *path)
{
	mkdir(path, 0700);
}

/* The text in a new file beside path, under a name no rules directory
 * loads (a dot first, no .rules last) and no one else could have made
 * ready for it (mkstemp: O_EXCL, so no link planted there is followed);
 * on disk (fsync) and readable as rule files are, never writable by
 * others. *staged: its path, the caller's to free. */
enum os_status files_stage(const char *path, const char *text, size_t len,
			   char **staged)
{
	const char *slash = strrchr(path, '/');
	char *tmp = slash ? xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path),
				      path, slash + 1)
			  : xasprintf(".%s.XXXXXX", path);
	mode_t mask = umask(0);
	int fd, saved = 0;

	umask(mask);
	fd = mkstemp(tmp);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		errno = saved;
		return status_of_errno(saved);
	}
	for (size_t done = 0; done < len && !saved;) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno != EINTR)
			saved = errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (!saved && (fchmod(fd, 0644 & ~mask) < 0 || fsync(fd) < 0))
		saved = errno;
	if (close(fd) < 0 && !saved)
		saved = errno;
	if (saved) {
		unlink(tmp);
		free(tmp);
		errno = saved;
		return status_of_errno(saved);
	}
	*staged = tmp;
	return OS_OK;
}

/* A staged file in its place, at once (rename within the directory). */
enum os_status files_commit(const char *staged, const char *path)
{
	return rename(staged, path) == 0 ? OS_OK : status_of_errno(errno);
}

void files_discard(const char *staged)
{
	unlink(staged);
}

/* An output directory that is not there yet: this one alone (not its
 * parents, which a typo would make too), as rules directories are. */
enum os_status files_make_dir(const char *path)
{
	return mkdir(path, 0755) == 0 ? OS_OK : status_of_errno(errno);
}

/* The directory files_make_dir made, when nothing went into it. */
void files_remove_dir(const char *path)
{
	rmdir(path);
}
