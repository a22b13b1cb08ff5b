/* The model's state and its installation over winapi.h's table (the
 * real table first, so that what the model leaves alone is the
 * system's), its reboot and the count of calls each member took. */
#include <string.h>

#include "model.h"

static struct model_config model_cfg;

static struct {
	const char *name;
	unsigned count;
} model_counts[64];

void model_count(const char *name)
{
	for (size_t i = 0; i < ARRAYSIZE(model_counts); i++) {
		if (!model_counts[i].name)
			model_counts[i].name = name;
		if (strcmp(model_counts[i].name, name) == 0) {
			model_counts[i].count++;
			return;
		}
	}
}

unsigned model_calls(const char *name)
{
	for (size_t i = 0; i < ARRAYSIZE(model_counts); i++) {
		if (model_counts[i].name &&
		    strcmp(model_counts[i].name, name) == 0)
			return model_counts[i].count;
	}
	return 0;
}

/* The process a handle names. GetProcessId needs a query right, which a
 * handle opened only to set (PROCESS_SET_LIMITED_INFORMATION, as for
 * SetProcessDefaultCpuSets) lacks: the model asks through a duplicate
 * with that right, as Windows itself needs no right to know. */
DWORD model_pid_of(HANDLE process)
{
	DWORD pid = GetProcessId(process);
	HANDLE q;

	if (pid ||
	    !DuplicateHandle(GetCurrentProcess(), process, GetCurrentProcess(),
			     &q, PROCESS_QUERY_LIMITED_INFORMATION, FALSE, 0))
		return pid;
	pid = GetProcessId(q);
	CloseHandle(q);
	return pid;
}

const struct model_config *model_config(void)
{
	return &model_cfg;
}

/* "Starting with Windows 11 and Windows Server 2022, it is no longer the
 * case that applications are constrained by default to a single
 * processor group. Instead, processes and their threads have processor
 * affinities that by default span all processors in the system, across
 * multiple groups on machines with more than 64 processors."
 * https://learn.microsoft.com/windows/win32/procthread/processor-groups */
bool model_spans_groups(void)
{
	return model_cfg.version == MODEL_WINDOWS_11_24H2 ||
	       model_cfg.version == MODEL_SERVER_2022;
}

/* What a boot starts with: no process, thread, session or pipe known. */
static void model_volatile_reset(void)
{
	model_groups_reset();
	model_etw_reset();
	model_pipes_reset();
	model_procs_reset();
	model_cputimes_reset();
	memset(model_counts, 0, sizeof(model_counts));
}

/* The system's own table, taken at the first install: each install
 * starts from it, so that what the model leaves to the system is the
 * system's however often a test installs. */
static struct winapi model_real;
static bool model_have_real;

void model_install(const struct model_config *config)
{
	winapi_init();
	if (!model_have_real) {
		model_real = winapi;
		model_have_real = true;
	}
	winapi = model_real;
	model_cfg = *config;
	model_volatile_reset();
	model_power_reset();
	model_registry_reset();
	model_boot_reset();
	model_security_reset();
	model_groups_install(&winapi);
	model_cpusets_install(&winapi);
	model_power_install(&winapi);
	model_throttle_install(&winapi);
	model_prio_install(&winapi); /* after throttle: it chains to it */
	model_registry_install(&winapi);
	model_security_install(&winapi);
	model_pipes_install(&winapi);
	model_etw_install(&winapi);
	model_version_install(&winapi);
	model_boot_install(&winapi);
	model_cputimes_install(&winapi);
	model_procs_install(&winapi); /* after cputimes: it chains to it */
}

void model_uninstall(void)
{
	if (model_have_real)
		winapi = model_real;
}

/* A restart: the registry's persistent keys stay (power settings are
 * kept there too: "Power settings are stored in the registry",
 * https://learn.microsoft.com/windows-hardware/customize/power-settings/configure-power-settings),
 * volatile keys go ("the information is stored in memory and is not
 * preserved when the corresponding registry hive is unloaded",
 * sdk-api-src/content/winreg/nf-winreg-regcreatekeyexw.md), and so does
 * every process's state: its CPU Sets, affinity and throttling. The
 * boot's time is another (model_boot.c). */
void model_reboot(void)
{
	model_volatile_reset();
	model_registry_reboot();
	model_boot_reboot();
}
