/* A map from process or thread id to a pointer (open addressing, linear
 * probing, deletion by backward shift so lookups stay short). */
#include <stdint.h>
#include <stdlib.h>

#include "pidmap.h"
#include "util.h"

static size_t pidmap_home(const struct pidmap *map, pid_t key)
{
	/* Fibonacci hashing: consecutive pids spread over the table. */
	return (size_t)(((uint64_t)(uint32_t)key * 0x9e3779b97f4a7c15ULL) >>
			32) &
	       (map->capacity - 1);
}

void pidmap_init(struct pidmap *map)
{
	*map = (struct pidmap){0};
}

void pidmap_free(struct pidmap *map)
{
	free(map->slots);
	pidmap_init(map);
}

static struct pidmap_slot *pidmap_find(const struct pidmap *map, pid_t key)
{
	size_t mask = map->capacity - 1;

	for (size_t i = pidmap_home(map, key);; i = (i + 1) & mask) {
		if (map->slots[i].key == key || map->slots[i].key == 0)
			return &map->slots[i];
	}
}

static void pidmap_grow(struct pidmap *map)
{
	struct pidmap old = *map;

	map->capacity = old.capacity ? old.capacity * 2 : 64;
	map->slots = xcalloc(map->capacity, sizeof(*map->slots));
	for (size_t i = 0; i < old.capacity; i++) {
		if (old.slots[i].key)
			*pidmap_find(map, old.slots[i].key) = old.slots[i];
	}
	free(old.slots);
}

void *pidmap_get(const struct pidmap *map, pid_t key)
{
	if (!map->count)
		return NULL;
	return pidmap_find(map, key)->value;
}

void pidmap_put(struct pidmap *map, pid_t key, void *value)
{
	struct pidmap_slot *slot;

	if ((map->count + 1) * 2 > map->capacity)
		pidmap_grow(map);
	slot = pidmap_find(map, key);
	if (!slot->key) {
		slot->key = key;
		map->count++;
	}
	slot->value = value;
}

void *pidmap_remove(struct pidmap *map, pid_t key)
{
	size_t mask = map->capacity - 1, hole, i;
	struct pidmap_slot *slot;
	void *value;

	if (!map->count)
		return NULL;
	slot = pidmap_find(map, key);
	if (!slot->key)
		return NULL;
	value = slot->value;
	hole = (size_t)(slot - map->slots);
	/* Pull later members of the probe chain back into the hole. */
	for (i = (hole + 1) & mask; map->slots[i].key; i = (i + 1) & mask) {
		size_t home = pidmap_home(map, map->slots[i].key);

		if (((i - home) & mask) >= ((i - hole) & mask)) {
			map->slots[hole] = map->slots[i];
			hole = i;
		}
	}
	map->slots[hole] = (struct pidmap_slot){0};
	map->count--;
	return value;
}
