/* The boot: its time, which the backend's statefile_boot_id takes as the
 * boot's ID (NtQuerySystemInformation, SystemTimeOfDayInformation), the
 * same for a whole boot and later after model_reboot. Every other
 * information class goes to the call the table had before. */
#include <string.h>

#include "model.h"

#define MODEL_SYSTEM_TIME_OF_DAY   3
#define MODEL_INFO_LENGTH_MISMATCH ((LONG)0xC0000004)

/* "SystemTimeOfDayInformation: Returns an opaque
 * SYSTEM_TIMEOFDAY_INFORMATION structure that can be used to generate an
 * unpredictable seed for a random number generator."
 * sdk-api-src/content/winternl/nf-winternl-ntquerysysteminformation.md
 * (48 bytes there, Reserved1[48]). Its layout, BootTime first, and the answer
 * to a buffer longer than it (STATUS_INFO_LENGTH_MISMATCH; a shorter one gets
 * its first bytes) are not Microsoft's word: phnt's ntexapi.h
 * (SYSTEM_TIMEOFDAY_INFORMATION) and ReactOS's ntoskrnl/ex/sysinfo.c
 * (QSI_DEF(SystemTimeOfDayInformation)). */
struct model_time_of_day {
	LARGE_INTEGER BootTime, CurrentTime, TimeZoneBias;
	ULONG TimeZoneId, Reserved;
	ULONGLONG BootTimeBias, SleepTimeBias;
};

/* 2024-01-01 00:00 UTC in 100 ns since 1601: a boot of a fixed time, so
 * that two installs are the same boot. */
#define MODEL_FIRST_BOOT 133485408000000000ull

static ULONGLONG model_boot_time = MODEL_FIRST_BOOT;
static LONG(NTAPI *model_boot_next)(ULONG, PVOID, ULONG, PULONG);

static ULONGLONG model_boot_now(void)
{
	FILETIME now;

	GetSystemTimeAsFileTime(&now);
	return (ULONGLONG)now.dwHighDateTime << 32 | now.dwLowDateTime;
}

static LONG NTAPI model_query_system(ULONG cls, PVOID info, ULONG length,
				     PULONG returned)
{
	struct model_time_of_day tod = {0};

	if (cls != MODEL_SYSTEM_TIME_OF_DAY)
		return model_boot_next
			       ? model_boot_next(cls, info, length, returned)
			       : MODEL_INFO_LENGTH_MISMATCH;
	model_count("NtQuerySystemInformation(SystemTimeOfDayInformation)");
	if (length > sizeof(tod))
		return MODEL_INFO_LENGTH_MISMATCH;
	tod.BootTime.QuadPart = (LONGLONG)model_boot_time;
	tod.CurrentTime.QuadPart = (LONGLONG)model_boot_now();
	memcpy(info, &tod, length);
	if (returned)
		*returned = length;
	return 0;
}

void model_boot_install(struct winapi *w)
{
	model_boot_next = w->NtQuerySystemInformation;
	w->NtQuerySystemInformation = model_query_system;
}

void model_boot_reset(void)
{
	model_boot_time = MODEL_FIRST_BOOT;
}

/* A boot begins now, after the one before. */
void model_boot_reboot(void)
{
	ULONGLONG now = model_boot_now();

	model_boot_time = now > model_boot_time ? now : model_boot_time + 1;
}

ULONGLONG model_boot_of(void)
{
	return model_boot_time;
}
