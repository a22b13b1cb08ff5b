/* The glob matcher against the C library's fnmatch(3) with no flags: on
 * every pattern pattern_check accepts, over an alphabet of the characters
 * that mean something to either, both must agree. glibc's is the
 * reference the matcher replaced; Windows has none. */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "pattern.h"

/* A fixed sequence: the same cases every run. */
static uint32_t fnmatch_next(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static void fnmatch_random(uint32_t *seed, const char *alphabet, char *out,
			   size_t max)
{
	size_t n = fnmatch_next(seed) % max, len = strlen(alphabet);

	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[fnmatch_next(seed) % len];
	out[n] = '\0';
}

static void test_agrees_with_fnmatch(void **state)
{
	static const char pattern_chars[] = "ab*?[]!^-\\/:c.Z=";
	static const char text_chars[] = "ab/-]\\cZ.[";
	uint32_t seed = 1;
	size_t checked = 0;

	(void)state;
	for (int i = 0; i < 300000; i++) {
		char pattern[24], text[8], why[128];
		bool want, got;

		fnmatch_random(&seed, pattern_chars, pattern, 9);
		if (fnmatch_next(&seed) % 4 == 0 && strlen(pattern) < 3)
			strcat(pattern, "[[:alpha:]]");
		fnmatch_random(&seed, text_chars, text, 7);
		if (pattern_check(pattern, why, sizeof(why)) < 0)
			continue;
		checked++;
		want = fnmatch(pattern, text, 0) == 0;
		got = pattern_match(pattern, text);
		if (want != got)
			fail_msg("'%s' against '%s': fnmatch %d, ours %d",
				 pattern, text, want, got);
	}
	assert_true(checked > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees_with_fnmatch),
	};
	static const struct {
		const char *name;
	} none[1];

	return unit_run("fnmatch",
			(struct unit_table){none, 0, sizeof(none[0]), NULL},
			UNIT_TESTS(tests), NULL, NULL);
}
