/* Linux: nothing applies a policy to a program by its file name before
 * the daemon sees its exec, so there is nothing to write here. */
#include "../policyd.h"

void ifeo_sync(struct daemon *d, const struct rules *rules)
{
	(void)d;
	(void)rules;
}

void ifeo_exec(struct daemon *d, pid_t pid)
{
	(void)d;
	(void)pid;
}
