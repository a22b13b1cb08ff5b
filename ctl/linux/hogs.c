/* Linux: saturate --compare --restraint's CPU hogs (work.h). Run by a
 * user, a go-between child forks them and ends, so that they are init's
 * (or a subreaper's) and not descendants of cpupolicyctl, which is the
 * foreground then; their pids come back over a pipe. Run by root, which
 * declares no foreground, they are its children, each taking the hogs'
 * user first (setgroups, setresgid, setresuid: a hog never runs as
 * root), and reaped here. Each is held by a pidfd, which neither a
 * reused pid nor another's wait can fool. They count in a shared
 * anonymous mapping. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os.h"
#include "util.h"
#include "../work.h"

/* How long the hogs' start and each hog's end may take. */
#define HOGS_WAIT_MS 5000
/* Spins between looks at the clock and the stop flag: a spin is 4096
 * additions, a few microseconds. */
#define HOGS_BATCH 64

struct hogs_slot {
	volatile unsigned long long spins;
	volatile long long cpu_ns;
};

struct hogs_shared {
	volatile int stop;
	long long until_ns;
	struct hogs_slot slot[];
};

struct hogs {
	struct hogs_shared *sh;
	size_t size;
	unsigned count;
	bool children; /* ours to reap */
	pid_t *pid;
	int *pidfd; /* -1: none (a kernel before 5.3): the pid alone */
};

bool hogs_supported(char *why, size_t size)
{
	(void)why;
	(void)size;
	return true;
}

int hogs_user(const char *name, struct hogs_user *u, char *why, size_t size)
{
	struct passwd *pw;

	*u = (struct hogs_user){.root = geteuid() == 0};
	if (!u->root) {
		pw = getpwuid(getuid());
		if (name && (!pw || strcmp(pw->pw_name, name) != 0)) {
			snprintf(why, size,
				 "--user is root's: a user's hogs are the "
				 "user's own");
			return -1;
		}
		u->uid = getuid();
		u->gid = getgid();
	} else {
		if (!name)
			name = getenv("SUDO_USER");
		if (!name || !*name) {
			snprintf(why, size,
				 "run as root, the hogs need an ordinary "
				 "user's account (restraint leaves root's "
				 "and system accounts' processes alone): "
				 "name one with --user");
			return -1;
		}
		if (!(pw = getpwnam(name))) {
			snprintf(why, size, "--user: no user '%.64s'", name);
			return -1;
		}
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
	}
	snprintf(u->name, sizeof(u->name), "%s",
		 pw ? pw->pw_name : "(unnamed)");
	if (accounts_system(u->uid)) {
		snprintf(why, size,
			 "%s (uid %u) is %s: restraint leaves its processes "
			 "alone%s",
			 u->name, u->uid, u->uid ? "a system account" : "root",
			 u->root ? "; name an ordinary user with --user" : "");
		return -1;
	}
	return 0;
}

/* A hog: it spins until told, or until its time is up. Async-signal-safe
 * calls only: it is a fork of a process with threads. */
static _Noreturn void hogs_spin(struct hogs_shared *sh, unsigned i)
{
	struct hogs_slot *slot = &sh->slot[i];
	volatile unsigned long sink = 0;

	prctl(PR_SET_NAME, "cpupolicy-hog", 0, 0, 0);
	for (;;) {
		for (int b = 0; b < HOGS_BATCH; b++) {
			for (int k = 0; k < 4096; k++)
				sink += (unsigned long)k;
		}
		slot->spins += HOGS_BATCH;
		slot->cpu_ns = timing_thread_cpu_ns();
		if (sh->stop || timing_now_ns() >= sh->until_ns)
			_exit(0);
	}
}

/* The hogs' user, or _exit. */
static void hogs_become(const struct hogs_user *u)
{
	gid_t gid = u->gid;

	if (u->root &&
	    (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	     setresuid(u->uid, u->uid, u->uid) < 0))
		_exit(126);
	if (getuid() != u->uid || geteuid() != u->uid)
		_exit(126);
}

/* The go-between: the hogs, each pid down fd. */
static _Noreturn void hogs_fork_all(struct hogs *h, const struct hogs_user *u,
				    int fd)
{
	hogs_become(u);
	for (unsigned i = 0; i < h->count; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fd);
			hogs_spin(h->sh, i);
		}
		if (pid < 0 || write(fd, &pid, sizeof(pid)) != sizeof(pid))
			_exit(126);
	}
	_exit(0);
}

static int hogs_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* The go-between's pids, until it sent them all or the deadline. */
static unsigned hogs_read_pids(struct hogs *h, int fd)
{
	long long end = timing_now_ns() + HOGS_WAIT_MS * 1000000LL;
	struct pollfd pfd = {fd, POLLIN, 0};
	unsigned n = 0;
	pid_t pid;

	while (n < h->count && timing_now_ns() < end &&
	       poll(&pfd, 1, (int)((end - timing_now_ns()) / 1000000)) > 0 &&
	       read(fd, &pid, sizeof(pid)) == sizeof(pid)) {
		h->pid[n] = pid;
		h->pidfd[n] = hogs_pidfd(pid);
		n++;
	}
	return n;
}

/* The go-between ends at once once it forked them; it is waited for
 * with a deadline all the same, then killed. */
static void hogs_reap_between(pid_t pid)
{
	long long end = timing_now_ns() + HOGS_WAIT_MS * 1000000LL;

	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (timing_now_ns() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		timing_sleep_ns(1000000);
	}
}

/* Root's: each hog a child of ours. */
static struct hogs *hogs_start_children(struct hogs *h,
					const struct hogs_user *u, char *why,
					size_t size)
{
	unsigned count = h->count;

	h->children = true;
	for (h->count = 0; h->count < count; h->count++) {
		pid_t pid = fork();

		if (pid == 0) {
			hogs_become(u);
			hogs_spin(h->sh, h->count);
		}
		if (pid < 0) {
			snprintf(why, size, "cannot start the hogs: %s",
				 strerror(errno));
			hogs_stop(h);
			return NULL;
		}
		h->pid[h->count] = pid;
		h->pidfd[h->count] = hogs_pidfd(pid);
	}
	return h;
}

struct hogs *hogs_start(unsigned count, const struct hogs_user *u,
			long long until_ns, char *why, size_t size)
{
	struct hogs *h = xcalloc(1, sizeof(*h));
	unsigned got;
	int fds[2];
	pid_t between;

	h->count = count;
	h->pid = xcalloc(count, sizeof(*h->pid));
	h->pidfd = xcalloc(count, sizeof(*h->pidfd));
	h->size = sizeof(*h->sh) + count * sizeof(h->sh->slot[0]);
	h->sh = mmap(NULL, h->size, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h->sh == MAP_FAILED || pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, size, "cannot start the hogs: %s",
			 strerror(errno));
		if (h->sh != MAP_FAILED)
			munmap(h->sh, h->size);
		free(h->pid);
		free(h->pidfd);
		free(h);
		return NULL;
	}
	h->sh->until_ns = until_ns;
	if (u->root) {
		close(fds[0]);
		close(fds[1]);
		return hogs_start_children(h, u, why, size);
	}
	between = fork();
	if (between == 0) {
		close(fds[0]);
		hogs_fork_all(h, u, fds[1]);
	}
	close(fds[1]);
	got = between > 0 ? hogs_read_pids(h, fds[0]) : 0;
	close(fds[0]);
	if (between > 0)
		hogs_reap_between(between);
	if (got < count) {
		snprintf(why, size,
			 "cannot start the hogs as %s (uid %u): %u of %u "
			 "started",
			 u->name, u->uid, got, count);
		h->count = got;
		hogs_stop(h);
		return NULL;
	}
	return h;
}

pid_t hogs_pid(const struct hogs *h, unsigned i)
{
	return h->pid[i];
}

void hogs_counts(const struct hogs *h, unsigned long long *spins,
		 long long *cpu_ns)
{
	*spins = 0;
	*cpu_ns = 0;
	for (unsigned i = 0; i < h->count; i++) {
		*spins += h->sh->slot[i].spins;
		*cpu_ns += h->sh->slot[i].cpu_ns;
	}
}

/* Ended: its pidfd readable, or (without one) no such process. */
static bool hogs_ended(const struct hogs *h, unsigned i)
{
	struct pollfd pfd = {h->pidfd[i], POLLIN, 0};

	if (h->pidfd[i] >= 0)
		return poll(&pfd, 1, 0) > 0;
	return kill(h->pid[i], 0) < 0 && errno == ESRCH;
}

static void hogs_kill(const struct hogs *h, unsigned i)
{
#ifdef SYS_pidfd_send_signal
	if (h->pidfd[i] >= 0) {
		syscall(SYS_pidfd_send_signal, h->pidfd[i], SIGKILL, NULL, 0);
		return;
	}
#endif
	kill(h->pid[i], SIGKILL);
}

bool hogs_stop(struct hogs *h)
{
	long long end = timing_now_ns() + HOGS_WAIT_MS * 1000000LL;
	bool all = true;

	if (!h)
		return true;
	h->sh->stop = 1;
	for (unsigned i = 0; i < h->count; i++)
		hogs_kill(h, i);
	for (unsigned i = 0; i < h->count; i++) {
		while (!hogs_ended(h, i) && timing_now_ns() < end)
			timing_sleep_ns(2000000);
		if (!hogs_ended(h, i)) {
			fprintf(stderr,
				"cpupolicyctl: hog %d did not end within "
				"%d s\n",
				(int)h->pid[i], HOGS_WAIT_MS / 1000);
			all = false;
		}
		if (h->children)
			waitpid(h->pid[i], NULL,
				hogs_ended(h, i) ? 0 : WNOHANG);
		if (h->pidfd[i] >= 0)
			close(h->pidfd[i]);
	}
	munmap(h->sh, h->size);
	free(h->pid);
	free(h->pidfd);
	free(h);
	return all;
}
