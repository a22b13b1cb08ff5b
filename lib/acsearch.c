/* Aho-Corasick over a trie of the literals: the text is read once, and
 * where no child continues the match, the fail links fall back to the
 * longest suffix of what was read that starts another literal, so that
 * literals inside or overlapping others are found too. */
#include <stdlib.h>

#include "acsearch.h"
#include "util.h"

void acsearch_init(struct acsearch *ac)
{
	*ac = (struct acsearch){0};
	trie_init(&ac->trie);
}

void acsearch_free(struct acsearch *ac)
{
	trie_free(&ac->trie);
	free(ac->fail);
	free(ac->out);
	acsearch_init(ac);
}

/* Literals go in before acsearch_build; their numbers are the caller's. */
uint32_t *acsearch_slot(struct acsearch *ac, const char *literal, size_t len)
{
	return trie_slot(&ac->trie, literal, len, false);
}

/* Where the search goes from node on c: its child, or the child on c of
 * the nearest node on its fail chain, or the root. */
static uint32_t acsearch_next(const struct acsearch *ac, uint32_t node,
			      unsigned char c)
{
	for (;;) {
		uint32_t next = trie_step(&ac->trie, node, c);

		if (next != TRIE_NONE)
			return next;
		if (node == TRIE_ROOT)
			return TRIE_ROOT;
		node = ac->fail[node];
	}
}

/* Breadth first, so that every fail link points to a node done before. */
void acsearch_build(struct acsearch *ac)
{
	size_t count = ac->trie.count, head = 0, tail = 0;
	const struct trie_node *nodes;
	uint32_t *queue;

	trie_trim(&ac->trie);
	nodes = ac->trie.nodes;
	free(ac->fail);
	free(ac->out);
	ac->fail = xcalloc(count ? count : 1, sizeof(*ac->fail));
	ac->out = xcalloc(count ? count : 1, sizeof(*ac->out));
	if (!count)
		return;
	queue = xcalloc(count, sizeof(*queue));
	queue[tail++] = TRIE_ROOT;
	while (head < tail) {
		uint32_t node = queue[head++];

		for (uint32_t child = nodes[node].child; child != TRIE_NONE;
		     child = nodes[child].sibling) {
			uint32_t fail =
				node == TRIE_ROOT
					? TRIE_ROOT
					: acsearch_next(ac, ac->fail[node],
							nodes[child].byte);

			ac->fail[child] = fail;
			/* The root's value (the empty literal) is reported
			 * once, not at every byte: no out link names it. */
			ac->out[child] = fail != TRIE_ROOT && nodes[fail].value
						 ? fail
						 : ac->out[fail];
			queue[tail++] = child;
		}
	}
	free(queue);
}

/* visit gets the value of every literal text holds, once for each place
 * it ends at. */
void acsearch_scan(const struct acsearch *ac, const char *text, size_t len,
		   trie_visit_fn visit, void *ctx)
{
	const struct trie_node *nodes = ac->trie.nodes;
	uint32_t node = TRIE_ROOT;

	if (!ac->trie.count)
		return;
	if (nodes[TRIE_ROOT].value)
		visit(ctx, nodes[TRIE_ROOT].value);
	for (size_t i = 0; i < len; i++) {
		uint32_t hit;

		node = acsearch_next(ac, node, (unsigned char)text[i]);
		hit = node != TRIE_ROOT && nodes[node].value ? node
							     : ac->out[node];
		for (; hit != TRIE_NONE; hit = ac->out[hit])
			visit(ctx, nodes[hit].value);
	}
}
