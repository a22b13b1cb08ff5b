/* cpupolicyctl apply: the rules applied once to the running processes,
 * without a daemon (and refused while one runs: two appliers would each
 * take the other's settings for someone else's). */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf.h"
#include "ctl.h"
#include "log.h"
#include "manage.h"
#include "rules.h"
#include "util.h"

static void apply_usage(FILE *out)
{
	fprintf(out, "usage: cpupolicyctl apply [--dry-run] [PATH...]\n"
		     "  PATH       a rule file or directory (default: the "
		     "config's rules_dirs)\n"
		     "  --dry-run  say what would be set, set nothing\n");
}

int apply_main(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct place_topology topology, *topo = NULL;
	bool dry_run = false;
	struct manage m;
	struct rules rules;
	struct conf conf;
	struct diag diag;
	int c, status;

	while ((c = getopt_long(argc, argv, "nh", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'h':
			apply_usage(stdout);
			return CTL_EXIT_OK;
		default:
			apply_usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	status = remote_refuse_if_running(
		ctl, "and applies the rules itself; use 'cpupolicyctl reload' "
		     "after changing them");
	if (status != CTL_EXIT_OK)
		return status;
	conf_init(&conf);
	rules_init(&rules);
	diag_init(&diag);
	status = conf_load_trusted(&conf, ctl->conf_path, ctl->conf_explicit,
				   &diag);
	paths_set_roots(conf.procfs, conf.sysfs, conf.dev);
	/* The configured rules, as the daemon would load them; files named
	 * on the command line are the caller's choice. */
	rules.trust_all = optind >= argc;
	if (status == 0 && !diag.errors)
		status = optind < argc
				 ? rules_load_paths(&rules, argv + optind,
						    (size_t)(argc - optind),
						    true, &diag)
				 : rules_load_paths(&rules, conf.rules_dirs,
						    conf.rules_dir_count, false,
						    &diag);
	diag_print(&diag, stderr, true);
	if (status < 0 || diag.errors) {
		status = status < 0 ? CTL_EXIT_USAGE : CTL_EXIT_FAIL;
		goto out;
	}
	log_set_level(conf.log_level);
	if (rules_have_placement(&rules)) {
		if (place_topology_load(&topology, NULL, NULL) < 0) {
			fprintf(stderr, "cpupolicyctl: cannot read the CPU "
					"topology\n");
			status = CTL_EXIT_FAIL;
			goto out;
		}
		topo = &topology;
	}
	manage_init(&m,
		    &(struct manage_options){
			    .dry_run = dry_run || conf.dry_run,
			    .respect_changes = conf.respect_changes,
		    },
		    topo);
	manage_set_rules(&m, &rules);
	printf("%llu processes matched one of %zu rules; %llu threads set, "
	       "%llu failures%s\n",
	       m.counters.matches, rules.count, m.counters.applies,
	       m.counters.failures, m.options.dry_run ? " (dry run)" : "");
	status = m.counters.failures ? CTL_EXIT_FAIL : CTL_EXIT_OK;
	manage_free(&m);
	if (topo)
		place_topology_free(topo);
out:
	diag_free(&diag);
	rules_free(&rules);
	conf_free(&conf);
	return status;
}
