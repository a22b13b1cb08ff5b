/* The kernel types the exec filter reads, for building where the build
 * machine's kernel has no BTF to generate vmlinux.h from (a container
 * or chroot without /sys): only the fields used, each relocated at load
 * time against the running kernel's BTF (CO-RE), so their layout here
 * does not matter. */
#ifndef CPUPOLICY_VMLINUX_MIN_H
#define CPUPOLICY_VMLINUX_MIN_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u32 __wsum;
typedef _Bool bool;
typedef int pid_t;
typedef __u32 dev_t;
#define true  1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LPM_TRIE = 11,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_F_NO_PREALLOC = 1,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

#pragma clang attribute push(__attribute__((preserve_access_index)),           \
			     apply_to = record)

struct super_block {
	dev_t s_dev;
};

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
};

struct qstr {
	const unsigned char *name;
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	struct inode *d_inode;
	struct super_block *d_sb;
};

struct vfsmount {
	struct dentry *mnt_root;
};

struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file {
	struct path f_path;
	struct inode *f_inode;
};

struct linux_binprm {
	struct file *file;
};

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live;
};

struct task_struct {
	int pid;
	int tgid;
	struct task_struct *group_leader;
	__u64 start_boottime;
	struct signal_struct *signal;
};

#pragma clang attribute pop

#endif
