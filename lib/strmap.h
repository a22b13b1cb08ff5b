/* A string-keyed hash map: rule names, exact exe and name keys. Keys are
 * borrowed, not copied: they must outlive the map. */
#ifndef CPUPOLICY_STRMAP_H
#define CPUPOLICY_STRMAP_H

#include <stddef.h>
#include <stdint.h> /* values are often an index + 1 as uintptr_t */

/* Two pointers, no stored hash: with 20,000 rules a map's slots are most
 * of its memory, and a probe's strcmp mostly stops at the first byte. */
struct strmap_slot {
	const char *key;
	void *value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t capacity; /* a power of two, or 0 */
	size_t count;	 /* at most STRMAP_LOAD_NUM/DEN of capacity */
};

/* The load a map grows at, as a fraction: 3/4 keeps linear probes short
 * while a map of N keys takes at most 8N/3 slots (1/2: 4N). */
#define STRMAP_LOAD_NUM 3
#define STRMAP_LOAD_DEN 4

/* strmap.c */
void strmap_init(struct strmap *map);
void strmap_free(struct strmap *map);
void *strmap_get(const struct strmap *map, const char *key);
uint64_t strmap_hash(const char *key);
void strmap_put(struct strmap *map, const char *key, void *value);

#endif
