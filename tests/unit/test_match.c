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
#include "rulesfix.h"

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
	assert_true(match_index_exact(&windows_index, MATCH_ON_EXE,
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

/* Rules of every index kind in one set, loaded for the tests below. */
static void index_load(struct rules *rules, struct match_index *index,
		       const char *text)
{
	rulesfix_load(rules, RULES_SYSTEM_LINUX, text);
	match_index_build(index, rules);
}

struct index_case {
	const char *name;
	struct facts truth;
	const char *expected; /* NULL: no rule */
	unsigned fetched;     /* facts that must have been read */
	unsigned not_fetched; /* facts that must not have been */
};

/* Each kind holds rules both before and after the others' in rule
 * order: the first match wins across them, and a scanned rule takes its
 * place among them. */
static const char index_rules_text[] =
	"rules = (\n"
	"{ name = \"root-job\"; match = { exe = \"/*\"; user = 0; }; },\n"
	"{ name = \"fast\"; match = { cmdline = \"* --fast*\"; }; },\n"
	"{ name = \"tool-end\"; match = { exe = \"/*/bin/tool\"; }; },\n"
	"{ name = \"vendor\"; match = { exe = \"/opt/vendor/*\"; }; },\n"
	"{ name = \"exact\"; match = { exe = \"/opt/other/bin/x\"; }; },\n"
	"{ name = \"worker\"; match = { name = \"*-worker\"; }; },\n"
	"{ name = \"multi\"; match = { exe = [\"/usr/bin/exact\", "
	"\"/srv/*\", \"/*/x.bin\"]; }; },\n"
	"{ name = \"kworker\"; match = { name = \"kw?rker*\"; }; },\n"
	"{ name = \"some-middle\"; match = { exe = [\"/usr/bin/y\", "
	"\"/*mid*\"]; }; },\n"
	"{ name = \"late-cmd\"; match = { cmdline = \"*--late=[0-9]\"; }; },\n"
	"{ name = \"any\"; match = { name = \"*\"; cmdline = \"*?*\"; }; }\n"
	");\n";

static const struct index_case index_cases[] = {
	{"a scanned rule before the index's",
	 {.exe = "/opt/vendor/bin/tool", .cmdline = "tool --fast", .uid = 0},
	 "root-job",
	 0,
	 0},
	{"a command line before exe rules",
	 {.exe = "/opt/vendor/bin/tool", .cmdline = "tool --fast", .uid = 1},
	 "fast",
	 MATCH_FACT_CMDLINE,
	 0},
	{"an end before a start",
	 {.exe = "/opt/vendor/bin/tool", .cmdline = "tool", .uid = 1},
	 "tool-end",
	 0,
	 0},
	{"a start",
	 {.exe = "/opt/vendor/lib/x", .cmdline = "x", .uid = 1},
	 "vendor",
	 0,
	 0},
	{"an exact exe among globs",
	 {.exe = "/opt/other/bin/x", .cmdline = "x", .uid = 1},
	 "exact",
	 0,
	 0},
	{"a name's end before exe rules after it",
	 {.exe = "/srv/a", .comm = "db-worker", .cmdline = "db", .uid = 1},
	 "worker",
	 0,
	 0},
	{"several exe shapes: the exact one",
	 {.exe = "/usr/bin/exact", .comm = "exact", .cmdline = "e", .uid = 1},
	 "multi",
	 0,
	 0},
	{"several exe shapes: the start",
	 {.exe = "/srv/app", .comm = "app", .cmdline = "app", .uid = 1},
	 "multi",
	 0,
	 0},
	{"several exe shapes: the end",
	 {.exe = "/home/x.bin", .comm = "x.bin", .cmdline = "x", .uid = 1},
	 "multi",
	 0,
	 0},
	{"'?' in a name's start",
	 {.exe = "/a", .comm = "kwyrker/0", .cmdline = "k", .uid = 1},
	 "kworker",
	 0,
	 0},
	{"a value with no literal: its rule scanned, still matched",
	 {.exe = "/a/mid/b", .comm = "b", .cmdline = "b", .uid = 1},
	 "some-middle",
	 0,
	 0},
	{"a bracket at a command line's end",
	 {.exe = "/a", .comm = "b", .cmdline = "b --late=7", .uid = 1},
	 "late-cmd",
	 0,
	 0},
	{"only wildcards",
	 {.exe = "/a", .comm = "b", .cmdline = "b --late=x", .uid = 1},
	 "any",
	 0,
	 0},
	{"nothing",
	 {.exe = "/a", .comm = "b", .cmdline = "", .uid = 1},
	 NULL,
	 0,
	 0},
};

static void test_index_case(const struct index_case *c,
			    const struct rules *rules,
			    const struct match_index *index)
{
	struct fake fake = {.truth = c->truth};
	struct facts facts = {0};
	long rule = match_first(index, &facts, fake_fetch, &fake);

	if (!c->expected && rule >= 0)
		fail_msg("%s: matched '%s'", c->name, rules->list[rule].name);
	if (c->expected && rule < 0)
		fail_msg("%s: matched nothing", c->name);
	if (c->expected)
		assert_string_equal(rules->list[rule].name, c->expected);
	if ((fake.fetched & c->fetched) != c->fetched ||
	    (fake.fetched & c->not_fetched))
		fail_msg("%s: fetched %#x", c->name, fake.fetched);
}

static void test_index_kinds(void **state)
{
	struct match_index index;
	struct rules rules;

	(void)state;
	index_load(&rules, &index, index_rules_text);
	/* root-job, some-middle and any: no literal in some key. */
	assert_int_equal(index.scan_count, 3);
	for (size_t i = 0; i < sizeof(index_cases) / sizeof(*index_cases); i++)
		test_index_case(&index_cases[i], &rules, &index);
	match_index_free(&index);
	rules_free(&rules);
}

/* An exact value held by one rule takes no bucket; one that several
 * rules hold (one of them twice, the first rule of the set) has one
 * bucket, and the first that matches still wins. */
static void test_index_exact_shared(void **state)
{
	static const char text[] =
		"rules = (\n"
		"{ name = \"twice\"; match = { exe = [\"/usr/bin/same\", "
		"\"/usr/bin/same\"]; user = 7; }; },\n"
		"{ name = \"alone\"; match = { exe = \"/usr/bin/alone\"; }; "
		"},\n"
		"{ name = \"first\"; match = { exe = \"/usr/bin/same\"; "
		"user = 1; }; },\n"
		"{ name = \"second\"; match = { exe = \"/usr/bin/same\"; }; }\n"
		");\n";
	static const struct index_case cases[] = {
		{"the first rule, its value twice",
		 {.exe = "/usr/bin/same", .uid = 7},
		 "twice",
		 0,
		 0},
		{"the next of the value's rules",
		 {.exe = "/usr/bin/same", .uid = 1},
		 "first",
		 0,
		 0},
		{"the last",
		 {.exe = "/usr/bin/same", .uid = 2},
		 "second",
		 0,
		 0},
		{"a value of one rule",
		 {.exe = "/usr/bin/alone"},
		 "alone",
		 0,
		 0},
		{"none", {.exe = "/usr/bin/other"}, NULL, 0, 0},
	};
	struct match_index index;
	struct rules rules;

	(void)state;
	index_load(&rules, &index, text);
	assert_int_equal(index.bucket_count, 1);
	assert_int_equal(index.buckets[0].count, 3);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		test_index_case(&cases[i], &rules, &index);
	match_index_free(&index);
	rules_free(&rules);
}

/* The command line, the dearest fact, is read only when the rule order
 * reaches a rule that needs it: not when an earlier rule matched, not
 * when no rule looks at it. */
static void test_index_lazy(void **state)
{
	static const char text[] =
		"rules = (\n"
		"{ name = \"bin\"; match = { exe = \"/usr/bin/*\"; }; },\n"
		"{ name = \"job\"; match = { cmdline = \"*--job*\"; }; },\n"
		"{ name = \"sbin\"; match = { exe = \"/usr/sbin/*\"; }; }\n"
		");\n";
	static const struct index_case cases[] = {
		{"matched before the command-line rules",
		 {.exe = "/usr/bin/a", .cmdline = "a --job"},
		 "bin",
		 MATCH_FACT_EXE,
		 MATCH_FACT_CMDLINE | MATCH_FACT_COMM},
		{"the command line read once they are reached",
		 {.exe = "/usr/sbin/a", .cmdline = "a --job"},
		 "job",
		 MATCH_FACT_CMDLINE,
		 MATCH_FACT_COMM},
		{"read, but no rule",
		 {.exe = "/usr/lib/a", .cmdline = "a"},
		 NULL,
		 MATCH_FACT_CMDLINE,
		 MATCH_FACT_COMM},
	};
	struct match_index index;
	struct rules rules;

	(void)state;
	index_load(&rules, &index, text);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		test_index_case(&cases[i], &rules, &index);
	match_index_free(&index);
	rules_free(&rules);
}

/* The empty pattern (which the rule files refuse, but the index must not
 * mistake): it matches the empty text alone. */
static void test_index_empty_pattern(void **state)
{
	static const char text[] =
		"rules = (\n"
		"{ name = \"empty-name\"; match = { name = \"x\"; }; },\n"
		"{ name = \"empty-cmd\"; match = { cmdline = \"x\"; }; }\n"
		");\n";
	static const struct index_case cases[] = {
		{"an empty name",
		 {.comm = "", .cmdline = "y"},
		 "empty-name",
		 0,
		 0},
		{"an empty command line",
		 {.comm = "y", .cmdline = ""},
		 "empty-cmd",
		 0,
		 0},
		{"neither", {.comm = "x", .cmdline = "x"}, NULL, 0, 0},
	};
	struct match_index index;
	struct rules rules;

	(void)state;
	index_load(&rules, &index, text);
	match_index_free(&index);
	for (size_t i = 0; i < rules.count; i++) {
		struct rule_patterns *p = i ? &rules.list[i].match.more->cmdline
					    : &rules.list[i].match.name;

		p->values[0] = (char *)""; /* its text stays in the block */
	}
	match_index_build(&index, &rules);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		test_index_case(&cases[i], &rules, &index);
	match_index_free(&index);
	rules_free(&rules);
}

/* What check says of the rules the index cannot find. */
static void test_unindexed(void **state)
{
	static const char text[] =
		"rules = (\n"
		"{ name = \"middle\"; match = { exe = [\"/opt/*\", "
		"\"/*foo*\"]; }; },\n"
		"{ name = \"anything\"; match = { name = \"*\"; cmdline = "
		"\"*?*\"; user = 0; }; },\n"
		"{ name = \"ids\"; match = { user = 0; }; },\n"
		"{ name = \"found\"; match = { exe = \"/*x*\"; name = \"a*\"; "
		"}; }\n"
		");\n";
	struct match_index index;
	struct rules rules;
	char why[512];

	(void)state;
	index_load(&rules, &index, text);
	assert_true(match_unindexed(&rules.list[0], why, sizeof(why)));
	assert_string_equal(why, "match.exe \"/*foo*\" has no literal start "
				 "past the root, and no literal end "
				 "(basename or suffix)");
	assert_true(match_unindexed(&rules.list[1], why, sizeof(why)));
	assert_string_equal(why, "match.name \"*\" has no literal prefix or "
				 "suffix; match.cmdline \"*?*\" has no "
				 "literal text");
	assert_true(match_unindexed(&rules.list[2], why, sizeof(why)));
	assert_string_equal(why, "it matches on none of exe, name and cmdline");
	/* The exe has no literal, the name has: found by its name. */
	assert_false(match_unindexed(&rules.list[3], why, sizeof(why)));
	assert_int_equal(index.scan_count, 3);
	match_index_free(&index);
	rules_free(&rules);
}

/* The index against a naive scan: for random rule sets of every shape
 * (literals, globs by their start, end or middle, '?', brackets,
 * command-line runs, folded Windows paths) and random processes, the
 * first match is the first rule that match_rule accepts. A fixed seed:
 * a failure is repeatable; the case is printed. */
struct equiv {
	bool windows;
	char text[16384]; /* the rule file */
	size_t used;
};

static unsigned equiv_random(unsigned n)
{
	return (unsigned)rand() % n;
}

static const char *equiv_pick(const char *const *from, size_t count)
{
	return from[equiv_random((unsigned)count)];
}

#define EQUIV_PICK(from) equiv_pick((from), sizeof(from) / sizeof(*(from)))

static const char *const equiv_segments[] = {"opt", "a",  "b",	   "ab",
					     "bin", "ba", "x.exe", "a-b"};
static const char *const equiv_words[] = {"a",	"b",  "--job=1", "--job=12",
					  "ab", "-x", "ba",	 "x.exe"};
static const char *const equiv_names[] = {"a",	"b",  "ab",  "ba",
					  "a-", "-b", "aab", "x.exe"};

/* A process's fact, from the same pieces as the rules. */
static void equiv_exe(const struct equiv *e, char *buf, size_t size,
		      bool for_rule)
{
	size_t used =
		(size_t)snprintf(buf, size, "%s", e->windows ? "C:/" : "/");

	for (unsigned i = 0, n = 1 + equiv_random(3); i < n; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? "/" : "",
					 EQUIV_PICK(equiv_segments));
	/* Windows compares either slash and either case alike. */
	for (size_t i = 0; e->windows && !for_rule && buf[i]; i++) {
		if (buf[i] == '/' && equiv_random(2))
			buf[i] = '\\';
		if (buf[i] >= 'a' && buf[i] <= 'z' && equiv_random(3) == 0)
			buf[i] = (char)(buf[i] - 'a' + 'A');
	}
}

static void equiv_cmdline(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0, n = equiv_random(5); i < n; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? " " : "", EQUIV_PICK(equiv_words));
}

/* A glob made of a text: spans become '*', characters '?' or a bracket,
 * and either end may open; from keeps the start literal (an exe's root,
 * which the rules require). Letters change case under Windows. */
static void equiv_glob(const struct equiv *e, const char *text, size_t from,
		       char *buf, size_t size)
{
	size_t used = 0, len = strlen(text);

	if (!from && equiv_random(3) == 0)
		buf[used++] = '*';
	for (size_t i = 0; i < len && used + 8 < size; i++) {
		unsigned r = i < from ? 99 : equiv_random(14);

		if (r == 0) {
			buf[used++] = '*';
			i += equiv_random(3);
		} else if (r == 1) {
			buf[used++] = '?';
		} else if (r == 2) {
			used += (size_t)snprintf(buf + used, size - used,
						 "[%c-b]", text[i]);
		} else if (r == 3) {
			used += (size_t)snprintf(buf + used, size - used,
						 "[!%c]", text[i]);
		} else {
			char c = text[i];

			if (e->windows && c >= 'a' && c <= 'z' &&
			    equiv_random(3) == 0)
				c = (char)(c - 'a' + 'A');
			buf[used++] = c;
		}
	}
	if (equiv_random(3) == 0)
		buf[used++] = '*';
	buf[used] = '\0';
}

static void equiv_say(struct equiv *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void equiv_say(struct equiv *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e->used += (size_t)vsnprintf(e->text + e->used,
				     sizeof(e->text) - e->used, fmt, ap);
	va_end(ap);
	assert_true(e->used < sizeof(e->text));
}

/* One key's values: 1 or 2, each a literal or a glob. */
static void equiv_key(struct equiv *e, const char *key)
{
	unsigned count = 1 + equiv_random(2);

	equiv_say(e, " %s = [", key);
	for (unsigned v = 0; v < count; v++) {
		char text[256], glob[512];
		size_t from = 0;

		if (strcmp(key, "exe") == 0) {
			equiv_exe(e, text, sizeof(text), true);
			from = e->windows ? 3 : 1;
		} else if (strcmp(key, "name") == 0) {
			snprintf(text, sizeof(text), "%s",
				 EQUIV_PICK(equiv_names));
		} else {
			equiv_cmdline(text, sizeof(text));
			if (!text[0])
				snprintf(text, sizeof(text), "*");
		}
		if (equiv_random(4) == 0)
			snprintf(glob, sizeof(glob), "%s", text);
		else
			equiv_glob(e, text, from, glob, sizeof(glob));
		equiv_say(e, "%s\"%s\"", v ? ", " : "", glob);
	}
	equiv_say(e, "];");
}

static void equiv_rules(struct equiv *e, struct rules *rules, unsigned count)
{
	struct diag diag;

	e->used = 0;
	equiv_say(e, "rules = (\n");
	for (unsigned i = 0; i < count; i++) {
		bool any = false;

		equiv_say(e, "{ name = \"r%u\"; match = {", i);
		if (equiv_random(2)) {
			equiv_key(e, "exe");
			any = true;
		}
		if (equiv_random(5) < 2) {
			equiv_key(e, "name");
			any = true;
		}
		if (equiv_random(10) < 3) {
			equiv_key(e, "cmdline");
			any = true;
		}
		if (!any)
			equiv_key(e, "name");
		/* Windows names its users: numbers only on Linux. */
		if (!e->windows && equiv_random(5) == 0)
			equiv_say(e, " user = %u;", equiv_random(4));
		equiv_say(e, " }; priority = { nice = 5; }; }%s\n",
			  i + 1 < count ? "," : "");
	}
	equiv_say(e, ");\n");
	rules_init(rules);
	rules->system = e->windows ? RULES_SYSTEM_WINDOWS : RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(rules, "r.rules", e->text, e->used, &diag);
	if (diag.errors) {
		diag_print(&diag, stderr, false);
		fail_msg("%s", e->text);
	}
	diag_free(&diag);
}

/* The rule order itself: the first rule match_rule accepts. */
static long equiv_naive(const struct rules *rules, const struct fake *truth)
{
	for (size_t i = 0; i < rules->count; i++) {
		struct fake fake = *truth;
		struct facts facts = {0};

		if (match_rule(&rules->list[i], &facts, fake_fetch, &fake, NULL,
			       0))
			return (long)i;
	}
	return -1;
}

static void equiv_run(bool windows, unsigned sets, unsigned per_set)
{
	static struct equiv e;
	unsigned matched = 0, total = 0;

	e.windows = windows;
	for (unsigned set = 0; set < sets; set++) {
		struct match_index index;
		struct rules rules;

		equiv_rules(&e, &rules, 1 + equiv_random(30));
		match_index_build(&index, &rules);
		for (unsigned p = 0; p < per_set; p++) {
			struct fake fake = {0};
			struct facts facts = {0};
			long want, got;

			equiv_exe(&e, fake.truth.exe, sizeof(fake.truth.exe),
				  false);
			snprintf(fake.truth.comm, sizeof(fake.truth.comm), "%s",
				 EQUIV_PICK(equiv_names));
			equiv_cmdline(fake.truth.cmdline,
				      sizeof(fake.truth.cmdline));
			fake.truth.uid = equiv_random(4);
			want = equiv_naive(&rules, &fake);
			got = match_first(&index, &facts, fake_fetch, &fake);
			if (got != want)
				fail_msg("exe '%s' name '%s' cmdline '%s' uid "
					 "%u: rule %ld, not %ld, of\n%s",
					 fake.truth.exe, fake.truth.comm,
					 fake.truth.cmdline,
					 (unsigned)fake.truth.uid, got, want,
					 e.text);
			matched += want >= 0;
			total++;
		}
		match_index_free(&index);
		rules_free(&rules);
	}
	/* The cases must reach rules, or the test proves nothing. */
	assert_true(matched > total / 4);
	assert_true(matched < total);
}

static void test_equivalence(void **state)
{
	(void)state;
	srand(24);
	equiv_run(false, 400, 25);
}

static void test_equivalence_windows(void **state)
{
	(void)state;
	srand(2024);
	equiv_run(true, 400, 25);
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
		cmocka_unit_test(test_index_kinds),
		cmocka_unit_test(test_index_exact_shared),
		cmocka_unit_test(test_index_lazy),
		cmocka_unit_test(test_index_empty_pattern),
		cmocka_unit_test(test_unindexed),
		cmocka_unit_test(test_equivalence),
		cmocka_unit_test(test_equivalence_windows),
	};

	return unit_run("match", UNIT_TABLE(match_cases, test_match_case),
			UNIT_TESTS(tests), setup, teardown);
}
