/* The Windows front end's own parts, beyond policyd.h: the handles the
 * loop waits on for the control pipe, what the service manager's and the
 * console's handlers (other threads) ask of the loop, and the registry
 * store the IFEO writer keeps its record in. */
#ifndef CPUPOLICY_POLICYD_WINDOWS_INTERNAL_H
#define CPUPOLICY_POLICYD_WINDOWS_INTERNAL_H

#include <windows.h>

#include "../policyd.h"

/* listen.c: the event of the pipe instance waiting for a client (NULL:
 * none waits now; listen_rearm makes one), and of a client's I/O */
HANDLE listen_handle(const struct listen *l);
HANDLE listen_conn_handle(const struct listen_conn *conn);
void listen_rearm(struct daemon *d);

/* loop.c: from any thread */
void loop_request_stop(const char *why);
void loop_request_reload(void);

/* install.c: --install and --uninstall, their exit status */
int install_service(void);
int install_remove(void);
int install_restore_power(const char *conf_path);

/* ifeo.c: --uninstall takes every value the daemon wrote away */
int ifeo_remove_all(void);

#endif
