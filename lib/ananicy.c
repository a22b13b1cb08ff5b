/* ananicy rule trees to cpupolicy rule files: each line a flat JSON object
 * (a program rule with "name", a type with "type", a cgroup with
 * "cgroup"), parsed by json-c and read as ananicy-cpp reads them; then
 * types inlined, keys mapped to priority settings, and the rules grouped
 * by folder and by what they set. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "ananicy.h"
#include "os.h"
#include "quote.h"
#include "rulefile.h"
#include "rules.h"
#include "util.h"

/* A line of the community set is under 200 bytes; an object of more keys
 * than this is no ananicy rule. */
#define ANANICY_MAX_PAIRS 32
#define ANANICY_STR(n)	  ANANICY_STR_(n)
#define ANANICY_STR_(n)	  #n

static const char *const ananicy_kind_key[] = {
	[ANANICY_KIND_RULE] = "name",
	[ANANICY_KIND_TYPE] = "type",
	[ANANICY_KIND_CGROUP] = "cgroup",
};

void ananicy_init(struct ananicy *a)
{
	*a = (struct ananicy){0};
	for (size_t i = 0; i < ARRAY_SIZE(a->ids); i++)
		strmap_init(&a->ids[i]);
}

static void ananicy_free_line(struct ananicy_pair *pairs, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(pairs[i].key);
		free(pairs[i].text);
	}
}

static void ananicy_free_pairs(struct ananicy_pair *pairs, size_t count)
{
	ananicy_free_line(pairs, count);
	free(pairs);
}

void ananicy_free(struct ananicy *a)
{
	for (size_t i = 0; i < a->count; i++)
		ananicy_free_pairs(a->entries[i].pairs,
				   a->entries[i].pair_count);
	free(a->entries);
	for (size_t i = 0; i < a->string_count; i++)
		free(a->strings[i]);
	free(a->strings);
	for (size_t i = 0; i < ARRAY_SIZE(a->ids); i++)
		strmap_free(&a->ids[i]);
	*a = (struct ananicy){0};
}

/* *.rules, *.types and *.cgroups: the files ananicy-cpp loads. */
bool ananicy_is_input(const char *name)
{
	static const char *const ext[] = {".rules", ".types", ".cgroups"};
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		size_t n = strlen(ext[i]);

		if (len > n && strcmp(name + len - n, ext[i]) == 0)
			return true;
	}
	return false;
}

static const char *ananicy_keep(struct ananicy *a, const char *text)
{
	if (a->string_count &&
	    strcmp(a->strings[a->string_count - 1], text) == 0)
		return a->strings[a->string_count - 1];
	a->strings = xreallocarray(a->strings, a->string_count + 1,
				   sizeof(*a->strings));
	a->strings[a->string_count] = xstrdup(text);
	return a->strings[a->string_count++];
}

/* One value of a line's object as a pair: a string decoded, anything
 * else as json-c writes it (a number as it was written, a double's text
 * kept). */
static const char *ananicy_pair_of(const char *key, struct json_object *value,
				   struct ananicy_pair *v)
{
	*v = (struct ananicy_pair){.type = ANANICY_VALUE_NULL};
	switch (json_object_get_type(value)) {
	case json_type_null:
		break;
	case json_type_boolean:
		v->type = ANANICY_VALUE_BOOL;
		break;
	case json_type_double:
		v->type = ANANICY_VALUE_FLOAT;
		break;
	case json_type_int:
		v->type = ANANICY_VALUE_INTEGER;
		v->integer = json_object_get_int64(value);
		break;
	case json_type_string:
		/* json-c decodes \u0000 into the string, whose C text would
		 * end there: no process name holds it. */
		if (strlen(json_object_get_string(value)) !=
		    (size_t)json_object_get_string_len(value))
			return "\\u0000 is not allowed here";
		v->type = ANANICY_VALUE_STRING;
		break;
	case json_type_object:
	case json_type_array:
		return "nested values are not ananicy's";
	}
	v->key = xstrdup(key);
	v->text = xstrdup(value ? json_object_get_string(value) : "null");
	return NULL;
}

/* The object's keys as pairs, in the order read (a repeated key keeps its
 * last value, as json-c and the JSON library of ananicy-cpp do); NULL or
 * why not. */
static const char *ananicy_pairs(struct json_object *obj,
				 struct ananicy_pair *pairs, size_t *count)
{
	if (json_object_object_length(obj) > ANANICY_MAX_PAIRS)
		return "more than " ANANICY_STR(ANANICY_MAX_PAIRS) " keys";
	json_object_object_foreach(obj, key, value)
	{
		const char *why = ananicy_pair_of(key, value, &pairs[*count]);

		if (why)
			return why;
		(*count)++;
	}
	return NULL;
}

static const struct ananicy_pair *ananicy_get(const struct ananicy_pair *pairs,
					      size_t count, const char *key)
{
	for (size_t i = 0; i < count; i++) {
		if (strcmp(pairs[i].key, key) == 0)
			return &pairs[i];
	}
	return NULL;
}

/* Which definition the object is, as ananicy-cpp decides: a string
 * "name" first, then "type", then "cgroup". */
static int ananicy_kind_of(const struct ananicy_pair *pairs, size_t count)
{
	for (int k = ANANICY_KIND_RULE; k <= ANANICY_KIND_CGROUP; k++) {
		const struct ananicy_pair *v =
			ananicy_get(pairs, count, ananicy_kind_key[k]);

		if (v && v->type == ANANICY_VALUE_STRING)
			return k;
	}
	return -1;
}

static void ananicy_add(struct ananicy *a, struct ananicy_entry *e,
			struct diag *diag)
{
	struct strmap *ids = &a->ids[e->kind];
	size_t earlier = (size_t)(uintptr_t)strmap_get(ids, e->id);

	if (earlier) {
		struct ananicy_entry *old = &a->entries[earlier - 1];

		old->overridden = true;
		diag_warning(diag, e->file, e->line,
			     "duplicate %s '%.64s': replaces the one of "
			     "%s:%u",
			     ananicy_kind_key[e->kind], e->id, old->file,
			     old->line);
	}
	if (a->count == a->capacity) {
		a->capacity = a->capacity ? a->capacity * 2 : 64;
		a->entries = xreallocarray(a->entries, a->capacity,
					   sizeof(*a->entries));
	}
	a->entries[a->count++] = *e;
	strmap_put(ids, e->id, (void *)(uintptr_t)a->count);
}

static size_t ananicy_skip_space(const char *text, size_t at)
{
	return at + strspn(text + at, " \t\r");
}

/* The object of one line, parsed by json-c's tokener: the line numbers
 * are ours (one object a line), the column of a syntax error the
 * tokener's offset. NULL when it is no object, said why. */
static struct json_object *ananicy_tokens(struct json_tokener *tok,
					  const char *path, unsigned line,
					  const char *text, struct diag *diag)
{
	struct json_object *obj;
	size_t end;

	json_tokener_reset(tok);
	/* With its NUL: the tokener takes that for the end of the input, and
	 * says what an unfinished object lacks instead of waiting for more. */
	obj = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	end = json_tokener_get_parse_end(tok);
	if (!obj) {
		diag_warning(
			diag, path, line, "bad JSON: %s at column %zu: skipped",
			json_tokener_error_desc(json_tokener_get_error(tok)),
			end + 1);
		return NULL;
	}
	end = ananicy_skip_space(text, end);
	if (text[end] && text[end] != '#') {
		diag_warning(diag, path, line,
			     "bad JSON: text after the object at column %zu: "
			     "skipped",
			     end + 1);
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static void ananicy_line(struct ananicy *a, struct json_tokener *tok,
			 const char *path, const char *folder, unsigned line,
			 const char *text, struct diag *diag)
{
	struct ananicy_pair pairs[ANANICY_MAX_PAIRS];
	struct ananicy_entry e = {.file = path, .folder = folder, .line = line};
	size_t count = 0, start = ananicy_skip_space(text, 0);
	struct json_object *obj;
	const char *why;
	int kind;

	if (!text[start] || text[start] == '#')
		return;
	a->lines++;
	if (text[start] != '{') {
		diag_warning(diag, path, line, "not a JSON object: skipped");
		return;
	}
	obj = ananicy_tokens(tok, path, line, text, diag);
	if (!obj)
		return;
	why = ananicy_pairs(obj, pairs, &count);
	json_object_put(obj);
	kind = why ? -1 : ananicy_kind_of(pairs, count);
	if (why)
		diag_warning(diag, path, line, "bad JSON: %s: skipped", why);
	else if (kind < 0)
		diag_warning(diag, path, line,
			     "no string \"name\", \"type\" or \"cgroup\": "
			     "skipped");
	if (kind < 0) {
		ananicy_free_line(pairs, count);
		return;
	}
	e.kind = (enum ananicy_kind)kind;
	e.pairs = xcalloc(count ? count : 1, sizeof(*e.pairs));
	memcpy(e.pairs, pairs, count * sizeof(*pairs));
	e.pair_count = count;
	e.id = ananicy_get(e.pairs, count, ananicy_kind_key[kind])->text;
	ananicy_add(a, &e, diag);
}

/* One file's text. path names it in messages and sources; folder is
 * where its rules are grouped in the output. Later definitions of the
 * same name replace earlier ones, as in ananicy-cpp. */
void ananicy_parse(struct ananicy *a, const char *path, const char *folder,
		   const char *text, size_t len, struct diag *diag)
{
	struct json_tokener *tok = json_tokener_new();
	const char *end = text + len, *p = text;
	unsigned line = 0;

	/* Strict JSON, as ananicy-cpp reads it; what follows the object is
	 * ananicy_tokens' to judge (a comment may). */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_ALLOW_TRAILING_CHARS);
	path = ananicy_keep(a, path);
	folder = ananicy_keep(a, folder);
	a->files++;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		char *copy;

		line++;
		if (memchr(p, '\0', (size_t)(stop - p))) {
			diag_warning(diag, path, line,
				     "NUL byte in the line: skipped");
		} else {
			copy = xstrndup(p, (size_t)(stop - p));
			ananicy_line(a, tok, path, folder, line, copy, diag);
			free(copy);
		}
		p = nl ? nl + 1 : end;
	}
	json_tokener_free(tok);
}

/* What one ananicy rule sets, in cpupolicy's terms. */
struct ananicy_mapped {
	struct rule_priority prio;
	bool raises;
};

/* The ananicy rules that become one cpupolicy rule: same folder, same
 * type, same settings. */
struct ananicy_group {
	char *key;
	const char *folder, *type;
	char *slug; /* the output file's part of the name */
	char *name;
	struct ananicy_mapped set;
	size_t *members; /* indexes of entries */
	size_t count;
};

struct ananicy_job {
	const struct ananicy *a;
	const struct ananicy_options *opt;
	struct ananicy_result *res;
	struct diag *diag;
	struct ananicy_group *groups;
	size_t group_count;
	struct strmap by_key;
	struct strmap comms; /* name in 15 bytes -> its entry */
	char **cut_keys;
	size_t cut_key_count;
};

/* A key an import cannot map, counted by what it is (the summary lists
 * each with its count; prolasso.c counts its own the same way): kept as
 * one entry each, merged by ananicy_unmapped_sort, since an input can
 * hold as many different keys as lines. */
void ananicy_unmapped_add(struct ananicy_unmapped **list, size_t *count,
			  const char *what)
{
	*list = xgrow(*list, *count, sizeof(**list));
	(*list)[(*count)++] = (struct ananicy_unmapped){xstrdup(what), 1};
}

static int ananicy_compare_unmapped(const void *a, const void *b)
{
	const struct ananicy_unmapped *x = a, *y = b;

	return strcmp(x->what, y->what);
}

/* By name, so that the summary reads the same for the same input; the
 * entries of one name merged into one with their count. */
void ananicy_unmapped_sort(struct ananicy_unmapped *list, size_t *count)
{
	size_t kept = 0;

	if (*count)
		qsort(list, *count, sizeof(*list), ananicy_compare_unmapped);
	for (size_t i = 0; i < *count; i++) {
		if (kept && strcmp(list[kept - 1].what, list[i].what) == 0) {
			list[kept - 1].count += list[i].count;
			free(list[i].what);
		} else {
			list[kept++] = list[i];
		}
	}
	*count = kept;
}

static void ananicy_unmapped(struct ananicy_result *res, const char *what)
{
	ananicy_unmapped_add(&res->unmapped, &res->unmapped_count, what);
}

/* The keys of a rule with its type's under them (the rule's own win, a
 * null removes one), as ananicy-cpp merges them. */
static size_t ananicy_merge(const struct ananicy_entry *type,
			    const struct ananicy_entry *rule,
			    const struct ananicy_pair **out)
{
	size_t n = 0;

	for (size_t i = 0; type && i < type->pair_count; i++)
		out[n++] = &type->pairs[i];
	for (size_t i = 0; i < rule->pair_count; i++) {
		const struct ananicy_pair *v = &rule->pairs[i];
		size_t k;

		for (k = 0; k < n && strcmp(out[k]->key, v->key) != 0; k++)
			;
		if (v->type == ANANICY_VALUE_NULL) {
			if (k < n)
				out[k] = out[--n];
			continue;
		}
		out[k] = v;
		if (k == n)
			n++;
	}
	return n;
}

static const struct ananicy_pair *ananicy_find(const struct ananicy_pair **kv,
					       size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(kv[i]->key, key) == 0)
			return kv[i];
	}
	return NULL;
}

static bool ananicy_int(struct ananicy_job *j, const struct ananicy_entry *e,
			const struct ananicy_pair *v, long long lo,
			long long hi, long long *out)
{
	if (v->type != ANANICY_VALUE_INTEGER || v->integer < lo ||
	    v->integer > hi) {
		diag_warning(j->diag, e->file, e->line,
			     "%s: '%.32s' is not an integer from %lld to "
			     "%lld: not imported",
			     v->key, v->text, lo, hi);
		return false;
	}
	*out = v->integer;
	return true;
}

static void ananicy_map_sched(struct ananicy_job *j,
			      const struct ananicy_entry *e,
			      const struct ananicy_pair **kv, size_t n,
			      struct rule_priority *p)
{
	static const struct {
		const char *name;
		enum rule_policy policy;
	} scheds[] = {
		{"normal", RULE_POLICY_OTHER}, {"other", RULE_POLICY_OTHER},
		{"batch", RULE_POLICY_BATCH},  {"idle", RULE_POLICY_IDLE},
		{"fifo", RULE_POLICY_FIFO},    {"rr", RULE_POLICY_RR},
	};
	const struct ananicy_pair *v = ananicy_find(kv, n, "sched");
	const struct ananicy_pair *rt = ananicy_find(kv, n, "rtprio");
	long long number;

	if (v && v->type == ANANICY_VALUE_STRING) {
		for (size_t i = 0; i < ARRAY_SIZE(scheds); i++) {
			if (strcmp(v->text, scheds[i].name) == 0)
				p->policy = scheds[i].policy;
		}
		if (!p->policy && strcmp(v->text, "deadline") == 0)
			ananicy_unmapped(j->res, "sched deadline");
		else if (!p->policy)
			diag_warning(j->diag, e->file, e->line,
				     "sched: '%.32s' is not a scheduler "
				     "ananicy-cpp knows: not imported",
				     v->text);
	} else if (v) {
		diag_warning(j->diag, e->file, e->line,
			     "sched: not a string: not imported");
	}
	if (p->policy != RULE_POLICY_FIFO && p->policy != RULE_POLICY_RR) {
		if (rt)
			ananicy_unmapped(j->res, "rtprio without sched fifo "
						 "or rr");
		return;
	}
	/* ananicy-cpp's default realtime priority */
	p->rt_priority = 1;
	if (rt && ananicy_int(j, e, rt, 1, 99, &number))
		p->rt_priority = (int)number;
	if (p->has_nice) {
		p->has_nice = false;
		ananicy_unmapped(j->res, "nice under sched fifo or rr");
	}
}

static void ananicy_map_io(struct ananicy_job *j, const struct ananicy_entry *e,
			   const struct ananicy_pair **kv, size_t n,
			   struct rule_priority *p)
{
	static const struct {
		const char *name;
		enum rule_io_class io_class;
	} classes[] = {
		{"realtime", RULE_IO_CLASS_REALTIME},
		{"best-effort", RULE_IO_CLASS_BEST_EFFORT},
		{"idle", RULE_IO_CLASS_IDLE},
	};
	const struct ananicy_pair *v = ananicy_find(kv, n, "ioclass");
	const struct ananicy_pair *level = ananicy_find(kv, n, "ionice");
	long long number;

	if (v && v->type == ANANICY_VALUE_STRING) {
		for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
			if (strcmp(v->text, classes[i].name) == 0)
				p->io_class = classes[i].io_class;
		}
		if (!p->io_class && strcmp(v->text, "none") == 0)
			ananicy_unmapped(j->res, "ioclass none");
		else if (!p->io_class)
			diag_warning(j->diag, e->file, e->line,
				     "ioclass: '%.32s' is not an I/O class "
				     "ananicy-cpp knows: not imported",
				     v->text);
	} else if (v) {
		diag_warning(j->diag, e->file, e->line,
			     "ioclass: not a string: not imported");
	}
	if (!p->io_class || p->io_class == RULE_IO_CLASS_IDLE) {
		if (level)
			ananicy_unmapped(
				j->res, p->io_class ? "ionice with ioclass "
						      "idle"
						    : "ionice without ioclass");
		return;
	}
	/* Without ionice, ananicy-cpp sets level 0 of the class. */
	p->io_level = 0;
	if (level && ananicy_int(j, e, level, 0, 7, &number))
		p->io_level = (int)number;
}

/* The keys ananicy-cpp applies that cpupolicy has no setting for, and
 * those it does not know at all. */
static void ananicy_map_rest(struct ananicy_job *j,
			     const struct ananicy_pair **kv, size_t n)
{
	static const char *const mapped[] = {
		"name", "type", "nice", "sched", "rtprio", "ioclass", "ionice",
	};
	char what[96];

	for (size_t i = 0; i < n; i++) {
		bool known = false;

		for (size_t k = 0; k < ARRAY_SIZE(mapped); k++)
			known = known || strcmp(kv[i]->key, mapped[k]) == 0;
		if (known)
			continue;
		snprintf(what, sizeof(what), "%.80s", kv[i]->key);
		ananicy_unmapped(j->res, what);
	}
}

static void ananicy_map(struct ananicy_job *j, const struct ananicy_entry *e,
			const struct ananicy_pair **kv, size_t n,
			struct ananicy_mapped *m)
{
	const struct ananicy_pair *v = ananicy_find(kv, n, "nice");
	struct rule probe = {0};
	long long number;

	*m = (struct ananicy_mapped){.prio = {.io_level = -1}};
	if (v && ananicy_int(j, e, v, -20, 19, &number)) {
		m->prio.has_nice = true;
		m->prio.nice = (int)number;
	}
	ananicy_map_sched(j, e, kv, n, &m->prio);
	ananicy_map_io(j, e, kv, n, &m->prio);
	ananicy_map_rest(j, kv, n);
	probe.priority = m->prio;
	m->raises = rules_raises(&probe);
}

static bool ananicy_mapped_any(const struct ananicy_mapped *m)
{
	return m->prio.has_nice || m->prio.policy || m->prio.io_class;
}

/* ananicy-cpp matches the base name of argv[0]; cpupolicy's name key the
 * kernel's process name, the executable's file name cut to 15 bytes:
 * the same for nearly every program, and a key that is looked up, not
 * scanned. A longer name is matched on its first 15 bytes. */
static bool ananicy_name_usable(struct ananicy_job *j,
				const struct ananicy_entry *e)
{
	char key[RULEFILE_COMM_MAX + 1];
	const struct ananicy_entry *other;

	for (const char *c = e->id; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			diag_warning(j->diag, e->file, e->line,
				     "name has a control character: not "
				     "imported");
			return false;
		}
	}
	if (!*e->id) {
		diag_warning(j->diag, e->file, e->line,
			     "name is empty: not imported");
		return false;
	}
	if (strlen(e->id) > RULEFILE_COMM_MAX)
		j->res->cut++;
	snprintf(key, sizeof(key), "%s", e->id);
	other = strmap_get(&j->comms, key);
	if (other) {
		diag_warning(j->diag, e->file, e->line,
			     "name '%.64s' is '%s' in the kernel's 15 bytes, "
			     "as '%.64s' of %s:%u is: that one wins",
			     e->id, key, other->id, other->file, other->line);
		return false;
	}
	j->cut_keys =
		xgrow(j->cut_keys, j->cut_key_count, sizeof(*j->cut_keys));
	j->cut_keys[j->cut_key_count] = xstrdup(key);
	strmap_put(&j->comms, j->cut_keys[j->cut_key_count++], (void *)e);
	return true;
}

/* Lowercase letters, digits and '-': for file and rule names. */
static char *ananicy_slug(const char *text, size_t max)
{
	char *out = xmalloc(max + 1);
	size_t len = 0;
	bool dash = false;

	for (const char *c = text; *c && len < max; c++) {
		if (isalnum((unsigned char)*c) && !((unsigned char)*c & 0x80)) {
			if (dash && len)
				out[len++] = '-';
			dash = false;
			if (len < max)
				out[len++] = (char)tolower((unsigned char)*c);
		} else {
			dash = true;
		}
	}
	if (!len)
		memcpy(out, "top", (len = 3));
	out[len] = '\0';
	return out;
}

/* A rule name's base, ananicy.FOLDER.TYPE, cut so that a suffix of any
 * count ("-4294967295") still fits a rule name. */
#define ANANICY_BASE_MAX (RULEFILE_MAX_NAME - 11)

static char *ananicy_group_base(const struct ananicy_group *g)
{
	const char *last = strrchr(g->folder, '/');
	char *folder = ananicy_slug(last ? last + 1 : g->folder, 28);
	char *type = ananicy_slug(g->type ? g->type : "own", 28);
	char *base = xasprintf("ananicy.%s.%s", folder, type);

	base[strnlen(base, ANANICY_BASE_MAX)] = '\0';
	free(folder);
	free(type);
	return base;
}

/* A group's place in a sorted list: by a text, then by read order. */
struct ananicy_slot {
	const char *text;
	size_t group;
};

static int ananicy_compare_slot(const void *a, const void *b)
{
	const struct ananicy_slot *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	if (c)
		return c;
	return (x->group > y->group) - (x->group < y->group);
}

static int ananicy_compare_text(const void *key, const void *slot)
{
	return strcmp(key, ((const struct ananicy_slot *)slot)->text);
}

/* base-N for the next N that is no group's base. Each N of a base is
 * tried once, and each one passed over is another group's base, so all
 * the names together take O(n log n) however the bases collide. */
static char *ananicy_suffixed(const struct ananicy_slot *bases, size_t count,
			      const char *base, size_t *next)
{
	for (;;) {
		char *name = xasprintf("%s-%zu", base, (*next)++);

		if (!bsearch(name, bases, count, sizeof(*bases),
			     ananicy_compare_text))
			return name;
		free(name);
	}
}

/* Every group's rule name: its base for the first of a base in read
 * order, base-2, base-3... for the others, skipping the names that are
 * bases of their own. */
static void ananicy_name_groups(struct ananicy_job *j)
{
	struct ananicy_slot *bases =
		xcalloc(j->group_count + 1, sizeof(*bases));
	size_t count = j->group_count;

	for (size_t i = 0; i < count; i++)
		bases[i] = (struct ananicy_slot){
			ananicy_group_base(&j->groups[i]), i};
	qsort(bases, count, sizeof(*bases), ananicy_compare_slot);
	for (size_t i = 0, run; i < count; i = run) {
		size_t next = 2;

		j->groups[bases[i].group].name = xstrdup(bases[i].text);
		for (run = i + 1;
		     run < count && strcmp(bases[run].text, bases[i].text) == 0;
		     run++)
			j->groups[bases[run].group].name = ananicy_suffixed(
				bases, count, bases[i].text, &next);
	}
	for (size_t i = 0; i < count; i++)
		free((char *)bases[i].text);
	free(bases);
}

static void ananicy_group_add(struct ananicy_job *j, size_t index,
			      const char *type, const struct ananicy_mapped *m)
{
	const struct ananicy_entry *e = &j->a->entries[index];
	const struct rule_priority *p = &m->prio;
	char *key = xasprintf("%s\n%s\n%d %d %d %d %d %d", e->folder,
			      type ? type : "", p->has_nice, p->nice,
			      (int)p->policy, p->rt_priority, (int)p->io_class,
			      p->io_level);
	size_t at = (size_t)(uintptr_t)strmap_get(&j->by_key, key);
	struct ananicy_group *g;

	if (at) {
		free(key);
		g = &j->groups[at - 1];
	} else {
		j->groups =
			xgrow(j->groups, j->group_count, sizeof(*j->groups));
		g = &j->groups[j->group_count++];
		*g = (struct ananicy_group){.key = key,
					    .folder = e->folder,
					    .type = type,
					    .set = *m};
		g->slug = ananicy_slug(e->folder, 80);
		strmap_put(&j->by_key, key, (void *)(uintptr_t)j->group_count);
	}
	g->members = xgrow(g->members, g->count, sizeof(*g->members));
	g->members[g->count++] = index;
}

static void ananicy_rule(struct ananicy_job *j, size_t index)
{
	const struct ananicy_entry *e = &j->a->entries[index];
	const struct ananicy_pair *tv =
		ananicy_get(e->pairs, e->pair_count, "type");
	const struct ananicy_pair *kv[2 * ANANICY_MAX_PAIRS];
	const struct ananicy_entry *type = NULL;
	struct ananicy_mapped m;
	size_t n, at = 0;

	j->res->rules_read++;
	if (e->overridden) {
		j->res->overridden++;
		return;
	}
	if (tv && tv->type == ANANICY_VALUE_STRING)
		at = (size_t)(uintptr_t)strmap_get(
			&j->a->ids[ANANICY_KIND_TYPE], tv->text);
	if (at)
		type = &j->a->entries[at - 1];
	else if (tv)
		diag_warning(j->diag, e->file, e->line,
			     "type '%.64s' is defined nowhere: the rule's "
			     "own keys only",
			     tv->text);
	n = ananicy_merge(type, e, kv);
	ananicy_map(j, e, kv, n, &m);
	if (!ananicy_mapped_any(&m)) {
		j->res->nothing++;
		return;
	}
	if (!ananicy_name_usable(j, e)) {
		j->res->unusable++;
		return;
	}
	ananicy_group_add(j, index, type ? type->id : NULL, &m);
}

static void ananicy_write_priority(FILE *out, const struct rule_priority *p)
{
	fprintf(out, "    priority = {");
	if (p->has_nice)
		fprintf(out, " nice = %d;", p->nice);
	if (p->policy)
		fprintf(out, " policy = \"%s\";",
			rules_enum_name(RULES_ENUM_POLICY, p->policy));
	if (p->rt_priority)
		fprintf(out, " rt_priority = %d;", p->rt_priority);
	if (p->io_class)
		fprintf(out, " io_class = \"%s\";",
			rules_enum_name(RULES_ENUM_IO_CLASS, p->io_class));
	if (p->io_level >= 0)
		fprintf(out, " io_level = %d;", p->io_level);
	fprintf(out, " };\n");
}

/* A list of one value per member, or the one value. */
static void ananicy_write_list(FILE *out, const struct ananicy_job *j,
			       const struct ananicy_group *g, bool names)
{
	const char *indent =
		names ? "                       " : "               ";

	if (g->count > 1)
		fprintf(out, "[ ");
	for (size_t i = 0; i < g->count; i++) {
		const struct ananicy_entry *e = &j->a->entries[g->members[i]];

		if (i)
			fprintf(out, ",\n%s", indent);
		if (names) {
			char key[RULEFILE_COMM_MAX + 1];

			snprintf(key, sizeof(key), "%s", e->id);
			quote_write(out, key, QUOTE_ALL, QUOTE_MODE_GLOB);
		} else {
			char *source = xasprintf("%s:%u", e->file, e->line);

			quote_write(out, source, QUOTE_ALL, QUOTE_MODE_CONFIG);
			free(source);
		}
	}
	if (g->count > 1)
		fprintf(out, " ]");
}

static void ananicy_write_group(FILE *out, const struct ananicy_job *j,
				const struct ananicy_group *g)
{
	const struct ananicy_options *opt = j->opt;

	fprintf(out, "  { name = ");
	quote_write(out, g->name, QUOTE_ALL, QUOTE_MODE_CONFIG);
	fprintf(out, ";\n    match = { name = ");
	ananicy_write_list(out, j, g, true);
	fprintf(out, ";");
	if (g->set.raises && opt->user) {
		fprintf(out, "\n              user = ");
		quote_write(out, opt->user, QUOTE_ALL, QUOTE_MODE_CONFIG);
		fprintf(out, ";");
	} else if (g->set.raises && opt->group) {
		fprintf(out, "\n              group = ");
		quote_write(out, opt->group, QUOTE_ALL, QUOTE_MODE_CONFIG);
		fprintf(out, ";");
	}
	fprintf(out, " };\n");
	ananicy_write_priority(out, &g->set.prio);
	if (g->set.raises && !opt->user && !opt->group && opt->allow_spoofable)
		fprintf(out, "    # Raises, and any process can take a name: "
			     "chosen with --allow-spoofable.\n"
			     "    allow_spoofable = true;\n");
	fprintf(out, "    source = ");
	ananicy_write_list(out, j, g, false);
	fprintf(out, ";\n  }");
}

static void ananicy_write_heading(FILE *out, const struct ananicy_group *g)
{
	if (g->type) {
		fprintf(out, "  # ananicy type \"");
		quote_write(out, g->type, QUOTE_ALL, QUOTE_MODE_DISPLAY);
		fprintf(out, "\": %zu rule%s\n", g->count,
			g->count == 1 ? "" : "s");
	} else {
		fprintf(out, "  # ananicy rules with their own settings: %zu\n",
			g->count);
	}
}

/* A raising rule without --user, --group or --allow-spoofable: written
 * as a comment, each line of it. */
static void ananicy_write_left_out(FILE *out, const struct ananicy_job *j,
				   const struct ananicy_group *g)
{
	struct memstream m;
	FILE *f = memstream_open(&m);
	char *text, *line;
	size_t len;

	fprintf(out,
		"\n# Left out: \"%s\"\n# raises priority and matches "
		"only on a process name, which any user\n# can give a "
		"process. Import again with --user NAME or --group NAME\n"
		"# (who may have it) or --allow-spoofable (anyone).\n",
		g->name);
	if (!f)
		return;
	ananicy_write_heading(f, g);
	ananicy_write_group(f, j, g);
	fputc('\n', f);
	text = memstream_close(&m, &len);
	for (line = text; line && *line;) {
		char *nl = strchr(line, '\n');

		fprintf(out, "#%.*s\n",
			(int)(nl ? nl - line : (long)strlen(line)), line);
		line = nl ? nl + 1 : line + strlen(line);
	}
	free(text);
}

static bool ananicy_left_out(const struct ananicy_job *j,
			     const struct ananicy_group *g)
{
	return g->set.raises && !j->opt->user && !j->opt->group &&
	       !j->opt->allow_spoofable;
}

static void ananicy_count(struct ananicy_job *j, const struct ananicy_group *g)
{
	size_t *counter = NULL;

	if (ananicy_left_out(j, g))
		counter = &j->res->left_out;
	else if (g->set.raises && (j->opt->user || j->opt->group))
		counter = &j->res->narrowed;
	else if (g->set.raises)
		counter = &j->res->opted_in;
	if (counter)
		*counter += g->count;
	if (!ananicy_left_out(j, g)) {
		j->res->written += g->count;
		j->res->groups++;
	}
}

/* One output file: the groups of one folder (slots, in read order), in
 * the order their first rule was read; the left-out ones after them. */
static void ananicy_write_file(struct ananicy_job *j,
			       const struct ananicy_slot *slots, size_t count)
{
	const char *folder = j->groups[slots[0].group].folder;
	struct ananicy_result *res = j->res;
	struct memstream m;
	FILE *out = memstream_open(&m);
	struct ananicy_file *file;
	bool first = true;
	char *where;

	if (!out)
		return;
	where = xasprintf("%s%s%s", j->opt->origin ? j->opt->origin : "",
			  j->opt->origin && *folder ? "/" : "", folder);
	/* A comment escapes nothing: the folder's name is shown as a
	 * terminal would show it, a newline in it as \x0a. */
	fprintf(out, ANANICY_HEADER "\n# ");
	quote_write(out, where, QUOTE_ALL, QUOTE_MODE_DISPLAY);
	fprintf(out, "\n# Every rule's source names the ananicy file and line "
		     "it came from.\nversion = 1;\nrules = (\n");
	free(where);
	for (size_t i = 0; i < count; i++) {
		const struct ananicy_group *g = &j->groups[slots[i].group];

		if (ananicy_left_out(j, g))
			continue;
		fprintf(out, "%s", first ? "" : ",\n");
		ananicy_write_heading(out, g);
		ananicy_write_group(out, j, g);
		first = false;
	}
	fprintf(out, "%s);\n", first ? "" : "\n");
	for (size_t i = 0; i < count; i++) {
		const struct ananicy_group *g = &j->groups[slots[i].group];

		if (ananicy_left_out(j, g))
			ananicy_write_left_out(out, j, g);
	}
	res->files = xgrow(res->files, res->file_count, sizeof(*res->files));
	file = &res->files[res->file_count++];
	file->name = xasprintf(ANANICY_FILE_PREFIX "%s.rules", slots[0].text);
	file->text = memstream_close(&m, &file->len);
}

/* The groups sorted by file, then read order: one file per run. */
static void ananicy_write(struct ananicy_job *j)
{
	struct ananicy_slot *slots =
		xcalloc(j->group_count + 1, sizeof(*slots));
	size_t count = j->group_count;

	ananicy_name_groups(j);
	for (size_t i = 0; i < count; i++) {
		ananicy_count(j, &j->groups[i]);
		slots[i] = (struct ananicy_slot){j->groups[i].slug, i};
	}
	qsort(slots, count, sizeof(*slots), ananicy_compare_slot);
	for (size_t i = 0, run; i < count; i = run) {
		for (run = i + 1;
		     run < count && strcmp(slots[run].text, slots[i].text) == 0;
		     run++)
			;
		ananicy_write_file(j, slots + i, run - i);
	}
	free(slots);
}

/* Everything read, to rule files: types inlined, rules grouped by folder,
 * type and settings; each group one rule, each folder one file. */
void ananicy_import(const struct ananicy *a, const struct ananicy_options *opt,
		    struct ananicy_result *res, struct diag *diag)
{
	struct ananicy_job j = {.a = a, .opt = opt, .res = res, .diag = diag};

	*res = (struct ananicy_result){0};
	strmap_init(&j.by_key);
	strmap_init(&j.comms);
	for (size_t i = 0; i < a->count; i++) {
		const struct ananicy_entry *e = &a->entries[i];

		if (e->kind == ANANICY_KIND_RULE)
			ananicy_rule(&j, i);
		else if (e->kind == ANANICY_KIND_TYPE)
			res->types_read++;
		else
			res->cgroups_read++;
	}
	ananicy_write(&j);
	ananicy_unmapped_sort(res->unmapped, &res->unmapped_count);
	for (size_t i = 0; i < j.group_count; i++) {
		free(j.groups[i].key);
		free(j.groups[i].slug);
		free(j.groups[i].name);
		free(j.groups[i].members);
	}
	free(j.groups);
	strmap_free(&j.by_key);
	strmap_free(&j.comms);
	for (size_t i = 0; i < j.cut_key_count; i++)
		free(j.cut_keys[i]);
	free(j.cut_keys);
}

void ananicy_result_free(struct ananicy_result *res)
{
	for (size_t i = 0; i < res->file_count; i++) {
		free(res->files[i].name);
		free(res->files[i].text);
	}
	free(res->files);
	for (size_t i = 0; i < res->unmapped_count; i++)
		free(res->unmapped[i].what);
	free(res->unmapped);
	*res = (struct ananicy_result){0};
}
