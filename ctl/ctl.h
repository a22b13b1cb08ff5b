/* cpupolicyctl: the options every subcommand shares, and the subcommands. */
#ifndef CPUPOLICY_CTL_H
#define CPUPOLICY_CTL_H

#include <stdbool.h>

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

/* check.c */
int check_main(struct ctl *ctl, int argc, char **argv);

#endif
