/* One rule file: libconfig text to validated rules. Internal to rules.c. */
#ifndef CPUPOLICY_RULEFILE_H
#define CPUPOLICY_RULEFILE_H

#include <stddef.h>

#include "diag.h"
#include "rules.h"

/* Longest rule name: it appears in every log line about the rule. */
#define RULEFILE_MAX_NAME 64
/* The kernel keeps 15 bytes of a process name (TASK_COMM_LEN - 1). */
#define RULEFILE_COMM_MAX 15
/* Longest source note: a path and a line number. */
#define RULEFILE_MAX_SOURCE 1024

/* rulefile.c */
void rulefile_parse(struct rules *rules, const char *path, const char *text,
		    size_t len, struct diag *diag);
void rulefile_free_rule(struct rule *rule);

#endif
