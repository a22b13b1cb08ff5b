/* Linux: the control endpoint is a UNIX socket, named by a path. */
#include <sys/un.h>

#include "os.h"

/* The longest path a socket address holds, its NUL aside. */
size_t endpoint_path_max(void)
{
	return sizeof(((struct sockaddr_un *)0)->sun_path) - 1;
}
