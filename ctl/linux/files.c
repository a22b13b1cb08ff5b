/* Linux: state files written whole, then renamed into place, and the
 * state directory made as the daemon makes it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
