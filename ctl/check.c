/* cpupolicyctl check: validate rule files and report every problem. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "ctl.h"
#include "execplan.h"
#include "match.h"
#include "rules.h"

/* Options without a letter: -S names the socket before the command. */
enum check_option {
	CHECK_OPTION_SYSTEM = 256,
};

static void check_usage(FILE *out)
{
	fprintf(out, "usage: cpupolicyctl check [--strict] [--quiet] [--print] "
		     "[--system SYSTEM] [PATH...]\n"
		     "  PATH     a rule file, or a directory of *.rules "
		     "(default: rules_dirs\n"
		     "           from the config)\n"
		     "  --strict treat warnings as errors\n"
		     "  --quiet  print errors only, and no summary\n"
		     "  --print  print the loaded rules, one key per line\n"
		     "  --system linux or windows: check for that system "
		     "(default: this one)\n");
}

/* PATHs: the files named, judged by who could have written them only
 * where they are the configured directories (or files directly in
 * them), as the daemon would judge them; a draft elsewhere is judged
 * by its content alone. The config's problems are not this check's. */
static int check_load_paths(struct ctl *ctl, int count, char **paths,
			    struct rules *rules, struct diag *diag)
{
	struct conf conf;
	struct diag ignored;
	int status;

	conf_init(&conf);
	diag_init(&ignored);
	conf_load_file(&conf, ctl->conf_path, false, &ignored);
	rules->trust_dirs = conf.rules_dirs;
	rules->trust_dir_count = conf.rules_dir_count;
	status = rules_load_paths(rules, paths, (size_t)count, true, diag);
	rules->trust_dirs = NULL;
	rules->trust_dir_count = 0;
	diag_free(&ignored);
	conf_free(&conf);
	return status;
}

/* Without PATH, what the daemon would load: the config and the rule
 * directories it names, each refused if others could have written it. */
static int check_load(struct ctl *ctl, int count, char **paths,
		      struct rules *rules, struct diag *diag)
{
	struct conf conf;
	int status;

	if (count > 0)
		return check_load_paths(ctl, count, paths, rules, diag);
	conf_init(&conf);
	status = conf_load_trusted(&conf, ctl->conf_path, ctl->conf_explicit,
				   diag);
	rules->trust_all = true;
	if (status == 0 && !diag->errors)
		status = rules_load_paths(rules, conf.rules_dirs,
					  conf.rules_dir_count, false, diag);
	conf_free(&conf);
	return status;
}

/* The rules the matcher's index cannot find, and why: each is tried at
 * every exec, so that thousands of them make every exec dear. */
static void check_print_unindexed(const struct rules *rules)
{
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];
		char why[1024];

		if (match_unindexed(r, why, sizeof(why)))
			printf("rule %s (%s:%u): %s: tried at every exec\n",
			       r->name, r->file, r->line, why);
	}
}

/* The rules the exec filter in the kernel cannot judge (Linux's): while
 * one is loaded, every exec wakes the daemon. */
static void check_print_unjudged(const struct rules *rules)
{
	if (rules_target(rules) != RULES_SYSTEM_LINUX)
		return;
	for (size_t i = 0; i < rules->count; i++) {
		const struct rule *r = &rules->list[i];
		char why[1024];

		if (execplan_unjudged(r, why, sizeof(why)))
			printf("rule %s (%s:%u): %s: the exec filter sends "
			       "every exec to the daemon\n",
			       r->name, r->file, r->line, why);
	}
}

int check_main(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{"strict", no_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"print", no_argument, NULL, 'p'},
		{"system", required_argument, NULL, CHECK_OPTION_SYSTEM},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	bool strict = false, quiet = false, print = false;
	int system = RULES_SYSTEM_NATIVE;
	struct rules rules;
	struct diag diag;
	int c, status, result;

	while ((c = getopt_long(argc, argv, "sqph", options, NULL)) != -1) {
		switch (c) {
		case 's':
			strict = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'p':
			print = true;
			break;
		case CHECK_OPTION_SYSTEM:
			system = rules_enum_lookup(RULES_ENUM_SYSTEM, optarg);
			if (system < 0) {
				fprintf(stderr,
					"cpupolicyctl check: --system: '%s' is "
					"not valid (valid: linux, windows)\n",
					optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'h':
			check_usage(stdout);
			return CTL_EXIT_OK;
		default:
			check_usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	rules_init(&rules);
	rules.system = (enum rules_system)system;
	diag_init(&diag);
	status = check_load(ctl, argc - optind, argv + optind, &rules, &diag);
	/* Under --strict a warning fails the check: --quiet still shows it. */
	diag_print(&diag, stderr, !quiet || strict);
	if (status < 0)
		result = CTL_EXIT_USAGE;
	else if (diag.errors || (strict && diag.warnings))
		result = CTL_EXIT_FAIL;
	else
		result = CTL_EXIT_OK;
	if (result == CTL_EXIT_OK && print)
		rules_print(&rules, stdout);
	if (result == CTL_EXIT_OK && !quiet) {
		check_print_unindexed(&rules);
		check_print_unjudged(&rules);
	}
	if (result == CTL_EXIT_OK && !quiet && system)
		printf("%zu rules in %zu files: OK for %s\n", rules.count,
		       rules.files_read,
		       rules_enum_name(RULES_ENUM_SYSTEM, system));
	else if (result == CTL_EXIT_OK && !quiet)
		printf("%zu rules in %zu files: OK\n", rules.count,
		       rules.files_read);
	else if (result == CTL_EXIT_FAIL && !quiet)
		fprintf(stderr, "%zu error%s, %zu warning%s%s\n", diag.errors,
			diag.errors == 1 ? "" : "s", diag.warnings,
			diag.warnings == 1 ? "" : "s",
			strict && !diag.errors ? " (--strict)" : "");
	diag_free(&diag);
	rules_free(&rules);
	return result;
}
