/* Matching: process facts x rules -> the first matching rule, in rule
 * order. An index finds the rules keyed on an exact exe or name without
 * scanning every rule; only the rest are scanned. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "pattern.h"
#include "util.h"

static void match_bucket_add(struct strmap *map, const char *key, size_t rule)
{
	struct match_bucket *b = strmap_get(map, key);

	if (!b) {
		b = xcalloc(1, sizeof(*b));
		strmap_put(map, key, b);
	}
	/* A rule listing the same value twice goes in once. */
	if (b->count && b->rules[b->count - 1] == rule)
		return;
	b->rules = xreallocarray(b->rules, b->count + 1, sizeof(*b->rules));
	b->rules[b->count++] = rule;
}

static bool match_all_literal(const struct rule_patterns *p)
{
	for (size_t i = 0; i < p->count; i++) {
		if (!pattern_is_literal_flags(p->values[i], p->flags))
			return false;
	}
	return p->count > 0;
}

/* A rule whose exe values are all literal can only match a process with
 * one of those exes: it is found through by_exe. Likewise for names. */
void match_index_build(struct match_index *index, const struct rules *rules)
{
	*index = (struct match_index){.rules = rules};
	strmap_init(&index->by_exe);
	strmap_init(&index->by_comm);
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule_match *m = &rules->list[i].match;

		/* One system per rule set: the first folding rule says
		 * how the process's exe and name are looked up. */
		if (m->exe.flags)
			index->exe_flags = m->exe.flags;
		if (m->name.flags)
			index->comm_flags = m->name.flags;
		if (match_all_literal(&m->exe)) {
			for (size_t v = 0; v < m->exe.count; v++)
				match_bucket_add(&index->by_exe,
						 rules_pattern_key(&m->exe, v),
						 i);
		} else if (!m->exe.count && match_all_literal(&m->name)) {
			for (size_t v = 0; v < m->name.count; v++)
				match_bucket_add(&index->by_comm,
						 rules_pattern_key(&m->name, v),
						 i);
		} else {
			index->scan = xreallocarray(index->scan,
						    index->scan_count + 1,
						    sizeof(*index->scan));
			index->scan[index->scan_count++] = i;
		}
	}
}

static void match_free_buckets(struct strmap *map)
{
	for (size_t i = 0; i < map->capacity; i++) {
		struct match_bucket *b = map->slots[i].value;

		if (b) {
			free(b->rules);
			free(b);
		}
	}
	strmap_free(map);
}

void match_index_free(struct match_index *index)
{
	match_free_buckets(&index->by_exe);
	match_free_buckets(&index->by_comm);
	free(index->scan);
	*index = (struct match_index){0};
}

static bool match_need(struct facts *facts, unsigned bit, match_fetch_fn fetch,
		       void *ctx)
{
	if (!((facts->have | facts->failed) & bit))
		fetch(ctx, bit, facts);
	return facts->have & bit;
}

/* Appends to why (when asked for) without ever overflowing it. */
static void match_say(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 3, 4)));

static void match_say(char *why, size_t size, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!why)
		return;
	used = strlen(why);
	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(why + used, size - used, fmt, ap);
	va_end(ap);
}

static bool match_patterns(const struct rule_patterns *p, const char *key,
			   const char *text, char *why, size_t size)
{
	for (size_t i = 0; i < p->count; i++) {
		if (pattern_match_flags(p->values[i], text, p->flags)) {
			match_say(why, size, "%s '%.200s' matches '%.200s'; ",
				  key, text, p->values[i]);
			return true;
		}
	}
	match_say(why, size, "%s '%.200s' matches no value of the rule", key,
		  text);
	return false;
}

static bool match_ids(const struct rule_ids *ids, const char *key,
		      const unsigned *have, size_t count, char *why,
		      size_t size)
{
	for (size_t i = 0; i < ids->count; i++) {
		if (!ids->values[i].known)
			continue;
		for (size_t h = 0; h < count; h++) {
			if (have[h] == ids->values[i].id) {
				match_say(why, size, "%s %u is '%s'; ", key,
					  have[h], ids->values[i].name);
				return true;
			}
		}
	}
	match_say(why, size, "%s %u is not one of the rule's", key, have[0]);
	return false;
}

static bool match_cgroups(const struct rule_patterns *p, const char *cgroups,
			  char *why, size_t size)
{
	const char *line = cgroups;

	while (*line) {
		const char *end = line + strcspn(line, "\n");
		char path[MATCH_CGROUP_MAX];

		snprintf(path, sizeof(path), "%.*s", (int)(end - line), line);
		for (size_t i = 0; i < p->count; i++) {
			if (pattern_match(p->values[i], path)) {
				match_say(why, size,
					  "cgroup '%.200s' matches '%.200s'; ",
					  path, p->values[i]);
				return true;
			}
		}
		line = *end ? end + 1 : end;
	}
	match_say(why, size, "no cgroup of the process matches the rule's");
	return false;
}

static bool match_unreadable(const char *key, char *why, size_t size)
{
	match_say(why, size, "%s could not be read", key);
	return false;
}

/* The path matched; the process must also run the file that path names in
 * the daemon's mount namespace, or the same name would be enough. */
static bool match_file(struct facts *facts, unsigned bit, match_fetch_fn fetch,
		       void *ctx, char *why, size_t size)
{
	bool parent = bit == MATCH_FACT_PARENT_EXE_FILE;
	const char *path = parent ? facts->parent_exe : facts->exe;
	const char *who = parent ? "the parent" : "the process";

	if (!match_need(facts, bit, fetch, ctx)) {
		match_say(why, size, "but the file %s runs could not be opened",
			  who);
		return false;
	}
	switch (parent ? facts->parent_exe_file : facts->exe_file) {
	case MATCH_FILE_SAME:
		return true;
	case MATCH_FILE_REPLACED:
		match_say(why, size,
			  "%s runs an older version of it, replaced since; ",
			  who);
		return true;
	case MATCH_FILE_OTHER:
		match_say(why, size,
			  "but %s runs another file than %.200s (a bind mount, "
			  "an overlay, or another mount namespace or root)",
			  who, path);
		return false;
	case MATCH_FILE_DELETED:
		match_say(why, size,
			  "but %s runs a deleted file that is no older version "
			  "of %.200s (not on its filesystem, not its owner's, "
			  "or nothing is there now)",
			  who, path);
		return false;
	case MATCH_FILE_UNSEEN:
		match_say(why, size,
			  "but %.200s names no file in the daemon's mount "
			  "namespace (another namespace, or hidden from the "
			  "daemon)",
			  path);
		return false;
	}
	return false;
}

bool match_rule(const struct rule *rule, struct facts *facts,
		match_fetch_fn fetch, void *ctx, char *why, size_t why_size)
{
	const struct rule_match *m = &rule->match;

	if (why && why_size)
		why[0] = '\0';
	if (m->exe.count) {
		if (!match_need(facts, MATCH_FACT_EXE, fetch, ctx))
			return match_unreadable("exe", why, why_size);
		if (!match_patterns(&m->exe, "exe", facts->exe, why,
				    why_size) ||
		    !match_file(facts, MATCH_FACT_EXE_FILE, fetch, ctx, why,
				why_size))
			return false;
	}
	if (m->name.count) {
		if (!match_need(facts, MATCH_FACT_COMM, fetch, ctx))
			return match_unreadable("name", why, why_size);
		if (!match_patterns(&m->name, "name", facts->comm, why,
				    why_size))
			return false;
	}
	if (m->user.count || m->group.count) {
		unsigned ids[MATCH_GROUPS_MAX + 1];

		if (!match_need(facts, MATCH_FACT_CREDS, fetch, ctx))
			return match_unreadable("user and group", why,
						why_size);
		ids[0] = facts->uid;
		if (m->user.count &&
		    !match_ids(&m->user, "uid", ids, 1, why, why_size))
			return false;
		ids[0] = facts->gid;
		for (size_t i = 0; i < facts->group_count; i++)
			ids[i + 1] = facts->groups[i];
		if (m->group.count &&
		    !match_ids(&m->group, "gid", ids, facts->group_count + 1,
			       why, why_size))
			return false;
	}
	if (m->cgroup.count) {
		if (!match_need(facts, MATCH_FACT_CGROUP, fetch, ctx))
			return match_unreadable("cgroup", why, why_size);
		if (!match_cgroups(&m->cgroup, facts->cgroups, why, why_size))
			return false;
	}
	if (m->cmdline.count) {
		if (!match_need(facts, MATCH_FACT_CMDLINE, fetch, ctx))
			return match_unreadable("cmdline", why, why_size);
		if (!match_patterns(&m->cmdline, "cmdline", facts->cmdline, why,
				    why_size))
			return false;
	}
	if (m->parent_exe.count) {
		if (!match_need(facts, MATCH_FACT_PARENT_EXE, fetch, ctx))
			return match_unreadable("parent_exe", why, why_size);
		if (!match_patterns(&m->parent_exe, "parent_exe",
				    facts->parent_exe, why, why_size) ||
		    !match_file(facts, MATCH_FACT_PARENT_EXE_FILE, fetch, ctx,
				why, why_size))
			return false;
	}
	/* Each matching key said "...; ": drop the last separator. */
	if (why && strlen(why) >= 2 && strcmp(why + strlen(why) - 2, "; ") == 0)
		why[strlen(why) - 2] = '\0';
	return true;
}

static const struct match_bucket *match_lookup(const struct strmap *map,
					       unsigned bit, const char *key,
					       unsigned flags,
					       struct facts *facts,
					       match_fetch_fn fetch, void *ctx)
{
	char buf[PATH_MAX];

	if (!map->count || !match_need(facts, bit, fetch, ctx))
		return NULL;
	key = pattern_key(key, flags, buf, sizeof(buf));
	return key ? strmap_get(map, key) : NULL;
}

/* Candidates from both buckets and the scan list, in rule order: the first
 * that matches wins. Returns its index, or -1. */
long match_first(const struct match_index *index, struct facts *facts,
		 match_fetch_fn fetch, void *ctx)
{
	const struct match_bucket *by_exe, *by_comm;
	size_t e = 0, c = 0, s = 0;

	by_exe = match_lookup(&index->by_exe, MATCH_FACT_EXE, facts->exe,
			      index->exe_flags, facts, fetch, ctx);
	by_comm = match_lookup(&index->by_comm, MATCH_FACT_COMM, facts->comm,
			       index->comm_flags, facts, fetch, ctx);
	for (;;) {
		size_t next = (size_t)-1;

		if (by_exe && e < by_exe->count)
			next = by_exe->rules[e];
		if (by_comm && c < by_comm->count && by_comm->rules[c] < next)
			next = by_comm->rules[c];
		if (s < index->scan_count && index->scan[s] < next)
			next = index->scan[s];
		if (next == (size_t)-1)
			return -1;
		if (by_exe && e < by_exe->count && by_exe->rules[e] == next)
			e++;
		if (by_comm && c < by_comm->count && by_comm->rules[c] == next)
			c++;
		if (s < index->scan_count && index->scan[s] == next)
			s++;
		if (match_rule(&index->rules->list[next], facts, fetch, ctx,
			       NULL, 0))
			return (long)next;
	}
}

/* Which facts some rule looks at: a rename or a change of ids matters only
 * when some rule matches on name, or on user or group. */
unsigned match_facts_used(const struct rules *rules)
{
	unsigned used = 0;

	for (size_t i = 0; rules && i < rules->count; i++) {
		const struct rule_match *match = &rules->list[i].match;

		if (match->name.count)
			used |= MATCH_FACT_COMM;
		if (match->user.count || match->group.count)
			used |= MATCH_FACT_CREDS;
	}
	return used;
}
