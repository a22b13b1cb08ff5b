/* The substring search over command lines (Aho-Corasick): every literal
 * a text holds, at every place it ends, against a naive search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acsearch.h"

/* Hits per literal, by its index in the set searched for. */
struct hits {
	const char *const *literals;
	unsigned count[64];
};

/* A literal's number is its index in the set, plus 1. */
static void hit(void *ctx, uint32_t value)
{
	struct hits *h = ctx;

	h->count[value - 1]++;
}

/* How many times literal occurs in text, overlaps included. */
static unsigned naive_count(const char *literal, const char *text)
{
	size_t len = strlen(literal), n = strlen(text);
	unsigned count = 0;

	if (!len)
		return 1; /* the empty literal: once, as acsearch reports it */
	for (size_t i = 0; i + len <= n; i++)
		count += memcmp(text + i, literal, len) == 0;
	return count;
}

static void search(const char *const *literals, size_t count, const char *text,
		   struct hits *h)
{
	struct acsearch ac;

	acsearch_init(&ac);
	/* A literal given twice keeps its first place. */
	for (size_t i = 0; i < count; i++) {
		uint32_t *slot =
			acsearch_slot(&ac, literals[i], strlen(literals[i]));

		if (!*slot)
			*slot = (uint32_t)i + 1;
	}
	acsearch_build(&ac);
	*h = (struct hits){.literals = literals};
	acsearch_scan(&ac, text, strlen(text), hit, h);
	acsearch_free(&ac);
}

static void expect_naive(const char *const *literals, size_t count,
			 const char *text)
{
	struct hits h;

	search(literals, count, text, &h);
	for (size_t i = 0; i < count; i++) {
		size_t first = 0;

		while (strcmp(literals[first], literals[i]) != 0)
			first++;
		if (h.count[first] != naive_count(literals[i], text))
			fail_msg("'%s' in '%s': %u hits, %u expected",
				 literals[i], text, h.count[first],
				 naive_count(literals[i], text));
	}
}

/* No literal: nothing found, in any text. */
static void test_empty_set(void **state)
{
	struct acsearch ac;
	struct hits h = {0};

	(void)state;
	acsearch_init(&ac);
	acsearch_build(&ac);
	acsearch_scan(&ac, "make -j8", 8, hit, &h);
	acsearch_free(&ac);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(h.count[i], 0);
}

/* The classic set: "she" holds "he", "hers" starts with "he", and in
 * "ushers" they overlap. */
static void test_overlapping(void **state)
{
	static const char *const literals[] = {"he", "she", "his", "hers"};
	struct hits h;

	(void)state;
	search(literals, 4, "ushers", &h);
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[1], 1);
	assert_int_equal(h.count[2], 0);
	assert_int_equal(h.count[3], 1);
	expect_naive(literals, 4, "ahishers hehe");
}

/* A literal that is the end of another is found where only the longer
 * one's path was followed: through the out links. */
static void test_suffix_of_another(void **state)
{
	static const char *const literals[] = {"--job=1", "=1", "1", "b=1"};
	struct hits h;

	(void)state;
	search(literals, 4, "run --job=1", &h);
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[1], 1);
	assert_int_equal(h.count[2], 1);
	assert_int_equal(h.count[3], 1);
	expect_naive(literals, 4, "--job=11 --jo=1 b=1=1");
}

/* A text that holds nothing, and literals met again and again. */
static void test_repeats(void **state)
{
	static const char *const literals[] = {"aa", "aaa", "x", ""};

	(void)state;
	expect_naive(literals, 4, "aaaaa");
	expect_naive(literals, 4, "bbbb");
	expect_naive(literals, 4, "");
}

/* Random literals over a small alphabet, so that they overlap, share
 * starts and ends, and hold each other: the counts are the naive
 * search's. A fixed seed: a failure is repeatable. */
static void test_random(void **state)
{
	static char store[40][8];
	const char *literals[40];
	char text[200];

	(void)state;
	srand(24);
	for (int round = 0; round < 500; round++) {
		size_t count = 1 + (size_t)rand() % 40, len;

		for (size_t i = 0; i < count; i++) {
			len = 1 + (size_t)rand() % 6;
			for (size_t c = 0; c < len; c++)
				store[i][c] = (char)('a' + rand() % 3);
			store[i][len] = '\0';
			literals[i] = store[i];
		}
		len = (size_t)rand() % (sizeof(text) - 1);
		for (size_t c = 0; c < len; c++)
			text[c] = (char)('a' + rand() % 3);
		text[len] = '\0';
		expect_naive(literals, count, text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_set),
		cmocka_unit_test(test_overlapping),
		cmocka_unit_test(test_suffix_of_another),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests_name("acsearch", tests, NULL, NULL);
}
