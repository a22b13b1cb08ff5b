/* What an exec filter in the kernel must let through to the daemon, from
 * the rule set alone: the files of literal exes, the basenames exe globs
 * end in, the exact names of name rules, the literal starts and ends of
 * the other globs, the directories the other exe globs lie under; or,
 * when a rule can be judged by none of these, every exec. Pure: the
 * system's side (lib/linux/execfilter.c) turns paths into file
 * identities and writes the kernel's maps. A superset by design: what it
 * lets through is matched by the whole rule after. */
#ifndef CPUPOLICY_EXECPLAN_H
#define CPUPOLICY_EXECPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rules.h"
#include "strmap.h"

/* The kernel's limits (lib/linux/bpf/execfilter_abi.h): names in bytes
 * before their NUL, affixes in bytes, affixes a plan may have (each trie
 * holds two generations'). */
#define EXECPLAN_NAME_MAX  63
#define EXECPLAN_COMM_MAX  15
#define EXECPLAN_AFFIX_MAX 32
#define EXECPLAN_AFFIXES   32768

struct execplan_affix {
	char prefix[EXECPLAN_AFFIX_MAX + 1];
	char suffix[EXECPLAN_AFFIX_MAX + 1];
	bool comm; /* the process name; else the exe file's basename */
};

struct execplan_list {
	char **values; /* unique, in order of first use */
	size_t count, capacity;
	struct strmap index; /* value -> 1: thousands of rules, each once */
	bool borrowed;	     /* the values are the rules' own texts */
};

struct execplan {
	/* Literal exes: their files. Their texts are the rules' (borrowed:
	 * the plan, and a filter that keeps them, live within the rule set
	 * it was built from). */
	struct execplan_list paths;
	struct execplan_list names; /* exact basenames of exe files */
	struct execplan_list comms; /* exact process names */
	/* Literal directories exe globs lie under (no trailing '/'): the
	 * exe's resolved path has it among its directories. */
	struct execplan_list dirs;
	struct execplan_affix *affixes;
	size_t affix_count;
	bool all; /* every exec goes to the daemon */
	/* Why, for the log: the first rule that needs it, and its file
	 * and line; NULL when all is false. */
	const char *all_rule, *all_file;
	unsigned all_line;
};

/* execplan.c */
void execplan_build(struct execplan *plan, const struct rules *rules);
void execplan_trim(struct execplan *plan);
void execplan_free(struct execplan *plan);
void execplan_print(const struct execplan *plan, FILE *out);
bool execplan_unjudged(const struct rule *rule, char *why, size_t why_size);
bool execplan_list_has(const struct execplan_list *list, const char *value);

#endif
