/* Linux: a thread's nice value, scheduling policy and I/O priority. All
 * three are per thread: setpriority, sched_setscheduler and ioprio_set
 * given a thread id change that thread only. */
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/ioprio.h>
#include <linux/types.h>

#include "linux.h"
#include "prio.h"

static const int apply_prio_policies[] = {
	[RULE_POLICY_OTHER] = SCHED_OTHER, [RULE_POLICY_BATCH] = SCHED_BATCH,
	[RULE_POLICY_IDLE] = SCHED_IDLE,   [RULE_POLICY_FIFO] = SCHED_FIFO,
	[RULE_POLICY_RR] = SCHED_RR,
};

static const int apply_prio_io_classes[] = {
	[RULE_IO_CLASS_UNSET] = IOPRIO_CLASS_NONE,
	[RULE_IO_CLASS_REALTIME] = IOPRIO_CLASS_RT,
	[RULE_IO_CLASS_BEST_EFFORT] = IOPRIO_CLASS_BE,
	[RULE_IO_CLASS_IDLE] = IOPRIO_CLASS_IDLE,
};

static enum rule_policy apply_prio_policy_from(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_BATCH:
		return RULE_POLICY_BATCH;
	case SCHED_IDLE:
		return RULE_POLICY_IDLE;
	case SCHED_FIFO:
		return RULE_POLICY_FIFO;
	case SCHED_RR:
		return RULE_POLICY_RR;
	}
	return RULE_POLICY_OTHER; /* also SCHED_DEADLINE: not ours to set */
}

/* The kernel's struct sched_attr as Linux 3.14 has it (48 bytes, which
 * every later kernel takes) and SCHED_FLAG_RESET_ON_FORK: their headers
 * clash with glibc's <sched.h>. */
struct apply_prio_sched_attr {
	__u32 size, sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime, sched_deadline, sched_period;
};
#define APPLY_PRIO_FLAG_RESET_ON_FORK 0x01

/* Nice, policy, its reset-on-fork flag and realtime priority in one
 * sched_getattr (Linux 3.14), a matched exec's first read of each of
 * its threads; three calls where it is missing. */
static int apply_prio_get_sched(pid_t tid, struct prio_state *state)
{
	struct apply_prio_sched_attr attr = {.size = sizeof(attr)};
	struct sched_param param;
	int policy;

	if (syscall(SYS_sched_getattr, tid, &attr, sizeof(attr), 0) == 0) {
		state->nice = attr.sched_nice;
		state->policy = apply_prio_policy_from((int)attr.sched_policy);
		state->reset_on_fork =
			(attr.sched_flags & APPLY_PRIO_FLAG_RESET_ON_FORK) != 0;
		state->rt_priority = (int)attr.sched_priority;
		return 0;
	}
	if (errno != ENOSYS)
		return -1;
	errno = 0;
	state->nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (state->nice == -1 && errno)
		return -1;
	policy = sched_getscheduler(tid);
	if (policy < 0 || sched_getparam(tid, &param) < 0)
		return -1;
	state->policy = apply_prio_policy_from(policy);
	state->reset_on_fork = policy & SCHED_RESET_ON_FORK;
	state->rt_priority = param.sched_priority;
	return 0;
}

static int apply_prio_get(pid_t tid, struct prio_state *state)
{
	int ioprio;

	*state = (struct prio_state){0};
	if (apply_prio_get_sched(tid, state) < 0)
		return -1;
	ioprio = (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid);
	if (ioprio < 0)
		return -1;
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
		state->io_class = RULE_IO_CLASS_REALTIME;
		break;
	case IOPRIO_CLASS_BE:
		state->io_class = RULE_IO_CLASS_BEST_EFFORT;
		break;
	case IOPRIO_CLASS_IDLE:
		state->io_class = RULE_IO_CLASS_IDLE;
		break;
	default:
		state->io_class = RULE_IO_CLASS_UNSET;
		break;
	}
	state->io_level = (int)IOPRIO_PRIO_DATA(ioprio);
	if (state->io_class == RULE_IO_CLASS_IDLE)
		state->io_level = 0;
	return 0;
}

/* Writes only what differs. The policy goes first: the kernel refuses a
 * realtime priority with a normal policy and ignores nice under a
 * realtime one. The policy is written with the thread's reset-on-fork
 * flag, which the kernel clears otherwise. ESRCH (the thread exited) is
 * for the caller to judge. */
static int apply_prio_set(pid_t tid, const struct prio_state *now,
			  const struct prio_state *wanted)
{
	if (now->policy != wanted->policy ||
	    now->rt_priority != wanted->rt_priority ||
	    now->reset_on_fork != wanted->reset_on_fork) {
		struct sched_param param = {.sched_priority =
						    wanted->rt_priority};
		int policy = apply_prio_policies[wanted->policy];

		if (wanted->reset_on_fork)
			policy |= SCHED_RESET_ON_FORK;
		if (sched_setscheduler(tid, policy, &param) < 0)
			return -1;
	}
	if (now->nice != wanted->nice &&
	    setpriority(PRIO_PROCESS, (id_t)tid, wanted->nice) < 0)
		return -1;
	if (now->io_class != wanted->io_class ||
	    (wanted->io_class && now->io_level != wanted->io_level)) {
		/* "None" (derive from nice) takes no level. */
		int level = wanted->io_class ? wanted->io_level : 0;

		if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, tid,
			    IOPRIO_PRIO_VALUE(
				    apply_prio_io_classes[wanted->io_class],
				    level)) < 0)
			return -1;
	}
	return 0;
}

/* A nice value and a policy the kernel did not refuse are the ones
 * asked for (the daemon asks only for valid ones); an I/O priority is
 * read back: with no class set, the kernel answers with the level it
 * derives from nice. */
bool apply_prio_taken(const struct prio_state *now,
		      const struct prio_state *wanted, struct prio_state *taken)
{
	if (now->io_class != wanted->io_class ||
	    (wanted->io_class && now->io_level != wanted->io_level))
		return false;
	*taken = *now;
	taken->nice = wanted->nice;
	taken->policy = wanted->policy;
	taken->rt_priority = wanted->rt_priority;
	taken->reset_on_fork = wanted->reset_on_fork;
	return true;
}

/* All three are per thread: the tid alone names it. */
enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state)
{
	(void)pid;
	return apply_prio_get(tid, state) == 0 ? OS_OK : status_of_errno(errno);
}

enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	(void)pid;
	return apply_prio_set(tid, now, wanted) == 0 ? OS_OK
						     : status_of_errno(errno);
}
