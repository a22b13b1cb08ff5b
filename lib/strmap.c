/* A string-keyed hash map (open addressing, linear probing): rule names,
 * exact exe and name keys. Keys are borrowed, not copied. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "util.h"

uint64_t strmap_hash(const char *key)
{
	uint64_t hash = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		hash ^= *p;
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

void strmap_init(struct strmap *map)
{
	*map = (struct strmap){0};
}

void strmap_free(struct strmap *map)
{
	free(map->slots);
	strmap_init(map);
}

static struct strmap_slot *strmap_find(const struct strmap *map,
				       const char *key)
{
	size_t mask = map->capacity - 1;

	for (size_t i = strmap_hash(key) & mask;; i = (i + 1) & mask) {
		struct strmap_slot *slot = &map->slots[i];

		if (!slot->key || strcmp(slot->key, key) == 0)
			return slot;
	}
}

static void strmap_grow(struct strmap *map)
{
	struct strmap old = *map;

	map->capacity = old.capacity ? old.capacity * 2 : 16;
	map->slots = xcalloc(map->capacity, sizeof(*map->slots));
	for (size_t i = 0; i < old.capacity; i++) {
		struct strmap_slot *from = &old.slots[i];

		if (from->key)
			*strmap_find(map, from->key) = *from;
	}
	free(old.slots);
}

void *strmap_get(const struct strmap *map, const char *key)
{
	if (!map->count)
		return NULL;
	return strmap_find(map, key)->value;
}

void strmap_put(struct strmap *map, const char *key, void *value)
{
	struct strmap_slot *slot;

	if ((map->count + 1) * STRMAP_LOAD_DEN >
	    map->capacity * STRMAP_LOAD_NUM)
		strmap_grow(map);
	slot = strmap_find(map, key);
	if (!slot->key) {
		slot->key = key;
		map->count++;
	}
	slot->value = value;
}
