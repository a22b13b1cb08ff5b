/* Small texts that live and die together (a rule set's names and match
 * values: 20,000 rules' of them), in a few large blocks: no allocation,
 * and no allocator's header, per text. Freed all at once. */
#ifndef CPUPOLICY_ARENA_H
#define CPUPOLICY_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head; /* the one being filled; NULL: none yet */
	size_t next_size;	  /* the next block's, growing to a cap */
};

/* arena.c; a zeroed struct arena is an empty one */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *text);
void arena_free(struct arena *a);

#endif
