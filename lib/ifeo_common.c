/* Image File Execution Options PerfOptions: the names and values the rules
 * allow (ifeo.h says which and why).
 * Pure: the rules come in, the registry writer takes the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ifeo.h"
#include "pattern.h"
#include "util.h"

/* IoPriority only where the rule asks (ifeo = "class+io"): the daemon
 * cannot give a same-named program its I/O priority back (ifeo_exec). */
struct ifeo_values ifeo_values_of(const struct rule_priority *priority)
{
	struct ifeo_values v = {IFEO_CPU_CLASS_UNSET, IFEO_IO_PRIORITY_UNSET};
	enum ifeo_io_priority io = IFEO_IO_PRIORITY_UNSET;

	switch (priority->class) {
	case RULE_CLASS_IDLE:
		/* As Linux's idle class takes the idle I/O class. */
		v.cpu_class = IFEO_CPU_CLASS_IDLE;
		io = IFEO_IO_PRIORITY_VERY_LOW;
		break;
	case RULE_CLASS_BELOW_NORMAL:
		v.cpu_class = IFEO_CPU_CLASS_BELOW_NORMAL;
		io = IFEO_IO_PRIORITY_LOW;
		break;
	case RULE_CLASS_ABOVE_NORMAL:
		v.cpu_class = IFEO_CPU_CLASS_ABOVE_NORMAL;
		break;
	case RULE_CLASS_HIGH:
		v.cpu_class = IFEO_CPU_CLASS_HIGH;
		break;
	case RULE_CLASS_UNSET:
	case RULE_CLASS_NORMAL:
	case RULE_CLASS_REALTIME:
		/* normal would lift whatever a starter lowered (a normal rule
		 * only brings down); realtime has no PerfOptions value. */
		break;
	}
	if (priority->ifeo == RULE_IFEO_CLASS_IO)
		v.io_priority = io;
	return v;
}

bool ifeo_values_set(struct ifeo_values values)
{
	return values.cpu_class != IFEO_CPU_CLASS_UNSET ||
	       values.io_priority != IFEO_IO_PRIORITY_UNSET;
}

bool ifeo_values_equal(struct ifeo_values a, struct ifeo_values b)
{
	return a.cpu_class == b.cpu_class && a.io_priority == b.io_priority;
}

bool ifeo_values_raise(struct ifeo_values values)
{
	return values.cpu_class == IFEO_CPU_CLASS_ABOVE_NORMAL ||
	       values.cpu_class == IFEO_CPU_CLASS_HIGH ||
	       values.io_priority > IFEO_IO_PRIORITY_NORMAL;
}

static const char *ifeo_cpu_class_name(enum ifeo_cpu_class c)
{
	switch (c) {
	case IFEO_CPU_CLASS_UNSET:
		break;
	case IFEO_CPU_CLASS_IDLE:
		return "idle";
	case IFEO_CPU_CLASS_NORMAL:
		return "normal";
	case IFEO_CPU_CLASS_HIGH:
		return "high";
	case IFEO_CPU_CLASS_BELOW_NORMAL:
		return "below normal";
	case IFEO_CPU_CLASS_ABOVE_NORMAL:
		return "above normal";
	}
	return "unset";
}

static const char *ifeo_io_priority_name(enum ifeo_io_priority p)
{
	switch (p) {
	case IFEO_IO_PRIORITY_UNSET:
		break;
	case IFEO_IO_PRIORITY_VERY_LOW:
		return "very low";
	case IFEO_IO_PRIORITY_LOW:
		return "low";
	case IFEO_IO_PRIORITY_NORMAL:
		return "normal";
	}
	return "unset";
}

/* "CpuPriorityClass 1 (idle), IoPriority 0 (very low)", for log lines. */
void ifeo_values_describe(struct ifeo_values values, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (values.cpu_class != IFEO_CPU_CLASS_UNSET)
		n = snprintf(buf, size, "CpuPriorityClass %d (%s)",
			     (int)values.cpu_class,
			     ifeo_cpu_class_name(values.cpu_class));
	if (n < 0 || (size_t)n >= size)
		return;
	if (values.io_priority != IFEO_IO_PRIORITY_UNSET)
		snprintf(buf + n, size - (size_t)n, "%sIoPriority %d (%s)",
			 n ? ", " : "", (int)values.io_priority,
			 ifeo_io_priority_name(values.io_priority));
	else if (n == 0)
		snprintf(buf, size, "nothing");
}

static int ifeo_fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The registry compares key names without case: ASCII is folded here,
 * and names beyond ASCII are never written (ifeo_name_valid). */
int ifeo_name_compare(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && ifeo_fold(*x) == ifeo_fold(*y)) {
		x++;
		y++;
	}
	return ifeo_fold(*x) - ifeo_fold(*y);
}

static char *ifeo_folded(const char *text)
{
	char *copy = xstrdup(text);

	for (char *p = copy; *p; p++)
		*p = (char)ifeo_fold((unsigned char)*p);
	return copy;
}

static bool ifeo_match(const char *pattern, const char *name)
{
	char *p = ifeo_folded(pattern), *n = ifeo_folded(name);
	bool matched = pattern_match(p, n);

	free(p);
	free(n);
	return matched;
}

/* Past the bracket expression opened at p[0], as fnmatch reads it; p + 1
 * when it is never closed (then '[' is an ordinary character). */
static const char *ifeo_bracket_end(const char *p)
{
	const char *q = p + 1;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	for (; *q; q++) {
		if (*q == ']')
			return q + 1;
	}
	return p + 1;
}

/* The file name part of an exe pattern: what follows its last separator
 * ('/' or '\', equal on Windows) outside a bracket expression. */
static const char *ifeo_tail(const char *pattern)
{
	const char *tail = pattern;

	for (const char *p = pattern; *p;) {
		if (*p == '[') {
			p = ifeo_bracket_end(p);
		} else {
			if (*p == '/' || *p == '\\')
				tail = p + 1;
			p++;
		}
	}
	return tail;
}

/* Whether an exe pattern ending in tail may match a path whose file name
 * is name. Without FNM_PATHNAME a wildcard of the tail may also match the
 * path's last separator, so the file name may begin inside what any of
 * them matches: "*" + the rest after it must match then. */
static bool ifeo_tail_claims(const char *tail, const char *name)
{
	bool claims = ifeo_match(tail, name);

	for (const char *p = tail; *p && !claims;) {
		const char *next;
		char *rest;

		if (*p == '[')
			next = ifeo_bracket_end(p);
		else
			next = p + 1;
		if (*p == '*' || *p == '?' || (*p == '[' && next > p + 1)) {
			rest = xasprintf("*%s", next);
			claims = ifeo_match(rest, name);
			free(rest);
		}
		p = next;
	}
	return claims;
}

static bool ifeo_names_claim(const struct rule_patterns *names,
			     const char *name)
{
	for (size_t i = 0; i < names->count; i++) {
		if (ifeo_match(names->values[i], name))
			return true;
	}
	return false;
}

static bool ifeo_exes_claim(const struct rule_patterns *exes, const char *name)
{
	for (size_t i = 0; i < exes->count; i++) {
		if (ifeo_tail_claims(ifeo_tail(exes->values[i]), name))
			return true;
	}
	return false;
}

/* A rule may match a process of this file name. One with neither exe nor
 * name may match any: the daemon puts such processes back (ifeo.h). */
static bool ifeo_rule_claims(const struct rule *rule, const char *name)
{
	const struct rule_match *m = &rule->match;

	if (!m->exe.count && !m->name.count)
		return false;
	return (!m->exe.count || ifeo_exes_claim(&m->exe, name)) &&
	       (!m->name.count || ifeo_names_claim(&m->name, name));
}

static bool ifeo_rule_has_glob(const struct rule *rule)
{
	const struct rule_match *m = &rule->match;

	for (size_t i = 0; i < m->exe.count; i++) {
		if (!pattern_is_literal(ifeo_tail(m->exe.values[i])))
			return true;
	}
	for (size_t i = 0; i < m->name.count; i++) {
		if (!pattern_is_literal(m->name.values[i]))
			return true;
	}
	return false;
}

/* A file name a rule may match, which it writes or only claims. */
struct ifeo_candidate {
	const char *name; /* points into the rule's patterns */
	size_t rule;
	bool writes;
};

struct ifeo_candidates {
	struct ifeo_candidate *list;
	size_t count, capacity;
};

static void ifeo_candidate_add(struct ifeo_candidates *c, const char *name,
			       size_t rule, bool writes)
{
	if (c->count == c->capacity) {
		c->capacity = c->capacity ? c->capacity * 2 : 16;
		c->list = xreallocarray(c->list, c->capacity, sizeof(*c->list));
	}
	c->list[c->count++] = (struct ifeo_candidate){name, rule, writes};
}

/* An exe value with no glob character: one full path ('\\' is a
 * separator here, never a quote). */
bool ifeo_exe_literal(const char *exe)
{
	return pattern_is_literal_flags(exe, PATTERN_SLASHES);
}

/* The file name an exe value gives PerfOptions under ifeo = "class" or
 * "class+io": its last component when that is literal, else NULL. */
const char *ifeo_exe_file_name(const char *exe)
{
	const char *tail = ifeo_tail(exe);

	return *tail && pattern_is_literal(tail) ? tail : NULL;
}

/* The literal file names a rule may match, each kept only when the rest
 * of its match allows it; those it writes are, by default, only those of
 * its literal full paths: a glob names a family of programs, and every
 * same-named program elsewhere (MSYS2's clang.exe, Git's link.exe) would
 * be started with the values too. Asked for (ifeo.h): those of its exes
 * whose file name is literal, and its literal names. A name it does not
 * write it still claims: another rule's entry must agree with it. */
static void ifeo_rule_candidates(const struct rule *rule, size_t index,
				 struct ifeo_candidates *c)
{
	const struct rule_match *m = &rule->match;
	enum rule_ifeo asked = rule->priority.ifeo;
	bool explicit = asked == RULE_IFEO_CLASS || asked == RULE_IFEO_CLASS_IO;

	for (size_t i = 0; i < m->exe.count; i++) {
		const char *exe = m->exe.values[i];
		const char *tail = ifeo_exe_file_name(exe);
		bool writes = explicit || (asked == RULE_IFEO_UNSET &&
					   ifeo_exe_literal(exe));

		if (tail &&
		    (!m->name.count || ifeo_names_claim(&m->name, tail)))
			ifeo_candidate_add(c, tail, index, writes);
	}
	for (size_t i = 0; i < m->name.count; i++) {
		const char *name = m->name.values[i];

		if (pattern_is_literal(name) &&
		    (!m->exe.count || ifeo_exes_claim(&m->exe, name)))
			ifeo_candidate_add(c, name, index, explicit);
	}
}

static int ifeo_candidate_compare(const void *a, const void *b)
{
	const struct ifeo_candidate *x = a, *y = b;
	int c = ifeo_name_compare(x->name, y->name);

	if (c)
		return c;
	return (x->rule > y->rule) - (x->rule < y->rule);
}

/* A name the registry takes as one key and folds as this file does. */
static bool ifeo_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > IFEO_NAME_MAX || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return false;
	for (const char *p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return false;
	}
	return true;
}

static void ifeo_skip_add(struct ifeo_plan *plan, const char *name, size_t rule,
			  size_t other, enum ifeo_skip_why why)
{
	plan->skips = xreallocarray(plan->skips, plan->skip_count + 1,
				    sizeof(*plan->skips));
	plan->skips[plan->skip_count++] =
		(struct ifeo_skip){xstrdup(name), rule, other, why};
}

static void ifeo_entry_add(struct ifeo_plan *plan, const char *name,
			   struct ifeo_values values, size_t rule)
{
	plan->entries = xreallocarray(plan->entries, plan->count + 1,
				      sizeof(*plan->entries));
	plan->entries[plan->count++] =
		(struct ifeo_entry){xstrdup(name), values, rule};
}

/* The first rule among every rule claiming the name (the group's, and
 * those whose globs may match it) that gives other values, or count. */
static size_t ifeo_disagreeing(const struct rule *rules, size_t count,
			       const struct ifeo_candidate *group, size_t size,
			       const size_t *globs, size_t glob_count,
			       struct ifeo_values values)
{
	size_t other = count;

	for (size_t i = 0; i < size; i++) {
		const struct rule *r = &rules[group[i].rule];

		if (!ifeo_values_equal(ifeo_values_of(&r->priority), values)) {
			other = group[i].rule;
			break;
		}
	}
	for (size_t i = 0; i < glob_count && globs[i] < other; i++) {
		const struct rule *r = &rules[globs[i]];

		if (!ifeo_values_equal(ifeo_values_of(&r->priority), values) &&
		    ifeo_rule_claims(r, group[0].name))
			other = globs[i];
	}
	return other;
}

static void ifeo_plan_name(const struct rule *rules, size_t count,
			   enum ifeo_mode mode, ifeo_reserved_fn reserved,
			   void *ctx, const struct ifeo_candidate *group,
			   size_t size, const size_t *globs, size_t glob_count,
			   struct ifeo_plan *plan)
{
	const struct ifeo_candidate *first = NULL;
	struct ifeo_values values;
	size_t other;

	for (size_t i = 0; i < size && !first; i++) {
		values = ifeo_values_of(&rules[group[i].rule].priority);
		if (group[i].writes && ifeo_values_set(values))
			first = &group[i];
	}
	if (!first)
		return;
	other = ifeo_disagreeing(rules, count, group, size, globs, glob_count,
				 values);
	if (!ifeo_name_valid(first->name))
		ifeo_skip_add(plan, first->name, first->rule, count,
			      IFEO_SKIP_WHY_NAME);
	else if (other < count)
		ifeo_skip_add(plan, first->name, first->rule, other,
			      IFEO_SKIP_WHY_CONFLICT);
	else if (mode != IFEO_MODE_ALL && ifeo_values_raise(values))
		ifeo_skip_add(plan, first->name, first->rule, count,
			      IFEO_SKIP_WHY_RAISES);
	else if (reserved && reserved(ctx, first->name))
		ifeo_skip_add(plan, first->name, first->rule, count,
			      IFEO_SKIP_WHY_RESERVED);
	else
		ifeo_entry_add(plan, first->name, values, first->rule);
}

void ifeo_plan_make(const struct rule *rules, size_t count, enum ifeo_mode mode,
		    ifeo_reserved_fn reserved, void *ctx,
		    struct ifeo_plan *plan)
{
	struct ifeo_candidates c = {0};
	size_t *globs, glob_count = 0;

	*plan = (struct ifeo_plan){0};
	if (mode == IFEO_MODE_OFF)
		return;
	globs = xcalloc(count ? count : 1, sizeof(*globs));
	for (size_t i = 0; i < count; i++) {
		ifeo_rule_candidates(&rules[i], i, &c);
		if (ifeo_rule_has_glob(&rules[i]))
			globs[glob_count++] = i;
	}
	if (c.count)
		qsort(c.list, c.count, sizeof(*c.list), ifeo_candidate_compare);
	for (size_t i = 0, end; i < c.count; i = end) {
		for (end = i + 1;
		     end < c.count &&
		     ifeo_name_compare(c.list[i].name, c.list[end].name) == 0;
		     end++)
			;
		ifeo_plan_name(rules, count, mode, reserved, ctx, &c.list[i],
			       end - i, globs, glob_count, plan);
	}
	free(globs);
	free(c.list);
}

void ifeo_plan_free(struct ifeo_plan *plan)
{
	for (size_t i = 0; i < plan->count; i++)
		free(plan->entries[i].name);
	for (size_t i = 0; i < plan->skip_count; i++)
		free(plan->skips[i].name);
	free(plan->entries);
	free(plan->skips);
	*plan = (struct ifeo_plan){0};
}

const struct ifeo_entry *ifeo_find(const struct ifeo_plan *plan,
				   const char *name)
{
	size_t lo = 0, hi = plan->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = ifeo_name_compare(name, plan->entries[mid].name);

		if (c == 0)
			return &plan->entries[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* A process of the entry's file name started with the entry's class; it
 * keeps it only when the rule it matches gives the same values. */
bool ifeo_put_back(const struct ifeo_entry *entry, const struct rule *matched)
{
	return !matched ||
	       !ifeo_values_equal(ifeo_values_of(&matched->priority),
				  entry->values);
}

/* What CreateProcess gives a child when no class is asked for: normal,
 * unless its parent's is idle or below normal, which it inherits. */
enum rule_class ifeo_class_without(enum rule_class parent)
{
	if (parent == RULE_CLASS_IDLE || parent == RULE_CLASS_BELOW_NORMAL)
		return parent;
	return RULE_CLASS_NORMAL;
}

const char *ifeo_skip_text(enum ifeo_skip_why why)
{
	switch (why) {
	case IFEO_SKIP_WHY_RAISES:
		return "it raises, and ifeo_perf_options allows lowering only";
	case IFEO_SKIP_WHY_CONFLICT:
		return "another rule for the same file name gives other values";
	case IFEO_SKIP_WHY_RESERVED:
		return "Windows runs a program of that name itself";
	case IFEO_SKIP_WHY_NAME:
		return "the registry cannot take the name as the daemon "
		       "compares it (not ASCII, too long, . or ..)";
	}
	return "?";
}
