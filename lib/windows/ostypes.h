/* The system's types the portable core names, the archetype of its
 * format checks, and the fields of the seam's structs that are this
 * system's own (the way libuv's per-system headers hold
 * UV_PROCESS_PRIVATE_FIELDS). mingw-w64 has no uid_t or gid_t: the core's
 * account ids are the small numbers accounts.c interns SIDs as. (pid_t is an
 * int, as on Linux: windows.mk keeps mingw's 64-bit one out, since Windows
 * process and thread ids are DWORDs and the core prints them with %d.) */
#ifndef CPUPOLICY_OSTYPES_H
#define CPUPOLICY_OSTYPES_H

#include <fcntl.h>
#include <sys/types.h>

typedef unsigned uid_t;
typedef unsigned gid_t;

/* The C99 printf of __USE_MINGW_ANSI_STDIO (%zu, %lld): gcc checks it as
 * gnu_printf; its plain printf archetype is the MSVCRT one. */
#define OS_PRINTF gnu_printf

/* The size of a process name, the image file name (x.exe): a file name
 * of up to 255 bytes of UTF-8 and the NUL; a longer one is not read. */
#define OS_NAME_MAX 256

/* struct events (events.h): the ETW session or the poll (events.c's
 * struct events_win), and the Win32 error of the last failure. */
#define EVENTS_PRIVATE_FIELDS                                                  \
	void *os;                                                              \
	unsigned long error;

/* struct procinfo_pin (os.h): a process HANDLE. */
#define PROCINFO_PIN_PRIVATE_FIELDS void *handle;

#endif
