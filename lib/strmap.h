/* A string-keyed hash map: rule names, exact exe and name keys. Keys are
 * borrowed, not copied: they must outlive the map. */
#ifndef CPUPOLICY_STRMAP_H
#define CPUPOLICY_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key;
	void *value;
	uint64_t hash;
};

struct strmap {
	struct strmap_slot *slots;
	size_t capacity; /* a power of two, or 0 */
	size_t count;
};

/* strmap.c */
void strmap_init(struct strmap *map);
void strmap_free(struct strmap *map);
void *strmap_get(const struct strmap *map, const char *key);
void strmap_put(struct strmap *map, const char *key, void *value);

#endif
