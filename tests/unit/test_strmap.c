/* The string map behind rule names and exact match keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strmap.h"

static void test_empty(void **state)
{
	struct strmap map;

	(void)state;
	strmap_init(&map);
	assert_null(strmap_get(&map, "x"));
	strmap_free(&map);
}

static void test_put_get_replace(void **state)
{
	struct strmap map;
	int a, b;

	(void)state;
	strmap_init(&map);
	strmap_put(&map, "a", &a);
	assert_ptr_equal(strmap_get(&map, "a"), &a);
	strmap_put(&map, "a", &b);
	assert_ptr_equal(strmap_get(&map, "a"), &b);
	assert_int_equal(map.count, 1);
	assert_null(strmap_get(&map, "b"));
	assert_null(strmap_get(&map, ""));
	strmap_free(&map);
}

/* Many keys: growth keeps every entry reachable. */
static void test_growth(void **state)
{
	enum {
		N = 20000
	};
	static char keys[N][16];
	struct strmap map;

	(void)state;
	strmap_init(&map);
	for (uintptr_t i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "/bin/p%lu",
			 (unsigned long)i);
		strmap_put(&map, keys[i], (void *)(i + 1));
	}
	assert_int_equal(map.count, N);
	for (uintptr_t i = 0; i < N; i++)
		assert_int_equal((uintptr_t)strmap_get(&map, keys[i]), i + 1);
	assert_null(strmap_get(&map, "/bin/p20000"));
	strmap_free(&map);
}

/* How full a map gets before it grows, for a few sizes: the slots of the
 * 20,000-rule maps are most of their memory (two pointers each, so the
 * load decides it), and a map that never grew would probe forever. */
static void test_load(void **state)
{
	static const size_t counts[] = {1, 12, 13, 100, 20001};
	static char keys[20001][16];

	(void)state;
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct strmap map;

		strmap_init(&map);
		for (size_t i = 0; i < counts[c]; i++) {
			snprintf(keys[i], sizeof(keys[i]), "k%u", (unsigned)i);
			strmap_put(&map, keys[i], keys[i]);
		}
		/* At most 3/4 full, and half the slots would not do. */
		assert_true(map.count * STRMAP_LOAD_DEN <=
			    map.capacity * STRMAP_LOAD_NUM);
		assert_true(map.capacity == 16 ||
			    map.count * STRMAP_LOAD_DEN * 2 >
				    map.capacity * STRMAP_LOAD_NUM);
		assert_ptr_equal(strmap_get(&map, keys[counts[c] - 1]),
				 keys[counts[c] - 1]);
		strmap_free(&map);
	}
	assert_int_equal(sizeof(struct strmap_slot), 2 * sizeof(void *));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_replace),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests_name("strmap", tests, NULL, NULL);
}
