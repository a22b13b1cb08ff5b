/* CPU lists in the kernel's notation ("0-3,8,10-11"), as in
 * /sys/devices/system/cpu/online and Cpus_allowed_list. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "util.h"

static int cpulist_number(const char **p, unsigned *out, char *why,
			  size_t why_size)
{
	unsigned long value = 0;
	const char *s = *p;

	if (!*s) {
		snprintf(why, why_size, "ends where a CPU number should be");
		return -1;
	}
	if (!isdigit((unsigned char)*s)) {
		snprintf(why, why_size, "expected a CPU number at '%.16s'", s);
		return -1;
	}
	while (isdigit((unsigned char)*s)) {
		value = value * 10 + (unsigned long)(*s - '0');
		if (value > CPULIST_MAX_CPU) {
			snprintf(why, why_size,
				 "CPU number out of range (0..%d)",
				 CPULIST_MAX_CPU);
			return -1;
		}
		s++;
	}
	*out = (unsigned)value;
	*p = s;
	return 0;
}

static int cpulist_range_compare(const void *a, const void *b)
{
	const struct cpulist_range *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static void cpulist_normalize(struct cpulist *list)
{
	size_t out = 0;

	qsort(list->ranges, list->count, sizeof(*list->ranges),
	      cpulist_range_compare);
	for (size_t i = 0; i < list->count; i++) {
		struct cpulist_range *r = &list->ranges[i];

		if (out && r->first <= list->ranges[out - 1].last + 1) {
			if (r->last > list->ranges[out - 1].last)
				list->ranges[out - 1].last = r->last;
		} else {
			list->ranges[out++] = *r;
		}
	}
	list->count = out;
}

int cpulist_parse(const char *text, struct cpulist *list, char *why,
		  size_t why_size)
{
	const char *p = text;
	size_t capacity = 0;

	*list = (struct cpulist){0};
	for (;;) {
		struct cpulist_range r;

		while (*p == ' ')
			p++;
		if (cpulist_number(&p, &r.first, why, why_size) < 0)
			goto fail;
		r.last = r.first;
		if (*p == '-') {
			p++;
			if (cpulist_number(&p, &r.last, why, why_size) < 0)
				goto fail;
			if (r.last < r.first) {
				snprintf(why, why_size,
					 "range %u-%u runs backwards", r.first,
					 r.last);
				goto fail;
			}
		}
		if (list->count == capacity) {
			capacity = capacity ? capacity * 2 : 4;
			list->ranges = xreallocarray(list->ranges, capacity,
						     sizeof(*list->ranges));
		}
		list->ranges[list->count++] = r;
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		if (*p != ',') {
			snprintf(why, why_size,
				 "unexpected '%c' (a CPU list looks like "
				 "\"0-3,8\")",
				 *p);
			goto fail;
		}
		p++;
	}
	cpulist_normalize(list);
	return 0;
fail:
	cpulist_free(list);
	return -1;
}

void cpulist_free(struct cpulist *list)
{
	free(list->ranges);
	*list = (struct cpulist){0};
}

void cpulist_format(const struct cpulist *list, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < list->count && used < size; i++) {
		const struct cpulist_range *r = &list->ranges[i];
		int n;

		if (r->first == r->last)
			n = snprintf(buf + used, size - used, "%s%u",
				     i ? "," : "", r->first);
		else
			n = snprintf(buf + used, size - used, "%s%u-%u",
				     i ? "," : "", r->first, r->last);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
