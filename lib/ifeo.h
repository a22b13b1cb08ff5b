/* Image File Execution Options PerfOptions: which image file names get a
 * CpuPriorityClass and IoPriority in the registry, so that Windows itself
 * gives them at process creation, before the daemon sees the process.
 * Pure and OS-neutral: the Windows front end writes the plan
 * (HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution
 * Options\<name>\PerfOptions, REG_DWORD values), each write recorded
 * first (perfopts.h).
 *
 * Windows keys these values by image file name alone: every process of
 * that name gets them, whatever its folder, user or command line. So:
 * - by default a name is written only for a rule's exe values with no
 *   glob character (a literal full path: one program an administrator
 *   chose); a glob names a family, and every same-named program on the
 *   machine would get the values too. A rule asks for more with
 *   priority.ifeo = "class" or "class+io": then any exe ending in a
 *   literal file name, and a literal name, qualify (check warns of each
 *   glob); ifeo = "off" writes nothing for it;
 * - IoPriority only with ifeo = "class+io": the daemon cannot put a
 *   same-named program's I/O priority back (no documented call);
 * - lowering values (idle, below-normal) are written by default: a
 *   same-named program elsewhere is lowered, which grants it nothing;
 * - raising values (above-normal, high) only with IFEO_MODE_ALL: a
 *   same-named impostor is raised from its creation until the daemon sees
 *   its path and puts it back;
 * - normal and realtime are never written (normal would lift a process
 *   its starter lowered; realtime is no PerfOptions value);
 * - a name that two rules claim with other values (a literal or a glob on
 *   the file name, a rule writing nothing included), that Windows uses
 *   itself (the reserved callback), or that the registry would fold other
 *   than ASCII is not written: the daemon alone decides for it.
 *
 * What the daemon owes every process whose file name has an entry but
 * whose rule does not give the entry's values (ifeo_put_back): its class
 * is the entry's, not its starter's, so the daemon sets the class Windows
 * would have given (ifeo_class_without) before applying its own rule. */
#ifndef CPUPOLICY_IFEO_H
#define CPUPOLICY_IFEO_H

#include <stdbool.h>
#include <stddef.h>

#include "rules.h"

/* The daemon config's ifeo_perf_options: off, lowering, all. */
enum ifeo_mode {
	IFEO_MODE_OFF,
	IFEO_MODE_LOWERING,
	IFEO_MODE_ALL,
};

/* PerfOptions CpuPriorityClass: the registry's numbers, not the
 * *_PRIORITY_CLASS flags (4, realtime, is not honoured: never written). */
enum ifeo_cpu_class {
	IFEO_CPU_CLASS_UNSET = 0,
	IFEO_CPU_CLASS_IDLE = 1,
	IFEO_CPU_CLASS_NORMAL = 2,
	IFEO_CPU_CLASS_HIGH = 3,
	IFEO_CPU_CLASS_BELOW_NORMAL = 5,
	IFEO_CPU_CLASS_ABOVE_NORMAL = 6,
};

/* PerfOptions IoPriority: IO_PRIORITY_HINT (3 high and 4 critical are
 * the system's own). */
enum ifeo_io_priority {
	IFEO_IO_PRIORITY_UNSET = -1,
	IFEO_IO_PRIORITY_VERY_LOW = 0,
	IFEO_IO_PRIORITY_LOW = 1,
	IFEO_IO_PRIORITY_NORMAL = 2,
};

/* The values of one name; UNSET: no such registry value. */
struct ifeo_values {
	enum ifeo_cpu_class cpu_class;
	enum ifeo_io_priority io_priority;
};

/* A registry key name is at most 255 characters. */
#define IFEO_NAME_MAX 255

struct ifeo_entry {
	char *name; /* the image file name, as the first rule spells it */
	struct ifeo_values values;
	size_t rule; /* the first rule giving it, an index into the list */
};

/* Why a name some rule would write is not written. */
enum ifeo_skip_why {
	IFEO_SKIP_WHY_RAISES,	/* raising, and the config allows lowering */
	IFEO_SKIP_WHY_CONFLICT, /* rule other claims it with other values */
	IFEO_SKIP_WHY_RESERVED, /* a name Windows runs itself */
	IFEO_SKIP_WHY_NAME,	/* not ASCII, too long, "." or ".." */
};

struct ifeo_skip {
	char *name;
	size_t rule;  /* the first rule that would write it */
	size_t other; /* IFEO_SKIP_WHY_CONFLICT: the rule that disagrees */
	enum ifeo_skip_why why;
};

/* Both sorted by name, ASCII case folded (as the registry compares). */
struct ifeo_plan {
	struct ifeo_entry *entries;
	size_t count;
	struct ifeo_skip *skips;
	size_t skip_count;
};

/* Says whether Windows runs a program of this file name itself (the
 * writer: a file of that name in %SystemRoot%, System32 or SysWOW64),
 * whose processes the daemon may not be able to put back. */
typedef bool (*ifeo_reserved_fn)(void *ctx, const char *name);

/* ifeo_common.c */
struct ifeo_values ifeo_values_of(const struct rule_priority *priority);
bool ifeo_exe_literal(const char *exe);
const char *ifeo_exe_file_name(const char *exe);
bool ifeo_values_set(struct ifeo_values values);
bool ifeo_values_equal(struct ifeo_values a, struct ifeo_values b);
bool ifeo_values_raise(struct ifeo_values values);
void ifeo_values_describe(struct ifeo_values values, char *buf, size_t size);
int ifeo_name_compare(const char *a, const char *b);
void ifeo_plan_make(const struct rule *rules, size_t count, enum ifeo_mode mode,
		    ifeo_reserved_fn reserved, void *ctx,
		    struct ifeo_plan *plan);
void ifeo_plan_free(struct ifeo_plan *plan);
const struct ifeo_entry *ifeo_find(const struct ifeo_plan *plan,
				   const char *name);
bool ifeo_put_back(const struct ifeo_entry *entry, const struct rule *matched);
enum rule_class ifeo_class_without(enum rule_class parent);
const char *ifeo_skip_text(enum ifeo_skip_why why);

#endif
