/* The topology hwloc's Windows backend would report for the model's
 * machine (tests/windows/model): one package of 64 cores per processor
 * group, restricted to the processors each group has, so that group g's
 * processor n is g * 64 + n; one kind of CPU, as a synthetic topology
 * has, and the groups read. */
#ifndef CPUPOLICY_TOPOFIX_H
#define CPUPOLICY_TOPOFIX_H

#include <windows.h>

#include "place.h"

void topofix_of_model(struct place_topology *t);
/* Every processor of one of the model's groups: the group affinity of a
 * thread dealt to it, not pinned. */
KAFFINITY topofix_group_mask(WORD group);

#endif
