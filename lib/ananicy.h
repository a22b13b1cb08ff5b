/* Reading ananicy rule trees (*.rules, *.types, *.cgroups: one JSON object
 * a line) and turning them into cpupolicy rule files. Pure: the caller
 * reads the files and writes the results. */
#ifndef CPUPOLICY_ANANICY_H
#define CPUPOLICY_ANANICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "strmap.h"

enum ananicy_kind {
	ANANICY_KIND_RULE,   /* has "name": a program */
	ANANICY_KIND_TYPE,   /* has "type" and no "name" */
	ANANICY_KIND_CGROUP, /* has "cgroup" and neither */
};

enum ananicy_value_type {
	ANANICY_VALUE_STRING,
	ANANICY_VALUE_INTEGER,
	ANANICY_VALUE_FLOAT,
	ANANICY_VALUE_BOOL,
	ANANICY_VALUE_NULL,
};

struct ananicy_pair {
	char *key;
	enum ananicy_value_type type;
	char *text; /* strings decoded; other values as written */
	long long integer;
};

struct ananicy_entry {
	enum ananicy_kind kind;
	const char *id;	    /* the name, type or cgroup (one of pairs) */
	const char *file;   /* owned by the set */
	const char *folder; /* owned by the set: where output is grouped */
	unsigned line;
	bool overridden; /* a later definition of the same id replaced it */
	struct ananicy_pair *pairs;
	size_t pair_count;
};

struct ananicy {
	struct ananicy_entry *entries;
	size_t count, capacity;
	char **strings; /* file and folder names */
	size_t string_count;
	struct strmap ids[3]; /* per kind: id -> index + 1 of the latest */
	size_t lines, files;
};

/* What an import is asked to do with rules that raise priority. */
struct ananicy_options {
	const char *user, *group; /* narrow raising rules to them */
	bool allow_spoofable;	  /* or write them with the opt-in */
	const char *origin;	  /* named in each file's header */
};

/* One output rule file. */
/* The first line of every file the import writes: how a later import
 * knows the files of an earlier one (and only those) as its own. */
#define ANANICY_HEADER                                                         \
	"# Imported from ananicy rules by cpupolicyctl import ananicy:"
#define ANANICY_FILE_PREFIX "50-ananicy-"

struct ananicy_file {
	char *name; /* a file name, no directory */
	char *text;
	size_t len;
};

/* The keys the import cannot express, counted by name. */
struct ananicy_unmapped {
	char *what;
	size_t count;
};

struct ananicy_result {
	struct ananicy_file *files;
	size_t file_count;
	size_t rules_read, types_read, cgroups_read;
	size_t written;	   /* ananicy rules now in a cpupolicy rule */
	size_t groups;	   /* cpupolicy rules written (uncommented) */
	size_t narrowed;   /* raising, limited by --user or --group */
	size_t opted_in;   /* raising, with allow_spoofable */
	size_t left_out;   /* raising, written commented out */
	size_t overridden; /* replaced by a later definition */
	size_t nothing;	   /* nothing left that cpupolicy applies */
	size_t unusable;   /* names no process can have, or taken */
	size_t cut;	   /* names matched on their first 15 bytes */
	struct ananicy_unmapped *unmapped;
	size_t unmapped_count;
};

/* ananicy.c */
/* Shared with prolasso.c: what an import could not map, counted and
 * sorted. */
void ananicy_unmapped_add(struct ananicy_unmapped **list, size_t *count,
			  const char *what);
void ananicy_unmapped_sort(struct ananicy_unmapped *list, size_t *count);
void ananicy_init(struct ananicy *a);
void ananicy_free(struct ananicy *a);
void ananicy_parse(struct ananicy *a, const char *path, const char *folder,
		   const char *text, size_t len, struct diag *diag);
void ananicy_import(const struct ananicy *a, const struct ananicy_options *opt,
		    struct ananicy_result *res, struct diag *diag);
void ananicy_result_free(struct ananicy_result *res);
bool ananicy_is_input(const char *name);

#endif
