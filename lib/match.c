/* Matching: process facts x rules -> the first matching rule, in rule
 * order. An index finds the rules by the literals their exe, name or
 * cmdline values cannot match without (exact values, literal starts and
 * ends, literal runs), so that an exec tries its candidates, not every
 * rule; only rules that yield no literal are scanned. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "pattern.h"
#include "quote.h"
#include "util.h"

/* The longest text a fact holds, folded for a lookup. */
#define MATCH_TEXT_MAX                                                         \
	(MATCH_CMDLINE_MAX > PATH_MAX ? MATCH_CMDLINE_MAX : PATH_MAX)

/* How one value of a pattern is found: exactly (a hash), by its literal
 * start or end (a trie), by a literal run anywhere (the substring
 * search); or not at all, and then its rule is tried at every exec. */
enum match_key {
	MATCH_KEY_NONE,
	MATCH_KEY_EXACT,
	MATCH_KEY_START,
	MATCH_KEY_END,
	MATCH_KEY_RUN,
};

static const char *const match_on_names[MATCH_ON_COUNT] = {
	[MATCH_ON_EXE] = "exe",
	[MATCH_ON_NAME] = "name",
	[MATCH_ON_CMDLINE] = "cmdline",
};

static const unsigned match_on_facts[MATCH_ON_COUNT] = {
	[MATCH_ON_EXE] = MATCH_FACT_EXE,
	[MATCH_ON_NAME] = MATCH_FACT_COMM,
	[MATCH_ON_CMDLINE] = MATCH_FACT_CMDLINE,
};

static const struct rule_patterns *match_on_patterns(const struct rule *rule,
						     enum match_on on)
{
	switch (on) {
	case MATCH_ON_EXE:
		return &rule->match.exe;
	case MATCH_ON_NAME:
		return &rule->match.name;
	case MATCH_ON_CMDLINE:
	case MATCH_ON_COUNT:
		break;
	}
	return &rules_match_more(&rule->match)->cmdline;
}

static const char *match_on_text(const struct facts *facts, enum match_on on)
{
	switch (on) {
	case MATCH_ON_EXE:
		return facts->exe;
	case MATCH_ON_NAME:
		return facts->comm;
	case MATCH_ON_CMDLINE:
	case MATCH_ON_COUNT:
		break;
	}
	return facts->cmdline;
}

static const size_t *match_bucket_rules(const struct match_bucket *b)
{
	return b->count == 1 ? &b->rules.one : b->rules.many;
}

/* The literal value v cannot match without, in buf (with its length in
 * *len), and where in the text it must be. A command line is searched for
 * its longest run; an exe or a name is found by its longer end, an exe's
 * start only past the root (every path starts with "/"). */
static enum match_key match_value_key(const struct rule_patterns *p, size_t v,
				      enum match_on on, char *buf, size_t size,
				      size_t *len)
{
	const char *value = p->values[v];
	char end[MATCH_TEXT_MAX];
	size_t start_len, end_len;

	if (on == MATCH_ON_CMDLINE) {
		*len = pattern_literal_run(value, p->flags, PATTERN_RUN_LONGEST,
					   buf, size);
		return *len ? MATCH_KEY_RUN : MATCH_KEY_NONE;
	}
	if (pattern_is_literal_flags(value, p->flags))
		return MATCH_KEY_EXACT;
	start_len = pattern_literal_run(value, p->flags, PATTERN_RUN_PREFIX,
					buf, size);
	end_len = pattern_literal_run(value, p->flags, PATTERN_RUN_SUFFIX, end,
				      sizeof(end));
	if (on == MATCH_ON_EXE && start_len < 2)
		start_len = 0;
	if (!start_len && !end_len)
		return MATCH_KEY_NONE;
	if (start_len >= end_len) {
		*len = start_len;
		return MATCH_KEY_START;
	}
	memcpy(buf, end, end_len + 1);
	*len = end_len;
	return MATCH_KEY_END;
}

/* The first value of p that no index can find, or p->count. */
static size_t match_unkeyed_value(const struct rule_patterns *p,
				  enum match_on on)
{
	char lit[MATCH_TEXT_MAX];
	size_t len, v;

	for (v = 0; v < p->count; v++) {
		if (match_value_key(p, v, on, lit, sizeof(lit), &len) ==
		    MATCH_KEY_NONE)
			break;
	}
	return v;
}

/* The fact a rule is found by: the first (cheapest) of its keys whose
 * every value yields a literal, since the rule can only match a process
 * whose fact holds one of them; MATCH_ON_COUNT: none, it is scanned. */
static enum match_on match_rule_on(const struct rule *rule)
{
	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		const struct rule_patterns *p = match_on_patterns(rule, on);

		if (p->count && match_unkeyed_value(p, on) == p->count)
			return on;
	}
	return MATCH_ON_COUNT;
}

/* The bucket numbered *number (a new one when 0) gets rule. */
static void match_bucket_add(struct match_index *index, uint32_t *number,
			     size_t rule)
{
	struct match_bucket *b;

	if (!*number) {
		index->buckets = xgrow(index->buckets, index->bucket_count,
				       sizeof(*index->buckets));
		index->buckets[index->bucket_count++] =
			(struct match_bucket){0};
		*number = (uint32_t)index->bucket_count;
	}
	b = &index->buckets[*number - 1];
	if (b->count == 0) {
		b->rules.one = rule;
	} else if (match_bucket_rules(b)[b->count - 1] == rule) {
		return; /* a rule listing the same literal twice: once */
	} else if (b->count == 1) {
		size_t one = b->rules.one;

		b->rules.many = xreallocarray(NULL, 2, sizeof(size_t));
		b->rules.many[0] = one;
		b->rules.many[1] = rule;
	} else {
		b->rules.many = xgrow(b->rules.many, b->count, sizeof(size_t));
		b->rules.many[b->count] = rule;
	}
	b->count++;
}

/* The rule a slot's value names, or its bucket's first. */
static size_t match_exact_rule(const struct match_index *index, uint32_t value)
{
	if (value & 1)
		return value >> 1;
	return match_bucket_rules(&index->buckets[(value >> 1) - 1])[0];
}

/* Whether the slot's rule has key among its exact values of the fact. */
static bool match_exact_holds(const struct match_index *index, enum match_on on,
			      uint32_t value, const char *key)
{
	const struct rule *r =
		&index->rules->list[match_exact_rule(index, value)];
	const struct rule_patterns *p = match_on_patterns(r, on);

	for (size_t v = 0; v < p->count; v++) {
		if (pattern_is_literal_flags(p->values[v], p->flags) &&
		    strcmp(rules_pattern_key(p, v), key) == 0)
			return true;
	}
	return false;
}

/* key's slot, or the empty one where it goes (linear probing). */
static struct match_exact_slot *match_exact_find(
	const struct match_index *index, enum match_on on, const char *key,
	uint32_t hash)
{
	const struct match_exact *e = &index->by[on].exact;
	size_t mask = e->capacity - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct match_exact_slot *slot = &e->slots[i];

		if (!slot->value ||
		    (slot->hash == hash &&
		     match_exact_holds(index, on, slot->value, key)))
			return slot;
	}
}

static void match_exact_grow(struct match_exact *e)
{
	struct match_exact old = *e;
	size_t mask;

	e->capacity = old.capacity ? old.capacity * 2 : 16;
	e->slots = xcalloc(e->capacity, sizeof(*e->slots));
	mask = e->capacity - 1;
	for (size_t i = 0; i < old.capacity; i++) {
		size_t j = old.slots[i].hash & mask;

		if (!old.slots[i].value)
			continue;
		while (e->slots[j].value)
			j = (j + 1) & mask;
		e->slots[j] = old.slots[i];
	}
	free(old.slots);
}

/* Rule under an exact value: the value's one rule, or a bucket once
 * another rule has it (most values, 20,000 in large sets, have one). */
static void match_exact_add(struct match_index *index, enum match_on on,
			    const char *key, size_t rule)
{
	struct match_exact *e = &index->by[on].exact;
	uint32_t hash = (uint32_t)strmap_hash(key), number = 0;
	struct match_exact_slot *slot;

	if ((e->count + 1) * STRMAP_LOAD_DEN > e->capacity * STRMAP_LOAD_NUM)
		match_exact_grow(e);
	slot = match_exact_find(index, on, key, hash);
	if (!slot->value) {
		*slot = (struct match_exact_slot){hash,
						  (uint32_t)rule << 1 | 1};
		e->count++;
		return;
	}
	if (slot->value & 1) {
		if (slot->value >> 1 == rule)
			return; /* a rule listing the same value twice: once */
		match_bucket_add(index, &number, slot->value >> 1);
	} else {
		number = slot->value >> 1;
	}
	match_bucket_add(index, &number, rule);
	slot->value = number << 1;
}

/* The exact value's slot value; 0: no rule has it. */
static uint32_t match_exact_get(const struct match_index *index,
				enum match_on on, const char *key)
{
	if (!index->by[on].exact.count)
		return 0;
	return match_exact_find(index, on, key, (uint32_t)strmap_hash(key))
		->value;
}

bool match_index_exact(const struct match_index *index, enum match_on on,
		       const char *key)
{
	return match_exact_get(index, on, key) != 0;
}

/* Rule r under the literal of each of its values of the key on. */
static void match_keyed_add(struct match_index *index, enum match_on on,
			    const struct rule *r, size_t rule)
{
	const struct rule_patterns *p = match_on_patterns(r, on);
	struct match_keyed *k = &index->by[on];
	char lit[MATCH_TEXT_MAX];
	size_t len = 0;

	if (k->first == SIZE_MAX)
		k->first = rule;
	for (size_t v = 0; v < p->count; v++) {
		switch (match_value_key(p, v, on, lit, sizeof(lit), &len)) {
		case MATCH_KEY_EXACT:
			match_exact_add(index, on, rules_pattern_key(p, v),
					rule);
			break;
		case MATCH_KEY_START:
			match_bucket_add(index,
					 trie_slot(&k->starts, lit, len, false),
					 rule);
			break;
		case MATCH_KEY_END:
			match_bucket_add(index,
					 trie_slot(&k->ends, lit, len, true),
					 rule);
			break;
		case MATCH_KEY_RUN:
			match_bucket_add(
				index, acsearch_slot(&k->runs, lit, len), rule);
			break;
		case MATCH_KEY_NONE:
			break;
		}
	}
}

/* Each rule goes in one place: under the literals of the fact it is
 * found by, or in scan; rules are added in order, so every bucket and
 * scan are ascending. */
void match_index_build(struct match_index *index, const struct rules *rules)
{
	*index = (struct match_index){.rules = rules};
	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		struct match_keyed *k = &index->by[on];

		trie_init(&k->starts);
		trie_init(&k->ends);
		acsearch_init(&k->runs);
		k->first = SIZE_MAX;
	}
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];
		enum match_on on = match_rule_on(r);

		/* One system per rule set: the first folding rule says
		 * how the process's facts are looked up. */
		for (int f = 0; f < MATCH_ON_COUNT; f++) {
			if (match_on_patterns(r, f)->flags)
				index->by[f].flags =
					match_on_patterns(r, f)->flags;
		}
		if (on != MATCH_ON_COUNT) {
			match_keyed_add(index, on, r, i);
			continue;
		}
		index->scan = xgrow(index->scan, index->scan_count,
				    sizeof(*index->scan));
		index->scan[index->scan_count++] = i;
	}
	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		trie_trim(&index->by[on].starts);
		trie_trim(&index->by[on].ends);
		acsearch_build(&index->by[on].runs);
	}
	if (index->bucket_count)
		index->buckets =
			xreallocarray(index->buckets, index->bucket_count,
				      sizeof(*index->buckets));
}

void match_index_free(struct match_index *index)
{
	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		struct match_keyed *k = &index->by[on];

		free(k->exact.slots);
		trie_free(&k->starts);
		trie_free(&k->ends);
		acsearch_free(&k->runs);
	}
	for (size_t i = 0; i < index->bucket_count; i++) {
		if (index->buckets[i].count > 1)
			free(index->buckets[i].rules.many);
	}
	free(index->buckets);
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
	const struct rule_match_more *more = rules_match_more(m);

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
	if (more->user.count || more->group.count) {
		unsigned ids[MATCH_GROUPS_MAX + 1];

		if (!match_need(facts, MATCH_FACT_CREDS, fetch, ctx))
			return match_unreadable("user and group", why,
						why_size);
		ids[0] = facts->uid;
		if (more->user.count &&
		    !match_ids(&more->user, "uid", ids, 1, why, why_size))
			return false;
		ids[0] = facts->gid;
		for (size_t i = 0; i < facts->group_count; i++)
			ids[i + 1] = facts->groups[i];
		if (more->group.count &&
		    !match_ids(&more->group, "gid", ids, facts->group_count + 1,
			       why, why_size))
			return false;
	}
	if (more->cgroup.count) {
		if (!match_need(facts, MATCH_FACT_CGROUP, fetch, ctx))
			return match_unreadable("cgroup", why, why_size);
		if (!match_cgroups(&more->cgroup, facts->cgroups, why,
				   why_size))
			return false;
	}
	if (more->cmdline.count) {
		if (!match_need(facts, MATCH_FACT_CMDLINE, fetch, ctx))
			return match_unreadable("cmdline", why, why_size);
		if (!match_patterns(&more->cmdline, "cmdline", facts->cmdline,
				    why, why_size))
			return false;
	}
	if (more->parent_exe.count) {
		if (!match_need(facts, MATCH_FACT_PARENT_EXE, fetch, ctx))
			return match_unreadable("parent_exe", why, why_size);
		if (!match_patterns(&more->parent_exe, "parent_exe",
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

/* The rules the index found, ascending from next on. */
struct match_candidates {
	const struct match_bucket *buckets;
	size_t *list;
	size_t count, next;
};

static void match_candidates_add(struct match_candidates *c, size_t rule)
{
	c->list = xgrow(c->list, c->count, sizeof(*c->list));
	c->list[c->count++] = rule;
}

/* Adds the rules of the bucket numbered number. */
static void match_candidates_visit(void *ctx, uint32_t number)
{
	struct match_candidates *c = ctx;
	const struct match_bucket *b = &c->buckets[number - 1];
	const size_t *rules = match_bucket_rules(b);

	for (size_t i = 0; i < b->count; i++)
		match_candidates_add(c, rules[i]);
}

/* An exact value's rule, or its bucket's (match_exact_add). */
static void match_candidates_exact(struct match_candidates *c, uintptr_t value)
{
	if (value & 1)
		match_candidates_add(c, value >> 1);
	else if (value)
		match_candidates_visit(c, (uint32_t)(value >> 1));
}

static int match_compare_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted, and a rule found twice (two values, two literals) once. */
static void match_candidates_sort(struct match_candidates *c)
{
	size_t n = c->count - c->next, kept = 0;
	size_t *rest;

	if (n < 2) /* and the list may be NULL, which qsort may not get */
		return;
	rest = c->list + c->next;
	qsort(rest, n, sizeof(*rest), match_compare_index);
	for (size_t i = 0; i < n; i++) {
		if (!kept || rest[kept - 1] != rest[i])
			rest[kept++] = rest[i];
	}
	c->count = c->next + kept;
}

/* The buckets of the literal runs a text holds, each once. */
struct match_hits {
	uint32_t *list;
	size_t count;
};

static void match_hits_visit(void *ctx, uint32_t number)
{
	struct match_hits *h = ctx;

	h->list = xgrow(h->list, h->count, sizeof(*h->list));
	h->list[h->count++] = number;
}

static int match_compare_number(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A literal is found at every place it ends: a command line with a
 * hundred spaces would otherwise add the rules of " " a hundred times. */
static void match_runs(const struct acsearch *runs, const char *text,
		       size_t len, struct match_candidates *c)
{
	struct match_hits h = {0};

	acsearch_scan(runs, text, len, match_hits_visit, &h);
	if (h.count > 1)
		qsort(h.list, h.count, sizeof(*h.list), match_compare_number);
	for (size_t i = 0; i < h.count; i++) {
		if (!i || h.list[i] != h.list[i - 1])
			match_candidates_visit(c, h.list[i]);
	}
	free(h.list);
}

/* The rules whose literals the fact holds, added to c. A fact that
 * cannot be read finds none: each of them needs it. */
static void match_lookup(const struct match_index *index, enum match_on on,
			 struct facts *facts, match_fetch_fn fetch, void *ctx,
			 struct match_candidates *c)
{
	const struct match_keyed *k = &index->by[on];
	char buf[MATCH_TEXT_MAX];
	const char *key;
	size_t len;

	if (!match_need(facts, match_on_facts[on], fetch, ctx))
		return;
	key = pattern_key(match_on_text(facts, on), k->flags, buf, sizeof(buf));
	if (!key)
		return;
	len = strlen(key);
	match_candidates_exact(c, match_exact_get(index, on, key));
	trie_walk(&k->starts, key, len, false, match_candidates_visit, c);
	trie_walk(&k->ends, key, len, true, match_candidates_visit, c);
	match_runs(&k->runs, key, len, c);
	match_candidates_sort(c);
}

/* The next rule to try: the lowest of the candidates and scan. */
static size_t match_next(const struct match_candidates *c,
			 const struct match_index *index, size_t s)
{
	size_t next = SIZE_MAX;

	if (c->next < c->count)
		next = c->list[c->next];
	if (s < index->scan_count && index->scan[s] < next)
		next = index->scan[s];
	return next;
}

/* Of the facts' indexes not looked up yet, the one whose lowest rule is
 * the lowest; MATCH_ON_COUNT when none is left. */
static int match_unlooked(const struct match_index *index, const bool *looked)
{
	int lowest = MATCH_ON_COUNT;

	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		if (looked[on] || index->by[on].first == SIZE_MAX)
			continue;
		if (lowest == MATCH_ON_COUNT ||
		    index->by[on].first < index->by[lowest].first)
			lowest = on;
	}
	return lowest;
}

/* Candidates from the index and the scan list, in rule order: the first
 * that matches wins. A fact's index is looked up (and the fact read)
 * only once the order reaches the lowest rule it holds: a command line
 * is not read when an earlier rule already matched. Returns the rule's
 * index, or -1. */
long match_first(const struct match_index *index, struct facts *facts,
		 match_fetch_fn fetch, void *ctx)
{
	struct match_candidates c = {.buckets = index->buckets};
	bool looked[MATCH_ON_COUNT] = {false};
	size_t s = 0;
	long found = -1;

	for (;;) {
		size_t next = match_next(&c, index, s);
		int on = match_unlooked(index, looked);

		/* Its lowest rule comes before the next: it may hold one
		 * that does too. Looked up one at a time, lowest first, as
		 * the next may then come from the one looked up. */
		if (on != MATCH_ON_COUNT && index->by[on].first <= next) {
			looked[on] = true;
			match_lookup(index, on, facts, fetch, ctx, &c);
			continue;
		}
		if (next == SIZE_MAX)
			break;
		if (c.next < c.count && c.list[c.next] == next)
			c.next++;
		else
			s++;
		if (match_rule(&index->rules->list[next], facts, fetch, ctx,
			       NULL, 0)) {
			found = (long)next;
			break;
		}
	}
	free(c.list);
	return found;
}

/* Which facts some rule looks at: a rename or a change of ids matters only
 * when some rule matches on name, or on user or group. */
unsigned match_facts_used(const struct rules *rules)
{
	unsigned used = 0;

	for (size_t i = 0; rules && i < rules->count; i++) {
		const struct rule_match *match = &rules->list[i].match;
		const struct rule_match_more *more = rules_match_more(match);

		if (match->name.count)
			used |= MATCH_FACT_COMM;
		if (more->user.count || more->group.count)
			used |= MATCH_FACT_CREDS;
	}
	return used;
}

/* What each key lacks, in the words of cpupolicy.rules(5). */
static const char *const match_on_lacks[MATCH_ON_COUNT] = {
	[MATCH_ON_EXE] = "no literal start past the root, and no literal end "
			 "(basename or suffix)",
	[MATCH_ON_NAME] = "no literal prefix or suffix",
	[MATCH_ON_CMDLINE] = "no literal text",
};

/* Whether the index cannot find rule, so that it is tried at every exec;
 * why then says, for each of its exe, name and cmdline keys, the first
 * value that yields no literal. The index's own choice (match_rule_on),
 * so that what check says is what matching does. */
bool match_unindexed(const struct rule *rule, char *why, size_t why_size)
{
	bool any = false;

	if (why && why_size)
		why[0] = '\0';
	if (match_rule_on(rule) != MATCH_ON_COUNT)
		return false;
	for (int on = 0; on < MATCH_ON_COUNT; on++) {
		const struct rule_patterns *p = match_on_patterns(rule, on);
		size_t v = match_unkeyed_value(p, on);
		char *shown;

		if (v == p->count)
			continue;
		shown = quote_display(p->values[v]);
		match_say(why, why_size, "%smatch.%s \"%.200s\" has %s",
			  any ? "; " : "", match_on_names[on], shown,
			  match_on_lacks[on]);
		free(shown);
		any = true;
	}
	if (!any)
		match_say(why, why_size,
			  "it matches on none of exe, name and "
			  "cmdline");
	return true;
}
