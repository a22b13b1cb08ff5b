/* Windows: a process's priority class and its threads' priorities.
 * (First cut: OS_UNSUPPORTED.) */
#include "win.h"

enum os_status apply_prio_read(pid_t pid, pid_t tid, struct prio_state *state)
{
	(void)pid;
	(void)tid;
	*state = (struct prio_state){0};
	return OS_UNSUPPORTED;
}

enum os_status apply_prio_write(pid_t pid, pid_t tid,
				const struct prio_state *now,
				const struct prio_state *wanted)
{
	(void)pid;
	(void)tid;
	(void)now;
	(void)wanted;
	return OS_UNSUPPORTED;
}
