/* The daemon's own IFEO writer (policyd/windows/ifeo.c) on the model of
 * Windows's registry: PerfOptions written for a rule's literal exe, its
 * record kept in the daemon's key, both outliving a reboot (a crash
 * while the values hold), and every value given back after it — by the
 * next start with the rule gone, and by --uninstall — with what was
 * there before the daemon, and what someone changed since, kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include "diag.h"
#include "log.h"
#include "model.h"
#include "rules.h"
#include "rulesfix.h"
#include "../../../policyd/windows/internal.h"

#define IFEO                                                                   \
	L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File "        \
	L"Execution Options\\"
#define LOWER	    IFEO L"lower.exe\\PerfOptions"
#define SLOW	    IFEO L"slow.exe\\PerfOptions"
#define RECORDS	    L"SOFTWARE\\cpupolicy\\PerfOptions"
#define CPU_CLASS   L"CpuPriorityClass"
#define IO_PRIORITY L"IoPriority"

/* lower.exe below normal (class only, by default); slow.exe idle with
 * its I/O priority too. */
static const char rule_text[] =
	"version = 1;\n"
	"rules = (\n"
	"  { name = \"lower\"; match = { exe = \"C:\\\\Tools\\\\lower.exe\"; "
	"};\n"
	"    priority = { class = \"below-normal\"; }; },\n"
	"  { name = \"slow\"; match = { exe = \"C:\\\\Tools\\\\slow.exe\"; };\n"
	"    priority = { class = \"idle\"; ifeo = \"class+io\"; }; }\n"
	");\n";

static void rules_of(struct rules *rules)
{
	rulesfix_load(rules, RULES_SYSTEM_WINDOWS, rule_text);
	assert_int_equal(rules->count, 2);
}

static void daemon_of(struct daemon *d)
{
	memset(d, 0, sizeof(*d));
	d->conf.ifeo_mode = IFEO_MODE_LOWERING;
}

/* A value somebody else put there before the daemon ever ran. */
static void put_dword(const wchar_t *path, const wchar_t *name, DWORD v)
{
	HKEY key;

	assert_int_equal(winapi.RegCreateKeyExW(HKEY_LOCAL_MACHINE, path, 0,
						NULL, 0, KEY_SET_VALUE, NULL,
						&key, NULL),
			 ERROR_SUCCESS);
	assert_int_equal(winapi.RegSetValueExW(key, name, 0, REG_DWORD,
					       (const BYTE *)&v, sizeof(v)),
			 ERROR_SUCCESS);
	winapi.RegCloseKey(key);
}

static DWORD dword_of(const wchar_t *path, const wchar_t *name)
{
	DWORD v = 0xdead;

	assert_true(model_registry_dword(path, name, &v));
	return v;
}

static bool key_there(const wchar_t *path)
{
	HKEY key;

	if (winapi.RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0, KEY_QUERY_VALUE,
				 &key) != ERROR_SUCCESS)
		return false;
	winapi.RegCloseKey(key);
	return true;
}

static DWORD record_count(void)
{
	DWORD values = 0;
	HKEY key;

	if (winapi.RegOpenKeyExW(HKEY_LOCAL_MACHINE, RECORDS, 0,
				 KEY_QUERY_VALUE, &key) != ERROR_SUCCESS)
		return 0;
	winapi.RegQueryInfoKeyW(key, NULL, NULL, NULL, NULL, NULL, NULL,
				&values, NULL, NULL, NULL, NULL);
	winapi.RegCloseKey(key);
	return values;
}

/* The rules written, then the machine rebooted with them in force: the
 * values and their records are still there (persistent keys). */
static void written_then_reboot(enum model_version version, struct daemon *d,
				struct rules *rules)
{
	struct model_config c = {.version = version,
				 .machine = MODEL_MACHINE_HYBRID_6P8E};

	model_install(&c);
	put_dword(LOWER, CPU_CLASS, 2); /* normal, somebody else's */
	put_dword(LOWER, IO_PRIORITY, 2);
	daemon_of(d);
	rules_of(rules);
	ifeo_sync(d, rules);
	assert_int_equal(dword_of(LOWER, CPU_CLASS), 5);
	assert_int_equal(dword_of(LOWER, IO_PRIORITY), 2);
	assert_int_equal(dword_of(SLOW, CPU_CLASS), 1);
	assert_int_equal(dword_of(SLOW, IO_PRIORITY), 0);
	assert_int_equal(record_count(), 2);
	/* The record reached the disk before the value it names. */
	assert_true(model_calls("RegFlushKey") >= 2);
	model_reboot();
	assert_int_equal(dword_of(LOWER, CPU_CLASS), 5);
	assert_int_equal(dword_of(SLOW, CPU_CLASS), 1);
	assert_int_equal(record_count(), 2);
	rules_free(rules);
}

/* The start after the reboot, with no rule for them any more: each
 * value back as it was before the daemon, its keys gone where the
 * daemon made them. */
static void test_start_gives_back(void **state)
{
	struct daemon d;
	struct rules rules;
	DWORD v;

	(void)state;
	written_then_reboot(MODEL_WINDOWS_10_22H2, &d, &rules);
	ifeo_sync(&d, NULL);
	assert_int_equal(dword_of(LOWER, CPU_CLASS), 2);
	assert_int_equal(dword_of(LOWER, IO_PRIORITY), 2);
	assert_false(model_registry_dword(SLOW, IO_PRIORITY, &v));
	assert_false(key_there(SLOW));
	assert_false(key_there(IFEO L"slow.exe"));
	assert_int_equal(record_count(), 0);
	model_uninstall();
}

/* --uninstall after a reboot: the same, and the daemon's own keys go;
 * a value changed by someone else since the daemon wrote it stays. */
static void test_uninstall_gives_back(void **state)
{
	struct daemon d;
	struct rules rules;

	(void)state;
	written_then_reboot(MODEL_SERVER_2022, &d, &rules);
	put_dword(SLOW, CPU_CLASS, 3); /* an administrator's, since */
	assert_int_equal(ifeo_remove_all(), 0);
	assert_int_equal(dword_of(LOWER, CPU_CLASS), 2);
	assert_int_equal(dword_of(SLOW, CPU_CLASS), 3);
	assert_int_equal(record_count(), 0);
	assert_false(key_there(RECORDS));
	assert_false(key_there(L"SOFTWARE\\cpupolicy"));
	model_uninstall();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_gives_back),
		cmocka_unit_test(test_uninstall_gives_back),
	};

	log_init("test_model_ifeo", LOG_LEVEL_ERROR);
	return unit_run("model_ifeo", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
