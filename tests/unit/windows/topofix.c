/* The model machine's topology as hwloc sees it (topofix.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "model.h"
#include "topofix.h"

void topofix_of_model(struct place_topology *t)
{
	hwloc_bitmap_t keep = hwloc_bitmap_alloc();
	char synthetic[64];

	snprintf(synthetic, sizeof(synthetic), "pack:%u core:64 pu:1",
		 (unsigned)model_group_count());
	assert_int_equal(place_topology_load(t, NULL, synthetic), 0);
	for (WORD g = 0; g < model_group_count(); g++)
		hwloc_bitmap_set_range(keep, g * 64u,
				       (int)(g * 64u + model_group_size(g)) -
					       1);
	assert_int_equal(hwloc_topology_restrict(t->topology, keep, 0), 0);
	hwloc_bitmap_copy(t->all,
			  hwloc_topology_get_complete_cpuset(t->topology));
	place_topology_groups(t);
	hwloc_bitmap_free(keep);
}

KAFFINITY topofix_group_mask(WORD group)
{
	BYTE size = model_group_size(group);

	return size >= 64 ? ~(KAFFINITY)0 : ((KAFFINITY)1 << size) - 1;
}
