/* The rule model (OS-neutral) and the rule set: files loaded in order,
 * validated, with every problem reported as file:line. */
#ifndef CPUPOLICY_RULES_H
#define CPUPOLICY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "arena.h"
#include "cpulist.h"
#include "diag.h"
#include "strmap.h"

enum rule_class {
	RULE_CLASS_UNSET,
	RULE_CLASS_IDLE,
	RULE_CLASS_BELOW_NORMAL,
	RULE_CLASS_NORMAL,
	RULE_CLASS_ABOVE_NORMAL,
	RULE_CLASS_HIGH,
	RULE_CLASS_REALTIME,
};

enum rule_policy {
	RULE_POLICY_UNSET,
	RULE_POLICY_OTHER,
	RULE_POLICY_BATCH,
	RULE_POLICY_IDLE,
	RULE_POLICY_FIFO,
	RULE_POLICY_RR,
};

enum rule_io_class {
	RULE_IO_CLASS_UNSET,
	RULE_IO_CLASS_REALTIME,
	RULE_IO_CLASS_BEST_EFFORT,
	RULE_IO_CLASS_IDLE,
};

/* A thread's priority relative to its process's class: Windows's
 * SetThreadPriority levels, lowest first; on Linux an offset to nice
 * (prio.c). */
enum rule_thread {
	RULE_THREAD_UNSET,
	RULE_THREAD_IDLE,
	RULE_THREAD_LOWEST,
	RULE_THREAD_BELOW_NORMAL,
	RULE_THREAD_NORMAL,
	RULE_THREAD_ABOVE_NORMAL,
	RULE_THREAD_HIGHEST,
	RULE_THREAD_TIME_CRITICAL,
};

/* Windows's EcoQoS for a process: OFF opts it out, ON in, SYSTEM leaves
 * the choice to Windows again. */
enum rule_efficiency {
	RULE_EFFICIENCY_UNSET,
	RULE_EFFICIENCY_OFF,
	RULE_EFFICIENCY_ON,
	RULE_EFFICIENCY_SYSTEM,
};

/* Windows's memory priority for a process (MEMORY_PRIORITY_*, lowest
 * first): the page priority the memory manager trims by. */
enum rule_memory {
	RULE_MEMORY_UNSET,
	RULE_MEMORY_VERY_LOW,
	RULE_MEMORY_LOW,
	RULE_MEMORY_MEDIUM,
	RULE_MEMORY_BELOW_NORMAL,
	RULE_MEMORY_NORMAL,
};

/* Whether the rule's class also goes to the registry's Image File
 * Execution Options (ifeo.h), which Windows keys by file name alone.
 * UNSET: only for exe values with no glob character (a literal full
 * path), class alone; CLASS, CLASS_IO: asked for, for any exe whose file
 * name is literal and for a literal name (a warning says who else gets
 * it); OFF: never. */
enum rule_ifeo {
	RULE_IFEO_UNSET,
	RULE_IFEO_OFF,
	RULE_IFEO_CLASS,
	RULE_IFEO_CLASS_IO,
};

enum rule_cores {
	RULE_CORES_UNSET,
	RULE_CORES_ALL,
	RULE_CORES_PERFORMANCE,
	RULE_CORES_EFFICIENCY,
};

enum rule_spread {
	RULE_SPREAD_UNSET,
	RULE_SPREAD_NONE,
	RULE_SPREAD_NUMA,
	RULE_SPREAD_PACKAGE,
	RULE_SPREAD_KIND,
	RULE_SPREAD_GROUP,
};

enum rule_parking {
	RULE_PARKING_UNSET,
	RULE_PARKING_ON,
	RULE_PARKING_OFF,
};

enum rule_turbo {
	RULE_TURBO_UNSET,
	RULE_TURBO_ON,
	RULE_TURBO_OFF,
};

/* A match key holds one value or a list; any value may match. values:
 * count of them, then with flags as many keys (the values folded as
 * flags say, pattern_key: read with rules_pattern_key), the pointers and
 * the texts they point to together, in the rule set's arena. */
struct rule_patterns {
	char **values;
	unsigned count;
	/* enum pattern_flags: how the values compare (Windows paths and
	 * image names: case folded, either slash), from the rules' system. */
	unsigned flags;
};

struct rule_id {
	char *name; /* as written: a name or a number */
	unsigned id;
	bool known; /* false: no such user/group now; matches nothing */
};

struct rule_ids {
	struct rule_id *values;
	size_t count;
};

/* The keys fewer rules match on. */
struct rule_match_more {
	struct rule_patterns cmdline, cgroup, parent_exe;
	struct rule_ids user, group;
};

/* more: NULL when the rule matches on none of its keys; read it with
 * rules_match_more, which gives empty keys then, and make it with
 * rules_match_more_add. */
struct rule_match {
	struct rule_patterns exe, name;
	struct rule_match_more *more;
};

/* The numbers and enums in a byte each: set from a range checked, or
 * from their names, never out of it. */
struct rule_priority {
	int8_t nice;
	int8_t rt_priority; /* 0: unset */
	int8_t io_level;    /* -1: unset */
	bool has_nice;
	enum rule_class class : 8;
	enum rule_policy policy : 8;
	enum rule_io_class io_class : 8;
	enum rule_thread thread : 8;
	enum rule_efficiency efficiency_mode : 8;
	enum rule_ifeo ifeo : 8;
	enum rule_memory memory_priority : 8;
};

struct rule_placement {
	enum rule_cores cores;
	bool has_cpus;
	struct cpulist cpus;
	enum rule_spread spread;
	/* placement.hard: the CPUs as an affinity no thread leaves, not
	 * Windows's soft CPU Sets; unset, cpus is hard and cores is not
	 * (rules_place_hard). */
	bool has_hard, hard;
};

#define RULE_PLAN_MAX 40

struct rule_power {
	enum rule_parking parking;
	int min_online;	      /* percent; -1: unset */
	long idle_latency_us; /* -1: unset */
	/* NULL: unset; else the rule tables' static names */
	const char *governor, *epp, *profile;
	enum rule_turbo turbo;
	/* Windows's power plan: "" unset, else a name winpower.c knows or
	 * a scheme's GUID, lowercase. */
	char plan[RULE_PLAN_MAX];
};

/* What few rules have. sources: where the rule came from (an imported
 * file and line), for explain: one entry, or one per match.name value. */
struct rule_extra {
	struct rule_placement placement;
	struct rule_power power;
	char **sources;
	unsigned source_count;
	/* restrain = { ... }: what restraint gives its processes instead of
	 * the config's (has_restrain), each setting a lowering. */
	bool has_restrain;
	struct rule_priority restrain;
	/* foreground = { ... }: what its processes get while they are the
	 * foreground (has_foreground), given back when they are not. */
	bool has_foreground;
	struct rule_priority foreground;
};

/* A daemon keeps every rule for as long as it runs, 20,000 of them in
 * large sets: the fields are ordered to leave no holes, and what few
 * rules have is behind a pointer. */
struct rule {
	char *name;
	const char *file; /* owned by the rule set */
	struct rule_match match;
	struct rule_priority priority;
	unsigned line : 28; /* a rule file is at most 64 MiB */
	bool allow_spoofable : 1;
	/* restrain = false: restraint leaves its processes alone. */
	bool restrain_off : 1;
	/* follow_children, when the rule sets it; else rules_follows_children
	 * decides by what the rule does. */
	bool has_follow_children : 1, follow_children : 1;
	/* NULL when the rule has none of it: read it with rules_placement,
	 * rules_power and rules_sources, which give unset values then;
	 * rules_placement_add, rules_power_add and rules_sources_set make
	 * it. */
	struct rule_extra *extra;
};

/* The system a rule set is checked for: what it can apply there decides
 * which keys are warned about or refused. */
enum rules_system {
	RULES_SYSTEM_NATIVE, /* the one this build is for */
	RULES_SYSTEM_LINUX,
	RULES_SYSTEM_WINDOWS,
};

struct rules {
	enum rules_system system; /* set after rules_init, before loading */
	struct rule *list;
	size_t count, capacity;
	/* The rules' names, match values and sources: they go with the
	 * set. */
	struct arena texts;
	char **files; /* the files that hold rules */
	size_t file_count;
	size_t files_read;
	struct strmap by_name;	    /* rule name -> index + 1 */
	struct strmap exe_catchall; /* exact exe -> index + 1 of the first
				       rule that matches on it alone */
	struct strmap ids;	    /* user/group name cache, see rules.c */
	/* Which files rules_load_paths refuses when someone other than
	 * root could have written them (trust_path), set before loading:
	 * every one (trust_all: what the daemon loads), or those named as
	 * one of trust_dirs or as a file directly in one (check's PATHs
	 * that are the configured directories). trust_dirs is borrowed. */
	bool trust_all;
	char *const *trust_dirs;
	size_t trust_dir_count;
};

/* Valid names of each enum, for messages ("valid: a, b, c"). */
enum rules_enum {
	RULES_ENUM_CLASS,
	RULES_ENUM_POLICY,
	RULES_ENUM_IO_CLASS,
	RULES_ENUM_CORES,
	RULES_ENUM_SPREAD,
	RULES_ENUM_PARKING,
	RULES_ENUM_GOVERNOR,
	RULES_ENUM_EPP,
	RULES_ENUM_PROFILE,
	RULES_ENUM_THREAD,
	RULES_ENUM_EFFICIENCY,
	RULES_ENUM_IFEO,
	RULES_ENUM_SYSTEM,
	RULES_ENUM_MEMORY,
};

/* A rule file larger than this is refused rather than half read. */
#define RULES_MAX_FILE_SIZE (64u << 20)

/* rules.c */
void rules_init(struct rules *rules);
void rules_free(struct rules *rules);
const struct rule *rules_named(const struct rules *rules, const char *name);
enum rules_system rules_target(const struct rules *rules);
const char *rules_pattern_key(const struct rule_patterns *p, size_t i);
int rules_load_paths(struct rules *rules, char *const *paths, size_t count,
		     bool must_exist, struct diag *diag);
int rules_load_file(struct rules *rules, const char *path, struct diag *diag);
void rules_load_text(struct rules *rules, const char *path, const char *text,
		     size_t len, struct diag *diag);
void rules_add(struct rules *rules, struct rule *rule, const char *path,
	       struct diag *diag);
bool rules_resolve_id(struct rules *rules, bool group, const char *name,
		      unsigned *id);
const char *rules_enum_name(enum rules_enum which, int value);
int rules_enum_lookup(enum rules_enum which, const char *name);
void rules_enum_list(enum rules_enum which, char *buf, size_t size);
const struct rule_match_more *rules_match_more(const struct rule_match *m);
struct rule_match_more *rules_match_more_add(struct rule_match *m);
const struct rule_placement *rules_placement(const struct rule *rule);
const struct rule_power *rules_power(const struct rule *rule);
struct rule_placement *rules_placement_add(struct rule *rule);
struct rule_power *rules_power_add(struct rule *rule);
/* restrain = { ... }: NULL where the rule has none. */
const struct rule_priority *rules_restrain(const struct rule *rule);
struct rule_priority *rules_restrain_add(struct rule *rule);
/* foreground = { ... }: NULL where the rule has none. */
const struct rule_priority *rules_foreground(const struct rule *rule);
struct rule_priority *rules_foreground_add(struct rule *rule);
/* A priority above the default: what a match must not let anyone fake. */
bool rules_priority_raises(const struct rule_priority *priority);
char *const *rules_sources(const struct rule *rule, unsigned *count);
void rules_sources_set(struct rule *rule, char **sources, unsigned count);
bool rules_raises(const struct rule *rule);
bool rules_raises_inherited(const struct rule *rule);
bool rules_follows_children(const struct rule *rule);
bool rules_spoofable(const struct rule *rule);
bool rules_has_power(const struct rule *rule);
bool rules_realtime(const struct rule *rule);
bool rules_places(const struct rule *rule);
bool rules_have_placement(const struct rules *rules);
bool rules_place_hard(const struct rule_placement *p);
const char *rules_source(const struct rule *rule, const char *comm);
void rules_print(const struct rules *rules, FILE *out);

#endif
