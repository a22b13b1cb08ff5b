/* Which system this backend is: rule files are checked for it unless a
 * caller names another. */
#include "os.h"

enum rules_system system_native(void)
{
	return RULES_SYSTEM_LINUX;
}

/* Nothing here depends on a build. */
unsigned long system_build(void)
{
	return 0;
}
