/* The rule set: which files, in which order, and the checks that span
 * rules (duplicate names, shadowed rules). One file is parsed by
 * rulefile.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "os.h"
#include "pattern.h"
#include "quote.h"
#include "rulefile.h"
#include "rules.h"
#include "util.h"

struct rules_enum_table {
	const char *const *names;
	size_t count;
};

static const char *const rules_class_names[] = {
	[RULE_CLASS_IDLE] = "idle",
	[RULE_CLASS_BELOW_NORMAL] = "below-normal",
	[RULE_CLASS_NORMAL] = "normal",
	[RULE_CLASS_ABOVE_NORMAL] = "above-normal",
	[RULE_CLASS_HIGH] = "high",
	[RULE_CLASS_REALTIME] = "realtime",
};

static const char *const rules_policy_names[] = {
	[RULE_POLICY_OTHER] = "other", [RULE_POLICY_BATCH] = "batch",
	[RULE_POLICY_IDLE] = "idle",   [RULE_POLICY_FIFO] = "fifo",
	[RULE_POLICY_RR] = "rr",
};

static const char *const rules_io_class_names[] = {
	[RULE_IO_CLASS_REALTIME] = "realtime",
	[RULE_IO_CLASS_BEST_EFFORT] = "best-effort",
	[RULE_IO_CLASS_IDLE] = "idle",
};

static const char *const rules_cores_names[] = {
	[RULE_CORES_ALL] = "all",
	[RULE_CORES_PERFORMANCE] = "performance",
	[RULE_CORES_EFFICIENCY] = "efficiency",
};

static const char *const rules_spread_names[] = {
	[RULE_SPREAD_NONE] = "none",	   [RULE_SPREAD_NUMA] = "numa",
	[RULE_SPREAD_PACKAGE] = "package", [RULE_SPREAD_KIND] = "kind",
	[RULE_SPREAD_GROUP] = "group",
};

static const char *const rules_thread_names[] = {
	[RULE_THREAD_IDLE] = "idle",
	[RULE_THREAD_LOWEST] = "lowest",
	[RULE_THREAD_BELOW_NORMAL] = "below-normal",
	[RULE_THREAD_NORMAL] = "normal",
	[RULE_THREAD_ABOVE_NORMAL] = "above-normal",
	[RULE_THREAD_HIGHEST] = "highest",
	[RULE_THREAD_TIME_CRITICAL] = "time-critical",
};

static const char *const rules_efficiency_names[] = {
	[RULE_EFFICIENCY_OFF] = "off",
	[RULE_EFFICIENCY_ON] = "on",
	[RULE_EFFICIENCY_SYSTEM] = "system",
};

static const char *const rules_memory_names[] = {
	[RULE_MEMORY_VERY_LOW] = "very-low",
	[RULE_MEMORY_LOW] = "low",
	[RULE_MEMORY_MEDIUM] = "medium",
	[RULE_MEMORY_BELOW_NORMAL] = "below-normal",
	[RULE_MEMORY_NORMAL] = "normal",
};

static const char *const rules_ifeo_names[] = {
	[RULE_IFEO_OFF] = "off",
	[RULE_IFEO_CLASS] = "class",
	[RULE_IFEO_CLASS_IO] = "class+io",
};

static const char *const rules_system_names[] = {
	[RULES_SYSTEM_LINUX] = "linux",
	[RULES_SYSTEM_WINDOWS] = "windows",
};

static const char *const rules_parking_names[] = {
	[RULE_PARKING_ON] = "on",
	[RULE_PARKING_OFF] = "off",
};

/* The kernel's own cpufreq governors. */
static const char *const rules_governor_names[] = {
	"performance", "powersave",    "schedutil",
	"ondemand",    "conservative", "userspace",
};

/* energy_performance_preference, as intel_pstate and amd-pstate take it. */
static const char *const rules_epp_names[] = {
	"default",	 "performance", "balance_performance",
	"balance_power", "power",
};

/* ACPI platform_profile choices. */
static const char *const rules_profile_names[] = {
	"low-power",   "cool",	    "quiet", "balanced", "balanced-performance",
	"performance", "max-power",
};

#define RULES_TABLE(t)                                                         \
	{                                                                      \
		t, ARRAY_SIZE(t)                                               \
	}

static const struct rules_enum_table rules_enum_tables[] = {
	[RULES_ENUM_CLASS] = RULES_TABLE(rules_class_names),
	[RULES_ENUM_POLICY] = RULES_TABLE(rules_policy_names),
	[RULES_ENUM_IO_CLASS] = RULES_TABLE(rules_io_class_names),
	[RULES_ENUM_CORES] = RULES_TABLE(rules_cores_names),
	[RULES_ENUM_SPREAD] = RULES_TABLE(rules_spread_names),
	[RULES_ENUM_PARKING] = RULES_TABLE(rules_parking_names),
	[RULES_ENUM_GOVERNOR] = RULES_TABLE(rules_governor_names),
	[RULES_ENUM_EPP] = RULES_TABLE(rules_epp_names),
	[RULES_ENUM_PROFILE] = RULES_TABLE(rules_profile_names),
	[RULES_ENUM_THREAD] = RULES_TABLE(rules_thread_names),
	[RULES_ENUM_EFFICIENCY] = RULES_TABLE(rules_efficiency_names),
	[RULES_ENUM_IFEO] = RULES_TABLE(rules_ifeo_names),
	[RULES_ENUM_SYSTEM] = RULES_TABLE(rules_system_names),
	[RULES_ENUM_MEMORY] = RULES_TABLE(rules_memory_names),
};

const char *rules_enum_name(enum rules_enum which, int value)
{
	const struct rules_enum_table *t = &rules_enum_tables[which];

	if (value < 0 || (size_t)value >= t->count || !t->names[value])
		return "unset";
	return t->names[value];
}

int rules_enum_lookup(enum rules_enum which, const char *name)
{
	const struct rules_enum_table *t = &rules_enum_tables[which];

	for (size_t i = 0; i < t->count; i++) {
		if (t->names[i] && strcmp(t->names[i], name) == 0)
			return (int)i;
	}
	return -1;
}

void rules_enum_list(enum rules_enum which, char *buf, size_t size)
{
	const struct rules_enum_table *t = &rules_enum_tables[which];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->count && used < size; i++) {
		int n;

		if (!t->names[i])
			continue;
		n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
			     t->names[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* What a rule without a placement or power key, or a key few rules
 * match on, has: nothing set. */
static const struct rule_match_more rules_no_match_more;
static const struct rule_placement rules_no_placement;
static const struct rule_power rules_no_power = {
	.min_online = -1,
	.idle_latency_us = -1,
};

const struct rule_match_more *rules_match_more(const struct rule_match *m)
{
	return m->more ? m->more : &rules_no_match_more;
}

struct rule_match_more *rules_match_more_add(struct rule_match *m)
{
	if (!m->more)
		m->more = xcalloc(1, sizeof(*m->more));
	return m->more;
}

const struct rule_placement *rules_placement(const struct rule *rule)
{
	return rule->extra ? &rule->extra->placement : &rules_no_placement;
}

const struct rule_power *rules_power(const struct rule *rule)
{
	return rule->extra ? &rule->extra->power : &rules_no_power;
}

char *const *rules_sources(const struct rule *rule, unsigned *count)
{
	*count = rule->extra ? rule->extra->source_count : 0;
	return *count ? rule->extra->sources : NULL;
}

/* The rule's own extras, made unset the first time one is asked for. */
static struct rule_extra *rules_extra_add(struct rule *rule)
{
	if (!rule->extra) {
		rule->extra = xcalloc(1, sizeof(*rule->extra));
		rule->extra->placement = rules_no_placement;
		rule->extra->power = rules_no_power;
	}
	return rule->extra;
}

struct rule_placement *rules_placement_add(struct rule *rule)
{
	return &rules_extra_add(rule)->placement;
}

struct rule_power *rules_power_add(struct rule *rule)
{
	return &rules_extra_add(rule)->power;
}

const struct rule_priority *rules_restrain(const struct rule *rule)
{
	return rule->extra && rule->extra->has_restrain ? &rule->extra->restrain
							: NULL;
}

struct rule_priority *rules_restrain_add(struct rule *rule)
{
	struct rule_extra *extra = rules_extra_add(rule);

	extra->has_restrain = true;
	return &extra->restrain;
}

const struct rule_priority *rules_foreground(const struct rule *rule)
{
	return rule->extra && rule->extra->has_foreground
		       ? &rule->extra->foreground
		       : NULL;
}

struct rule_priority *rules_foreground_add(struct rule *rule)
{
	struct rule_extra *extra = rules_extra_add(rule);

	extra->has_foreground = true;
	return &extra->foreground;
}

/* sources: the rule set's (its texts). */
void rules_sources_set(struct rule *rule, char **sources, unsigned count)
{
	struct rule_extra *extra = rules_extra_add(rule);

	extra->sources = sources;
	extra->source_count = count;
}

bool rules_has_power(const struct rule *rule)
{
	const struct rule_power *p = rules_power(rule);

	/* parking = "on" is the default: it asks for nothing. */
	return p->parking == RULE_PARKING_OFF || p->min_online >= 0 ||
	       p->idle_latency_us >= 0 || p->governor || p->epp || p->profile ||
	       p->turbo != RULE_TURBO_UNSET || p->plan[0];
}

bool rules_priority_raises(const struct rule_priority *p)
{
	return p->class == RULE_CLASS_ABOVE_NORMAL ||
	       p->class == RULE_CLASS_HIGH || p->class == RULE_CLASS_REALTIME ||
	       (p->has_nice && p->nice < 0) || p->policy == RULE_POLICY_FIFO ||
	       p->policy == RULE_POLICY_RR ||
	       p->io_class == RULE_IO_CLASS_REALTIME ||
	       p->thread > RULE_THREAD_NORMAL ||
	       p->efficiency_mode == RULE_EFFICIENCY_OFF;
}

bool rules_raises(const struct rule *rule)
{
	return rules_priority_raises(&rule->priority) || rules_has_power(rule);
}

/* Children of a matched process are followed to their exec, where one
 * that runs a program no rule matches gets back what the parent had
 * without the rule: a raise must not outlive its match, and neither a
 * placement nor an I/O priority above the default. A rule that only
 * lowers leaves its children the lowering, as nice(1) would, and costs
 * nothing at their execs; follow_children says otherwise. */
bool rules_follows_children(const struct rule *rule)
{
	if (rule->has_follow_children)
		return rule->follow_children;
	return rules_raises_inherited(rule) || rules_has_power(rule) ||
	       rules_places(rule);
}

/* A priority above the default, which a child inherits: a raise, or a
 * best-effort I/O level above the default's 4. */
bool rules_raises_inherited(const struct rule *rule)
{
	const struct rule_priority *p = &rule->priority;

	return rules_priority_raises(&rule->priority) ||
	       (p->io_class == RULE_IO_CLASS_BEST_EFFORT && p->io_level >= 0 &&
		p->io_level < 4);
}

/* Realtime CPU or I/O scheduling: the process can starve everyone else. */
bool rules_realtime(const struct rule *rule)
{
	const struct rule_priority *p = &rule->priority;

	return p->class == RULE_CLASS_REALTIME ||
	       p->policy == RULE_POLICY_FIFO || p->policy == RULE_POLICY_RR ||
	       p->io_class == RULE_IO_CLASS_REALTIME;
}

bool rules_places(const struct rule *rule)
{
	const struct rule_placement *p = rules_placement(rule);

	return p->cores || p->has_cpus || p->spread;
}

/* An exact list of CPUs is a limit; a kind of core is a preference the
 * scheduler may leave when those cores are busy. */
bool rules_place_hard(const struct rule_placement *p)
{
	return p->has_hard ? p->hard : p->has_cpus;
}

bool rules_have_placement(const struct rules *rules)
{
	for (size_t i = 0; i < rules->count; i++) {
		if (rules_places(&rules->list[i]))
			return true;
	}
	return false;
}

/* The source note of the name value a process of this name matches (a
 * rule imported from several), or the rule's one note; NULL: none. */
const char *rules_source(const struct rule *rule, const char *comm)
{
	const struct rule_patterns *p = &rule->match.name;
	unsigned count;
	char *const *sources = rules_sources(rule, &count);

	if (count == 1 || !comm)
		return count ? sources[0] : NULL;
	for (size_t i = 0; i < p->count && i < count; i++) {
		if (pattern_match_flags(p->values[i], comm, p->flags))
			return sources[i];
	}
	return NULL;
}

/* exe is the kernel's word; user, group and cgroup are granted, not chosen.
 * Everything else a process (or whoever starts it) decides itself. */
bool rules_spoofable(const struct rule *rule)
{
	const struct rule_match_more *more = rules_match_more(&rule->match);

	return !rule->match.exe.count && !more->user.count &&
	       !more->group.count && !more->cgroup.count;
}

void rules_init(struct rules *rules)
{
	*rules = (struct rules){0};
	strmap_init(&rules->by_name);
	strmap_init(&rules->exe_catchall);
	strmap_init(&rules->ids);
}

/* The system the rules are for: the one they were checked for, or this
 * build's own. */
enum rules_system rules_target(const struct rules *rules)
{
	return rules->system ? rules->system : system_native();
}

/* A value as exact matches compare it (folded for Windows paths). */
const char *rules_pattern_key(const struct rule_patterns *p, size_t i)
{
	return p->flags ? p->values[p->count + i] : p->values[i];
}

struct rules_id_entry {
	unsigned id;
	bool known;
	char key[]; /* "u:name" or "g:name" */
};

/* The maps of the checks across files (names, exes taken, users), kept
 * while files are being added. */
static void rules_free_checks(struct rules *rules)
{
	for (size_t i = 0; i < rules->ids.capacity; i++)
		free(rules->ids.slots[i].value);
	strmap_free(&rules->by_name);
	strmap_free(&rules->exe_catchall);
	strmap_free(&rules->ids);
}

/* The rule of that name. By a look at each: the map of names is gone once
 * the files are loaded, and this is asked rarely (a process whose main
 * thread ended, at a reload). */
const struct rule *rules_named(const struct rules *rules, const char *name)
{
	for (size_t i = 0; i < rules->count; i++) {
		if (strcmp(rules->list[i].name, name) == 0)
			return &rules->list[i];
	}
	return NULL;
}

void rules_free(struct rules *rules)
{
	for (size_t i = 0; i < rules->count; i++)
		rulefile_free_rule(&rules->list[i]);
	free(rules->list);
	arena_free(&rules->texts);
	for (size_t i = 0; i < rules->file_count; i++)
		free(rules->files[i]);
	free(rules->files);
	rules_free_checks(rules);
	rules_init(rules);
}

/* A lookup reads the user database on every call; 20,000 rules naming the
 * same few users would spend most of the load there. */
bool rules_resolve_id(struct rules *rules, bool group, const char *name,
		      unsigned *id)
{
	char key[300];
	struct rules_id_entry *entry;
	size_t len;

	snprintf(key, sizeof(key), "%c:%s", group ? 'g' : 'u', name);
	entry = strmap_get(&rules->ids, key);
	if (!entry) {
		len = strlen(key) + 1;
		entry = xmalloc(sizeof(*entry) + len);
		memcpy(entry->key, key, len);
		entry->id = 0;
		entry->known = group ? accounts_group(name, &entry->id)
				     : accounts_user(name, &entry->id);
		strmap_put(&rules->ids, entry->key, entry);
	}
	*id = entry->id;
	return entry->known;
}

static bool rules_match_has_only_exe(const struct rule_match *m)
{
	const struct rule_match_more *more = rules_match_more(m);

	return m->exe.count && !m->name.count && !more->cmdline.count &&
	       !more->cgroup.count && !more->parent_exe.count &&
	       !more->user.count && !more->group.count;
}

/* The maps hold index + 1 into rules->list, which moves as it grows. */
static struct rule *rules_at(struct rules *rules, void *slot)
{
	return slot ? &rules->list[(uintptr_t)slot - 1] : NULL;
}

/* A rule is shadowed when every exe it names is already taken, without
 * further conditions, by an earlier rule: first match wins. */
static void rules_check_shadow(struct rules *rules, const struct rule *rule,
			       struct diag *diag)
{
	struct rule *first = NULL;

	if (!rule->match.exe.count)
		return;
	for (size_t i = 0; i < rule->match.exe.count; i++) {
		const char *exe = rules_pattern_key(&rule->match.exe, i);

		if (!pattern_is_literal_flags(exe, rule->match.exe.flags))
			return;
		first = rules_at(rules, strmap_get(&rules->exe_catchall, exe));
		if (!first)
			return;
	}
	diag_warning(diag, rule->file, rule->line,
		     "rule '%s' never matches: rule '%s' (%s:%u) matches the "
		     "same exe first",
		     rule->name, first->name, first->file, first->line);
}

static void rules_index(struct rules *rules, size_t index, struct diag *diag)
{
	const struct rule *rule = &rules->list[index];
	const struct rule *twin =
		rules_at(rules, strmap_get(&rules->by_name, rule->name));
	void *slot = (void *)(uintptr_t)(index + 1);

	if (twin)
		diag_error(diag, rule->file, rule->line,
			   "duplicate rule name '%s' (first defined at %s:%u)",
			   rule->name, twin->file, twin->line);
	else
		strmap_put(&rules->by_name, rule->name, slot);
	rules_check_shadow(rules, rule, diag);
	if (!rules_match_has_only_exe(&rule->match))
		return;
	for (size_t i = 0; i < rule->match.exe.count; i++) {
		const char *exe = rules_pattern_key(&rule->match.exe, i);

		if (pattern_is_literal_flags(exe, rule->match.exe.flags) &&
		    !strmap_get(&rules->exe_catchall, exe))
			strmap_put(&rules->exe_catchall, exe, slot);
	}
}

void rules_add(struct rules *rules, struct rule *rule, const char *path,
	       struct diag *diag)
{
	struct rule *slot;

	if (!rules->file_count ||
	    strcmp(rules->files[rules->file_count - 1], path) != 0) {
		rules->files =
			xreallocarray(rules->files, rules->file_count + 1,
				      sizeof(*rules->files));
		rules->files[rules->file_count++] = xstrdup(path);
	}
	if (rules->count == rules->capacity) {
		rules->capacity = rules->capacity ? rules->capacity * 2 : 64;
		rules->list = xreallocarray(rules->list, rules->capacity,
					    sizeof(*rules->list));
	}
	slot = &rules->list[rules->count];
	*slot = *rule;
	slot->file = rules->files[rules->file_count - 1];
	rules_index(rules, rules->count++, diag);
}

void rules_load_text(struct rules *rules, const char *path, const char *text,
		     size_t len, struct diag *diag)
{
	rules->files_read++;
	rulefile_parse(rules, path, text, len, diag);
}

int rules_load_file(struct rules *rules, const char *path, struct diag *diag)
{
	char *text;
	size_t len;

	if (files_read(path, RULES_MAX_FILE_SIZE, &text, &len) != OS_OK) {
		diag_error(diag, path, 0, "cannot read: %s", strerror(errno));
		return -1;
	}
	rules_load_text(rules, path, text, len, diag);
	free(text);
	return 0;
}

struct rules_entry {
	char *base;
	char *path;
	size_t order;
	bool from_dir;
	bool judged; /* refused if others could have written it */
};

struct rules_entries {
	struct rules_entry *list;
	size_t count;
};

/* A directory's file replaces an earlier directory's file of that name;
 * a file named on its own is never replaced. */
static void rules_entries_add(struct rules_entries *e, const char *path,
			      bool from_dir, bool judged)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	if (from_dir) {
		for (size_t i = 0; i < e->count; i++) {
			if (e->list[i].from_dir &&
			    strcmp(e->list[i].base, base) == 0) {
				free(e->list[i].path);
				e->list[i].path = xstrdup(path);
				e->list[i].judged = judged;
				return;
			}
		}
	}
	e->list = xreallocarray(e->list, e->count + 1, sizeof(*e->list));
	e->list[e->count] = (struct rules_entry){
		.base = xstrdup(base),
		.path = xstrdup(path),
		.order = e->count,
		.from_dir = from_dir,
		.judged = judged,
	};
	e->count++;
}

static bool rules_is_rule_file_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 6 &&
	       strcmp(name + len - 6, ".rules") == 0;
}

/* Regular files, or a character device: a link to /dev/null masks a vendor
 * file of the same name, as in systemd's directories. */
static bool rules_is_loadable(const char *path)
{
	struct files_info info;

	return files_info(path, &info) == OS_OK &&
	       (info.type == FILES_TYPE_REGULAR ||
		info.type == FILES_TYPE_DEVICE);
}

static int rules_collect_dir(struct rules_entries *e, const char *dir,
			     bool must_exist, bool judged, struct diag *diag)
{
	char **names;
	size_t count;
	enum os_status status = files_list(dir, &names, &count);

	if (status != OS_OK) {
		if (status == OS_GONE && !must_exist)
			return 0;
		diag_error(diag, dir, 0, "cannot read directory: %s",
			   strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		char *path;

		if (!rules_is_rule_file_name(names[i]))
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		if (rules_is_loadable(path))
			rules_entries_add(e, path, true, judged);
		free(path);
	}
	files_list_free(names, count);
	return 0;
}

/* A path given: the rule files of a directory, or the file itself. */
static int rules_collect_path(struct rules_entries *e, const char *path,
			      bool must_exist, bool judged, struct diag *diag)
{
	struct files_info info;
	enum os_status status = files_info(path, &info);

	if (status == OS_GONE && !must_exist)
		return 0;
	if (status != OS_OK) {
		diag_error(diag, path, 0, "%s", strerror(errno));
		return -1;
	}
	if (info.type == FILES_TYPE_DIRECTORY)
		return rules_collect_dir(e, path, must_exist, judged, diag);
	rules_entries_add(e, path, false, judged);
	return 0;
}

static int rules_entry_compare(const void *a, const void *b)
{
	const struct rules_entry *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	if (c)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

/* The length of a path without the separators it ends with. */
static size_t rules_path_len(const char *path, size_t len)
{
	while (len > 1 && (path[len - 1] == '/' || path[len - 1] == '\\'))
		len--;
	return len;
}

static bool rules_is_trust_dir(const struct rules *rules, const char *path,
			       size_t len)
{
	len = rules_path_len(path, len);
	for (size_t i = 0; i < rules->trust_dir_count; i++) {
		const char *dir = rules->trust_dirs[i];
		size_t dir_len = rules_path_len(dir, strlen(dir));

		if (dir_len == len && memcmp(dir, path, len) == 0)
			return true;
	}
	return false;
}

/* Whether what a path names is judged by who could have written it: all
 * the daemon loads, and what check is given of the configured
 * directories, as the config names them. */
static bool rules_judged(const struct rules *rules, const char *path)
{
	size_t len = rules_path_len(path, strlen(path));

	if (rules->trust_all)
		return true;
	if (rules_is_trust_dir(rules, path, len))
		return true;
	while (len > 0 && path[len - 1] != '/' && path[len - 1] != '\\')
		len--;
	return len > 0 && rules_is_trust_dir(rules, path, len);
}

/* A file or directory someone other than root could have written is
 * refused like a file with a syntax error: the load fails, and a reload
 * keeps the rules in force. A path that is not there is left to the
 * load to report. */
static int rules_trusted(const char *path, struct diag *diag)
{
	char why[2 * 4096 + 256];

	switch (trust_path(path, why, sizeof(why))) {
	case OS_OK:
	case OS_GONE:
		return 1;
	case OS_DENIED:
		diag_error(diag, path, 0, "%s", why);
		return 0;
	case OS_UNSUPPORTED:
	case OS_FAILED:
		break;
	}
	diag_error(diag, path, 0, "%s", why);
	return -1;
}

/* Directories are merged by file name, a later directory replacing an
 * earlier one's file; files named on their own are always read. All are
 * then read in lexical order of their file names. */
int rules_load_paths(struct rules *rules, char *const *paths, size_t count,
		     bool must_exist, struct diag *diag)
{
	struct rules_entries e = {0};
	int status = 0;

	for (size_t i = 0; i < count; i++) {
		bool judged = rules_judged(rules, paths[i]);
		int trusted = judged ? rules_trusted(paths[i], diag) : 1;

		if (trusted < 0 ||
		    (trusted > 0 && rules_collect_path(&e, paths[i], must_exist,
						       judged, diag) < 0))
			status = -1;
	}
	if (e.count)
		qsort(e.list, e.count, sizeof(*e.list), rules_entry_compare);
	for (size_t i = 0; i < e.count; i++) {
		int trusted = e.list[i].judged
				      ? rules_trusted(e.list[i].path, diag)
				      : 1;

		if (trusted < 0 ||
		    (trusted > 0 &&
		     rules_load_file(rules, e.list[i].path, diag) < 0))
			status = -1;
		free(e.list[i].base);
		free(e.list[i].path);
	}
	free(e.list);
	/* A daemon keeps the set for long: no spare capacity, and none of
	 * the maps only the checks across files needed. */
	if (rules->count && rules->count < rules->capacity) {
		rules->list = xreallocarray(rules->list, rules->count,
					    sizeof(*rules->list));
		rules->capacity = rules->count;
	}
	rules_free_checks(rules);
	return status;
}

/* Values may be an import's, from strangers: a terminal is shown their
 * control bytes escaped. */
static void rules_print_text(FILE *out, const char *text)
{
	quote_write(out, text, QUOTE_ALL, QUOTE_MODE_DISPLAY);
}

static void rules_print_patterns(FILE *out, const char *key,
				 const struct rule_patterns *p)
{
	if (!p->count)
		return;
	fprintf(out, "  match.%s =", key);
	for (size_t i = 0; i < p->count; i++) {
		fprintf(out, "%s \"", i ? "," : "");
		rules_print_text(out, p->values[i]);
		fputc('"', out);
	}
	fputc('\n', out);
}

static void rules_print_ids(FILE *out, const char *key,
			    const struct rule_ids *ids)
{
	if (!ids->count)
		return;
	fprintf(out, "  match.%s =", key);
	for (size_t i = 0; i < ids->count; i++) {
		const struct rule_id *id = &ids->values[i];

		fprintf(out, "%s ", i ? "," : "");
		rules_print_text(out, id->name);
		if (id->known)
			fprintf(out, " (%u)", id->id);
		else
			fprintf(out, " (unknown)");
	}
	fputc('\n', out);
}

/* group: "priority", "restrain" for a rule's restrained settings, or
 * "foreground" for its foreground ones. */
static void rules_print_priority(FILE *out, const char *group,
				 const struct rule_priority *p)
{
	if (p->class)
		fprintf(out, "  %s.class = %s\n", group,
			rules_enum_name(RULES_ENUM_CLASS, p->class));
	if (p->has_nice)
		fprintf(out, "  %s.nice = %d\n", group, p->nice);
	if (p->policy)
		fprintf(out, "  %s.policy = %s\n", group,
			rules_enum_name(RULES_ENUM_POLICY, p->policy));
	if (p->rt_priority)
		fprintf(out, "  %s.rt_priority = %d\n", group, p->rt_priority);
	if (p->io_class)
		fprintf(out, "  %s.io_class = %s\n", group,
			rules_enum_name(RULES_ENUM_IO_CLASS, p->io_class));
	if (p->io_level >= 0)
		fprintf(out, "  %s.io_level = %d\n", group, p->io_level);
	if (p->thread)
		fprintf(out, "  %s.thread = %s\n", group,
			rules_enum_name(RULES_ENUM_THREAD, p->thread));
	if (p->efficiency_mode)
		fprintf(out, "  %s.efficiency_mode = %s\n", group,
			rules_enum_name(RULES_ENUM_EFFICIENCY,
					p->efficiency_mode));
	if (p->ifeo)
		fprintf(out, "  %s.ifeo = %s\n", group,
			rules_enum_name(RULES_ENUM_IFEO, p->ifeo));
	if (p->memory_priority)
		fprintf(out, "  %s.memory_priority = %s\n", group,
			rules_enum_name(RULES_ENUM_MEMORY, p->memory_priority));
}

static void rules_print_placement(FILE *out, const struct rule_placement *p)
{
	char cpus[256];

	if (p->cores)
		fprintf(out, "  placement.cores = %s\n",
			rules_enum_name(RULES_ENUM_CORES, p->cores));
	if (p->has_cpus) {
		cpulist_format(&p->cpus, cpus, sizeof(cpus));
		fprintf(out, "  placement.cpus = %s\n", cpus);
	}
	if (p->spread)
		fprintf(out, "  placement.spread = %s\n",
			rules_enum_name(RULES_ENUM_SPREAD, p->spread));
	if (p->has_hard)
		fprintf(out, "  placement.hard = %s\n",
			p->hard ? "true" : "false");
}

static void rules_print_power(FILE *out, const struct rule_power *p)
{
	if (p->parking)
		fprintf(out, "  power.parking = %s\n",
			rules_enum_name(RULES_ENUM_PARKING, p->parking));
	if (p->min_online >= 0)
		fprintf(out, "  power.min_online = %d\n", p->min_online);
	if (p->idle_latency_us >= 0)
		fprintf(out, "  power.idle_latency_us = %ld\n",
			p->idle_latency_us);
	if (p->governor)
		fprintf(out, "  power.governor = %s\n", p->governor);
	if (p->epp)
		fprintf(out, "  power.epp = %s\n", p->epp);
	if (p->profile)
		fprintf(out, "  power.profile = %s\n", p->profile);
	if (p->turbo)
		fprintf(out, "  power.turbo = %s\n",
			p->turbo == RULE_TURBO_ON ? "true" : "false");
	if (p->plan[0])
		fprintf(out, "  power.plan = %s\n", p->plan);
}

/* The rule set as the daemon sees it, one key per line, in match order. */
void rules_print(const struct rules *rules, FILE *out)
{
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];
		const struct rule_match_more *more =
			rules_match_more(&r->match);
		char *const *sources;
		unsigned source_count;

		fprintf(out, "rule %s (%s:%u)\n", r->name, r->file, r->line);
		rules_print_patterns(out, "exe", &r->match.exe);
		rules_print_patterns(out, "name", &r->match.name);
		rules_print_patterns(out, "cmdline", &more->cmdline);
		rules_print_ids(out, "user", &more->user);
		rules_print_ids(out, "group", &more->group);
		rules_print_patterns(out, "cgroup", &more->cgroup);
		rules_print_patterns(out, "parent_exe", &more->parent_exe);
		rules_print_priority(out, "priority", &r->priority);
		rules_print_placement(out, rules_placement(r));
		rules_print_power(out, rules_power(r));
		if (r->allow_spoofable)
			fprintf(out, "  allow_spoofable = true\n");
		if (r->has_follow_children)
			fprintf(out, "  follow_children = %s\n",
				r->follow_children ? "true" : "false");
		if (r->restrain_off)
			fprintf(out, "  restrain = false\n");
		if (rules_restrain(r))
			rules_print_priority(out, "restrain",
					     rules_restrain(r));
		if (rules_foreground(r))
			rules_print_priority(out, "foreground",
					     rules_foreground(r));
		sources = rules_sources(r, &source_count);
		for (size_t s = 0; s < source_count; s++) {
			fprintf(out, "  source = \"");
			rules_print_text(out, sources[s]);
			fprintf(out, "\"\n");
		}
	}
}
