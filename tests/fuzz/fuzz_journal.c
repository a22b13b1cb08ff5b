/* libFuzzer target: any bytes as a journal file. The state directory is
 * root's, but the replay writes what the journal names as root: its
 * parser must hold against anything. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal j = {0};
	struct journal_head head;
	char *text = malloc(size + 1);

	log_set_level(LOG_LEVEL_ERROR);
	memcpy(text, data, size);
	text[size] = '\0';
	journal_parse(&j, &head, text);
	for (size_t i = 0; i < j.count; i++) {
		const struct journal_entry *e = &j.entries[i];

		if (e->path[0] != '/' ||
		    strlen(e->original) >= JOURNAL_VALUE_MAX ||
		    strlen(e->ours) >= JOURNAL_VALUE_MAX ||
		    strlen(e->previous) >= JOURNAL_VALUE_MAX ||
		    journal_find(&j, e->path) != e)
			abort();
	}
	if (strlen(head.boot) >= JOURNAL_BOOT_MAX)
		abort();
	free(text);
	journal_close(&j);
	return 0;
}
