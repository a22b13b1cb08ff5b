/* The byte trie behind the index of glob starts and ends: which keys a
 * text starts (or, reversed, ends) with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trie.h"

/* The keys put in, by the number each got (1 on). */
static const char *numbered[20001];
static uint32_t numbered_count;

/* What a walk visited: the keys of the numbers, in order, as text
 * ("a,ab,"). */
struct visits {
	char seen[256];
};

static void visit(void *ctx, uint32_t value)
{
	struct visits *v = ctx;
	size_t used = strlen(v->seen);

	snprintf(v->seen + used, sizeof(v->seen) - used, "%s,",
		 numbered[value]);
}

static void start(struct trie *trie)
{
	trie_init(trie);
	numbered_count = 0;
}

static void put(struct trie *trie, const char *key, bool reversed)
{
	uint32_t *slot = trie_slot(trie, key, strlen(key), reversed);

	numbered[++numbered_count] = key;
	*slot = numbered_count;
}

static const char *walk(const struct trie *trie, const char *text,
			bool reversed, struct visits *v)
{
	v->seen[0] = '\0';
	trie_walk(trie, text, strlen(text), reversed, visit, v);
	return v->seen;
}

static void test_empty(void **state)
{
	struct visits v;
	struct trie trie;

	(void)state;
	start(&trie);
	assert_string_equal(walk(&trie, "/usr/bin/xz", false, &v), "");
	assert_int_equal(trie_step(&trie, TRIE_ROOT, '/'), TRIE_NONE);
	trie_free(&trie);
}

/* Every key the text starts with, shortest first; none that only shares
 * a beginning with it, none longer than it. */
static void test_prefixes(void **state)
{
	struct visits v;
	struct trie trie;

	(void)state;
	start(&trie);
	put(&trie, "/opt/", false);
	put(&trie, "/opt/vendor/", false);
	put(&trie, "/opt/vendor/bin/tool", false);
	put(&trie, "/opt/other/", false);
	put(&trie, "/usr/", false);
	assert_string_equal(walk(&trie, "/opt/vendor/bin/x", false, &v),
			    "/opt/,/opt/vendor/,");
	assert_string_equal(walk(&trie, "/opt/vendor/bin/tool", false, &v),
			    "/opt/,/opt/vendor/,/opt/vendor/bin/tool,");
	assert_string_equal(walk(&trie, "/opt/vendo", false, &v), "/opt/,");
	assert_string_equal(walk(&trie, "/op", false, &v), "");
	assert_string_equal(walk(&trie, "/srv/x", false, &v), "");
	/* Shared nodes: "/opt/" once for all three keys below it. */
	assert_int_equal(trie.count, 1 + strlen("/opt/vendor/bin/tool") +
					     strlen("other/") + strlen("usr/"));
	trie_free(&trie);
}

/* Put in reversed and walked from the text's end: the keys it ends
 * with. */
static void test_suffixes(void **state)
{
	struct visits v;
	struct trie trie;

	(void)state;
	start(&trie);
	put(&trie, ".exe", true);
	put(&trie, "-gui.exe", true);
	put(&trie, "d", true);
	assert_string_equal(walk(&trie, "tool-gui.exe", true, &v),
			    ".exe,-gui.exe,");
	assert_string_equal(walk(&trie, "tool.exe", true, &v), ".exe,");
	assert_string_equal(walk(&trie, "exe.tool", true, &v), "");
	assert_string_equal(walk(&trie, "systemd", true, &v), "d,");
	/* Not walked reversed, the same trie reads the keys backwards. */
	assert_string_equal(walk(&trie, "exe.x", false, &v), ".exe,");
	trie_free(&trie);
}

/* The empty key is at the root: every text starts with it. */
static void test_empty_key(void **state)
{
	struct visits v;
	struct trie trie;

	(void)state;
	start(&trie);
	put(&trie, "", false);
	put(&trie, "a", false);
	assert_string_equal(walk(&trie, "ab", false, &v), ",a,");
	assert_string_equal(walk(&trie, "", false, &v), ",");
	trie_free(&trie);
}

/* Many keys that share their start: each still reached, its nodes kept
 * across the array's growth. */
static void test_many(void **state)
{
	enum {
		N = 20000
	};
	static char keys[N][32];
	struct visits v;
	struct trie trie;
	char text[64], expected[40];

	(void)state;
	start(&trie);
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "/opt/app%d/", i);
		put(&trie, keys[i], false);
	}
	for (int i = 0; i < N; i += 997) {
		snprintf(text, sizeof(text), "/opt/app%d/bin/server", i);
		snprintf(expected, sizeof(expected), "/opt/app%d/,", i);
		assert_string_equal(walk(&trie, text, false, &v), expected);
	}
	trie_free(&trie);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_empty_key),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests_name("trie", tests, NULL, NULL);
}
