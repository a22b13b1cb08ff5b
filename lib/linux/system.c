/* Which system this backend is: rule files are checked for it unless a
 * caller names another; main's arguments as they are. */
#include <stdio.h>
#include <unistd.h>

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

/* The kernel hands main the bytes as given: UTF-8 in a UTF-8 locale,
 * and file names are bytes anyway. */
void system_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

bool system_is_terminal(FILE *stream)
{
	return isatty(fileno(stream)) == 1;
}
