/* A thread's priority as apply_prio_read has it (one sched_getattr for
 * nice, policy, its reset-on-fork flag and realtime priority), against
 * the calls that each read one of them, on a child set by those calls:
 * nice values, batch and idle with and without reset-on-fork, and FIFO
 * and RR where this process may set them (CAP_SYS_NICE). */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os.h"
#include "prio.h"
#include "unit.h"

struct read_case {
	const char *name;
	int policy; /* SCHED_*, | SCHED_RESET_ON_FORK */
	int rt_priority;
	int nice;
	enum rule_policy want_policy;
};

static const struct read_case read_cases[] = {
	{"nice 7", SCHED_OTHER, 0, 7, RULE_POLICY_OTHER},
	{"nice -3", SCHED_OTHER, 0, -3, RULE_POLICY_OTHER},
	{"batch, nice 10", SCHED_BATCH, 0, 10, RULE_POLICY_BATCH},
	{"batch, reset on fork", SCHED_BATCH | SCHED_RESET_ON_FORK, 0, 2,
	 RULE_POLICY_BATCH},
	{"idle", SCHED_IDLE, 0, 0, RULE_POLICY_IDLE},
	{"fifo 5", SCHED_FIFO, 5, 0, RULE_POLICY_FIFO},
	{"rr 9, reset on fork", SCHED_RR | SCHED_RESET_ON_FORK, 9, 0,
	 RULE_POLICY_RR},
};

static pid_t read_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(30); /* never outlives a test that failed to end it */
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	return pid;
}

static void read_child_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_read_case(void **state)
{
	const struct read_case *c = *state;
	struct sched_param param = {.sched_priority = c->rt_priority};
	struct prio_state got;
	pid_t pid = read_child();

	assert_int_equal(setpriority(PRIO_PROCESS, (id_t)pid, c->nice), 0);
	if (sched_setscheduler(pid, c->policy, &param) < 0) {
		int error = errno;

		read_child_end(pid);
		if (error == EPERM)
			skip(); /* realtime without CAP_SYS_NICE */
		fail_msg("sched_setscheduler: %d", error);
	}
	assert_int_equal(apply_prio_read(pid, pid, &got), OS_OK);
	/* What the calls of one value each say. */
	errno = 0;
	assert_int_equal(got.nice, getpriority(PRIO_PROCESS, (id_t)pid));
	assert_int_equal(got.nice, c->nice);
	assert_int_equal(got.policy, c->want_policy);
	assert_int_equal(got.reset_on_fork,
			 (sched_getscheduler(pid) & SCHED_RESET_ON_FORK) != 0);
	assert_int_equal(got.reset_on_fork,
			 (c->policy & SCHED_RESET_ON_FORK) != 0);
	assert_int_equal(sched_getparam(pid, &param), 0);
	assert_int_equal(got.rt_priority, param.sched_priority);
	assert_int_equal(got.rt_priority, c->rt_priority);
	read_child_end(pid);
}

/* A thread gone: its read fails, as the caller expects (ESRCH). */
static void test_read_gone(void **state)
{
	struct prio_state got;
	pid_t pid = read_child();

	(void)state;
	read_child_end(pid);
	assert_int_not_equal(apply_prio_read(pid, pid, &got), OS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_gone),
	};

	return unit_run("apply_prio", UNIT_TABLE(read_cases, test_read_case),
			UNIT_TESTS(tests), NULL, NULL);
}
