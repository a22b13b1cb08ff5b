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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_replace),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests_name("strmap", tests, NULL, NULL);
}
