/* Image File Execution Options PerfOptions: which rules give a file name
 * values in the registry, which values, and what changes between plans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "ifeo.h"
#include "os.h"
#include "rules.h"
#include "util.h"

#define SPEC_MAX 4

/* One rule of a case: its exe and name patterns, a user or not, a class,
 * or no priority at all (placement only), and its priority.ifeo. */
struct spec {
	const char *exe[3];
	const char *name[3];
	bool user;
	enum rule_class class;
	enum rule_ifeo ifeo;
};

struct plan_case {
	const char *name;
	struct spec rules[SPEC_MAX];
	size_t count;
	enum ifeo_mode mode;
	const char *entries; /* "name cpu io #rule; ..." */
	const char *skips;   /* "name why #rule/other; ..." */
};

static const char *const why_names[] = {
	[IFEO_SKIP_WHY_RAISES] = "raises",
	[IFEO_SKIP_WHY_CONFLICT] = "conflict",
	[IFEO_SKIP_WHY_RESERVED] = "reserved",
	[IFEO_SKIP_WHY_NAME] = "name",
};

static const struct plan_case plan_cases[] = {
	{"idle: CpuPriorityClass 1, no IoPriority unless asked",
	 {{{"C:\\Tools\\indexer.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "indexer.exe 1 -1 #0",
	 ""},
	{"idle with ifeo class+io: IoPriority 0",
	 {{{"C:\\Tools\\indexer.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_CLASS_IO}},
	 1,
	 IFEO_MODE_LOWERING,
	 "indexer.exe 1 0 #0",
	 ""},
	{"below-normal: CpuPriorityClass 5",
	 {{{"C:\\Tools\\xz.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "xz.exe 5 -1 #0",
	 ""},
	{"below-normal with ifeo class+io: IoPriority 1",
	 {{{"C:\\Tools\\xz.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_CLASS_IO}},
	 1,
	 IFEO_MODE_LOWERING,
	 "xz.exe 5 1 #0",
	 ""},
	{"ifeo class: the class alone",
	 {{{"C:\\Tools\\xz.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_CLASS}},
	 1,
	 IFEO_MODE_LOWERING,
	 "xz.exe 5 -1 #0",
	 ""},
	{"ifeo off: a literal full path writes nothing",
	 {{{"C:\\Tools\\xz.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_OFF}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"ifeo off still claims the name: another rule must agree",
	 {{{"C:\\a\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_OFF},
	  {{"D:\\b\\tool.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #1/0"},
	{"one rule asks IoPriority, one of the name does not: nothing",
	 {{{"C:\\a\\tool.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_CLASS_IO},
	  {{"D:\\b\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #0/1"},
	{"above-normal raises: not while only lowering is allowed",
	 {{{"C:\\Apps\\render.exe"},
	   {0},
	   false,
	   RULE_CLASS_ABOVE_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 "render.exe raises #0"},
	{"above-normal when raising is allowed: 6, no IoPriority",
	 {{{"C:\\Apps\\render.exe"},
	   {0},
	   false,
	   RULE_CLASS_ABOVE_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "render.exe 6 -1 #0",
	 ""},
	{"high when raising is allowed: 3",
	 {{{"C:\\llama\\llama-server.exe"},
	   {0},
	   true,
	   RULE_CLASS_HIGH,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "llama-server.exe 3 -1 #0",
	 ""},
	{"high while only lowering",
	 {{{"C:\\llama\\llama-server.exe"},
	   {0},
	   true,
	   RULE_CLASS_HIGH,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 "llama-server.exe raises #0"},
	{"normal is never written",
	 {{{"C:\\Tools\\a.exe"},
	   {0},
	   false,
	   RULE_CLASS_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"realtime is never written",
	 {{{"C:\\Tools\\a.exe"},
	   {0},
	   true,
	   RULE_CLASS_REALTIME,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"no class: nothing",
	 {{{"C:\\Tools\\a.exe"},
	   {0},
	   false,
	   RULE_CLASS_UNSET,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"off: nothing at all",
	 {{{"C:\\Tools\\indexer.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_OFF,
	 "",
	 ""},
	{"a glob in the file name names no one file",
	 {{{"C:\\Tools\\*.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 ""},
	{"a glob in the folders only: not by default",
	 {{{"C:\\Program Files\\*\\tool.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"a glob in the folders only, ifeo class: the literal file name",
	 {{{"C:\\Program Files\\*\\tool.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_CLASS}},
	 1,
	 IFEO_MODE_LOWERING,
	 "tool.exe 1 -1 #0",
	 ""},
	{"a glob in the file name names no one file, even asked",
	 {{{"C:\\Tools\\*.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_CLASS_IO}},
	 1,
	 IFEO_MODE_ALL,
	 "",
	 ""},
	{"a rule's literal paths write, its globs do not",
	 {{{"C:\\VS\\*\\bin\\cl.exe", "C:\\LLVM\\bin\\clang.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "clang.exe 5 -1 #0",
	 ""},
	{"a glob that does not write still claims its file name",
	 {{{"C:\\VS\\*\\link.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET},
	  {{"C:\\Git\\usr\\bin\\link.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "link.exe conflict #1/0"},
	{"forward slashes and a UNC path",
	 {{{"C:/Tools/a.exe", "\\\\server\\share\\b.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "a.exe 1 -1 #0; b.exe 1 -1 #0",
	 ""},
	{"a literal name: not by default, as no exe is a full path",
	 {{{0},
	   {"notepad.exe"},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 ""},
	{"a literal name asked for: the very key Windows uses",
	 {{{0},
	   {"notepad.exe"},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_CLASS}},
	 1,
	 IFEO_MODE_LOWERING,
	 "notepad.exe 5 -1 #0",
	 ""},
	{"a name glob names no one file",
	 {{{0},
	   {"note*.exe"},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 ""},
	{"exe and name that agree, asked for",
	 {{{"C:\\x\\*"},
	   {"tool.exe"},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_CLASS}},
	 1,
	 IFEO_MODE_LOWERING,
	 "tool.exe 1 -1 #0",
	 ""},
	{"exe and name that never both hold",
	 {{{"C:\\x\\a.exe"},
	   {"b.exe"},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 ""},
	{"a user in the match: every user's copy is lowered alike",
	 {{{"C:\\ci\\build.exe"}, {0}, true, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "build.exe 1 -1 #0",
	 ""},
	{"the same name in two folders and cases, same values: once",
	 {{{"C:\\a\\Tool.EXE"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET},
	  {{"D:\\b\\tool.exe"}, {0}, true, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "Tool.EXE 1 -1 #0",
	 ""},
	{"the same name with other values: nothing written",
	 {{{"C:\\a\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET},
	  {{"D:\\b\\TOOL.exe"},
	   {0},
	   false,
	   RULE_CLASS_BELOW_NORMAL,
	   RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #0/1"},
	{"a rule of the same name that writes nothing disagrees",
	 {{{"C:\\a\\tool.exe"}, {0}, true, RULE_CLASS_UNSET, RULE_IFEO_UNSET},
	  {{"C:\\a\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #1/0"},
	{"a glob on the file name that may match it disagrees",
	 {{{"C:\\apps\\*"}, {0}, false, RULE_CLASS_NORMAL, RULE_IFEO_UNSET},
	  {{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #1/0"},
	{"a glob whose star may cross the last separator disagrees",
	 {{{"C:\\apps\\x*ol.exe"},
	   {0},
	   false,
	   RULE_CLASS_UNSET,
	   RULE_IFEO_UNSET},
	  {{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "",
	 "tool.exe conflict #1/0"},
	{"a glob that cannot match the file name does not",
	 {{{"C:\\apps\\*.com"}, {0}, false, RULE_CLASS_NORMAL, RULE_IFEO_UNSET},
	  {{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "tool.exe 1 -1 #1",
	 ""},
	{"a glob with the same values agrees",
	 {{{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET},
	  {{0}, {"TOOL*"}, true, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "tool.exe 1 -1 #0",
	 ""},
	{"a name glob with other values disagrees",
	 {{{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET},
	  {{0}, {"TOOL*"}, true, RULE_CLASS_HIGH, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_ALL,
	 "",
	 "tool.exe conflict #0/1"},
	{"a rule on neither exe nor name claims no name",
	 {{{0}, {0}, true, RULE_CLASS_NORMAL, RULE_IFEO_UNSET},
	  {{"C:\\x\\tool.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "tool.exe 1 -1 #1",
	 ""},
	{"a lowering and a raising name: only the lowering while lowering",
	 {{{"C:\\x\\low.exe"}, {0}, false, RULE_CLASS_IDLE, RULE_IFEO_UNSET},
	  {{"C:\\x\\high.exe"}, {0}, true, RULE_CLASS_HIGH, RULE_IFEO_UNSET}},
	 2,
	 IFEO_MODE_LOWERING,
	 "low.exe 1 -1 #0",
	 "high.exe raises #1"},
	{"a name Windows runs itself",
	 {{{"C:\\Users\\bob\\svchost.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 "svchost.exe reserved #0"},
	{"a name beyond ASCII",
	 {{{"C:\\x\\caf\xc3\xa9.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 "caf\xc3\xa9.exe name #0"},
	{"a separator inside brackets is no separator",
	 {{{"C:\\x[\\/]tool.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "",
	 ""},
	{"sorted without case",
	 {{{"C:\\x\\b.exe", "C:\\x\\C.exe", "C:\\x\\A.exe"},
	   {0},
	   false,
	   RULE_CLASS_IDLE,
	   RULE_IFEO_UNSET}},
	 1,
	 IFEO_MODE_LOWERING,
	 "A.exe 1 -1 #0; b.exe 1 -1 #0; C.exe 1 -1 #0",
	 ""},
};

static size_t spec_count(const char *const *values)
{
	size_t n = 0;

	while (n < 3 && values[n])
		n++;
	return n;
}

static void spec_rules(const struct spec *specs, size_t count,
		       struct rule *rules, struct rule_id *user)
{
	for (size_t i = 0; i < count; i++) {
		struct rule *r = &rules[i];

		*r = (struct rule){.name = "r"};
		r->match.exe.values = (char **)specs[i].exe;
		r->match.exe.count = spec_count(specs[i].exe);
		r->match.name.values = (char **)specs[i].name;
		r->match.name.count = spec_count(specs[i].name);
		if (specs[i].user) {
			struct rule_match_more *more =
				rules_match_more_add(&r->match);

			more->user.values = user;
			more->user.count = 1;
		}
		r->priority.class = specs[i].class;
		r->priority.ifeo = specs[i].ifeo;
		r->priority.io_level = -1;
		if (!specs[i].class)
			rules_placement_add(r)->cores = RULE_CORES_PERFORMANCE;
	}
}

/* What spec_rules made for them: their placements and user keys. */
static void spec_rules_free(struct rule *rules, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(rules[i].extra);
		free(rules[i].match.more);
	}
}

static bool reserved_stub(void *ctx, const char *name)
{
	(void)ctx;
	return ifeo_name_compare(name, "svchost.exe") == 0;
}

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used)
		used += (size_t)snprintf(buf + used, size - used, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
}

static void test_plan_case(void **state)
{
	const struct plan_case *c = *state;
	struct rule rules[SPEC_MAX];
	struct rule_id user = {"build", 1000, true};
	struct ifeo_plan plan;
	char entries[512] = "", skips[512] = "";

	spec_rules(c->rules, c->count, rules, &user);
	ifeo_plan_make(rules, c->count, c->mode, reserved_stub, NULL, &plan);
	spec_rules_free(rules, c->count);
	for (size_t i = 0; i < plan.count; i++) {
		const struct ifeo_entry *e = &plan.entries[i];

		append(entries, sizeof(entries), "%s %d %d #%zu", e->name,
		       (int)e->values.cpu_class, (int)e->values.io_priority,
		       e->rule);
	}
	for (size_t i = 0; i < plan.skip_count; i++) {
		const struct ifeo_skip *s = &plan.skips[i];

		if (s->why == IFEO_SKIP_WHY_CONFLICT)
			append(skips, sizeof(skips), "%s %s #%zu/%zu", s->name,
			       why_names[s->why], s->rule, s->other);
		else
			append(skips, sizeof(skips), "%s %s #%zu", s->name,
			       why_names[s->why], s->rule);
		assert_true(strlen(ifeo_skip_text(s->why)) > 10);
	}
	assert_string_equal(entries, c->entries);
	assert_string_equal(skips, c->skips);
	ifeo_plan_free(&plan);
}

struct value_case {
	const char *name;
	enum rule_class class;
	enum rule_ifeo ifeo;
	int cpu, io;
	bool raises;
	const char *said;
};

static const struct value_case value_cases[] = {
	{"unset", RULE_CLASS_UNSET, RULE_IFEO_UNSET, 0, -1, false, "nothing"},
	{"idle", RULE_CLASS_IDLE, RULE_IFEO_UNSET, 1, -1, false,
	 "CpuPriorityClass 1 (idle)"},
	{"idle, class+io", RULE_CLASS_IDLE, RULE_IFEO_CLASS_IO, 1, 0, false,
	 "CpuPriorityClass 1 (idle), IoPriority 0 (very low)"},
	{"below-normal", RULE_CLASS_BELOW_NORMAL, RULE_IFEO_CLASS, 5, -1, false,
	 "CpuPriorityClass 5 (below normal)"},
	{"below-normal, class+io", RULE_CLASS_BELOW_NORMAL, RULE_IFEO_CLASS_IO,
	 5, 1, false, "CpuPriorityClass 5 (below normal), IoPriority 1 (low)"},
	{"normal", RULE_CLASS_NORMAL, RULE_IFEO_CLASS_IO, 0, -1, false,
	 "nothing"},
	{"above-normal", RULE_CLASS_ABOVE_NORMAL, RULE_IFEO_UNSET, 6, -1, true,
	 "CpuPriorityClass 6 (above normal)"},
	{"high, class+io: no I/O raise", RULE_CLASS_HIGH, RULE_IFEO_CLASS_IO, 3,
	 -1, true, "CpuPriorityClass 3 (high)"},
	{"realtime", RULE_CLASS_REALTIME, RULE_IFEO_CLASS_IO, 0, -1, false,
	 "nothing"},
};

static void test_value_case(void **state)
{
	const struct value_case *c = *state;
	struct rule_priority p = {
		.class = c->class, .io_level = -1, .ifeo = c->ifeo};
	struct ifeo_values v = ifeo_values_of(&p);
	char said[128];

	assert_int_equal(v.cpu_class, c->cpu);
	assert_int_equal(v.io_priority, c->io);
	assert_int_equal(ifeo_values_raise(v), c->raises);
	assert_int_equal(ifeo_values_set(v), c->cpu != 0);
	ifeo_values_describe(v, said, sizeof(said));
	assert_string_equal(said, c->said);
}

/* Other priority keys do not reach PerfOptions: the daemon applies them. */
static void test_other_keys(void **state)
{
	struct rule_priority p = {
		.has_nice = true,
		.nice = -10,
		.io_class = RULE_IO_CLASS_REALTIME,
		.io_level = 0,
		.thread = RULE_THREAD_HIGHEST,
		.efficiency_mode = RULE_EFFICIENCY_OFF,
	};

	(void)state;
	assert_false(ifeo_values_set(ifeo_values_of(&p)));
	/* Nor does io_class: IoPriority comes only with ifeo = "class+io". */
	p.class = RULE_CLASS_IDLE;
	assert_int_equal(ifeo_values_of(&p).io_priority,
			 IFEO_IO_PRIORITY_UNSET);
	p.ifeo = RULE_IFEO_CLASS_IO;
	assert_int_equal(ifeo_values_of(&p).io_priority,
			 IFEO_IO_PRIORITY_VERY_LOW);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(ifeo_name_compare("Tool.EXE", "tool.exe"), 0);
	assert_true(ifeo_name_compare("a.exe", "B.exe") < 0);
	assert_true(ifeo_name_compare("tool.exe", "tool.ex") > 0);
	/* Beyond ASCII only the same bytes are the same. */
	assert_true(ifeo_name_compare("\xc3\x89.exe", "\xc3\xa9.exe") != 0);
}

static void make_plan(struct ifeo_plan *plan, const struct spec *specs,
		      size_t count)
{
	struct rule rules[SPEC_MAX];
	struct rule_id user = {"u", 1, true};

	spec_rules(specs, count, rules, &user);
	ifeo_plan_make(rules, count, IFEO_MODE_ALL, NULL, NULL, plan);
	spec_rules_free(rules, count);
}

static void test_find_and_put_back(void **state)
{
	const struct spec specs[] = {
		{{"C:\\x\\Indexer.exe"},
		 {0},
		 false,
		 RULE_CLASS_IDLE,
		 RULE_IFEO_UNSET},
		{{"C:\\x\\llama-server.exe"},
		 {0},
		 true,
		 RULE_CLASS_HIGH,
		 RULE_IFEO_UNSET},
	};
	struct rule other = {.priority = {.class = RULE_CLASS_BELOW_NORMAL}};
	struct rule same = {.priority = {.class = RULE_CLASS_IDLE}};
	const struct ifeo_entry *e;
	struct ifeo_plan plan;

	(void)state;
	make_plan(&plan, specs, 2);
	assert_int_equal(plan.count, 2);
	e = ifeo_find(&plan, "INDEXER.EXE");
	assert_non_null(e);
	assert_string_equal(e->name, "Indexer.exe");
	assert_int_equal(e->rule, 0);
	assert_non_null(ifeo_find(&plan, "llama-server.exe"));
	assert_null(ifeo_find(&plan, "indexer"));
	assert_null(ifeo_find(&plan, "zz.exe"));

	/* Unmatched, or matched by a rule with other values: put back. */
	assert_true(ifeo_put_back(e, NULL));
	assert_true(ifeo_put_back(e, &other));
	assert_false(ifeo_put_back(e, &same));
	ifeo_plan_free(&plan);
	assert_int_equal(plan.count, 0);
}

static void test_class_without(void **state)
{
	(void)state;
	assert_int_equal(ifeo_class_without(RULE_CLASS_IDLE), RULE_CLASS_IDLE);
	assert_int_equal(ifeo_class_without(RULE_CLASS_BELOW_NORMAL),
			 RULE_CLASS_BELOW_NORMAL);
	assert_int_equal(ifeo_class_without(RULE_CLASS_NORMAL),
			 RULE_CLASS_NORMAL);
	assert_int_equal(ifeo_class_without(RULE_CLASS_HIGH),
			 RULE_CLASS_NORMAL);
	assert_int_equal(ifeo_class_without(RULE_CLASS_REALTIME),
			 RULE_CLASS_NORMAL);
}

/* Many rules on few names: the plan stays sorted and has each name once. */
static void test_many(void **state)
{
	static const char *const paths[] = {
		"C:\\a\\one.exe", "C:\\b\\ONE.exe",   "C:\\a\\two.exe",
		"C:\\c\\Two.EXE", "C:\\a\\three.exe",
	};
	struct rule *rules = xcalloc(500, sizeof(*rules));
	struct ifeo_plan plan;

	(void)state;
	for (size_t i = 0; i < 500; i++) {
		rules[i].match.exe.values = (char **)&paths[i % 5];
		rules[i].match.exe.count = 1;
		rules[i].priority.class = RULE_CLASS_BELOW_NORMAL;
		rules[i].priority.io_level = -1;
	}
	ifeo_plan_make(rules, 500, IFEO_MODE_LOWERING, NULL, NULL, &plan);
	assert_int_equal(plan.count, 3);
	assert_string_equal(plan.entries[0].name, "one.exe");
	assert_string_equal(plan.entries[1].name, "three.exe");
	assert_string_equal(plan.entries[2].name, "two.exe");
	assert_int_equal(plan.entries[2].rule, 2);
	assert_int_equal(plan.skip_count, 0);
	ifeo_plan_free(&plan);
	free(rules);
}

/* The rule file the MSI installs, loaded as the daemon loads it. */
static void load_shipped(struct rules *rules, bool without_off)
{
	const char *path = SRCDIR "/packaging/windows/10-build.rules";
	struct diag diag;
	char *text, *off;
	size_t len;

	rules_init(rules);
	rules->system = RULES_SYSTEM_WINDOWS;
	diag_init(&diag);
	assert_int_equal(files_read(path, 1 << 20, &text, &len), OS_OK);
	off = strstr(text, " ifeo = \"off\";");
	assert_non_null(off);
	if (without_off)
		memset(off, ' ', strlen(" ifeo = \"off\";"));
	rules_load_text(rules, path, text, len, &diag);
	diag_print(&diag, stderr, true);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(diag.warnings, 0);
	diag_free(&diag);
	free(text);
}

static void plan_names(const struct rules *rules, enum ifeo_mode mode,
		       char *buf, size_t size)
{
	struct ifeo_plan plan;

	buf[0] = '\0';
	ifeo_plan_make(rules->list, rules->count, mode, NULL, NULL, &plan);
	for (size_t i = 0; i < plan.count; i++)
		append(buf, size, "%s %d %d", plan.entries[i].name,
		       (int)plan.entries[i].values.cpu_class,
		       (int)plan.entries[i].values.io_priority);
	ifeo_plan_free(&plan);
}

/* The shipped build rule writes no PerfOptions, under either mode that
 * writes, and keeps the build off the efficiency cores (its comment says
 * why). Without its ifeo = "off", the default would write its literal
 * paths' file names, class only, and never those of its globs: what the
 * key is there to prevent, and the proof this test can fail. */
static void test_shipped_rule(void **state)
{
	static const enum ifeo_mode modes[] = {IFEO_MODE_LOWERING,
					       IFEO_MODE_ALL};
	struct rules rules;
	char names[512];

	(void)state;
	load_shipped(&rules, false);
	assert_int_equal(rules.count, 1);
	assert_int_equal(rules.list[0].priority.class, RULE_CLASS_BELOW_NORMAL);
	assert_int_equal(rules.list[0].priority.efficiency_mode,
			 RULE_EFFICIENCY_OFF);
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		plan_names(&rules, modes[i], names, sizeof(names));
		assert_string_equal(names, "");
	}
	rules_free(&rules);

	load_shipped(&rules, true);
	plan_names(&rules, IFEO_MODE_LOWERING, names, sizeof(names));
	assert_string_equal(
		names, "clang-cl.exe 5 -1; clang.exe 5 -1; lld-link.exe 5 -1");
	rules_free(&rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_keys),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_find_and_put_back),
		cmocka_unit_test(test_class_without),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_shipped_rule),
	};
	int failed;

	failed = unit_run("ifeo", UNIT_TABLE(plan_cases, test_plan_case),
			  UNIT_TESTS(tests), NULL, NULL);
	return failed | unit_run("ifeo: values",
				 UNIT_TABLE(value_cases, test_value_case), NULL,
				 0, NULL, NULL);
}
