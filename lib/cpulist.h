/* CPU lists in the kernel's notation ("0-3,8,10-11"), as in
 * /sys/devices/system/cpu/online and Cpus_allowed_list. */
#ifndef CPUPOLICY_CPULIST_H
#define CPUPOLICY_CPULIST_H

#include <stddef.h>

/* Linux's largest NR_CPUS. */
#define CPULIST_MAX_CPU 8191

struct cpulist_range {
	unsigned first, last;
};

struct cpulist {
	struct cpulist_range *ranges; /* sorted, merged */
	size_t count;
};

/* cpulist.c */
int cpulist_parse(const char *text, struct cpulist *list, char *why,
		  size_t why_size);
void cpulist_free(struct cpulist *list);
void cpulist_format(const struct cpulist *list, char *buf, size_t size);

#endif
