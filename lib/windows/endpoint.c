/* Windows: the control endpoint is a named pipe, \\.\pipe\NAME. Who
 * serves one is pipeserver.c's. */
#include "win.h"

/* A pipe's whole name, \\.\pipe\ included, is at most 256 characters. */
size_t endpoint_path_max(void)
{
	return 256;
}
