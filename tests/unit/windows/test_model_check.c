/* The saturation check's own Windows code (ctl/windows/machine.c and
 * work.c) on the model of Windows: the processor counts and groups it
 * reports, and its workers dealt over the groups in proportion, each
 * thread's group affinity read back from the model. Wine has one group:
 * a call that skipped the table (winapi.h) would see that one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "unit.h"

#include "log.h"
#include "model.h"
#include "os.h"
#include "saturate.h"
#include "topofix.h"
#include "win.h"
#include "../../../ctl/ctl.h"
#include "../../../ctl/work.h"

static struct model_config config_of(enum model_machine m)
{
	return (struct model_config){.version = MODEL_WINDOWS_10_22H2,
				     .machine = m};
}

/* What the check reports of each machine: processors online and at
 * most, and the groups of the machine it judges (as saturate.c loads
 * it from apply_place_present, then machine_system). */
static void test_check_sees_groups(void **state)
{
	static const struct {
		enum model_machine machine;
		unsigned cpus;
		size_t groups;
	} cases[] = {
		{MODEL_MACHINE_64_24, 88, 2},
		{MODEL_MACHINE_2X44, 88, 2},
		{MODEL_MACHINE_4X64, 256, 4},
		{MODEL_MACHINE_HYBRID_6P8E, 20, 1},
	};

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
		struct model_config c = config_of(cases[i].machine);
		hwloc_bitmap_t present = hwloc_bitmap_alloc();
		struct saturate_input in = {0};
		struct saturate_machine m;
		size_t in_group[MODEL_GROUPS_MAX] = {0};

		model_install(&c);
		assert_int_equal(machine_cpu_count(true), cases[i].cpus);
		assert_int_equal(machine_cpu_count(false), cases[i].cpus);
		assert_int_equal(apply_place_present(present), OS_OK);
		assert_int_equal(saturate_machine_load(&m, NULL, present), 0);
		machine_system(&m, &in);
		assert_int_equal(m.group_count, cases[i].groups);
		for (size_t k = 0; k < m.cpu_count; k++)
			in_group[m.cpus[k].group]++;
		for (WORD g = 0; g < model_group_count(); g++)
			assert_int_equal(in_group[g], model_group_size(g));
		saturate_machine_free(&m);
		hwloc_bitmap_free(present);
	}
	model_uninstall();
}

static HANDLE stop_event;

static void *worker(void *arg)
{
	(void)arg;
	WaitForSingleObject(stop_event, 30000);
	return NULL;
}

enum {
	POOL = 88,
};

/* 88 workers on 64+24 and on 2x44: each thread in the group its turn
 * gives, on all of that group, in proportion to the groups' sizes. */
static void test_workers_spread(void **state)
{
	static const enum model_machine machines[] = {MODEL_MACHINE_64_24,
						      MODEL_MACHINE_2X44};

	(void)state;
	for (size_t i = 0; i < ARRAYSIZE(machines); i++) {
		struct model_config c = config_of(machines[i]);
		pthread_t ids[POOL];
		unsigned in_group[MODEL_GROUPS_MAX] = {0};

		model_install(&c);
		ResetEvent(stop_event);
		for (unsigned t = 0; t < POOL; t++) {
			GROUP_AFFINITY ga;
			DWORD tid;

			assert_int_equal(
				pthread_create(&ids[t], NULL, worker, NULL), 0);
			assert_int_equal(work_spread(ids[t], t, POOL), OS_OK);
			tid = GetThreadId(pthread_gethandle(ids[t]));
			assert_true(model_thread_group(GetCurrentProcessId(),
						       tid, &ga));
			assert_true(ga.Group < model_group_count());
			assert_true(ga.Mask == topofix_group_mask(ga.Group));
			in_group[ga.Group]++;
		}
		SetEvent(stop_event);
		for (unsigned t = 0; t < POOL; t++)
			pthread_join(ids[t], NULL);
		for (WORD g = 0; g < model_group_count(); g++)
			assert_int_equal(in_group[g], model_group_size(g));
		assert_true(model_calls("GetActiveProcessorGroupCount") > 0);
	}
	model_uninstall();
}

/* A worker pinned to CPUs of group 1 (hwloc's 64-70) is in group 1, on
 * those seven. */
static void test_worker_pinned(void **state)
{
	struct model_config c = config_of(MODEL_MACHINE_64_24);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	GROUP_AFFINITY ga;
	pthread_t id;

	(void)state;
	model_install(&c);
	ResetEvent(stop_event);
	assert_int_equal(pthread_create(&id, NULL, worker, NULL), 0);
	hwloc_bitmap_set_range(set, 64, 70);
	assert_int_equal(work_pin(id, set), OS_OK);
	assert_true(model_thread_group(GetCurrentProcessId(),
				       GetThreadId(pthread_gethandle(id)),
				       &ga));
	assert_int_equal(ga.Group, 1);
	assert_true(ga.Mask == 0x7f);
	SetEvent(stop_event);
	pthread_join(id, NULL);
	hwloc_bitmap_free(set);
	model_uninstall();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_sees_groups),
		cmocka_unit_test(test_workers_spread),
		cmocka_unit_test(test_worker_pinned),
	};

	log_init("test_model_check", LOG_LEVEL_ERROR);
	stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	return unit_run("model_check", (struct unit_table){0},
			UNIT_TESTS(tests), NULL, NULL);
}
