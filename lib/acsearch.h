/* Many literals searched in one text at once (Aho-Corasick): which of
 * the command-line globs' literal runs a command line holds, in one pass
 * over it, whatever their number. Hand-written: no library in Debian
 * builds for both systems. */
#ifndef CPUPOLICY_ACSEARCH_H
#define CPUPOLICY_ACSEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "trie.h"

struct acsearch {
	struct trie trie; /* the literals: the goto function */
	/* Per node, once built: the node of the longest proper suffix of
	 * its string (fail), and the nearest node on that chain that ends
	 * a literal (out), or TRIE_NONE. */
	uint32_t *fail, *out;
};

/* acsearch.c */
void acsearch_init(struct acsearch *ac);
void acsearch_free(struct acsearch *ac);
uint32_t *acsearch_slot(struct acsearch *ac, const char *literal, size_t len);
void acsearch_build(struct acsearch *ac);
void acsearch_scan(const struct acsearch *ac, const char *text, size_t len,
		   trie_visit_fn visit, void *ctx);

#endif
