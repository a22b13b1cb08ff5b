/* The pid map: put, get, remove with backward shift, against a plain
 * array as the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "pidmap.h"

static void test_basic(void **state)
{
	struct pidmap map;
	int a, b;

	(void)state;
	pidmap_init(&map);
	assert_null(pidmap_get(&map, 1));
	assert_null(pidmap_remove(&map, 1));
	pidmap_put(&map, 1, &a);
	pidmap_put(&map, 2, &b);
	assert_ptr_equal(pidmap_get(&map, 1), &a);
	assert_ptr_equal(pidmap_remove(&map, 1), &a);
	assert_null(pidmap_get(&map, 1));
	assert_ptr_equal(pidmap_get(&map, 2), &b);
	assert_int_equal(map.count, 1);
	pidmap_free(&map);
}

/* Random operations checked against a direct table. */
/* A fixed sequence (rand_r is not in every C library). */
static unsigned next_random(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

static void test_model(void **state)
{
	enum {
		RANGE = 5000,
		STEPS = 200000
	};
	static uintptr_t model[RANGE];
	struct pidmap map;
	unsigned seed = 12345;
	size_t live = 0;

	(void)state;
	pidmap_init(&map);
	for (int step = 0; step < STEPS; step++) {
		pid_t key = (pid_t)(next_random(&seed) % (RANGE - 1)) + 1;

		if (next_random(&seed) % 3) {
			live += !model[key];
			model[key] = (uintptr_t)step + 1;
			pidmap_put(&map, key, (void *)model[key]);
		} else {
			live -= !!model[key];
			assert_int_equal((uintptr_t)pidmap_remove(&map, key),
					 model[key]);
			model[key] = 0;
		}
		if (step % 1000 == 0) {
			for (pid_t k = 1; k < RANGE; k++)
				assert_int_equal((uintptr_t)pidmap_get(&map, k),
						 model[k]);
		}
		assert_int_equal(map.count, live);
	}
	pidmap_free(&map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests_name("pidmap", tests, NULL, NULL);
}
