/* The exec filter's Linux side without loading it: why it did not load,
 * each cause named with its fix, the kernel's device numbers in stat()'s
 * encoding, and the watch of the literal exes' directories (inotify, on
 * a directory of the test's own). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "linux.h"
#include "util.h"

struct refusal_case {
	const char *name;
	struct execfilter_env env;
	const char *says, *not_says;
};

static const struct refusal_case refusal_cases[] = {
	{"no BTF: said first",
	 {.step = "load", .error = EPERM, .kernel_major = 6, .kernel_minor = 1},
	 "the kernel has no BTF",
	 "CAP_BPF"},
	{"no capability",
	 {.step = "load",
	  .error = EPERM,
	  .kernel_major = 6,
	  .kernel_minor = 18,
	  .btf = true},
	 "takes CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN",
	 "lockdown"},
	{"CAP_BPF without CAP_PERFMON is not enough",
	 {.step = "load",
	  .error = EPERM,
	  .kernel_major = 6,
	  .kernel_minor = 18,
	  .btf = true,
	  .cap_bpf = true},
	 "takes CAP_BPF and CAP_PERFMON",
	 "lockdown"},
	{"CAP_SYS_ADMIN is enough: then lockdown",
	 {.step = "load",
	  .error = EPERM,
	  .kernel_major = 6,
	  .kernel_minor = 18,
	  .btf = true,
	  .cap_sys_admin = true,
	  .lockdown = "confidentiality"},
	 "lockdown mode (confidentiality)",
	 "CAP_BPF"},
	{"lockdown integrity does not forbid it",
	 {.step = "load",
	  .error = EINVAL,
	  .kernel_major = 6,
	  .kernel_minor = 18,
	  .btf = true,
	  .cap_bpf = true,
	  .cap_perfmon = true,
	  .lockdown = "integrity",
	  .verifier = "R1 invalid mem access 'scalar'"},
	 "the kernel refused the filter (load): Invalid argument; the "
	 "verifier: R1 invalid mem access 'scalar'",
	 "lockdown"},
	{"an old kernel",
	 {.step = "load",
	  .error = EINVAL,
	  .kernel_major = 5,
	  .kernel_minor = 10,
	  .btf = true,
	  .cap_sys_admin = true},
	 "Linux 5.10 lacks what the filter uses",
	 "CAP_BPF"},
	{"5.17 is new enough",
	 {.step = "attach",
	  .error = ENOTSUP,
	  .kernel_major = 5,
	  .kernel_minor = 17,
	  .btf = true,
	  .cap_sys_admin = true},
	 "the kernel refused the filter (attach)",
	 "lacks"},
};

static void test_refusal_case(void **state)
{
	const struct refusal_case *c = *state;
	char buf[512];

	execfilter_refusal(&c->env, buf, sizeof(buf));
	assert_non_null(strstr(buf, c->says));
	assert_null(strstr(buf, c->not_says));
}

/* super_block.s_dev is MAJOR << 20 | MINOR; stat() reports
 * new_encode_dev's form, which glibc's makedev also gives. */
static void test_dev_to_stat(void **state)
{
	static const struct {
		unsigned major, minor;
	} devs[] = {{8, 1}, {0, 27}, {259, 3}, {253, 300000}, {4095, 0}};

	(void)state;
	for (size_t i = 0; i < sizeof(devs) / sizeof(*devs); i++) {
		unsigned kernel = devs[i].major << 20 | devs[i].minor;
		unsigned long long dev = execfilter_dev_to_stat(kernel);

		assert_int_equal(major(dev), devs[i].major);
		assert_int_equal(minor(dev), devs[i].minor);
	}
	/* And not the kernel's own number where the two differ. */
	assert_true(execfilter_dev_to_stat(8u << 20 | 1) != (8u << 20 | 1));
}

/* Which paths the watch reported: a bit each. */
static void note_path(void *ctx, size_t path)
{
	*(unsigned *)ctx |= 1u << path;
}

static unsigned watch_reported(struct execwatch *w)
{
	unsigned reported = 0;

	assert_int_equal(execwatch_read(w, note_path, &reported), 0);
	return reported;
}

static void put_file(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("x", f);
	assert_int_equal(fclose(f), 0);
}

/* The kernel queues an event as the rename returns: what the watch
 * reports is known at once, no waiting. An upgrade's rename over a
 * literal exe is reported for that path only; another name in the same
 * directory, and a write in place, are not; a directory missing at first
 * is watched through the one above it, and its making reported at once,
 * two levels deep too, with nothing left for the periodic retry; one
 * removed is watched that way again, and its return reported. */
static void test_watch(void **state)
{
	char dir[] = "/tmp/test_execwatch.XXXXXX", *paths[4], *tmp, *later;
	char *deep, *deeper;
	struct execwatch *w;
	unsigned reported;

	(void)state;
	assert_non_null(mkdtemp(dir));
	paths[0] = xasprintf("%s/app", dir);
	paths[1] = xasprintf("%s/other", dir);
	later = xasprintf("%s/later", dir);
	paths[2] = xasprintf("%s/tool", later);
	deep = xasprintf("%s/deep", dir);
	deeper = xasprintf("%s/er", deep);
	paths[3] = xasprintf("%s/tool", deeper);
	tmp = xasprintf("%s/app.new", dir);
	put_file(paths[0]);
	put_file(paths[1]);
	w = execwatch_open();
	assert_non_null(w);
	assert_true(execwatch_fd(w) >= 0);
	execwatch_set(w, paths, 4);
	assert_int_equal(watch_reported(w), 0);

	put_file(tmp);
	assert_int_equal(rename(tmp, paths[0]), 0);
	assert_int_equal(watch_reported(w), 1u << 0);
	put_file(tmp);
	assert_int_equal(unlink(tmp), 0);
	put_file(paths[1]); /* in place: the same inode */
	assert_int_equal(watch_reported(w), 0);

	/* A directory that was not there: its making is reported, then its
	 * file's arrival. */
	assert_int_equal(mkdir(later, 0700), 0);
	assert_int_equal(watch_reported(w), 1u << 2);
	put_file(paths[2]);
	assert_int_equal(watch_reported(w), 1u << 2);
	/* Two levels missing: each making reported, then the file. */
	assert_int_equal(mkdir(deep, 0700), 0);
	assert_int_equal(watch_reported(w), 1u << 3);
	assert_int_equal(mkdir(deeper, 0700), 0);
	assert_int_equal(watch_reported(w), 1u << 3);
	put_file(paths[3]);
	assert_int_equal(watch_reported(w), 1u << 3);
	/* Nothing is left for the retry at ticks. */
	reported = 0;
	execwatch_retry(w, note_path, &reported);
	assert_int_equal(reported, 0);
	/* Removed: reported, then watched through the one above, and its
	 * return reported. */
	assert_int_equal(unlink(paths[2]), 0);
	assert_int_equal(rmdir(later), 0);
	assert_int_equal(watch_reported(w) & (1u << 2), 1u << 2);
	assert_int_equal(mkdir(later, 0700), 0);
	assert_int_equal(watch_reported(w), 1u << 2);
	put_file(paths[2]);
	assert_int_equal(watch_reported(w), 1u << 2);

	/* A new plan without the first path: its directory stays watched for
	 * the others, and its name no longer reported. */
	execwatch_set(w, paths + 1, 3);
	put_file(tmp);
	assert_int_equal(rename(tmp, paths[0]), 0);
	assert_int_equal(watch_reported(w), 0);
	assert_int_equal(unlink(paths[1]), 0);
	assert_int_equal(watch_reported(w), 1u << 0);

	execwatch_close(w);
	unlink(paths[0]);
	unlink(paths[2]);
	unlink(paths[3]);
	rmdir(deeper);
	rmdir(deep);
	rmdir(later);
	rmdir(dir);
	for (int i = 0; i < 4; i++)
		free(paths[i]);
	free(tmp);
	free(later);
	free(deep);
	free(deeper);
}

/* A file where a directory of the path should be: watched through the
 * directory above, not tried again at every tick; its replacing by a
 * directory is reported. */
static void test_watch_file_in_way(void **state)
{
	char dir[] = "/tmp/test_execwatch.XXXXXX", *paths[1], *blocker;
	struct execwatch *w;
	unsigned reported = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	blocker = xasprintf("%s/blocker", dir);
	paths[0] = xasprintf("%s/tool", blocker);
	put_file(blocker);
	w = execwatch_open();
	assert_non_null(w);
	execwatch_set(w, paths, 1);
	execwatch_retry(w, note_path, &reported);
	assert_int_equal(reported, 0);
	assert_int_equal(unlink(blocker), 0);
	assert_int_equal(mkdir(blocker, 0700), 0);
	assert_int_equal(watch_reported(w), 1u << 0);
	put_file(paths[0]);
	assert_int_equal(watch_reported(w), 1u << 0);
	execwatch_close(w);
	unlink(paths[0]);
	rmdir(blocker);
	rmdir(dir);
	free(paths[0]);
	free(blocker);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_to_stat),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_watch_file_in_way),
	};

	return unit_run("execfilter",
			UNIT_TABLE(refusal_cases, test_refusal_case),
			UNIT_TESTS(tests), NULL, NULL);
}
