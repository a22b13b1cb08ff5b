/* The read-back of an import: outputs that load the rules counted and
 * raise only as the options allow pass; each way of being something else
 * is refused with a message that says which. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "importcheck.h"
#include "os.h"

#define HEAD "version = 1;\nrules = (\n"
#define LOWER                                                                  \
	"  { name = \"low\"; match = { name = \"x\"; };\n"                     \
	"    priority = { nice = 5; }; }"
#define RAISE(match, extra)                                                    \
	"  { name = \"high\"; match = { name = \"g\"; " match " };\n"          \
	"    priority = { nice = -5; }; " extra "}"

struct importcheck_case {
	const char *name;
	const char *text, *second; /* a second file, or NULL */
	enum rules_system system;
	struct ananicy_options opt;
	size_t counted;
	const char *error; /* in the first error; NULL: passes */
};

static const struct importcheck_case importcheck_cases[] = {
	{"a lowering rule, counted",
	 HEAD LOWER "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 1,
	 NULL},
	{"nothing, counted",
	 HEAD ");\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 0,
	 NULL},
	{"a rule more than counted",
	 HEAD LOWER ",\n" RAISE("user = \"root\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.user = "root"},
	 1,
	 "the output loads 2 rules, the import wrote 1"},
	{"a rule less than counted",
	 HEAD LOWER "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 2,
	 "the output loads 1 rules, the import wrote 2"},
	{"raising without an option",
	 HEAD RAISE("", "allow_spoofable = true; ") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 1,
	 "rule 'high' raises, which no imported rule may without --user"},
	{"raising for the user asked",
	 HEAD RAISE("user = \"root\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.user = "root"},
	 1,
	 NULL},
	{"raising for another user",
	 HEAD RAISE("user = \"nobody\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.user = "root"},
	 1,
	 "only a rule limited to --user may"},
	{"raising for two users",
	 HEAD RAISE("user = [\"root\", \"nobody\"];", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.user = "root"},
	 1,
	 "only a rule limited to --user may"},
	{"raising for the group asked",
	 HEAD RAISE("group = \"root\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.group = "root"},
	 1,
	 NULL},
	{"raising for a user, --group asked",
	 HEAD RAISE("user = \"root\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.group = "root"},
	 1,
	 "only a rule limited to --group may"},
	{"raising opted in",
	 HEAD RAISE("", "allow_spoofable = true; ") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.allow_spoofable = true},
	 1,
	 NULL},
	{"raising, --allow-spoofable, not opted in",
	 HEAD RAISE("user = \"root\";", "") "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {.allow_spoofable = true},
	 1,
	 "only a rule with allow_spoofable may"},
	{"power raises",
	 HEAD
	 "  { name = \"p\"; match = { name = \"x\"; user = \"nobody\"; };\n"
	 "    power = { governor = \"performance\"; }; }\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 1,
	 "rule 'p' raises"},
	{"a class above normal for Windows",
	 HEAD "  { name = \"w\"; match = { name = \"a.exe\"; };\n"
	      "    priority = { class = \"high\"; }; allow_spoofable = true; "
	      "}\n);\n",
	 NULL,
	 RULES_SYSTEM_WINDOWS,
	 {0},
	 1,
	 "rule 'w' raises"},
	{"a syntax error",
	 HEAD LOWER "\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 1,
	 "syntax error"},
	{"a raw control byte in a comment",
	 "# a\x1b[2J\n" HEAD LOWER "\n);\n",
	 NULL,
	 RULES_SYSTEM_LINUX,
	 {0},
	 1,
	 "control byte 0x1b in the output: a string reached it unescaped"},
	{"the same name in two files",
	 HEAD LOWER "\n);\n",
	 HEAD LOWER "\n);\n",
	 RULES_SYSTEM_LINUX,
	 {0},
	 2,
	 "duplicate rule name 'low'"},
	{"two files, counted",
	 HEAD LOWER "\n);\n",
	 HEAD "  { name = \"low2\"; match = { name = \"y\"; };\n"
	      "    priority = { nice = 5; }; }\n);\n",
	 RULES_SYSTEM_LINUX,
	 {0},
	 2,
	 NULL},
};

static void test_importcheck_case(void **state)
{
	const struct importcheck_case *c = *state;
	struct ananicy_file files[2] = {
		{"a.rules", (char *)c->text, strlen(c->text)},
		{"b.rules", (char *)c->second,
		 c->second ? strlen(c->second) : 0},
	};
	struct diag diag;
	int status;

	diag_init(&diag);
	status = importcheck_files(files, c->second ? 2 : 1, c->system, &c->opt,
				   c->counted, "out", &diag);
	if (!c->error && status != 0)
		fail_msg("%s: refused: %s", c->name, diag.entries[0].message);
	if (c->error && status == 0)
		fail_msg("%s: passed", c->name);
	if (c->error && !strstr(diag.entries[0].message, c->error))
		fail_msg("%s: '%s', wanted '%s'", c->name,
			 diag.entries[0].message, c->error);
	assert_int_equal(diag.warnings, 0);
	diag_free(&diag);
}

int main(void)
{
	return unit_run("importcheck",
			UNIT_TABLE(importcheck_cases, test_importcheck_case),
			NULL, 0, NULL, NULL);
}
