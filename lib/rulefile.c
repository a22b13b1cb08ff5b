/* One rule file: libconfig text to validated rules. libconfig checks the
 * syntax; everything else (unknown keys, types, ranges, enums, conflicts,
 * spoofable raises) is checked here, each with the line it is on. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "ifeo.h"
#include "os.h"
#include "pattern.h"
#include "prio.h"
#include "rulefile.h"
#include "rules.h"
#include "util.h"
#include "winpower.h"

struct rulefile {
	struct rules *rules;
	enum rules_system system; /* never RULES_SYSTEM_NATIVE */
	const char *path;
	struct diag *diag;
	/* Lines whose integer the prescan found too big: libconfig holds a
	 * wrapped value there, which must not be reported a second time. */
	struct {
		unsigned line;
		char key[64];
	} overflows[8];
	size_t overflow_count;
	char last_key[64]; /* the prescan's most recent setting name */
	const char *text;
	size_t len;
	size_t *line_starts; /* offset of each line's first byte */
	unsigned line_count;
};

static void rulefile_error(struct rulefile *rf, unsigned line, const char *fmt,
			   ...) __attribute__((format(OS_PRINTF, 3, 4)));
static void rulefile_warning(struct rulefile *rf, unsigned line,
			     const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 3, 4)));

static void rulefile_error(struct rulefile *rf, unsigned line, const char *fmt,
			   ...)
{
	char message[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	diag_error(rf->diag, rf->path, line, "%s", message);
}

static void rulefile_warning(struct rulefile *rf, unsigned line,
			     const char *fmt, ...)
{
	char message[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	diag_warning(rf->diag, rf->path, line, "%s", message);
}

static bool rulefile_line_has_content(const char *line, const char *end)
{
	for (const char *c = line; c < end && *c != '\n'; c++) {
		if (*c == '#' || (*c == '/' && c + 1 < end && c[1] == '/'))
			return false;
		if (!isspace((unsigned char)*c))
			return true;
	}
	return false;
}

/* libconfig joins adjacent strings, so it reads past a string to the next
 * token and records that token's line: the last element of a list closed
 * on the next line would be blamed on the line of the ']'. A string sits
 * on the last line with content before the one recorded, unless the
 * recorded line holds a quote itself. */
static unsigned rulefile_string_line(const struct rulefile *rf, unsigned line)
{
	unsigned recorded = line;
	const char *start;

	if (line == 0 || line > rf->line_count)
		return line;
	start = rf->text + rf->line_starts[line - 1];
	if (memchr(start, '"', strcspn(start, "\n")))
		return line;
	while (--line > 0) {
		start = rf->text + rf->line_starts[line - 1];
		if (rulefile_line_has_content(start, rf->text + rf->len))
			return line;
	}
	return recorded;
}

static unsigned rulefile_line(const struct rulefile *rf,
			      const config_setting_t *s)
{
	unsigned line = config_setting_source_line(s);

	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return rulefile_string_line(rf, line);
	return line;
}

/* The dotted path of a setting inside its rule ("priority.nice",
 * "match.exe[1]"), or from the top for settings outside rules. */
static void rulefile_key(const config_setting_t *s, char *buf, size_t size)
{
	const config_setting_t *chain[16];
	size_t depth = 0, used = 0;

	for (; s && !config_setting_is_root(s) && depth < ARRAY_SIZE(chain);
	     s = config_setting_parent(s)) {
		const config_setting_t *parent = config_setting_parent(s);

		/* A rule is an element of the top-level "rules" list. */
		if (!config_setting_name(s) && parent &&
		    config_setting_name(parent) &&
		    strcmp(config_setting_name(parent), "rules") == 0 &&
		    config_setting_is_root(config_setting_parent(parent)))
			break;
		chain[depth++] = s;
	}
	buf[0] = '\0';
	while (depth-- > 0 && used < size) {
		const config_setting_t *c = chain[depth];
		int n;

		if (config_setting_name(c))
			n = snprintf(buf + used, size - used, "%s%s",
				     used ? "." : "", config_setting_name(c));
		else
			n = snprintf(buf + used, size - used, "[%d]",
				     config_setting_index(c));
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static const char *rulefile_type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	}
	return "nothing";
}

static bool rulefile_expect(struct rulefile *rf, const config_setting_t *s,
			    int type, const char *wanted)
{
	char key[128];
	int got = config_setting_type(s);

	if (got == type ||
	    (type == CONFIG_TYPE_INT && got == CONFIG_TYPE_INT64))
		return true;
	rulefile_key(s, key, sizeof(key));
	rulefile_error(rf, rulefile_line(rf, s), "%s: expected %s, got %s", key,
		       wanted, rulefile_type_name(got));
	return false;
}

static bool rulefile_keys_known(struct rulefile *rf,
				const config_setting_t *group,
				const char *const *valid, size_t nvalid)
{
	bool ok = true;

	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, i);
		const char *name = config_setting_name(s);
		char key[128], list[256];
		size_t used = 0;
		bool known = false;

		for (size_t k = 0; k < nvalid; k++)
			known = known || strcmp(name, valid[k]) == 0;
		if (known)
			continue;
		list[0] = '\0';
		for (size_t k = 0; k < nvalid && used < sizeof(list); k++) {
			int n = snprintf(list + used, sizeof(list) - used,
					 "%s%s", k ? ", " : "", valid[k]);

			if (n < 0)
				break;
			used += (size_t)n;
		}
		rulefile_key(s, key, sizeof(key));
		rulefile_error(rf, rulefile_line(rf, s),
			       "unknown key '%s' (valid here: %s)", key, list);
		ok = false;
	}
	return ok;
}

static bool rulefile_int(struct rulefile *rf, const config_setting_t *s,
			 long long min, long long max, long long *out)
{
	char key[128];
	long long value;

	if (!rulefile_expect(rf, s, CONFIG_TYPE_INT, "an integer"))
		return false;
	for (size_t i = 0; i < rf->overflow_count; i++) {
		const config_setting_t *named = s;

		while (named && !config_setting_name(named))
			named = config_setting_parent(named);
		if (rf->overflows[i].line == rulefile_line(rf, s) && named &&
		    strcmp(rf->overflows[i].key, config_setting_name(named)) ==
			    0)
			return false;
	}
	value = config_setting_get_int64(s);
	if (value < min || value > max) {
		rulefile_key(s, key, sizeof(key));
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: %lld is out of range (%lld..%lld)", key,
			       value, min, max);
		return false;
	}
	*out = value;
	return true;
}

static bool rulefile_bool(struct rulefile *rf, const config_setting_t *s,
			  bool *out)
{
	if (!rulefile_expect(rf, s, CONFIG_TYPE_BOOL, "true or false"))
		return false;
	*out = config_setting_get_bool(s);
	return true;
}

static bool rulefile_enum(struct rulefile *rf, const config_setting_t *s,
			  enum rules_enum which, int *out)
{
	char key[128], valid[256];
	const char *text;
	int value;

	if (!rulefile_expect(rf, s, CONFIG_TYPE_STRING, "a string"))
		return false;
	text = config_setting_get_string(s);
	value = rules_enum_lookup(which, text);
	if (value < 0) {
		rulefile_key(s, key, sizeof(key));
		rules_enum_list(which, valid, sizeof(valid));
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: '%.64s' is not valid (valid: %s)", key,
			       text, valid);
		return false;
	}
	*out = value;
	return true;
}

/* Scalars or a list/array of them: "exe = "/a";" or "exe = ["/a", "/b"];". */
static bool rulefile_values(struct rulefile *rf, const config_setting_t *s,
			    const config_setting_t ***values, int *count)
{
	char key[128];
	int n;

	if (!config_setting_is_array(s) && !config_setting_is_list(s)) {
		*values = xmalloc(sizeof(**values));
		(*values)[0] = s;
		*count = 1;
		return true;
	}
	n = config_setting_length(s);
	if (n == 0) {
		rulefile_key(s, key, sizeof(key));
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: empty list matches nothing", key);
		return false;
	}
	*values = xcalloc((size_t)n, sizeof(**values));
	for (int i = 0; i < n; i++)
		(*values)[i] = config_setting_get_elem(s, i);
	*count = n;
	return true;
}

enum rulefile_pattern_kind {
	RULEFILE_PATTERN_KIND_PATH,
	RULEFILE_PATTERN_KIND_CGROUP, /* a path of the cgroup tree: '/' */
	RULEFILE_PATTERN_KIND_COMM,
	RULEFILE_PATTERN_KIND_TEXT,
};

/* On Windows paths and image names compare as its file systems compare
 * names: case-insensitive, '\\' and '/' alike. A command line stays as
 * written, as the program sees it. */
static unsigned rulefile_pattern_flags(const struct rulefile *rf,
				       enum rulefile_pattern_kind kind)
{
	if (rf->system != RULES_SYSTEM_WINDOWS ||
	    kind == RULEFILE_PATTERN_KIND_TEXT ||
	    kind == RULEFILE_PATTERN_KIND_CGROUP)
		return 0;
	return PATTERN_FOLD | PATTERN_SLASHES;
}

static bool rulefile_pattern_one(struct rulefile *rf, const config_setting_t *s,
				 enum rulefile_pattern_kind kind)
{
	unsigned flags = rulefile_pattern_flags(rf, kind);
	char key[128], why[128];
	const char *text = config_setting_get_string(s);
	size_t len = strlen(text);

	rulefile_key(s, key, sizeof(key));
	if (len == 0) {
		rulefile_error(rf, rulefile_line(rf, s), "%s: empty pattern",
			       key);
		return false;
	}
	if (len >= PATH_MAX) {
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: longer than %d characters", key,
			       PATH_MAX - 1);
		return false;
	}
	if (pattern_check_flags(text, flags, why, sizeof(why)) < 0) {
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: invalid glob '%.64s': %s", key, text, why);
		return false;
	}
	switch (kind) {
	case RULEFILE_PATTERN_KIND_PATH:
	case RULEFILE_PATTERN_KIND_CGROUP:
		/* A Linux path in a set checked for Windows: one file
		 * may serve both systems, and such a value never
		 * matches there (pattern_match_flags), which is said. */
		if (!pattern_is_absolute(text, flags) &&
		    !(flags && pattern_is_absolute(text, 0) && text[1] != '/' &&
		      text[1] != '\\')) {
			rulefile_error(rf, rulefile_line(rf, s),
				       flags ? "%s: '%.64s' is not an absolute "
					       "path (a drive, C:\\..., or a "
					       "share, \\\\server\\share\\...)"
					     : "%s: '%.64s' is not an absolute "
					       "path",
				       key, text);
			return false;
		}
		if (flags && !pattern_is_absolute(text, flags))
			rulefile_warning(rf, rulefile_line(rf, s),
					 "%s: '%.64s' is a Linux path: on "
					 "Windows it never matches (a drive, "
					 "C:\\..., or a share, "
					 "\\\\server\\share\\...)",
					 key, text);
		break;
	case RULEFILE_PATTERN_KIND_COMM:
		/* Windows names a process by its image file: no cut. */
		if (rf->system == RULES_SYSTEM_LINUX &&
		    pattern_is_literal(text) && len > RULEFILE_COMM_MAX)
			rulefile_warning(
				rf, rulefile_line(rf, s),
				"%s: '%.64s' is longer than %d characters and "
				"never matches: the kernel cuts process names "
				"to %d (match on exe instead)",
				key, text, RULEFILE_COMM_MAX,
				RULEFILE_COMM_MAX);
		break;
	case RULEFILE_PATTERN_KIND_TEXT:
		break;
	}
	return true;
}

/* count texts in the rule set's arena: the pointers, then the texts they
 * point to (a daemon holds 20,000 rules' of them). */
static char **rulefile_pack(struct rulefile *rf, const char *const *texts,
			    size_t count)
{
	size_t bytes = count * sizeof(char *);
	char **out, *at;

	for (size_t i = 0; i < count; i++)
		bytes += strlen(texts[i]) + 1;
	out = arena_alloc(&rf->rules->texts, bytes);
	at = (char *)(out + count);
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(texts[i]) + 1;

		out[i] = memcpy(at, texts[i], len);
		at += len;
	}
	return out;
}

/* A match key's values, then with flags their keys, packed together in
 * the rule set's arena. texts has room for both. */
static void rulefile_patterns_pack(struct rulefile *rf,
				   struct rule_patterns *out,
				   const char **texts, unsigned count)
{
	char key[PATH_MAX];

	for (unsigned i = 0; out->flags && i < count; i++)
		texts[count + i] = xstrdup(
			pattern_key(texts[i], out->flags, key, sizeof(key)));
	out->values = rulefile_pack(rf, texts, out->flags ? 2 * count : count);
	for (unsigned i = 0; out->flags && i < count; i++)
		free((char *)texts[count + i]);
	out->count = count;
}

static void rulefile_patterns(struct rulefile *rf, const config_setting_t *s,
			      enum rulefile_pattern_kind kind,
			      struct rule_patterns *out)
{
	const config_setting_t **values;
	const char **texts;
	unsigned kept = 0;
	int count;

	if (!rulefile_values(rf, s, &values, &count))
		return;
	out->flags = rulefile_pattern_flags(rf, kind);
	texts = xcalloc(2 * (size_t)count + 1, sizeof(*texts));
	for (int i = 0; i < count; i++) {
		if (!rulefile_expect(rf, values[i], CONFIG_TYPE_STRING,
				     "a string"))
			continue;
		if (!rulefile_pattern_one(rf, values[i], kind))
			continue;
		texts[kept++] = config_setting_get_string(values[i]);
	}
	rulefile_patterns_pack(rf, out, texts, kept);
	free(texts);
	free(values);
}

static void rulefile_ids(struct rulefile *rf, const config_setting_t *s,
			 bool group, struct rule_ids *out)
{
	const char *what = group ? "group" : "user";
	const config_setting_t **values;
	char key[128];
	int count;

	if (!rulefile_values(rf, s, &values, &count))
		return;
	out->values = xcalloc((size_t)count, sizeof(*out->values));
	for (int i = 0; i < count; i++) {
		const config_setting_t *v = values[i];
		struct rule_id *id = &out->values[out->count];
		long long number;

		rulefile_key(v, key, sizeof(key));
		if (config_setting_type(v) == CONFIG_TYPE_STRING) {
			const char *name = config_setting_get_string(v);

			if (!*name || strlen(name) > 256) {
				rulefile_error(rf, rulefile_line(rf, v),
					       "%s: not a valid %s name", key,
					       what);
				continue;
			}
			id->name = xstrdup(name);
			id->known = rules_resolve_id(rf->rules, group, name,
						     &id->id);
			if (!id->known)
				rulefile_warning(
					rf, rulefile_line(rf, v),
					"%s: unknown %s '%.64s': it matches "
					"nothing until it exists and the rules "
					"are reloaded",
					key, what, name);
		} else if (config_setting_type(v) == CONFIG_TYPE_INT ||
			   config_setting_type(v) == CONFIG_TYPE_INT64) {
			/* (uid_t)-1 means "no change" to the kernel. */
			if (!rulefile_int(rf, v, 0, UINT32_MAX - 1, &number))
				continue;
			/* The numbers there are only the SID table's. */
			if (rf->system == RULES_SYSTEM_WINDOWS) {
				rulefile_error(rf, rulefile_line(rf, v),
					       "%s: Windows has no numeric %s "
					       "ids: name the account "
					       "(DOMAIN\\name or name) or its "
					       "SID (S-1-5-...)",
					       key, what);
				continue;
			}
			id->name = xasprintf("%lld", number);
			id->id = (unsigned)number;
			id->known = true;
		} else {
			rulefile_error(
				rf, rulefile_line(rf, v),
				"%s: expected a %s name or number, got "
				"%s",
				key, what,
				rulefile_type_name(config_setting_type(v)));
			continue;
		}
		out->count++;
	}
	free(values);
}

static const char *rulefile_system_title(enum rules_system system)
{
	switch (system) {
	case RULES_SYSTEM_NATIVE:
		break;
	case RULES_SYSTEM_LINUX:
		return "Linux";
	case RULES_SYSTEM_WINDOWS:
		return "Windows";
	}
	return "this system";
}

/* A key the target system cannot apply: the rule still loads, since one
 * file serves both systems, and the key does nothing there. Said only of
 * a valid value: a bad one has its error already. */
static void rulefile_ignored(struct rulefile *rf, const config_setting_t *g,
			     const char *name, bool given,
			     enum rules_system only, const char *hint)
{
	const config_setting_t *s = config_setting_get_member(g, name);
	char key[128];

	if (!s || !given || rf->system == only)
		return;
	rulefile_key(s, key, sizeof(key));
	rulefile_warning(rf, rulefile_line(rf, s),
			 "%s applies on %s only; on %s it is ignored%s", key,
			 rulefile_system_title(only),
			 rulefile_system_title(rf->system), hint);
}

/* A key that would change what the rule means where it cannot apply: a
 * match it cannot evaluate, a setting with nothing like it there. */
static void rulefile_refused(struct rulefile *rf, const config_setting_t *g,
			     const char *name, enum rules_system on,
			     const char *why)
{
	const config_setting_t *s = config_setting_get_member(g, name);
	char key[128];

	if (!s || rf->system != on)
		return;
	rulefile_key(s, key, sizeof(key));
	rulefile_error(rf, rulefile_line(rf, s), "%s: %s", key, why);
}

static void rulefile_match(struct rulefile *rf, const config_setting_t *g,
			   struct rule *rule)
{
	static const char *const keys[] = {
		"exe",	 "name",   "cmdline",	 "user",
		"group", "cgroup", "parent_exe",
	};
	struct rule_match *m = &rule->match;
	const config_setting_t *s;

	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP, "a group { ... }"))
		return;
	if (config_setting_length(g) == 0) {
		rulefile_error(rf, rulefile_line(rf, g),
			       "match is empty: the rule would apply to every "
			       "process");
		return;
	}
	rulefile_keys_known(rf, g, keys, ARRAY_SIZE(keys));
	if ((s = config_setting_get_member(g, "exe")))
		rulefile_patterns(rf, s, RULEFILE_PATTERN_KIND_PATH, &m->exe);
	if ((s = config_setting_get_member(g, "name")))
		rulefile_patterns(rf, s, RULEFILE_PATTERN_KIND_COMM, &m->name);
	if ((s = config_setting_get_member(g, "cmdline")))
		rulefile_patterns(rf, s, RULEFILE_PATTERN_KIND_TEXT,
				  &rules_match_more_add(m)->cmdline);
	if ((s = config_setting_get_member(g, "cgroup")))
		rulefile_patterns(rf, s, RULEFILE_PATTERN_KIND_CGROUP,
				  &rules_match_more_add(m)->cgroup);
	if ((s = config_setting_get_member(g, "parent_exe")))
		rulefile_patterns(rf, s, RULEFILE_PATTERN_KIND_PATH,
				  &rules_match_more_add(m)->parent_exe);
	if ((s = config_setting_get_member(g, "user")))
		rulefile_ids(rf, s, false, &rules_match_more_add(m)->user);
	if ((s = config_setting_get_member(g, "group")))
		rulefile_ids(rf, s, true, &rules_match_more_add(m)->group);
	rulefile_refused(rf, g, "cgroup", RULES_SYSTEM_WINDOWS,
			 "Windows has no cgroups");
}

static void rulefile_conflict(struct rulefile *rf, const config_setting_t *g,
			      const char *a, const char *b, const char *why)
{
	const config_setting_t *sa = config_setting_get_member(g, a);
	const config_setting_t *sb = config_setting_get_member(g, b);
	char key_a[128], key_b[128];

	if (!sa || !sb)
		return;
	rulefile_key(sa, key_a, sizeof(key_a));
	rulefile_key(sb, key_b, sizeof(key_b));
	rulefile_error(rf, rulefile_line(rf, sb), "%s conflicts with %s (%s)",
		       key_b, key_a, why);
}

/* On Linux thread moves nice (prio.c), which SCHED_IDLE and the realtime
 * policies ignore; on Windows it applies in every class. */
static void rulefile_thread_linux(struct rulefile *rf,
				  const config_setting_t *g,
				  const struct rule_priority *p)
{
	const struct prio_class_map *map = prio_class(p->class);
	enum rule_policy policy = p->policy;
	char with[64];

	if (!p->thread || rf->system != RULES_SYSTEM_LINUX)
		return;
	if (!policy && map)
		policy = map->policy;
	if (policy != RULE_POLICY_IDLE && policy != RULE_POLICY_FIFO &&
	    policy != RULE_POLICY_RR)
		return;
	if (p->policy)
		snprintf(with, sizeof(with), "policy \"%s\"",
			 rules_enum_name(RULES_ENUM_POLICY, p->policy));
	else
		snprintf(with, sizeof(with), "class \"%s\"",
			 rules_enum_name(RULES_ENUM_CLASS, p->class));
	rulefile_warning(
		rf, rulefile_line(rf, config_setting_get_member(g, "thread")),
		"priority.thread has no effect on Linux with %s: it moves "
		"nice, which that policy ignores",
		with);
}

/* What each system cannot apply of a priority section. */
static void rulefile_priority_system(struct rulefile *rf,
				     const config_setting_t *g,
				     const struct rule_priority *p)
{
	const enum rules_system lx = RULES_SYSTEM_LINUX;

	rulefile_ignored(rf, g, "efficiency_mode", p->efficiency_mode,
			 RULES_SYSTEM_WINDOWS, "");
	rulefile_ignored(rf, g, "ifeo", p->ifeo, RULES_SYSTEM_WINDOWS, "");
	rulefile_ignored(rf, g, "memory_priority", p->memory_priority,
			 RULES_SYSTEM_WINDOWS, "");
	rulefile_ignored(rf, g, "nice", p->has_nice, lx, " (use class)");
	rulefile_ignored(rf, g, "policy", p->policy, lx, " (use class)");
	rulefile_ignored(rf, g, "rt_priority", p->rt_priority, lx,
			 " (REALTIME_PRIORITY_CLASS has no levels)");
	rulefile_thread_linux(rf, g, p);
}

/* priority.ifeo asked for where a glob makes the registry's key, the
 * file name alone, reach programs the rule does not name (ifeo.h). */
static void rulefile_ifeo_globs(struct rulefile *rf, unsigned line,
				const struct rule_match *m)
{
	for (size_t i = 0; i < m->exe.count; i++) {
		const char *exe = m->exe.values[i];
		const char *file = ifeo_exe_file_name(exe);

		if (ifeo_exe_literal(exe))
			continue;
		if (file)
			rulefile_warning(
				rf, line,
				"priority.ifeo: exe '%.200s' is a glob, and "
				"Windows keys PerfOptions by file name alone: "
				"every program called %.200s on this machine, "
				"in any folder, starts with them",
				exe, file);
		else
			rulefile_warning(rf, line,
					 "priority.ifeo: exe '%.200s' names no "
					 "one file name: nothing is written "
					 "for it",
					 exe);
	}
	for (size_t i = 0; i < m->name.count; i++) {
		if (!pattern_is_literal(m->name.values[i]))
			rulefile_warning(rf, line,
					 "priority.ifeo: name '%.200s' is a "
					 "glob: nothing is written for it",
					 m->name.values[i]);
	}
}

static void rulefile_ifeo(struct rulefile *rf, const config_setting_t *g,
			  const struct rule *rule)
{
	const config_setting_t *s = config_setting_get_member(g, "ifeo");
	const struct rule_priority *p = &rule->priority;
	unsigned line;

	if (!s || rf->system != RULES_SYSTEM_WINDOWS ||
	    (p->ifeo != RULE_IFEO_CLASS && p->ifeo != RULE_IFEO_CLASS_IO))
		return;
	line = rulefile_line(rf, s);
	if (!ifeo_values_set(ifeo_values_of(p))) {
		rulefile_warning(rf, line,
				 "priority.ifeo has no effect: PerfOptions "
				 "have a value for class idle, below-normal, "
				 "above-normal or high only");
		return;
	}
	rulefile_ifeo_globs(rf, line, &rule->match);
}

static void rulefile_priority(struct rulefile *rf, const config_setting_t *g,
			      struct rule *rule)
{
	static const char *const keys[] = {
		"class",    "nice",
		"policy",   "rt_priority",
		"io_class", "io_level",
		"thread",   "efficiency_mode",
		"ifeo",	    "memory_priority",
	};
	struct rule_priority *p = &rule->priority;
	const config_setting_t *s;
	long long number;
	int value;

	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP, "a group { ... }"))
		return;
	if (config_setting_length(g) == 0)
		rulefile_warning(rf, rulefile_line(rf, g),
				 "%s is empty and sets nothing",
				 config_setting_name(g));
	rulefile_keys_known(rf, g, keys, ARRAY_SIZE(keys));
	if ((s = config_setting_get_member(g, "class")) &&
	    rulefile_enum(rf, s, RULES_ENUM_CLASS, &value))
		p->class = (enum rule_class)value;
	if ((s = config_setting_get_member(g, "nice")) &&
	    rulefile_int(rf, s, -20, 19, &number)) {
		p->has_nice = true;
		p->nice = (int)number;
	}
	if ((s = config_setting_get_member(g, "policy")) &&
	    rulefile_enum(rf, s, RULES_ENUM_POLICY, &value))
		p->policy = (enum rule_policy)value;
	if ((s = config_setting_get_member(g, "rt_priority")) &&
	    rulefile_int(rf, s, 1, 99, &number)) {
		p->rt_priority = (int)number;
		if (p->policy != RULE_POLICY_FIFO &&
		    p->policy != RULE_POLICY_RR &&
		    p->class != RULE_CLASS_REALTIME)
			rulefile_error(rf, rulefile_line(rf, s),
				       "priority.rt_priority needs policy "
				       "\"fifo\" or \"rr\", or class "
				       "\"realtime\"");
	}
	if ((s = config_setting_get_member(g, "io_class")) &&
	    rulefile_enum(rf, s, RULES_ENUM_IO_CLASS, &value))
		p->io_class = (enum rule_io_class)value;
	if ((s = config_setting_get_member(g, "io_level")) &&
	    rulefile_int(rf, s, 0, 7, &number)) {
		p->io_level = (int)number;
		if (p->io_class == RULE_IO_CLASS_IDLE)
			rulefile_error(rf, rulefile_line(rf, s),
				       "priority.io_level has no meaning with "
				       "io_class \"idle\"");
	}
	if ((s = config_setting_get_member(g, "thread")) &&
	    rulefile_enum(rf, s, RULES_ENUM_THREAD, &value))
		p->thread = (enum rule_thread)value;
	if ((s = config_setting_get_member(g, "efficiency_mode")) &&
	    rulefile_enum(rf, s, RULES_ENUM_EFFICIENCY, &value))
		p->efficiency_mode = (enum rule_efficiency)value;
	if ((s = config_setting_get_member(g, "ifeo")) &&
	    rulefile_enum(rf, s, RULES_ENUM_IFEO, &value))
		p->ifeo = (enum rule_ifeo)value;
	if ((s = config_setting_get_member(g, "memory_priority")) &&
	    rulefile_enum(rf, s, RULES_ENUM_MEMORY, &value))
		p->memory_priority = (enum rule_memory)value;
	rulefile_conflict(rf, g, "class", "nice",
			  "the class sets nice; use one of them");
	rulefile_conflict(rf, g, "class", "policy",
			  "the class sets the policy; use one of them");
	if (p->has_nice &&
	    (p->policy == RULE_POLICY_FIFO || p->policy == RULE_POLICY_RR))
		rulefile_warning(
			rf,
			rulefile_line(rf, config_setting_get_member(g, "nice")),
			"priority.nice has no effect with a realtime "
			"policy");
	rulefile_priority_system(rf, g, p);
	rulefile_ifeo(rf, g, rule);
}

/* Linux has no soft placement: an affinity is all it has. */
static void rulefile_placement_system(struct rulefile *rf,
				      const config_setting_t *g,
				      const struct rule_placement *p)
{
	const config_setting_t *s = config_setting_get_member(g, "hard");

	if (s && p->has_hard && !p->cores && !p->has_cpus && !p->spread)
		rulefile_warning(rf, rulefile_line(rf, s),
				 "placement.hard alone places nothing: it "
				 "says how cores, cpus or spread apply");
	else if (s && p->has_hard && !p->hard &&
		 rf->system == RULES_SYSTEM_LINUX)
		rulefile_warning(rf, rulefile_line(rf, s),
				 "placement.hard = false has no effect on "
				 "Linux: a thread's affinity is always hard "
				 "there");
}

static void rulefile_placement(struct rulefile *rf, const config_setting_t *g,
			       struct rule *rule)
{
	static const char *const keys[] = {"cores", "cpus", "spread", "hard"};
	struct rule_placement *p = rules_placement_add(rule);
	const config_setting_t *s;
	char why[128];
	int value;

	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP, "a group { ... }"))
		return;
	if (config_setting_length(g) == 0)
		rulefile_warning(rf, rulefile_line(rf, g),
				 "placement is empty and sets nothing");
	rulefile_keys_known(rf, g, keys, ARRAY_SIZE(keys));
	if ((s = config_setting_get_member(g, "cores")) &&
	    rulefile_enum(rf, s, RULES_ENUM_CORES, &value))
		p->cores = (enum rule_cores)value;
	if ((s = config_setting_get_member(g, "cpus")) &&
	    rulefile_expect(rf, s, CONFIG_TYPE_STRING, "a string")) {
		if (cpulist_parse(config_setting_get_string(s), &p->cpus, why,
				  sizeof(why)) < 0)
			rulefile_error(rf, rulefile_line(rf, s),
				       "placement.cpus: '%.64s': %s",
				       config_setting_get_string(s), why);
		else
			p->has_cpus = true;
	}
	if ((s = config_setting_get_member(g, "spread")) &&
	    rulefile_enum(rf, s, RULES_ENUM_SPREAD, &value))
		p->spread = (enum rule_spread)value;
	if ((s = config_setting_get_member(g, "hard")) &&
	    rulefile_bool(rf, s, &p->hard))
		p->has_hard = true;
	rulefile_conflict(rf, g, "cores", "cpus",
			  "both choose the CPUs; use one of them");
	rulefile_placement_system(rf, g, p);
}

static void rulefile_power_string(struct rulefile *rf,
				  const config_setting_t *g, const char *name,
				  enum rules_enum which, const char **out)
{
	const config_setting_t *s = config_setting_get_member(g, name);
	int value;

	if (s && rulefile_enum(rf, s, which, &value))
		*out = rules_enum_name(which, value);
}

/* A plan by name, or by the GUID powercfg /list shows (braces and case
 * as copied); a GUID of a plan with a name is kept as the name. */
static void rulefile_plan(struct rulefile *rf, const config_setting_t *g,
			  struct rule_power *p)
{
	const config_setting_t *s = config_setting_get_member(g, "plan");
	char key[128];

	if (!s || !rulefile_expect(rf, s, CONFIG_TYPE_STRING, "a string"))
		return;
	rulefile_key(s, key, sizeof(key));
	if (!winpower_plan_parse(config_setting_get_string(s), p->plan,
				 sizeof(p->plan)))
		rulefile_error(rf, rulefile_line(rf, s),
			       "%s: '%.64s' is not a power plan: valid: "
			       "ultimate-performance, high-performance, "
			       "balanced, power-saver, or a scheme's GUID "
			       "(powercfg /list)",
			       key, config_setting_get_string(s));
}

static void rulefile_power(struct rulefile *rf, const config_setting_t *g,
			   struct rule *rule)
{
	static const char *const keys[] = {
		"parking", "min_online", "idle_latency_us", "governor",
		"epp",	   "profile",	 "turbo",	    "plan",
	};
	struct rule_power *p = rules_power_add(rule);
	const config_setting_t *s;
	long long number;
	bool flag;
	int value;

	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP, "a group { ... }"))
		return;
	if (config_setting_length(g) == 0)
		rulefile_warning(rf, rulefile_line(rf, g),
				 "power is empty and sets nothing");
	rulefile_keys_known(rf, g, keys, ARRAY_SIZE(keys));
	if ((s = config_setting_get_member(g, "parking")) &&
	    rulefile_enum(rf, s, RULES_ENUM_PARKING, &value))
		p->parking = (enum rule_parking)value;
	if ((s = config_setting_get_member(g, "min_online")) &&
	    rulefile_int(rf, s, 0, 100, &number))
		p->min_online = (int)number;
	/* PM QoS takes an s32 of microseconds. */
	if ((s = config_setting_get_member(g, "idle_latency_us")) &&
	    rulefile_int(rf, s, 0, INT32_MAX, &number))
		p->idle_latency_us = (long)number;
	rulefile_power_string(rf, g, "governor", RULES_ENUM_GOVERNOR,
			      &p->governor);
	rulefile_power_string(rf, g, "epp", RULES_ENUM_EPP, &p->epp);
	rulefile_power_string(rf, g, "profile", RULES_ENUM_PROFILE,
			      &p->profile);
	if ((s = config_setting_get_member(g, "turbo")) &&
	    rulefile_bool(rf, s, &flag))
		p->turbo = flag ? RULE_TURBO_ON : RULE_TURBO_OFF;
	rulefile_plan(rf, g, p);
	if (p->plan[0])
		rulefile_refused(rf, g, "plan", RULES_SYSTEM_LINUX,
				 "Linux has no power plans (profile is its "
				 "ACPI platform profile)");
	/* Windows's power modes are overlays of the Balanced plan. */
	if (p->plan[0] && p->profile && strcmp(p->plan, "balanced") != 0 &&
	    rf->system == RULES_SYSTEM_WINDOWS)
		rulefile_warning(rf, rulefile_line(rf, g),
				 "power.profile: Windows offers power modes "
				 "only under the Balanced plan; with plan = "
				 "\"%s\" it is ignored",
				 p->plan);
	rulefile_ignored(rf, g, "idle_latency_us", p->idle_latency_us >= 0,
			 RULES_SYSTEM_LINUX, "");
	if (p->governor)
		rulefile_refused(rf, g, "governor", RULES_SYSTEM_WINDOWS,
				 "Windows has no cpufreq governors (epp, "
				 "profile and turbo are its power settings)");
}

static bool rulefile_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > RULEFILE_MAX_NAME)
		return false;
	for (const char *p = name; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("_.:+-", *p))
			return false;
	}
	return true;
}

/* An exe rule's grant goes to whoever runs that binary, with LD_PRELOAD
 * (a DLL injected on Windows), under ptrace or with any input: the file is the
 * genuine one, the code it runs need not be. Realtime and system-wide power are
 * too much to give every user who may run it. */
static void rulefile_exe_alone(struct rulefile *rf, const struct rule *rule)
{
	const struct rule_match *m = &rule->match;
	const struct rule_match_more *more = rules_match_more(m);
	bool realtime = rules_realtime(rule), power = rules_has_power(rule);
	const char *what = "holds power settings for";

	if (!m->exe.count || more->user.count || more->group.count ||
	    more->cgroup.count || (!realtime && !power))
		return;
	if (realtime)
		what = power ? "grants realtime scheduling and power settings "
			       "to"
			     : "grants realtime scheduling to";
	if (rf->system == RULES_SYSTEM_WINDOWS)
		rulefile_warning(rf, rule->line,
				 "rule '%s' %s every user who can run its exe "
				 "(with a DLL of theirs injected, under a "
				 "debugger, with any input): add user or group "
				 "to the match",
				 rule->name, what);
	else
		rulefile_warning(
			rf, rule->line,
			"rule '%s' %s every user who can run its exe "
			"(with LD_PRELOAD, under ptrace, with any "
			"input): add user, group or cgroup to the match",
			rule->name, what);
}

/* A raise inherited by a child that runs another program would outlive
 * its match. */
static void rulefile_children(struct rulefile *rf, const config_setting_t *g,
			      const struct rule *rule)
{
	const config_setting_t *s =
		config_setting_get_member(g, "follow_children");

	if (s && rule->has_follow_children && !rule->follow_children &&
	    rules_raises_inherited(rule))
		rulefile_error(rf, rulefile_line(rf, s),
			       "follow_children = false: rule '%s' raises "
			       "priority, and a raise its children inherit "
			       "must not outlive its match",
			       rule->name);
}

static void rulefile_security(struct rulefile *rf, const config_setting_t *g,
			      struct rule *rule)
{
	const config_setting_t *opt =
		config_setting_get_member(g, "allow_spoofable");
	bool raises = rules_raises(rule) ||
		      (rules_foreground(rule) &&
		       rules_priority_raises(rules_foreground(rule))),
	     spoofable = rules_spoofable(rule);

	if (raises && spoofable && !rule->allow_spoofable)
		rulefile_error(rf, rule->line,
			       "rule '%s' raises priority or power but matches "
			       "only on name, cmdline or parent_exe, which any "
			       "user controls: add exe, user, group or cgroup "
			       "to the match, or set allow_spoofable = true",
			       rule->name);
	else if (raises && spoofable)
		rulefile_warning(rf, rule->line,
				 "rule '%s' can be triggered by any process "
				 "that names itself to match "
				 "(allow_spoofable = true)",
				 rule->name);
	else if (opt && rule->allow_spoofable)
		rulefile_warning(rf, rulefile_line(rf, opt),
				 "allow_spoofable has no effect: rule '%s' %s",
				 rule->name,
				 raises ? "matches on exe, user, group or "
					  "cgroup"
					: "raises nothing");
	rulefile_exe_alone(rf, rule);
	rulefile_children(rf, g, rule);
}

/* A note of where an imported rule came from: one string, or a list with
 * one string per match.name value (the rule was made of several). */
static void rulefile_source(struct rulefile *rf, const config_setting_t *s,
			    struct rule *rule)
{
	const config_setting_t **values;
	const char **texts;
	unsigned kept = 0;
	int count;

	if (!rulefile_values(rf, s, &values, &count))
		return;
	if (count > 1 && (size_t)count != rule->match.name.count) {
		rulefile_error(rf, rulefile_line(rf, s),
			       "source: a list needs one entry per match.name "
			       "value (%u), got %d",
			       rule->match.name.count, count);
		free(values);
		return;
	}
	texts = xcalloc((size_t)count + 1, sizeof(*texts));
	for (int i = 0; i < count; i++) {
		const char *text;

		if (!rulefile_expect(rf, values[i], CONFIG_TYPE_STRING,
				     "a string"))
			text = "";
		else
			text = config_setting_get_string(values[i]);
		if (strlen(text) > RULEFILE_MAX_SOURCE) {
			rulefile_error(rf, rulefile_line(rf, values[i]),
				       "source: longer than %d bytes",
				       RULEFILE_MAX_SOURCE);
			text = "";
		}
		texts[kept++] = text;
	}
	rules_sources_set(rule, rulefile_pack(rf, texts, kept), kept);
	free(texts);
	free(values);
}

/* A rule without a name, or with one not valid, goes by its place. */
static char *rulefile_unnamed(struct rulefile *rf, const config_setting_t *g)
{
	char name[16];

	snprintf(name, sizeof(name), "#%d", config_setting_index(g) + 1);
	return arena_strdup(&rf->rules->texts, name);
}

/* restrain = false, true, or { ... } (cpupolicy.rules(5)): restraint
 * leaves the rule's processes alone, treats them as any, or gives them
 * settings of their own, each a lowering. A rule that sets a priority
 * keeps its processes' priority its own: restraint leaves them alone. */
static void rulefile_restrain(struct rulefile *rf, const config_setting_t *g,
			      struct rule *rule, bool sets_priority)
{
	struct rule lowering = {.priority = {.io_level = -1}};
	bool flag;

	if (config_setting_type(g) == CONFIG_TYPE_BOOL) {
		if (!rulefile_bool(rf, g, &flag))
			return;
		rule->restrain_off = !flag;
		if (flag && sets_priority)
			rulefile_error(rf, rulefile_line(rf, g),
				       "restrain = true: rule '%s' sets a "
				       "priority, which restraint leaves to "
				       "it (drop one of them)",
				       rule->name ? rule->name : "");
		return;
	}
	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP,
			     "true, false or a group { ... }"))
		return;
	rulefile_priority(rf, g, &lowering);
	if (sets_priority)
		rulefile_error(rf, rulefile_line(rf, g),
			       "restrain: rule '%s' sets a priority, which "
			       "restraint leaves to it (drop one of them)",
			       rule->name ? rule->name : "");
	else if (rules_raises(&lowering) || lowering.priority.rt_priority)
		rulefile_error(rf, rulefile_line(rf, g),
			       "restrain: a restraint only lowers (nice 0 to "
			       "19, policy other, batch or idle, io_class "
			       "best-effort or idle, class normal or below)");
	else
		*rules_restrain_add(rule) = lowering.priority;
}

/* foreground = { ... }: what the rule's processes get while their user's
 * desktop says they are in the foreground; a raise there is a raise
 * (rulefile_security), realtime scheduling none a focus should give. */
static void rulefile_foreground(struct rulefile *rf, const config_setting_t *g,
				struct rule *rule)
{
	struct rule focus = {.priority = {.io_level = -1}};
	const struct rule_priority *p = &focus.priority;

	if (!rulefile_expect(rf, g, CONFIG_TYPE_GROUP, "a group { ... }"))
		return;
	rulefile_priority(rf, g, &focus);
	if (p->policy == RULE_POLICY_FIFO || p->policy == RULE_POLICY_RR ||
	    p->class == RULE_CLASS_REALTIME ||
	    p->io_class == RULE_IO_CLASS_REALTIME || p->ifeo)
		rulefile_error(rf, rulefile_line(rf, g),
			       "foreground: realtime scheduling and ifeo are "
			       "not given for a focus (set them in priority)");
	else
		*rules_foreground_add(rule) = focus.priority;
}

static void rulefile_rule(struct rulefile *rf, const config_setting_t *g)
{
	static const char *const keys[] = {
		"name",	    "match",	       "priority",	  "placement",
		"power",    "allow_spoofable", "follow_children", "source",
		"restrain", "foreground",
	};
	const config_setting_t *s;
	struct rule rule = {
		.line = rulefile_line(rf, g),
		.priority = {.io_level = -1},
	};
	bool flag;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
		rulefile_error(rf, rulefile_line(rf, g),
			       "rules[%d]: each rule must be a group { ... }, "
			       "got %s",
			       config_setting_index(g),
			       rulefile_type_name(config_setting_type(g)));
		return;
	}
	rulefile_keys_known(rf, g, keys, ARRAY_SIZE(keys));
	s = config_setting_get_member(g, "name");
	if (!s)
		rulefile_error(rf, rule.line, "rule has no name");
	else if (rulefile_expect(rf, s, CONFIG_TYPE_STRING, "a string")) {
		if (!rulefile_name_valid(config_setting_get_string(s)))
			rulefile_error(rf, rulefile_line(rf, s),
				       "name: '%.64s' is not a valid rule name "
				       "(1 to %d of A-Z a-z 0-9 _ . : + -)",
				       config_setting_get_string(s),
				       RULEFILE_MAX_NAME);
		else
			rule.name = arena_strdup(&rf->rules->texts,
						 config_setting_get_string(s));
	}
	if ((s = config_setting_get_member(g, "match")))
		rulefile_match(rf, s, &rule);
	else
		rulefile_error(rf, rule.line,
			       "rule has no match: say which processes it is "
			       "for");
	if ((s = config_setting_get_member(g, "priority")))
		rulefile_priority(rf, s, &rule);
	if ((s = config_setting_get_member(g, "placement")))
		rulefile_placement(rf, s, &rule);
	if ((s = config_setting_get_member(g, "power")))
		rulefile_power(rf, s, &rule);
	if ((s = config_setting_get_member(g, "allow_spoofable")) &&
	    rulefile_bool(rf, s, &flag))
		rule.allow_spoofable = flag;
	if ((s = config_setting_get_member(g, "follow_children")) &&
	    rulefile_bool(rf, s, &flag)) {
		rule.has_follow_children = true;
		rule.follow_children = flag;
	}
	if ((s = config_setting_get_member(g, "source")))
		rulefile_source(rf, s, &rule);
	if ((s = config_setting_get_member(g, "restrain")))
		rulefile_restrain(rf, s, &rule,
				  config_setting_get_member(g, "priority"));
	if ((s = config_setting_get_member(g, "foreground")))
		rulefile_foreground(rf, s, &rule);
	if (!rule.name)
		rule.name = rulefile_unnamed(rf, g);
	rulefile_security(rf, g, &rule);
	rules_add(rf->rules, &rule, rf->path, rf->diag);
}

static void rulefile_root(struct rulefile *rf, const config_setting_t *root)
{
	static const char *const keys[] = {"version", "rules"};
	const config_setting_t *s;
	long long version;

	rulefile_keys_known(rf, root, keys, ARRAY_SIZE(keys));
	if ((s = config_setting_get_member(root, "version")) &&
	    rulefile_int(rf, s, INT_MIN, INT_MAX, &version) && version != 1)
		rulefile_error(rf, rulefile_line(rf, s),
			       "version: %lld is not supported (this cpupolicy "
			       "reads version 1)",
			       version);
	s = config_setting_get_member(root, "rules");
	if (!s)
		return;
	/* An empty "rules = [];" is an array; anything else must be a list. */
	if (config_setting_is_array(s) && config_setting_length(s) == 0)
		return;
	if (!rulefile_expect(rf, s, CONFIG_TYPE_LIST,
			     "a list ( { ... }, ... )"))
		return;
	for (int i = 0; i < config_setting_length(s); i++)
		rulefile_rule(rf, config_setting_get_elem(s, i));
}

static bool rulefile_number_start(const char *p, const char *start)
{
	if (isdigit((unsigned char)p[0]))
		return true;
	/* A sign begins a number only where a value can begin. */
	return (p[0] == '-' || p[0] == '+') && isdigit((unsigned char)p[1]) &&
	       (p == start || strchr(" \t\r\n=:,([{", p[-1]));
}

/* libconfig 1.5 wraps integers that do not fit in 32 bits (4294967297
 * reads as 1) unless they carry an L suffix: catch them in the text. */
static size_t rulefile_scan_number(struct rulefile *rf, const char *p,
				   unsigned line)
{
	bool negative = *p == '-', hex, is_float = false, is_long = false;
	const char *digits = p + (*p == '-' || *p == '+');
	size_t len = (size_t)(digits - p);
	unsigned long long value = 0;
	bool overflow = false;

	hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
	while (isalnum((unsigned char)p[len]) || p[len] == '.' ||
	       ((p[len] == '-' || p[len] == '+') && !hex &&
		(p[len - 1] == 'e' || p[len - 1] == 'E')))
		len++;
	for (const char *c = digits + (hex ? 2 : 0); c < p + len; c++) {
		int d;

		if (*c == '.' || (!hex && (*c == 'e' || *c == 'E'))) {
			is_float = true;
			break;
		}
		if (*c == 'L') {
			is_long = true;
			break;
		}
		if (isdigit((unsigned char)*c))
			d = *c - '0';
		else if (hex && isxdigit((unsigned char)*c))
			d = tolower((unsigned char)*c) - 'a' + 10;
		else
			break; /* not a number libconfig accepts: it says so */
		if (value > (ULLONG_MAX - (unsigned)d) / (hex ? 16 : 10))
			overflow = true;
		else
			value = value * (hex ? 16 : 10) + (unsigned)d;
	}
	if (is_float)
		return len;
	if (is_long)
		overflow = overflow ||
			   value > (unsigned long long)LLONG_MAX + negative;
	else
		overflow = overflow ||
			   value > (unsigned long long)INT32_MAX + negative;
	if (overflow && rf->overflow_count < ARRAY_SIZE(rf->overflows)) {
		rf->overflows[rf->overflow_count].line = line;
		memcpy(rf->overflows[rf->overflow_count].key, rf->last_key,
		       sizeof(rf->last_key));
		rf->overflow_count++;
	}
	if (overflow)
		rulefile_error(rf, line, "integer %.*s is out of range (%s)",
			       (int)len, p,
			       is_long ? "64 bits"
				       : "32 bits; add an L suffix "
					 "for 64");
	return len;
}

/* Returns false when the text must not reach libconfig: NUL bytes would
 * cut it short and @include would read files outside the rule set. */
static bool rulefile_prescan(struct rulefile *rf, const char *text, size_t len)
{
	unsigned line = 1;
	bool ok = true;

	for (size_t i = 0; i < len;) {
		const char *p = text + i;

		if (*p == '\0') {
			rulefile_error(rf, line, "file contains a NUL byte");
			return false;
		} else if (*p == '\n') {
			line++;
			i++;
		} else if (*p == '"') {
			for (i++; i < len && text[i] != '"'; i++) {
				if (text[i] == '\\' && i + 1 < len)
					i++;
				if (text[i] == '\n')
					line++;
			}
			i++;
		} else if (*p == '#' ||
			   (*p == '/' && i + 1 < len && p[1] == '/')) {
			while (i < len && text[i] != '\n')
				i++;
		} else if (*p == '/' && i + 1 < len && p[1] == '*') {
			for (i += 2;
			     i < len && !(text[i] == '*' && i + 1 < len &&
					  text[i + 1] == '/');
			     i++)
				line += text[i] == '\n';
			i += 2;
		} else if (*p == '@') {
			rulefile_error(rf, line,
				       "@include is not supported: put the "
				       "rules in their own file in a rules "
				       "directory");
			ok = false;
			i++;
		} else if (isalpha((unsigned char)*p) || *p == '*' ||
			   *p == '_') {
			size_t start = i;

			while (i < len && (isalnum((unsigned char)text[i]) ||
					   strchr("_-*", text[i])))
				i++;
			snprintf(rf->last_key, sizeof(rf->last_key), "%.*s",
				 (int)(i - start), text + start);
		} else if (rulefile_number_start(p, text)) {
			i += rulefile_scan_number(rf, p, line);
		} else {
			i++;
		}
	}
	return ok;
}

static void rulefile_index_lines(struct rulefile *rf)
{
	size_t capacity = 64;

	rf->line_starts = xcalloc(capacity, sizeof(*rf->line_starts));
	rf->line_count = 1;
	for (size_t i = 0; i < rf->len; i++) {
		if (rf->text[i] != '\n')
			continue;
		if (rf->line_count == capacity) {
			capacity *= 2;
			rf->line_starts =
				xreallocarray(rf->line_starts, capacity,
					      sizeof(*rf->line_starts));
		}
		rf->line_starts[rf->line_count++] = i + 1;
	}
}

void rulefile_parse(struct rules *rules, const char *path, const char *text,
		    size_t len, struct diag *diag)
{
	struct rulefile rf = {
		.rules = rules,
		.system = rules->system ? rules->system : system_native(),
		.path = path,
		.diag = diag,
		.text = text,
		.len = len,
	};
	size_t first = diag->count;
	config_t config;

	if (!rulefile_prescan(&rf, text, len))
		return;
	rulefile_index_lines(&rf);
	config_init(&config);
	if (!config_read_string(&config, text)) {
		const char *why = config_error_text(&config);

		rulefile_error(&rf, (unsigned)config_error_line(&config),
			       "%s%s", why,
			       strstr(why, "mismatched element type")
				       ? " (an array [ ] holds one type; "
					 "mix names and numbers in a list ( ))"
				       : "");
	} else {
		rulefile_root(&rf, config_root_setting(&config));
	}
	config_destroy(&config);
	free(rf.line_starts);
	diag_sort_lines(diag, first);
}

static void rulefile_free_ids(struct rule_ids *ids)
{
	for (size_t i = 0; i < ids->count; i++)
		free(ids->values[i].name);
	free(ids->values);
}

void rulefile_free_rule(struct rule *rule)
{
	/* Its texts are the set's (rules->texts). */
	if (rule->match.more) {
		rulefile_free_ids(&rule->match.more->user);
		rulefile_free_ids(&rule->match.more->group);
		free(rule->match.more);
	}
	if (rule->extra)
		cpulist_free(&rule->extra->placement.cpus);
	free(rule->extra);
}
