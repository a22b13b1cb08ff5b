/* ananicy import: one named case per kind of line and mapping, each with
 * what must be written and what must be said. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "ananicy.h"
#include "diagfix.h"
#include "importcheck.h"
#include "os.h"
#include "rules.h"
#include "util.h"

struct ananicy_case {
	const char *name;
	const char *types; /* a t.types file, or NULL */
	const char *text;  /* a r.rules file */
	struct ananicy_options opt;
	const char *expect; /* in the output, or NULL for none written */
	const char *absent; /* not in the output */
	size_t warnings;
	const char *warning; /* a part of the first one */
	size_t written, left_out;
};

/* A type id of JSON escapes that, unescaped in a comment, would end it
 * and add a realtime rule of its own. */
#define INJECT                                                                 \
	"X\\n  { name = \\\"evil\\\"; match = { name = \\\"sh\\\"; "           \
	"user = \\\"nobody\\\"; }; priority = { policy = \\\"fifo\\\"; "       \
	"rt_priority = 99; }; },\\n#"

#define TYPES                                                                  \
	"{ \"type\": \"Game\", \"nice\": -5, \"ioclass\": \"best-effort\" }\n" \
	"{ \"type\": \"BG\", \"nice\": 16, \"ioclass\": \"idle\" }\n"

static const struct ananicy_case ananicy_cases[] = {
	{"lowering rule",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": 10 }\n",
	 {0},
	 "match = { name = \"x\"; };\n    priority = { nice = 10; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"type inlined",
	 TYPES,
	 "{ \"name\": \"x\", \"type\": \"BG\" }\n",
	 {0},
	 "priority = { nice = 16; io_class = \"idle\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"rule key over type",
	 TYPES,
	 "{ \"name\": \"x\", \"type\": \"BG\", \"nice\": 19 }\n",
	 {0},
	 "nice = 19;",
	 "nice = 16;",
	 0,
	 NULL,
	 1,
	 0},
	{"null removes type key",
	 TYPES,
	 "{ \"name\": \"x\", \"type\": \"BG\", \"nice\": null }\n",
	 {0},
	 "priority = { io_class = \"idle\"; };",
	 "nice",
	 0,
	 NULL,
	 1,
	 0},
	{"same settings one rule",
	 TYPES,
	 "{ \"name\": \"x\", \"type\": \"BG\" }\n"
	 "{ \"name\": \"y\", \"type\": \"BG\" }\n",
	 {0},
	 "name = [ \"x\",",
	 NULL,
	 0,
	 NULL,
	 2,
	 0},
	{"sources per name",
	 TYPES,
	 "{ \"name\": \"x\", \"type\": \"BG\" }\n"
	 "{ \"name\": \"y\", \"type\": \"BG\" }\n",
	 {0},
	 "source = [ \"r.rules:1\",\n               \"r.rules:2\" ];",
	 NULL,
	 0,
	 NULL,
	 2,
	 0},
	{"raising left out",
	 TYPES,
	 "{ \"name\": \"g\", \"type\": \"Game\" }\n",
	 {0},
	 "#    priority = { nice = -5;",
	 NULL,
	 0,
	 NULL,
	 0,
	 1},
	{"raising narrowed to user",
	 TYPES,
	 "{ \"name\": \"g\", \"type\": \"Game\" }\n",
	 {.user = "root"},
	 "user = \"root\";",
	 "allow_spoofable",
	 0,
	 NULL,
	 1,
	 0},
	{"raising narrowed to group",
	 TYPES,
	 "{ \"name\": \"g\", \"type\": \"Game\" }\n",
	 {.group = "root"},
	 "group = \"root\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"raising opted in",
	 TYPES,
	 "{ \"name\": \"g\", \"type\": \"Game\" }\n",
	 {.allow_spoofable = true},
	 "allow_spoofable = true;",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"best-effort without ionice is level 0",
	 NULL,
	 "{ \"name\": \"x\", \"ioclass\": \"best-effort\" }\n",
	 {0},
	 "io_class = \"best-effort\"; io_level = 0;",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"sched fifo with rtprio",
	 NULL,
	 "{ \"name\": \"x\", \"sched\": \"fifo\", \"rtprio\": 7 }\n",
	 {.allow_spoofable = true},
	 "policy = \"fifo\"; rt_priority = 7;",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"sched rr default rtprio",
	 NULL,
	 "{ \"name\": \"x\", \"sched\": \"rr\", \"nice\": -4 }\n",
	 {.allow_spoofable = true},
	 "policy = \"rr\"; rt_priority = 1;",
	 "nice",
	 0,
	 NULL,
	 1,
	 0},
	{"sched normal",
	 NULL,
	 "{ \"name\": \"x\", \"sched\": \"normal\", \"nice\": 3 }\n",
	 {0},
	 "nice = 3; policy = \"other\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"unknown sched",
	 NULL,
	 "{ \"name\": \"x\", \"sched\": \"iso\", \"nice\": 3 }\n",
	 {0},
	 "nice = 3; };",
	 NULL,
	 1,
	 "sched: 'iso' is not a scheduler",
	 1,
	 0},
	{"nice out of range",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": -21 }\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "nice: '-21' is not an integer from -20 to 19",
	 0,
	 0},
	{"nice a string",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": \"5\" }\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "nice: '5' is not an integer",
	 0,
	 0},
	{"nothing mapped",
	 NULL,
	 "{ \"name\": \"x\", \"oom_score_adj\": 100, \"latency_nice\": 3 }\n",
	 {0},
	 NULL,
	 NULL,
	 0,
	 NULL,
	 0,
	 0},
	{"long name cut to 15",
	 NULL,
	 "{ \"name\": \"abcdefghijklmnopq\", \"nice\": 5 }\n",
	 {0},
	 "name = \"abcdefghijklmno\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"cut names collide",
	 NULL,
	 "{ \"name\": \"abcdefghijklmnopq\", \"nice\": 5 }\n"
	 "{ \"name\": \"abcdefghijklmnoxx\", \"nice\": 6 }\n",
	 {0},
	 "nice = 5;",
	 "nice = 6;",
	 1,
	 "in the kernel's 15 bytes",
	 1,
	 0},
	{"glob characters quoted",
	 NULL,
	 "{ \"name\": \"a*b\", \"nice\": 5 }\n",
	 {0},
	 "name = \"a\\\\*b\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"quote and backslash escaped",
	 NULL,
	 "{ \"name\": \"a\\\"b\\\\\", \"nice\": 5 }\n",
	 {0},
	 "name = \"a\\\"b\\\\\\\\\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"duplicate name later wins",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": 5 }\n{ \"name\": \"x\", \"nice\": 7 }\n",
	 {0},
	 "nice = 7;",
	 "nice = 5;",
	 1,
	 "duplicate name 'x': replaces the one of r.rules:1",
	 1,
	 0},
	{"bad JSON",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": 5\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "bad JSON: unexpected end of data at column 25",
	 0,
	 0},
	{"comment and blank lines",
	 NULL,
	 "# c\n\n   # d\n",
	 {0},
	 NULL,
	 NULL,
	 0,
	 NULL,
	 0,
	 0},
	{"trailing comment",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": 5 } # why\n",
	 {0},
	 "nice = 5;",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"text after the object",
	 NULL,
	 "{ \"name\": \"x\", \"nice\": 5 } x\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "text after the object",
	 0,
	 0},
	{"unknown type",
	 NULL,
	 "{ \"name\": \"x\", \"type\": \"Nope\", \"nice\": 5 }\n",
	 {0},
	 "nice = 5;",
	 NULL,
	 1,
	 "type 'Nope' is defined nowhere",
	 1,
	 0},
	{"no name type or cgroup",
	 NULL,
	 "{ \"nice\": 5 }\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "no string \"name\"",
	 0,
	 0},
	{"unicode escape",
	 NULL,
	 "{ \"name\": \"\\u00e9t\\u00e9\", \"nice\": 5 }\n",
	 {0},
	 "name = \"\xc3\xa9t\xc3\xa9\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"NUL escape refused",
	 NULL,
	 "{ \"name\": \"a\\u0000\", \"nice\": 5 }\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "\\u0000 is not allowed",
	 0,
	 0},
	{"a type id cannot leave its comment",
	 "{ \"type\": \"" INJECT "\", \"nice\": 5 }\n",
	 "{ \"name\": \"foo\", \"type\": \"" INJECT "\" }\n",
	 {0},
	 "  # ananicy type \"X\\x0a  { name = \"evil\";",
	 "\n  { name = \"evil\"",
	 0,
	 NULL,
	 1,
	 0},
	{"a type id cannot leave its comment, --user",
	 "{ \"type\": \"" INJECT "\", \"nice\": 5 }\n",
	 "{ \"name\": \"foo\", \"type\": \"" INJECT "\" }\n",
	 {.user = "root"},
	 "\\x0a#\": 1 rule\n",
	 "\n  { name = \"evil\"",
	 0,
	 NULL,
	 1,
	 0},
	{"a stranger's string in a warning: escaped",
	 NULL,
	 "{ \"name\": \"x\", \"type\": \"No\\u001b[2Jpe\", \"nice\": 5 }\n",
	 {0},
	 "nice = 5;",
	 NULL,
	 1,
	 "type 'No\\x1b[2Jpe' is defined nowhere",
	 1,
	 0},
	{"a control character in a name: refused",
	 NULL,
	 "{ \"name\": \"a\\u007f\", \"nice\": 5 }\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "name has a control character",
	 0,
	 0},
	{"ionice with idle not mapped",
	 NULL,
	 "{ \"name\": \"x\", \"ioclass\": \"idle\", \"ionice\": 3 }\n",
	 {0},
	 "priority = { io_class = \"idle\"; };",
	 "io_level",
	 0,
	 NULL,
	 1,
	 0},
};

static void load(struct ananicy *a, const struct ananicy_case *c,
		 struct diag *diag)
{
	ananicy_init(a);
	if (c->types)
		ananicy_parse(a, "t.types", "", c->types, strlen(c->types),
			      diag);
	ananicy_parse(a, "r.rules", "", c->text, strlen(c->text), diag);
}

/* What the import writes is read back as the command reads it back: it
 * loads the rules counted, raising only as the options allow. */
static void check_output(const char *name, const struct ananicy_options *opt,
			 const struct ananicy_result *res)
{
	struct diag diag;

	diag_init(&diag);
	if (importcheck_files(res->files, res->file_count, RULES_SYSTEM_LINUX,
			      opt, res->groups, "out", &diag) < 0)
		fail_msg("%s: %s:%u: %s\n%s", name, diag.entries[0].file,
			 diag.entries[0].line, diag.entries[0].message,
			 res->file_count ? res->files[0].text : "");
	diag_free(&diag);
}

/* What is said goes to a terminal: no control byte in it. */
static void check_said(const char *name, const struct diag *diag)
{
	for (size_t i = 0; i < diag->count; i++) {
		const struct diag_entry *e = &diag->entries[i];

		for (const char *c = e->message; *c; c++) {
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fail_msg("%s: control byte in '%s'", name,
					 e->message);
		}
		for (const char *c = e->file; *c; c++) {
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fail_msg("%s: control byte in '%s'", name,
					 e->file);
		}
	}
}

static void test_ananicy_case(void **state)
{
	const struct ananicy_case *c = *state;
	struct ananicy_result res;
	struct ananicy a;
	struct diag diag;
	const char *text = "";

	diag_init(&diag);
	load(&a, c, &diag);
	ananicy_import(&a, &c->opt, &res, &diag);
	diagfix_warnings(c->name, &diag, c->warnings, c->warning);
	if (res.file_count)
		text = res.files[0].text;
	if (c->expect && !strstr(text, c->expect))
		fail_msg("%s: '%s' not in:\n%s", c->name, c->expect, text);
	if (c->absent && strstr(text, c->absent))
		fail_msg("%s: '%s' in:\n%s", c->name, c->absent, text);
	assert_int_equal(res.written, c->written);
	assert_int_equal(res.left_out, c->left_out);
	check_output(c->name, &c->opt, &res);
	check_said(c->name, &diag);
	ananicy_result_free(&res);
	ananicy_free(&a);
	diag_free(&diag);
}

/* Keys with no cpupolicy setting are counted by name, sorted. */
static void test_unmapped_counted(void **state)
{
	static const char text[] =
		"{ \"name\": \"x\", \"nice\": 5, \"oom_score_adj\": 1 }\n"
		"{ \"name\": \"y\", \"nice\": 5, \"oom_score_adj\": 2, "
		"\"cgroup\": \"c\" }\n";
	struct ananicy_result res;
	struct ananicy a;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	ananicy_init(&a);
	ananicy_parse(&a, "r.rules", "", text, strlen(text), &diag);
	ananicy_import(&a, &(struct ananicy_options){0}, &res, &diag);
	assert_int_equal(res.unmapped_count, 2);
	assert_string_equal(res.unmapped[0].what, "cgroup");
	assert_int_equal(res.unmapped[0].count, 1);
	assert_string_equal(res.unmapped[1].what, "oom_score_adj");
	assert_int_equal(res.unmapped[1].count, 2);
	ananicy_result_free(&res);
	ananicy_free(&a);
	diag_free(&diag);
}

/* One file per folder, sorted; the same rules in the same order. */
static void test_folders(void **state)
{
	static const char a_text[] = "{ \"name\": \"x\", \"nice\": 5 }\n";
	static const char b_text[] = "{ \"name\": \"y\", \"nice\": 5 }\n";
	struct ananicy_result res;
	struct ananicy a;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	ananicy_init(&a);
	ananicy_parse(&a, "d/Z z/a.rules", "Z z", a_text, strlen(a_text),
		      &diag);
	ananicy_parse(&a, "d/A & B/b.rules", "A & B", b_text, strlen(b_text),
		      &diag);
	ananicy_import(&a, &(struct ananicy_options){0}, &res, &diag);
	assert_int_equal(res.file_count, 2);
	assert_string_equal(res.files[0].name, "50-ananicy-a-b.rules");
	assert_string_equal(res.files[1].name, "50-ananicy-z-z.rules");
	assert_non_null(strstr(res.files[0].text, "\"d/A & B/b.rules:1\""));
	ananicy_result_free(&res);
	ananicy_free(&a);
	diag_free(&diag);
}

/* One file of rules read from PATH in FOLDER and imported: the one rules
 * file written holds each of WANTS, and loads. */
struct naming_case {
	const char *name;
	const char *path, *folder, *text;
	struct ananicy_options opt;
	size_t groups; /* 0: not counted */
	const char *wants[5];
};

#define LONG_TYPE "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT"
#define LONG_DIR  "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"

static const struct naming_case naming_cases[] = {
	/* Folder and file names are strangers' too: a newline in one
	 * reaches the header and the sources escaped, and the output
	 * loads. */
	{"folder newline",
	 "d/we\nird/a\x1b.rules",
	 "we\nird",
	 "{ \"name\": \"x\", \"nice\": 5 }\n",
	 {.origin = "d"},
	 0,
	 {"\n# d/we\\x0aird\n", "source = \"d/we\\nird/a\\x1b.rules:1\""}},
	/* Names of one base: the first read keeps it, the others take -2,
	 * -3... passing over a name that is another group's base ("x 2"). */
	{"names collide",
	 "r.rules",
	 "",
	 "{ \"type\": \"X\", \"nice\": 1 }\n"
	 "{ \"type\": \"x 2\", \"nice\": 1 }\n"
	 "{ \"name\": \"a\", \"type\": \"X\" }\n"
	 "{ \"name\": \"b\", \"type\": \"X\", \"nice\": 2 }\n"
	 "{ \"name\": \"c\", \"type\": \"x 2\" }\n"
	 "{ \"name\": \"d\", \"type\": \"X\", \"nice\": 3 }\n",
	 {0},
	 0,
	 {"name = \"ananicy.top.x\";\n    match = { name = \"a\"; }",
	  "name = \"ananicy.top.x-3\";\n    match = { name = \"b\"; }",
	  "name = \"ananicy.top.x-2\";\n    match = { name = \"c\"; }",
	  "name = \"ananicy.top.x-4\";\n    match = { name = \"d\"; }"}},
	/* A long folder and type: the rule name still a valid one (64
	 * bytes at most), with a suffix too. */
	{"long names",
	 "d/" LONG_DIR "/r.rules",
	 LONG_DIR,
	 "{ \"type\": \"" LONG_TYPE "\", \"nice\": 1 }\n"
	 "{ \"name\": \"a\", \"type\": \"" LONG_TYPE "\" }\n"
	 "{ \"name\": \"b\", \"type\": \"" LONG_TYPE "\", \"nice\": 2 }\n",
	 {0},
	 2,
	 {"\"ananicy.ffffffffffffffffffffffffffff.tttttttttttttttt\";",
	  "\"ananicy.ffffffffffffffffffffffffffff.tttttttttttttttt-2\";"}},
};

static void naming_case_run(const struct naming_case *c)
{
	struct ananicy_result res;
	struct ananicy a;
	struct diag diag;

	diag_init(&diag);
	ananicy_init(&a);
	ananicy_parse(&a, c->path, c->folder, c->text, strlen(c->text), &diag);
	ananicy_import(&a, &c->opt, &res, &diag);
	if (res.file_count != 1)
		fail_msg("%s: %zu files written", c->name, res.file_count);
	if (c->groups && res.groups != c->groups)
		fail_msg("%s: %zu groups", c->name, res.groups);
	for (size_t i = 0; i < ARRAY_SIZE(c->wants) && c->wants[i]; i++) {
		if (!strstr(res.files[0].text, c->wants[i]))
			fail_msg("%s: '%s' not in:\n%s", c->name, c->wants[i],
				 res.files[0].text);
	}
	check_output(c->name, &(struct ananicy_options){0}, &res);
	ananicy_result_free(&res);
	ananicy_free(&a);
	diag_free(&diag);
}

/* The naming cases: the file's table is the imports' (ananicy_cases). */
static void test_naming(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(naming_cases); i++)
		naming_case_run(&naming_cases[i]);
}

/* json-c parses a line at a time: a syntax error is said at its own
 * line, with the column the tokener stopped at and the library's words;
 * the lines around it are read. */
static void test_bad_json_where(void **state)
{
	static const char text[] = "{ \"name\": \"x\", \"nice\": 5 }\n"
				   "# a comment\n"
				   "\n"
				   "{ \"name\": \"y\" \"nice\": 5 }\n"
				   "{ \"name\": \"z\", \"nice\": [5] }\n"
				   "{ \"name\": \"w\", \"nice\": 5 }\n";
	struct ananicy a;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	ananicy_init(&a);
	ananicy_parse(&a, "r.rules", "", text, strlen(text), &diag);
	assert_int_equal(diag.count, 2);
	assert_int_equal(diag.entries[0].line, 4);
	assert_string_equal(diag.entries[0].message,
			    "bad JSON: object value separator ',' expected "
			    "at column 15: skipped");
	assert_int_equal(diag.entries[1].line, 5);
	assert_string_equal(diag.entries[1].message,
			    "bad JSON: nested values are not ananicy's: "
			    "skipped");
	assert_int_equal(a.count, 2);
	assert_int_equal(a.entries[1].line, 6);
	ananicy_free(&a);
	diag_free(&diag);
}

static void test_input_names(void **state)
{
	(void)state;
	assert_true(ananicy_is_input("a.rules"));
	assert_true(ananicy_is_input("a.types"));
	assert_true(ananicy_is_input("a.cgroups"));
	assert_false(ananicy_is_input(".rules"));
	assert_false(ananicy_is_input("a.rules.bak"));
	assert_false(ananicy_is_input("README.md"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmapped_counted),
		cmocka_unit_test(test_folders),
		cmocka_unit_test(test_naming),
		cmocka_unit_test(test_input_names),
		cmocka_unit_test(test_bad_json_where),
	};

	return unit_run("ananicy", UNIT_TABLE(ananicy_cases, test_ananicy_case),
			UNIT_TESTS(tests), NULL, NULL);
}
