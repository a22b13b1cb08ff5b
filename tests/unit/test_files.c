/* The files seam (files.c, os.h) on names beyond ASCII, on the system the
 * test is built for: a folder "règles-ü" with a file per named case in
 * it, made, told, read, opened, listed, loaded as a rules directory and
 * removed. On Windows the backend hands the W functions UTF-16; the C
 * library's fopen, open and opendir would read the same UTF-8 in the
 * ANSI code page, where "é" is two other letters and a CJK name "??". */
#include <errno.h>
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
#include "os.h"
#include "rules.h"
#include "util.h"

struct files_case {
	const char *name;
	const char *file; /* in the folder */
};

static const struct files_case files_cases[] = {
	{"ascii", "plain.rules"},
	{"latin", "jeu-\xc3\xa9.rules"},	   /* jeu-é */
	{"cjk", "\xe8\xa7\x84\xe5\x88\x99.rules"}, /* 规则 */
	{"emoji", "\xf0\x9f\x98\x80.rules"}, /* U+1F600: a surrogate pair */
};

/* The test's own folder under the system's temporary one, and the folder
 * "règles-ü" in it. */
static char *files_root, *files_dir;

static char *files_path(const char *file)
{
	return xasprintf("%s/%s", files_dir, file);
}

/* A rule named after its case: the file it is in is the one read. */
static char *files_text(const struct files_case *c)
{
	return xasprintf("version = 1;\n"
			 "rules = ( { name = \"%s\"; match = { name = \"%s\"; "
			 "}; priority = { nice = 5; }; } );\n",
			 c->name, c->name);
}

/* TEMP on Windows (and under Wine, which sets it to a folder of its
 * prefix), TMPDIR or /tmp elsewhere. */
static int files_setup(void **state)
{
	const char *tmp = getenv("TEMP");

	(void)state;
	if (!tmp)
		tmp = getenv("TMPDIR");
	if (!tmp)
		tmp = "/tmp";
	files_root = xasprintf("%s/cpupolicy-test-files-%d", tmp,
			       (int)procinfo_self());
	files_dir = xasprintf("%s/r\xc3\xa8gles-\xc3\xbc", files_root);
	if (files_make_dir(files_root) != OS_OK ||
	    files_make_dir(files_dir) != OS_OK)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(files_cases); i++) {
		char *path = files_path(files_cases[i].file);
		char *text = files_text(&files_cases[i]);
		enum os_status status = files_replace(path, text, strlen(text));

		free(path);
		free(text);
		if (status != OS_OK)
			return -1;
	}
	return 0;
}

static int files_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files_cases); i++) {
		char *path = files_path(files_cases[i].file);

		files_remove(path);
		free(path);
	}
	files_remove_dir(files_dir);
	files_remove_dir(files_root);
	free(files_dir);
	free(files_root);
	return 0;
}

/* Each file is there as a plain file of its size, reads whole and opens
 * as a stream, under the name it was written with. */
static void test_file(void **state)
{
	const struct files_case *c = *state;
	char *path = files_path(c->file), *want = files_text(c), *text;
	char line[256];
	struct files_info info;
	size_t len;
	FILE *f;

	assert_int_equal(files_info(path, &info), OS_OK);
	assert_int_equal(info.type, FILES_TYPE_REGULAR);
	assert_int_equal(info.size, strlen(want));
	assert_int_equal(files_read(path, 1 << 20, &text, &len), OS_OK);
	assert_string_equal(text, want);
	assert_int_equal(len, strlen(want));
	free(text);
	assert_int_equal(files_open(path, "r", &f), OS_OK);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "version = 1;\n");
	free(path);
	free(want);
}

/* The names come back in UTF-8 as they were written, sorted. */
static void test_list(void **state)
{
	const char *want[ARRAY_SIZE(files_cases)];
	struct files_info info;
	char **names;
	size_t count;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files_cases); i++)
		want[i] = files_cases[i].file;
	for (size_t i = 1; i < ARRAY_SIZE(want); i++) {
		for (size_t k = i; k > 0 && strcmp(want[k - 1], want[k]) > 0;
		     k--) {
			const char *t = want[k];

			want[k] = want[k - 1];
			want[k - 1] = t;
		}
	}
	assert_int_equal(files_info(files_dir, &info), OS_OK);
	assert_int_equal(info.type, FILES_TYPE_DIRECTORY);
	assert_int_equal(files_list(files_dir, &names, &count), OS_OK);
	assert_int_equal(count, ARRAY_SIZE(want));
	for (size_t i = 0; i < count; i++)
		assert_string_equal(names[i], want[i]);
	files_list_free(names, count);
}

/* The folder as a rules directory: every file in it loaded, each rule
 * from its own file. */
static void test_rules_dir(void **state)
{
	struct rules rules;
	struct diag diag;

	(void)state;
	rules_init(&rules);
	rules.system = RULES_SYSTEM_LINUX;
	diag_init(&diag);
	assert_int_equal(rules_load_paths(&rules, &files_dir, 1, true, &diag),
			 0);
	diag_print(&diag, stderr, true);
	assert_int_equal(diag.errors, 0);
	assert_int_equal(rules.count, ARRAY_SIZE(files_cases));
	assert_int_equal(rules.files_read, ARRAY_SIZE(files_cases));
	for (size_t i = 0; i < rules.count; i++) {
		const char *slash = strrchr(rules.list[i].file, '/');
		size_t k = 0;

		while (k < ARRAY_SIZE(files_cases) &&
		       strcmp(files_cases[k].name, rules.list[i].name) != 0)
			k++;
		assert_true(k < ARRAY_SIZE(files_cases));
		assert_non_null(slash);
		assert_string_equal(slash + 1, files_cases[k].file);
	}
	diag_free(&diag);
	rules_free(&rules);
}

/* What is not there says so, and a removed file is gone. */
static void test_gone(void **state)
{
	char *path = files_path("gone-\xc3\xa9.rules"), *text, **names;
	struct files_info info;
	size_t len, count;
	FILE *f;

	(void)state;
	assert_int_equal(files_replace(path, "x", 1), OS_OK);
	assert_int_equal(files_remove(path), OS_OK);
	assert_int_equal(files_info(path, &info), OS_GONE);
	assert_int_equal(files_read(path, 1 << 20, &text, &len), OS_GONE);
	assert_int_equal(files_open(path, "r", &f), OS_GONE);
	assert_int_equal(files_remove(path), OS_GONE);
	free(path);
	path = files_path("gone");
	assert_int_equal(files_list(path, &names, &count), OS_GONE);
	free(path);
}

/* A file longer than the most a caller takes is refused, not cut. */
static void test_too_long(void **state)
{
	const struct files_case *c = &files_cases[2];
	char *path = files_path(c->file), *text;
	size_t len;

	(void)state;
	assert_int_equal(files_read(path, 8, &text, &len), OS_FAILED);
	free(path);
}

/* The most is the most: a file of exactly max bytes is read whole, past
 * the first piece the buffer grows by, and one byte more is refused with
 * EFBIG. */
static void test_exact_limit(void **state)
{
	char *path = files_path("limit.txt"), *body = xmalloc(5000), *text;
	size_t len;

	(void)state;
	memset(body, 'x', 5000);
	assert_int_equal(files_replace(path, body, 5000), OS_OK);
	assert_int_equal(files_read(path, 5000, &text, &len), OS_OK);
	assert_int_equal(len, 5000);
	assert_memory_equal(text, body, 5000);
	assert_int_equal(text[5000], '\0');
	free(text);
	errno = 0;
	assert_int_equal(files_read(path, 4999, &text, &len), OS_FAILED);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(files_remove(path), OS_OK);
	free(body);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_rules_dir),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_exact_limit),
	};

	return unit_run("files", UNIT_TABLE(files_cases, test_file),
			UNIT_TESTS(tests), files_setup, files_teardown);
}
