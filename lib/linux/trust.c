/* Linux: whether anyone but root could have changed what a file the
 * daemon obeys says (trust_path, os.h), as sshd's StrictModes judges an
 * authorized_keys file: the file and every directory from / down to it
 * must be root's and writable by no one else, by the path given and by
 * the path it resolves to. The state directory's check (statefile.c)
 * walks the same way. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "linux.h"
#include "util.h"

/* /dev/null: a rule file linked there masks a vendor file of the same
 * name (rules.c). Anyone may write it, and that changes nothing it
 * reads. */
static bool trust_is_null_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       minor(st->st_rdev) == 3;
}

enum trust_fault trust_judge(const struct stat *st, bool last, unsigned flags)
{
	bool sticky_parent =
		!last && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);

	if (!last && !S_ISDIR(st->st_mode))
		return TRUST_FAULT_TYPE;
	if (last && (flags & TRUST_DIR) && !S_ISDIR(st->st_mode))
		return TRUST_FAULT_TYPE;
	if (st->st_uid != 0 &&
	    !((flags & TRUST_SELF) && st->st_uid == geteuid()))
		return TRUST_FAULT_OWNER;
	if (last && trust_is_null_device(st))
		return TRUST_FAULT_NONE;
	/* In a sticky directory, as /tmp, no one may rename or remove what
	 * is not theirs: one is allowed above the path, not as the path. */
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_parent)
		return TRUST_FAULT_WRITABLE;
	return TRUST_FAULT_NONE;
}

/* One component: a symbolic link is as safe as the directory that holds
 * it (judged before it); where it leads is walked as the resolved path. */
static bool trust_step(const char *path, bool last, bool resolved,
		       unsigned flags, struct trust_flaw *flaw)
{
	struct stat st;
	enum trust_fault fault;

	if (lstat(path, &st) < 0)
		fault = TRUST_FAULT_UNKNOWN;
	else if (S_ISLNK(st.st_mode))
		return true;
	else
		fault = trust_judge(&st, last, flags);
	if (fault == TRUST_FAULT_NONE)
		return true;
	*flaw = (struct trust_flaw){
		.fault = fault,
		.st = st,
		.last = last,
		.resolved = resolved,
		.error = fault == TRUST_FAULT_UNKNOWN ? errno : 0,
	};
	snprintf(flaw->path, sizeof(flaw->path), "%s", path);
	return false;
}

/* Every directory from / down to the path, and the path itself. */
static bool trust_walk_one(const char *path, bool resolved, unsigned flags,
			   struct trust_flaw *flaw)
{
	char *copy = xstrdup(path);
	bool ok = trust_step("/", path[strspn(path, "/")] == '\0', resolved,
			     flags, flaw);

	for (char *p = copy; ok && *p;) {
		char *end;
		bool last;
		char c;

		p += strspn(p, "/");
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		last = end[strspn(end, "/")] == '\0';
		c = *end;
		*end = '\0';
		ok = trust_step(copy, last, resolved, flags, flaw);
		*end = c;
		p = end;
	}
	free(copy);
	return ok;
}

bool trust_walk(const char *path, unsigned flags, struct trust_flaw *flaw)
{
	char *real = realpath(path, NULL);
	bool ok;

	if (!real) {
		*flaw = (struct trust_flaw){.fault = TRUST_FAULT_UNKNOWN,
					    .error = errno,
					    .last = true};
		snprintf(flaw->path, sizeof(flaw->path), "%s", path);
		return false;
	}
	ok = trust_walk_one(path, false, flags, flaw) &&
	     (strcmp(real, path) == 0 ||
	      trust_walk_one(real, true, flags, flaw));
	free(real);
	return ok;
}

static void trust_user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, size, "%s", pw->pw_name);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
}

static void trust_group_name(gid_t gid, char *buf, size_t size)
{
	struct group *gr = getgrgid(gid);

	if (gr)
		snprintf(buf, size, "%s", gr->gr_name);
	else
		snprintf(buf, size, "gid %u", (unsigned)gid);
}

/* A list of who may write, "a, b and c", one name added at a time. */
struct trust_writers {
	char names[8][80];
	size_t count;
	bool more;
};

static void trust_writers_add(struct trust_writers *w, const char *fmt,
			      const char *name)
{
	if (w->count == sizeof(w->names) / sizeof(w->names[0])) {
		w->more = true;
		return;
	}
	snprintf(w->names[w->count++], sizeof(w->names[0]), fmt, name);
}

/* The kernel's POSIX ACL xattr (include/uapi/linux/posix_acl_xattr.h):
 * a 4-byte version 2, then entries of a tag, permissions and an id. */
#define TRUST_ACL_VERSION   2
#define TRUST_ACL_USER	    0x02
#define TRUST_ACL_GROUP_OBJ 0x04
#define TRUST_ACL_GROUP	    0x08
#define TRUST_ACL_MASK	    0x10
#define TRUST_ACL_WRITE	    0x02

struct trust_acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};

/* With an access ACL, the group bits are its mask: each named user and
 * group, and the file's group, writes when its entry and the mask say
 * so. false: no ACL (or none readable), the mode bits tell. */
static bool trust_acl_writers(const char *path, const struct stat *st,
			      struct trust_writers *w)
{
	unsigned char buf[4 + 64 * sizeof(struct trust_acl_entry)];
	ssize_t len =
		getxattr(path, "system.posix_acl_access", buf, sizeof(buf));
	uint16_t mask = TRUST_ACL_WRITE;
	uint32_t version;
	char name[64];
	size_t n;

	if (len < 4)
		return false;
	memcpy(&version, buf, 4);
	n = ((size_t)len - 4) / sizeof(struct trust_acl_entry);
	if (version != TRUST_ACL_VERSION || n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct trust_acl_entry e;

		memcpy(&e, buf + 4 + i * sizeof(e), sizeof(e));
		if (e.tag == TRUST_ACL_MASK)
			mask = e.perm;
	}
	for (size_t i = 0; i < n; i++) {
		struct trust_acl_entry e;

		memcpy(&e, buf + 4 + i * sizeof(e), sizeof(e));
		if (!(e.perm & mask & TRUST_ACL_WRITE))
			continue;
		if (e.tag == TRUST_ACL_USER) {
			trust_user_name(e.id, name, sizeof(name));
			trust_writers_add(w, "user %s", name);
		} else if (e.tag == TRUST_ACL_GROUP ||
			   e.tag == TRUST_ACL_GROUP_OBJ) {
			trust_group_name(e.tag == TRUST_ACL_GROUP ? e.id
								  : st->st_gid,
					 name, sizeof(name));
			trust_writers_add(w, "group %s", name);
		}
	}
	return true;
}

static void trust_writers_of(const char *path, const struct stat *st, char *buf,
			     size_t size)
{
	struct trust_writers w = {0};
	char name[64];
	size_t used = 0;

	if ((st->st_mode & S_IWGRP) && !trust_acl_writers(path, st, &w)) {
		trust_group_name(st->st_gid, name, sizeof(name));
		trust_writers_add(&w, "group %s", name);
	}
	if (st->st_mode & S_IWOTH)
		trust_writers_add(&w, "%s", "others");
	if (w.count == 0)
		trust_writers_add(&w, "%s", "its group"); /* a mask, no entry */
	buf[0] = '\0';
	for (size_t i = 0; i < w.count; i++) {
		const char *sep = i == 0		      ? ""
				  : i + 1 < w.count || w.more ? ", "
							      : " and ";
		int n = snprintf(buf + used, size - used, "%s%s", sep,
				 w.names[i]);

		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
	if (w.more)
		snprintf(buf + used, size - used, " and more");
}

/* "REASON (fix: COMMAND)", or "PATH is REASON (fix: COMMAND)" when the
 * fault is a directory above the file or on the way a link leads. */
static void trust_describe(const struct trust_flaw *f, char *why, size_t size)
{
	char what[800], name[64];
	/* A sticky folder above needs only the right owner. */
	bool writable = (f->st.st_mode & (S_IWGRP | S_IWOTH)) &&
			(f->last || !(f->st.st_mode & S_ISVTX));
	const char *p = f->path;
	char *fix = NULL;

	switch (f->fault) {
	case TRUST_FAULT_OWNER:
		trust_user_name(f->st.st_uid, name, sizeof(name));
		snprintf(what, sizeof(what), "owned by %s, not root", name);
		fix = writable ? xasprintf("chown root %s && chmod go-w %s", p,
					   p)
			       : xasprintf("chown root %s", p);
		break;
	case TRUST_FAULT_WRITABLE:
		memcpy(what, "writable by ", 12);
		trust_writers_of(p, &f->st, what + 12, sizeof(what) - 12);
		fix = xasprintf("chmod go-w %s", p);
		break;
	case TRUST_FAULT_TYPE:
		snprintf(why, size, "%s is not a directory", p);
		return;
	case TRUST_FAULT_NONE:
	case TRUST_FAULT_UNKNOWN:
		snprintf(why, size, "cannot check %s: %s", p,
			 strerror(f->error));
		return;
	}
	if (f->last && !f->resolved)
		snprintf(why, size, "%s (fix: %s)", what, fix);
	else
		snprintf(why, size, "%s is %s (fix: %s)", p, what, fix);
	free(fix);
}

/* OS_DENIED: why says who could have written it and the fix; OS_GONE:
 * there is no such file; OS_FAILED: it cannot be checked (a directory on
 * the way cannot be searched), why says what. */
enum os_status trust_path(const char *path, char *why, size_t size)
{
	struct trust_flaw flaw;
	struct stat st;

	if (lstat(path, &st) < 0) {
		enum os_status status = status_of_errno(errno);

		snprintf(why, size, "cannot check it: %s", strerror(errno));
		return status == OS_GONE ? OS_GONE : OS_FAILED;
	}
	if (trust_walk(path, 0, &flaw))
		return OS_OK;
	trust_describe(&flaw, why, size);
	if (flaw.fault == TRUST_FAULT_UNKNOWN) {
		errno = flaw.error;
		return OS_FAILED;
	}
	return OS_DENIED;
}
