/* libFuzzer target: any bytes as the contents of /proc/PID/stat, status,
 * cgroup and cmdline (processes choose their names and arguments). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct facts facts;
	char *text = malloc(size + 1);
	unsigned long long start;
	pid_t ppid;

	memcpy(text, data, size);
	text[size] = '\0';
	procinfo_parse_stat(text, &ppid, &start);
	procinfo_parse_creds(text, &facts);
	if (facts.group_count > MATCH_GROUPS_MAX)
		abort();
	memcpy(text, data, size);
	procinfo_parse_cgroups(text, facts.cgroups, sizeof(facts.cgroups));
	memcpy(text, data, size);
	procinfo_parse_cmdline(text, size);
	free(text);
	return 0;
}
