/* Rule parser and validator: one named case per error class, each with the
 * line it must be reported on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "os.h"
#include "rules.h"
#include "rulesfix.h"
#include "util.h"

struct rule_case {
	const char *name;
	const char *text;
	size_t errors, warnings;
	unsigned line;	     /* of the first diagnostic */
	const char *message; /* a part of it */
};

/* A case checked for a named system. */
struct system_case {
	const char *name;
	enum rules_system system;
	const char *text;
	size_t errors, warnings;
	unsigned line;
	const char *message;
};

#define HEAD "version = 1;\nrules = (\n"
/* A rule on line 3, with the key under test on line 4. */
#define RULE(match, rest)                                                      \
	HEAD "{ name = \"r\"; match = { " match " };\n" rest "\n}\n);\n"
#define EXE "exe = \"/usr/bin/x\";"
/* An exe narrowed to a user: realtime and power on it draw no warning. */
#define EXE_ROOT EXE " user = \"root\";"
/* The same for a rule set checked for Windows: there paths begin with a
 * drive, and ids are names. */
#define WEXE	  "exe = \"C:/x/x.exe\";"
#define WEXE_ROOT WEXE " user = \"root\";"
#define WIN	  RULES_SYSTEM_WINDOWS
#define LNX	  RULES_SYSTEM_LINUX

static const struct rule_case rule_cases[] = {
	{"valid rule", RULE(EXE, "priority = { nice = 5; };"), 0, 0, 0, NULL},
	{"valid everything",
	 RULE(EXE " user = \"root\"; group = 0; cgroup = \"/system.slice/*\";",
	      "priority = { class = \"high\"; io_class = \"best-effort\"; "
	      "io_level = 2; };\nplacement = { cores = \"performance\"; "
	      "spread = \"numa\"; };\npower = { parking = \"off\"; "
	      "min_online = 50; idle_latency_us = 0; governor = "
	      "\"performance\"; epp = \"performance\"; profile = "
	      "\"performance\"; turbo = true; };"),
	 0, 0, 0, NULL},
	{"empty file", "", 0, 0, 0, NULL},
	{"source one",
	 RULE(EXE, "priority = { nice = 5; };\nsource = \"a:1\";"), 0, 0, 0,
	 NULL},
	{"source per name",
	 RULE("name = [ \"a\", \"b\" ];",
	      "priority = { nice = 5; };\nsource = [ \"a:1\", \"b:2\" ];"),
	 0, 0, 0, NULL},
	{"source list not per name",
	 RULE("name = [ \"a\", \"b\" ];",
	      "priority = { nice = 5; };\nsource = [ \"a:1\", \"b:2\", "
	      "\"c:3\" ];"),
	 1, 0, 5, "source: a list needs one entry per match.name value (2)"},
	{"source not a string",
	 RULE(EXE, "priority = { nice = 5; };\nsource = 3;"), 1, 0, 5,
	 "source: expected a string"},
	{"empty rules array", "rules = [];\n", 0, 0, 0, NULL},
	{"syntax error", HEAD "{ name = \"r\" match = };\n);\n", 1, 0, 3,
	 "syntax error"},
	{"duplicate setting", RULE(EXE, "priority = { nice = 1; nice = 2; };"),
	 1, 0, 4, "duplicate setting"},
	{"unknown top-level key", "version = 1;\nrulez = ();\n", 1, 0, 2,
	 "unknown key 'rulez' (valid here: version, rules)"},
	{"unknown rule key", RULE(EXE, "priorty = { nice = 5; };"), 1, 0, 4,
	 "unknown key 'priorty'"},
	{"unknown match key",
	 HEAD "{ name = \"r\";\nmatch = { " EXE "\n exec = \"/x\"; };\n}\n);\n",
	 1, 0, 5, "unknown key 'match.exec'"},
	{"unknown priority key", RULE(EXE, "priority = { nicety = 5; };"), 1, 0,
	 4, "unknown key 'priority.nicety'"},
	{"unknown placement key", RULE(EXE, "placement = { cpu = \"0\"; };"), 1,
	 0, 4,
	 "unknown key 'placement.cpu' (valid here: cores, cpus, spread, "
	 "hard)"},
	{"unknown power key", RULE(EXE, "power = { parkin = \"off\"; };"), 1, 0,
	 4, "unknown key 'power.parkin'"},
	{"string for integer", RULE(EXE, "priority = { nice = \"5\"; };"), 1, 0,
	 4, "priority.nice: expected an integer, got a string"},
	{"float for integer", RULE(EXE, "priority = { nice = 5.0; };"), 1, 0, 4,
	 "priority.nice: expected an integer, got a float"},
	{"integer for string", RULE("exe = 5;", "priority = { nice = 5; };"), 1,
	 0, 3, "match.exe: expected a string, got an integer"},
	{"string for boolean",
	 RULE(EXE, "priority = { nice = 5; };\nallow_spoofable = \"yes\";"), 1,
	 0, 5, "allow_spoofable: expected true or false, got a string"},
	{"scalar for group", HEAD "{ name = \"r\";\nmatch = \"/x\"; }\n);\n", 1,
	 0, 4, "match: expected a group"},
	{"group for rules list", "rules = { a = 1; };\n", 1, 0, 1,
	 "rules: expected a list"},
	{"rule not a group", HEAD "\"r\"\n);\n", 1, 0, 3,
	 "each rule must be a group"},
	{"nice too high", RULE(EXE, "priority = { nice = 20; };"), 1, 0, 4,
	 "priority.nice: 20 is out of range (-20..19)"},
	{"nice too low", RULE(EXE, "priority = { nice = -21; };"), 1, 0, 4,
	 "out of range (-20..19)"},
	{"nice wrapped by libconfig",
	 RULE(EXE, "priority = { nice = 4294967297; };"), 1, 0, 4,
	 "integer 4294967297 is out of range"},
	{"hex wrapped by libconfig",
	 RULE(EXE, "priority = { nice = 0xffffffff; };"), 1, 0, 4,
	 "integer 0xffffffff is out of range"},
	{"wrapped integer hides nothing else on its line",
	 RULE(EXE, "power = { min_online = 101; idle_latency_us = "
		   "4294967297; };"),
	 2, 0, 4, "integer 4294967297 is out of range"},
	{"64-bit integer", RULE(EXE, "priority = { nice = 5L; };"), 0, 0, 0,
	 NULL},
	{"io_level too high",
	 RULE(EXE, "priority = { io_class = \"best-effort\"; io_level = 8; };"),
	 1, 0, 4, "priority.io_level: 8 is out of range (0..7)"},
	{"rt_priority zero",
	 RULE(EXE_ROOT, "priority = { policy = \"fifo\"; rt_priority = 0; };"),
	 1, 0, 4, "priority.rt_priority: 0 is out of range (1..99)"},
	{"rt_priority too high",
	 RULE(EXE_ROOT, "priority = { policy = \"rr\"; rt_priority = 100; };"),
	 1, 0, 4, "(1..99)"},
	{"min_online over 100", RULE(EXE, "power = { min_online = 101; };"), 1,
	 0, 4, "power.min_online: 101 is out of range (0..100)"},
	{"idle latency negative",
	 RULE(EXE, "power = { idle_latency_us = -1; };"), 1, 0, 4,
	 "power.idle_latency_us: -1 is out of range"},
	{"bad class", RULE(EXE, "priority = { class = \"hgh\"; };"), 1, 0, 4,
	 "priority.class: 'hgh' is not valid (valid: idle, below-normal, "
	 "normal, above-normal, high, realtime)"},
	{"bad policy", RULE(EXE, "priority = { policy = \"deadline\"; };"), 1,
	 0, 4, "(valid: other, batch, idle, fifo, rr)"},
	{"bad io_class", RULE(EXE, "priority = { io_class = \"none\"; };"), 1,
	 0, 4, "(valid: realtime, best-effort, idle)"},
	{"bad cores", RULE(EXE, "placement = { cores = \"big\"; };"), 1, 0, 4,
	 "(valid: all, performance, efficiency)"},
	{"bad spread", RULE(EXE, "placement = { spread = \"socket\"; };"), 1, 0,
	 4, "(valid: none, numa, package, kind, group)"},
	{"bad parking", RULE(EXE, "power = { parking = \"no\"; };"), 1, 0, 4,
	 "(valid: on, off)"},
	{"bad governor", RULE(EXE, "power = { governor = \"turbo\"; };"), 1, 0,
	 4, "power.governor: 'turbo' is not valid (valid: performance,"},
	{"bad epp", RULE(EXE, "power = { epp = \"fast\"; };"), 1, 0, 4,
	 "power.epp: 'fast' is not valid"},
	{"bad profile", RULE(EXE, "power = { profile = \"silent\"; };"), 1, 0,
	 4, "power.profile: 'silent' is not valid"},
	{"turbo not boolean", RULE(EXE, "power = { turbo = \"on\"; };"), 1, 0,
	 4, "power.turbo: expected true or false"},
	{"relative exe", RULE("exe = \"bin/x\";", "priority = { nice = 5; };"),
	 1, 0, 3, "match.exe: 'bin/x' is not an absolute path"},
	{"relative parent_exe",
	 RULE(EXE " parent_exe = \"bash\";", "priority = { nice = 5; };"), 1, 0,
	 3, "match.parent_exe: 'bash' is not an absolute path"},
	{"relative cgroup",
	 RULE(EXE " cgroup = \"user.slice\";", "priority = { nice = 5; };"), 1,
	 0, 3, "match.cgroup: 'user.slice' is not an absolute path"},
	{"unclosed bracket glob",
	 RULE("exe = \"/usr/bin/[ab\";", "priority = { nice = 5; };"), 1, 0, 3,
	 "match.exe: invalid glob '/usr/bin/[ab': '[' is never closed"},
	{"trailing backslash glob",
	 RULE(EXE " name = \"x\\\\\";", "priority = { nice = 5; };"), 1, 0, 3,
	 "ends with a lone backslash"},
	{"unknown character class",
	 RULE(EXE " name = \"[[:letter:]]*\";", "priority = { nice = 5; };"), 1,
	 0, 3, "unknown character class '[:letter:]'"},
	{"mixed array", RULE(EXE " user = [\"root\", 0];", ""), 1, 0, 3,
	 "mix names and numbers in a list"},
	{"string at the end of a multi-line list",
	 HEAD
	 "{ name = \"r\";\n match = { exe = [ \"/a\",\n \"b\" # comment\n\n"
	 " ]; }; }\n);\n",
	 1, 0, 5, "match.exe[1]: 'b' is not an absolute path"},
	{"glob in list element",
	 RULE("exe = [\"/a\", \"/b[\"];", "priority = { nice = 5; };"), 1, 0, 3,
	 "match.exe[1]: invalid glob"},
	{"empty list", RULE("exe = [];", "priority = { nice = 5; };"), 1, 0, 3,
	 "match.exe: empty list matches nothing"},
	{"empty pattern", RULE("exe = \"\";", "priority = { nice = 5; };"), 1,
	 0, 3, "match.exe: empty pattern"},
	{"duplicate rule name",
	 HEAD "{ name = \"r\"; match = { " EXE " }; },\n{ name = \"r\"; "
	      "match = { exe = \"/y\"; }; }\n);\n",
	 1, 0, 4, "duplicate rule name 'r' (first defined at t.rules:3)"},
	{"empty match", RULE("", "priority = { nice = 5; };"), 1, 0, 3,
	 "match is empty"},
	{"missing match",
	 HEAD "{ name = \"r\";\n priority = { nice = 5; }; }\n);\n", 1, 0, 3,
	 "rule has no match"},
	{"missing name", HEAD "{ match = { " EXE " }; }\n);\n", 1, 0, 3,
	 "rule has no name"},
	{"bad rule name", HEAD "{ name = \"a b\"; match = { " EXE " }; }\n);\n",
	 1, 0, 3, "name: 'a b' is not a valid rule name"},
	{"class with nice",
	 RULE(EXE, "priority = { class = \"high\";\nnice = -5; };"), 1, 0, 5,
	 "priority.nice conflicts with priority.class"},
	{"class with policy",
	 RULE(EXE, "priority = { class = \"idle\"; policy = \"batch\"; };"), 1,
	 0, 4, "priority.policy conflicts with priority.class"},
	{"cores with cpus",
	 RULE(EXE, "placement = { cores = \"all\"; cpus = \"0\"; };"), 1, 0, 4,
	 "placement.cpus conflicts with placement.cores"},
	{"rt_priority without realtime policy",
	 RULE(EXE, "priority = { rt_priority = 10; };"), 1, 0, 4,
	 "rt_priority needs policy"},
	{"rt_priority with realtime class",
	 RULE(EXE_ROOT,
	      "priority = { class = \"realtime\"; rt_priority = 10; };"),
	 0, 0, 0, NULL},
	{"io_level with idle io_class",
	 RULE(EXE, "priority = { io_class = \"idle\"; io_level = 3; };"), 1, 0,
	 4, "io_level has no meaning with io_class \"idle\""},
	{"nice with fifo",
	 RULE(EXE_ROOT, "priority = { policy = \"fifo\"; nice = 3; };"), 0, 1,
	 4, "priority.nice has no effect with a realtime policy"},
	{"malformed cpus", RULE(EXE, "placement = { cpus = \"0-3,x\"; };"), 1,
	 0, 4, "placement.cpus: '0-3,x': expected a CPU number"},
	{"backwards cpus", RULE(EXE, "placement = { cpus = \"3-1\"; };"), 1, 0,
	 4, "range 3-1 runs backwards"},
	{"cpu out of range", RULE(EXE, "placement = { cpus = \"9000\"; };"), 1,
	 0, 4, "CPU number out of range (0..8191)"},
	{"unknown user",
	 RULE(EXE " user = \"no-such-user-x\";", "priority = { nice = 5; };"),
	 0, 1, 3, "match.user: unknown user 'no-such-user-x'"},
	{"unknown group",
	 RULE(EXE " group = [\"root\", \"no-such-group-x\"];",
	      "priority = { nice = 5; };"),
	 0, 1, 3, "match.group[1]: unknown group 'no-such-group-x'"},
	{"negative uid", RULE(EXE " user = -1;", "priority = { nice = 5; };"),
	 1, 0, 3, "match.user: -1 is out of range"},
	{"shadowed rule",
	 HEAD "{ name = \"a\"; match = { " EXE " }; },\n{ name = \"b\"; match "
	      "= { " EXE
	      " user = \"root\"; }; priority = { nice = 1; }; }\n);\n",
	 0, 1, 4, "rule 'b' never matches: rule 'a' (t.rules:3)"},
	{"not shadowed by a narrower rule",
	 HEAD "{ name = \"a\"; match = { " EXE
	      " user = \"root\"; }; },\n{ name "
	      "= \"b\"; match = { " EXE " }; }\n);\n",
	 0, 0, 0, NULL},
	{"not shadowed by a glob",
	 HEAD "{ name = \"a\"; match = { exe = \"/usr/bin/*\"; }; },\n{ name "
	      "= \"b\"; match = { " EXE " }; }\n);\n",
	 0, 0, 0, NULL},
	{"spoofable raise by name",
	 RULE("name = \"game\";", "priority = { nice = -5; };"), 1, 0, 3,
	 "rule 'r' raises priority or power but matches only on name"},
	{"spoofable raise by class",
	 RULE("cmdline = \"*server*\";", "priority = { class = \"high\"; };"),
	 1, 0, 3, "add exe, user, group or cgroup"},
	{"spoofable realtime policy",
	 RULE("name = \"x\";", "priority = { policy = \"rr\"; };"), 1, 0, 3,
	 "raises priority or power"},
	{"spoofable power",
	 RULE("name = \"x\"; parent_exe = \"/usr/bin/bash\";",
	      "power = { governor = \"performance\"; };"),
	 1, 0, 3, "raises priority or power"},
	{"spoofable allowed",
	 RULE("name = \"x\";",
	      "priority = { nice = -5; };\nallow_spoofable = true;"),
	 0, 1, 3, "can be triggered by any process"},
	{"name raise limited by user",
	 RULE("name = \"x\"; user = \"root\";", "priority = { nice = -5; };"),
	 0, 0, 0, NULL},
	{"name lowering is fine",
	 RULE("name = \"x\";", "priority = { class = \"idle\"; };"), 0, 0, 0,
	 NULL},
	{"follow_children asked of a lowering rule",
	 RULE(EXE, "priority = { nice = 5; };\nfollow_children = true;"), 0, 0,
	 0, NULL},
	{"follow_children refused to a raising rule",
	 RULE(EXE, "priority = { nice = -5; };\nfollow_children = false;"), 1,
	 0, 5,
	 "follow_children = false: rule 'r' raises priority, and a raise its "
	 "children inherit must not outlive its match"},
	{"follow_children refused to a rule raising I/O",
	 RULE(EXE, "priority = { io_class = \"best-effort\"; io_level = 0; "
		   "};\nfollow_children = false;"),
	 1, 0, 5, "follow_children = false: rule 'r' raises priority"},
	{"restrain = false",
	 RULE(EXE, "priority = { nice = 5; };\nrestrain = false;"), 0, 0, 0,
	 NULL},
	{"restrain with settings of its own",
	 RULE(EXE, "restrain = { nice = 19; policy = \"idle\"; };"), 0, 0, 0,
	 NULL},
	{"restrain that raises", RULE(EXE, "restrain = { nice = -5; };"), 1, 0,
	 4, "restrain: a restraint only lowers"},
	{"restrain beside a priority",
	 RULE(EXE, "priority = { nice = 5; };\nrestrain = { nice = 19; };"), 1,
	 0, 5, "restrain: rule 'r' sets a priority, which restraint leaves"},
	{"restrain = true beside a priority",
	 RULE(EXE, "priority = { nice = 5; };\nrestrain = true;"), 1, 0, 5,
	 "restrain = true: rule 'r' sets a priority"},
	{"foreground settings", RULE(EXE, "foreground = { nice = -5; };"), 0, 0,
	 0, NULL},
	{"foreground raise by name",
	 RULE("name = \"game\";", "foreground = { nice = -5; };"), 1, 0, 3,
	 "rule 'r' raises priority or power but matches only on name"},
	{"foreground lowering by name",
	 RULE("name = \"game\";", "foreground = { io_class = \"idle\"; };"), 0,
	 0, 0, NULL},
	{"foreground realtime",
	 RULE(EXE, "foreground = { policy = \"fifo\"; };"), 1, 0, 4,
	 "foreground: realtime scheduling and ifeo are not given"},
	{"foreground empty", RULE(EXE, "foreground = { };"), 0, 1, 4,
	 "foreground is empty"},
	{"foreground not a group", RULE(EXE, "foreground = true;"), 1, 0, 4,
	 "foreground: expected a group { ... }"},
	{"restrain not a group", RULE(EXE, "restrain = 3;"), 1, 0, 4,
	 "restrain: expected true, false or a group { ... }, got an integer"},
	{"follow_children not a boolean",
	 RULE(EXE, "priority = { nice = 5; };\nfollow_children = 1;"), 1, 0, 5,
	 "follow_children: expected true or false, got an integer"},
	{"allow_spoofable not needed",
	 RULE(EXE, "priority = { nice = -5; };\nallow_spoofable = true;"), 0, 1,
	 5, "allow_spoofable has no effect"},
	{"realtime class on exe alone",
	 RULE(EXE, "priority = { class = \"realtime\"; };"), 0, 1, 3,
	 "rule 'r' grants realtime scheduling to every user who can run its "
	 "exe (with LD_PRELOAD, under ptrace, with any input): add user, group "
	 "or cgroup to the match"},
	{"fifo on exe alone", RULE(EXE, "priority = { policy = \"fifo\"; };"),
	 0, 1, 3, "grants realtime scheduling to every user"},
	{"rr on a glob exe alone",
	 RULE("exe = \"/opt/*/bin/x\";", "priority = { policy = \"rr\"; };"), 0,
	 1, 3, "grants realtime scheduling to every user"},
	{"realtime I/O on exe alone",
	 RULE(EXE, "priority = { io_class = \"realtime\"; };"), 0, 1, 3,
	 "grants realtime scheduling to every user"},
	{"power on exe alone",
	 RULE(EXE, "power = { governor = \"performance\"; };"), 0, 1, 3,
	 "rule 'r' holds power settings for every user who can run its exe"},
	{"realtime and power on exe alone",
	 RULE(EXE, "priority = { class = \"realtime\"; };\npower = { "
		   "parking = \"off\"; };"),
	 0, 1, 3,
	 "grants realtime scheduling and power settings to every user"},
	{"name and cmdline do not narrow an exe",
	 RULE(EXE " name = \"x\"; cmdline = \"x *\";",
	      "power = { turbo = true; };"),
	 0, 1, 3, "holds power settings for every user"},
	{"realtime narrowed by user",
	 RULE(EXE_ROOT, "priority = { class = \"realtime\"; };"), 0, 0, 0,
	 NULL},
	{"power narrowed by group",
	 RULE(EXE " group = 0;", "power = { epp = \"performance\"; };"), 0, 0,
	 0, NULL},
	{"realtime narrowed by cgroup",
	 RULE(EXE " cgroup = \"/system.slice/x.service\";",
	      "priority = { policy = \"fifo\"; };"),
	 0, 0, 0, NULL},
	{"high on exe alone is no realtime",
	 RULE(EXE, "priority = { class = \"high\"; };"), 0, 0, 0, NULL},
	{"long process name",
	 RULE(EXE " name = \"averyveryverylongname\";",
	      "priority = { nice = 5; };"),
	 0, 1, 3, "longer than 15 characters and never matches"},
	{"empty priority", RULE(EXE, "priority = { };"), 0, 1, 4,
	 "priority is empty"},
	{"version 2", "version = 2;\nrules = ();\n", 1, 0, 1,
	 "version: 2 is not supported"},
	{"include", "version = 1;\n@include \"/etc/passwd\"\n", 1, 0, 2,
	 "@include is not supported"},

	{"all errors of a file",
	 HEAD "{ name = \"a\"; match = { exe = \"x\"; }; },\n{ name = \"b\"; "
	      "match = { " EXE " }; priority = { nice = 99; }; },\n{ name = "
	      "\"c\"; match = { " EXE " }; placement = { spread = \"x\"; }; }"
	      "\n);\n",
	 3, 1, 3, "match.exe: 'x' is not an absolute path"},
};

static const struct system_case system_cases[] = {
	/* thread: every level, on both systems. */
	{"thread idle", LNX, RULE(EXE, "priority = { thread = \"idle\"; };"), 0,
	 0, 0, NULL},
	{"thread lowest", LNX,
	 RULE(EXE, "priority = { thread = \"lowest\"; };"), 0, 0, 0, NULL},
	{"thread below-normal", LNX,
	 RULE(EXE, "priority = { thread = \"below-normal\"; };"), 0, 0, 0,
	 NULL},
	{"thread normal", LNX,
	 RULE(EXE, "priority = { thread = \"normal\"; };"), 0, 0, 0, NULL},
	{"thread above-normal", LNX,
	 RULE(EXE, "priority = { thread = \"above-normal\"; };"), 0, 0, 0,
	 NULL},
	{"thread highest", LNX,
	 RULE(EXE, "priority = { thread = \"highest\"; };"), 0, 0, 0, NULL},
	{"thread time-critical", LNX,
	 RULE(EXE, "priority = { thread = \"time-critical\"; };"), 0, 0, 0,
	 NULL},
	{"thread time-critical on Windows", WIN,
	 RULE(WEXE, "priority = { thread = \"time-critical\"; };"), 0, 0, 0,
	 NULL},
	{"thread with a class", LNX,
	 RULE(EXE, "priority = { class = \"high\"; thread = \"highest\"; };"),
	 0, 0, 0, NULL},
	{"thread with nice", LNX,
	 RULE(EXE, "priority = { nice = 5; thread = \"lowest\"; };"), 0, 0, 0,
	 NULL},
	{"bad thread", LNX, RULE(EXE, "priority = { thread = \"top\"; };"), 1,
	 0, 4,
	 "priority.thread: 'top' is not valid (valid: idle, lowest, "
	 "below-normal, normal, above-normal, highest, time-critical)"},
	{"bad thread on Windows", WIN,
	 RULE(WEXE, "priority = { thread = 2; };"), 1, 0, 4,
	 "priority.thread: expected a string, got an integer"},
	{"thread under class realtime on Linux", LNX,
	 RULE(EXE_ROOT,
	      "priority = { class = \"realtime\";\nthread = \"highest\"; };"),
	 0, 1, 5,
	 "priority.thread has no effect on Linux with class \"realtime\": it "
	 "moves nice, which that policy ignores"},
	{"thread under class realtime on Windows", WIN,
	 RULE(WEXE_ROOT,
	      "priority = { class = \"realtime\";\nthread = \"highest\"; };"),
	 0, 0, 0, NULL},
	{"thread under class idle on Linux", LNX,
	 RULE(EXE, "priority = { class = \"idle\"; thread = \"lowest\"; };"), 0,
	 1, 4, "with class \"idle\": it moves nice"},
	{"thread under policy fifo on Linux", LNX,
	 RULE(EXE_ROOT,
	      "priority = { policy = \"fifo\"; thread = \"lowest\"; };"),
	 0, 1, 4, "with policy \"fifo\": it moves nice"},
	{"thread under policy batch", LNX,
	 RULE(EXE, "priority = { policy = \"batch\"; thread = \"lowest\"; };"),
	 0, 0, 0, NULL},
	{"spoofable raise by thread", LNX,
	 RULE("name = \"x\";", "priority = { thread = \"above-normal\"; };"), 1,
	 0, 3, "rule 'r' raises priority or power but matches only on name"},
	{"spoofable raise by thread time-critical on Windows", WIN,
	 RULE("name = \"x\";", "priority = { thread = \"time-critical\"; };"),
	 1, 0, 3, "raises priority or power"},
	{"thread normal by name lowers", LNX,
	 RULE("name = \"x\";", "priority = { thread = \"normal\"; };"), 0, 0, 0,
	 NULL},

	/* efficiency_mode: Windows only, warned of on Linux. */
	{"efficiency_mode off on Windows", WIN,
	 RULE(WEXE, "priority = { efficiency_mode = \"off\"; };"), 0, 0, 0,
	 NULL},
	{"efficiency_mode on on Windows", WIN,
	 RULE(WEXE, "priority = { efficiency_mode = \"on\"; };"), 0, 0, 0,
	 NULL},
	{"efficiency_mode system on Windows", WIN,
	 RULE(WEXE, "priority = { efficiency_mode = \"system\"; };"), 0, 0, 0,
	 NULL},
	{"a Linux exe path checked for Windows", WIN,
	 RULE(EXE, "priority = { class = \"idle\"; };"), 0, 1, 3,
	 "match.exe: '/usr/bin/x' is a Linux path: on Windows it never "
	 "matches"},
	{"power on exe alone on Windows", WIN,
	 RULE(WEXE, "power = { parking = \"off\"; };"), 0, 1, 3,
	 "rule 'r' holds power settings for every user who can run its exe "
	 "(with a DLL of theirs injected, under a debugger, with any input): "
	 "add user or group to the match"},
	/* placement.hard: Linux has no soft placement. */
	{"placement hard = false on Linux", LNX,
	 RULE(EXE, "placement = { cores = \"performance\"; hard = false; };"),
	 0, 1, 4,
	 "placement.hard = false has no effect on Linux: a thread's affinity "
	 "is always hard there"},
	{"placement hard = false on Windows", WIN,
	 RULE(WEXE, "placement = { cpus = \"0-3\"; hard = false; };"), 0, 0, 0,
	 NULL},
	{"placement hard alone", WIN,
	 RULE(WEXE, "placement = { hard = true; };"), 0, 1, 4,
	 "placement.hard alone places nothing: it says how cores, cpus or "
	 "spread apply"},
	{"efficiency_mode on Linux", LNX,
	 RULE(EXE, "priority = { efficiency_mode = \"off\"; };"), 0, 1, 4,
	 "priority.efficiency_mode applies on Windows only; on Linux it is "
	 "ignored"},
	/* ifeo: Windows only; a glob asked to write is warned of. */
	{"ifeo off on Windows", WIN,
	 RULE(WEXE, "priority = { class = \"idle\"; ifeo = \"off\"; };"), 0, 0,
	 0, NULL},
	{"ifeo class on a literal full path", WIN,
	 RULE(WEXE, "priority = { class = \"idle\"; ifeo = \"class\"; };"), 0,
	 0, 0, NULL},
	{"a folder glob without ifeo writes nothing: no warning", WIN,
	 RULE("exe = \"C:/x/*/tool.exe\";",
	      "priority = { class = \"idle\"; };"),
	 0, 0, 0, NULL},
	{"ifeo class+io asked on a folder glob", WIN,
	 RULE("exe = \"C:/x/*/tool.exe\";",
	      "priority = { class = \"idle\"; ifeo = \"class+io\"; };"),
	 0, 1, 4,
	 "priority.ifeo: exe 'C:/x/*/tool.exe' is a glob, and Windows keys "
	 "PerfOptions by file name alone: every program called tool.exe on "
	 "this machine, in any folder, starts with them"},
	{"ifeo asked on a file-name glob", WIN,
	 RULE("exe = \"C:/x/*.exe\";",
	      "priority = { class = \"idle\"; ifeo = \"class\"; };"),
	 0, 1, 4,
	 "priority.ifeo: exe 'C:/x/*.exe' names no one file name: nothing is "
	 "written for it"},
	{"ifeo asked on a name glob", WIN,
	 RULE("name = \"to*\";",
	      "priority = { class = \"idle\"; ifeo = \"class\"; };"),
	 0, 1, 4, "priority.ifeo: name 'to*' is a glob: nothing is written"},
	{"ifeo asked with a class PerfOptions cannot give", WIN,
	 RULE(WEXE, "priority = { class = \"normal\"; ifeo = \"class\"; };"), 0,
	 1, 4, "priority.ifeo has no effect"},
	{"ifeo on Linux", LNX,
	 RULE(EXE, "priority = { class = \"idle\"; ifeo = \"class\"; };"), 0, 1,
	 4, "priority.ifeo applies on Windows only; on Linux it is ignored"},
	{"bad ifeo", WIN,
	 RULE(WEXE, "priority = { class = \"idle\"; ifeo = true; };"), 1, 0, 4,
	 "priority.ifeo: expected a string, got a boolean"},
	{"bad efficiency_mode", LNX,
	 RULE(EXE, "priority = { efficiency_mode = \"eco\"; };"), 1, 0, 4,
	 "priority.efficiency_mode: 'eco' is not valid (valid: off, on, "
	 "system)"},
	{"efficiency_mode not a string on Windows", WIN,
	 RULE(WEXE, "priority = { efficiency_mode = false; };"), 1, 0, 4,
	 "priority.efficiency_mode: expected a string, got a boolean"},
	{"spoofable raise by efficiency_mode off", WIN,
	 RULE("name = \"x\";", "priority = { efficiency_mode = \"off\"; };"), 1,
	 0, 3, "raises priority or power"},
	{"efficiency_mode on by name lowers", WIN,
	 RULE("name = \"x\";", "priority = { efficiency_mode = \"on\"; };"), 0,
	 0, 0, NULL},

	/* spread = "group", and what Windows cannot apply. */
	{"spread group", LNX, RULE(EXE, "placement = { spread = \"group\"; };"),
	 0, 0, 0, NULL},
	{"spread group on Windows", WIN,
	 RULE(WEXE, "placement = { cores = \"performance\"; spread = "
		    "\"group\"; };"),
	 0, 0, 0, NULL},
	{"cgroup on Windows", WIN,
	 RULE(WEXE " cgroup = \"/system.slice/x.service\";",
	      "priority = { class = \"idle\"; };"),
	 1, 0, 3, "match.cgroup: Windows has no cgroups"},
	{"cgroup list on Windows", WIN,
	 RULE(WEXE " cgroup = [\"/a\", \"/b\"];", ""), 1, 0, 3,
	 "match.cgroup: Windows has no cgroups"},
	{"governor on Windows", WIN,
	 RULE(WEXE_ROOT, "power = { governor = \"performance\"; };"), 1, 0, 4,
	 "power.governor: Windows has no cpufreq governors"},
	{"bad governor on Windows is only an error", WIN,
	 RULE(WEXE_ROOT, "power = { governor = \"turbo\"; };"), 1, 0, 4,
	 "power.governor: 'turbo' is not valid"},
	{"plan by name on Windows", WIN,
	 RULE(WEXE_ROOT, "power = { plan = \"high-performance\"; };"), 0, 0, 0,
	 NULL},
	{"plan by GUID as powercfg shows it", WIN,
	 RULE(WEXE_ROOT, "power = { plan = "
			 "\"{1234ABCD-F694-41F0-9685-FF5BB260DF2E}\"; };"),
	 0, 0, 0, NULL},
	{"bad plan", WIN, RULE(WEXE_ROOT, "power = { plan = \"fast\"; };"), 1,
	 0, 4, "power.plan: 'fast' is not a power plan"},
	{"plan on Linux", LNX,
	 RULE(EXE_ROOT, "power = { plan = \"balanced\"; };"), 1, 0, 4,
	 "power.plan: Linux has no power plans"},
	{"profile under a plan not Balanced", WIN,
	 RULE(WEXE_ROOT, "power = { plan = \"power-saver\"; profile = "
			 "\"performance\"; };"),
	 0, 1, 4, "Windows offers power modes only under the Balanced plan"},
	{"nice on Windows", WIN, RULE(WEXE, "priority = { nice = 5; };"), 0, 1,
	 4,
	 "priority.nice applies on Linux only; on Windows it is ignored (use "
	 "class)"},
	{"policy on Windows", WIN,
	 RULE(WEXE, "priority = { policy = \"batch\"; };"), 0, 1, 4,
	 "priority.policy applies on Linux only"},
	{"rt_priority on Windows", WIN,
	 RULE(WEXE_ROOT,
	      "priority = { class = \"realtime\";\nrt_priority = 5; };"),
	 0, 1, 5,
	 "priority.rt_priority applies on Linux only; on Windows it is "
	 "ignored (REALTIME_PRIORITY_CLASS has no levels)"},
	{"I/O priority on Windows", WIN,
	 RULE(WEXE,
	      "priority = { io_class = \"best-effort\"; io_level = 7; };"),
	 0, 0, 0, NULL},
	{"memory_priority on Linux", LNX,
	 RULE(EXE, "priority = { memory_priority = \"low\"; };"), 0, 1, 4,
	 "priority.memory_priority applies on Windows only; on Linux it is "
	 "ignored"},
	{"memory_priority on Windows", WIN,
	 RULE(WEXE, "priority = { memory_priority = \"very-low\"; };"), 0, 0, 0,
	 NULL},
	{"bad memory_priority", WIN,
	 RULE(WEXE, "priority = { memory_priority = \"high\"; };"), 1, 0, 4,
	 "priority.memory_priority: 'high' is not valid"},
	{"idle_latency_us on Windows", WIN,
	 RULE(WEXE_ROOT, "power = { idle_latency_us = 0; };"), 0, 1, 4,
	 "power.idle_latency_us applies on Linux only; on Windows it is "
	 "ignored"},
	{"bad nice on Windows is only an error", WIN,
	 RULE(WEXE, "priority = { nice = 50; };"), 1, 0, 4,
	 "priority.nice: 50 is out of range"},
	{"long process name on Windows", WIN,
	 RULE(WEXE " name = \"averyveryverylongname.exe\";",
	      "priority = { class = \"idle\"; };"),
	 0, 0, 0, NULL},
	{"every Windows key on Windows", WIN,
	 RULE(WEXE_ROOT " group = \"root\"; name = \"x\"; cmdline = \"*\"; "
			"parent_exe = \"C:/x\";",
	      "priority = { class = \"high\"; thread = \"highest\"; "
	      "efficiency_mode = \"off\"; };\nplacement = { cpus = \"0-3\"; "
	      "spread = \"group\"; };\npower = { parking = \"off\"; "
	      "min_online = 50; epp = \"performance\"; profile = "
	      "\"performance\"; turbo = true; };"),
	 0, 0, 0, NULL},
	{"the Linux keys on Windows", WIN,
	 RULE(WEXE " user = \"root\"; group = \"root\"; cgroup = "
		   "\"/system.slice/*\";",
	      "priority = { class = \"high\"; io_class = \"best-effort\"; "
	      "io_level = 2; };\nplacement = { cores = \"performance\"; "
	      "spread = \"numa\"; };\npower = { parking = \"off\"; "
	      "min_online = 50; idle_latency_us = 0; governor = "
	      "\"performance\"; epp = \"performance\"; profile = "
	      "\"performance\"; turbo = true; };"),
	 2, 1, 3, "match.cgroup: Windows has no cgroups"},
};

static void check_case(const struct rule_case *c, enum rules_system system)
{
	struct rules rules;
	struct diag diag;
	char first[1024] = "";

	rules_init(&rules);
	rules.system = system;
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", c->text, strlen(c->text), &diag);
	if (diag.count)
		diag_format(&diag.entries[0], first, sizeof(first));
	if (diag.errors != c->errors || diag.warnings != c->warnings) {
		diag_print(&diag, stderr, true);
		fail_msg("%s: %zu errors, %zu warnings; expected %zu, %zu",
			 c->name, diag.errors, diag.warnings, c->errors,
			 c->warnings);
	}
	if (c->message) {
		char where[32];

		assert_int_equal(diag.entries[0].line, c->line);
		snprintf(where, sizeof(where), "t.rules:%u: ", c->line);
		assert_memory_equal(first, where, strlen(where));
		if (!strstr(diag.entries[0].message, c->message))
			fail_msg("%s: got '%s', expected it to contain '%s'",
				 c->name, first, c->message);
	}
	diag_free(&diag);
	rules_free(&rules);
}

static void test_rule_case(void **state)
{
	check_case(*state, RULES_SYSTEM_LINUX);
}

static void test_system_case(void **state)
{
	const struct system_case *c = *state;
	const struct rule_case rc = {c->name,	  c->text, c->errors,
				     c->warnings, c->line, c->message};

	check_case(&rc, c->system);
}

/* A NUL in the text would end libconfig's string early: what follows it
 * would never be checked. */
static void test_nul_byte(void **state)
{
	static const char text[] = "version = 1;\n\n\0rules = ();\n";
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, sizeof(text) - 1, &diag);
	assert_int_equal(diag.errors, 1);
	assert_int_equal(diag.entries[0].line, 3);
	assert_non_null(strstr(diag.entries[0].message, "NUL"));
	diag_free(&diag);
	rules_free(&rules);
}

static void test_duplicate_across_files(void **state)
{
	static const char a[] =
		HEAD "{ name = \"x\"; match = { " EXE " }; }\n);\n";
	static const char b[] =
		HEAD "\n{ name = \"x\"; match = { exe = \"/y\"; "
		     "}; }\n);\n";
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* its paths are Linux's */
	diag_init(&diag);
	rules_load_text(&rules, "a.rules", a, strlen(a), &diag);
	rules_load_text(&rules, "b.rules", b, strlen(b), &diag);
	assert_int_equal(diag.errors, 1);
	assert_string_equal(diag.entries[0].file, "b.rules");
	assert_int_equal(diag.entries[0].line, 4);
	assert_string_equal(diag.entries[0].message,
			    "duplicate rule name 'x' (first defined at "
			    "a.rules:3)");
	diag_free(&diag);
	rules_free(&rules);
}

/* explain's source note: the one of the name value the process matched. */
static void test_source_of_name(void **state)
{
	static const char text[] =
		"rules = ( { name = \"r\"; match = { name = [ \"a\", \"b*\" ]; "
		"}; priority = { nice = 5; };\n"
		"source = [ \"x/a.rules:1\", \"x/b.rules:2\" ]; },\n"
		"{ name = \"s\"; match = { name = \"c\"; }; priority = { nice "
		"= "
		"5; }; source = \"x/c.rules:3\"; },\n"
		"{ name = \"t\"; match = { name = \"d\"; }; priority = { nice "
		"= "
		"5; }; } );\n";
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	assert_string_equal(rules_source(&rules.list[0], "a"), "x/a.rules:1");
	assert_string_equal(rules_source(&rules.list[0], "bz"), "x/b.rules:2");
	assert_null(rules_source(&rules.list[0], "q"));
	assert_string_equal(rules_source(&rules.list[1], "c"), "x/c.rules:3");
	assert_string_equal(rules_source(&rules.list[1], NULL), "x/c.rules:3");
	assert_null(rules_source(&rules.list[2], "d"));
	diag_free(&diag);
	rules_free(&rules);
}

static void test_values_parsed(void **state)
{
	static const char text[] = RULE(
		EXE " user = (\"root\", 1234);",
		"priority = { policy = \"fifo\"; rt_priority = 7; io_class = "
		"\"realtime\"; io_level = 1; };\nplacement = { cpus = "
		"\"8,0-3,2-5\"; spread = \"package\"; };\npower = { turbo = "
		"false; idle_latency_us = 20; };");
	const struct rule *r;
	struct rules rules;
	struct diag diag;
	char cpus[64];

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* a numeric uid, Linux's keys */
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors + diag.warnings, 0);
	assert_int_equal(rules.count, 1);
	r = &rules.list[0];
	assert_string_equal(r->name, "r");
	assert_int_equal(r->line, 3);
	assert_int_equal(rules_match_more(&r->match)->user.count, 2);
	assert_int_equal(rules_match_more(&r->match)->user.values[0].id, 0);
	assert_int_equal(rules_match_more(&r->match)->user.values[1].id, 1234);
	assert_int_equal(r->priority.policy, RULE_POLICY_FIFO);
	assert_int_equal(r->priority.rt_priority, 7);
	assert_int_equal(r->priority.io_class, RULE_IO_CLASS_REALTIME);
	assert_int_equal(r->priority.io_level, 1);
	assert_false(r->priority.has_nice);
	cpulist_format(&rules_placement(r)->cpus, cpus, sizeof(cpus));
	assert_string_equal(cpus, "0-5,8");
	assert_int_equal(rules_placement(r)->spread, RULE_SPREAD_PACKAGE);
	assert_int_equal(rules_power(r)->turbo, RULE_TURBO_OFF);
	assert_int_equal(rules_power(r)->idle_latency_us, 20);
	assert_int_equal(rules_power(r)->min_online, -1);
	assert_true(rules_raises(r));
	assert_false(rules_spoofable(r));
	diag_free(&diag);
	rules_free(&rules);
}

/* Which rules' children are followed to their exec: those of a rule
 * that raises, places or holds power, or that asks; not those of a rule
 * that only lowers, unless it asks. */
static void test_follows_children(void **state)
{
	static const struct {
		const char *body;
		bool follows;
	} cases[] = {
		{"priority = { nice = 5; policy = \"batch\"; };", false},
		{"priority = { io_class = \"idle\"; };", false},
		{"priority = { nice = 0; };", false},
		{"priority = { nice = -5; };", true},
		{"priority = { policy = \"fifo\"; rt_priority = 1; };", true},
		{"priority = { io_class = \"best-effort\"; io_level = 2; };",
		 true},
		{"priority = { io_class = \"best-effort\"; io_level = 6; };",
		 false},
		{"placement = { cpus = \"0\"; };", true},
		{"power = { governor = \"performance\"; };", true},
		{"priority = { nice = 5; };\nfollow_children = true;", true},
		{"placement = { cpus = \"0\"; };\nfollow_children = false;",
		 false},
		{"power = { turbo = true; };\nfollow_children = false;", false},
	};
	char text[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rules rules;

		snprintf(text, sizeof(text),
			 "rules = ( { name = \"r\"; match = { exe = "
			 "\"/usr/bin/x\"; };\n%s } );\n",
			 cases[i].body);
		rulesfix_load(&rules, RULES_SYSTEM_LINUX, text);
		assert_int_equal(rules.count, 1);
		if (rules_follows_children(&rules.list[0]) != cases[i].follows)
			fail_msg("%s: children %sfollowed", cases[i].body,
				 cases[i].follows ? "not " : "");
		rules_free(&rules);
	}
}

static void test_windows_keys_parsed(void **state)
{
	struct memstream ms;
	static const char text[] = RULE(
		WEXE, "priority = { class = \"below-normal\"; thread = "
		      "\"highest\"; efficiency_mode = \"off\"; };\nplacement = "
		      "{ spread = \"group\"; };");
	static const char *const printed[] = {
		"  priority.class = below-normal\n",
		"  priority.thread = highest\n",
		"  priority.efficiency_mode = off\n",
		"  placement.spread = group\n",
	};
	const struct rule_priority *p;
	struct rules rules;
	struct diag diag;
	char *out = NULL;
	size_t size = 0;
	FILE *f;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_WINDOWS;
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors + diag.warnings, 0);
	p = &rules.list[0].priority;
	assert_int_equal(p->thread, RULE_THREAD_HIGHEST);
	assert_int_equal(p->efficiency_mode, RULE_EFFICIENCY_OFF);
	assert_int_equal(rules_placement(&rules.list[0])->spread,
			 RULE_SPREAD_GROUP);
	assert_true(rules_places(&rules.list[0]));
	assert_true(rules_raises(&rules.list[0]));
	f = memstream_open(&ms);
	rules_print(&rules, f);
	out = memstream_close(&ms, &size);
	for (size_t i = 0; i < ARRAY_SIZE(printed); i++)
		if (!strstr(out, printed[i]))
			fail_msg("'%s' not in:\n%s", printed[i], out);
	free(out);
	diag_free(&diag);
	rules_free(&rules);
}

/* A set nobody named a system for is checked for the one built for. */
static void test_native_system(void **state)
{
	static const char text[] = RULE(
		"name = \"x\";", "priority = { efficiency_mode = \"on\"; };");
	bool linux_build = system_native() == RULES_SYSTEM_LINUX;
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	assert_int_equal(rules.system, RULES_SYSTEM_NATIVE);
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.warnings, linux_build ? 1 : 0);
	if (linux_build)
		assert_non_null(strstr(diag.entries[0].message,
				       "on Linux it is ignored"));
	diag_free(&diag);
	rules_free(&rules);
}

/* Enough rules to move the rule array several times while the name and
 * exe maps point into it. */
/* A daemon keeps every rule while it runs: with 20,000 of them each
 * byte of struct rule is 20 KB of its memory (400 bytes a rule when
 * placement and power were inline). What few rules have stays behind a
 * pointer, and a rule without them has none: the unset values come from
 * rules_placement and rules_power. */
static void test_rule_layout(void **state)
{
	static const char text[] =
		HEAD "{ name = \"a\"; match = { " EXE " }; },\n"
		     "{ name = \"b\"; match = { exe = \"/y\"; };\n"
		     "placement = { cores = \"performance\"; };\n"
		     "power = { turbo = false; }; }\n);\n";
	struct rules rules;
	struct diag diag;

	(void)state;
	assert_true(sizeof(struct rule) <= 256);
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* its paths are Linux's */
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	assert_int_equal(diag.errors, 0);
	assert_null(rules.list[0].extra);
	assert_int_equal(rules_power(&rules.list[0])->min_online, -1);
	assert_int_equal(rules_power(&rules.list[0])->idle_latency_us, -1);
	assert_false(rules_places(&rules.list[0]));
	assert_false(rules_has_power(&rules.list[0]));
	assert_int_equal(rules_placement(&rules.list[1])->cores,
			 RULE_CORES_PERFORMANCE);
	assert_int_equal(rules_power(&rules.list[1])->turbo, RULE_TURBO_OFF);
	assert_int_equal(rules_power(&rules.list[1])->min_online, -1);
	assert_true(rules_has_power(&rules.list[1]));
	diag_free(&diag);
	rules_free(&rules);
}

static void test_many_rules(void **state)
{
	size_t n = 5000, cap = n * 80 + 64, used = 0;
	char *text = malloc(cap);
	struct rules rules;
	struct diag diag;

	(void)state;
	used += (size_t)snprintf(text, cap, "rules = (\n");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, cap - used,
					 "{ name = \"r%zu\"; match = { exe = "
					 "\"/bin/p%zu\"; }; },\n",
					 i, i % (n - 1));
	snprintf(text + used - 2, cap - used + 2, "\n);\n");
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX; /* its paths are Linux's */
	diag_init(&diag);
	rules_load_text(&rules, "t.rules", text, strlen(text), &diag);
	/* The last rule repeats the first one's exe. */
	assert_int_equal(diag.errors, 0);
	assert_int_equal(diag.warnings, 1);
	assert_non_null(strstr(diag.entries[0].message,
			       "rule 'r4999' never matches: rule 'r0'"));
	assert_int_equal(rules.count, n);
	diag_free(&diag);
	rules_free(&rules);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_duplicate_across_files),
		cmocka_unit_test(test_values_parsed),
		cmocka_unit_test(test_follows_children),
		cmocka_unit_test(test_source_of_name),
		cmocka_unit_test(test_many_rules),
		cmocka_unit_test(test_rule_layout),
		cmocka_unit_test(test_windows_keys_parsed),
		cmocka_unit_test(test_native_system),
	};
	int failed;

	failed = unit_run("rules", UNIT_TABLE(rule_cases, test_rule_case),
			  UNIT_TESTS(tests), NULL, NULL);
	return failed | unit_run("rules: systems",
				 UNIT_TABLE(system_cases, test_system_case),
				 NULL, 0, NULL, NULL);
}
