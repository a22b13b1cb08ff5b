/* A process's facts as a match asks for them: one at a time from the
 * system's readers (procinfo_fact, procinfo_file in linux/ and
 * windows/), each said had or failed, and an exe's file identity only
 * after its path. */
#include <stdbool.h>

#include "match.h"
#include "os.h"

/* The identity of the file behind an exe path, the path first. */
static enum os_status procinfo_identity(const struct procinfo *pi,
					struct facts *facts, unsigned path_bit)
{
	bool parent = path_bit == MATCH_FACT_PARENT_EXE;

	if (!((facts->have | facts->failed) & path_bit))
		procinfo_fetch((void *)pi, path_bit, facts);
	if (!(facts->have & path_bit))
		return OS_GONE;
	return parent ? procinfo_file(pi, facts->ppid, facts->parent_exe,
				      &facts->parent_exe_file)
		      : procinfo_file(pi, pi->pid, facts->exe,
				      &facts->exe_file);
}

void procinfo_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	const struct procinfo *pi = ctx;

	for (unsigned rest = wanted; rest; rest &= rest - 1) {
		unsigned fact = rest & -rest;
		enum os_status status;

		if (fact == MATCH_FACT_EXE_FILE)
			status = procinfo_identity(pi, facts, MATCH_FACT_EXE);
		else if (fact == MATCH_FACT_PARENT_EXE_FILE)
			status = procinfo_identity(pi, facts,
						   MATCH_FACT_PARENT_EXE);
		else
			status = procinfo_fact(pi, fact, facts);
		if (status != OS_OK)
			facts->failed |= fact;
		else
			facts->have |= fact;
	}
}
