/* What the exec filter in the kernel (execfilter.bpf.c) and the daemon
 * (lib/linux/execfilter.c) share: the maps' keys and values and the
 * event. Both sides include it; fixed-size types only. */
#ifndef CPUPOLICY_EXECFILTER_ABI_H
#define CPUPOLICY_EXECFILTER_ABI_H

/* The basename of the executed file, NUL-padded: longer names are not
 * keys (a rule naming one makes every exec go to the daemon), and a
 * longer name read in the kernel is sent on, never judged. */
#define EXECFILTER_NAME_MAX 64
/* A process name (the kernel's TASK_COMM_LEN). */
#define EXECFILTER_COMM_MAX 16
/* Literal starts and ends of globs the kernel checks, each at most. */
#define EXECFILTER_AFFIX_MAX 32

/* Two generations of every map's contents: the rules in force and the
 * ones being written; the kernel only reads the one settings[0] names. */
#define EXECFILTER_GENERATIONS 2

/* Why an exec was sent (enum execfilter_why in an event). */
#define EXECFILTER_WHY_INODE	1 /* the file of a literal exe */
#define EXECFILTER_WHY_NAME	2 /* the basename an exe glob ends in */
#define EXECFILTER_WHY_COMM	3 /* a name rule's exact name */
#define EXECFILTER_WHY_AFFIX	4 /* a glob's literal start and end */
#define EXECFILTER_WHY_ALL	5 /* a rule the kernel cannot judge */
#define EXECFILTER_WHY_LONG	6 /* a name too long to judge */
#define EXECFILTER_WHY_FOLLOWED 7 /* managed, or a managed one's child */
#define EXECFILTER_WHY_FULL	8 /* the followed map had no room */
#define EXECFILTER_WHY_DIR	13 /* under a directory an exe glob names */
#define EXECFILTER_WHY_DEEP	14 /* too deep to walk its directories */
/* Not an exec: a followed process forked (pid: the child). The ring
 * holds it before anything the child execs, whatever the proc connector
 * delivers or drops meanwhile. */
#define EXECFILTER_WHY_FORK 9
/* Not execs either: a followed process made a thread (tid: it,
 * parent_tid: its creator), or one of its threads ended (tid), so that
 * the daemon needs no process events of the proc connector for what it
 * manages, and wakes for no other process's. */
#define EXECFILTER_WHY_THREAD 10
#define EXECFILTER_WHY_EXIT   11
/* The last thread of a followed process ended (tid): the process has,
 * though /proc may not say so yet; start_ns: its start time. */
#define EXECFILTER_WHY_END 12

/* A glob's literal start, or when it has none its literal end, as a key
 * of the tries of starts and ends (longest-prefix-match maps): the
 * generation, what the name is (the file's basename or the process
 * name), then the start's bytes, or the end's bytes last first. A name
 * is looked up whole (its bytes, or last first, NUL-padded): a key that
 * is a prefix of it matches. The generation and kind make sure only the
 * plan in force and the right name are matched. */
#define EXECFILTER_KIND_NAME 'n'
#define EXECFILTER_KIND_COMM 'c'
#define EXECFILTER_LPM_HEAD  2 /* the generation, the kind */
struct execfilter_lpm {
	__u32 prefixlen; /* in bits: of the head and the start or end */
	__u8 data[EXECFILTER_LPM_HEAD + EXECFILTER_NAME_MAX];
};
/* Entries of each trie, at most (starts of names and process names of
 * both generations): past them the plan sends every exec. */
#define EXECFILTER_LPM_MAX 65536

/* A directory as the kernel knows it: its inode number and its
 * filesystem's device (super_block.s_dev, as /proc/self/mountinfo shows
 * it, which stat() does not always: btrfs subvolumes report their own). */
struct execfilter_dir {
	__u64 ino;
	__u32 dev;
	__u32 pad; /* zero */
};
/* The directories above an exe looked at, at most: a deeper one is sent
 * while a directory key is in force. */
#define EXECFILTER_DIR_DEPTH 32

/* Index 0: which generation is in force. Index 1 + g: generation g. */
struct execfilter_settings {
	__u32 generation;
	__u32 all;   /* every exec goes to the daemon */
	__u32 tries; /* EXECFILTER_AFFIX_*: which tries hold entries */
	__u32 looks; /* EXECFILTER_LOOK_*: what the keys need read */
};

#define EXECFILTER_AFFIX_STARTS (1u << 0)
#define EXECFILTER_AFFIX_ENDS	(1u << 1)

/* What an exec's judgement reads beyond the inode, when some key needs
 * it: the file's basename, the process name. */
#define EXECFILTER_LOOK_NAME (1u << 0)
#define EXECFILTER_LOOK_COMM (1u << 1)
#define EXECFILTER_LOOK_DIRS (1u << 2) /* the exe's directories */

/* The followed map's values: its execs are sent; its children are
 * followed from their fork on (a rule that raises, places or asks). */
#define EXECFILTER_FOLLOW_SELF	   (1u << 0)
#define EXECFILTER_FOLLOW_CHILDREN (1u << 1)
/* Its end wakes the daemon at once (it holds power); the ends of others
 * wait in the ring for the next record that does, or the daemon's tick. */
#define EXECFILTER_FOLLOW_EXIT (1u << 2)

/* The map values of the inode and name maps: a bit per generation. */
#define EXECFILTER_BIT(generation) (1u << (generation))

struct execfilter_event {
	__u32 pid; /* the process (thread group) */
	__u32 why;
	__u64 ino;
	__u32 dev; /* the kernel's encoding (MAJOR << 20 | MINOR) */
	/* EXECFILTER_WHY_FORK: the forking process and thread;
	 * EXECFILTER_WHY_THREAD: the creating thread. */
	__u32 parent;
	__u32 parent_tid;
	__u32 tid; /* EXECFILTER_WHY_THREAD, _EXIT: the thread; else pid */
	/* EXECFILTER_WHY_END and an exec: the process's start, in ns
	 * since boot (its leader's start_boottime, which /proc's start time
	 * counts in clock ticks). */
	__u64 start_ns;
	char comm[EXECFILTER_COMM_MAX]; /* an exec: the name it gave */
	__u64 at_ns; /* when the kernel sent it (CLOCK_MONOTONIC) */
};

/* Counters, per CPU: index EXECFILTER_STAT_*. */
#define EXECFILTER_STAT_EXECS 0 /* execs seen */
#define EXECFILTER_STAT_SENT  1 /* execs sent to the daemon */
#define EXECFILTER_STAT_LOST  2 /* sent, but the ring buffer was full */
#define EXECFILTER_STATS      3

#endif
