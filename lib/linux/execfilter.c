/* The exec filter in the kernel: a BPF program at the sched_process_exec
 * tracepoint (execfilter.bpf.c, built into a light skeleton: a loader
 * program the kernel runs, which also does the CO-RE relocations, so no
 * BPF library and no parse of the kernel's BTF in the daemon), its maps
 * written from the rule set's plan (bpfmap.c), its ring buffer read by
 * the daemon's loop (bpfring.c). Loaded before the daemon drops its
 * capabilities; nothing is pinned: the maps live as long as the daemon's
 * descriptors, and only a process with CAP_SYS_ADMIN can reach them
 * otherwise (by id). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/types.h>

#include "bpf/execfilter_abi.h"
#include "execfilter.bpf.skel.h"
#include "execfilter.h"
#include "linux.h"
#include "log.h"
#include "util.h"

/* Entries of each hash map, at most: allocated as they are used. Both
 * generations live in them during a reload. */
#define EXECFILTER_ENTRIES 65536
/* Literal exes' files looked at again per tick, at most: for what no
 * directory event shows (execwatch.c watches every path), so slowly: 20,000
 * of them cost 0.3 ms a second at 256. */
#define EXECFILTER_REFRESH 64
/* Records taken from the ring buffer before they are handled, at most:
 * the rest waits in the ring for the next wakeup. */
#define EXECFILTER_TAKE_MAX 4096
/* Bytes of the verifier's log read when the program was refused. */
#define EXECFILTER_LOG_SIZE (256 * 1024)

/* A literal exe as last seen: its file's inode, or its basename while no
 * file is there (so that installing it later is seen too). A directory
 * an exe glob lies under (dir): it, or while it is not there the nearest
 * directory above it that is, which whatever is put there lies under. */
struct execfilter_path {
	char *path;
	bool found, dir;
	unsigned dev; /* dir: its filesystem, as the kernel numbers it */
	unsigned long long ino;
};

/* The last mount whose device mountinfo gave, kept through one batch of
 * paths (they mostly lie on one mount), never longer: an id is given to
 * another mount once its own is gone. */
struct execfilter_mount {
	bool known;
	unsigned long long id;
	unsigned dev;
};

struct execfilter {
	struct execfilter_bpf *skel;
	struct bpfring *ring;
	unsigned follow_max; /* the followed map's entries */
	unsigned generation; /* the one in force, 0 or 1 */
	/* The literal exes' texts are the plan's (the rules' own: borrowed
	 * until the next set), the directories' copied into dir_texts. */
	struct execfilter_path *paths;
	char *dir_texts;
	size_t path_count, refresh_next;
	/* Records taken from the ring, not handled yet; when the first of
	 * them was. */
	struct execfilter_event *taken;
	size_t taken_count, taken_capacity;
	unsigned long long taken_ns;
	struct latency latency[EXECFILTER_PHASES];
	unsigned long long received;
	/* The directories of the paths, watched (NULL: not); the paths
	 * they reported, to be looked at (a flag each, and their list). */
	struct execwatch *watch;
	bool *pending;
	size_t *pending_list, pending_count;
};

/* The kernel's dev_t (MAJOR << 20 | MINOR, as in super_block.s_dev)
 * in the encoding stat() reports (new_encode_dev, glibc's makedev). */
unsigned long long execfilter_dev_to_stat(unsigned kernel_dev)
{
	return makedev(kernel_dev >> 20, kernel_dev & 0xfffff);
}

static bool execfilter_cap(cap_t caps, cap_value_t cap)
{
	cap_flag_value_t value = CAP_CLEAR;

	if (caps && CAP_IS_SUPPORTED(cap))
		cap_get_flag(caps, cap, CAP_EFFECTIVE, &value);
	return value == CAP_SET;
}

static void execfilter_lockdown(char *buf, size_t size)
{
	char text[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	char *open, *close;

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(text, sizeof(text), f) && (open = strchr(text, '[')) &&
	    (close = strchr(open, ']')))
		snprintf(buf, size, "%.*s", (int)(close - open - 1), open + 1);
	fclose(f);
}

static void execfilter_env_read(struct execfilter_env *env, const char *step,
				int error, const char *verifier)
{
	struct utsname u;
	cap_t caps = cap_get_proc();

	*env = (struct execfilter_env){.step = step, .error = error};
	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &env->kernel_major,
		       &env->kernel_minor);
	env->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	env->cap_bpf = execfilter_cap(caps, CAP_BPF);
	env->cap_perfmon = execfilter_cap(caps, CAP_PERFMON);
	env->cap_sys_admin = execfilter_cap(caps, CAP_SYS_ADMIN);
	if (caps)
		cap_free(caps);
	execfilter_lockdown(env->lockdown, sizeof(env->lockdown));
	snprintf(env->verifier, sizeof(env->verifier), "%s", verifier);
}

/* Why the filter did not load, most telling first: a kernel without BTF
 * cannot relocate the program; loading and attaching it takes CAP_BPF
 * and CAP_PERFMON, or CAP_SYS_ADMIN; lockdown's confidentiality mode
 * forbids reading kernel memory from BPF; tp_btf programs and ring
 * buffers and bpf_loop need Linux 5.17. */
void execfilter_refusal(const struct execfilter_env *env, char *buf,
			size_t size)
{
	bool old = env->kernel_major < 5 ||
		   (env->kernel_major == 5 && env->kernel_minor < 17);
	bool privileged =
		env->cap_sys_admin || (env->cap_bpf && env->cap_perfmon);

	if (!env->btf)
		snprintf(buf, size,
			 "the kernel has no BTF (/sys/kernel/btf/vmlinux, "
			 "CONFIG_DEBUG_INFO_BTF), which the filter's program "
			 "needs to load");
	else if (!privileged && (env->error == EPERM || env->error == EACCES))
		snprintf(buf, size,
			 "loading the filter takes CAP_BPF and CAP_PERFMON, "
			 "or CAP_SYS_ADMIN, and cpupolicyd runs without them "
			 "(see cpupolicyd(8))");
	else if (strcmp(env->lockdown, "confidentiality") == 0)
		snprintf(buf, size,
			 "the kernel's lockdown mode (confidentiality) "
			 "forbids BPF programs to read kernel memory");
	else if (old)
		snprintf(buf, size,
			 "Linux %d.%d lacks what the filter uses (BTF "
			 "tracepoints, ring buffers, bpf_loop: 5.17 and "
			 "later have them)",
			 env->kernel_major, env->kernel_minor);
	else
		snprintf(buf, size,
			 "the kernel refused the filter (%s): %s%s%s",
			 env->step, strerror(env->error),
			 env->verifier[0] ? "; the verifier: " : "",
			 env->verifier);
}

static const char *execfilter_why(unsigned why)
{
	switch (why) {
	case EXECFILTER_WHY_INODE:
		return "a literal exe's file";
	case EXECFILTER_WHY_NAME:
		return "a basename an exe rule names";
	case EXECFILTER_WHY_COMM:
		return "a name a name rule names";
	case EXECFILTER_WHY_AFFIX:
		return "a glob's literal start and end";
	case EXECFILTER_WHY_ALL:
		return "a rule the filter cannot judge";
	case EXECFILTER_WHY_LONG:
		return "a name too long to judge";
	case EXECFILTER_WHY_FOLLOWED:
		return "a managed process or its child";
	case EXECFILTER_WHY_FULL:
		return "every exec, the followed processes' map full";
	case EXECFILTER_WHY_DIR:
		return "a directory an exe glob lies under";
	case EXECFILTER_WHY_DEEP:
		return "a path too deep to judge";
	}
	return "?";
}

/* A record of the ring, kept for execfilter_deliver. A full queue stops
 * the reading once this record is kept: the reader has consumed it
 * already, and leaves the rest in the ring. */
static int execfilter_on_event(void *ctx, const void *data, size_t size)
{
	struct execfilter *f = ctx;
	const struct execfilter_event *e = data;

	if (size < sizeof(*e) || !e->pid)
		return 0;
	if (f->taken_count == f->taken_capacity) {
		f->taken_capacity =
			f->taken_capacity ? f->taken_capacity * 2 : 64;
		f->taken = xreallocarray(f->taken, f->taken_capacity,
					 sizeof(*f->taken));
	}
	f->taken[f->taken_count++] = *e;
	return f->taken_count >= EXECFILTER_TAKE_MAX ? -E2BIG : 0;
}

static struct execfilter *execfilter_fail(struct execfilter *f,
					  const char *step, int error,
					  char *why, size_t why_size)
{
	struct execfilter_env env;

	execfilter_env_read(&env, step, error, "");
	execfilter_refusal(&env, why, why_size);
	execfilter_close(f);
	return NULL;
}

/* The maps' sizes, which the loader program takes from the skeleton
 * (their flags are the program's own). */
static void execfilter_size_maps(struct execfilter_bpf *skel,
				 unsigned follow_max)
{
	skel->maps.followed.max_entries = follow_max;
	skel->maps.inodes.max_entries = EXECFILTER_ENTRIES;
	skel->maps.names.max_entries = EXECFILTER_ENTRIES;
	skel->maps.comms.max_entries = EXECFILTER_ENTRIES;
	skel->maps.dirs.max_entries = EXECFILTER_ENTRIES;
}

/* The verifier's last line about the program it refused: a second
 * load, with its log, only once the first failed. */
static void execfilter_verifier_says(unsigned follow_max, char *out,
				     size_t size)
{
	struct execfilter_bpf *skel = execfilter_bpf__open();
	char *log = xcalloc(EXECFILTER_LOG_SIZE, 1), *line;
	size_t len;

	out[0] = '\0';
	if (skel) {
		execfilter_size_maps(skel, follow_max);
		skel->ctx.log_level = 1;
		skel->ctx.log_size = EXECFILTER_LOG_SIZE;
		skel->ctx.log_buf = (__u64)(unsigned long)log;
		execfilter_bpf__load(skel);
		execfilter_bpf__destroy(skel);
	}
	log[EXECFILTER_LOG_SIZE - 1] = '\0';
	/* The last line but its counts ("processed N insns ..."). */
	for (;;) {
		len = strlen(log);
		while (len && log[len - 1] == '\n')
			log[--len] = '\0';
		line = strrchr(log, '\n');
		line = line ? line + 1 : log;
		if (line == log ||
		    (strncmp(line, "processed ", 10) != 0 &&
		     strncmp(line, "verification time", 17) != 0))
			break;
		*line = '\0';
	}
	snprintf(out, size, "%s", line);
	free(log);
}

static struct execfilter *execfilter_refused(struct execfilter *f,
					     unsigned follow_max, int error,
					     char *why, size_t why_size)
{
	struct execfilter_env env;
	char verifier[sizeof(env.verifier)];

	execfilter_close(f);
	execfilter_verifier_says(follow_max, verifier, sizeof(verifier));
	execfilter_env_read(&env, "load", error, verifier);
	execfilter_refusal(&env, why, why_size);
	return NULL;
}

/* Loads and attaches the program with every exec going to the daemon
 * until execfilter_set gives it the rules, following follow_max
 * processes at most; NULL and why on a failure. */
struct execfilter *execfilter_open(unsigned follow_max, char *why,
				   size_t why_size)
{
	struct execfilter *f = xcalloc(1, sizeof(*f));
	struct execfilter_settings all = {.all = 1};
	unsigned key;

	f->follow_max = follow_max;
	f->skel = execfilter_bpf__open();
	if (!f->skel)
		return execfilter_fail(f, "open", errno, why, why_size);
	execfilter_size_maps(f->skel, follow_max);
	if (execfilter_bpf__load(f->skel) < 0)
		return execfilter_refused(f, follow_max, errno, why, why_size);
	/* Its counts of followed processes are shared memory: without them
	 * a child the map had no room for could go unseen. */
	if (!f->skel->bss)
		return execfilter_fail(f, "load", ENOTSUP, why, why_size);
	for (key = 1; key <= EXECFILTER_GENERATIONS; key++) {
		if (bpfmap_update(f->skel->maps.settings.map_fd, &key, &all,
				  BPF_ANY) < 0)
			return execfilter_fail(f, "load", errno, why, why_size);
	}
	if (execfilter_bpf__attach(f->skel) < 0)
		return execfilter_fail(f, "attach", errno, why, why_size);
	f->ring = bpfring_open(f->skel->maps.events.map_fd);
	if (!f->ring)
		return execfilter_fail(f, "ring buffer", errno, why, why_size);
	f->watch = execwatch_open();
	return f;
}

/* The directories' texts lie in one allocation, the literal exes' are
 * the rules' (execfilter_resolve). */
static void execfilter_paths_free(struct execfilter_path *paths,
				  char *dir_texts)
{
	free(dir_texts);
	free(paths);
}

void execfilter_close(struct execfilter *f)
{
	if (!f)
		return;
	bpfring_close(f->ring);
	execfilter_bpf__destroy(f->skel);
	execwatch_close(f->watch);
	free(f->pending);
	free(f->pending_list);
	execfilter_paths_free(f->paths, f->dir_texts);
	free(f->taken);
	free(f);
}

int execfilter_fd(const struct execfilter *f)
{
	return f->skel->maps.events.map_fd;
}

unsigned long long execfilter_received(const struct execfilter *f)
{
	return f->received;
}

/* CLOCK_MONOTONIC, which bpf_ktime_get_ns reads too, in ns. */
static unsigned long long execfilter_now(void)
{
	return (unsigned long long)timing_now_ns();
}

/* Takes what the ring holds now, to be handled by execfilter_deliver
 * once the proc connector's queue has been read: every fork the kernel
 * reported before these execs is then known first. Not OS_OK: the ring
 * failed. */
enum os_status execfilter_take(struct execfilter *f)
{
	int n;

	if (!f->taken_count)
		f->taken_ns = execfilter_now();
	n = bpfring_consume(f->ring, execfilter_on_event, f);

	if (n < 0 && f->taken_count >= EXECFILTER_TAKE_MAX)
		return OS_OK; /* the rest at the next wakeup */
	return n < 0 ? status_of_errno(-n) : OS_OK;
}

/* A start in ns since boot in the clock ticks /proc's start times count
 * (the kernel's nsec_to_clock_t). */
static unsigned long long execfilter_ticks(__u64 ns)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? ns / (1000000000ULL / (unsigned long long)hz) : 0;
}

static enum events_kind execfilter_kind(__u32 why)
{
	switch (why) {
	case EXECFILTER_WHY_FORK:
		return EVENTS_KIND_FORK;
	case EXECFILTER_WHY_THREAD:
		return EVENTS_KIND_THREAD;
	case EXECFILTER_WHY_EXIT:
		return EVENTS_KIND_EXIT;
	case EXECFILTER_WHY_END:
		return EVENTS_KIND_END;
	default:
		return EVENTS_KIND_EXEC;
	}
}

/* A sent exec handled, its time counted by step (execfilter_phase); a
 * clock that went back (sent_ns after the take) counts nothing. */
static void execfilter_timed(struct execfilter *f, unsigned long long sent_ns,
			     events_fn fn, void *ctx,
			     const struct events_event *ev)
{
	unsigned long long begun = execfilter_now(), done;

	fn(ctx, ev);
	done = execfilter_now();
	if (!sent_ns || sent_ns > f->taken_ns || f->taken_ns > begun)
		return;
	latency_add(&f->latency[EXECFILTER_PHASE_WAKE], f->taken_ns - sent_ns);
	latency_add(&f->latency[EXECFILTER_PHASE_QUEUE], begun - f->taken_ns);
	latency_add(&f->latency[EXECFILTER_PHASE_WORK], done - begun);
}

/* The records taken, in the ring's order, as events: execs, and the
 * forks, new threads and ends of threads of followed processes. */
void execfilter_deliver(struct execfilter *f, events_fn fn, void *ctx)
{
	size_t count = f->taken_count;

	f->taken_count = 0;
	for (size_t i = 0; i < count; i++) {
		const struct execfilter_event *e = &f->taken[i];
		struct events_event ev = {
			.kind = EVENTS_KIND_EXEC,
			.pid = (pid_t)e->pid,
			.tid = (pid_t)e->pid,
			.start = execfilter_ticks(e->start_ns)};

		if (execfilter_kind(e->why) != EVENTS_KIND_EXEC) {
			ev = (struct events_event){
				.kind = execfilter_kind(e->why),
				.pid = (pid_t)e->pid,
				.tid = (pid_t)e->tid,
				.parent = (pid_t)e->parent,
				.parent_tid = (pid_t)e->parent_tid,
				.start = execfilter_ticks(e->start_ns)};
			fn(ctx, &ev);
			continue;
		}
		snprintf(ev.comm, sizeof(ev.comm), "%.*s", (int)sizeof(e->comm),
			 e->comm);
		f->received++;
		if (log_get_level() >= LOG_LEVEL_DEBUG) {
			unsigned long long dev = execfilter_dev_to_stat(e->dev);

			log_debug("exec filter: pid %u, file %u:%u inode %llu, "
				  "%s",
				  e->pid, major(dev), minor(dev),
				  (unsigned long long)e->ino,
				  execfilter_why(e->why));
		}
		execfilter_timed(f, e->at_ns, fn, ctx, &ev);
	}
}

/* The followed map's counts, shared with the program (its .bss, mapped
 * here): read and written atomically, as the kernel's side does. */
static void execfilter_follow_stats(const struct execfilter *f,
				    struct execfilter_stats *st)
{
	struct execfilter_bpf__bss *bss = f->skel->bss;
	unsigned long long acked;

	st->follow_max = f->follow_max;
	st->following = __atomic_load_n(&bss->follow_count, __ATOMIC_ACQUIRE);
	st->follow_failed =
		__atomic_load_n(&bss->follow_failed, __ATOMIC_ACQUIRE);
	acked = __atomic_load_n(&bss->follow_acked, __ATOMIC_ACQUIRE);
	st->full = st->follow_failed != acked;
	/* For a moment, a child's exit counted before its fork was. */
	if (st->following > st->follow_max)
		st->following = st->follow_max;
}

enum os_status execfilter_stats(const struct execfilter *f,
				struct execfilter_stats *st)
{
	int cpus = bpfmap_possible_cpus();
	unsigned long long *values, sums[EXECFILTER_STATS] = {0};
	int fd = f->skel->maps.stats.map_fd;

	*st = (struct execfilter_stats){0};
	if (cpus <= 0)
		return status_of_errno(errno);
	values = xcalloc((size_t)cpus, sizeof(*values));
	for (unsigned key = 0; key < EXECFILTER_STATS; key++) {
		if (bpfmap_lookup(fd, &key, values) < 0)
			continue;
		for (int c = 0; c < cpus; c++)
			sums[key] += values[c];
	}
	free(values);
	st->seen = sums[EXECFILTER_STAT_EXECS];
	st->sent = sums[EXECFILTER_STAT_SENT];
	st->lost = sums[EXECFILTER_STAT_LOST];
	memcpy(st->latency, f->latency, sizeof(st->latency));
	execfilter_follow_stats(f, st);
	return OS_OK;
}

/* Sets bit in key's value, adding the key. */
static int execfilter_mark(int fd, const void *key, unsigned bit)
{
	__u32 value = 0;

	if (bpfmap_lookup(fd, key, &value) < 0)
		value = 0;
	value |= bit;
	return bpfmap_update(fd, key, &value, BPF_ANY);
}

/* Clears bit in key's value, and the key with the last bit; -1 when the
 * map refused it (a key gone meanwhile is no failure). */
static int execfilter_unmark(int fd, const void *key, unsigned bit)
{
	__u32 value;

	if (bpfmap_lookup(fd, key, &value) < 0)
		return 0;
	value &= ~bit;
	if ((value ? bpfmap_update(fd, key, &value, BPF_EXIST)
		   : bpfmap_delete(fd, key)) < 0 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

static int execfilter_mark_name(int fd, const char *name, size_t size,
				unsigned bit)
{
	char key[EXECFILTER_NAME_MAX] = {0};

	if (strlen(name) >= size)
		return 0; /* never a key (execplan.c) */
	memcpy(key, name, strlen(name));
	return execfilter_mark(fd, key, bit);
}

/* Clears bit in every entry, and drops the entries left without any:
 * the keys first, as deleting while walking would lose the walk. */
/* Every key of a map, copied out (the caller's to free): a map cannot be
 * walked while its entries are deleted. */
static char *execfilter_keys(int fd, size_t key_size, size_t *count)
{
	char *keys = NULL;
	size_t capacity = 0;

	*count = 0;
	for (;;) {
		/* Doubling: a reload of thousands of keys copies them once. */
		if (*count + 1 >= capacity) {
			capacity = capacity ? capacity * 2 : 256;
			keys = xreallocarray(keys, capacity, key_size);
		}
		if (bpfmap_next_key(
			    fd, *count ? keys + (*count - 1) * key_size : NULL,
			    keys + *count * key_size) < 0)
			break;
		(*count)++;
	}
	return keys;
}

static int execfilter_sweep(int fd, size_t key_size, unsigned bit)
{
	size_t count;
	char *keys = execfilter_keys(fd, key_size, &count);
	int status = 0;

	for (size_t i = 0; i < count; i++) {
		if (execfilter_unmark(fd, keys + i * key_size, bit) < 0)
			status = -1;
	}
	free(keys);
	return status;
}

/* The kernel's number of the filesystem of mount id (statx's
 * stx_mnt_id): the super_block.s_dev that /proc/self/mountinfo shows,
 * which the kernel compares with. 0 when it is not there (mountinfo
 * leaves out the mounts a chroot cannot reach). */
static unsigned execfilter_mount_dev(unsigned long long id)
{
	char *path = xasprintf("%s/self/mountinfo", paths_procfs());
	FILE *f = fopen(path, "re");
	unsigned long long mount;
	unsigned major, minor, dev = 0;
	char line[4096];

	free(path);
	while (f && !dev && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %*u %u:%u", &mount, &major, &minor) ==
			    3 &&
		    mount == id)
			dev = major << 20 | minor;
	}
	if (f)
		fclose(f);
	return dev;
}

/* A directory an exe glob names, or the nearest one above it that is
 * there: its inode and its filesystem as the kernel knows them. The
 * root's at worst (then every exec is sent). */
static void execfilter_resolve_dir(struct execfilter_path *p,
				   struct execfilter_mount *last)
{
	char *at = xstrdup(p->path);
	struct statx x;

	p->found = false;
	for (;;) {
		char *slash;

		if (statx(AT_FDCWD, at[0] ? at : "/", AT_STATX_DONT_SYNC,
			  STATX_TYPE | STATX_INO | STATX_MNT_ID, &x) == 0 &&
		    S_ISDIR(x.stx_mode) && (x.stx_mask & STATX_MNT_ID)) {
			p->found = strcmp(at, p->path) == 0;
			p->ino = x.stx_ino;
			if (!last->known || last->id != x.stx_mnt_id)
				*last = (struct execfilter_mount){
					true, x.stx_mnt_id,
					execfilter_mount_dev(x.stx_mnt_id)};
			/* A mount outside a chroot is not in its mountinfo:
			 * then stat's device, the kernel's but on btrfs
			 * subvolumes and overlayfs. */
			p->dev = last->dev;
			if (!p->dev)
				p->dev =
					x.stx_dev_major << 20 | x.stx_dev_minor;
			break;
		}
		slash = strrchr(at, '/');
		if (!at[0] || !slash) {
			p->ino = 0; /* not even the root: never a key */
			p->dev = 0;
			break;
		}
		*slash = '\0';
	}
	free(at);
}

/* A literal exe's file, as the daemon's own mount namespace names it:
 * the identity its match checks (match.c's match_file). The inode alone
 * is the key: the device number the kernel holds (super_block.s_dev) is
 * not always the one stat() reports (btrfs subvolumes and overlayfs
 * report their own), and a false hit only costs a wakeup. */
static void execfilter_resolve_path(struct execfilter_path *p,
				    struct execfilter_mount *last)
{
	struct stat st;

	if (p->dir) {
		execfilter_resolve_dir(p, last);
		return;
	}
	p->found = stat(p->path, &st) == 0;
	p->ino = p->found ? st.st_ino : 0;
}

/* The literal exes, their texts borrowed from the plan (20,000 rules'
 * of them are there already), then the directories, the plan's own
 * texts, copied into one allocation (*dir_texts). */
static struct execfilter_path *execfilter_resolve(const struct execplan *plan,
						  char **dir_texts)
{
	size_t files = plan->paths.count, count = files + plan->dirs.count;
	struct execfilter_path *paths = xcalloc(count + 1, sizeof(*paths));
	struct execfilter_mount last = {0};
	size_t bytes = 0;
	char *at;

	for (size_t i = 0; i < plan->dirs.count; i++)
		bytes += strlen(plan->dirs.values[i]) + 1;
	at = *dir_texts = bytes ? xmalloc(bytes) : NULL;
	for (size_t i = 0; i < count; i++) {
		if (i < files) {
			paths[i].path = plan->paths.values[i];
		} else {
			const char *text = plan->dirs.values[i - files];
			size_t len = strlen(text) + 1;

			paths[i].dir = true;
			paths[i].path = memcpy(at, text, len);
			at += len;
		}
		execfilter_resolve_path(&paths[i], &last);
	}
	return paths;
}

/* A path's key in the maps of bit's generation: a file's inode, a
 * missing file's basename, a directory. */
static int execfilter_mark_path(struct execfilter *f,
				const struct execfilter_path *p, unsigned bit)
{
	const char *base = strrchr(p->path, '/');
	struct execfilter_dir dir = {.ino = p->ino, .dev = p->dev};
	__u64 ino = p->ino;

	if (p->dir)
		return p->ino ? execfilter_mark(f->skel->maps.dirs.map_fd, &dir,
						bit)
			      : 0;
	if (p->found)
		return execfilter_mark(f->skel->maps.inodes.map_fd, &ino, bit);
	return execfilter_mark_name(f->skel->maps.names.map_fd,
				    base ? base + 1 : "", EXECFILTER_NAME_MAX,
				    bit);
}

static int execfilter_write_keys(struct execfilter *f,
				 const struct execplan *plan,
				 const struct execfilter_path *paths,
				 unsigned bit)
{
	int names = f->skel->maps.names.map_fd;
	int comms = f->skel->maps.comms.map_fd;

	for (size_t i = 0; i < plan->paths.count + plan->dirs.count; i++) {
		if (execfilter_mark_path(f, &paths[i], bit) < 0)
			return -1;
	}
	for (size_t i = 0; i < plan->names.count; i++) {
		if (execfilter_mark_name(names, plan->names.values[i],
					 EXECFILTER_NAME_MAX, bit) < 0)
			return -1;
	}
	for (size_t i = 0; i < plan->comms.count; i++) {
		if (execfilter_mark_name(comms, plan->comms.values[i],
					 EXECFILTER_COMM_MAX, bit) < 0)
			return -1;
	}
	return 0;
}

/* A glob's literal start (or, when it has none, its end, last byte
 * first) as a key of the generation's tries; *start: the trie of starts. */
static void execfilter_lpm_key(const struct execplan_affix *a,
			       unsigned generation, struct execfilter_lpm *key,
			       bool *start)
{
	const char *text = a->prefix[0] ? a->prefix : a->suffix;
	size_t len = strlen(text);

	*key = (struct execfilter_lpm){
		.prefixlen = (__u32)(8 * (EXECFILTER_LPM_HEAD + len))};
	key->data[0] = (__u8)generation;
	key->data[1] = a->comm ? EXECFILTER_KIND_COMM : EXECFILTER_KIND_NAME;
	*start = a->prefix[0] != '\0';
	for (size_t i = 0; i < len; i++)
		key->data[EXECFILTER_LPM_HEAD + i] =
			(__u8)(*start ? text[i] : text[len - 1 - i]);
}

static int execfilter_write_affixes(struct execfilter *f,
				    const struct execplan *plan,
				    unsigned generation)
{
	int starts = f->skel->maps.starts.map_fd,
	    ends = f->skel->maps.ends.map_fd;
	__u32 one = 1;

	for (size_t i = 0; i < plan->affix_count; i++) {
		struct execfilter_lpm key;
		bool start;

		execfilter_lpm_key(&plan->affixes[i], generation, &key, &start);
		if (bpfmap_update(start ? starts : ends, &key, &one, BPF_ANY) <
		    0)
			return -1;
	}
	return 0;
}

/* Which tries the generation's plan has entries in. */
static unsigned execfilter_tries(const struct execplan *plan)
{
	unsigned tries = 0;

	for (size_t i = 0; i < plan->affix_count; i++)
		tries |= plan->affixes[i].prefix[0] ? EXECFILTER_AFFIX_STARTS
						    : EXECFILTER_AFFIX_ENDS;
	return tries;
}

/* The old generation's entries of a trie, gone. */
static int execfilter_sweep_lpm(int fd, unsigned generation)
{
	size_t count;
	struct execfilter_lpm *keys = (struct execfilter_lpm *)execfilter_keys(
		fd, sizeof(*keys), &count);
	int status = 0;

	for (size_t i = 0; i < count; i++) {
		if (keys[i].data[0] == generation &&
		    bpfmap_delete(fd, &keys[i]) < 0 && errno != ENOENT)
			status = -1;
	}
	free(keys);
	return status;
}

/* The next generation's settings, then the switch to it: one write of
 * one value, which the program reads once per exec. */
static unsigned execfilter_looks(const struct execplan *plan)
{
	unsigned looks = 0;

	if (plan->paths.count || plan->names.count)
		looks |= EXECFILTER_LOOK_NAME; /* a missing file's basename */
	if (plan->comms.count)
		looks |= EXECFILTER_LOOK_COMM;
	for (size_t i = 0; i < plan->affix_count; i++)
		looks |= plan->affixes[i].comm ? EXECFILTER_LOOK_COMM
					       : EXECFILTER_LOOK_NAME;
	if (plan->dirs.count)
		looks |= EXECFILTER_LOOK_DIRS;
	return looks;
}

static int execfilter_switch(struct execfilter *f, unsigned next, bool all,
			     const struct execplan *plan)
{
	int fd = f->skel->maps.settings.map_fd;
	struct execfilter_settings s = {
		.all = all,
		.tries = execfilter_tries(plan),
		.looks = execfilter_looks(plan),
	};
	struct execfilter_settings now = {.generation = next};
	unsigned key = 1 + next, zero = 0;

	if (bpfmap_update(fd, &key, &s, BPF_ANY) < 0 ||
	    bpfmap_update(fd, &zero, &now, BPF_ANY) < 0)
		return -1;
	return 0;
}

/* The directories of the paths now in force, watched: the watch borrows
 * f->paths' strings, which stay until the next set or the close. */
static void execfilter_watch_paths(struct execfilter *f)
{
	char **texts = xcalloc(f->path_count + 1, sizeof(*texts));

	free(f->pending);
	free(f->pending_list);
	f->pending = xcalloc(f->path_count + 1, sizeof(*f->pending));
	f->pending_list = NULL; /* grown as paths are reported */
	f->pending_count = 0;
	for (size_t i = 0; i < f->path_count; i++)
		texts[i] = f->paths[i].path;
	execwatch_set(f->watch, texts, f->path_count);
	free(texts);
}

/* The plan into the generation not in force, the switch, then the old
 * generation's entries cleared: an exec sees one whole rule set, the
 * old or the new, never a mix. Keys the kernel cannot take (the maps
 * full) leave that generation sending every exec. */
enum os_status execfilter_set(struct execfilter *f, const struct execplan *plan)
{
	unsigned next = f->generation ^ 1, old = f->generation;
	char *dir_texts, *old_texts;
	struct execfilter_path *paths = execfilter_resolve(plan, &dir_texts);
	struct execfilter_path *old_paths;
	size_t count = plan->paths.count + plan->dirs.count;
	bool all = plan->all;

	if (!all &&
	    (execfilter_write_keys(f, plan, paths, EXECFILTER_BIT(next)) < 0 ||
	     execfilter_write_affixes(f, plan, next) < 0)) {
		log_warn("the exec filter cannot hold the rules' keys; every "
			 "exec goes to the daemon");
		all = true;
	}
	if (execfilter_switch(f, next, all, plan) < 0) {
		enum os_status status = status_of_errno(errno);

		execfilter_paths_free(paths, dir_texts);
		return status;
	}
	f->generation = next;
	execfilter_sweep(f->skel->maps.inodes.map_fd, sizeof(__u64),
			 EXECFILTER_BIT(old));
	execfilter_sweep(f->skel->maps.names.map_fd, EXECFILTER_NAME_MAX,
			 EXECFILTER_BIT(old));
	execfilter_sweep(f->skel->maps.comms.map_fd, EXECFILTER_COMM_MAX,
			 EXECFILTER_BIT(old));
	execfilter_sweep(f->skel->maps.dirs.map_fd,
			 sizeof(struct execfilter_dir), EXECFILTER_BIT(old));
	execfilter_sweep_lpm(f->skel->maps.starts.map_fd, old);
	execfilter_sweep_lpm(f->skel->maps.ends.map_fd, old);
	old_paths = f->paths;
	old_texts = f->dir_texts;
	f->paths = paths;
	f->dir_texts = dir_texts;
	f->path_count = count;
	execfilter_watch_paths(f);
	execfilter_paths_free(old_paths, old_texts); /* no longer watched */
	return OS_OK;
}

static void execfilter_pend(void *ctx, size_t path)
{
	struct execfilter *f = ctx;

	if (path >= f->path_count || f->pending[path])
		return;
	f->pending[path] = true;
	f->pending_list = xgrow(f->pending_list, f->pending_count,
				sizeof(*f->pending_list));
	f->pending_list[f->pending_count++] = path;
}

/* A directory's old key, cleared once no directory of the plan has it
 * (the one above a directory made since stood in for it): unlike a
 * file's, no running process needs it. */
static void execfilter_unmark_dir(struct execfilter *f,
				  const struct execfilter_path *old)
{
	struct execfilter_dir key = {.ino = old->ino, .dev = old->dev};

	for (size_t i = 0; i < f->path_count; i++) {
		if (f->paths[i].dir && f->paths[i].ino == old->ino &&
		    f->paths[i].dev == old->dev)
			return;
	}
	/* Refused: the next write of the plan clears it. */
	execfilter_unmark(f->skel->maps.dirs.map_fd, &key,
			  EXECFILTER_BIT(f->generation));
}

/* Whether a path is what it was: the same file, directory or absence. */
static bool execfilter_path_same(const struct execfilter_path *a,
				 const struct execfilter_path *b)
{
	return a->found == b->found && a->ino == b->ino && a->dev == b->dev;
}

/* A literal exe's path looked at again: another file there (an upgrade
 * renamed a new one over it, an install created it) gets the key of the
 * rules in force at once; a file gone has its basename stand in. The
 * old file's key stays until the maps are written again: a process that
 * runs the version an upgrade replaced still matches (match.c), and an
 * exec of it may be under way. Returns 1 when it changed, 0 when not,
 * -1 when a key could not be written (then the caller writes the whole
 * plan again, which also drops the keys of files gone). */
static int execfilter_follow_path(struct execfilter *f, size_t i,
				  struct execfilter_mount *last)
{
	struct execfilter_path *p = &f->paths[i], now = *p, before;

	execfilter_resolve_path(&now, last);
	if (execfilter_path_same(&now, p))
		return 0;
	if (execfilter_mark_path(f, &now, EXECFILTER_BIT(f->generation)) < 0)
		return -1;
	before = *p;
	*p = now;
	if (p->dir) {
		execfilter_unmark_dir(f, &before);
		log_debug("exec filter: %s is %s now (inode %llu): what lies "
			  "under it is sent",
			  p->path, p->found ? "there" : "not there",
			  (unsigned long long)p->ino);
	} else if (p->found)
		log_debug("exec filter: %s is another file now (inode %llu): "
			  "its execs are sent",
			  p->path, (unsigned long long)p->ino);
	else
		log_debug("exec filter: %s is gone: its basename stands in",
			  p->path);
	return 1;
}

/* The paths reported, each looked at once. */
static int execfilter_follow_pending(struct execfilter *f)
{
	struct execfilter_mount last = {0};
	int changed = 0, status = 0;

	for (size_t n = 0; n < f->pending_count; n++) {
		size_t i = f->pending_list[n];
		int one = status < 0 ? 0 : execfilter_follow_path(f, i, &last);

		f->pending[i] = false;
		if (one < 0)
			status = -1;
		changed += one > 0;
	}
	f->pending_count = 0;
	return status < 0 ? -1 : changed;
}

/* The descriptor that wakes the loop when a literal exe's directory
 * changed; -1 when none is watched. */
int execfilter_watch_fd(const struct execfilter *f)
{
	return execwatch_fd(f->watch);
}

/* What the directories reported: each literal exe whose file changed
 * has its key at once (execfilter_follow_path). *changed: how many (the
 * caller rescans for what started in between); OS_FAILED when a key
 * could not be written (the caller writes the plan again). A watch that
 * fails is closed (which takes it out of the loop's epoll): the
 * periodic look goes on. */
enum os_status execfilter_watch_read(struct execfilter *f, size_t *changed)
{
	int followed;

	if (execwatch_read(f->watch, execfilter_pend, f) < 0) {
		log_warn("the watch of the rules' programs' directories "
			 "failed; their files are looked at once a second");
		execwatch_close(f->watch);
		f->watch = NULL;
	}
	followed = execfilter_follow_pending(f);
	*changed = followed > 0 ? (size_t)followed : 0;
	return followed < 0 ? OS_FAILED : OS_OK;
}

/* Whether a literal exe's file changed since the maps were written (an
 * upgrade replaces it, an install creates it): then the caller writes
 * the plan again, and rescans for what started in between. A slice of
 * the paths per call, so that a tick with thousands of them stays
 * short: each is looked at every path_count / EXECFILTER_REFRESH calls. */
static bool execfilter_changed(struct execfilter *f)
{
	struct execfilter_mount last = {0};

	execwatch_retry(f->watch, execfilter_pend, f);
	if (execfilter_follow_pending(f) != 0)
		return true;
	for (size_t n = 0; n < EXECFILTER_REFRESH && n < f->path_count; n++) {
		struct execfilter_path *p, now;

		if (f->refresh_next >= f->path_count)
			f->refresh_next = 0;
		p = &f->paths[f->refresh_next++];
		now = *p;
		execfilter_resolve_path(&now, &last);
		if (!execfilter_path_same(&now, p))
			return true;
	}
	return false;
}

enum os_status execfilter_refresh(struct execfilter *f, bool *changed)
{
	*changed = execfilter_changed(f);
	return OS_OK;
}

/* A process the daemon manages from now on: its execs and those of the
 * children it forks from now on reach the daemon, whatever they run
 * (the kernel adds the children itself, and drops them at their end).
 * *added when it was not followed yet; OS_FAILED when the map has no
 * room: then every exec goes to the daemon until execfilter_unfull, so
 * that nothing of it is lost meanwhile. */
enum os_status execfilter_follow(struct execfilter *f, int pid, unsigned how,
				 bool *added)
{
	struct execfilter_bpf__bss *bss = f->skel->bss;
	int fd = f->skel->maps.followed.map_fd;
	__u32 key = (__u32)pid,
	      value = EXECFILTER_FOLLOW_SELF |
		      (how & EXECFILTER_FOLLOWS_CHILDREN
			       ? EXECFILTER_FOLLOW_CHILDREN
			       : 0) |
		      (how & EXECFILTER_FOLLOWS_EXIT ? EXECFILTER_FOLLOW_EXIT
						     : 0);

	*added = false;
	if (bpfmap_update(fd, &key, &value, BPF_NOEXIST) == 0) {
		__atomic_fetch_add(&bss->follow_count, 1, __ATOMIC_SEQ_CST);
		*added = true;
		return OS_OK;
	}
	/* Followed already (a change of rule, a child the kernel added):
	 * what of it is followed is the rule's now. Gone meanwhile: the
	 * process exited, nothing to follow. */
	if (errno == EEXIST) {
		if (bpfmap_update(fd, &key, &value, BPF_EXIST) != 0 &&
		    errno != ENOENT)
			return OS_FAILED;
		return OS_OK;
	}
	__atomic_fetch_add(&bss->follow_failed, 1, __ATOMIC_SEQ_CST);
	return OS_FAILED;
}

/* The processes the map had no room for, up to failed (the count
 * execfilter_stats read), are followed again by the caller: the filter
 * judges execs again, unless the map refused another one since. */
void execfilter_unfull(struct execfilter *f, unsigned long long failed)
{
	__atomic_store_n(&f->skel->bss->follow_acked, failed, __ATOMIC_RELEASE);
}
