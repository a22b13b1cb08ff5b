/* Which system this backend is: rule files are checked for it unless a
 * caller names another. */
#include "os.h"

enum rules_system system_native(void)
{
	return RULES_SYSTEM_LINUX;
}
