/* Why the kernel sends no process events: each refusal named with its
 * cause and its fix, and the status events_open gives. */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "linux.h"

struct refusal_case {
	const char *name;
	struct events_env env;
	const char *says, *not_says;
};

static const struct refusal_case refusal_cases[] = {
	{"container on 6.18: the PID namespace, not the capability",
	 {6, 18, false, false, true, OS_DENIED, EPERM},
	 "cpupolicyd runs in a PID namespace of its own",
	 "CAP_NET_ADMIN"},
	{"container on 5.15 with CAP_NET_ADMIN: the PID namespace",
	 {5, 15, true, false, true, OS_DENIED, EPERM},
	 "initial PID and user namespaces",
	 "CAP_NET_ADMIN"},
	{"container on 5.15 without the capability: the namespace first",
	 {5, 15, false, false, true, OS_DENIED, EPERM},
	 "PID namespace of its own",
	 "CAP_NET_ADMIN"},
	{"a user namespace of its own",
	 {6, 8, true, true, false, OS_DENIED, EPERM},
	 "runs in a user namespace of its own",
	 "PID namespace of its own"},
	{"Linux 6.5 without CAP_NET_ADMIN",
	 {6, 5, false, true, true, OS_DENIED, EPERM},
	 "Linux 6.5 lets only a process with CAP_NET_ADMIN subscribe",
	 "namespace"},
	{"Linux 5.10 without CAP_NET_ADMIN",
	 {5, 10, false, true, true, OS_DENIED, EPERM},
	 "give cpupolicyd CAP_NET_ADMIN",
	 "namespace"},
	{"Linux 6.6 without CAP_NET_ADMIN: not the capability",
	 {6, 6, false, true, true, OS_DENIED, EPERM},
	 "the proc connector refused: Operation not permitted",
	 "CAP_NET_ADMIN"},
	{"Linux 5.10 with CAP_NET_ADMIN: not the capability",
	 {5, 10, true, true, true, OS_DENIED, EPERM},
	 "the proc connector refused",
	 "CAP_NET_ADMIN"},
	{"another network namespace",
	 {6, 18, true, true, true, OS_UNSUPPORTED, EPROTONOSUPPORT},
	 "no proc connector here",
	 "PID"},
	{"another network namespace: nobody to send the subscription to",
	 {6, 18, true, true, true, OS_UNSUPPORTED, ECONNREFUSED},
	 "exists only in the initial network namespace",
	 "refused"},
	{"another network namespace inside a container",
	 {6, 18, true, false, true, OS_UNSUPPORTED, EPROTONOSUPPORT},
	 "ListenNetlink=connector 1",
	 "PID"},
	{"anything else: the kernel's error",
	 {6, 18, true, true, true, OS_FAILED, ENOMEM},
	 "the proc connector refused: Cannot allocate memory",
	 "namespace"},
};

static void test_refusal_case(void **state)
{
	const struct refusal_case *c = *state;
	char why[512];

	events_refusal(&c->env, why, sizeof(why));
	if (!strstr(why, c->says) || strstr(why, c->not_says))
		fail_msg("said: %s", why);
}

/* This machine's own facts: the test runs outside any container only
 * where the initial namespaces are its own, which it cannot know; it
 * checks what must hold anywhere. */
static void test_env_read(void **state)
{
	struct events_env env;

	(void)state;
	events_env_read(&env, OS_DENIED, EPERM);
	assert_int_equal(env.status, OS_DENIED);
	assert_int_equal(env.error, EPERM);
	assert_true(env.kernel_major >= 3);
}

/* In a network namespace of its own the kernel has no proc connector
 * (it lives only in the initial one, as on a kernel built without it):
 * events_open says OS_UNSUPPORTED, and the daemon's message says why.
 * Run in a child, which alone enters the namespace; skipped where no
 * namespace can be made (no user namespaces, not root). */
static int connector_outside(void)
{
	struct events ev;
	enum os_status status;
	char why[512];

	if (unshare(CLONE_NEWNET) < 0 &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return 77;
	status = events_open(&ev, &(struct events_options){.buffer_kb = 64});
	events_why_not(&ev, status, why, sizeof(why));
	if (status != OS_UNSUPPORTED || !strstr(why, "no proc connector")) {
		fprintf(stderr, "events_open: status %d: %s\n", (int)status,
			why);
		return 1;
	}
	return 0;
}

static void test_open_without_connector(void **state)
{
	pid_t child = fork();
	int wstatus;

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(connector_outside());
	assert_int_equal(waitpid(child, &wstatus, 0), child);
	assert_true(WIFEXITED(wstatus));
	if (WEXITSTATUS(wstatus) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(wstatus), 0);
}

/* One proc connector datagram, as the kernel sends it. */
static size_t datagram(void *buf, size_t size, const struct proc_event *pe)
{
	struct nlmsghdr *nl = buf;
	struct cn_msg *cn = NLMSG_DATA(nl);
	size_t len = NLMSG_LENGTH(sizeof(*cn) + sizeof(*pe));

	assert_true(len <= size);
	memset(buf, 0, len);
	nl->nlmsg_len = (unsigned)len;
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(*pe);
	memcpy(cn->data, pe, sizeof(*pe));
	return len;
}

static void keep_event(void *ctx, const struct events_event *e)
{
	*(struct events_event *)ctx = *e;
}

/* A fork is a new process (with who forked it) or a new thread (with the
 * thread that created it): the daemon needs both to follow inheritance. */
static void test_fork_events(void **state)
{
	uint64_t buf[64];
	struct proc_event pe = {.what = PROC_EVENT_FORK};
	struct events_acks acks = {0};
	struct events_event e = {0};
	size_t len;

	(void)state;
	pe.event_data.fork.parent_pid = 101; /* the forking thread */
	pe.event_data.fork.parent_tgid = 100;
	pe.event_data.fork.child_pid = 200;
	pe.event_data.fork.child_tgid = 200;
	len = datagram(buf, sizeof(buf), &pe);
	assert_int_equal(events_parse(buf, len, keep_event, &e, &acks), 1);
	assert_int_equal(e.kind, EVENTS_KIND_FORK);
	assert_int_equal(e.pid, 200);
	assert_int_equal(e.parent, 100);
	assert_int_equal(e.parent_tid, 101);

	pe.event_data.fork.child_pid = 201;
	pe.event_data.fork.child_tgid = 100;
	len = datagram(buf, sizeof(buf), &pe);
	assert_int_equal(events_parse(buf, len, keep_event, &e, &acks), 1);
	assert_int_equal(e.kind, EVENTS_KIND_THREAD);
	assert_int_equal(e.pid, 100);
	assert_int_equal(e.tid, 201);
	assert_int_equal(e.parent_tid, 101);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_read),
		cmocka_unit_test(test_open_without_connector),
		cmocka_unit_test(test_fork_events),
	};

	return unit_run("events", UNIT_TABLE(refusal_cases, test_refusal_case),
			UNIT_TESTS(tests), NULL, NULL);
}
