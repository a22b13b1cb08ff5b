/* The system's types the portable core names (uid_t, gid_t, pid_t): the C
 * library's own here; the archetype of its format checks; and the fields
 * of the seam's structs that are this system's own (the way libuv's
 * per-system headers hold UV_PROCESS_PRIVATE_FIELDS). */
#ifndef CPUPOLICY_OSTYPES_H
#define CPUPOLICY_OSTYPES_H

#include <fcntl.h>
#include <sys/types.h>

#define OS_PRINTF printf

/* The size of a process name (comm): 15 bytes and the NUL. */
#define OS_NAME_MAX 16

/* The proc connector's answers to a subscription (events.c). */
struct events_acks {
	unsigned count;
	int last_error; /* the kernel's answer to a subscription */
};

/* struct events (events.h): the netlink socket, the kernel's answers on
 * it, and the errno of the last failure. */
#define EVENTS_PRIVATE_FIELDS                                                  \
	int fd;                                                                \
	struct events_acks acks;                                               \
	int error;

/* struct procinfo_pin (os.h): a pidfd. */
#define PROCINFO_PIN_PRIVATE_FIELDS int fd;

#endif
