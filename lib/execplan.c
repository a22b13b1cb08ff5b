/* Which execs an in-kernel filter must let through, from the rules (see
 * execplan.h). Each rule is judged by one key the kernel can check: its
 * exe values if each can be, else its name values, else every exec goes
 * to the daemon. exe patterns are matched without FNM_PATHNAME ('*'
 * crosses '/'), which decides what a pattern says of the file's
 * basename: the matcher itself (pattern_element) says which of its
 * elements may match a '/'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execplan.h"
#include "pattern.h"
#include "quote.h"
#include "util.h"

bool execplan_list_has(const struct execplan_list *list, const char *value)
{
	return list->index.count && strmap_get(&list->index, value);
}

static void execplan_list_add(struct execplan_list *list, const char *value)
{
	char *copy;

	if (execplan_list_has(list, value))
		return;
	copy = list->borrowed ? (char *)value : xstrdup(value);
	if (list->count == list->capacity) {
		list->capacity = list->capacity ? list->capacity * 2 : 16;
		list->values = xreallocarray(list->values, list->capacity,
					     sizeof(char *));
	}
	list->values[list->count++] = copy;
	strmap_put(&list->index, copy, (void *)1);
}

static void execplan_list_free(struct execplan_list *list)
{
	for (size_t i = 0; !list->borrowed && i < list->count; i++)
		free(list->values[i]);
	free(list->values);
	strmap_free(&list->index);
	*list = (struct execplan_list){0};
}

/* What one pattern value lets the kernel check: nothing, an exact name,
 * or the literal start and end of a name. */
enum execplan_kind {
	EXECPLAN_KIND_NONE,
	EXECPLAN_KIND_PATH,
	EXECPLAN_KIND_NAME,
	EXECPLAN_KIND_AFFIX,
	EXECPLAN_KIND_DIR,
};

struct execplan_key {
	enum execplan_kind kind;
	char name[EXECPLAN_NAME_MAX + 1];
	struct execplan_affix affix;
	char *dir; /* EXECPLAN_KIND_DIR: the caller's to free */
};

static bool execplan_meta(char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

/* The literal start of a name glob (up to its first glob character)
 * and its literal end (after the last); truncated to what the kernel
 * compares, which keeps each a necessary condition. */
static bool execplan_affix_of(const char *seg, struct execplan_affix *a)
{
	size_t len = strlen(seg), start = 0, end = len;

	while (start < len && !execplan_meta(seg[start]))
		start++;
	while (end > 0 && !execplan_meta(seg[end - 1]))
		end--;
	if (start > EXECPLAN_AFFIX_MAX)
		start = EXECPLAN_AFFIX_MAX;
	if (len - end > EXECPLAN_AFFIX_MAX)
		end = len - EXECPLAN_AFFIX_MAX;
	snprintf(a->prefix, sizeof(a->prefix), "%.*s", (int)start, seg);
	snprintf(a->suffix, sizeof(a->suffix), "%s", seg + end);
	return start > 0 || end < len;
}

/* One element of an exe glob as the plan sees it: '*', a character
 * matched alone (quoted or not), or anything else; and whether the
 * matcher lets it match a '/' (pattern_element answers, so that a class
 * like [[:punct:]] or a range like [--0] is judged as it matches). */
struct execplan_element {
	bool literal, slash;
	char c; /* the character, when literal */
};

static size_t execplan_elements(const char *value, struct execplan_element *out)
{
	size_t n = 0;

	for (const char *p = value; *p; n++) {
		const char *at = p;

		out[n] = (struct execplan_element){0};
		if (*p == '*') {
			out[n].slash = true;
			p++;
			continue;
		}
		out[n].slash = pattern_element(&p, '/', 0);
		if (*at == '\\' && p == at + 2) {
			out[n].literal = true;
			out[n].c = at[1];
		} else if (*at != '?' && *at != '[' && p == at + 1) {
			out[n].literal = true;
			out[n].c = *at;
		}
	}
	return n;
}

/* The literal characters of elements [from, to), at most max of them,
 * from the start (or the end). */
static void execplan_literals(const struct execplan_element *e, size_t from,
			      size_t to, bool from_end, char *out, size_t max)
{
	size_t n = to - from > max ? max : to - from;

	if (from_end)
		from = to - n;
	for (size_t i = 0; i < n; i++)
		out[i] = e[from + i].c;
	out[n] = '\0';
}

/* The directory an exe glob's literal start names, up to its last '/'
 * (the start of /opt/vendor/bin-* lies in /opt/vendor): every path the
 * glob matches lies under it. NULL when that is the root, or the glob
 * does not start with one. */
static char *execplan_dir_of(const struct execplan_element *e, size_t n)
{
	size_t slash = 0;
	char *dir;

	if (n == 0 || !e[0].literal || e[0].c != '/')
		return NULL;
	for (size_t i = 0; i < n && e[i].literal; i++) {
		if (e[i].c == '/')
			slash = i;
	}
	if (slash == 0)
		return NULL;
	dir = xmalloc(slash + 1);
	execplan_literals(e, 0, slash, false, dir, slash);
	return dir;
}

/* An exe value. Literal: the file itself. A glob: what it says of the
 * basename, element by element as the matcher reads them. Past its last
 * literal '/', the elements match the part of the path after a '/';
 * while none of them can match a '/' ('*', '?', a negated bracket,
 * [[:punct:]], a range across '/'), that part is the basename, and its
 * literal start and end hold; once one can, the basename may begin
 * anywhere in that part, and only the literal end still holds. A glob
 * that says nothing of the basename says where it lies: under the
 * directory of its literal start. */
static void execplan_exe_key(const char *value, unsigned flags,
			     struct execplan_key *key)
{
	struct execplan_element *e;
	size_t n, seg = 0, start, end;
	bool crosses = false;

	*key = (struct execplan_key){EXECPLAN_KIND_NONE};
	if (flags)
		return;
	if (pattern_is_literal(value)) {
		if (strchr(value, '/'))
			key->kind = EXECPLAN_KIND_PATH;
		return;
	}
	e = xcalloc(strlen(value) + 1, sizeof(*e));
	n = execplan_elements(value, e);
	for (size_t i = 0; i < n; i++) {
		if (e[i].literal && e[i].c == '/')
			seg = i + 1;
	}
	for (size_t i = seg; i < n; i++)
		crosses |= e[i].slash;
	start = seg;
	while (start < n && e[start].literal)
		start++;
	end = n;
	while (end > seg && e[end - 1].literal)
		end--;
	if (seg == n) {
		/* Ends in '/': no file's path does. */
	} else if (start == n) {
		if (n - seg <= EXECPLAN_NAME_MAX) {
			execplan_literals(e, seg, n, false, key->name,
					  EXECPLAN_NAME_MAX);
			key->kind = EXECPLAN_KIND_NAME;
		}
	} else {
		execplan_literals(e, seg, crosses ? seg : start, false,
				  key->affix.prefix, EXECPLAN_AFFIX_MAX);
		execplan_literals(e, end, n, true, key->affix.suffix,
				  EXECPLAN_AFFIX_MAX);
		if (key->affix.prefix[0] || key->affix.suffix[0])
			key->kind = EXECPLAN_KIND_AFFIX;
	}
	if (key->kind == EXECPLAN_KIND_NONE) {
		key->dir = execplan_dir_of(e, n);
		if (key->dir)
			key->kind = EXECPLAN_KIND_DIR;
	}
	free(e);
}

/* A name value: the process name is the whole text, so a glob's literal
 * start and end both hold. Past the kernel's 15 bytes a name is cut as
 * the kernel cuts it. */
static void execplan_comm_key(const char *value, unsigned flags,
			      struct execplan_key *key)
{
	*key = (struct execplan_key){EXECPLAN_KIND_NONE};
	if (flags)
		return;
	if (!strpbrk(value, "*?[\\")) {
		snprintf(key->name, EXECPLAN_COMM_MAX + 1, "%s", value);
		key->kind = EXECPLAN_KIND_NAME;
		return;
	}
	if (execplan_affix_of(value, &key->affix)) {
		key->affix.comm = true;
		key->kind = EXECPLAN_KIND_AFFIX;
	}
}

/* A name value's key (comm) or an exe value's. */
static void execplan_key_of(const char *value, unsigned flags, bool comm,
			    struct execplan_key *key)
{
	if (comm)
		execplan_comm_key(value, flags, key);
	else
		execplan_exe_key(value, flags, key);
}

static bool execplan_has_affix(const struct execplan *plan,
			       const struct execplan_affix *a)
{
	for (size_t i = 0; i < plan->affix_count; i++) {
		if (plan->affixes[i].comm == a->comm &&
		    strcmp(plan->affixes[i].prefix, a->prefix) == 0 &&
		    strcmp(plan->affixes[i].suffix, a->suffix) == 0)
			return true;
	}
	return false;
}

static void execplan_add_key(struct execplan *plan, const char *value,
			     const struct execplan_key *key, bool comm)
{
	switch (key->kind) {
	case EXECPLAN_KIND_NONE:
		break;
	case EXECPLAN_KIND_PATH:
		execplan_list_add(&plan->paths, value);
		break;
	case EXECPLAN_KIND_NAME:
		execplan_list_add(comm ? &plan->comms : &plan->names,
				  key->name);
		break;
	case EXECPLAN_KIND_AFFIX:
		if (execplan_has_affix(plan, &key->affix))
			break;
		plan->affixes =
			xreallocarray(plan->affixes, plan->affix_count + 1,
				      sizeof(*plan->affixes));
		plan->affixes[plan->affix_count++] = key->affix;
		break;
	case EXECPLAN_KIND_DIR:
		execplan_list_add(&plan->dirs, key->dir);
		break;
	}
}

/* Every value of p has a key (and adds it) when it returns true. */
static bool execplan_cover(struct execplan *plan, const struct rule_patterns *p,
			   bool comm)
{
	struct execplan_key *keys;
	size_t affixes = 0;
	bool covered = p->count > 0;

	keys = xcalloc(p->count ? p->count : 1, sizeof(*keys));
	for (size_t i = 0; i < p->count && covered; i++) {
		execplan_key_of(p->values[i], p->flags, comm, &keys[i]);
		covered = keys[i].kind != EXECPLAN_KIND_NONE;
		affixes += keys[i].kind == EXECPLAN_KIND_AFFIX;
	}
	/* Past what the kernel's tries hold: every exec. */
	if (plan->affix_count + affixes > EXECPLAN_AFFIXES)
		covered = false;
	for (size_t i = 0; i < p->count && covered; i++)
		execplan_add_key(plan, p->values[i], &keys[i], comm);
	for (size_t i = 0; i < p->count; i++)
		free(keys[i].dir);
	free(keys);
	return covered;
}

void execplan_build(struct execplan *plan, const struct rules *rules)
{
	*plan = (struct execplan){.paths.borrowed = true};
	for (size_t i = 0; rules && i < rules->count; i++) {
		const struct rule *r = &rules->list[i];

		if (execplan_cover(plan, &r->match.exe, false) ||
		    execplan_cover(plan, &r->match.name, true))
			continue;
		if (!plan->all) {
			plan->all = true;
			plan->all_rule = r->name;
			plan->all_file = r->file;
			plan->all_line = r->line;
		}
	}
}

/* The first value of p the kernel can judge nothing of; p->count when
 * each can be judged. */
static size_t execplan_unkeyed(const struct rule_patterns *p, bool comm)
{
	for (size_t i = 0; i < p->count; i++) {
		struct execplan_key key;

		execplan_key_of(p->values[i], p->flags, comm, &key);
		free(key.dir);
		if (key.kind == EXECPLAN_KIND_NONE)
			return i;
	}
	return p->count;
}

/* Whether the kernel can judge none of rule's values, so that while it
 * is loaded every exec goes to the daemon; why then names the first
 * value of its exe and of its name that gives the kernel nothing. The
 * plan's own judgement (execplan_cover), for check to say. */
bool execplan_unjudged(const struct rule *rule, char *why, size_t why_size)
{
	static const char *const keys[] = {"exe", "name"};
	const struct rule_patterns *p[] = {&rule->match.exe, &rule->match.name};
	struct rules one = {.list = (struct rule *)rule, .count = 1};
	struct execplan plan;
	size_t used = 0;
	bool all;

	execplan_build(&plan, &one);
	all = plan.all;
	execplan_free(&plan);
	if (!all || !why || !why_size)
		return all;
	why[0] = '\0';
	for (int k = 0; k < 2; k++) {
		size_t v = execplan_unkeyed(p[k], k == 1);
		char *shown;

		if (v == p[k]->count || used >= why_size)
			continue;
		shown = quote_display(p[k]->values[v]);
		used += (size_t)snprintf(
			why + used, why_size - used,
			"%smatch.%s \"%.200s\" names no file, basename, "
			"literal start or end, or directory past the root",
			used ? "; " : "", keys[k], shown);
		free(shown);
	}
	if (!used)
		snprintf(why, why_size, "it matches on neither exe nor name");
	return true;
}

/* What the kernel's maps were written from, given back: the judgement
 * (every exec or not, and which rule says so) stays for status. A new
 * plan is built from the rules whenever the maps are written again. */
void execplan_trim(struct execplan *plan)
{
	execplan_list_free(&plan->paths);
	execplan_list_free(&plan->names);
	execplan_list_free(&plan->comms);
	execplan_list_free(&plan->dirs);
	free(plan->affixes);
	plan->affixes = NULL;
	plan->affix_count = 0;
}

void execplan_free(struct execplan *plan)
{
	execplan_list_free(&plan->paths);
	execplan_list_free(&plan->names);
	execplan_list_free(&plan->comms);
	execplan_list_free(&plan->dirs);
	free(plan->affixes);
	*plan = (struct execplan){0};
}

/* One line per key, sorted by kind: what the unit tests compare. */
void execplan_print(const struct execplan *plan, FILE *out)
{
	for (size_t i = 0; i < plan->paths.count; i++)
		fprintf(out, "path %s\n", plan->paths.values[i]);
	for (size_t i = 0; i < plan->names.count; i++)
		fprintf(out, "name %s\n", plan->names.values[i]);
	for (size_t i = 0; i < plan->comms.count; i++)
		fprintf(out, "comm %s\n", plan->comms.values[i]);
	for (size_t i = 0; i < plan->affix_count; i++)
		fprintf(out, "affix %s '%s' '%s'\n",
			plan->affixes[i].comm ? "comm" : "name",
			plan->affixes[i].prefix, plan->affixes[i].suffix);
	for (size_t i = 0; i < plan->dirs.count; i++)
		fprintf(out, "dir %s\n", plan->dirs.values[i]);
	if (plan->all)
		fprintf(out, "all (rule %s)\n", plan->all_rule);
}
