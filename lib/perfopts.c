/* The Image File Execution Options bookkeeping (perfopts.h): a record
 * goes to the store before each write, naming what was there before; a
 * name the plan no longer has gets its originals back, value by value,
 * where the daemon's value is still in place (one an administrator set
 * since stays theirs). A crash between record and write leaves a record
 * whose value is not in place: nothing to put back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "perfopts.h"
#include "util.h"

static const struct ifeo_values perfopts_none = {IFEO_CPU_CLASS_UNSET,
						 IFEO_IO_PRIORITY_UNSET};

/* "written C I original C I", -1 for unset: one line a human can read in
 * regedit. */
void perfopts_record_format(const struct perfopts_record *r, char *buf,
			    size_t size)
{
	int cpu = r->written.cpu_class == IFEO_CPU_CLASS_UNSET
			  ? -1
			  : (int)r->written.cpu_class;
	int ocpu = r->original.cpu_class == IFEO_CPU_CLASS_UNSET
			   ? -1
			   : (int)r->original.cpu_class;

	snprintf(buf, size, "written %d %d original %d %d", cpu,
		 (int)r->written.io_priority, ocpu,
		 (int)r->original.io_priority);
}

/* Any value a DWORD can hold is kept as it came (an administrator's
 * original may be one the planner never writes); -1: unset. */
bool perfopts_record_parse(const char *text, struct perfopts_record *r)
{
	long long v[4];
	int end = 0;

	if (sscanf(text, "written %lld %lld original %lld %lld%n", &v[0], &v[1],
		   &v[2], &v[3], &end) != 4 ||
	    text[end] != '\0')
		return false;
	for (size_t i = 0; i < 4; i++) {
		if (v[i] < -1 || v[i] > 0xffffffffLL)
			return false;
	}
	r->written.cpu_class =
		v[0] < 0 ? IFEO_CPU_CLASS_UNSET : (enum ifeo_cpu_class)v[0];
	r->written.io_priority = (enum ifeo_io_priority)v[1];
	r->original.cpu_class =
		v[2] < 0 ? IFEO_CPU_CLASS_UNSET : (enum ifeo_cpu_class)v[2];
	r->original.io_priority = (enum ifeo_io_priority)v[3];
	return true;
}

/* For each value the record wrote and still finds in place: the
 * original back (set, or deleted); 'keep' is what the next write sets
 * anyway. */
static int perfopts_restore(const struct perfopts_store *store,
			    const struct perfopts_record *r,
			    struct ifeo_values keep,
			    struct perfopts_result *result)
{
	struct ifeo_values now, set = perfopts_none, clear = perfopts_none;

	if (store->read(store->ctx, r->name, &now) < 0)
		return -1;
	if (r->written.cpu_class != IFEO_CPU_CLASS_UNSET &&
	    keep.cpu_class == IFEO_CPU_CLASS_UNSET) {
		if (now.cpu_class != r->written.cpu_class)
			result->left++;
		else if (r->original.cpu_class != IFEO_CPU_CLASS_UNSET)
			set.cpu_class = r->original.cpu_class;
		else
			clear.cpu_class = r->written.cpu_class;
	}
	if (r->written.io_priority != IFEO_IO_PRIORITY_UNSET &&
	    keep.io_priority == IFEO_IO_PRIORITY_UNSET) {
		if (now.io_priority != r->written.io_priority)
			result->left++;
		else if (r->original.io_priority != IFEO_IO_PRIORITY_UNSET)
			set.io_priority = r->original.io_priority;
		else
			clear.io_priority = r->written.io_priority;
	}
	if (!ifeo_values_set(set) && !ifeo_values_set(clear))
		return 0;
	if (store->write(store->ctx, r->name, set, clear) < 0)
		return -1;
	result->restored++;
	return 0;
}

static const struct perfopts_record *perfopts_find(
	const struct perfopts_record *list, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++) {
		if (ifeo_name_compare(list[i].name, name) == 0)
			return &list[i];
	}
	return NULL;
}

static bool perfopts_in_place(struct ifeo_values now, struct ifeo_values want)
{
	return (want.cpu_class == IFEO_CPU_CLASS_UNSET ||
		now.cpu_class == want.cpu_class) &&
	       (want.io_priority == IFEO_IO_PRIORITY_UNSET ||
		now.io_priority == want.io_priority);
}

/* The originals are the record's where there is one (what is there now
 * may be the daemon's own), else what is there now. */
static int perfopts_write(const struct perfopts_store *store,
			  const struct ifeo_entry *e,
			  const struct perfopts_record *old,
			  struct perfopts_result *result)
{
	struct perfopts_record r = {.written = e->values};
	struct ifeo_values now;

	snprintf(r.name, sizeof(r.name), "%s", e->name);
	if (old) {
		r.original = old->original;
	} else {
		if (store->read(store->ctx, e->name, &now) < 0)
			return -1;
		r.original = now;
	}
	/* Only the values this entry writes are its to put back. */
	if (e->values.cpu_class == IFEO_CPU_CLASS_UNSET)
		r.original.cpu_class = IFEO_CPU_CLASS_UNSET;
	if (e->values.io_priority == IFEO_IO_PRIORITY_UNSET)
		r.original.io_priority = IFEO_IO_PRIORITY_UNSET;
	if (old && ifeo_values_equal(old->written, r.written)) {
		if (store->read(store->ctx, e->name, &now) < 0)
			return -1;
		if (perfopts_in_place(now, r.written))
			return 0;
	}
	/* What the old record wrote and the new one does not goes back
	 * first; then the record, before the write: a crash after the
	 * record finds nothing to undo, one after the write finds what
	 * to. */
	if (old && perfopts_restore(store, old, e->values, result) < 0)
		return -1;
	if (store->record_put(store->ctx, &r) < 0)
		return -1;
	if (store->write(store->ctx, e->name, e->values, perfopts_none) < 0)
		return -1;
	result->written++;
	return 0;
}

int perfopts_sync(const struct perfopts_store *store,
		  const struct ifeo_plan *plan, struct perfopts_result *result)
{
	struct perfopts_record *list = NULL;
	size_t count = 0;

	*result = (struct perfopts_result){0};
	if (store->records(store->ctx, &list, &count) < 0)
		return -1;
	for (size_t i = 0; i < count; i++) {
		const struct perfopts_record *r = &list[i];

		if (plan && ifeo_find(plan, r->name))
			continue;
		if (perfopts_restore(store, r, perfopts_none, result) < 0 ||
		    store->record_drop(store->ctx, r->name) < 0)
			result->failed++;
	}
	for (size_t i = 0; plan && i < plan->count; i++) {
		const struct ifeo_entry *e = &plan->entries[i];

		if (perfopts_write(store, e,
				   perfopts_find(list, count, e->name),
				   result) < 0)
			result->failed++;
	}
	free(list);
	return result->failed ? -1 : 0;
}
