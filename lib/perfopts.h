/* The bookkeeping of the Image File Execution Options values the daemon
 * writes (ifeo.h plans them): a record of each name's values, and of what
 * an administrator had set there before, kept before every write, so
 * that a removed rule, a stop, --uninstall or the next start after a
 * crash puts back exactly what was there. Portable: the registry (and a
 * test's memory) is behind struct perfopts_store. */
#ifndef CPUPOLICY_PERFOPTS_H
#define CPUPOLICY_PERFOPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ifeo.h"

/* One name's record: what the daemon wrote (UNSET: a value it leaves
 * alone) and what was there before it did (UNSET: none). */
struct perfopts_record {
	char name[IFEO_NAME_MAX + 1];
	struct ifeo_values written, original;
};

/* The store: the PerfOptions values of a name, and the daemon's own
 * records. Each call returns 0, or -1 on a failure (logged by it). */
struct perfopts_store {
	void *ctx;
	int (*read)(void *ctx, const char *name, struct ifeo_values *now);
	/* Only the values set in 'set' are written, only those set in
	 * 'clear' are deleted. */
	int (*write)(void *ctx, const char *name, struct ifeo_values set,
		     struct ifeo_values clear);
	int (*records)(void *ctx, struct perfopts_record **list, size_t *count);
	int (*record_put)(void *ctx, const struct perfopts_record *r);
	int (*record_drop)(void *ctx, const char *name);
};

/* What a sync did, for the log. */
struct perfopts_result {
	unsigned written, restored, left; /* left: changed by someone else */
	unsigned failed;
};

/* perfopts.c: every name of the plan written (NULL plan: none), every
 * other name recorded put back. -1 when some write or restore failed
 * (its record stays, for the next try). */
int perfopts_sync(const struct perfopts_store *store,
		  const struct ifeo_plan *plan, struct perfopts_result *result);
bool perfopts_record_parse(const char *text, struct perfopts_record *r);
void perfopts_record_format(const struct perfopts_record *r, char *buf,
			    size_t size);

#endif
