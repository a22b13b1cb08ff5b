/* Matching: process facts x rules -> the first matching rule. Pure: the
 * facts come through a fetch callback, so the matcher asks only for what
 * the candidate rules need and does no I/O itself. */
#ifndef CPUPOLICY_MATCH_H
#define CPUPOLICY_MATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ostypes.h"
#include "acsearch.h"
#include "rules.h"
#include "strmap.h"
#include "trie.h"

enum match_fact {
	MATCH_FACT_EXE = 1 << 0,
	MATCH_FACT_COMM = 1 << 1,
	MATCH_FACT_CMDLINE = 1 << 2,
	MATCH_FACT_CREDS = 1 << 3,
	MATCH_FACT_CGROUP = 1 << 4,
	MATCH_FACT_PARENT_EXE = 1 << 5,
	MATCH_FACT_EXE_FILE = 1 << 6,	     /* exe_file, after exe */
	MATCH_FACT_PARENT_EXE_FILE = 1 << 7, /* parent_exe_file, after it */
};

/* The file a process runs, against the file its exe path names in the
 * daemon's own mount namespace: the path is only a name, and the same name
 * may be another file in another mount namespace or root. */
enum match_file {
	MATCH_FILE_SAME,     /* the same device and inode */
	MATCH_FILE_REPLACED, /* deleted; the path's file now is on the same
			      * filesystem with the same owner (an upgrade) */
	MATCH_FILE_OTHER,    /* another file under the same name */
	MATCH_FILE_DELETED,  /* deleted, and no older version of the path's */
	MATCH_FILE_UNSEEN,   /* the path names no file the daemon can see */
};

#define MATCH_COMM_MAX	  OS_NAME_MAX
#define MATCH_CMDLINE_MAX 4096
#define MATCH_CGROUP_MAX  4096
#define MATCH_GROUPS_MAX  64

/* What is known of one process. Strings are NUL-terminated and bounded;
 * cgroups holds one path per line. */
struct facts {
	unsigned have;	 /* enum match_fact bits fetched */
	unsigned failed; /* bits that could not be read */
	char exe[PATH_MAX];
	char comm[MATCH_COMM_MAX];
	char cmdline[MATCH_CMDLINE_MAX];
	uid_t uid;
	gid_t gid;
	gid_t groups[MATCH_GROUPS_MAX];
	size_t group_count;
	char cgroups[MATCH_CGROUP_MAX];
	pid_t ppid; /* with parent_exe */
	char parent_exe[PATH_MAX];
	enum match_file exe_file, parent_exe_file;
};

/* Fills the facts named by the bits it is asked for; sets have or failed
 * for each. */
typedef void (*match_fetch_fn)(void *ctx, unsigned wanted, struct facts *facts);

/* The rules under one literal: indexes into rules->list, ascending; one
 * is held in place, as most literals have one rule. */
struct match_bucket {
	size_t count;
	union {
		size_t one;   /* count 1 */
		size_t *many; /* count > 1 */
	} rules;
};

/* An exact value's slot: its hash, and its one rule r as r << 1 | 1 or
 * the bucket numbered n of its several as n << 1; 0: empty. */
struct match_exact_slot {
	uint32_t hash;
	uint32_t value;
};

/* A fact's exact values, hashed, without their texts (20,000 rules'
 * values are their rules' texts already): a slot's is that of its rule,
 * or of its bucket's first rule. */
struct match_exact {
	struct match_exact_slot *slots;
	size_t capacity; /* a power of two, or 0 */
	size_t count;
};

/* The facts a rule can be found by, dearest last. */
enum match_on {
	MATCH_ON_EXE,
	MATCH_ON_NAME,
	MATCH_ON_CMDLINE,
	MATCH_ON_COUNT
};

/* The rules found by one fact, each under the literal its values cannot
 * match without: the maps and tries hold bucket numbers (an index into
 * the index's buckets, plus 1). */
struct match_keyed {
	struct match_exact exact; /* a literal value -> its rules */
	struct trie starts;	  /* a literal start -> bucket */
	struct trie ends;	  /* a literal end, put in reversed -> bucket */
	struct acsearch runs;	  /* a literal run anywhere -> bucket */
	unsigned flags;		  /* how the fact is folded to be looked up */
	size_t first;		  /* the lowest rule held; SIZE_MAX: none */
};

struct match_index {
	const struct rules *rules;
	struct match_keyed by[MATCH_ON_COUNT];
	struct match_bucket *buckets;
	size_t bucket_count;
	size_t *scan; /* every other rule, ascending */
	size_t scan_count;
};

/* match.c */
void match_index_build(struct match_index *index, const struct rules *rules);
void match_index_free(struct match_index *index);
bool match_index_exact(const struct match_index *index, enum match_on on,
		       const char *key);
long match_first(const struct match_index *index, struct facts *facts,
		 match_fetch_fn fetch, void *ctx);
unsigned match_facts_used(const struct rules *rules);
bool match_rule(const struct rule *rule, struct facts *facts,
		match_fetch_fn fetch, void *ctx, char *why, size_t why_size);
bool match_unindexed(const struct rule *rule, char *why, size_t why_size);

#endif
