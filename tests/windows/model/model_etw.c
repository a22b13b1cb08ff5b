/* The ETW session: one real-time session by name, the provider enabled
 * on it, its consumer, which ProcessTrace serves until CloseTrace or
 * the session's stop. */
#include <string.h>

#include <windows.h>

#include <evntcons.h>

#include "model.h"

static struct model_etw_session model_session;
static HANDLE model_etw_ended; /* set by CloseTrace: ProcessTrace returns */
/* The consumer OpenTrace was given: its callback and context. */
static PEVENT_RECORD_CALLBACK model_etw_callback;
static PVOID model_etw_context;

#define MODEL_ETW_SESSION  ((TRACEHANDLE)0x5e55)
#define MODEL_ETW_CONSUMER ((TRACEHANDLE)0xc0de)
/* ProcessTrace waits no longer than this, whatever the test does. */
#define MODEL_ETW_DEADLINE_MS 30000

void model_etw_reset(void)
{
	memset(&model_session, 0, sizeof(model_session));
	model_etw_callback = NULL;
	model_etw_context = NULL;
	if (!model_etw_ended)
		model_etw_ended = CreateEventW(NULL, TRUE, FALSE, NULL);
	ResetEvent(model_etw_ended);
}

const struct model_etw_session *model_etw_session(void)
{
	return &model_session;
}

/* "ERROR_ALREADY_EXISTS: A session with the same name or GUID is
 * already running"; the name follows the properties at LoggerNameOffset.
 * sdk-api-src/content/evntrace/nf-evntrace-starttracew.md */
static ULONG WINAPI model_start_trace(PTRACEHANDLE handle, LPCWSTR name,
				      PEVENT_TRACE_PROPERTIES props)
{
	model_count("StartTraceW");
	if (model_session.started)
		return ERROR_ALREADY_EXISTS;
	if (props->Wnode.BufferSize < sizeof(*props) ||
	    props->LoggerNameOffset < sizeof(*props))
		return ERROR_BAD_LENGTH;
	model_session.started = true;
	model_session.starts++;
	model_session.props = *props;
	wcsncpy(model_session.name, name, ARRAYSIZE(model_session.name) - 1);
	*handle = MODEL_ETW_SESSION;
	return ERROR_SUCCESS;
}

/* EVENT_TRACE_CONTROL_STOP by handle or by name; "ERROR_WMI_INSTANCE_NOT_FOUND:
 * The given session is not running".
 * sdk-api-src/content/evntrace/nf-evntrace-controltracew.md */
static ULONG WINAPI model_control_trace(TRACEHANDLE handle, LPCWSTR name,
					PEVENT_TRACE_PROPERTIES props,
					ULONG code)
{
	bool ours = handle == MODEL_ETW_SESSION ||
		    (name && wcscmp(name, model_session.name) == 0);

	(void)props;
	model_count("ControlTraceW");
	if (!model_session.started || !ours)
		return ERROR_WMI_INSTANCE_NOT_FOUND;
	if (code == EVENT_TRACE_CONTROL_STOP) {
		model_session.started = false;
		model_session.enabled = false;
		model_session.stops++;
		SetEvent(model_etw_ended);
	}
	return ERROR_SUCCESS;
}

/* sdk-api-src/content/evntrace/nf-evntrace-enabletraceex2.md */
static ULONG WINAPI model_enable_trace(TRACEHANDLE handle, LPCGUID provider,
				       ULONG code, UCHAR level, ULONGLONG any,
				       ULONGLONG all, ULONG timeout,
				       PENABLE_TRACE_PARAMETERS params)
{
	(void)all;
	(void)timeout;
	(void)params;
	model_count("EnableTraceEx2");
	if (handle != MODEL_ETW_SESSION || !model_session.started)
		return ERROR_INVALID_HANDLE;
	model_session.enabled = code == EVENT_CONTROL_CODE_ENABLE_PROVIDER;
	model_session.provider = *provider;
	model_session.level = level;
	model_session.any_keyword = any;
	return ERROR_SUCCESS;
}

/* "If the function fails, it returns INVALID_PROCESSTRACE_HANDLE".
 * sdk-api-src/content/evntrace/nf-evntrace-opentracew.md */
static TRACEHANDLE WINAPI model_open_trace(PEVENT_TRACE_LOGFILEW log)
{
	model_count("OpenTraceW");
	if (!model_session.started ||
	    wcscmp(log->LoggerName, model_session.name) != 0) {
		SetLastError(ERROR_WMI_INSTANCE_NOT_FOUND);
		return (TRACEHANDLE)INVALID_HANDLE_VALUE;
	}
	model_session.opened = true;
	model_etw_callback = log->EventRecordCallback;
	model_etw_context = log->Context;
	return MODEL_ETW_CONSUMER;
}

/* A real-time ProcessTrace "blocks ... until CloseTrace is called or the
 * session is stopped".
 * sdk-api-src/content/evntrace/nf-evntrace-processtrace.md */
static ULONG WINAPI model_process_trace(PTRACEHANDLE handles, ULONG count,
					LPFILETIME start, LPFILETIME end)
{
	(void)handles;
	(void)count;
	(void)start;
	(void)end;
	model_count("ProcessTrace");
	WaitForSingleObject(model_etw_ended, MODEL_ETW_DEADLINE_MS);
	return ERROR_SUCCESS;
}

static ULONG WINAPI model_close_trace(TRACEHANDLE handle)
{
	model_count("CloseTrace");
	if (handle != MODEL_ETW_CONSUMER)
		return ERROR_INVALID_HANDLE;
	model_session.opened = false;
	SetEvent(model_etw_ended);
	return ERROR_SUCCESS;
}

/* "The EVENT_RECORD structure is passed to the consumer's implementation
 * of the EventRecordCallback callback"; its UserContext is "the context
 * specified in the Context member of the EVENT_TRACE_LOGFILE structure
 * that is passed to the OpenTrace function".
 * sdk-api-src/content/evntcons/ns-evntcons-event_record.md
 * Delivered on the caller's thread, where Windows uses ProcessTrace's. */
bool model_etw_deliver(USHORT id, UCHAR version, const void *data,
		       USHORT length)
{
	EVENT_RECORD rec = {0};

	if (!model_session.opened || !model_session.enabled ||
	    !model_etw_callback)
		return false;
	rec.EventHeader.ProviderId = model_session.provider;
	rec.EventHeader.EventDescriptor.Id = id;
	rec.EventHeader.EventDescriptor.Version = version;
	rec.UserData = (PVOID)data;
	rec.UserDataLength = length;
	rec.UserContext = model_etw_context;
	model_etw_callback(&rec);
	return true;
}

/* Microsoft-Windows-Kernel-Process's ProcessStart, version 0:
 * ProcessID (UInt32), CreateTime (FILETIME), ParentProcessID (UInt32),
 * SessionID (UInt32), ImageName. Not in Microsoft's reference: the
 * provider's manifest, as `wevtutil gp Microsoft-Windows-Kernel-Process
 * /ge /gm` prints it. */
bool model_etw_process_start(DWORD pid, DWORD parent)
{
	unsigned char data[20] = {0};

	memcpy(data, &pid, 4);
	memcpy(data + 12, &parent, 4);
	return model_etw_deliver(1, 0, data, sizeof(data));
}

void model_etw_install(struct winapi *w)
{
	w->StartTraceW = model_start_trace;
	w->ControlTraceW = model_control_trace;
	w->EnableTraceEx2 = model_enable_trace;
	w->OpenTraceW = model_open_trace;
	w->ProcessTrace = model_process_trace;
	w->CloseTrace = model_close_trace;
}
