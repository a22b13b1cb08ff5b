/* The Windows backend's own parts, beyond the seam (os.h): its error
 * translation, UTF-8 <-> UTF-16 at the edge, the SID table, the handle the
 * daemon's loop waits on for events, and the pure parts unit-tested on
 * their own (the poll's snapshot diff, the class mapping, path compares).
 * Named win.h, not windows.h: that would shadow <windows.h> under
 * -Ilib/windows. */
#ifndef CPUPOLICY_WIN_H
#define CPUPOLICY_WIN_H

#include <stdbool.h>
#include <stddef.h>

#include <windows.h>

#include "events.h"
#include "os.h"

/* status.c: a GetLastError value as the seam's status, with errno set to
 * its nearest match for the caller's message. */
enum os_status status_of_win32(DWORD error);
int status_errno_of_win32(DWORD error);
/* The message of a GetLastError value, in UTF-8, CR LF and final full
 * stop cut. */
void status_message(DWORD error, char *buf, size_t size);

/* system.c: UTF-8 <-> UTF-16. false when it does not fit or is not valid
 * (an unpaired surrogate in a process's name is replaced, not refused:
 * win_utf8 never fails on what Windows hands it). */
bool system_wide(const char *utf8, wchar_t *out, size_t count);
bool system_utf8(const wchar_t *wide, char *out, size_t size);
wchar_t *system_wide_dup(const char *utf8); /* NULL: not valid UTF-8 */

/* accounts.c: SIDs as the small numbers the core holds for ids. The same
 * SID, the same number for the life of the process; numbers start at 1
 * (0 is never a SID, so nothing privileged hides behind a zeroed id). */
#define ACCOUNTS_SID_MAX 68 /* SECURITY_MAX_SID_SIZE */
bool accounts_intern(const void *sid, unsigned *id);
bool accounts_sid(unsigned id, void *sid, size_t size);
void accounts_text(const void *sid, char *out, size_t size);
void accounts_reset(void); /* tests only */

/* pipeserver.c: who serves a named pipe, from a handle to it (a client's
 * end): the process the pipe names, its program and its token's account
 * where they can be read ("" otherwise), and whether that token is
 * SYSTEM's or an elevated administrator's. pipeserver_of: false
 * when the pipe names no process. pipeserver_trusted: whether to talk to
 * it at all; false: why says who serves it. */
struct pipeserver {
	unsigned long pid;
	char image[520];
	char account[160];
	bool token_read, trusted;
};
bool pipeserver_of(HANDLE pipe, struct pipeserver *s);
void pipeserver_text(const struct pipeserver *s, char *buf, size_t size);
bool pipeserver_trusted(HANDLE pipe, char *why, size_t size);

/* procinfo.c: a process opened for what the backend reads or writes;
 * NULL with the status in *os when it cannot be. */
HANDLE procinfo_open(pid_t pid, DWORD access, enum os_status *os);
HANDLE procinfo_open_thread(pid_t tid, DWORD access, enum os_status *os);
/* Threads ready to run, waiting for a processor, now (pressure.c), and
 * whether the system tells threads' states at all (Wine does not). */
enum os_status procinfo_ready_threads(unsigned *ready, bool *states);
/* The file identity behind a path (volume serial number, file index):
 * false when it names no file the daemon can open. */
struct procinfo_file_id {
	DWORD volume;
	ULONGLONG index;
};
bool procinfo_file_id_of(const wchar_t *path, struct procinfo_file_id *id);
enum match_file procinfo_same_file(const struct procinfo_file_id *running,
				   bool running_ok,
				   const struct procinfo_file_id *named,
				   bool named_ok);

/* One process or thread of a snapshot, as the poll compares them. */
struct events_entry {
	DWORD pid, tid;		  /* tid 0: the process itself */
	DWORD parent;		  /* a process's parent */
	unsigned long long start; /* 100 ns since 1601, 0: unknown */
};

/* A snapshot: entries sorted by (pid, tid). */
struct events_snapshot {
	struct events_entry *entries;
	size_t count, cap;
};

/* events.c: the handle signalled when events_read has something for the
 * loop, or when a poll is due (a waitable timer). */
HANDLE events_handle(const struct events *ev);
/* Whether events come from ETW (else the poll), and why not when not. */
bool events_etw(const struct events *ev, char *why, size_t size);
void events_snapshot_add(struct events_snapshot *s, DWORD pid, DWORD tid,
			 DWORD parent, unsigned long long start);
void events_snapshot_sort(struct events_snapshot *s);
void events_snapshot_free(struct events_snapshot *s);
/* The events from one snapshot to the next: a new process is an exec
 * (with its parent), a new thread of a known process a thread, a
 * process or thread gone an exit. A pid or tid seen again with another
 * start time ended and began anew. */
void events_diff(const struct events_snapshot *before,
		 const struct events_snapshot *after, events_fn fn, void *ctx);
/* One Microsoft-Windows-Kernel-Process record's user data, by event id
 * (1 ProcessStart, 2 ProcessStop, 3 ThreadStart, 4 ThreadStop) and
 * version; false for anything else or a record too short. */
bool events_etw_parse(unsigned id, unsigned version, const void *data,
		      size_t len, struct events_event *out);

/* apply_prio.c: GetPriorityClass's values <-> the core's classes, as
 * the nice values and policy prio.c maps them to. */
DWORD apply_prio_class_of_state(const struct prio_state *state);
void apply_prio_state_of_class(DWORD klass, struct prio_state *state);

/* trust.c: who else could change a file or folder (trust_path, and the
 * state folder's and the install's checks). The rights that change what
 * a folder holds or who may change it; above a path, those that remove
 * or rename what it holds, FILE_DELETE_CHILD, or grant that (adding is
 * allowed: what another adds stays theirs, as in C:\ProgramData; and so
 * is the folder's own DELETE, judged as the child it is only where it is
 * the path itself, trust.c says why); those that change a file. */
#define TRUST_DIR_WRITE                                                        \
	(FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_DELETE_CHILD |           \
	 FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER |            \
	 GENERIC_WRITE | GENERIC_ALL)
#define TRUST_PARENT_WRITE                                                     \
	(FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER | GENERIC_ALL)
#define TRUST_FILE_WRITE                                                       \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | DELETE | \
	 WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL)

enum trust_fault {
	TRUST_FAULT_NONE,
	TRUST_FAULT_OWNER,    /* owned by an account not trusted */
	TRUST_FAULT_WRITABLE, /* its DACL lets one write it */
	TRUST_FAULT_TYPE,     /* not a folder, or a link, where one must be */
	TRUST_FAULT_UNKNOWN,  /* cannot be checked: errno */
};

enum trust_flags {
	TRUST_DIR = 1 << 0, /* the path must be a folder, and not a link */
};

/* SYSTEM, Administrators, TrustedInstaller, or the account this runs as. */
bool trust_sid_trusted(PSID sid);
/* "S-1-5-32-545 (BUILTIN\Users)", for messages. */
void trust_sid_text(PSID sid, char *buf, size_t size);
/* Whether an owner and a DACL let someone untrusted have one of rights;
 * why says who and which ("owned by ...", "writable by ..."). */
enum trust_fault trust_sd_fault(PSID owner, PACL dacl, DWORD rights, char *why,
				size_t size);
enum trust_fault trust_object_fault(const wchar_t *path, DWORD rights,
				    char *why, size_t size);
/* A full path with backslashes, where its root ends in *root; NULL when
 * it is not absolute. The caller frees it. */
char *trust_full_path(const char *path, size_t *root);
/* Every folder from the root down to the path, and the path itself; and
 * without TRUST_DIR, the same for where it resolves to (*resolved). On a
 * fault, *at names the component (the caller frees it). */
enum trust_fault trust_walk(const char *path, unsigned flags, char **at,
			    bool *resolved, char *why, size_t size);

/* knobs.c */
/* The active scheme's CPMINCORES on this power source, in percent. */
bool knobs_min_cores(int *percent);

#endif
