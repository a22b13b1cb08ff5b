/* The system's types the portable core names (uid_t, gid_t, pid_t): the C
 * library's own here; and the archetype of its format checks. */
#ifndef CPUPOLICY_OSTYPES_H
#define CPUPOLICY_OSTYPES_H

#include <fcntl.h>
#include <sys/types.h>

#define OS_PRINTF printf

/* The size of a process name (comm): 15 bytes and the NUL. */
#define OS_NAME_MAX 16

#endif
