// SPDX-License-Identifier: GPL-2.0
/* The exec filter: on every exec the kernel looks the new program up in
 * maps built from the rule set, and wakes the daemon (through a ring
 * buffer) only for a program some rule may match. A superset: the daemon
 * still decides with the whole rule; what is not sent can match no rule.
 * GPL: bpf_probe_read_kernel and the ring buffer are GPL-only helpers. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "execfilter_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Sized by the daemon before loading (the light skeleton's max_entries);
 * allocated as they are used. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u32);
} inodes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, char[EXECFILTER_NAME_MAX]);
	__type(value, __u32);
} names SEC(".maps");

/* The directories exe globs lie under: /opt/vendor for /opt/vendor/x-*. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct execfilter_dir);
	__type(value, __u32);
} dirs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, char[EXECFILTER_COMM_MAX]);
	__type(value, __u32);
} comms SEC(".maps");

/* Processes whose next exec the daemon must see whatever they run: the
 * ones it manages (it adds them before it applies anything) and, when
 * their rule's value says so (EXECFILTER_FOLLOW_CHILDREN), their
 * children from then on (added here, at the fork, before the child
 * runs): a raise must not outlive its match when a child execs a
 * program no rule matches. Gone when the last thread of one exits.
 * Sized by the daemon (filter_follow_max). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u32);
} followed SEC(".maps");

/* The followed map's bookkeeping, mapped into the daemon's memory as
 * well: its entries; the processes it could not take (here at a fork,
 * or in the daemon), and how many of those the daemon has made up for.
 * While the two counts differ every exec goes to the daemon, so that a
 * child the map had no room for is not lost. Atomic on both sides. */
__u64 follow_count;
__u64 follow_failed;
__u64 follow_acked;

#ifndef EEXIST
#define EEXIST 17
#endif

/* Globs' literal starts, and the ends of those with none: longest-prefix
 * tries, so that any number of them is judged in one lookup each. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, EXECFILTER_LPM_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct execfilter_lpm);
	__type(value, __u32);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, EXECFILTER_LPM_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct execfilter_lpm);
	__type(value, __u32);
} ends SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 + EXECFILTER_GENERATIONS);
	__type(key, __u32);
	__type(value, struct execfilter_settings);
} settings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EXECFILTER_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} events SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&stats, &which);

	if (n)
		(*n)++;
}

static __always_inline bool in_map(void *map, const void *key, __u32 bit)
{
	__u32 *v = bpf_map_lookup_elem(map, key);

	return v && (*v & bit);
}

/* A name and what is around it: EXECFILTER_AFFIX_MAX zero bytes before
 * it and zeros after (read as the bytes before its start when it is read
 * last byte first); and the key a name is looked up by in the tries. */
#define SCRATCH_NAME EXECFILTER_AFFIX_MAX
#define SCRATCH_SIZE 128

struct scratch {
	__u8 name[SCRATCH_SIZE];
	__u8 comm[SCRATCH_SIZE];
	struct execfilter_lpm key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* The name of len bytes (in a scratch buffer) in the tries: by its start
 * in starts, by its end in ends (its bytes last first). */
static __always_inline bool affix_any(struct scratch *buf, const __u8 *name,
				      __u32 len, __u8 generation, __u8 kind,
				      __u32 tries)
{
	struct execfilter_lpm *k = &buf->key;

	k->prefixlen = 8 * (EXECFILTER_LPM_HEAD + EXECFILTER_NAME_MAX);
	k->data[0] = generation;
	k->data[1] = kind;
	if (tries & EXECFILTER_AFFIX_STARTS) {
#pragma clang loop unroll(disable) vectorize(disable)
		for (int i = 0; i < EXECFILTER_NAME_MAX; i++)
			k->data[EXECFILTER_LPM_HEAD + i] =
				name[(SCRATCH_NAME + i) & (SCRATCH_SIZE - 1)];
		if (bpf_map_lookup_elem(&starts, k))
			return true;
	}
	if (!(tries & EXECFILTER_AFFIX_ENDS))
		return false;
		/* Last byte first: the bytes before the name's start are zeros.
		 */
#pragma clang loop unroll(disable) vectorize(disable)
	for (int i = 0; i < EXECFILTER_NAME_MAX; i++)
		k->data[EXECFILTER_LPM_HEAD + i] =
			name[(SCRATCH_NAME + len - 1 - i) & (SCRATCH_SIZE - 1)];
	return bpf_map_lookup_elem(&ends, k) != NULL;
}

/* The directories above the exe, each looked up: the path the exec was
 * asked for may hold links and relative parts, so the dentries the file
 * was reached through are walked instead, from the file up to the root
 * of the process's mount namespace, across each mount to where it is
 * mounted: the directories of the resolved path /proc/PID/exe shows.
 * Read with probe reads: struct mount is reached by container_of. */
static __always_inline __u32 judge_dirs(struct linux_binprm *bprm, __u32 bit)
{
	struct execfilter_dir key = {0};
	struct dentry *d = bprm->file->f_path.dentry, *up;
	struct mount *m =
		container_of(bprm->file->f_path.mnt, struct mount, mnt);

#pragma clang loop unroll(disable)
	for (int i = 0; i < EXECFILTER_DIR_DEPTH; i++) {
		if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
			struct mount *parent = BPF_CORE_READ(m, mnt_parent);

			if (parent == m)
				return 0; /* the root: nothing matched */
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = parent;
			continue;
		}
		up = BPF_CORE_READ(d, d_parent);
		if (up == d)
			return 0; /* a filesystem's root, unmounted */
		d = up;
		key.ino = BPF_CORE_READ(d, d_inode, i_ino);
		key.dev = BPF_CORE_READ(d, d_sb, s_dev);
		if (in_map(&dirs, &key, bit))
			return EXECFILTER_WHY_DIR;
	}
	return EXECFILTER_WHY_DEEP;
}

static __always_inline __u32 judge(struct linux_binprm *bprm, __u64 ino)
{
	__u32 zero = 0, active, bit, key;
	struct execfilter_settings *now, *s;
	struct scratch *buf;
	const unsigned char *dname;
	long name_len, comm_len;

	now = bpf_map_lookup_elem(&settings, &zero);
	if (!now)
		return EXECFILTER_WHY_ALL;
	active = now->generation & 1;
	key = 1 + active;
	s = bpf_map_lookup_elem(&settings, &key);
	if (!s || s->all)
		return EXECFILTER_WHY_ALL;
	bit = EXECFILTER_BIT(active);
	if (in_map(&inodes, &ino, bit))
		return EXECFILTER_WHY_INODE;
	if (!(s->looks & (EXECFILTER_LOOK_NAME | EXECFILTER_LOOK_COMM)))
		goto dirs;
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return EXECFILTER_WHY_ALL;
	/* The name's room is zeroed, the name read into it: its bytes and
	 * the zeros after them are the keys. The bytes around that room
	 * are never written, and stay zeros. */
	__builtin_memset(buf->name + SCRATCH_NAME, 0, EXECFILTER_NAME_MAX);
	__builtin_memset(buf->comm + SCRATCH_NAME, 0, EXECFILTER_COMM_MAX);
	dname = bprm->file->f_path.dentry->d_name.name;
	name_len = bpf_probe_read_kernel_str(buf->name + SCRATCH_NAME,
					     EXECFILTER_NAME_MAX, dname);
	if (name_len <= 0)
		return EXECFILTER_WHY_ALL;
	name_len--; /* the NUL */
	/* Filled to the brim: the name may go on. */
	if (name_len >= EXECFILTER_NAME_MAX - 1)
		return EXECFILTER_WHY_LONG;
	if ((s->looks & EXECFILTER_LOOK_NAME) &&
	    in_map(&names, buf->name + SCRATCH_NAME, bit))
		return EXECFILTER_WHY_NAME;
	comm_len = 0;
	if (s->tries && affix_any(buf, buf->name, (__u32)name_len, (__u8)active,
				  EXECFILTER_KIND_NAME, s->tries))
		return EXECFILTER_WHY_AFFIX;
	if (!(s->looks & EXECFILTER_LOOK_COMM))
		goto dirs;
	/* The process name is set from the exec'd path by now. */
	bpf_get_current_comm(buf->comm + SCRATCH_NAME, EXECFILTER_COMM_MAX);
	if (in_map(&comms, buf->comm + SCRATCH_NAME, bit))
		return EXECFILTER_WHY_COMM;
#pragma clang loop unroll(disable) vectorize(disable)
	for (int i = 0; i < EXECFILTER_COMM_MAX; i++)
		comm_len += buf->comm[SCRATCH_NAME + i] != 0;
	if (s->tries && affix_any(buf, buf->comm, (__u32)comm_len, (__u8)active,
				  EXECFILTER_KIND_COMM, s->tries))
		return EXECFILTER_WHY_AFFIX;
dirs:
	/* Last: the dearest look. */
	return s->looks & EXECFILTER_LOOK_DIRS ? judge_dirs(bprm, bit) : 0;
}

/* Where the proc connector's exec event is sent from (exec_binprm):
 * bprm->file is the file now running, an interpreter's for a script, as
 * /proc/PID/exe shows it. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(execfilter_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct execfilter_event *e;
	__u32 why, tgid;
	__u64 ino;

	count(EXECFILTER_STAT_EXECS);
	/* Typed pointers (tp_btf): loads the verifier checks, relocated by
	 * CO-RE, cheaper than a helper call each. */
	ino = bprm->file->f_inode->i_ino;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (bpf_map_lookup_elem(&followed, &tgid))
		why = EXECFILTER_WHY_FOLLOWED;
	else if (follow_failed != follow_acked)
		why = EXECFILTER_WHY_FULL;
	else
		why = judge(bprm, ino);
	if (!why)
		return 0;
	count(EXECFILTER_STAT_SENT);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(EXECFILTER_STAT_LOST);
		return 0;
	}
	e->pid = tgid;
	e->why = why;
	e->ino = ino;
	e->dev = bprm->file->f_inode->i_sb->s_dev;
	e->parent = 0;
	e->parent_tid = 0;
	e->tid = tgid;
	/* What the daemon would read from /proc again: the start, which
	 * tells it whether the process it finds under the pid is this one,
	 * and the name the exec gave it. */
	e->start_ns = p->group_leader->start_boottime;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->at_ns = bpf_ktime_get_ns();
	/* Forced: a record that did not wake the daemon may be ahead of it
	 * (an end, a fork), and the ring then wakes nobody by itself. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* What a followed process did besides an exec, told to the daemon
 * through the ring: a fork (ahead of the child's exec there, which the
 * daemon then judges as a managed process's child whatever became of
 * the proc connector's report of the fork), a new thread, a thread's
 * end. Not counted as sent: those are execs. */
static __always_inline void send_other(__u32 why, __u32 pid, __u32 tid,
				       __u32 parent, __u32 parent_tid,
				       __u64 start_ns, __u64 wake)
{
	struct execfilter_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(EXECFILTER_STAT_LOST);
		return;
	}
	e->pid = pid;
	e->why = why;
	e->ino = 0;
	e->dev = 0;
	e->parent = parent;
	e->parent_tid = parent_tid;
	e->tid = tid;
	e->start_ns = start_ns;
	e->comm[0] = 0;
	e->at_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, wake);
}

/* A child of a process followed with its children is followed from its
 * fork on (the tracepoint runs before the child can), and so are its own
 * children until its exec; a new thread of a followed process is told.
 * A child the map has no room for is counted: then every exec goes to
 * the daemon. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(execfilter_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = parent->tgid;
	__u32 ctgid = child->tgid;
	__u32 both = EXECFILTER_FOLLOW_SELF | EXECFILTER_FOLLOW_CHILDREN;
	__u32 *how;
	long err;

	how = bpf_map_lookup_elem(&followed, &ptgid);
	if (!how)
		return 0;
	/* A new thread is placed at once (spread); a fork matters at the
	 * child's exec, whose record wakes the daemon. */
	if (ptgid == ctgid) {
		send_other(EXECFILTER_WHY_THREAD, ctgid, child->pid, ptgid,
			   parent->pid, 0, BPF_RB_FORCE_WAKEUP);
		return 0;
	}
	if (!(*how & EXECFILTER_FOLLOW_CHILDREN))
		return 0;
	err = bpf_map_update_elem(&followed, &ctgid, &both, BPF_NOEXIST);
	if (!err)
		__sync_fetch_and_add(&follow_count, 1);
	else if (err != -EEXIST)
		__sync_fetch_and_add(&follow_failed, 1);
	send_other(EXECFILTER_WHY_FORK, ctgid, ctgid, ptgid, parent->pid, 0,
		   BPF_RB_NO_WAKEUP);
	return 0;
}

/* Each thread of a followed process that ends is told; the process is
 * no longer followed only when the whole thread group is gone: a thread
 * exec'ing makes the others exit first, its leader among them, and the
 * exec still counts. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(execfilter_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	__u32 *how = bpf_map_lookup_elem(&followed, &tgid);
	__u64 wake;

	if (!how)
		return 0;
	/* An end waits for the next record that wakes the daemon, or its
	 * tick, unless the process holds power. */
	wake = *how & EXECFILTER_FOLLOW_EXIT ? BPF_RB_FORCE_WAKEUP
					     : BPF_RB_NO_WAKEUP;
	if (p->signal->live.counter != 0) {
		send_other(EXECFILTER_WHY_EXIT, tgid, p->pid, 0, 0, 0, wake);
		return 0;
	}
	/* The last thread: /proc may show the process alive a while yet. */
	send_other(EXECFILTER_WHY_END, tgid, p->pid, 0, 0,
		   p->group_leader->start_boottime, wake);
	if (!bpf_map_delete_elem(&followed, &tgid))
		__sync_fetch_and_add(&follow_count, -1);
	return 0;
}
