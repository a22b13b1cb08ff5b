/* The read-back of an import: its files loaded as the daemon would load
 * them (one rule set, for the system they are for), then held against
 * what the import said it wrote. Whatever the writer missed, a rule it
 * did not count or a raise its options did not allow is refused here. */
#include <stdbool.h>
#include <string.h>

#include "importcheck.h"

/* The parser's errors, not its warnings: an opted-in rule is warned
 * about once per rule, which the import has said already. */
#define IMPORTCHECK_MAX_ERRORS 20

/* A comment escapes nothing and a string the writer escaped holds no
 * control byte: a raw one is a string that reached the file unescaped. */
static void importcheck_bytes(const struct ananicy_file *file,
			      struct diag *diag)
{
	unsigned line = 1;

	for (size_t i = 0; i < file->len; i++) {
		unsigned char c = (unsigned char)file->text[i];

		if (c == '\n') {
			line++;
		} else if (c < 0x20 || c == 0x7f) {
			diag_error(diag, file->name, line,
				   "control byte 0x%02x in the output: a "
				   "string reached it unescaped",
				   c);
			return;
		}
	}
}

static bool importcheck_one(const struct rule_ids *ids, const char *name)
{
	return ids->count == 1 && strcmp(ids->values[0].name, name) == 0;
}

/* What the options let a raising rule be: limited to the one user or
 * group, or opted in with allow_spoofable. */
static bool importcheck_allowed(const struct rule *rule,
				const struct ananicy_options *opt)
{
	if (opt->user)
		return importcheck_one(&rules_match_more(&rule->match)->user,
				       opt->user);
	if (opt->group)
		return importcheck_one(&rules_match_more(&rule->match)->group,
				       opt->group);
	return opt->allow_spoofable && rule->allow_spoofable;
}

static void importcheck_raising(const struct rules *rules,
				const struct ananicy_options *opt,
				struct diag *diag)
{
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];

		if (!rules_raises(r) || importcheck_allowed(r, opt))
			continue;
		diag_error(diag, r->file, r->line, "rule '%s' raises, which %s",
			   r->name,
			   opt->user	? "only a rule limited to --user may"
			   : opt->group ? "only a rule limited to --group may"
			   : opt->allow_spoofable
				   ? "only a rule with allow_spoofable may"
				   : "no imported rule may without --user, "
				     "--group or --allow-spoofable");
	}
}

/* 0: the files load exactly the counted rules, raising only as allowed;
 * -1: they do not, and the errors say why (label names the output). */
int importcheck_files(const struct ananicy_file *files, size_t count,
		      enum rules_system system,
		      const struct ananicy_options *opt, size_t counted,
		      const char *label, struct diag *diag)
{
	size_t errors = diag->errors;
	struct diag parsed;
	struct rules rules;

	rules_init(&rules);
	rules.system = system;
	diag_init(&parsed);
	for (size_t i = 0; i < count; i++) {
		importcheck_bytes(&files[i], diag);
		rules_load_text(&rules, files[i].name, files[i].text,
				files[i].len, &parsed);
	}
	for (size_t i = 0, shown = 0;
	     i < parsed.count && shown < IMPORTCHECK_MAX_ERRORS; i++) {
		const struct diag_entry *e = &parsed.entries[i];

		if (e->severity != DIAG_SEVERITY_ERROR)
			continue;
		diag_copy(diag, e);
		shown++;
	}
	if (parsed.errors > IMPORTCHECK_MAX_ERRORS)
		diag_error(diag, label, 0, "and %zu more errors",
			   parsed.errors - IMPORTCHECK_MAX_ERRORS);
	importcheck_raising(&rules, opt, diag);
	if (rules.count != counted)
		diag_error(diag, label, 0,
			   "the output loads %zu rules, the import wrote %zu",
			   rules.count, counted);
	diag_free(&parsed);
	rules_free(&rules);
	return diag->errors > errors ? -1 : 0;
}
