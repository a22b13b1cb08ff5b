/* The system's version: the build each modelled Windows reports, which
 * the backend reads (system_build) to know whether processes span
 * processor groups by default. */
#include "model.h"

/* Builds from Microsoft's release information: Windows 10 22H2 19045,
 * Windows 11 24H2 26100
 * (https://learn.microsoft.com/windows/release-health/release-information,
 * .../windows11-release-information), Server 2019 17763 and Server
 * 2022 20348
 * (https://learn.microsoft.com/windows/release-health/windows-server-release-info).
 */
static DWORD model_build(void)
{
	switch (model_config()->version) {
	case MODEL_WINDOWS_10_22H2:
		return 19045;
	case MODEL_WINDOWS_11_24H2:
		return 26100;
	case MODEL_SERVER_2019:
		return 17763;
	case MODEL_SERVER_2022:
		return 20348;
	}
	return 0;
}

/* "Returns STATUS_SUCCESS" and fills the version of the running system,
 * whatever the caller's manifest says.
 * https://learn.microsoft.com/windows-hardware/drivers/ddi/wdm/nf-wdm-rtlgetversion
 */
static LONG NTAPI model_rtl_get_version(OSVERSIONINFOW *v)
{
	model_count("RtlGetVersion");
	v->dwMajorVersion = 10;
	v->dwMinorVersion = 0;
	v->dwBuildNumber = model_build();
	v->dwPlatformId = VER_PLATFORM_WIN32_NT;
	return 0;
}

void model_version_install(struct winapi *w)
{
	w->RtlGetVersion = model_rtl_get_version;
}
