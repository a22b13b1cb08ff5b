/* The exec filter's plan: which execs the kernel must let through, from
 * each kind of rule; a superset of what the rules match, never less. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "execplan.h"
#include "os.h"
#include "pattern.h"
#include "util.h"

struct plan_case {
	const char *name;
	const char *match; /* a rule's match = { ... } */
	const char *plan;  /* execplan_print */
};

static const struct plan_case plan_cases[] = {
	{"literal exe: its file", "exe = \"/usr/bin/xz\";",
	 "path /usr/bin/xz\n"},
	{"literal exes, one twice",
	 "exe = [\"/usr/bin/xz\", \"/usr/bin/zstd\", \"/usr/bin/xz\"];",
	 "path /usr/bin/xz\npath /usr/bin/zstd\n"},
	{"glob in a directory: the basename", "exe = \"/usr/lib/gcc/*/cc1\";",
	 "name cc1\n"},
	{"glob basename: its literal end only ('*' may cross '/')",
	 "exe = \"/usr/bin/*-linux-gnu-as\";",
	 "affix name '' '-linux-gnu-as'\n"},
	{"bracket basename: start and end (no '/' there)",
	 "exe = \"/usr/bin/clang-[0-9][0-9]\";", "affix name 'clang-' ''\n"},
	{"trailing star: nothing known of the basename, its directory",
	 "exe = \"/usr/bin/clang-[0-9]*\";", "dir /usr/bin\n"},
	{"'?' may match '/': the end only", "exe = \"/opt/a?b\";",
	 "affix name '' 'b'\n"},
	{"negated bracket may match '/': the end only",
	 "exe = \"/opt/x[!a]y\";", "affix name '' 'y'\n"},
	{"a bracket holding '/' before the last part: the end only",
	 "exe = \"/opt/[a/]b\";", "affix name '' 'b'\n"},
	{"a bracket left of a literal '/' changes nothing",
	 "exe = \"/opt/[ab]/cc1\";", "name cc1\n"},
	{"[[:punct:]] may match '/': the end only",
	 "exe = \"/opt/a[[:punct:]]b\";", "affix name '' 'b'\n"},
	{"[[:graph:]] may match '/': the end only",
	 "exe = \"/opt/a[[:graph:]]b\";", "affix name '' 'b'\n"},
	{"[[:print:]] may match '/': the end only",
	 "exe = \"/opt/a[[:print:]]b\";", "affix name '' 'b'\n"},
	{"a range across '/' may match it: the end only",
	 "exe = \"/opt/x[--0]y\";", "affix name '' 'y'\n"},
	{"a class without '/': start and end", "exe = \"/opt/a[[:alpha:]]b\";",
	 "affix name 'a' 'b'\n"},
	{"a quoted '/' is a separator", "exe = \"/opt/x\\\\/c[0-9]d\";",
	 "affix name 'c' 'd'\n"},
	{"a star alone: its directory", "exe = \"/opt/*\";", "dir /opt\n"},
	{"the directory of the literal start, deep",
	 "exe = \"/opt/vendor/app*/bin/*\";", "dir /opt/vendor\n"},
	{"a quoted character in the directory", "exe = \"/opt/v\\\\*x/*\";",
	 "dir /opt/v*x\n"},
	{"a directory twice, once", "exe = [\"/opt/a/*\", \"/opt/a/b*\"];",
	 "dir /opt/a\n"},
	{"under the root: every exec", "exe = \"/*\";", "all (rule r)\n"},
	{"one value undecidable: every exec",
	 "exe = [\"/usr/bin/xz\", \"/o*\"];", "all (rule r)\n"},
	{"exe undecidable, name decides", "exe = \"/o*\"; name = \"game\";",
	 "comm game\n"},
	{"exact name", "name = \"game\";", "comm game\n"},
	{"long name cut as the kernel cuts it",
	 "name = \"a-very-long-process-name\";", "comm a-very-long-pro\n"},
	{"name glob: start and end", "name = \"kworker*x\";",
	 "affix comm 'kworker' 'x'\n"},
	{"name glob without literal ends", "name = \"*\";", "all (rule r)\n"},
	{"cmdline only: every exec", "cmdline = \"* --batch*\";",
	 "all (rule r)\n"},
	{"user only: every exec", "user = 0;", "all (rule r)\n"},
	{"exe with other keys: the exe decides",
	 "exe = \"/usr/bin/java\"; cmdline = \"*Indexer*\"; user = 0;",
	 "path /usr/bin/java\n"},
	{"long basename: its directory",
	 "exe = \"/opt/*/"
	 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	 "\";",
	 "dir /opt\n"},
	{"long affix: cut to its last 32 bytes",
	 "exe = \"/opt/*-0123456789012345678901234567890123456789\";",
	 "affix name '' '89012345678901234567890123456789'\n"},
};

static char *plan_text(const char *match)
{
	char *text =
		xasprintf("version = 1;\nrules = ( { name = \"r\"; match = "
			  "{ %s }; priority = { nice = 5; }; } );\n",
			  match);
	struct rules rules;
	struct execplan plan;
	struct memstream ms;
	struct diag diag;
	size_t len;
	char *out;
	FILE *f;

	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* the filter is Linux's */
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	execplan_build(&plan, &rules);
	f = memstream_open(&ms);
	execplan_print(&plan, f);
	out = memstream_close(&ms, &len);
	execplan_free(&plan);
	diag_free(&diag);
	rules_free(&rules);
	free(text);
	return out;
}

static void test_plan_case(void **state)
{
	const struct plan_case *c = *state;
	char *got = plan_text(c->match);

	assert_string_equal(got, c->plan);
	free(got);
}

/* Whatever the pattern, an exe it matches passes the plan's check of
 * the basename: the superset the kernel relies on. */
static void test_superset(void **state)
{
	static const struct {
		const char *pattern, *exe;
	} pairs[] = {
		{"/usr/lib/gcc/*/cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"},
		{"/usr/bin/*-linux-gnu-as", "/usr/bin/x86_64-linux-gnu-as"},
		{"/usr/bin/*-linux-gnu-as", "/usr/bin/a/b/x-linux-gnu-as"},
		{"/opt/a?b", "/opt/a/b"},
		{"/opt/x[!a]y", "/opt/x/y"},
		{"/usr/bin/clang-[0-9][0-9]", "/usr/bin/clang-14"},
		{"/opt/vendor/*", "/opt/vendor/bin/x"},
		{"/opt/vendor/app*/bin/*", "/opt/vendor/app2/bin/x"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
		char *match = xasprintf("exe = \"%s\";", pairs[i].pattern);
		char *plan = plan_text(match);
		const char *base = strrchr(pairs[i].exe, '/') + 1;
		char prefix[40] = "", suffix[40] = "";

		assert_true(pattern_match(pairs[i].pattern, pairs[i].exe));
		if (strncmp(plan, "name ", 5) == 0) {
			plan[strlen(plan) - 1] = '\0';
			assert_string_equal(plan + 5, base);
		} else if (strncmp(plan, "dir ", 4) == 0) {
			plan[strlen(plan) - 1] = '\0';
			assert_true(strncmp(pairs[i].exe, plan + 4,
					    strlen(plan + 4)) == 0);
			assert_int_equal(pairs[i].exe[strlen(plan + 4)], '/');
		} else {
			assert_int_equal(
				sscanf(plan, "affix name '%39[^']' '%39[^']'",
				       prefix, suffix) >= 0,
				1);
			sscanf(plan, "affix name '' '%39[^']'", suffix);
			assert_true(strncmp(base, prefix, strlen(prefix)) == 0);
			assert_true(strlen(base) >= strlen(suffix));
			assert_string_equal(
				base + strlen(base) - strlen(suffix), suffix);
		}
		free(plan);
		free(match);
	}
}

/* What the kernel lets through for an exec of path by a process named
 * comm (execfilter.bpf.c's judge over the plan's keys): the file of a
 * literal exe (here: the same path), a basename too long to judge, an
 * exact basename or name, a glob's literal start (in the trie of
 * starts), or its literal end when it has no start (the trie of ends),
 * a directory the path lies under (the walk of its dentries). */
static bool kernel_sends(const struct execplan *plan, const char *path,
			 const char *comm)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (plan->all || execplan_list_has(&plan->paths, path) ||
	    strlen(base) >= EXECPLAN_NAME_MAX ||
	    execplan_list_has(&plan->names, base) ||
	    execplan_list_has(&plan->comms, comm))
		return true;
	for (size_t i = 0; i < plan->affix_count; i++) {
		const struct execplan_affix *a = &plan->affixes[i];
		const char *name = a->comm ? comm : base;
		size_t len = strlen(name), plen = strlen(a->prefix),
		       slen = strlen(a->suffix);

		if (plen ? strncmp(name, a->prefix, plen) == 0
			 : len >= slen &&
				    strcmp(name + len - slen, a->suffix) == 0)
			return true;
	}
	for (size_t i = 0; i < plan->dirs.count; i++) {
		const char *dir = plan->dirs.values[i];
		size_t len = strlen(dir);

		if (strncmp(path, dir, len) == 0 && path[len] == '/')
			return true;
	}
	return false;
}

/* A fixed sequence: the same cases every run. */
static uint32_t gen_next(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Pattern elements: the ones that mean something to the plan, above all
 * the classes and ranges that may match '/' and those that may not. */
static const char *const gen_elements[] = {
	"a",	       "b",	      ".",	     "-",
	"/",	       "/",	      "*",	     "?",
	"[ab]",	       "[!a]",	      "[^/]",	     "[--0]",
	"[.-0]",       "[!-/]",	      "[/]",	     "[]a]",
	"[a-c]",       "[[:punct:]]", "[[:graph:]]", "[[:print:]]",
	"[[:alpha:]]", "[[:alnum:]]", "[[:space:]]", "\\/",
	"\\*",	       "\\a",	      "[\\/]",	     "[a/]",
};
static const char gen_chars[] = "ab/.-Z0]!";

static void gen_pattern(uint32_t *seed, char *out, size_t size)
{
	size_t n = 1 + gen_next(seed) % 7;

	snprintf(out, size, "%s", gen_next(seed) % 5 ? "/" : "");
	for (size_t i = 0; i < n; i++)
		strncat(out,
			gen_elements[gen_next(seed) % (sizeof(gen_elements) /
						       sizeof(*gen_elements))],
			size - strlen(out) - 1);
}

/* A text the pattern is likely to match: each element replaced by a
 * character it matches (pattern_element says which), '*' by a few. */
static void gen_text(uint32_t *seed, const char *pattern, char *out,
		     size_t size)
{
	size_t len = 0;

	for (const char *p = pattern; *p && len + 4 < size;) {
		const char *at = p;

		if (*p == '*') {
			for (size_t k = gen_next(seed) % 4; k; k--)
				out[len++] = gen_chars[gen_next(seed) %
						       (sizeof(gen_chars) - 1)];
			p++;
			continue;
		}
		for (int tries = 0; tries < 16; tries++) {
			char c = gen_chars[gen_next(seed) %
					   (sizeof(gen_chars) - 1)];

			p = at;
			if (pattern_element(&p, (unsigned char)c, 0)) {
				out[len++] = c;
				break;
			}
		}
		if (p == at)
			break;
	}
	out[len] = '\0';
}

static struct execplan plan_of(const char *exe, const char *name)
{
	char *exe_values[] = {(char *)exe}, *name_values[] = {(char *)name};
	struct rule rule = {.name = "r"};
	struct rules rules = {.list = &rule, .count = 1};
	struct execplan plan;

	rule.match.exe = (struct rule_patterns){.values = exe_values,
						.count = exe ? 1 : 0};
	rule.match.name = (struct rule_patterns){.values = name_values,
						 .count = name ? 1 : 0};
	execplan_build(&plan, &rules);
	return plan;
}

/* On generated patterns and texts, as the matcher was checked against
 * fnmatch: whenever the matcher matches an exe (or a process name), the
 * kernel, judging by the plan, sends the exec. */
static void test_follows_matcher(void **state)
{
	uint32_t seed = 7;
	size_t matched = 0;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char pattern[128], text[64], why[128];
		struct execplan plan;
		bool as_name = gen_next(&seed) % 4 == 0;

		gen_pattern(&seed, pattern, sizeof(pattern));
		if (pattern_check(pattern, why, sizeof(why)) < 0)
			continue;
		gen_text(&seed, pattern, text, sizeof(text));
		if (!pattern_match(pattern, text))
			continue;
		matched++;
		plan = plan_of(as_name ? NULL : pattern,
			       as_name ? pattern : NULL);
		if (!kernel_sends(&plan, as_name ? "/x/y" : text,
				  as_name ? text : "comm"))
			fail_msg("%s '%s' matches '%s', and the plan drops it",
				 as_name ? "name" : "exe", pattern, text);
		execplan_free(&plan);
	}
	assert_true(matched > 50000);
}

/* The shipped rules: none needs every exec, or the filter would save
 * nothing on a machine that runs them. */
static void test_shipped_rules(void **state)
{
	char *dirs[] = {SRCDIR "/rules"};
	struct rules rules;
	struct execplan plan;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, dirs, 1, true, &diag), 0);
	assert_int_equal(diag.errors, 0);
	execplan_build(&plan, &rules);
	assert_false(plan.all);
	assert_true(plan.paths.count > 0);
	assert_true(plan.affix_count <= EXECPLAN_AFFIXES);
	execplan_free(&plan);
	diag_free(&diag);
	rules_free(&rules);
}

/* What check says of a rule the kernel cannot judge, value by value;
 * nothing of one it can. */
static void test_unjudged(void **state)
{
	char *exe_bad[] = {"/opt/*", "/*vendor*"}, *name_bad[] = {"*"};
	struct rule rule = {.name = "r"};
	char why[512];

	(void)state;
	rule.match.exe = (struct rule_patterns){.values = exe_bad, .count = 1};
	assert_false(execplan_unjudged(&rule, why, sizeof(why)));
	rule.match.exe.count = 2;
	rule.match.name =
		(struct rule_patterns){.values = name_bad, .count = 1};
	assert_true(execplan_unjudged(&rule, why, sizeof(why)));
	assert_string_equal(why, "match.exe \"/*vendor*\" names no file, "
				 "basename, literal start or end, or directory "
				 "past the root; match.name \"*\" names no "
				 "file, basename, literal start or end, or "
				 "directory past the root");
	rule.match.exe.count = 0;
	rule.match.name.count = 0;
	assert_true(execplan_unjudged(&rule, why, sizeof(why)));
	assert_string_equal(why, "it matches on neither exe nor name");
}

/* Trimmed once the kernel has the keys: nothing of them is kept, the
 * judgement is, for status. */
static void test_trim(void **state)
{
	static const char text[] =
		"rules = ( { name = \"a\"; match = { exe = \"/usr/bin/a\"; "
		"}; },\n{ name = \"b\"; match = { name = \"b\"; }; },\n"
		"{ name = \"c\"; match = { cmdline = \"*x*\"; }; } );\n";
	struct rules rules;
	struct execplan plan;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	execplan_build(&plan, &rules);
	assert_int_equal(plan.paths.count, 1);
	assert_int_equal(plan.comms.count, 1);
	assert_true(plan.all);
	execplan_trim(&plan);
	assert_int_equal(plan.paths.count + plan.names.count + plan.comms.count,
			 0);
	assert_null(plan.paths.values);
	assert_null(plan.affixes);
	assert_true(plan.all);
	assert_string_equal(plan.all_rule, "c");
	execplan_free(&plan);
	diag_free(&diag);
	rules_free(&rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_superset),
		cmocka_unit_test(test_follows_matcher),
		cmocka_unit_test(test_shipped_rules),
		cmocka_unit_test(test_unjudged),
		cmocka_unit_test(test_trim),
	};

	return unit_run("execplan", UNIT_TABLE(plan_cases, test_plan_case),
			UNIT_TESTS(tests), NULL, NULL);
}
