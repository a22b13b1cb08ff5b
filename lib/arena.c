#include "arena.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The first block is small (a handful of rules fill it), then each is
 * twice the one before, up to a size the allocator still takes from its
 * heap: large rule sets waste at most part of the last one. */
enum {
	ARENA_FIRST_BLOCK = 1024,
	ARENA_MAX_BLOCK = 64 * 1024,
};

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	/* After three of them: aligned for a pointer (malloc's block is). */
	unsigned char data[];
};

static size_t arena_round(size_t size, size_t align)
{
	return (size + align - 1) & ~(align - 1);
}

static struct arena_block *arena_block_new(struct arena *a, size_t need)
{
	size_t size = a->next_size ? a->next_size : ARENA_FIRST_BLOCK;
	struct arena_block *b;

	if (size < ARENA_MAX_BLOCK)
		a->next_size = size * 2;
	if (size < need)
		size = need;
	b = xcalloc(1, sizeof(*b) + size);
	b->size = size;
	return b;
}

/* size bytes, zeroed, at a multiple of align (a power of two, at most a
 * pointer's). A request larger than the room left in the block being
 * filled gets a block of its own, behind it, so that the room is still
 * used. */
static void *arena_take(struct arena *a, size_t size, size_t align)
{
	struct arena_block *b = a->head;
	size_t at = b ? arena_round(b->used, align) : 0;

	if (!size)
		size = 1;
	if (!b || at > b->size || b->size - at < size) {
		struct arena_block *fresh = arena_block_new(a, size);

		if (b && fresh->size == size) {
			fresh->next = b->next;
			b->next = fresh;
			fresh->used = size;
			return fresh->data;
		}
		fresh->next = b;
		a->head = b = fresh;
		at = 0;
	}
	b->used = at + size;
	return b->data + at;
}

/* Aligned for a pointer: an array of them, say. */
void *arena_alloc(struct arena *a, size_t size)
{
	return arena_take(a, size, sizeof(void *));
}

/* Text needs no alignment: names end to end. */
char *arena_strdup(struct arena *a, const char *text)
{
	size_t len = strlen(text) + 1;

	return memcpy(arena_take(a, len, 1), text, len);
}

void arena_free(struct arena *a)
{
	for (struct arena_block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	*a = (struct arena){0};
}
