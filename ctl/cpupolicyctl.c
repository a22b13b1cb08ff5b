/* cpupolicyctl: validate rules, talk to the daemon, measure the machine. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl.h"
#include "log.h"
#include "os.h"
#include "util.h"

static const struct {
	const char *name;
	int (*run)(struct ctl *ctl, int argc, char **argv);
	const char *summary;
} ctl_commands[] = {
	{"check", check_main, "validate rule files"},
	{"status", remote_status_main, "the daemon's counters"},
	{"explain", remote_explain_main,
	 "why a process got (or did not get) a rule"},
	{"reload", remote_reload_main, "reload the daemon's rules"},
	{"restraint", remote_restraint_main,
	 "pause or resume restraint, or exempt a process from it"},
	{"agent", agent_main,
	 "tell the daemon which process its user is looking at"},
	{"apply", apply_main, "apply the rules once, without a daemon"},
	{"metrics", remote_metrics_main,
	 "Prometheus text: counters, holds, last saturation check"},
	{"saturate", saturate_main,
	 "check that every CPU really works, and why not"},
	{"restore", restore_main,
	 "put back the system settings a daemon left changed"},
	{"import", import_main,
	 "rule files from ananicy rules or Process Lasso's config"},
};

static void ctl_usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyctl [-c FILE] [-S SOCKET] [-t SECONDS] "
		"COMMAND [ARGS...]\n"
		"  -c FILE    daemon config (default %s)\n"
		"  -S SOCKET  control socket (default: from the config)\n"
		"  -t SECONDS how long to wait for the daemon, in all "
		"(default %d)\n"
		"commands:\n",
		paths_conf_file(), CTL_TIMEOUT_S);
	for (size_t i = 0; i < ARRAY_SIZE(ctl_commands); i++)
		fprintf(out, "  %-10s %s\n", ctl_commands[i].name,
			ctl_commands[i].summary);
	fprintf(out, "'cpupolicyctl COMMAND --help' tells more.\n");
}

/* Seconds, fractions allowed, up to a day. */
static int ctl_timeout(const char *text, long long *ns)
{
	char *end;
	double s = strtod(text, &end);

	if (end == text || *end || !(s >= 0.001 && s <= 86400)) {
		fprintf(stderr,
			"cpupolicyctl: -t: '%s' is not a number of seconds "
			"from 0.001 to 86400\n",
			text);
		return -1;
	}
	*ns = (long long)(s * 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"socket", required_argument, NULL, 'S'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct ctl ctl = {
		.conf_path = paths_conf_file(),
		.timeout_ns = CTL_TIMEOUT_S * 1000000000LL,
	};
	const char *command;
	int c;

	log_init("cpupolicyctl", LOG_LEVEL_INFO);
	system_args(&argc, &argv);
	while ((c = getopt_long(argc, argv, "+c:S:t:hV", options, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			ctl.conf_path = optarg;
			ctl.conf_explicit = true;
			break;
		case 'S':
			ctl.socket = optarg;
			break;
		case 't':
			if (ctl_timeout(optarg, &ctl.timeout_ns) < 0)
				return CTL_EXIT_USAGE;
			break;
		case 'h':
			ctl_usage(stdout);
			return CTL_EXIT_OK;
		case 'V':
			printf("cpupolicyctl %s\n", CPUPOLICY_VERSION);
			return CTL_EXIT_OK;
		default:
			ctl_usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ctl_usage(stderr);
		return CTL_EXIT_USAGE;
	}
	command = argv[optind];
	for (size_t i = 0; i < ARRAY_SIZE(ctl_commands); i++) {
		if (strcmp(command, ctl_commands[i].name) == 0) {
			argc -= optind;
			argv += optind;
			optind = 0; /* glibc: start the next getopt afresh */
			return ctl_commands[i].run(&ctl, argc, argv);
		}
	}
	fprintf(stderr, "cpupolicyctl: unknown command '%s'\n", command);
	ctl_usage(stderr);
	return CTL_EXIT_USAGE;
}
