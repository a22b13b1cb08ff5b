/* libFuzzer target: any bytes as /proc/stat. Every CPU taken has a
 * number in range, and a parse that succeeds took one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"
#include "procstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procstat stat;
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	if (cputimes_parse(text, &stat) == 0 && !stat.count)
		abort();
	for (size_t i = 0; i < stat.count; i++) {
		if (stat.cpus[i].cpu < 0 || stat.cpus[i].cpu >= 8192)
			abort();
	}
	procstat_free(&stat);
	free(text);
	return 0;
}
