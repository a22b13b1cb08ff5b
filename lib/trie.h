/* A byte trie: the literal starts of globs (and, put in reversed, their
 * ends), each key's node holding the number the caller put under it (a
 * number, not a pointer: 16 bytes a node, for tries of 100,000 nodes);
 * also the goto function of the substring search (acsearch.c). Keys are
 * copied into the nodes. */
#ifndef CPUPOLICY_TRIE_H
#define CPUPOLICY_TRIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The root is node 0, and no node's child is the root: a step that
 * finds no child gives TRIE_NONE. */
#define TRIE_ROOT 0u
#define TRIE_NONE 0u

struct trie_node {
	uint32_t child;	  /* the first child, or TRIE_NONE */
	uint32_t sibling; /* the next child of the same parent */
	uint32_t value;	  /* the caller's number for the key ending here,
			   * 0: none */
	unsigned char byte;
};

struct trie {
	struct trie_node *nodes; /* nodes[0] is the root, once a key is in */
	size_t count;
};

typedef void (*trie_visit_fn)(void *ctx, uint32_t value);

/* trie.c */
void trie_init(struct trie *trie);
void trie_free(struct trie *trie);
uint32_t *trie_slot(struct trie *trie, const char *key, size_t len,
		    bool reversed);
void trie_trim(struct trie *trie);
uint32_t trie_step(const struct trie *trie, uint32_t node, unsigned char c);
void trie_walk(const struct trie *trie, const char *text, size_t len,
	       bool reversed, trie_visit_fn visit, void *ctx);

#endif
