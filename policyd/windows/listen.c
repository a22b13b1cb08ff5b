/* Windows: the control endpoint is a named pipe (\\.\pipe\cpupolicy by
 * default), byte mode, overlapped, one instance waiting for the next
 * client at any time. Its security descriptor lets in SYSTEM and
 * Administrators, and the configured socket_group to read and write but
 * not to create instances of its own (no FILE_CREATE_PIPE_INSTANCE: a
 * member could otherwise serve the next client in the daemon's place).
 * Clients on other machines are refused. A request is judged by the
 * token it came with (the pipe's impersonation, once it is read), as
 * Linux judges one by SO_PEERCRED: control.c decides what it may ask.
 * Before that, the client's process tells whose slot it takes, no more.
 * The name is anyone's while the daemon holds no instance of it: one
 * somebody else holds is said (their pid and program) and waited out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <sddl.h>

#include "internal.h"
#include "log.h"
#include "os.h"
#include "util.h"
#include "win.h"
#include "winapi.h"

#define LISTEN_OUT_BUFFER 65536
#define LISTEN_IN_BUFFER  4096
#define LISTEN_RETRY_NS	  1000000000LL

/* Read and write, no more: 0x12019b is FILE_GENERIC_READ with
 * FILE_WRITE_DATA, FILE_WRITE_EA and FILE_WRITE_ATTRIBUTES, and without
 * FILE_APPEND_DATA, which on a pipe is FILE_CREATE_PIPE_INSTANCE. */
#define LISTEN_GROUP_RIGHTS L"0x12019b"
/* Owned by Administrators, which a program that took the name cannot
 * make its pipe (cpupolicyctl checks, pipeserver.c); protected (P):
 * nothing inherited; SYSTEM and Administrators all. */
#define LISTEN_SDDL L"O:BAD:P(A;;GA;;;SY)(A;;GA;;;BA)"

struct listen {
	wchar_t name[260];
	PSECURITY_DESCRIPTOR sd;
	SECURITY_ATTRIBUTES sa;
	HANDLE pipe; /* the instance waiting for a client */
	OVERLAPPED ov;
	bool connected; /* a client came before ConnectNamedPipe asked */
	/* Instances of the daemon's open: the waiting one, and its
	 * clients'. While there are any, the name is the daemon's. */
	unsigned own;
	long long retry_ns;
	/* What the last failed try said, so that a try a second does not
	 * say it again: an error, or who holds the name (held, holder). */
	DWORD said_error;
	bool held;
	unsigned long holder;
	unsigned char admins[ACCOUNTS_SID_MAX], group[ACCOUNTS_SID_MAX];
	bool has_group;
};

enum listen_busy {
	LISTEN_BUSY_NO,
	LISTEN_BUSY_READING,
	LISTEN_BUSY_WRITING,
};

struct listen_conn {
	struct listen *l;
	HANDLE pipe;
	OVERLAPPED ov;
	enum listen_busy busy;
	char in[512];
	DWORD in_len, in_pos;
	char *out;
	DWORD out_len;
};

HANDLE listen_handle(const struct listen *l)
{
	return l && l->pipe != INVALID_HANDLE_VALUE ? l->ov.hEvent : NULL;
}

HANDLE listen_conn_handle(const struct listen_conn *conn)
{
	return conn->ov.hEvent;
}

static void listen_say(const char *what, const char *name, DWORD error)
{
	char why[256];

	status_message(error, why, sizeof(why));
	log_error("%s %s: %s", what, name, why);
}

/* SYSTEM and Administrators own it; the group may talk to it. */
static int listen_security(struct listen *l, const struct conf *conf)
{
	wchar_t sddl[512], *group = NULL;
	DWORD size = sizeof(l->admins);

	if (!CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, l->admins,
				&size))
		return -1;
	if (conf->socket_group) {
		if (!accounts_sid(conf->socket_gid, l->group,
				  sizeof(l->group)) ||
		    !ConvertSidToStringSidW(l->group, &group)) {
			log_error("socket_group %s: no SID for it",
				  conf->socket_group);
			return -1;
		}
		l->has_group = true;
	}
	if (group)
		_snwprintf(sddl, ARRAY_SIZE(sddl),
			   LISTEN_SDDL L"(A;;" LISTEN_GROUP_RIGHTS L";;;%ls)",
			   group);
	else
		_snwprintf(sddl, ARRAY_SIZE(sddl), L"%ls", LISTEN_SDDL);
	sddl[ARRAY_SIZE(sddl) - 1] = L'\0';
	if (group)
		LocalFree(group);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, &l->sd, NULL))
		return -1;
	l->sa = (SECURITY_ATTRIBUTES){.nLength = sizeof(l->sa),
				      .lpSecurityDescriptor = l->sd};
	return 0;
}

/* Who holds the name, said once for each holder. */
static void listen_say_held(struct listen *l, const char *name,
			    const struct pipeserver *s)
{
	unsigned long pid = s ? s->pid : 0;
	char who[800] = "a program that does not let the daemon look";

	if (l->held && l->holder == pid)
		return;
	if (pid)
		pipeserver_text(s, who, sizeof(who));
	log_warnx("%s is held by %s: the daemon serves nobody there until it "
		  "lets go, and tries again every second",
		  name, who);
	l->held = true;
	l->holder = pid;
}

/* Somebody serves the name while the daemon has no instance of it: a
 * program that took it while the daemon was not there (a restart, an
 * upgrade; another cpupolicyd is kept out by service_claim). The daemon
 * runs on, and takes the name once it is free. The look connects
 * anonymously: the holder learns nothing of the daemon's token.
 * FILE_FLAG_FIRST_PIPE_INSTANCE would refuse the name on Windows too,
 * but Wine makes a second instance of the holder's pipe. */
static bool listen_held(struct listen *l, const char *name)
{
	HANDLE h =
		CreateFileW(l->name, GENERIC_READ, 0, NULL, OPEN_EXISTING,
			    SECURITY_SQOS_PRESENT | SECURITY_ANONYMOUS, NULL);
	struct pipeserver s;

	if (h == INVALID_HANDLE_VALUE) {
		if (GetLastError() == ERROR_FILE_NOT_FOUND)
			return false;
		/* Every instance busy, or the look refused. */
		listen_say_held(l, name, NULL);
		return true;
	}
	listen_say_held(l, name, pipeserver_of(h, &s) ? &s : NULL);
	CloseHandle(h);
	return true;
}

static int listen_failed(struct listen *l, const char *what, const char *name,
			 DWORD error)
{
	if (error != l->said_error)
		listen_say(what, name, error);
	l->said_error = error;
	l->retry_ns = timing_now_ns() + LISTEN_RETRY_NS;
	return -1;
}

/* A new instance, and its wait for a client; 0 when one waits. The
 * first of the daemon's instances must be the first of the pipe's. */
static int listen_instance(struct listen *l, const char *name)
{
	DWORD open = PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED;

	if (!l->own) {
		if (listen_held(l, name)) {
			l->retry_ns = timing_now_ns() + LISTEN_RETRY_NS;
			return -1;
		}
		open |= FILE_FLAG_FIRST_PIPE_INSTANCE;
	}
	l->pipe = winapi_get()->CreateNamedPipeW(
		l->name, open,
		PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
			PIPE_REJECT_REMOTE_CLIENTS,
		PIPE_UNLIMITED_INSTANCES, LISTEN_OUT_BUFFER, LISTEN_IN_BUFFER,
		0, &l->sa);
	if (l->pipe == INVALID_HANDLE_VALUE) {
		DWORD error = GetLastError();

		if (!l->own && error == ERROR_ACCESS_DENIED) {
			/* Taken between the look and now. */
			listen_say_held(l, name, NULL);
			l->retry_ns = timing_now_ns() + LISTEN_RETRY_NS;
			return -1;
		}
		return listen_failed(l, "cannot create the pipe", name, error);
	}
	if (l->held)
		log_info("%s is free: serving on it", name);
	l->held = false;
	l->said_error = 0;
	l->own++;
	l->connected = false;
	ResetEvent(l->ov.hEvent);
	if (ConnectNamedPipe(l->pipe, &l->ov))
		return 0;
	switch (GetLastError()) {
	case ERROR_IO_PENDING:
		return 0;
	case ERROR_PIPE_CONNECTED:
		l->connected = true;
		SetEvent(l->ov.hEvent);
		return 0;
	default:
		CloseHandle(l->pipe);
		l->pipe = INVALID_HANDLE_VALUE;
		l->own--;
		return listen_failed(l, "cannot wait for clients on", name,
				     GetLastError());
	}
}

/* An instance that could not be made is tried again a second later. */
void listen_rearm(struct daemon *d)
{
	struct listen *l = d->listen;

	if (l && l->pipe == INVALID_HANDLE_VALUE &&
	    timing_now_ns() >= l->retry_ns)
		listen_instance(l, d->conf.socket);
}

enum os_status listen_open(struct daemon *d)
{
	struct listen *l = xcalloc(1, sizeof(*l));
	const char *name = d->conf.socket;

	d->listen = l;
	l->pipe = INVALID_HANDLE_VALUE;
	l->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!l->ov.hEvent || !system_wide(name, l->name, ARRAY_SIZE(l->name))) {
		log_error("cannot listen on %s", name);
		return OS_FAILED;
	}
	if (listen_security(l, &d->conf) < 0) {
		DWORD error = GetLastError();

		listen_say("no security descriptor for", name, error);
		return error ? status_of_win32(error) : OS_FAILED;
	}
	/* A name another program holds is waited out (listen_rearm). */
	listen_instance(l, name);
	return OS_OK;
}

/* A pending I/O is cancelled, and waited for: its OVERLAPPED and buffer
 * must outlive it. */
static void listen_cancel(HANDLE pipe, OVERLAPPED *ov)
{
	DWORD n;

	if (CancelIoEx(pipe, ov) || GetLastError() != ERROR_NOT_FOUND)
		GetOverlappedResult(pipe, ov, &n, TRUE);
}

void listen_close(struct daemon *d)
{
	struct listen *l = d->listen;

	if (!l)
		return;
	if (l->pipe != INVALID_HANDLE_VALUE) {
		listen_cancel(l->pipe, &l->ov);
		CloseHandle(l->pipe);
		l->own--;
	}
	if (l->ov.hEvent)
		CloseHandle(l->ov.hEvent);
	if (l->sd)
		LocalFree(l->sd);
	free(l);
	d->listen = NULL;
}

static bool listen_member(HANDLE token, void *sid)
{
	BOOL member = FALSE;

	return CheckTokenMembership(token, sid, &member) && member;
}

/* The token's user: for the log, and as a number, whose slots it
 * takes (0: not known). */
static void listen_who(HANDLE token, struct control_peer *peer)
{
	unsigned char buf[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	TOKEN_USER *user = (TOKEN_USER *)buf;
	DWORD len;

	snprintf(peer->who, sizeof(peer->who), "an unknown account");
	peer->user = 0;
	if (GetTokenInformation(token, TokenUser, buf, sizeof(buf), &len)) {
		accounts_text(user->User.Sid, peer->who, sizeof(peer->who));
		if (!accounts_intern(user->User.Sid, &peer->user))
			peer->user = 0;
	}
}

/* The core holds SIDs as numbers (accounts.c): their names back. */
void listen_account_text(unsigned uid, unsigned gid, char *buf, size_t size)
{
	unsigned char sid[ACCOUNTS_SID_MAX];
	char user[128] = "?", group[128] = "?";

	if (accounts_sid(uid, sid, sizeof(sid)))
		accounts_text(sid, user, sizeof(user));
	if (accounts_sid(gid, sid, sizeof(sid)))
		accounts_text(sid, group, sizeof(group));
	snprintf(buf, size, "%s, group %s", user, group);
}

/* The token a peer is judged by: what it may do, and who it is. */
static void listen_judge(const struct listen *l, HANDLE token,
			 struct control_peer *peer)
{
	peer->admin = listen_member(token, (void *)l->admins);
	peer->in_group = l->has_group && listen_member(token, (void *)l->group);
	listen_who(token, peer);
}

/* At connect, the client's process: nothing has been read, so there is
 * no token of the client's own yet (ImpersonateNamedPipeClient takes the
 * last message read). Its pid may name another process by now; that
 * decides whose slot the connection takes, never what it may ask
 * (listen_identify). A process that cannot be looked at takes an
 * unknown user's slot. */
static void listen_peer(const struct listen *l, HANDLE pipe,
			struct control_peer *peer)
{
	ULONG pid = 0;
	HANDLE process, token;

	*peer = (struct control_peer){0};
	snprintf(peer->who, sizeof(peer->who), "an unknown account");
	GetNamedPipeClientProcessId(pipe, &pid);
	peer->pid = (pid_t)pid;
	process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	if (!process)
		return;
	if (OpenProcessToken(process, TOKEN_QUERY | TOKEN_DUPLICATE, &token)) {
		HANDLE identification;

		/* CheckTokenMembership takes an impersonation token. */
		if (DuplicateToken(token, SecurityIdentification,
				   &identification)) {
			listen_judge(l, identification, peer);
			CloseHandle(identification);
		}
		CloseHandle(token);
	}
	CloseHandle(process);
}

/* The request's own token, by impersonating its sender at the
 * identification level its client allowed; the daemon reverts at once,
 * and never runs on as the client. No token, no judgement: refused.
 * https://learn.microsoft.com/windows/win32/api/namedpipeapi/nf-namedpipeapi-impersonatenamedpipeclient
 */
enum os_status listen_identify(struct listen_conn *conn,
			       struct control_peer *peer)
{
	HANDLE token = NULL;
	pid_t pid = peer->pid;
	enum os_status status = OS_OK;

	if (!ImpersonateNamedPipeClient(conn->pipe)) {
		DWORD error = GetLastError();

		log_debug("control: cannot impersonate the client (pid %d): "
			  "error %lu",
			  (int)pid, error);
		return status_of_win32(error);
	}
	if (!OpenThreadToken(GetCurrentThread(), TOKEN_QUERY, TRUE, &token)) {
		status = status_of_win32(GetLastError());
		token = NULL;
	}
	if (!RevertToSelf())
		fatalx("cannot revert to the daemon's own token");
	if (!token)
		return status == OS_OK ? OS_FAILED : status;
	*peer = (struct control_peer){.pid = pid};
	listen_judge(conn->l, token, peer);
	CloseHandle(token);
	return OS_OK;
}

static struct listen_conn *listen_conn_new(struct listen *l, HANDLE pipe)
{
	struct listen_conn *conn = xcalloc(1, sizeof(*conn));

	conn->l = l;
	conn->pipe = pipe;
	/* Signalled from the start: the loop's first look at the client
	 * starts its read. */
	conn->ov.hEvent = CreateEventW(NULL, TRUE, TRUE, NULL);
	if (!conn->ov.hEvent) {
		free(conn);
		return NULL;
	}
	return conn;
}

/* The next client; *conn NULL when none waits. The
 * instance it came on is its connection; a new one waits for the next. */
enum os_status listen_accept(struct daemon *d, struct listen_conn **conn,
			     struct control_peer *peer)
{
	struct listen *l = d->listen;

	*conn = NULL;
	while (l->pipe != INVALID_HANDLE_VALUE) {
		HANDLE pipe = l->pipe;
		DWORD n;

		if (!l->connected &&
		    !GetOverlappedResult(pipe, &l->ov, &n, FALSE) &&
		    GetLastError() == ERROR_IO_INCOMPLETE)
			return OS_OK;
		/* Connected, or a client that came and went: either way
		 * the next instance takes its place. */
		l->pipe = INVALID_HANDLE_VALUE;
		listen_instance(l, d->conf.socket);
		listen_peer(l, pipe, peer);
		if (!(*conn = listen_conn_new(l, pipe))) {
			CloseHandle(pipe);
			l->own--;
			continue;
		}
		return OS_OK;
	}
	return OS_OK;
}

/* A broken pipe, or a pipe being closed, is a client that hung up. */
static enum os_status listen_status(DWORD error)
{
	if (error == ERROR_BROKEN_PIPE || error == ERROR_NO_DATA)
		return OS_GONE;
	return status_of_win32(error);
}

/* A pending I/O's end: the bytes moved, 0 while it runs. Done with
 * nothing moved is the end of the stream. */
static enum os_status listen_finish(struct listen_conn *conn, size_t *moved)
{
	DWORD n;

	*moved = 0;
	if (!GetOverlappedResult(conn->pipe, &conn->ov, &n, FALSE)) {
		DWORD error = GetLastError();

		if (error == ERROR_IO_INCOMPLETE)
			return OS_OK;
		conn->busy = LISTEN_BUSY_NO;
		return listen_status(error);
	}
	conn->busy = LISTEN_BUSY_NO;
	ResetEvent(conn->ov.hEvent);
	*moved = n;
	return n ? OS_OK : OS_GONE;
}

static enum os_status listen_started(struct listen_conn *conn, BOOL done,
				     enum listen_busy busy, size_t *moved)
{
	DWORD error = done ? 0 : GetLastError();

	if (done)
		return listen_finish(conn, moved);
	*moved = 0;
	if (error == ERROR_IO_PENDING) {
		conn->busy = busy;
		return OS_OK;
	}
	return listen_status(error);
}

enum os_status listen_recv(struct listen_conn *conn, char *buf, size_t size,
			   size_t *moved)
{
	size_t n;

	*moved = 0;
	if (conn->in_pos == conn->in_len) {
		enum os_status status;

		if (conn->busy == LISTEN_BUSY_NO) {
			ResetEvent(conn->ov.hEvent);
			status = listen_started(conn,
						ReadFile(conn->pipe, conn->in,
							 sizeof(conn->in), NULL,
							 &conn->ov),
						LISTEN_BUSY_READING, &n);
		} else {
			status = listen_finish(conn, &n);
		}
		if (status != OS_OK || n == 0)
			return status;
		conn->in_len = (DWORD)n;
		conn->in_pos = 0;
	}
	n = conn->in_len - conn->in_pos;
	if (n > size)
		n = size;
	memcpy(buf, conn->in + conn->in_pos, n);
	conn->in_pos += (DWORD)n;
	*moved = n;
	return OS_OK;
}

/* The bytes are copied: the write may outlive the call. A write still
 * running is asked again with the same bytes (control.c sends from where
 * it stopped), and answers how many went once it is done. */
enum os_status listen_send(struct listen_conn *conn, const char *buf,
			   size_t len, size_t *moved)
{
	if (conn->busy == LISTEN_BUSY_WRITING)
		return listen_finish(conn, moved);
	if (len > LISTEN_OUT_BUFFER)
		len = LISTEN_OUT_BUFFER;
	if (!conn->out)
		conn->out = xmalloc(LISTEN_OUT_BUFFER);
	memcpy(conn->out, buf, len);
	conn->out_len = (DWORD)len;
	ResetEvent(conn->ov.hEvent);
	return listen_started(conn,
			      WriteFile(conn->pipe, conn->out, conn->out_len,
					NULL, &conn->ov),
			      LISTEN_BUSY_WRITING, moved);
}

/* Closed, not disconnected: what was written stays for the client to
 * read (DisconnectNamedPipe would throw it away). */
void listen_hang_up(struct listen_conn *conn)
{
	if (conn->busy != LISTEN_BUSY_NO)
		listen_cancel(conn->pipe, &conn->ov);
	CloseHandle(conn->pipe);
	conn->l->own--;
	CloseHandle(conn->ov.hEvent);
	free(conn->out);
	free(conn);
}
