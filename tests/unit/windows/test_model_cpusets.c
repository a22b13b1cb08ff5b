/* Placement by CPU Sets on the model of Windows, through manage.c as the
 * daemon runs it and the backend's apply_place.c: cores (and cpus with
 * hard = false, as the Process Lasso import writes DefaultCPUSets) become
 * the process's default CPU Sets alone, soft, every thread's group
 * affinity untouched, later threads too; cores = "performance" is the
 * P-cores of the 6P+8E hybrid by EfficiencyClass; cpus, or hard = true,
 * is each thread's group affinity. The program's own default CPU Sets
 * come back on unmatch (none where it had none), and a rule that only
 * sets a priority never touches them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "log.h"
#include "manage.h"
#include "model.h"
#include "os.h"
#include "place.h"
#include "poolfix.h"
#include "rulesfix.h"
#include "topofix.h"
#include "win.h"

#define POOL 8

/* hwloc's view of the model's machine; the kinds then read from the
 * model's CPU Sets, as the daemon does. */
static void topology_of(struct place_topology *t)
{
	topofix_of_model(t);
	place_topology_kinds(t);
}

/* One rule for this program with the settings given; NULL: no rule. */
static void rules_of(struct rules *r, const char *settings)
{
	char text[512] = "rules = ();\n";

	if (settings)
		snprintf(text, sizeof(text),
			 "rules = ({ name = \"sets\"; match = { name = "
			 "\"test_model_cpusets*\"; }; %s });\n",
			 settings);
	rulesfix_load(r, RULES_SYSTEM_WINDOWS, text);
}

/* The ids of the CPU Sets first..last in the machine's order (group 0's
 * logical processors, then group 1's), as the model numbers them. */
static ULONG ids_of(ULONG first, ULONG last, ULONG *ids)
{
	for (ULONG i = first; i <= last; i++)
		ids[i - first] = MODEL_CPU_SET_ID_BASE + i;
	return last - first + 1;
}

static void assert_default_sets(const ULONG *want, ULONG count,
				const char *what)
{
	ULONG have[MODEL_CPUS_MAX];
	ULONG n = model_process_default_cpu_sets(GetCurrentProcessId(), have,
						 MODEL_CPUS_MAX);

	if (n != count || (n && memcmp(have, want, n * sizeof(*have)) != 0))
		fail_msg("%s: the process's default CPU Sets are %lu ids "
			 "(first 0x%lx), want %lu (first 0x%lx)",
			 what, n, n ? have[0] : 0, count, count ? want[0] : 0);
}

/* Every thread of the pool and the main thread: the group affinity
 * each has (mask 0: the whole group, as a thread starts). */
static void assert_threads(const struct poolfix *pool, KAFFINITY mask,
			   const char *what)
{
	KAFFINITY whole = ((KAFFINITY)1 << model_group_size(0)) - 1;

	for (size_t i = 0; i <= pool->count; i++) {
		DWORD tid =
			i < pool->count ? pool->tids[i] : GetCurrentThreadId();
		GROUP_AFFINITY ga = {0};

		if (!model_thread_group(GetCurrentProcessId(), tid, &ga))
			continue; /* never asked about: never written */
		if (ga.Group != 0 || ga.Mask != (mask ? mask : whole))
			fail_msg("%s: thread %lu has group %u mask 0x%llx, "
				 "want 0x%llx",
				 what, tid, ga.Group,
				 (unsigned long long)ga.Mask,
				 (unsigned long long)(mask ? mask : whole));
	}
}

struct sets_case {
	const char *name;
	enum model_machine machine;
	const char *placement;
	ULONG first, last; /* the default CPU Sets wanted, by their order */
	KAFFINITY hard;	   /* each thread's mask when hard, else 0 */
	bool own_sets;	   /* the program set its own default first */
};

static const struct sets_case sets_cases[] = {
	{"performance: the 6 P-cores by EfficiencyClass",
	 MODEL_MACHINE_HYBRID_6P8E, "placement = { cores = \"performance\"; };",
	 0, 11, 0, false},
	{"efficiency: the 8 E-cores", MODEL_MACHINE_HYBRID_6P8E,
	 "placement = { cores = \"efficiency\"; };", 12, 19, 0, false},
	{"performance, the program's own sets given back",
	 MODEL_MACHINE_HYBRID_6P8E, "placement = { cores = \"performance\"; };",
	 0, 11, 0, true},
	{"cpus with hard = false (Process Lasso's DefaultCPUSets)",
	 MODEL_MACHINE_HYBRID_6P8E,
	 "placement = { cpus = \"0-3\"; hard = false; };", 0, 3, 0, true},
	{"cpus: hard, each thread's group affinity", MODEL_MACHINE_HYBRID_6P8E,
	 "placement = { cpus = \"0-3\"; };", 0, 3, 0xf, true},
	{"performance with hard = true", MODEL_MACHINE_HYBRID_6P8E,
	 "placement = { cores = \"performance\"; hard = true; };", 0, 11, 0xfff,
	 false},
	{"performance on one kind of CPU: all, both groups", MODEL_MACHINE_2X44,
	 "placement = { cores = \"performance\"; };", 0, 87, 0, false},
};

/* The program's own choice before the daemon sees it: two E-cores. */
static const ULONG own[] = {MODEL_CPU_SET_ID_BASE + 14,
			    MODEL_CPU_SET_ID_BASE + 15};

static void test_sets_case(void **state)
{
	const struct sets_case *c = *state;
	struct model_config config = {.version = MODEL_WINDOWS_10_22H2,
				      .machine = c->machine};
	ULONG want[MODEL_CPUS_MAX], count;
	struct place_topology topo;
	struct rules rules, none;
	struct poolfix pool = {0};
	struct manage m;

	model_install(&config);
	/* On two groups of 44 the process is in group 0. */
	topology_of(&topo);
	rules_of(&rules, c->placement);
	rules_of(&none, NULL);
	if (c->own_sets)
		assert_true(winapi_get()->SetProcessDefaultCpuSets(
			GetCurrentProcess(), own, ARRAYSIZE(own)));
	poolfix_start(&pool, POOL);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    &topo);
	manage_set_rules(&m, &rules);
	manage_exec(&m, (pid_t)GetCurrentProcessId());
	assert_non_null(manage_find(&m, (pid_t)GetCurrentProcessId()));
	/* A thread the program starts later. */
	poolfix_start(&pool, 1);
	manage_thread_new(&m, (pid_t)GetCurrentProcessId(),
			  (pid_t)pool.tids[pool.count - 1],
			  (pid_t)GetCurrentThreadId());
	manage_rescan(&m);
	count = ids_of(c->first, c->last, want);
	assert_default_sets(want, count, c->name);
	assert_threads(&pool, c->hard, c->name);
	if (!c->hard)
		assert_int_equal(model_calls("SetThreadGroupAffinity"), 0);
	else
		assert_true(model_calls("SetThreadGroupAffinity") >=
			    pool.count);
	/* Unmatched: the program's own default back, or none. */
	manage_set_rules(&m, &none);
	assert_null(manage_find(&m, (pid_t)GetCurrentProcessId()));
	if (c->own_sets)
		assert_default_sets(own, ARRAYSIZE(own), "restored");
	else
		assert_default_sets(NULL, 0, "restored");
	assert_threads(&pool, 0, "restored");
	manage_free(&m);
	poolfix_stop(&pool);
	rules_free(&rules);
	rules_free(&none);
	place_topology_free(&topo);
	model_uninstall();
}

/* A rule that places nothing leaves the program's CPU Sets alone: not
 * one call that sets them. */
static void test_priority_only(void **state)
{
	struct model_config config = {.version = MODEL_WINDOWS_11_24H2,
				      .machine = MODEL_MACHINE_HYBRID_6P8E};
	struct place_topology topo;
	struct rules rules, none;
	struct manage m;
	unsigned sets;

	(void)state;
	model_install(&config);
	topology_of(&topo);
	rules_of(&rules, "priority = { class = \"below-normal\"; };");
	rules_of(&none, NULL);
	assert_true(winapi_get()->SetProcessDefaultCpuSets(
		GetCurrentProcess(), own, ARRAYSIZE(own)));
	sets = model_calls("SetProcessDefaultCpuSets");
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    &topo);
	manage_set_rules(&m, &rules);
	manage_exec(&m, (pid_t)GetCurrentProcessId());
	assert_non_null(manage_find(&m, (pid_t)GetCurrentProcessId()));
	manage_rescan(&m);
	assert_default_sets(own, ARRAYSIZE(own), "priority only");
	manage_set_rules(&m, &none);
	assert_default_sets(own, ARRAYSIZE(own), "unmatched");
	assert_int_equal(model_calls("SetProcessDefaultCpuSets"), sets);
	assert_int_equal(model_calls("SetThreadSelectedCpuSets"), 0);
	assert_int_equal(model_calls("SetThreadGroupAffinity"), 0);
	manage_free(&m);
	rules_free(&rules);
	rules_free(&none);
	place_topology_free(&topo);
	model_uninstall();
}

int main(void)
{
	static const struct CMUnitTest single[] = {
		cmocka_unit_test(test_priority_only),
	};

	log_init("test_model_cpusets",
		 getenv("T_DEBUG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR);
	return unit_run("model_cpusets", UNIT_TABLE(sets_cases, test_sets_case),
			single, ARRAYSIZE(single), NULL, NULL);
}
