/* Linux: the files a user names and the front ends write (os.h), by
 * the POSIX calls, paths as they are: whole-file reads, streams, a
 * directory's names, what a path is; state files written whole, then
 * renamed into place, the state directory made as the daemon makes it;
 * an import's files staged beside their place and put there once read
 * back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"

/* Not inherited across exec, never a controlling terminal. */
#define FILES_OPEN_READ (O_RDONLY | O_CLOEXEC | O_NOCTTY)

/* The status of the call that failed just before, errno kept for the
 * message (a short write may leave it 0: a failure all the same). */
static enum os_status files_failed(void)
{
	return errno ? status_of_errno(errno) : OS_FAILED;
}

static enum os_status files_read_fd(int fd, size_t max, char **text,
				    size_t *len)
{
	struct files_buffer b;

	files_buffer_init(&b, max);
	for (;;) {
		ssize_t n;

		if (!files_buffer_room(&b))
			return OS_FAILED;
		n = read(fd, b.text + b.used, b.cap - b.used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			free(b.text);
			errno = saved;
			return OS_FAILED;
		}
		if (n == 0)
			break;
		b.used += (size_t)n;
	}
	files_buffer_done(&b, text, len);
	return OS_OK;
}

enum os_status files_read(const char *path, size_t max, char **text,
			  size_t *len)
{
	int fd = open(path, FILES_OPEN_READ), saved;
	enum os_status status;

	if (fd < 0)
		return files_failed();
	status = files_read_fd(fd, max, text, len);
	saved = errno;
	close(fd);
	errno = saved;
	return status;
}

enum os_status files_open(const char *path, const char *mode, FILE **file)
{
	*file = fopen(path, mode);
	return *file ? OS_OK : files_failed();
}

enum os_status files_info(const char *path, struct files_info *info)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return files_failed();
	*info = (struct files_info){.type = FILES_TYPE_OTHER};
	if (S_ISREG(st.st_mode)) {
		info->type = FILES_TYPE_REGULAR;
		info->size = (unsigned long long)st.st_size;
	} else if (S_ISDIR(st.st_mode)) {
		info->type = FILES_TYPE_DIRECTORY;
	} else if (S_ISCHR(st.st_mode)) {
		info->type = FILES_TYPE_DEVICE;
	}
	return OS_OK;
}

enum os_status files_list(const char *dir, char ***names, size_t *count)
{
	DIR *dp = opendir(dir);
	struct dirent *d;
	char **list = NULL;
	size_t n = 0;

	if (!dp)
		return files_failed();
	while ((d = readdir(dp))) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		list = xgrow(list, n, sizeof(*list));
		list[n++] = xstrdup(d->d_name);
	}
	closedir(dp);
	files_sort_names(list, n);
	*names = list;
	*count = n;
	return OS_OK;
}

enum os_status files_remove(const char *path)
{
	return unlink(path) == 0 ? OS_OK : files_failed();
}

/* A reader sees the old text or the new, never half of it: a rename
 * within a directory replaces the file at once, and the text is on disk
 * before it does (fsync). */
enum os_status files_replace(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int saved;

	if (!f) {
		free(tmp);
		return files_failed();
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
	return OS_OK;
fail:
	unlink(tmp);
	free(tmp);
	errno = saved;
	return files_failed();
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
