/* Matching: first match in rule order, every key, the exe/name index, and
 * that facts are fetched only when a candidate rule needs them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "match.h"

static const char rules_text[] =
	"rules = (\n"
	"{ name = \"xz\"; match = { exe = \"/usr/bin/xz\"; }; },\n"
	"{ name = \"xz-root\"; match = { exe = \"/usr/bin/xz\"; user = 0; }; "
	"},\n"
	"{ name = \"gcc\"; match = { exe = \"/usr/lib/gcc/*/cc1\"; }; },\n"
	"{ name = \"game\"; match = { name = [\"game\", \"game2\"]; user = 1; "
	"}; },\n"
	"{ name = \"svc\"; match = { cgroup = \"/system.slice/svc.service\"; "
	"}; },\n"
	"{ name = \"grp\"; match = { group = 100; cmdline = \"* --batch*\"; }; "
	"},\n"
	"{ name = \"child\"; match = { parent_exe = \"/usr/bin/make\"; name = "
	"\"sh\"; }; },\n"
	"{ name = \"java\"; match = { exe = \"/usr/bin/java\"; cmdline = "
	"\"*Indexer*\"; }; },\n"
	"{ name = \"name-late\"; match = { name = \"xz\"; }; }\n"
	");\n";

struct fake {
	struct facts truth;
	unsigned unreadable;
	unsigned fetched; /* bits asked for */
};

static void fake_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	struct fake *fake = ctx;
	unsigned have = facts->have, failed = facts->failed;

	fake->fetched |= wanted;
	*facts = fake->truth;
	facts->have = have | (wanted & ~fake->unreadable);
	facts->failed = failed | (wanted & fake->unreadable);
}

struct match_case {
	const char *name;
	struct facts truth;
	unsigned unreadable;
	const char *expected; /* NULL: no rule */
	unsigned not_fetched; /* facts that must not have been read */
};

static const struct match_case match_cases[] = {
	{"exact exe",
	 {.exe = "/usr/bin/xz", .comm = "xz", .uid = 1000},
	 0,
	 "xz",
	 MATCH_FACT_CMDLINE | MATCH_FACT_CGROUP | MATCH_FACT_CREDS},
	{"first rule wins over a later narrower one",
	 {.exe = "/usr/bin/xz", .uid = 0},
	 0,
	 "xz",
	 MATCH_FACT_CREDS},
	{"glob exe",
	 {.exe = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", .comm = "cc1"},
	 0,
	 "gcc",
	 0},
	{"name is not exe",
	 {.exe = "/tmp/fake/xz", .comm = "xz"},
	 0,
	 "name-late",
	 0},
	{"name and user",
	 {.exe = "/opt/game", .comm = "game2", .uid = 1},
	 0,
	 "game",
	 0},
	{"name but not user",
	 {.exe = "/opt/game", .comm = "game", .uid = 2},
	 0,
	 NULL,
	 0},
	{"cgroup among several",
	 {.exe = "/usr/sbin/svc",
	  .comm = "svc",
	  .cgroups = "/\n/system.slice/svc.service\n"},
	 0,
	 "svc",
	 0},
	{"supplementary group and cmdline",
	 {.exe = "/usr/bin/tool",
	  .comm = "tool",
	  .gid = 5,
	  .groups = {7, 100},
	  .group_count = 2,
	  .cmdline = "tool --batch --x"},
	 0,
	 "grp",
	 0},
	{"group matches but cmdline does not",
	 {.exe = "/usr/bin/tool",
	  .comm = "tool",
	  .gid = 100,
	  .cmdline = "tool --interactive"},
	 0,
	 NULL,
	 0},
	{"parent exe",
	 {.exe = "/usr/bin/dash", .comm = "sh", .parent_exe = "/usr/bin/make"},
	 0,
	 "child",
	 0},
	{"exe and cmdline",
	 {.exe = "/usr/bin/java", .comm = "java", .cmdline = "java Indexer"},
	 0,
	 "java",
	 0},
	{"unreadable exe skips exe rules",
	 {.exe = "/usr/bin/xz", .comm = "xz"},
	 MATCH_FACT_EXE,
	 "name-late",
	 0},
	{"kernel thread", {.comm = "kworker/0:1"}, MATCH_FACT_EXE, NULL, 0},
	{"exe is another file under the same name",
	 {.exe = "/usr/bin/java",
	  .exe_file = MATCH_FILE_OTHER,
	  .comm = "java",
	  .cmdline = "java Indexer"},
	 0,
	 NULL,
	 0},
	{"another file: a name rule may still match",
	 {.exe = "/usr/bin/xz", .exe_file = MATCH_FILE_OTHER, .comm = "xz"},
	 0,
	 "name-late",
	 0},
	{"glob exe, another file",
	 {.exe = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
	  .exe_file = MATCH_FILE_OTHER,
	  .comm = "cc1"},
	 0,
	 NULL,
	 0},
	{"replaced by an upgrade",
	 {.exe = "/usr/bin/xz", .exe_file = MATCH_FILE_REPLACED, .comm = "xz"},
	 0,
	 "xz",
	 0},
	{"deleted, no older version",
	 {.exe = "/usr/bin/xz", .exe_file = MATCH_FILE_DELETED, .comm = "x"},
	 0,
	 NULL,
	 0},
	{"path names nothing here",
	 {.exe = "/usr/bin/xz", .exe_file = MATCH_FILE_UNSEEN, .comm = "x"},
	 0,
	 NULL,
	 0},
	{"file unreadable",
	 {.exe = "/usr/bin/xz", .comm = "x"},
	 MATCH_FACT_EXE_FILE,
	 NULL,
	 0},
	{"parent exe is another file",
	 {.exe = "/usr/bin/dash",
	  .comm = "sh",
	  .parent_exe = "/usr/bin/make",
	  .parent_exe_file = MATCH_FILE_OTHER},
	 0,
	 NULL,
	 0},
	{"no exe path matches: its file is not looked at",
	 {.exe = "/usr/bin/true", .comm = "xz"},
	 0,
	 "name-late",
	 MATCH_FACT_EXE_FILE | MATCH_FACT_PARENT_EXE_FILE},
	{"nothing matches",
	 {.exe = "/usr/bin/true", .comm = "true", .cgroups = "/\n"},
	 0,
	 NULL,
	 MATCH_FACT_PARENT_EXE},
};

static struct rules test_rules;
static struct match_index test_index;

static int setup(void **state)
{
	struct diag diag;

	(void)state;
	rules_init(&test_rules);
	/* Linux paths and a cgroup: the same on both systems' builds. */
	test_rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&test_rules, "t.rules", rules_text, strlen(rules_text),
			&diag);
	diag_print(&diag, stderr, false);
	if (diag.errors)
		return -1;
	diag_free(&diag);
	match_index_build(&test_index, &test_rules);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	match_index_free(&test_index);
	rules_free(&test_rules);
	return 0;
}

static void test_match_case(void **state)
{
	const struct match_case *c = *state;
	struct fake fake = {.truth = c->truth, .unreadable = c->unreadable};
	struct facts facts = {0};
	long rule = match_first(&test_index, &facts, fake_fetch, &fake);

	if (!c->expected) {
		if (rule >= 0)
			fail_msg("%s: matched '%s'", c->name,
				 test_rules.list[rule].name);
	} else {
		assert_true(rule >= 0);
		assert_string_equal(test_rules.list[rule].name, c->expected);
	}
	assert_int_equal(fake.fetched & c->not_fetched, 0);
}

static void test_index_shape(void **state)
{
	(void)state;
	/* xz, xz-root and java by exe; gcc by its exe's literal start;
	 * game, child and name-late by name; grp by its command line's
	 * literal run; svc (a cgroup alone) scanned. */
	assert_int_equal(test_index.by[MATCH_ON_EXE].exact.count, 2);
	assert_int_equal(test_index.by[MATCH_ON_EXE].starts.count,
			 strlen("/usr/lib/gcc/") + 1);
	assert_int_equal(test_index.by[MATCH_ON_NAME].exact.count, 4);
	assert_int_equal(test_index.by[MATCH_ON_CMDLINE].runs.trie.count,
			 strlen(" --batch") + 1);
	assert_int_equal(test_index.scan_count, 1);
}

static void test_explanation(void **state)
{
	struct fake fake = {
		.truth = {.exe = "/usr/bin/xz", .uid = 1000},
	};
	struct facts facts = {0};
	char why[512];

	(void)state;
	assert_false(match_rule(&test_rules.list[1], &facts, fake_fetch, &fake,
				why, sizeof(why)));
	assert_non_null(strstr(why, "exe '/usr/bin/xz' matches '/usr/bin/xz'"));
	assert_non_null(strstr(why, "uid 1000 is not one of the rule's"));
	facts.uid = 0;
	fake.truth.uid = 0;
	assert_true(match_rule(&test_rules.list[1], &facts, fake_fetch, &fake,
			       why, sizeof(why)));
	assert_non_null(strstr(why, "uid 0 is '0'"));
}

struct why_case {
	const char *name;
	enum match_file file;
	unsigned unreadable;
	bool matches;
	const char *why;
};

static const struct why_case why_cases[] = {
	{"same file", MATCH_FILE_SAME, 0, true,
	 "exe '/usr/bin/xz' matches '/usr/bin/xz'"},
	{"replaced", MATCH_FILE_REPLACED, 0, true,
	 "exe '/usr/bin/xz' matches '/usr/bin/xz'; the process runs an older "
	 "version of it, replaced since"},
	{"other", MATCH_FILE_OTHER, 0, false,
	 "exe '/usr/bin/xz' matches '/usr/bin/xz'; but the process runs "
	 "another file than /usr/bin/xz (a bind mount, an overlay, or another "
	 "mount namespace or root)"},
	{"deleted", MATCH_FILE_DELETED, 0, false,
	 "but the process runs a deleted file that is no older version of "
	 "/usr/bin/xz"},
	{"unseen", MATCH_FILE_UNSEEN, 0, false,
	 "but /usr/bin/xz names no file in the daemon's mount namespace"},
	{"unreadable", MATCH_FILE_SAME, MATCH_FACT_EXE_FILE, false,
	 "but the file the process runs could not be opened"},
};

/* What explain says of an exe whose path matched, for each verdict on its
 * file. */
static void test_why_file(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(why_cases) / sizeof(why_cases[0]); i++) {
		const struct why_case *c = &why_cases[i];
		struct fake fake = {
			.truth = {.exe = "/usr/bin/xz", .exe_file = c->file},
			.unreadable = c->unreadable,
		};
		struct facts facts = {0};
		char why[512];
		bool matched;

		matched = match_rule(&test_rules.list[0], &facts, fake_fetch,
				     &fake, why, sizeof(why));
		if (matched != c->matches || !strstr(why, c->why))
			fail_msg("%s: %s '%s', expected '%s'", c->name,
				 matched ? "matched" : "did not match", why,
				 c->why);
	}
}

/* 20,000 rules keyed on exact exes: a lookup tries only its own. */
static void test_large_index(void **state)
{
	size_t n = 20000, cap = n * 80 + 64, used = 0;
	char *text = malloc(cap);
	struct match_index index;
	struct rules rules;
	struct diag diag;
	struct fake fake = {.truth = {.exe = "/opt/p19999", .comm = "p"}};
	struct facts facts = {0};
	long rule;

	(void)state;
	used += (size_t)snprintf(text, cap, "rules = (\n");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, cap - used,
					 "{ name = \"r%zu\"; match = { exe = "
					 "\"/opt/p%zu\"; }; }%s\n",
					 i, i, i + 1 < n ? "," : "");
	snprintf(text + used, cap - used, ");\n");
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	match_index_build(&index, &rules);
	assert_int_equal(index.scan_count, 0);
	rule = match_first(&index, &facts, fake_fetch, &fake);
	assert_int_equal(rule, 19999);
	assert_int_equal(fake.fetched & ~(MATCH_FACT_EXE | MATCH_FACT_EXE_FILE),
			 0);
	match_index_free(&index);
	diag_free(&diag);
	rules_free(&rules);
	free(text);
}

/* Windows: exe and name compare as its file systems compare names
 * (ASCII case folded, '\\' and '/' alike), globs as on Linux. */
static const char windows_rules_text[] =
	"rules = (\n"
	"{ name = \"tool\"; match = { exe = \"C:/Program "
	"Files/Tool/tool.exe\"; "
	"}; },\n"
	"{ name = \"apps\"; match = { exe = "
	"\"C:\\\\Apps\\\\*\\\\bin\\\\*.exe\"; "
	"}; },\n"
	"{ name = \"share\"; match = { exe = "
	"\"\\\\\\\\srv\\\\share\\\\x.exe\"; }; },\n"
	"{ name = \"child\"; match = { parent_exe = "
	"\"c:\\\\build\\\\make.exe\"; "
	"name = \"sh.exe\"; }; },\n"
	"{ name = \"game\"; match = { name = \"Game*.exe\"; }; },\n"
	"{ name = \"linux\"; match = { exe = \"/*\"; }; }\n"
	");\n";

struct windows_case {
	const char *name;
	const char *exe, *comm, *parent_exe;
	const char *expected; /* NULL: no rule */
};

static const struct windows_case windows_cases[] = {
	{"backslashes for slashes", "C:\\Program Files\\Tool\\tool.exe",
	 "tool.exe", NULL, "tool"},
	{"another case", "c:\\PROGRAM FILES\\tool\\TOOL.EXE", "TOOL.EXE", NULL,
	 "tool"},
	{"an impostor of the same name elsewhere", "C:\\Users\\eve\\tool.exe",
	 "tool.exe", NULL, NULL},
	{"a longer name", "C:\\Program Files\\Tool\\tool.exe.bak",
	 "tool.exe.bak", NULL, NULL},
	{"a glob over folders", "c:\\apps\\Foo\\Bin\\Run.EXE", "Run.EXE", NULL,
	 "apps"},
	{"a glob that misses", "c:\\apps\\foo\\lib\\run.exe", "run.exe", NULL,
	 NULL},
	{"a share", "\\\\SRV\\Share\\X.exe", "X.exe", NULL, "share"},
	{"a share named with slashes", "//srv/share/x.exe", "x.exe", NULL,
	 "share"},
	{"parent exe folded", "C:\\tools\\sh.exe", "SH.EXE",
	 "C:/Build/MAKE.exe", "child"},
	{"a name glob", "D:\\games\\gamex.exe", "gameX.EXE", NULL, "game"},
	{"a name without the glob's end", "D:\\games\\game", "game", NULL,
	 NULL},
	{"a Linux glob reaches no share", "\\\\srv\\share\\y.exe", "y.exe",
	 NULL, NULL},
	{"a Linux glob reaches no drive", "C:\\y.exe", "y.exe", NULL, NULL},
};

static struct rules windows_rules;
static struct match_index windows_index;

static void windows_load(struct rules *rules, const char *text,
			 struct diag *diag)
{
	rules_init(rules);
	rules->system = RULES_SYSTEM_WINDOWS;
	diag_init(diag);
	rules_load_text(rules, "w.rules", text, strlen(text), diag);
}

static void test_windows_case(void **state)
{
	const struct windows_case *c = *state;
	struct fake fake = {0};
	struct facts facts = {0};
	long rule;

	snprintf(fake.truth.exe, sizeof(fake.truth.exe), "%s", c->exe);
	snprintf(fake.truth.comm, sizeof(fake.truth.comm), "%s", c->comm);
	if (c->parent_exe)
		snprintf(fake.truth.parent_exe, sizeof(fake.truth.parent_exe),
			 "%s", c->parent_exe);
	fake.unreadable = c->parent_exe ? 0 : MATCH_FACT_PARENT_EXE;
	rule = match_first(&windows_index, &facts, fake_fetch, &fake);
	if (!c->expected) {
		if (rule >= 0)
			fail_msg("%s: matched '%s'", c->name,
				 windows_rules.list[rule].name);
		return;
	}
	if (rule < 0)
		fail_msg("%s: matched nothing", c->name);
	assert_string_equal(windows_rules.list[rule].name, c->expected);
}

static int windows_setup(void **state)
{
	struct diag diag;

	(void)state;
	windows_load(&windows_rules, windows_rules_text, &diag);
	/* One warning, that the rule "linux" never matches here. */
	if (diag.errors || diag.warnings != 1) {
		diag_print(&diag, stderr, true);
		return -1;
	}
	diag_free(&diag);
	match_index_build(&windows_index, &windows_rules);
	return 0;
}

static int windows_teardown(void **state)
{
	(void)state;
	match_index_free(&windows_index);
	rules_free(&windows_rules);
	return 0;
}

static void test_windows_cases(void **state)
{
	(void)state;
	assert_int_equal(windows_setup(NULL), 0);
	for (size_t i = 0; i < sizeof(windows_cases) / sizeof(windows_cases[0]);
	     i++) {
		const struct windows_case *c = &windows_cases[i];

		test_windows_case((void **)&c);
	}
	/* tool and share by their folded exe, game and child scanned or
	 * by name: the literal exe is found through the index. */
	assert_non_null(strmap_get(&windows_index.by[MATCH_ON_EXE].exact,
				   "c:/program files/tool/tool.exe"));
	windows_teardown(NULL);
}

struct windows_check_case {
	const char *name;
	const char *match;   /* the match group's body */
	const char *message; /* NULL: loads clean */
	bool error;
};

static const struct windows_check_case windows_check_cases[] = {
	{"a drive with a slash", "exe = \"c:/x.exe\";", NULL, false},
	{"a drive with a backslash", "exe = \"C:\\\\x.exe\";", NULL, false},
	{"a share", "exe = \"\\\\\\\\srv\\\\share\\\\x.exe\";", NULL, false},
	{"a file name alone", "exe = \"x.exe\";", "is not an absolute path",
	 true},
	{"the current drive's root", "exe = \"\\\\tools\\\\x.exe\";",
	 "is not an absolute path", true},
	{"a drive's current folder", "exe = \"C:x.exe\";",
	 "is not an absolute path", true},
	{"a Linux path: a file for both systems", "exe = \"/usr/bin/x\";", NULL,
	 false},
	{"a device path", "exe = \"\\\\\\\\.\\\\C:\\\\x.exe\";",
	 "is not an absolute path", true},
	{"a backslash ends no glob here", "exe = \"C:\\\\tools\\\\\";", NULL,
	 false},
	{"a numeric user", "exe = \"C:/x.exe\"; user = 0;",
	 "Windows has no numeric user ids", true},
	{"cgroup refused", "exe = \"C:/x.exe\"; cgroup = \"/a\";",
	 "Windows has no cgroups", true},
};

static void test_windows_check(void **state)
{
	(void)state;
	for (size_t i = 0;
	     i < sizeof(windows_check_cases) / sizeof(windows_check_cases[0]);
	     i++) {
		const struct windows_check_case *c = &windows_check_cases[i];
		char text[512], line[512];
		struct rules rules;
		struct diag diag;
		bool found = false;

		snprintf(text, sizeof(text),
			 "rules = ({ name = \"r\"; match = { %s }; });\n",
			 c->match);
		windows_load(&rules, text, &diag);
		for (size_t e = 0; e < diag.count; e++) {
			diag_format(&diag.entries[e], line, sizeof(line));
			if (c->message && strstr(line, c->message))
				found = true;
		}
		if (!c->message ? diag.errors != 0
				: !found || (diag.errors != 0) != c->error) {
			diag_print(&diag, stderr, true);
			fail_msg("%s: %zu errors", c->name, diag.errors);
		}
		diag_free(&diag);
		rules_free(&rules);
	}
}

/* C:/x and c:\X are one exe: the second rule never matches. */
static void test_windows_same_exe(void **state)
{
	static const char text[] =
		"rules = (\n"
		"{ name = \"a\"; match = { exe = \"C:/Tools/x.exe\"; }; },\n"
		"{ name = \"b\"; match = { exe = \"c:\\\\TOOLS\\\\X.EXE\"; }; "
		"}\n"
		");\n";
	struct rules rules;
	struct diag diag;
	char line[512];

	(void)state;
	windows_load(&rules, text, &diag);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(diag.warnings, 1);
	diag_format(&diag.entries[0], line, sizeof(line));
	assert_non_null(strstr(line, "rule 'b' never matches"));
	diag_free(&diag);
	rules_free(&rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows_cases),
		cmocka_unit_test(test_windows_check),
		cmocka_unit_test(test_windows_same_exe),
		cmocka_unit_test(test_index_shape),
		cmocka_unit_test(test_explanation),
		cmocka_unit_test(test_why_file),
		cmocka_unit_test(test_large_index),
	};

	return unit_run("match", UNIT_TABLE(match_cases, test_match_case),
			UNIT_TESTS(tests), setup, teardown);
}
