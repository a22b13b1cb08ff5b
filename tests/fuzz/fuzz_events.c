/* libFuzzer target: any bytes as a datagram from the proc connector. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_event(void *ctx, const struct events_event *e)
{
	(void)ctx;
	if (e->kind > EVENTS_KIND_EXIT)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Netlink buffers are 4-byte aligned, as the kernel delivers them. */
	uint32_t *buf = malloc(size + 4);
	struct events_acks acks = {0};

	memcpy(buf, data, size);
	events_parse(buf, size, fuzz_event, NULL, &acks);
	free(buf);
	return 0;
}
