/* Named pipes: the instances made of each name, with the limits
 * CreateNamedPipe documents (Wine's pipes are real: the model counts and
 * refuses, then lets the system make the instance), and the server a
 * client's end names. */
#include <string.h>
#include <wchar.h>

#include "model.h"

enum {
	MODEL_PIPES = 16,
};

static struct {
	wchar_t name[256];
	unsigned instances, max;
} model_pipes[MODEL_PIPES];
static size_t model_pipe_count;
struct model_pipe_server {
	HANDLE client;
	ULONG pid;
};
static struct model_pipe_server model_servers[MODEL_PIPES];
static size_t model_server_count;
static struct winapi model_system;

void model_pipes_reset(void)
{
	model_pipe_count = 0;
	model_server_count = 0;
}

static int model_pipe_find(const wchar_t *name)
{
	for (size_t i = 0; i < model_pipe_count; i++) {
		if (_wcsicmp(model_pipes[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

unsigned model_pipe_instances(const wchar_t *name)
{
	int i = model_pipe_find(name);

	return i < 0 ? 0 : model_pipes[i].instances;
}

/* "FILE_FLAG_FIRST_PIPE_INSTANCE: If you attempt to create multiple
 * instances of a pipe with this flag, creation of the first instance
 * succeeds, but creation of the next instance fails with
 * ERROR_ACCESS_DENIED"; nMaxInstances is the first instance's, and one
 * more than it is ERROR_PIPE_BUSY.
 * sdk-api-src/content/winbase/nf-winbase-createnamedpipea.md */
static HANDLE WINAPI model_create_pipe(LPCWSTR name, DWORD open, DWORD mode,
				       DWORD max, DWORD out, DWORD in,
				       DWORD timeout, LPSECURITY_ATTRIBUTES sa)
{
	int i = model_pipe_find(name);
	HANDLE h;

	model_count("CreateNamedPipeW");
	if (i >= 0 && (open & FILE_FLAG_FIRST_PIPE_INSTANCE)) {
		SetLastError(ERROR_ACCESS_DENIED);
		return INVALID_HANDLE_VALUE;
	}
	if (i >= 0 && model_pipes[i].max != PIPE_UNLIMITED_INSTANCES &&
	    model_pipes[i].instances >= model_pipes[i].max) {
		SetLastError(ERROR_PIPE_BUSY);
		return INVALID_HANDLE_VALUE;
	}
	h = model_system.CreateNamedPipeW(name, open, mode, max, out, in,
					  timeout, sa);
	if (h == INVALID_HANDLE_VALUE)
		return h;
	if (i < 0 && model_pipe_count < MODEL_PIPES) {
		i = (int)model_pipe_count++;
		swprintf(model_pipes[i].name, 256, L"%ls", name);
		model_pipes[i].instances = 0;
		model_pipes[i].max = max;
	}
	if (i >= 0)
		model_pipes[i].instances++;
	return h;
}

void model_pipe_server(HANDLE client, ULONG pid)
{
	if (model_server_count < MODEL_PIPES)
		model_servers[model_server_count++] =
			(struct model_pipe_server){.client = client,
						   .pid = pid};
}

/* sdk-api-src/content/winbase/nf-winbase-getnamedpipeserverprocessid.md */
static BOOL WINAPI model_pipe_server_pid(HANDLE pipe, PULONG pid)
{
	model_count("GetNamedPipeServerProcessId");
	for (size_t i = 0; i < model_server_count; i++) {
		if (model_servers[i].client == pipe) {
			*pid = model_servers[i].pid;
			return TRUE;
		}
	}
	return model_system.GetNamedPipeServerProcessId(pipe, pid);
}

void model_pipes_install(struct winapi *w)
{
	model_system = *w;
	w->CreateNamedPipeW = model_create_pipe;
	w->GetNamedPipeServerProcessId = model_pipe_server_pid;
}
