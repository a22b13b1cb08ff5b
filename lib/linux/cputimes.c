/* Linux: each online CPU's time, from /proc/stat. A line "cpuN user nice
 * system idle iowait irq softirq steal ..." in clock ticks; busy is user
 * + nice + system + irq + softirq, idle is idle + iowait, steal is what a
 * hypervisor took. Guest time is already counted in user. An offline CPU
 * has no line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"
#include "procstat.h"
#include "util.h"

int cputimes_parse(const char *text, struct procstat *stat)
{
	const char *line = text;

	*stat = (struct procstat){0};
	while (*line) {
		const char *end = strchrnul(line, '\n');
		unsigned long long v[8] = {0};
		int cpu, n;

		if (strncmp(line, "cpu", 3) == 0 &&
		    isdigit((unsigned char)line[3]) &&
		    sscanf(line + 3,
			   "%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &n) >= 9 &&
		    cpu >= 0 && cpu < 8192) {
			stat->cpus = xreallocarray(stat->cpus, stat->count + 1,
						   sizeof(*stat->cpus));
			stat->cpus[stat->count++] = (struct procstat_cpu){
				.cpu = cpu,
				.busy = v[0] + v[1] + v[2] + v[5] + v[6],
				.idle = v[3] + v[4],
				.steal = v[7],
			};
		}
		line = *end ? end + 1 : end;
	}
	if (!stat->count) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

enum os_status cputimes_read(struct procstat *stat)
{
	const char *procfs = paths_procfs();
	char *path = xasprintf("%s/stat", procfs), *text;
	size_t len;
	enum os_status status = files_read(path, 4 << 20, &text, &len);

	if (status != OS_OK) {
		free(path);
		return status;
	}
	if (cputimes_parse(text, stat) < 0)
		status = OS_FAILED;
	free(text);
	free(path);
	return status;
}
