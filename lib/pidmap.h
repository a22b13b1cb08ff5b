/* A map from process or thread id to a pointer (open addressing, linear
 * probing, deletion by backward shift so lookups stay short). */
#ifndef CPUPOLICY_PIDMAP_H
#define CPUPOLICY_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

struct pidmap_slot {
	pid_t key; /* 0: empty */
	void *value;
};

struct pidmap {
	struct pidmap_slot *slots;
	size_t capacity; /* a power of two, or 0 */
	size_t count;
};

/* pidmap.c */
void pidmap_init(struct pidmap *map);
void pidmap_free(struct pidmap *map);
void *pidmap_get(const struct pidmap *map, pid_t key);
void pidmap_put(struct pidmap *map, pid_t key, void *value);
void *pidmap_remove(struct pidmap *map, pid_t key);

#endif
