/* cpupolicyctl import: rule sets of other tools to cpupolicy rule files.
 * The parsers are lib/'s (pure); this reads the input, writes the files
 * and says what was and was not carried over. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ananicy.h"
#include "ctl.h"
#include "diag.h"
#include "importcheck.h"
#include "prolasso.h"
#include "quote.h"
#include "rules.h"
#include "util.h"

/* Deeper than any rule tree: a loop of links ends here. */
#define IMPORT_MAX_DEPTH 16

struct import_input {
	char *path;   /* as messages and sources name it */
	char *folder; /* relative to the DIR given, "" at its top */
};

struct import_inputs {
	struct import_input *list;
	size_t count;
};

/* Where the rule files go: made by this import when it was not there, and
 * then removed again when nothing went into it. */
struct import_out {
	const char *dir;
	bool missing, made;
};

enum import_option {
	IMPORT_OPTION_USER = 256,
	IMPORT_OPTION_GROUP,
	IMPORT_OPTION_ALLOW_SPOOFABLE,
};

static void import_usage(FILE *out)
{
	fprintf(out,
		"usage: cpupolicyctl import ananicy [-o OUTDIR] [--user NAME | "
		"--group NAME |\n"
		"                                   --allow-spoofable] DIR...\n"
		"       cpupolicyctl import prolasso [-o OUTDIR] [--user NAME "
		"| "
		"--group NAME |\n"
		"                                    --allow-spoofable] FILE\n"
		"  -o OUTDIR          where the rule files go (default: the "
		"current directory)\n"
		"  --user NAME        rules that raise priority match only "
		"NAME's processes\n"
		"  --group NAME       ... only processes of group NAME\n"
		"  --allow-spoofable  ... any process of that name "
		"(allow_spoofable = true)\n"
		"Without one of the three, rules that raise are written "
		"commented out.\n");
}

static char *import_join(const char *dir, const char *name)
{
	size_t len = strlen(dir);

	if (len && dir[len - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

/* "PATH: WHAT: WHY" on standard error; the path may be a stranger's (a
 * folder of the tree read): shown with its control bytes escaped. */
static void import_say(const char *path, const char *what, const char *why)
{
	char *shown = quote_display(path);

	fprintf(stderr, "%s: %s%s%s\n", shown, what, why ? ": " : "",
		why ? why : "");
	free(shown);
}

static int import_compare_input(const void *a, const void *b)
{
	const struct import_input *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Every *.rules, *.types and *.cgroups below dir, as ananicy-cpp walks
 * the tree (links to files followed). */
static int import_walk(struct import_inputs *in, const char *dir,
		       const char *folder, unsigned depth)
{
	char **names;
	size_t count;

	if (files_list(dir, &names, &count) != OS_OK) {
		import_say(dir, "error: cannot read directory",
			   strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		char *path = import_join(dir, names[i]), *sub;
		struct files_info info;
		bool known = files_info(path, &info) == OS_OK;

		if (known && info.type == FILES_TYPE_DIRECTORY &&
		    depth < IMPORT_MAX_DEPTH) {
			sub = *folder ? xasprintf("%s/%s", folder, names[i])
				      : xstrdup(names[i]);
			import_walk(in, path, sub, depth + 1);
			free(sub);
		} else if (known && info.type == FILES_TYPE_REGULAR &&
			   ananicy_is_input(names[i])) {
			in->list = xreallocarray(in->list, in->count + 1,
						 sizeof(*in->list));
			in->list[in->count++] =
				(struct import_input){path, xstrdup(folder)};
			path = NULL;
		}
		free(path);
	}
	files_list_free(names, count);
	return 0;
}

/* The output directory, made when it is not there yet. */
static int import_make_out(struct import_out *out)
{
	if (!out->missing)
		return 0;
	if (files_make_dir(out->dir) != OS_OK) {
		import_say(out->dir, "error: cannot make the directory",
			   strerror(errno));
		return -1;
	}
	out->made = true;
	return 0;
}

/* Each file written beside its place under a temporary name and read
 * back from there; back[i] is what was read, named by its place. */
static int import_stage(const struct import_out *out,
			const struct ananicy_file *files, size_t count,
			char **staged, struct ananicy_file *back)
{
	for (size_t i = 0; i < count; i++) {
		back[i].name = import_join(out->dir, files[i].name);
		if (files_stage(back[i].name, files[i].text, files[i].len,
				&staged[i]) != OS_OK) {
			import_say(back[i].name, "error: cannot write",
				   strerror(errno));
			return -1;
		}
		if (files_read(staged[i], RULES_MAX_FILE_SIZE, &back[i].text,
			       &back[i].len) != OS_OK) {
			import_say(staged[i], "error: cannot read back",
				   strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The files into their places, once all are staged and read back as the
 * rules counted; or none, the earlier import's files left as they were. */
static int import_commit(const struct ananicy_file *back, char **staged,
			 size_t count, bool keep)
{
	for (size_t i = 0; i < count && staged[i]; i++) {
		if (keep && files_commit(staged[i], back[i].name) != OS_OK) {
			import_say(back[i].name, "error: cannot write",
				   strerror(errno));
			keep = false;
		}
		if (!keep)
			files_discard(staged[i]);
	}
	return keep ? 0 : -1;
}

/* Writes the files only if, read back with the rule parser, they load
 * the rules the import counted and raise only as the options allow.
 * CTL_EXIT_OK, CTL_EXIT_FAIL (refused: nothing written), or
 * CTL_EXIT_USAGE (an I/O error). */
static int import_write(struct import_out *out,
			const struct ananicy_file *files, size_t count,
			enum rules_system system,
			const struct ananicy_options *opt, size_t counted)
{
	char **staged = xcalloc(count + 1, sizeof(*staged));
	struct ananicy_file *back = xcalloc(count + 1, sizeof(*back));
	int status = CTL_EXIT_OK;
	struct diag diag;

	diag_init(&diag);
	if ((count && import_make_out(out) < 0) ||
	    import_stage(out, files, count, staged, back) < 0) {
		status = CTL_EXIT_USAGE;
	} else if (importcheck_files(back, count, system, opt, counted,
				     out->dir, &diag) < 0) {
		diag_print(&diag, stderr, false);
		import_say(out->dir,
			   "error: the output read back is not the rules "
			   "counted, or raises what the options do not allow",
			   "nothing written");
		status = CTL_EXIT_FAIL;
	}
	if (import_commit(back, staged, count, status == CTL_EXIT_OK) < 0 &&
	    status == CTL_EXIT_OK)
		status = CTL_EXIT_USAGE;
	if (status != CTL_EXIT_OK && out->made)
		files_remove_dir(out->dir);
	for (size_t i = 0; i < count; i++) {
		free(staged[i]);
		free(back[i].name);
		free(back[i].text);
	}
	free(staged);
	free(back);
	diag_free(&diag);
	return status;
}

static bool import_written(const struct ananicy_file *files, size_t count,
			   const char *name)
{
	for (size_t i = 0; i < count; i++) {
		if (strcmp(files[i].name, name) == 0)
			return true;
	}
	return false;
}

/* Whether a file's first line is the import's header: a file someone
 * wrote by hand under such a name is theirs, not ours to remove. */
static bool import_ours(const char *path)
{
	char line[128] = "";
	FILE *f;

	if (files_open(path, "r", &f) != OS_OK)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	return strcmp(line, ANANICY_HEADER) == 0;
}

/* The files of an earlier import whose ananicy folder is gone: removed,
 * so that the output is what this import alone makes. */
static void import_prune(const char *outdir, const struct ananicy_file *files,
			 size_t count)
{
	const size_t prefix = strlen(ANANICY_FILE_PREFIX);
	char **names;
	size_t found;

	if (files_list(outdir, &names, &found) != OS_OK)
		return;
	for (size_t i = 0; i < found; i++) {
		const char *name = names[i];
		size_t len = strlen(name);
		char *path;

		if (len <= prefix + 6 ||
		    strncmp(name, ANANICY_FILE_PREFIX, prefix) != 0 ||
		    strcmp(name + len - 6, ".rules") != 0 ||
		    import_written(files, count, name))
			continue;
		path = import_join(outdir, name);
		if (import_ours(path) && files_remove(path) == OS_OK)
			import_say(path,
				   "removed: written by an earlier import, its "
				   "ananicy folder is not in this one",
				   NULL);
		free(path);
	}
	files_list_free(names, found);
}

/* The summary's lines both imports print: what became of the raising
 * rules, the keys not mapped with their counts, the warnings. */
static void import_summary_raising(const struct ananicy_options *opt,
				   size_t narrowed, size_t opted_in,
				   size_t left_out)
{
	if (opt->user || opt->group)
		printf("raising: %zu narrowed to %s %s\n", narrowed,
		       opt->user ? "user" : "group",
		       opt->user ? opt->user : opt->group);
	else if (opt->allow_spoofable)
		printf("raising: %zu opted in with allow_spoofable = true\n",
		       opted_in);
	else
		printf("raising: %zu left out (written commented out: see "
		       "--user, --group, --allow-spoofable)\n",
		       left_out);
}

static void import_summary_end(const struct ananicy_unmapped *unmapped,
			       size_t count, const struct diag *diag)
{
	printf("not mapped:");
	/* Key names are the input's: shown with control bytes escaped. */
	for (size_t i = 0; i < count; i++) {
		char *what = quote_display(unmapped[i].what);

		printf("%s %s %zu", i ? "," : "", what, unmapped[i].count);
		free(what);
	}
	printf("%s\n", count ? "" : " nothing");
	printf("warnings: %zu%s\n", diag->warnings + diag->dropped,
	       diag->warnings ? " (above)" : "");
}

static void import_summary(const struct ananicy *a,
			   const struct ananicy_result *r,
			   const struct ananicy_options *opt,
			   const struct diag *diag, const char *outdir)
{
	printf("read: %zu files, %zu definitions: %zu rules, %zu types, %zu "
	       "cgroups\n",
	       a->files, a->lines, r->rules_read, r->types_read,
	       r->cgroups_read);
	printf("written: %zu rules, as %zu cpupolicy rules in %zu files in "
	       "%s\n",
	       r->written, r->groups, r->file_count, outdir);
	import_summary_raising(opt, r->narrowed, r->opted_in, r->left_out);
	printf("not imported: %zu replaced by a later definition, %zu with "
	       "nothing cpupolicy sets, %zu with a name that cannot match\n",
	       r->overridden, r->nothing, r->unusable);
	printf("names longer than the kernel's 15 bytes, matched on those: "
	       "%zu\n",
	       r->cut);
	import_summary_end(r->unmapped, r->unmapped_count, diag);
}

/* A user or group name goes into the rule as it is: the check resolves
 * it; only what cannot be a name is refused here. */
static bool import_name_ok(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *c = name; *c; c++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
			    "YZ"
			    "0123456789._-$",
			    *c))
			return false;
	}
	return true;
}

static int import_ananicy_read(struct ananicy *a, char **dirs, int count,
			       struct diag *diag)
{
	for (int i = 0; i < count; i++) {
		struct import_inputs in = {0};
		int status = import_walk(&in, dirs[i], "", 0);

		if (in.count)
			qsort(in.list, in.count, sizeof(*in.list),
			      import_compare_input);
		for (size_t k = 0; k < in.count; k++) {
			char *text;
			size_t len;

			if (status == 0 &&
			    files_read(in.list[k].path, RULES_MAX_FILE_SIZE,
				       &text, &len) != OS_OK) {
				import_say(in.list[k].path,
					   "error: cannot read",
					   strerror(errno));
				status = -1;
			} else if (status == 0) {
				ananicy_parse(a, in.list[k].path,
					      in.list[k].folder, text, len,
					      diag);
				free(text);
			}
			free(in.list[k].path);
			free(in.list[k].folder);
		}
		free(in.list);
		if (status < 0)
			return -1;
	}
	return 0;
}

/* The options both imports share; -1: a usage error (said). */
static int import_options(int argc, char **argv, struct ananicy_options *opt,
			  struct import_out *out)
{
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"user", required_argument, NULL, IMPORT_OPTION_USER},
		{"group", required_argument, NULL, IMPORT_OPTION_GROUP},
		{"allow-spoofable", no_argument, NULL,
		 IMPORT_OPTION_ALLOW_SPOOFABLE},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct files_info info;
	enum os_status found;
	int c;

	*out = (struct import_out){.dir = "."};
	while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			out->dir = optarg;
			break;
		case IMPORT_OPTION_USER:
			opt->user = optarg;
			break;
		case IMPORT_OPTION_GROUP:
			opt->group = optarg;
			break;
		case IMPORT_OPTION_ALLOW_SPOOFABLE:
			opt->allow_spoofable = true;
			break;
		case 'h':
			import_usage(stdout);
			return 1;
		default:
			import_usage(stderr);
			return -1;
		}
	}
	if (optind >= argc ||
	    (!!opt->user + !!opt->group + opt->allow_spoofable) > 1) {
		import_usage(stderr);
		return -1;
	}
	if ((opt->user && !import_name_ok(opt->user)) ||
	    (opt->group && !import_name_ok(opt->group))) {
		fprintf(stderr,
			"cpupolicyctl import: '%s' is not a user or "
			"group name\n",
			opt->user ? opt->user : opt->group);
		return -1;
	}
	/* One that is not there yet is made when there is something to
	 * write (its parent must be there). */
	found = files_info(out->dir, &info);
	if (found == OS_GONE) {
		out->missing = true;
	} else if (found != OS_OK) {
		import_say(out->dir, "error: cannot use", strerror(errno));
		return -1;
	} else if (info.type != FILES_TYPE_DIRECTORY) {
		import_say(out->dir, "error: there, and not a directory", NULL);
		return -1;
	}
	return 0;
}

static int import_ananicy(int argc, char **argv)
{
	struct ananicy_options opt = {0};
	struct ananicy_result res;
	struct import_out out;
	struct ananicy a;
	struct diag diag;
	int status = import_options(argc, argv, &opt, &out);

	if (status)
		return status < 0 ? CTL_EXIT_USAGE : CTL_EXIT_OK;
	opt.origin = argc - optind == 1 ? argv[optind] : NULL;
	ananicy_init(&a);
	diag_init(&diag);
	status =
		import_ananicy_read(&a, argv + optind, argc - optind, &diag) < 0
			? CTL_EXIT_USAGE
			: CTL_EXIT_OK;
	if (status == CTL_EXIT_OK) {
		ananicy_import(&a, &opt, &res, &diag);
		diag_print(&diag, stderr, true);
		status = import_write(&out, res.files, res.file_count,
				      RULES_SYSTEM_LINUX, &opt, res.groups);
		if (status == CTL_EXIT_OK) {
			import_prune(out.dir, res.files, res.file_count);
			import_summary(&a, &res, &opt, &diag, out.dir);
		}
		ananicy_result_free(&res);
	}
	diag_free(&diag);
	ananicy_free(&a);
	return status;
}

static void import_prolasso_summary(const struct prolasso_result *r,
				    const struct ananicy_options *opt,
				    const struct diag *diag, const char *outdir)
{
	printf("read: %zu entries\n", r->entries);
	printf("written: %zu processes, as %zu cpupolicy rules in %s "
	       "(%s)\n",
	       r->processes - r->left_out, r->groups,
	       r->file.text ? r->file.name : "no file", outdir);
	import_summary_raising(opt, r->narrowed, r->opted_in, r->left_out);
	import_summary_end(r->unmapped, r->unmapped_count, diag);
}

static int import_prolasso(int argc, char **argv)
{
	struct ananicy_options opt = {0};
	struct prolasso_result res;
	struct import_out out;
	const char *path;
	char *data, *text, why[128];
	size_t len, text_len;
	struct diag diag;
	int status = import_options(argc, argv, &opt, &out);

	if (status)
		return status < 0 ? CTL_EXIT_USAGE : CTL_EXIT_OK;
	if (argc - optind != 1) {
		import_usage(stderr);
		return CTL_EXIT_USAGE;
	}
	path = argv[optind];
	if (files_read(path, RULES_MAX_FILE_SIZE, &data, &len) != OS_OK) {
		import_say(path, "error: cannot read", strerror(errno));
		return CTL_EXIT_USAGE;
	}
	text = prolasso_decode(data, len, &text_len, why, sizeof(why));
	free(data);
	if (!text) {
		import_say(path, "error", why);
		return CTL_EXIT_USAGE;
	}
	diag_init(&diag);
	prolasso_import(path, text, text_len, &opt, &res, &diag);
	diag_print(&diag, stderr, true);
	status = import_write(&out, &res.file, res.file.text ? 1 : 0,
			      RULES_SYSTEM_WINDOWS, &opt, res.groups);
	if (status == CTL_EXIT_OK)
		import_prolasso_summary(&res, &opt, &diag, out.dir);
	prolasso_result_free(&res);
	diag_free(&diag);
	free(text);
	return status;
}

int import_main(struct ctl *ctl, int argc, char **argv)
{
	(void)ctl;
	if (argc >= 2 && strcmp(argv[1], "ananicy") == 0) {
		optind = 0;
		return import_ananicy(argc - 1, argv + 1);
	}
	if (argc >= 2 && strcmp(argv[1], "prolasso") == 0) {
		optind = 0;
		return import_prolasso(argc - 1, argv + 1);
	}
	if (argc >= 2 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		import_usage(stdout);
		return CTL_EXIT_OK;
	}
	import_usage(stderr);
	return CTL_EXIT_USAGE;
}
