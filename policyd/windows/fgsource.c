/* Windows: the foreground comes from the per-user agent over the
 * control pipe, which is not here yet: nothing to open. */
#include "internal.h"

enum os_status fgsource_open(struct daemon *d)
{
	(void)d;
	return OS_UNSUPPORTED;
}

long fgsource_fd(const struct daemon *d)
{
	(void)d;
	return -1;
}

void fgsource_process(struct daemon *d)
{
	(void)d;
}

void fgsource_close(struct daemon *d)
{
	(void)d;
}
