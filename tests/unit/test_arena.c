/* The arena of a rule set's texts: what it hands out is zeroed, aligned
 * where asked, never overlapping, and whole after many blocks; a request
 * larger than a block gets its own without losing the room left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"

static void test_texts_and_arrays(void **state)
{
	struct arena a = {0};
	char *texts[3000];
	char expect[32];

	(void)state;
	for (int i = 0; i < 3000; i++) {
		snprintf(expect, sizeof(expect), "many-%d", i);
		texts[i] = arena_strdup(&a, expect);
		if (i % 7 == 0) {
			char **array = arena_alloc(&a, 3 * sizeof(char *));

			assert_int_equal((uintptr_t)array % sizeof(void *), 0);
			assert_null(array[0]);
			assert_null(array[2]);
			array[0] = array[1] = array[2] = texts[i];
		}
	}
	/* Nothing written later ran over an earlier text. */
	for (int i = 0; i < 3000; i++) {
		snprintf(expect, sizeof(expect), "many-%d", i);
		assert_string_equal(texts[i], expect);
	}
	arena_free(&a);
	assert_null(a.head);
}

/* Names end to end: an arena of short names is as long as they are. */
static void test_texts_unaligned(void **state)
{
	struct arena a = {0};
	char *first, *second;

	(void)state;
	first = arena_strdup(&a, "ab");
	second = arena_strdup(&a, "cd");
	assert_ptr_equal(second, first + 3);
	arena_free(&a);
}

static void test_large_request(void **state)
{
	struct arena a = {0};
	char *before, *big, *after;

	(void)state;
	before = arena_strdup(&a, "before");
	big = arena_alloc(&a, 1 << 20);
	memset(big, 'x', 1 << 20);
	after = arena_strdup(&a, "after");
	/* The block being filled is still filled after the large one. */
	assert_ptr_equal(after, before + strlen("before") + 1);
	assert_string_equal(before, "before");
	assert_int_equal(big[(1 << 20) - 1], 'x');
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts_and_arrays),
		cmocka_unit_test(test_texts_unaligned),
		cmocka_unit_test(test_large_request),
	};

	return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
