/* Runs a program under another file's name, as the exe identity tests need:
 * in a private mount namespace (with -U in a user namespace of its own too,
 * as any user may make one), one file bind-mounted over another, or a new
 * root as a container has; then it executes PROGRAM. Statically linked and
 * given relative paths, so that it runs as a user who may read nothing of
 * the machine but the test's directory.
 *   fakeexe [-u UID:GID] [-U] [-b SOURCE:TARGET]
 *           [-r ROOT | -c ROOT | -M ROOT] PROGRAM [ARG...]
 * -u  become UID:GID first (no capabilities left), as root may ask
 * -U  a user namespace of its own, its root mapped to the caller
 * -b  bind SOURCE over TARGET
 * -r  pivot into ROOT: it becomes the root of the mount namespace
 * -c  chroot into ROOT (no namespace needed)
 * -M  move ROOT over / and chroot into it, as switch_root and container
 *     runtimes without pivot_root do: the kernel then shows paths in ROOT
 *     as they are inside it, as after -r
 * Exits 77 when the kernel refuses a namespace, 2 on other errors. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
	FAKEEXE_REFUSED = 77,
};

static int proc_fd = -1;

static void fakeexe_die(const char *what)
{
	perror(what);
	exit(2);
}

static void fakeexe_write(const char *file, const char *text)
{
	int fd = openat(proc_fd, file, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fakeexe_die(file);
	close(fd);
}

/* /proc is opened before anything else: the user it becomes may not
 * reach it by its path. */
static void fakeexe_become(const char *ids)
{
	unsigned uid, gid;

	if (sscanf(ids, "%u:%u", &uid, &gid) != 2)
		fakeexe_die(ids);
	if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		fakeexe_die("setuid");
	/* A change of uid left its /proc files root's: its own again, so
	 * that it may write its uid map, as a user's own process may. */
	if (prctl(PR_SET_DUMPABLE, 1) < 0)
		fakeexe_die("prctl");
}

static void fakeexe_namespaces(int user)
{
	unsigned uid = getuid(), gid = getgid();
	char line[64];

	if (unshare(CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) < 0) {
		int refused = errno == EPERM || errno == EINVAL ||
			      errno == ENOSPC || errno == EUSERS;

		perror("unshare");
		exit(refused ? FAKEEXE_REFUSED : 2);
	}
	if (user) {
		fakeexe_write("self/setgroups", "deny");
		snprintf(line, sizeof(line), "0 %u 1", uid);
		fakeexe_write("self/uid_map", line);
		snprintf(line, sizeof(line), "0 %u 1", gid);
		fakeexe_write("self/gid_map", line);
	}
	/* Nothing done here may reach the caller's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fakeexe_die("mount --make-rprivate /");
}

static void fakeexe_bind(char *spec)
{
	char *target = strchr(spec, ':');

	if (!target)
		fakeexe_die(spec);
	*target++ = '\0';
	if (mount(spec, target, NULL, MS_BIND, NULL) < 0)
		fakeexe_die("mount --bind");
}

/* ROOT made a mount of its own, moved over / and entered by chroot: no
 * pivot_root, and the old root stays mounted beneath. */
static void fakeexe_move_root(const char *root)
{
	if (mount(root, root, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    chdir(root) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0)
		fakeexe_die("chroot into a root moved over /");
}

static void fakeexe_pivot(const char *root)
{
	if (mount(root, root, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		fakeexe_die("pivot_root");
}

int main(int argc, char **argv)
{
	const char *ids = NULL, *pivot = NULL, *chroot_to = NULL;
	const char *move_to = NULL;
	char *binds[8];
	int c, user = 0, bind_count = 0;

	while ((c = getopt(argc, argv, "+u:Ub:r:c:M:")) != -1) {
		switch (c) {
		case 'u':
			ids = optarg;
			break;
		case 'U':
			user = 1;
			break;
		case 'b':
			if (bind_count < 8)
				binds[bind_count++] = optarg;
			break;
		case 'r':
			pivot = optarg;
			break;
		case 'c':
			chroot_to = optarg;
			break;
		case 'M':
			move_to = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
			"usage: fakeexe [-u UID:GID] [-U] "
			"[-b SOURCE:TARGET] [-r ROOT | -c ROOT | -M ROOT] "
			"PROGRAM [ARG...]\n");
		return 2;
	}
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		fakeexe_die("/proc");
	if (ids)
		fakeexe_become(ids);
	if (user || bind_count || pivot || move_to)
		fakeexe_namespaces(user);
	for (int i = 0; i < bind_count; i++)
		fakeexe_bind(binds[i]);
	if (pivot)
		fakeexe_pivot(pivot);
	if (move_to)
		fakeexe_move_root(move_to);
	if (chroot_to && (chroot(chroot_to) < 0 || chdir("/") < 0))
		fakeexe_die("chroot");
	execv(argv[optind], argv + optind);
	fakeexe_die(argv[optind]);
	return 2;
}
