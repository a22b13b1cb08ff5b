/* The Linux front end's own parts, beyond policyd.h: the descriptors the
 * loop watches for the control endpoint. */
#ifndef CPUPOLICY_POLICYD_LINUX_INTERNAL_H
#define CPUPOLICY_POLICYD_LINUX_INTERNAL_H

#include "../policyd.h"

/* listen.c */
int listen_fd(const struct listen *l);
int listen_conn_fd(const struct listen_conn *conn);

#endif
