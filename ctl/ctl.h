/* cpupolicyctl: the options every subcommand shares, and the subcommands. */
#ifndef CPUPOLICY_CTL_H
#define CPUPOLICY_CTL_H

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses every subcommand keeps to. */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_FAIL = 1,  /* invalid rules, a failed check */
	CTL_EXIT_USAGE = 2, /* bad usage, or I/O errors */
};

struct ctl {
	const char *conf_path;
	bool conf_explicit;
	const char *socket; /* NULL: from the config */
};

/* apply.c */
int apply_main(struct ctl *ctl, int argc, char **argv);

/* check.c */
int check_main(struct ctl *ctl, int argc, char **argv);

/* saturate.c */
int saturate_main(struct ctl *ctl, int argc, char **argv);

/* restore.c */
int restore_main(struct ctl *ctl, int argc, char **argv);

/* remote.c */
struct proto_request;
int remote_call(const struct ctl *ctl, const struct proto_request *req,
		bool loud, int *status, char **text, size_t *text_len);
char *remote_socket_path(const struct ctl *ctl);
int remote_connect(const char *path);
int remote_refuse_if_running(const struct ctl *ctl, const char *why);
int remote_status_main(struct ctl *ctl, int argc, char **argv);
int remote_explain_main(struct ctl *ctl, int argc, char **argv);
int remote_reload_main(struct ctl *ctl, int argc, char **argv);
int remote_metrics_main(struct ctl *ctl, int argc, char **argv);

#endif
