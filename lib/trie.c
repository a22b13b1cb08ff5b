/* A byte trie (children as sibling lists): a glob's literal start is
 * found by walking the text once from its first byte, its literal end
 * by walking from the last, whatever the number of keys. */
#include <stdlib.h>

#include "trie.h"
#include "util.h"

void trie_init(struct trie *trie)
{
	*trie = (struct trie){0};
}

void trie_free(struct trie *trie)
{
	free(trie->nodes);
	trie_init(trie);
}

static uint32_t trie_add_node(struct trie *trie, unsigned char byte)
{
	trie->nodes = xgrow(trie->nodes, trie->count, sizeof(*trie->nodes));
	trie->nodes[trie->count] = (struct trie_node){.byte = byte};
	return (uint32_t)trie->count++;
}

uint32_t trie_step(const struct trie *trie, uint32_t node, unsigned char c)
{
	if (!trie->count)
		return TRIE_NONE;
	for (uint32_t n = trie->nodes[node].child; n != TRIE_NONE;
	     n = trie->nodes[n].sibling) {
		if (trie->nodes[n].byte == c)
			return n;
	}
	return TRIE_NONE;
}

/* The place of key's value, its nodes made as needed: read from its last
 * byte to its first when reversed (an end, walked from the text's end). */
uint32_t *trie_slot(struct trie *trie, const char *key, size_t len,
		    bool reversed)
{
	uint32_t node = TRIE_ROOT;

	if (!trie->count)
		trie_add_node(trie, 0);
	for (size_t i = 0; i < len; i++) {
		unsigned char c =
			(unsigned char)key[reversed ? len - 1 - i : i];
		uint32_t next = trie_step(trie, node, c);

		if (next == TRIE_NONE) {
			next = trie_add_node(trie, c);
			/* trie_add_node may move the nodes: index again. */
			trie->nodes[next].sibling = trie->nodes[node].child;
			trie->nodes[node].child = next;
		}
		node = next;
	}
	return &trie->nodes[node].value;
}

/* Once every key is in: the nodes' array cut to what they use (it grew by
 * doubling). */
void trie_trim(struct trie *trie)
{
	if (trie->count)
		trie->nodes = xreallocarray(trie->nodes, trie->count,
					    sizeof(*trie->nodes));
}

/* Every key that text starts with (reversed: ends with), shortest first:
 * visit gets the value of each. */
void trie_walk(const struct trie *trie, const char *text, size_t len,
	       bool reversed, trie_visit_fn visit, void *ctx)
{
	uint32_t node = TRIE_ROOT;

	if (!trie->count)
		return;
	if (trie->nodes[TRIE_ROOT].value)
		visit(ctx, trie->nodes[TRIE_ROOT].value);
	for (size_t i = 0; i < len; i++) {
		node = trie_step(
			trie, node,
			(unsigned char)text[reversed ? len - 1 - i : i]);
		if (node == TRIE_NONE)
			return;
		if (trie->nodes[node].value)
			visit(ctx, trie->nodes[node].value);
	}
}
