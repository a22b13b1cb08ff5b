/* cpupolicyctl restore: put back every system setting the journal says a
 * daemon changed, without a daemon (after a crash, or before removing the
 * package), where the setting still has the daemon's value and the
 * journal is this boot's. Refused while a daemon runs: it holds them, and
 * gives them back itself when it stops. --force only skips that look:
 * what someone else changed since stays theirs even then. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl.h"
#include "power.h"
#include "util.h"

/* The journal replayed as the daemon replays it at start. */
static int restore_journal(const struct conf *conf)
{
	struct power pw;
	int restored;

	paths_set_roots(conf->procfs, conf->sysfs, conf->dev);
	if (apply_power_open(&pw, conf->state_dir) < 0) {
		bool unsafe = pw.journal.unsafe;

		apply_power_close(&pw);
		if (unsafe) {
			fprintf(stderr,
				"cpupolicyctl: the journal in %s is refused "
				"(see above): nothing restored\n",
				conf->state_dir);
			return -1;
		}
		fprintf(stderr,
			"cpupolicyctl: cannot use the journal in %s (see "
			"above): nothing restored\n",
			conf->state_dir);
		return -1;
	}
	restored = apply_power_restore_all(&pw);
	apply_power_close(&pw);
	if (restored < 0)
		fprintf(stderr,
			"cpupolicyctl: not every setting in the journal in %s "
			"could be restored (see above); it keeps them\n",
			conf->state_dir);
	return restored;
}

int restore_main(struct ctl *ctl, int argc, char **argv)
{
	struct conf conf;
	struct diag diag;
	int status, restored;

	bool force = argc == 2 && strcmp(argv[1], "--force") == 0;

	if (argc > 1 && !force) {
		bool help = strcmp(argv[1], "--help") == 0 ||
			    strcmp(argv[1], "-h") == 0;

		fprintf(help ? stdout : stderr,
			"usage: cpupolicyctl restore [--force]\n"
			"  --force  even if something answers on the control "
			"socket (for the\n"
			"           service manager once the daemon stopped: "
			"it keeps the socket);\n"
			"           a setting someone else changed since is "
			"left to them all the same\n");
		return help ? CTL_EXIT_OK : CTL_EXIT_USAGE;
	}
	if (force)
		goto restore;
	status = remote_refuse_if_running(
		ctl, "it holds these settings and restores them when it stops");
	if (status != CTL_EXIT_OK)
		return status;
restore:
	conf_init(&conf);
	diag_init(&diag);
	if (conf_load_file(&conf, ctl->conf_path, ctl->conf_explicit, &diag) <
		    0 ||
	    diag.errors) {
		diag_print(&diag, stderr, false);
		diag_free(&diag);
		conf_free(&conf);
		return CTL_EXIT_USAGE;
	}
	restored = restore_journal(&conf);
	if (restored == 0)
		printf("nothing to restore\n");
	else if (restored > 0)
		printf("restored %d settings\n", restored);
	diag_free(&diag);
	conf_free(&conf);
	return restored < 0 ? CTL_EXIT_FAIL : CTL_EXIT_OK;
}
