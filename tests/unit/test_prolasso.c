/* Process Lasso import: small prolasso.ini texts, in UTF-8 and in
 * UTF-16LE with a BOM as Windows writes them, each with what must be
 * written and said; every output passes the rule check for Windows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diagfix.h"
#include "os.h"
#include "importcheck.h"
#include "prolasso.h"
#include "rules.h"

struct prolasso_case {
	const char *name;
	const char *text;
	struct ananicy_options opt;
	const char *expect; /* in the output; NULL: no file */
	const char *absent;
	size_t warnings;
	const char *warning;
	size_t processes, left_out;
};

#define PD	  "[ProcessDefaults]\r\n"
#define X64	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define LONG_NAME X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 "x.exe"

static const struct prolasso_case prolasso_cases[] = {
	{"priority lowered",
	 PD "DefaultPriorities=zip.exe,below normal\r\n",
	 {0},
	 "match = { name = \"zip.exe\"; };\n    priority = { class = "
	 "\"below-normal\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"a process named twice by one key: the later wins, said",
	 PD "DefaultPriorities=zip.exe,idle,zip.exe,below normal\r\n",
	 {0},
	 "class = \"below-normal\";",
	 "class = \"idle\"",
	 1,
	 "process 'zip.exe': DefaultPriorities names it again: the later "
	 "value wins",
	 1,
	 0},
	{"priority by number",
	 PD "DefaultPriorities=zip.exe,1\r\n",
	 {0},
	 "class = \"idle\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"priority raised left out",
	 PD "DefaultPriorities=game.exe,high\r\n",
	 {0},
	 "#    priority = { class = \"high\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 1},
	{"priority raised narrowed",
	 PD "DefaultPriorities=game.exe,high\r\n",
	 {.user = "root"},
	 "user = \"root\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"priority raised opted in",
	 PD "DefaultPriorities=game.exe,realtime\r\n",
	 {.allow_spoofable = true},
	 "allow_spoofable = true;",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"bad class",
	 PD "DefaultPriorities=x.exe,superhigh\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "'superhigh' is no priority class",
	 0,
	 0},
	{"affinity cpu list",
	 PD "DefaultAffinitiesEx=r.exe,0,0;5-8;13-15\r\n",
	 {0},
	 "placement = { cpus = \"0,5-8,13-15\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"affinity legacy mask",
	 PD "DefaultAffinitiesEx=r.exe,0x0f,0\r\n",
	 {0},
	 "cpus = \"0-3\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"named affinity",
	 PD "DefaultAffinitiesEx=r.exe,0,pc\r\n"
	    "NamedAffinities=pc,2-5\r\n",
	 {0},
	 "cpus = \"2-5\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"bad cpu list",
	 PD "DefaultAffinitiesEx=r.exe,0,x-y\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "'x-y' is no CPU list",
	 0,
	 0},
	{"cpu sets",
	 PD "DefaultCPUSets=i.exe,2;3\r\n",
	 {0},
	 "placement = { cpus = \"2-3\"; hard = false; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"affinity wins over cpu sets",
	 PD "DefaultCPUSets=i.exe,2\r\nDefaultAffinitiesEx=i.exe,0,4\r\n",
	 {0},
	 "placement = { cpus = \"4\"; };",
	 "cpus = \"2\"",
	 0,
	 NULL,
	 1,
	 0},
	{"efficiency on",
	 "[ProcessAllowances]\r\nEfficiencyMode=b.exe,1\r\n",
	 {0},
	 "efficiency_mode = \"on\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"efficiency off raises",
	 "[ProcessAllowances]\r\nEfficiencyMode=b.exe,0\r\n",
	 {0},
	 "#    priority = { efficiency_mode = \"off\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 1},
	{"efficiency bad",
	 "[ProcessAllowances]\r\nEfficiencyMode=b.exe,2\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "neither 0 nor 1",
	 0,
	 0},
	{"wildcards kept",
	 PD "DefaultPriorities=backup*.exe,idle,c?.exe,idle\r\n",
	 {0},
	 "name = [ \"backup*.exe\",\n                       \"c?.exe\" ];",
	 NULL,
	 0,
	 NULL,
	 2,
	 0},
	{"settings merged per process",
	 PD "DefaultPriorities=a.exe,idle\r\nDefaultAffinitiesEx=A.EXE,0,1\r\n",
	 {0},
	 "class = \"idle\"; };\n    placement = { cpus = \"1\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"repeated section",
	 PD "DefaultPriorities=a.exe,idle\r\n[GUI]\r\nX=1\r\n" PD
	    "DefaultPriorities=b.exe,idle\r\n",
	 {0},
	 "name = [ \"a.exe\",",
	 NULL,
	 0,
	 NULL,
	 2,
	 0},
	{"incomplete entry",
	 PD "DefaultAffinitiesEx=a.exe,0\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "an entry of 2 fields where 3 make one",
	 0,
	 0},
	{"other keys counted",
	 PD "DefaultIOPriorities=a.exe,2\r\n",
	 {0},
	 NULL,
	 NULL,
	 0,
	 NULL,
	 0,
	 0},
	{"keys outside the rule sections ignored",
	 "[GUI]\r\nDefaultPriorities=a.exe,idle\r\n",
	 {0},
	 NULL,
	 NULL,
	 0,
	 NULL,
	 0,
	 0},
	{"bracket in a name",
	 PD "DefaultPriorities=a[1].exe,idle\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "'[' in a name",
	 0,
	 0},
	{"comments and blanks",
	 "; c\r\n# d\r\n\r\n" PD,
	 {0},
	 NULL,
	 NULL,
	 0,
	 NULL,
	 0,
	 0},
	{"a control character in a name: refused, escaped where said",
	 PD "DefaultPriorities=a\x1b]0;x\x07.exe,idle\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "process 'a\\x1b]0;x\\x07.exe': control character 0x1b in a name",
	 0,
	 0},
	{"DEL in a name: written escaped",
	 PD "DefaultPriorities=a\x7f.exe,idle\r\n",
	 {0},
	 "match = { name = \"a\\x7f.exe\"; };",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
	{"a name no file can have: refused",
	 PD "DefaultPriorities=" LONG_NAME ",idle\r\n",
	 {0},
	 NULL,
	 NULL,
	 1,
	 "longer than 765 bytes: not imported",
	 0,
	 0},
	{"source line",
	 "\r\n" PD "DefaultPriorities=a.exe,idle\r\n",
	 {0},
	 "source = \"p.ini:3\";",
	 NULL,
	 0,
	 NULL,
	 1,
	 0},
};

/* The text as Windows writes it: a BOM, then UTF-16LE. */
static char *utf16(const char *text, size_t *len)
{
	size_t n = strlen(text);
	char *out = malloc(2 * n + 2);

	out[0] = (char)0xff;
	out[1] = (char)0xfe;
	for (size_t i = 0; i < n; i++) {
		out[2 + 2 * i] = text[i];
		out[3 + 2 * i] = 0;
	}
	*len = 2 * n + 2;
	return out;
}

/* What the import writes is read back as the command reads it back: it
 * loads the rules counted, raising only as the options allow; and what
 * it says holds no control byte. */
static void check_output(const struct prolasso_case *c,
			 const struct prolasso_result *res,
			 const struct diag *said)
{
	struct diag diag;

	for (size_t i = 0; i < said->count; i++) {
		for (const char *m = said->entries[i].message; *m; m++) {
			if ((unsigned char)*m < 0x20 || *m == 0x7f)
				fail_msg("%s: control byte in '%s'", c->name,
					 said->entries[i].message);
		}
	}
	diag_init(&diag);
	if (importcheck_files(&res->file, res->file.text ? 1 : 0,
			      RULES_SYSTEM_WINDOWS, &c->opt, res->groups, "out",
			      &diag) < 0)
		fail_msg("%s: %s:%u: %s\n%s", c->name, diag.entries[0].file,
			 diag.entries[0].line, diag.entries[0].message,
			 res->file.text ? res->file.text : "");
	diag_free(&diag);
}

static void run_case(const struct prolasso_case *c, const char *data,
		     size_t len)
{
	struct prolasso_result res;
	struct diag diag;
	char why[128];
	size_t text_len;
	char *text = prolasso_decode(data, len, &text_len, why, sizeof(why));

	assert_non_null(text);
	diag_init(&diag);
	prolasso_import("p.ini", text, text_len, &c->opt, &res, &diag);
	diagfix_warnings(c->name, &diag, c->warnings, c->warning);
	if (c->expect && (!res.file.text || !strstr(res.file.text, c->expect)))
		fail_msg("%s: '%s' not in:\n%s", c->name, c->expect,
			 res.file.text ? res.file.text : "(no file)");
	if (c->absent && res.file.text && strstr(res.file.text, c->absent))
		fail_msg("%s: '%s' in:\n%s", c->name, c->absent, res.file.text);
	assert_int_equal(res.processes, c->processes);
	assert_int_equal(res.left_out, c->left_out);
	check_output(c, &res, &diag);
	prolasso_result_free(&res);
	diag_free(&diag);
	free(text);
}

/* Each case twice: as UTF-8, and as UTF-16LE with a BOM. */
static void test_prolasso_case(void **state)
{
	const struct prolasso_case *c = *state;
	size_t len;
	char *wide = utf16(c->text, &len);

	run_case(c, c->text, strlen(c->text));
	run_case(c, wide, len);
	free(wide);
}

static void test_decode(void **state)
{
	static const char bom8[] = "\xef\xbb\xbf[A]";
	static const char pair[] = "\xff\xfe\x3d\xd8\x00\xde"; /* U+1F600 */
	static const char lone[] = "\xff\xfe\x3d\xd8";
	static const char odd[] = "\xff\xfe\x41";
	char why[128], *out;
	size_t len;

	(void)state;
	out = prolasso_decode(bom8, sizeof(bom8) - 1, &len, why, sizeof(why));
	assert_string_equal(out, "[A]");
	free(out);
	out = prolasso_decode(pair, sizeof(pair) - 1, &len, why, sizeof(why));
	assert_string_equal(out, "\xf0\x9f\x98\x80");
	free(out);
	assert_null(prolasso_decode(lone, sizeof(lone) - 1, &len, why,
				    sizeof(why)));
	assert_non_null(strstr(why, "lone surrogate"));
	assert_null(
		prolasso_decode(odd, sizeof(odd) - 1, &len, why, sizeof(why)));
	assert_null(prolasso_decode("a\0b", 3, &len, why, sizeof(why)));
}

/* DefaultCPUSets are soft in Process Lasso, as CPU Sets are in Windows:
 * the rule loaded from the import places softly; an affinity hard. */
static void test_cpu_sets_soft(void **state)
{
	static const char text[] = PD "DefaultCPUSets=s.exe,2;3\r\n"
				      "DefaultAffinitiesEx=h.exe,0,4\r\n";
	struct prolasso_result res;
	struct rules rules;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	prolasso_import("p.ini", text, strlen(text),
			&(struct ananicy_options){0}, &res, &diag);
	assert_non_null(res.file.text);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_WINDOWS;
	rules_load_text(&rules, "out", res.file.text, strlen(res.file.text),
			&diag);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(rules.count, 2);
	for (size_t i = 0; i < rules.count; i++) {
		const struct rule *r = &rules.list[i];
		bool soft = strcmp(r->match.name.values[0], "s.exe") == 0;

		assert_true(rules_placement(r)->has_cpus);
		if (rules_place_hard(rules_placement(r)) == soft)
			fail_msg("%s: placed %s, want %s",
				 r->match.name.values[0],
				 soft ? "hard" : "soft",
				 soft ? "soft" : "hard");
	}
	rules_free(&rules);
	prolasso_result_free(&res);
	diag_free(&diag);
}

/* The path is named in the header's comment and in every source: a
 * newline in it ends neither. */
static void test_path_newline(void **state)
{
	static const char text[] = PD "DefaultPriorities=zip.exe,idle\r\n";
	struct prolasso_result res;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	prolasso_import("p\nversion = 2;\n.ini", text, strlen(text),
			&(struct ananicy_options){0}, &res, &diag);
	assert_non_null(res.file.text);
	assert_non_null(
		strstr(res.file.text, "\n# p\\x0aversion = 2;\\x0a.ini\n"));
	assert_non_null(strstr(res.file.text,
			       "source = \"p\\nversion = 2;\\n.ini:2\";"));
	assert_int_equal(importcheck_files(&res.file, 1, RULES_SYSTEM_WINDOWS,
					   &(struct ananicy_options){0},
					   res.groups, "out", &diag),
			 0);
	prolasso_result_free(&res);
	diag_free(&diag);
}

static void test_unmapped_counted(void **state)
{
	static const char text[] = PD "DefaultIOPriorities=a.exe,2\r\n"
				      "DefaultIOPriorities=b.exe,2\r\n"
				      "DisallowedProcesses=c.exe\r\n";
	struct prolasso_result res;
	struct diag diag;

	(void)state;
	diag_init(&diag);
	prolasso_import("p.ini", text, strlen(text),
			&(struct ananicy_options){0}, &res, &diag);
	assert_int_equal(res.unmapped_count, 2);
	assert_string_equal(res.unmapped[0].what, "DefaultIOPriorities");
	assert_int_equal(res.unmapped[0].count, 2);
	assert_string_equal(res.unmapped[1].what, "DisallowedProcesses");
	assert_null(res.file.text);
	prolasso_result_free(&res);
	diag_free(&diag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_path_newline),
		cmocka_unit_test(test_cpu_sets_soft),
		cmocka_unit_test(test_unmapped_counted),
	};

	return unit_run("prolasso",
			UNIT_TABLE(prolasso_cases, test_prolasso_case),
			UNIT_TESTS(tests), NULL, NULL);
}
