/* The daemon's control pipe (policyd/windows/listen.c) and the client's
 * check of its server (lib/windows/pipeserver.c) on the model's named
 * pipes: the daemon's first instance is the pipe's first, so a name
 * somebody made first is refused (FILE_FLAG_FIRST_PIPE_INSTANCE, which
 * Wine does not enforce) and waited out; the daemon's instances are not
 * limited, one per client; a client reads the server's pid from its end
 * of the pipe, and refuses a server whose pipe somebody else owns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "log.h"
#include "model.h"
#include "win.h"
#include "../../../policyd/windows/internal.h"

#define DEADLINE_MS 5000

static char pipe_name[128];
static wchar_t pipe_wide[128];

static void daemon_of(struct daemon *d)
{
	struct model_config c = {.version = MODEL_WINDOWS_11_24H2,
				 .machine = MODEL_MACHINE_HYBRID_6P8E};
	static unsigned n;

	model_install(&c);
	/* A name of this run's own: another test's pipe is not in it. */
	snprintf(pipe_name, sizeof(pipe_name),
		 "\\\\.\\pipe\\cpupolicy-model-%lu-%u", GetCurrentProcessId(),
		 n++);
	swprintf(pipe_wide, ARRAYSIZE(pipe_wide), L"%hs", pipe_name);
	memset(d, 0, sizeof(*d));
	d->conf.socket = pipe_name;
}

/* What the log said, from the start of the test. */
static FILE *log_capture(void)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	log_set_file(f);
	return f;
}

static bool log_said(FILE *f, const char *what)
{
	char line[1024];
	bool found = false;

	fflush(f);
	rewind(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	return found;
}

static void log_release(FILE *f)
{
	log_set_file(NULL);
	fclose(f);
}

static HANDLE client_open(void)
{
	HANDLE h = CreateFileW(pipe_wide, GENERIC_READ | GENERIC_WRITE, 0, NULL,
			       OPEN_EXISTING, 0, NULL);

	assert_true(h != INVALID_HANDLE_VALUE);
	return h;
}

/* The daemon takes the client waiting on its instance. */
static struct listen_conn *daemon_accept(struct daemon *d)
{
	struct listen_conn *conn = NULL;
	struct control_peer peer;

	assert_non_null(listen_handle(d->listen));
	assert_int_equal(
		WaitForSingleObject(listen_handle(d->listen), DEADLINE_MS),
		WAIT_OBJECT_0);
	assert_int_equal(listen_accept(d, &conn, &peer), OS_OK);
	assert_non_null(conn);
	return conn;
}

enum {
	CLIENTS = 3,
};

/* Alone on the name, the daemon serves: one instance waiting, then one
 * more for each client (no instance limit of its own); each client's end
 * names the daemon's process as its server. */
static void test_daemon_serves(void **state)
{
	struct listen_conn *conns[CLIENTS];
	HANDLE clients[CLIENTS];
	struct daemon d;
	struct pipeserver s;

	(void)state;
	daemon_of(&d);
	assert_int_equal(listen_open(&d), OS_OK);
	assert_non_null(listen_handle(d.listen));
	assert_int_equal(model_pipe_instances(pipe_wide), 1);
	for (unsigned i = 0; i < CLIENTS; i++) {
		clients[i] = client_open();
		conns[i] = daemon_accept(&d);
		assert_int_equal(model_pipe_instances(pipe_wide), i + 2);
		assert_true(pipeserver_of(clients[i], &s));
		assert_int_equal(s.pid, GetCurrentProcessId());
	}
	assert_true(model_calls("GetNamedPipeServerProcessId") >= CLIENTS);
	for (unsigned i = 0; i < CLIENTS; i++) {
		listen_hang_up(conns[i]);
		CloseHandle(clients[i]);
	}
	listen_close(&d);
	model_uninstall();
}

/* A program that made the name first, seen by the daemon's look: the
 * daemon makes no instance and says who holds the name. */
static void test_squatter_seen(void **state)
{
	struct daemon d;
	HANDLE squat;
	FILE *log;

	(void)state;
	daemon_of(&d);
	squat = winapi.CreateNamedPipeW(
		pipe_wide, PIPE_ACCESS_DUPLEX, PIPE_TYPE_BYTE | PIPE_WAIT,
		PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, NULL);
	assert_true(squat != INVALID_HANDLE_VALUE);
	log = log_capture();
	assert_int_equal(listen_open(&d), OS_OK);
	assert_null(listen_handle(d.listen));
	assert_int_equal(model_pipe_instances(pipe_wide), 1);
	assert_true(log_said(log, "is held by"));
	log_release(log);
	listen_close(&d);
	CloseHandle(squat);
	model_uninstall();
}

/* The race the look cannot see: the name taken between the look and
 * the daemon's CreateNamedPipeW. The model refuses the daemon's first
 * instance (ERROR_ACCESS_DENIED), and the daemon serves nobody. */
static HANDLE(WINAPI *model_create)(LPCWSTR, DWORD, DWORD, DWORD, DWORD, DWORD,
				    DWORD, LPSECURITY_ATTRIBUTES);
static HANDLE race_squat = INVALID_HANDLE_VALUE;

static HANDLE WINAPI create_after_squatter(LPCWSTR name, DWORD open, DWORD mode,
					   DWORD max, DWORD out, DWORD in,
					   DWORD timeout,
					   LPSECURITY_ATTRIBUTES sa)
{
	if (race_squat == INVALID_HANDLE_VALUE)
		race_squat = model_create(
			name, PIPE_ACCESS_DUPLEX, PIPE_TYPE_BYTE | PIPE_WAIT,
			PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, NULL);
	return model_create(name, open, mode, max, out, in, timeout, sa);
}

static void test_squatter_in_the_race(void **state)
{
	struct daemon d;
	FILE *log;

	(void)state;
	daemon_of(&d);
	model_create = winapi.CreateNamedPipeW;
	winapi.CreateNamedPipeW = create_after_squatter;
	log = log_capture();
	assert_int_equal(listen_open(&d), OS_OK);
	assert_true(race_squat != INVALID_HANDLE_VALUE);
	assert_null(listen_handle(d.listen));
	assert_int_equal(model_pipe_instances(pipe_wide), 1);
	assert_int_equal(model_calls("CreateNamedPipeW"), 2);
	assert_true(log_said(log, "is held by"));
	log_release(log);
	listen_close(&d);
	CloseHandle(race_squat);
	race_squat = INVALID_HANDLE_VALUE;
	model_uninstall();
}

/* The client's check: the server's pid is the one its end of the pipe
 * names, and a pipe owned by a plain user is refused, naming that pid;
 * one owned by SYSTEM whose server's token cannot be read (a pid gone)
 * is taken on its owner's word. */
static void test_client_checks_server(void **state)
{
	static const ULONG gone = 0x7ffffff0;
	struct daemon d;
	struct pipeserver s;
	char why[1024], pid[32];
	HANDLE client;

	(void)state;
	daemon_of(&d);
	assert_int_equal(listen_open(&d), OS_OK);
	client = client_open();
	model_pipe_server(client, gone);
	assert_true(pipeserver_of(client, &s));
	assert_int_equal(s.pid, gone);
	assert_false(s.token_read);
	model_security_handle(client, L"O:S-1-5-21-1-2-3-1001D:(A;;GA;;;WD)");
	assert_false(pipeserver_trusted(client, why, sizeof(why)));
	snprintf(pid, sizeof(pid), "pid %lu", gone);
	assert_non_null(strstr(why, "belongs to"));
	assert_non_null(strstr(why, pid));
	model_security_reset();
	model_security_handle(client, L"O:SYD:(A;;GA;;;SY)");
	assert_true(pipeserver_trusted(client, why, sizeof(why)));
	CloseHandle(client);
	listen_close(&d);
	model_uninstall();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_serves),
		cmocka_unit_test(test_squatter_seen),
		cmocka_unit_test(test_squatter_in_the_race),
		cmocka_unit_test(test_client_checks_server),
	};

	log_init("test_model_pipes", LOG_LEVEL_WARNING);
	return unit_run("model_pipes", (struct unit_table){0},
			UNIT_TESTS(tests), NULL, NULL);
}
