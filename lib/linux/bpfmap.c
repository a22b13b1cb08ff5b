/* The bpf(2) commands the daemon gives the exec filter's maps, made by
 * the system call itself: the filter is loaded by a light skeleton (the
 * kernel relocates it), so no library stands between, and none is
 * mapped into the daemon for the few calls it makes at a reload. Each
 * returns -1 with errno set on a failure, 0 otherwise. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "cpulist.h"
#include "linux.h"

static int bpfmap_call(enum bpf_cmd cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int bpfmap_elem(enum bpf_cmd cmd, int fd, const void *key,
		       const void *value, unsigned long long flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)fd;
	attr.key = (__u64)(unsigned long)key;
	attr.value = (__u64)(unsigned long)value;
	attr.flags = flags;
	return bpfmap_call(cmd, &attr) < 0 ? -1 : 0;
}

int bpfmap_lookup(int fd, const void *key, void *value)
{
	return bpfmap_elem(BPF_MAP_LOOKUP_ELEM, fd, key, value, 0);
}

/* flags: BPF_ANY, BPF_NOEXIST (EEXIST when it is there), BPF_EXIST
 * (ENOENT when it is not). */
int bpfmap_update(int fd, const void *key, const void *value,
		  unsigned long long flags)
{
	return bpfmap_elem(BPF_MAP_UPDATE_ELEM, fd, key, value, flags);
}

int bpfmap_delete(int fd, const void *key)
{
	return bpfmap_elem(BPF_MAP_DELETE_ELEM, fd, key, NULL, 0);
}

/* The key after key (NULL: the first one); ENOENT past the last. */
int bpfmap_next_key(int fd, const void *key, void *next)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)fd;
	attr.key = (__u64)(unsigned long)key;
	attr.next_key = (__u64)(unsigned long)next;
	return bpfmap_call(BPF_MAP_GET_NEXT_KEY, &attr) < 0 ? -1 : 0;
}

/* The entries the map was created with. */
int bpfmap_max_entries(int fd, unsigned *max)
{
	struct bpf_map_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (__u32)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (bpfmap_call(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return -1;
	*max = info.max_entries;
	return 0;
}

/* The values a per-CPU map holds under each key: one per possible CPU
 * (the kernel's num_possible_cpus), counted in the list sysfs gives.
 * Fixed at boot: read once. */
int bpfmap_possible_cpus(void)
{
	static int known;
	char text[4096], why[128];
	FILE *f;
	struct cpulist list;
	int count = 0;

	if (known)
		return known;
	f = fopen("/sys/devices/system/cpu/possible", "re");
	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	if (cpulist_parse(text, &list, why, sizeof(why)) < 0) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < list.count; i++)
		count += (int)(list.ranges[i].last - list.ranges[i].first + 1);
	cpulist_free(&list);
	known = count;
	return count;
}
