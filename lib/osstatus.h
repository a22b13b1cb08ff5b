/* What a call behind the seam (os.h, events.h, execfilter.h) came to,
 * decided in the backend from errno or GetLastError (status.c in each
 * backend's folder): the portable core judges this, never the system's
 * own codes. */
#ifndef CPUPOLICY_OSSTATUS_H
#define CPUPOLICY_OSSTATUS_H

enum os_status {
	OS_OK,
	OS_GONE,	/* the process or thread has ended */
	OS_DENIED,	/* refused for good: a privilege, a limit, a policy */
	OS_UNSUPPORTED, /* this system, or this value here, cannot do it */
	OS_FAILED,	/* anything else: it may work later */
};

#endif
