/* The exec filter's plan: which execs the kernel must let through, from
 * each kind of rule; a superset of what the rules match, never less. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
	{"trailing star: nothing known of the basename",
	 "exe = \"/usr/bin/clang-[0-9]*\";", "all (rule r)\n"},
	{"'?' may match '/': the end only", "exe = \"/opt/a?b\";",
	 "affix name '' 'b'\n"},
	{"negated bracket may match '/': the end only",
	 "exe = \"/opt/x[!a]y\";", "affix name '' 'y'\n"},
	{"a '[' left of the last '/' may hold it", "exe = \"/opt/[a/]b\";",
	 "all (rule r)\n"},
	{"a star alone: every exec", "exe = \"/opt/*\";", "all (rule r)\n"},
	{"one value undecidable: every exec",
	 "exe = [\"/usr/bin/xz\", \"/opt/*\"];", "all (rule r)\n"},
	{"exe undecidable, name decides", "exe = \"/opt/*\"; name = \"game\";",
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
	{"long basename: every exec",
	 "exe = \"/opt/*/"
	 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	 "\";",
	 "all (rule r)\n"},
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
		cmocka_unit_test(test_shipped_rules),
		cmocka_unit_test(test_trim),
	};

	return unit_run("execplan", UNIT_TABLE(plan_cases, test_plan_case),
			UNIT_TESTS(tests), NULL, NULL);
}
