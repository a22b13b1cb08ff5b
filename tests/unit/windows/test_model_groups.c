/* The processor-group cure on the model of Windows, through manage.c as
 * the daemon runs it: a process started in group 0 with a pool of
 * threads and spread = "group" gets them dealt over the groups in
 * proportion to their sizes (each thread's group affinity read back from
 * the model), later threads too, on Windows 10 and Server 2019; on
 * Windows 11 and Server 2022 it is left as Windows spreads it unless it
 * narrowed itself to one group, which the rule undoes. Unmatched, every
 * thread is back in the group it started in. */
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

static const char spread_rule[] =
	"rules = ({ name = \"pool\"; match = { name = \"test_model_groups*\"; "
	"}; placement = { spread = \"group\"; }; });\n";

/* Threads of the pool in each group, as the model has them now. */
static void pool_groups(const struct poolfix *pool, unsigned *per_group)
{
	memset(per_group, 0, MODEL_GROUPS_MAX * sizeof(*per_group));
	for (size_t i = 0; i < pool->count; i++) {
		GROUP_AFFINITY ga = {0};

		assert_true(model_thread_group(GetCurrentProcessId(),
					       pool->tids[i], &ga));
		/* The whole of its group: a thread dealt, not pinned. */
		assert_true(ga.Mask == topofix_group_mask(ga.Group));
		per_group[ga.Group]++;
	}
}

/* Each group holds its share of what was dealt (the main thread took
 * one turn too): within one thread of pool * size / total. */
static void assert_dealt(const struct poolfix *pool, const unsigned *per_group,
			 const char *what)
{
	unsigned total = 0;

	for (WORD g = 0; g < model_group_count(); g++)
		total += model_group_size(g);
	for (WORD g = 0; g < model_group_count(); g++) {
		double due = (double)pool->count * model_group_size(g) / total;

		if (per_group[g] + 1.0 < due || per_group[g] > due + 1.0)
			fail_msg("%s: group %u holds %u of %zu pool threads, "
				 "due %.1f",
				 what, g, per_group[g], pool->count, due);
	}
}

struct groups_case {
	const char *name;
	enum model_version version;
	enum model_machine machine;
	size_t threads;
	bool narrowed; /* the program confined itself to group 0 */
	bool dealt;    /* the daemon deals the pool */
};

static const struct groups_case groups_cases[] = {
	{"Windows 10 22H2, 64+24", MODEL_WINDOWS_10_22H2, MODEL_MACHINE_64_24,
	 88, false, true},
	{"Windows 10 22H2, 2x44", MODEL_WINDOWS_10_22H2, MODEL_MACHINE_2X44, 88,
	 false, true},
	{"Server 2019, 64+24", MODEL_SERVER_2019, MODEL_MACHINE_64_24, 88,
	 false, true},
	{"Server 2019, 2x44", MODEL_SERVER_2019, MODEL_MACHINE_2X44, 88, false,
	 true},
	{"Server 2019, 4x64", MODEL_SERVER_2019, MODEL_MACHINE_4X64, 256, false,
	 true},
	{"Server 2022, 64+24: spread by Windows", MODEL_SERVER_2022,
	 MODEL_MACHINE_64_24, 88, false, false},
	{"Server 2022, 2x44: spread by Windows", MODEL_SERVER_2022,
	 MODEL_MACHINE_2X44, 88, false, false},
	{"Windows 11 24H2, 64+24: spread by Windows", MODEL_WINDOWS_11_24H2,
	 MODEL_MACHINE_64_24, 88, false, false},
	{"Windows 11 24H2, 2x44: spread by Windows", MODEL_WINDOWS_11_24H2,
	 MODEL_MACHINE_2X44, 88, false, false},
	{"Server 2022, 64+24, narrowed to group 0", MODEL_SERVER_2022,
	 MODEL_MACHINE_64_24, 88, true, true},
	{"Server 2022, 2x44, narrowed to group 0", MODEL_SERVER_2022,
	 MODEL_MACHINE_2X44, 88, true, true},
	{"Windows 11 24H2, 64+24, narrowed to group 0", MODEL_WINDOWS_11_24H2,
	 MODEL_MACHINE_64_24, 88, true, true},
	{"Windows 11 24H2, 2x44, narrowed to group 0", MODEL_WINDOWS_11_24H2,
	 MODEL_MACHINE_2X44, 88, true, true},
};

static void test_groups_case(void **state)
{
	const struct groups_case *c = *state;
	struct model_config config = {.version = c->version,
				      .machine = c->machine};
	DWORD self = GetCurrentProcessId();
	struct place_topology topo;
	struct rules rules, none;
	unsigned per_group[MODEL_GROUPS_MAX];
	struct poolfix pool = {0};
	unsigned writes;
	struct manage m;

	model_install(&config);
	topofix_of_model(&topo);
	rulesfix_load(&rules, RULES_SYSTEM_WINDOWS, spread_rule);
	rulesfix_load(&none, RULES_SYSTEM_WINDOWS, "rules = ();\n");
	if (c->narrowed)
		model_process_narrow(self, 0);
	/* Half the pool there when the process is matched, half after. */
	poolfix_start(&pool, c->threads / 2);
	manage_init(&m, &(struct manage_options){.respect_changes = true},
		    &topo);
	manage_set_rules(&m, &rules);
	manage_exec(&m, (pid_t)self);
	assert_non_null(manage_find(&m, (pid_t)self));
	for (size_t i = pool.count; i < c->threads; i = pool.count) {
		poolfix_start(&pool, 1);
		manage_thread_new(&m, (pid_t)self, (pid_t)pool.tids[i],
				  (pid_t)GetCurrentThreadId());
	}
	writes = model_calls("SetThreadGroupAffinity");
	/* Rescans take the process again: the threads the rule moved are
	 * not the process spanning groups by itself, and nothing moves. */
	manage_rescan(&m);
	manage_rescan(&m);
	assert_int_equal(model_calls("SetThreadGroupAffinity"), writes);
	pool_groups(&pool, per_group);
	if (c->dealt) {
		assert_dealt(&pool, per_group, c->name);
		assert_true(writes > 0);
	} else {
		/* Left where Windows puts it: not one write. */
		assert_int_equal(writes, 0);
		assert_int_equal(per_group[0], pool.count);
	}
	/* Unmatched: every thread back in group 0, where it started. */
	manage_set_rules(&m, &none);
	assert_null(manage_find(&m, (pid_t)self));
	pool_groups(&pool, per_group);
	assert_int_equal(per_group[0], pool.count);
	manage_free(&m);
	poolfix_stop(&pool);
	rules_free(&rules);
	rules_free(&none);
	place_topology_free(&topo);
	model_uninstall();
}

int main(void)
{
	log_init("test_model_groups",
		 getenv("T_DEBUG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR);
	return unit_run("model_groups",
			UNIT_TABLE(groups_cases, test_groups_case), NULL, 0,
			NULL, NULL);
}
