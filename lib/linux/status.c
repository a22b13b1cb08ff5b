/* Linux: an errno as the seam's status (os.h). What each one means for
 * the calls behind the seam: ESRCH and ENOENT, the process or thread is
 * gone; EPERM and EACCES, refused (a capability, RLIMIT_RTPRIO, a cgroup
 * without realtime time, a security module); EINVAL, a value this kernel
 * or this cpuset does not take, and a protocol or an address family it
 * lacks (a proc connector outside the initial network namespace); anything else
 * (EAGAIN, EBUSY, ENOMEM, EINTR) may work when tried again. */
#include <errno.h>

#include "linux.h"

enum os_status status_of_errno(int error)
{
	switch (error) {
	case 0:
		return OS_OK;
	case ESRCH:
	case ENOENT:
		return OS_GONE;
	case EPERM:
	case EACCES:
		return OS_DENIED;
	case EINVAL:
	case ENOSYS:
	case EOPNOTSUPP:
	case EPROTONOSUPPORT: /* a socket's protocol this kernel lacks */
	case EAFNOSUPPORT:
		return OS_UNSUPPORTED;
	}
	return OS_FAILED;
}

/* A call of the C library's kind (0 or -1 with errno) as a status. */
enum os_status status_of_result(int result)
{
	return result < 0 ? status_of_errno(errno) : OS_OK;
}
