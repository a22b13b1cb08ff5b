/* Rules from a text, for the tests that run rules rather than parse
 * them: loaded for a system as a file named t.rules, and the test fails
 * at once, the diagnostics printed, when the text has an error. */
#ifndef CPUPOLICY_RULESFIX_H
#define CPUPOLICY_RULESFIX_H

#include "rules.h"

void rulesfix_load(struct rules *r, enum rules_system system, const char *text);

#endif
