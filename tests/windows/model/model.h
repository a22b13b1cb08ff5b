/* An in-memory Windows for the unit tests: what Wine does not show
 * (processor groups, CPU Sets, power schemes and the overlay, power
 * throttling, the registry across a reboot, owners and DACLs, pipe
 * instances, the ETW session), behind winapi.h's table. model_install
 * overwrites the table's pointers, so the backend's own code runs
 * unchanged against it. Processes and threads are Wine's own (their ids
 * from the handles the backend opens); what Windows keeps of them for
 * these calls is the model's. Each behaviour cites Microsoft's page (or,
 * where Microsoft documents nothing, another source, marked so). */
#ifndef CPUPOLICY_MODEL_H
#define CPUPOLICY_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <windows.h>

#include "winapi.h"

enum model_version {
	MODEL_WINDOWS_10_22H2,
	MODEL_WINDOWS_11_24H2,
	MODEL_SERVER_2019,
	MODEL_SERVER_2022,
};

enum model_machine {
	MODEL_MACHINE_64_24,	   /* 88 logical processors: groups of 64, 24 */
	MODEL_MACHINE_2X44,	   /* 88 in two packages: groups of 44, 44 */
	MODEL_MACHINE_4X64,	   /* 256: four groups of 64 */
	MODEL_MACHINE_HYBRID_6P8E, /* 6 P-cores with SMT + 8 E-cores: 20 */
};

struct model_config {
	enum model_version version;
	enum model_machine machine;
	bool on_battery;    /* GetSystemPowerStatus: DC */
	bool battery_saver; /* the effective overlay differs */
	WORD start_group;   /* processes' primary group */
};

#define MODEL_GROUPS_MAX      8
#define MODEL_CPUS_MAX	      (MODEL_GROUPS_MAX * 64)
#define MODEL_THREADS_MAX     4096
#define MODEL_PROCS_MAX	      64
#define MODEL_CPU_SET_ID_BASE 0x100

/* model.c: the state, installed over the table; a reboot keeps what
 * Windows keeps on disk (the registry, power settings) and drops the
 * rest. */
void model_install(const struct model_config *config);
/* The system's own table back. */
void model_uninstall(void);
void model_reboot(void);
const struct model_config *model_config(void);
/* Windows 11 and Server 2022: processes span groups by default. */
bool model_spans_groups(void);
DWORD model_pid_of(HANDLE process);
unsigned model_calls(const char *name); /* calls of one table member */
void model_count(const char *name);

/* model_groups.c: processor groups, affinity, the topology. */
struct model_thread {
	DWORD pid, tid;
	GROUP_AFFINITY affinity;
	ULONG selected[MODEL_CPUS_MAX];
	ULONG selected_count;
	bool restricted; /* to its group (always, before Windows 11) */
};
struct model_process {
	DWORD pid;
	WORD primary;
	ULONG defaults[MODEL_CPUS_MAX];
	ULONG default_count;
	bool throttle_set;
	PROCESS_POWER_THROTTLING_STATE throttle;
	DWORD throttle_refuse; /* SetProcessInformation's next error */
	bool narrowed;	       /* its threads, new ones too, in one group */
	/* model_prio.c: 0 for either is the default a process starts
	 * with (IoPriorityNormal, MEMORY_PRIORITY_NORMAL). */
	ULONG io_hint_set; /* the hint + 1 */
	ULONG memory_priority;
};
WORD model_group_count(void);
BYTE model_group_size(WORD group);
BYTE model_efficiency_class(WORD group, BYTE index);
struct model_process *model_process(DWORD pid);
struct model_thread *model_thread(DWORD pid, DWORD tid);
void model_groups_install(struct winapi *w);
void model_groups_reset(void);
/* The group affinity a thread has now (false: never seen). */
bool model_thread_group(DWORD pid, DWORD tid, GROUP_AFFINITY *affinity);

/* The program narrowed itself: every thread of the process the model
 * knows restricted to one group (what SetProcessAffinityMask or its
 * own SetThreadGroupAffinity calls leave). */
void model_process_narrow(DWORD pid, WORD group);

/* model_version.c: RtlGetVersion's build per version. */
void model_version_install(struct winapi *w);

/* model_cpusets.c */
void model_cpusets_install(struct winapi *w);
ULONG model_process_default_cpu_sets(DWORD pid, ULONG *ids, ULONG max);
ULONG model_thread_cpu_sets(DWORD pid, DWORD tid, ULONG *ids, ULONG max);

/* model_power.c: schemes, AC and DC values, the overlay. */
void model_power_install(struct winapi *w);
void model_power_reset(void);
/* NULL: the setting is not there. */
DWORD *model_power_value(const GUID *scheme, const GUID *sub,
			 const GUID *setting, bool ac);
const GUID *model_power_active(void);
const GUID *model_power_overlay(bool ac); /* the one set, per source */
void model_power_set_overlay(bool ac, const GUID *overlay);
/* A crash at a step: the settings as it left them, kept and put back. */
void model_power_keep(void);
void model_power_put_back(void);
void model_power_missing(const GUID *setting, bool missing);
void model_power_refuse(const GUID *setting, bool refuse);
extern const GUID model_scheme_balanced, model_scheme_high, model_scheme_saver,
	model_sub_processor, model_overlay_none, model_overlay_best_performance,
	model_overlay_better_battery;
/* SUB_PROCESSOR's settings the model has, by name: core parking's two
 * (CPMINCORES, CPMINCORES1 for efficiency class 1), EPP's two, boost. */
enum model_power_setting {
	MODEL_POWER_CPMINCORES,
	MODEL_POWER_CPMINCORES1,
	MODEL_POWER_PERFEPP,
	MODEL_POWER_PERFEPP1,
	MODEL_POWER_PERFBOOSTMODE,
	MODEL_POWER_SETTINGS
};
extern const GUID model_power_settings[MODEL_POWER_SETTINGS];

/* model_throttle.c: ProcessPowerThrottling by version. */
void model_throttle_install(struct winapi *w);
/* false: nothing set for the process. */
bool model_throttle_of(DWORD pid, PROCESS_POWER_THROTTLING_STATE *state);
void model_throttle_refuse(DWORD pid, DWORD error);

/* model_prio.c: ProcessIoPriority (NT) and ProcessMemoryPriority. */
void model_prio_install(struct winapi *w);
ULONG model_io_priority_of(DWORD pid);	   /* an IO_PRIORITY_HINT */
ULONG model_memory_priority_of(DWORD pid); /* a MEMORY_PRIORITY_* */

/* model_registry.c: keys and values; persistent ones outlive a reboot,
 * volatile ones (REG_OPTION_VOLATILE) do not. */
void model_registry_install(struct winapi *w);
void model_registry_reboot(void);
void model_registry_reset(void);
/* A DWORD value under HKEY_LOCAL_MACHINE\path: false when not there. */
bool model_registry_dword(const wchar_t *path, const wchar_t *value,
			  DWORD *out);

/* model_security.c: the owner and DACL of named files and folders and
 * of handles, as SDDL strings. */
void model_security_install(struct winapi *w);
void model_security_reset(void);
void model_security_set(const wchar_t *path, const wchar_t *sddl);
void model_security_handle(HANDLE handle, const wchar_t *sddl);

/* model_pipes.c: instances of named pipes, and the server a client's
 * end names. */
void model_pipes_install(struct winapi *w);
void model_pipes_reset(void);
unsigned model_pipe_instances(const wchar_t *name);
void model_pipe_server(HANDLE client, ULONG pid);

/* model_boot.c: the boot's time (NtQuerySystemInformation,
 * SystemTimeOfDayInformation), another after model_reboot. */
void model_boot_install(struct winapi *w);
void model_boot_reset(void);
void model_boot_reboot(void);
ULONGLONG model_boot_of(void);

/* model_etw.c: sessions by name, the provider enabled, the consumer. */
struct model_etw_session {
	bool started, enabled, opened;
	wchar_t name[128];
	EVENT_TRACE_PROPERTIES props;
	GUID provider;
	UCHAR level;
	ULONGLONG any_keyword;
	unsigned starts, stops;
};
void model_etw_install(struct winapi *w);

/* model_procs.c: the listing of every process and thread, counted as
 * "NtQuerySystemInformation(SystemProcessInformation)", with Windows'
 * base priorities and thread states in it: the asking thread running,
 * those made ready waiting for a processor, the rest waiting. Stateless:
 * as Wine gives it, every thread Initialized and Wine's class numbers. */
void model_procs_install(struct winapi *w);
void model_procs_reset(void);
void model_procs_ready(DWORD tid);
void model_procs_stateless_set(bool stateless);

/* model_cputimes.c: each processor's idle, kernel and user time, the
 * system's until a test advances them: every processor of group 0 busy
 * busy_pct of ms more. */
void model_cputimes_install(struct winapi *w);
void model_cputimes_reset(void);
void model_cputimes_advance(unsigned busy_pct, unsigned ms);
void model_etw_reset(void);
const struct model_etw_session *model_etw_session(void);
/* A record of the enabled provider to the consumer's callback (false:
 * no consumer); a process's start as Kernel-Process reports it. */
bool model_etw_deliver(USHORT id, UCHAR version, const void *data,
		       USHORT length);
bool model_etw_process_start(DWORD pid, DWORD parent);

#endif
