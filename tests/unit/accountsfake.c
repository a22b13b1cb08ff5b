/* The system's accounts as the rule and import tests see them, the same
 * on every system they run on: root is user and group 0 (as on Linux),
 * nobody 65534, every other name unknown. It stands in for the backend's
 * accounts.c: linked as an object, before libcpupolicy.a, by the tests
 * that name it (UNIT_FAKE_ACCOUNTS in the Makefile); never from libfix.a,
 * where a test of the real accounts would take it in by their names. */
#include <string.h>

#include "os.h"

static const struct {
	const char *name;
	unsigned id;
} accountsfake_known[] = {{"root", 0}, {"nobody", 65534}};

static bool accountsfake_find(const char *name, unsigned *id)
{
	for (size_t i = 0;
	     i < sizeof(accountsfake_known) / sizeof(accountsfake_known[0]);
	     i++) {
		if (strcmp(name, accountsfake_known[i].name) == 0) {
			*id = accountsfake_known[i].id;
			return true;
		}
	}
	return false;
}

bool accounts_user(const char *name, unsigned *id)
{
	return accountsfake_find(name, id);
}

bool accounts_group(const char *name, unsigned *id)
{
	return accountsfake_find(name, id);
}

/* As Linux's: root's and the system accounts' ids, and nobody. */
bool accounts_system(unsigned id)
{
	return id < 1000 || id == 65534;
}
