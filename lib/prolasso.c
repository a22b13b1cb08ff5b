/* Process Lasso's prolasso.ini to a cpupolicy rule file: the per-process
 * lists of [ProcessDefaults] (priority classes, affinities, CPU sets,
 * named affinities) and [ProcessAllowances] (efficiency mode), each a
 * key=name,value,... line; sections may repeat. Processes with the same
 * settings share one rule. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "os.h"
#include "prolasso.h"
#include "quote.h"
#include "rules.h"
#include "util.h"

#define PROLASSO_MAX_FIELD 512
#define PROLASSO_MAX_NAME  765

enum prolasso_key {
	PROLASSO_KEY_OTHER,
	PROLASSO_KEY_PRIORITIES,
	PROLASSO_KEY_AFFINITIES_EX,
	PROLASSO_KEY_CPU_SETS,
	PROLASSO_KEY_NAMED,
	PROLASSO_KEY_EFFICIENCY,
};

struct prolasso_proc {
	char *name;
	char *key; /* lowercase: Windows names are case-blind */
	char *source;
	enum rule_class class;
	enum rule_efficiency efficiency;
	char cpus[256]; /* "" unset */
	bool cpus_hard; /* from an affinity, not a CPU set */
	unsigned keys;	/* 1 << prolasso_key for each key that named it */
	size_t group;
};

struct prolasso_job {
	const char *path;
	struct diag *diag;
	struct prolasso_result *res;
	struct prolasso_proc *procs;
	size_t count;
	struct strmap by_key;
	struct strmap aliases; /* a named affinity's name -> its CPUs */
	char **alias_texts;    /* the names and CPUs the map points to */
	size_t alias_count;
};

static void prolasso_put_utf8(char *out, size_t *len, unsigned code)
{
	if (code < 0x80) {
		out[(*len)++] = (char)code;
	} else if (code < 0x800) {
		out[(*len)++] = (char)(0xc0 | (code >> 6));
		out[(*len)++] = (char)(0x80 | (code & 0x3f));
	} else if (code < 0x10000) {
		out[(*len)++] = (char)(0xe0 | (code >> 12));
		out[(*len)++] = (char)(0x80 | ((code >> 6) & 0x3f));
		out[(*len)++] = (char)(0x80 | (code & 0x3f));
	} else {
		out[(*len)++] = (char)(0xf0 | (code >> 18));
		out[(*len)++] = (char)(0x80 | ((code >> 12) & 0x3f));
		out[(*len)++] = (char)(0x80 | ((code >> 6) & 0x3f));
		out[(*len)++] = (char)(0x80 | (code & 0x3f));
	}
}

/* The text as UTF-8: UTF-16LE after its BOM (surrogate pairs joined, a
 * lone one and NUL refused), or UTF-8 with or without one. */
char *prolasso_decode(const char *data, size_t len, size_t *out_len, char *why,
		      size_t why_size)
{
	const unsigned char *u = (const unsigned char *)data;
	char *out;
	size_t n = 0;

	if (len < 2 || u[0] != 0xff || u[1] != 0xfe) {
		size_t skip =
			len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf
				? 3
				: 0;

		if (memchr(data + skip, '\0', len - skip)) {
			snprintf(why, why_size,
				 "a NUL byte: neither UTF-8 nor "
				 "UTF-16LE with a BOM");
			return NULL;
		}
		*out_len = len - skip;
		return xstrndup(data + skip, len - skip);
	}
	if (len % 2) {
		snprintf(why, why_size, "UTF-16LE of an odd length");
		return NULL;
	}
	out = xmalloc(len * 2 + 1);
	for (size_t i = 2; i + 1 < len; i += 2) {
		unsigned code = u[i] | (unsigned)u[i + 1] << 8;

		if (code >= 0xd800 && code < 0xdc00 && i + 3 < len) {
			unsigned low = u[i + 2] | (unsigned)u[i + 3] << 8;

			if (low >= 0xdc00 && low < 0xe000) {
				code = 0x10000 + ((code - 0xd800) << 10) +
				       (low - 0xdc00);
				i += 2;
			}
		}
		if (code == 0 || (code >= 0xd800 && code < 0xe000)) {
			snprintf(why, why_size, "UTF-16LE: %s at byte %zu",
				 code ? "a lone surrogate" : "a NUL", i);
			free(out);
			return NULL;
		}
		prolasso_put_utf8(out, &n, code);
	}
	out[n] = '\0';
	*out_len = n;
	return out;
}

static void prolasso_unmapped(struct prolasso_result *res, const char *what)
{
	ananicy_unmapped_add(&res->unmapped, &res->unmapped_count, what);
}

static char *prolasso_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s &&
	       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static char *prolasso_lower(const char *s)
{
	char *out = xstrdup(s);

	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return out;
}

/* "0;5-8;13-15" (Process Lasso's separator inside a comma list) to the
 * kernel's notation, checked; a named affinity by its name. */
static bool prolasso_cpus(struct prolasso_job *j, const char *spec, char *out,
			  size_t size, unsigned line)
{
	const char *alias = strmap_get(&j->aliases, spec);
	char text[PROLASSO_MAX_FIELD], why[128];
	struct cpulist list;

	if (alias)
		spec = alias;
	snprintf(text, sizeof(text), "%s", spec);
	for (char *c = text; *c; c++) {
		if (*c == ';')
			*c = ',';
	}
	if (cpulist_parse(text, &list, why, sizeof(why)) < 0) {
		diag_warning(j->diag, j->path, line,
			     "'%.64s' is no CPU list: %s: not imported", spec,
			     why);
		return false;
	}
	cpulist_format(&list, out, size);
	cpulist_free(&list);
	return true;
}

/* A legacy affinity mask (decimal, or hex with 0x): CPU i for bit i. */
static bool prolasso_mask(const char *text, char *out, size_t size)
{
	unsigned long long mask;
	size_t used = 0;
	char *end;

	mask = strtoull(text, &end, 0);
	if (*end || !mask)
		return false;
	out[0] = '\0';
	for (unsigned cpu = 0; cpu < 64 && used + 4 < size; cpu++) {
		if (mask & (1ULL << cpu))
			used += (size_t)snprintf(out + used, size - used,
						 "%s%u", used ? "," : "", cpu);
	}
	return true;
}

/* What a process name may be here: an image name, '*' and '?' as
 * wildcards; brackets and backslashes have no meaning to Process Lasso,
 * and Windows has no file name with a control character or of more than
 * 255 UTF-16 units (3 bytes of UTF-8 each at most). */
static bool prolasso_name_ok(struct prolasso_job *j, const char *name,
			     unsigned line)
{
	if (!*name)
		return false;
	if (strlen(name) > PROLASSO_MAX_NAME) {
		diag_warning(j->diag, j->path, line,
			     "process '%.64s...': longer than %d bytes: not "
			     "imported",
			     name, PROLASSO_MAX_NAME);
		return false;
	}
	for (const char *c = name; *c; c++) {
		if ((unsigned char)*c < 0x20) {
			diag_warning(j->diag, j->path, line,
				     "process '%.64s': control character "
				     "0x%02x in a name: not imported",
				     name, (unsigned char)*c);
			return false;
		}
		if (strchr("[]\\\"", *c)) {
			diag_warning(j->diag, j->path, line,
				     "process '%.64s': '%c' in a name: not "
				     "imported",
				     name, *c);
			return false;
		}
	}
	return true;
}

static struct prolasso_proc *prolasso_proc(struct prolasso_job *j,
					   const char *name, unsigned line)
{
	char *key = prolasso_lower(name);
	size_t at = (size_t)(uintptr_t)strmap_get(&j->by_key, key);
	struct prolasso_proc *p;

	if (at) {
		free(key);
		return &j->procs[at - 1];
	}
	j->procs = xgrow(j->procs, j->count, sizeof(*j->procs));
	p = &j->procs[j->count++];
	*p = (struct prolasso_proc){.name = xstrdup(name), .key = key};
	p->source = xasprintf("%s:%u", j->path, line);
	/* The map keeps pointers to keys, which outlive the array's moves. */
	strmap_put(&j->by_key, p->key, (void *)(uintptr_t)j->count);
	return p;
}

static int prolasso_class(const char *text)
{
	static const struct {
		const char *name;
		enum rule_class class;
	} classes[] = {
		{"idle", RULE_CLASS_IDLE},
		{"1", RULE_CLASS_IDLE},
		{"below normal", RULE_CLASS_BELOW_NORMAL},
		{"2", RULE_CLASS_BELOW_NORMAL},
		{"normal", RULE_CLASS_NORMAL},
		{"3", RULE_CLASS_NORMAL},
		{"above normal", RULE_CLASS_ABOVE_NORMAL},
		{"4", RULE_CLASS_ABOVE_NORMAL},
		{"high", RULE_CLASS_HIGH},
		{"5", RULE_CLASS_HIGH},
		{"realtime", RULE_CLASS_REALTIME},
		{"real time", RULE_CLASS_REALTIME},
		{"6", RULE_CLASS_REALTIME},
	};
	char *lower = prolasso_lower(text);
	int found = -1;

	for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
		if (strcmp(lower, classes[i].name) == 0)
			found = (int)classes[i].class;
	}
	free(lower);
	return found;
}

static const char *prolasso_key_name(enum prolasso_key key)
{
	switch (key) {
	case PROLASSO_KEY_PRIORITIES:
		return "DefaultPriorities";
	case PROLASSO_KEY_AFFINITIES_EX:
		return "DefaultAffinitiesEx";
	case PROLASSO_KEY_CPU_SETS:
		return "DefaultCPUSets";
	case PROLASSO_KEY_EFFICIENCY:
		return "EfficiencyMode";
	default:
		return "a key";
	}
}

/* The process an entry is for; a second entry of the same key for it
 * (Process Lasso keeps the later) is said. */
static struct prolasso_proc *prolasso_proc_of(struct prolasso_job *j,
					      const char *name, unsigned line,
					      enum prolasso_key key)
{
	struct prolasso_proc *p = prolasso_proc(j, name, line);

	if (p->keys & (1u << key))
		diag_warning(j->diag, j->path, line,
			     "process '%.64s': %s names it again: the later "
			     "value wins",
			     name, prolasso_key_name(key));
	p->keys |= 1u << key;
	return p;
}

/* A named affinity: the first definition of a name is the one used. */
static void prolasso_alias(struct prolasso_job *j, const char *name,
			   const char *cpus)
{
	char *key, *value;

	if (strmap_get(&j->aliases, name))
		return;
	j->alias_texts =
		xgrow(j->alias_texts, j->alias_count, sizeof(*j->alias_texts));
	key = j->alias_texts[j->alias_count++] = xstrdup(name);
	j->alias_texts =
		xgrow(j->alias_texts, j->alias_count, sizeof(*j->alias_texts));
	value = j->alias_texts[j->alias_count++] = xstrdup(cpus);
	strmap_put(&j->aliases, key, value);
}

/* One name,value[,value] entry of a list. */
static void prolasso_entry(struct prolasso_job *j, enum prolasso_key key,
			   char **f, unsigned line)
{
	struct prolasso_proc *p;
	char cpus[256];
	int class;

	j->res->entries++;
	if (key == PROLASSO_KEY_NAMED) {
		prolasso_alias(j, f[0], f[1]);
		return;
	}
	if (!prolasso_name_ok(j, f[0], line))
		return;
	switch (key) {
	case PROLASSO_KEY_PRIORITIES:
		class = prolasso_class(f[1]);
		if (class < 0) {
			diag_warning(j->diag, j->path, line,
				     "process '%.64s': '%.32s' is no priority "
				     "class: not imported",
				     f[0], f[1]);
			return;
		}
		prolasso_proc_of(j, f[0], line, key)->class =
			(enum rule_class) class;
		break;
	case PROLASSO_KEY_AFFINITIES_EX:
		if (*f[2] && strcmp(f[2], "0") != 0) {
			if (!prolasso_cpus(j, f[2], cpus, sizeof(cpus), line))
				return;
		} else {
			char bits[256];

			if (!prolasso_mask(f[1], bits, sizeof(bits)) ||
			    !prolasso_cpus(j, bits, cpus, sizeof(cpus), line))
				return;
		}
		p = prolasso_proc_of(j, f[0], line, key);
		if (p->cpus[0] && !p->cpus_hard)
			prolasso_unmapped(j->res,
					  "DefaultCPUSets beside an affinity");
		snprintf(p->cpus, sizeof(p->cpus), "%s", cpus);
		p->cpus_hard = true;
		break;
	case PROLASSO_KEY_CPU_SETS:
		if (!*f[1] || !prolasso_cpus(j, f[1], cpus, sizeof(cpus), line))
			return;
		p = prolasso_proc_of(j, f[0], line, key);
		/* An affinity is the harder limit: it wins. */
		if (p->cpus_hard) {
			prolasso_unmapped(j->res,
					  "DefaultCPUSets beside an affinity");
			return;
		}
		snprintf(p->cpus, sizeof(p->cpus), "%s", cpus);
		break;
	case PROLASSO_KEY_EFFICIENCY:
		if (strcmp(f[1], "0") != 0 && strcmp(f[1], "1") != 0) {
			diag_warning(j->diag, j->path, line,
				     "process '%.64s': efficiency mode "
				     "'%.32s' is neither 0 nor 1: not imported",
				     f[0], f[1]);
			return;
		}
		prolasso_proc_of(j, f[0], line, key)->efficiency =
			f[1][0] == '1' ? RULE_EFFICIENCY_ON
				       : RULE_EFFICIENCY_OFF;
		break;
	case PROLASSO_KEY_NAMED:
	case PROLASSO_KEY_OTHER:
		break;
	}
}

static enum prolasso_key prolasso_key_of(const char *section, const char *key,
					 size_t *fields)
{
	static const struct {
		const char *section, *key;
		enum prolasso_key which;
		size_t fields;
	} keys[] = {
		{"processdefaults", "defaultpriorities",
		 PROLASSO_KEY_PRIORITIES, 2},
		{"processdefaults", "defaultaffinitiesex",
		 PROLASSO_KEY_AFFINITIES_EX, 3},
		{"processdefaults", "defaultcpusets", PROLASSO_KEY_CPU_SETS, 2},
		{"processdefaults", "namedaffinities", PROLASSO_KEY_NAMED, 2},
		{"processallowances", "efficiencymode", PROLASSO_KEY_EFFICIENCY,
		 2},
	};
	char *s = prolasso_lower(section), *k = prolasso_lower(key);
	enum prolasso_key found = PROLASSO_KEY_OTHER;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strcmp(s, keys[i].section) == 0 &&
		    strcmp(k, keys[i].key) == 0) {
			found = keys[i].which;
			*fields = keys[i].fields;
		}
	}
	free(s);
	free(k);
	return found;
}

/* The per-process sections: what else they hold is counted, not mapped. */
static bool prolasso_rule_section(const char *section)
{
	char *s = prolasso_lower(section);
	bool yes = strcmp(s, "processdefaults") == 0 ||
		   strcmp(s, "processallowances") == 0;

	free(s);
	return yes;
}

static void prolasso_list(struct prolasso_job *j, enum prolasso_key key,
			  size_t n, char *value, unsigned line)
{
	char *f[3];
	size_t have = 0;
	char *p = value;

	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		f[have++] = prolasso_trim(p);
		if (have == n) {
			prolasso_entry(j, key, f, line);
			have = 0;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (have > 1 || (have == 1 && *f[0]))
		diag_warning(j->diag, j->path, line,
			     "an entry of %zu field%s where %zu make one: "
			     "not imported",
			     have, have == 1 ? "" : "s", n);
}

/* pass 0 reads the named affinities, pass 1 the rest. */
static void prolasso_line(struct prolasso_job *j, char *line, unsigned number,
			  char *section, size_t section_size, int pass)
{
	char *s = prolasso_trim(line), *eq;
	enum prolasso_key key;
	size_t fields = 0;

	if (!*s || *s == '#' || *s == ';')
		return;
	if (*s == '[') {
		char *end = strchr(s, ']');

		snprintf(section, section_size, "%.*s",
			 end ? (int)(end - s - 1) : (int)strlen(s + 1), s + 1);
		return;
	}
	eq = strchr(s, '=');
	if (!eq)
		return;
	*eq = '\0';
	key = prolasso_key_of(section, prolasso_trim(s), &fields);
	if ((pass == 0) != (key == PROLASSO_KEY_NAMED))
		return;
	if (key != PROLASSO_KEY_OTHER) {
		prolasso_list(j, key, fields, eq + 1, number);
	} else if (prolasso_rule_section(section) && *prolasso_trim(eq + 1)) {
		char what[96];

		snprintf(what, sizeof(what), "%.80s", prolasso_trim(s));
		prolasso_unmapped(j->res, what);
	}
}

static void prolasso_read(struct prolasso_job *j, const char *text, size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		char section[128] = "";
		const char *p = text, *end = text + len;
		unsigned number = 0;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = (size_t)((nl ? nl : end) - p);
			char *line = xstrndup(p, n);

			prolasso_line(j, line, ++number, section,
				      sizeof(section), pass);
			free(line);
			p = nl ? nl + 1 : end;
		}
	}
}

/* The processes with the same settings: one rule. */
struct prolasso_group {
	const struct prolasso_proc *first;
	size_t *members;
	size_t count;
	bool raises;
};

static bool prolasso_raises(const struct prolasso_proc *p)
{
	struct rule probe = {
		.priority = {.class = p->class,
			     .efficiency_mode = p->efficiency,
			     .io_level = -1},
	};

	return rules_raises(&probe);
}

static int prolasso_compare_settings(const struct prolasso_proc *a,
				     const struct prolasso_proc *b)
{
	if (a->class != b->class)
		return a->class < b->class ? -1 : 1;
	if (a->efficiency != b->efficiency)
		return a->efficiency < b->efficiency ? -1 : 1;
	if (a->cpus_hard != b->cpus_hard)
		return a->cpus_hard ? 1 : -1;
	return strcmp(a->cpus, b->cpus);
}

/* Settings first, read order (the place in the array) last. */
static int prolasso_compare_proc(const void *a, const void *b)
{
	const struct prolasso_proc *x = *(const struct prolasso_proc *const *)a;
	const struct prolasso_proc *y = *(const struct prolasso_proc *const *)b;
	int c = prolasso_compare_settings(x, y);

	return c ? c : (x > y) - (x < y);
}

static int prolasso_compare_group(const void *a, const void *b)
{
	const struct prolasso_group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* The processes of the same settings as one group each, in the order
 * their first process was read: sorted, not compared with every group
 * (O(n log n) for any input). */
static size_t prolasso_group(const struct prolasso_job *j,
			     struct prolasso_group **out)
{
	const struct prolasso_proc **order =
		xcalloc(j->count + 1, sizeof(*order));
	struct prolasso_group *groups = xcalloc(j->count + 1, sizeof(*groups));
	size_t count = 0;

	for (size_t i = 0; i < j->count; i++)
		order[i] = &j->procs[i];
	qsort(order, j->count, sizeof(*order), prolasso_compare_proc);
	for (size_t i = 0, run; i < j->count; i = run) {
		struct prolasso_group *g = &groups[count++];

		for (run = i + 1;
		     run < j->count &&
		     prolasso_compare_settings(order[run], order[i]) == 0;
		     run++)
			;
		*g = (struct prolasso_group){
			.first = order[i],
			.members = xcalloc(run - i, sizeof(*g->members)),
			.raises = prolasso_raises(order[i]),
		};
		for (size_t k = i; k < run; k++)
			g->members[g->count++] = (size_t)(order[k] - j->procs);
	}
	qsort(groups, count, sizeof(*groups), prolasso_compare_group);
	free(order);
	*out = groups;
	return count;
}

static void prolasso_write_list(FILE *out, const struct prolasso_job *j,
				const struct prolasso_group *g, bool names)
{
	if (g->count > 1)
		fprintf(out, "[ ");
	for (size_t i = 0; i < g->count; i++) {
		const struct prolasso_proc *p = &j->procs[g->members[i]];

		if (i)
			fprintf(out, ",\n%s",
				names ? "                       "
				      : "               ");
		quote_write(out, names ? p->name : p->source, QUOTE_ALL,
			    QUOTE_MODE_CONFIG);
	}
	if (g->count > 1)
		fprintf(out, " ]");
}

static void prolasso_write_rule(FILE *out, const struct prolasso_job *j,
				const struct prolasso_group *g, size_t n,
				const struct ananicy_options *opt)
{
	const struct prolasso_proc *p = g->first;

	fprintf(out, "  { name = \"prolasso.%zu\";\n    match = { name = ", n);
	prolasso_write_list(out, j, g, true);
	fprintf(out, ";");
	if (g->raises && (opt->user || opt->group)) {
		fprintf(out,
			"\n              %s = ", opt->user ? "user" : "group");
		quote_write(out, opt->user ? opt->user : opt->group, QUOTE_ALL,
			    QUOTE_MODE_CONFIG);
		fprintf(out, ";");
	}
	fprintf(out, " };\n");
	if (p->class || p->efficiency) {
		fprintf(out, "    priority = {");
		if (p->class)
			fprintf(out, " class = \"%s\";",
				rules_enum_name(RULES_ENUM_CLASS, p->class));
		if (p->efficiency)
			fprintf(out, " efficiency_mode = \"%s\";",
				rules_enum_name(RULES_ENUM_EFFICIENCY,
						p->efficiency));
		fprintf(out, " };\n");
	}
	/* Process Lasso's CPU Sets are soft, as Windows's are: hard =
	 * false keeps them so; an affinity is cpus' default, hard. */
	if (p->cpus[0])
		fprintf(out, "    placement = { cpus = \"%s\";%s };\n", p->cpus,
			p->cpus_hard ? "" : " hard = false;");
	if (g->raises && !opt->user && !opt->group && opt->allow_spoofable)
		fprintf(out, "    # Raises, and any program can be given an "
			     "image name: chosen with --allow-spoofable.\n"
			     "    allow_spoofable = true;\n");
	fprintf(out, "    source = ");
	prolasso_write_list(out, j, g, false);
	fprintf(out, ";\n  }");
}

static bool prolasso_left_out(const struct prolasso_group *g,
			      const struct ananicy_options *opt)
{
	return g->raises && !opt->user && !opt->group && !opt->allow_spoofable;
}

static void prolasso_write_left_out(FILE *out, const struct prolasso_job *j,
				    const struct prolasso_group *g, size_t n,
				    const struct ananicy_options *opt)
{
	struct memstream m;
	FILE *f = memstream_open(&m);
	char *text, *line;
	size_t len;

	fprintf(out,
		"\n# Left out: \"prolasso.%zu\"\n# raises priority and "
		"matches only on an image name, which any user\n# can "
		"give a program. Import again with --user NAME or "
		"--group NAME\n# (who may have it) or --allow-spoofable "
		"(anyone).\n",
		n);
	if (!f)
		return;
	prolasso_write_rule(f, j, g, n, opt);
	fputc('\n', f);
	text = memstream_close(&m, &len);
	for (line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		int n_line = (int)(nl ? nl - line : (long)strlen(line));

		fprintf(out, "#%.*s\n", n_line, line);
		line = nl ? nl + 1 : line + strlen(line);
	}
	free(text);
}

static void prolasso_count(struct prolasso_result *res,
			   const struct prolasso_group *g,
			   const struct ananicy_options *opt)
{
	res->processes += g->count;
	if (prolasso_left_out(g, opt))
		res->left_out += g->count;
	else if (g->raises && (opt->user || opt->group))
		res->narrowed += g->count;
	else if (g->raises)
		res->opted_in += g->count;
	if (!prolasso_left_out(g, opt))
		res->groups++;
}

static void prolasso_write(struct prolasso_job *j,
			   const struct ananicy_options *opt)
{
	struct prolasso_group *groups;
	size_t count = prolasso_group(j, &groups);
	struct memstream m;
	FILE *out;
	bool first = true;

	if (count && (out = memstream_open(&m))) {
		/* A comment escapes nothing: the path is shown as a
		 * terminal would show it. */
		fprintf(out, "# Imported from Process Lasso's configuration by "
			     "cpupolicyctl import prolasso:\n# ");
		quote_write(out, j->path, QUOTE_ALL, QUOTE_MODE_DISPLAY);
		fprintf(out, "\n# For the Windows backend: check it with "
			     "--system windows.\nversion = 1;\nrules = (\n");
		for (size_t g = 0; g < count; g++) {
			prolasso_count(j->res, &groups[g], opt);
			if (prolasso_left_out(&groups[g], opt))
				continue;
			fprintf(out, "%s", first ? "" : ",\n");
			prolasso_write_rule(out, j, &groups[g], g + 1, opt);
			first = false;
		}
		fprintf(out, "%s);\n", first ? "" : "\n");
		for (size_t g = 0; g < count; g++) {
			if (prolasso_left_out(&groups[g], opt))
				prolasso_write_left_out(out, j, &groups[g],
							g + 1, opt);
		}
		j->res->file.name = xstrdup("50-prolasso.rules");
		j->res->file.text = memstream_close(&m, &j->res->file.len);
	}
	for (size_t g = 0; g < count; g++)
		free(groups[g].members);
	free(groups);
}

/* The text (UTF-8, see prolasso_decode) to one rule file. */
void prolasso_import(const char *path, const char *text, size_t len,
		     const struct ananicy_options *opt,
		     struct prolasso_result *res, struct diag *diag)
{
	struct prolasso_job j = {.path = path, .diag = diag, .res = res};

	*res = (struct prolasso_result){0};
	strmap_init(&j.by_key);
	strmap_init(&j.aliases);
	prolasso_read(&j, text, len);
	prolasso_write(&j, opt);
	ananicy_unmapped_sort(res->unmapped, &res->unmapped_count);
	for (size_t i = 0; i < j.count; i++) {
		free(j.procs[i].name);
		free(j.procs[i].key);
		free(j.procs[i].source);
	}
	free(j.procs);
	for (size_t i = 0; i < j.alias_count; i++)
		free(j.alias_texts[i]);
	free(j.alias_texts);
	strmap_free(&j.aliases);
	strmap_free(&j.by_key);
}

void prolasso_result_free(struct prolasso_result *res)
{
	free(res->file.name);
	free(res->file.text);
	for (size_t i = 0; i < res->unmapped_count; i++)
		free(res->unmapped[i].what);
	free(res->unmapped);
	*res = (struct prolasso_result){0};
}
