/* The exec filter's Linux side without loading it: why it did not load,
 * each cause named with its fix, and the kernel's device numbers in
 * stat()'s encoding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "unit.h"

#include "linux.h"

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
	  .libbpf = "libbpf: prog: -22"},
	 "the kernel refused the filter (load): Invalid argument; libbpf: "
	 "libbpf: prog: -22",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_to_stat),
	};

	return unit_run("execfilter",
			UNIT_TABLE(refusal_cases, test_refusal_case),
			UNIT_TESTS(tests), NULL, NULL);
}
