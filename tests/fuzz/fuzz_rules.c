/* libFuzzer target: any bytes as a rule file. Must never crash, leak or
 * read out of bounds, whatever it reports; and when it loads, the
 * matcher's index must give the first match a scan in rule order gives,
 * for processes made of the rules' own values. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fetch(void *ctx, unsigned wanted, struct facts *facts)
{
	const struct facts *truth = ctx;
	unsigned have = facts->have;

	*facts = *truth;
	facts->have = have | wanted;
}

static void fuzz_value(char *buf, size_t size, const struct rule_patterns *p)
{
	snprintf(buf, size, "%s", p->count ? p->values[0] : "");
}

/* A process whose exe, name and command line are rule r's first values,
 * taken as text: the index and the scan must agree on it. */
static void fuzz_match(const struct rules *rules,
		       const struct match_index *index, size_t r)
{
	const struct rule_match *m = &rules->list[r].match;
	struct facts truth = {0}, facts = {0};
	long first = -1;
	char why[512];

	fuzz_value(truth.exe, sizeof(truth.exe), &m->exe);
	fuzz_value(truth.comm, sizeof(truth.comm), &m->name);
	fuzz_value(truth.cmdline, sizeof(truth.cmdline),
		   &rules_match_more(m)->cmdline);
	for (size_t i = 0; i < rules->count && first < 0; i++) {
		struct facts fresh = {0};

		if (match_rule(&rules->list[i], &fresh, fuzz_fetch, &truth,
			       NULL, 0))
			first = (long)i;
	}
	if (match_first(index, &facts, fuzz_fetch, &truth) != first)
		abort();
	match_unindexed(&rules->list[r], why, sizeof(why));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct rules rules;
	struct diag diag;

	memcpy(text, data, size);
	text[size] = '\0';
	rules_init(&rules);
	/* Both systems' checks: the length's parity picks one. */
	rules.system = size & 1 ? RULES_SYSTEM_WINDOWS : RULES_SYSTEM_LINUX;
	diag_init(&diag);
	rules_load_text(&rules, "fuzz.rules", text, size, &diag);
	if (!diag.errors) {
		FILE *null = fopen("/dev/null", "w");
		struct match_index index;

		rules_print(&rules, null);
		fclose(null);
		match_index_build(&index, &rules);
		for (size_t r = 0; r < rules.count && r < 8; r++)
			fuzz_match(&rules, &index, r);
		match_index_free(&index);
	}
	diag_free(&diag);
	rules_free(&rules);
	free(text);
	return 0;
}
