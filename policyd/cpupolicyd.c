/* cpupolicyd: applies the rules to processes as they start. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "conf.h"
#include "log.h"
#include "rules.h"
#include "util.h"

struct options {
	const char *conf_path;
	bool conf_explicit;
	bool check_only;
	int verbose;
	char **rules_dirs;
	size_t rules_dir_count;
	const char *socket;
	const char *state_dir;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyd [-n] [-v] [-c FILE] [-r DIR]... [-S SOCKET] "
		"[--state-dir DIR]\n"
		"  -n             check the config and rules, then exit\n"
		"  -c FILE        config file (default %s)\n"
		"  -r DIR         a rules directory (repeat; replaces "
		"rules_dirs)\n"
		"  -S SOCKET      control socket (replaces socket)\n"
		"  --state-dir D  state directory (replaces state_dir)\n"
		"  -v             log debug messages\n",
		CONF_DEFAULT_PATH);
}

static void parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{"check", no_argument, NULL, 'n'},
		{"config", required_argument, NULL, 'c'},
		{"rules-dir", required_argument, NULL, 'r'},
		{"socket", required_argument, NULL, 'S'},
		{"state-dir", required_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "nc:r:S:vhV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'n':
			opt->check_only = true;
			break;
		case 'c':
			opt->conf_path = optarg;
			opt->conf_explicit = true;
			break;
		case 'r':
			opt->rules_dirs = xreallocarray(
				opt->rules_dirs, opt->rules_dir_count + 1,
				sizeof(*opt->rules_dirs));
			opt->rules_dirs[opt->rules_dir_count++] = optarg;
			break;
		case 'S':
			opt->socket = optarg;
			break;
		case 's':
			opt->state_dir = optarg;
			break;
		case 'v':
			opt->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("cpupolicyd %s\n", CPUPOLICY_VERSION);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (opt->socket &&
	    strlen(opt->socket) >=
		    sizeof(((struct sockaddr_un *)0)->sun_path)) {
		fprintf(stderr, "cpupolicyd: -S: socket path too long\n");
		exit(2);
	}
	if (optind < argc) {
		fprintf(stderr, "cpupolicyd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		exit(2);
	}
}

/* The file first, then the command line over it. */
static int load_conf(const struct options *opt, struct conf *conf,
		     struct diag *diag)
{
	conf_init(conf);
	if (conf_load_file(conf, opt->conf_path, opt->conf_explicit, diag) < 0)
		return -1;
	if (opt->rules_dir_count) {
		conf_set_rules_dirs(conf, "");
		for (size_t i = 0; i < opt->rules_dir_count; i++)
			conf_add_rules_dir(conf, opt->rules_dirs[i]);
	}
	if (opt->socket)
		conf_set_string(&conf->socket, opt->socket);
	if (opt->state_dir)
		conf_set_string(&conf->state_dir, opt->state_dir);
	if (opt->verbose)
		conf->log_level = LOG_LEVEL_DEBUG;
	return 0;
}

static int check_configuration(const struct options *opt)
{
	struct conf conf;
	struct rules rules;
	struct diag diag;
	int status;

	diag_init(&diag);
	rules_init(&rules);
	status = load_conf(opt, &conf, &diag);
	if (status == 0 && !diag.errors)
		/* A directory named with -r must exist; the config's may
		 * not yet (/etc/cpupolicy/rules.d on a fresh install). */
		status = rules_load_paths(&rules, conf.rules_dirs,
					  conf.rules_dir_count,
					  opt->rules_dir_count > 0, &diag);
	diag_print(&diag, stderr, true);
	if (status == 0 && !diag.errors)
		printf("configuration OK (%zu rules in %zu files)\n",
		       rules.count, rules.files_read);
	status = status == 0 && !diag.errors ? 0 : 1;
	rules_free(&rules);
	conf_free(&conf);
	diag_free(&diag);
	return status;
}

int main(int argc, char **argv)
{
	struct options opt = {.conf_path = CONF_DEFAULT_PATH};
	int status;

	log_init("cpupolicyd", LOG_LEVEL_INFO);
	parse_options(argc, argv, &opt);
	if (opt.check_only) {
		status = check_configuration(&opt);
		free(opt.rules_dirs);
		return status;
	}
	free(opt.rules_dirs);
	fatalx("only -n (check the configuration) is available in this "
	       "version");
}
