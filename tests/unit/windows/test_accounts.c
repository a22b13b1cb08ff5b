/* The SID table: a SID gets one small number for the life of the
 * process, from a rule's name, a SID string or a token alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include <windows.h>

#include <sddl.h>

#include "win.h"

static unsigned intern_string(const wchar_t *text)
{
	PSID sid = NULL;
	unsigned id = 0;

	assert_true(ConvertStringSidToSidW(text, &sid));
	assert_true(accounts_intern(sid, &id));
	LocalFree(sid);
	return id;
}

static void test_same_sid_same_number(void **state)
{
	unsigned a, b, c;

	(void)state;
	accounts_reset();
	a = intern_string(L"S-1-5-32-544");
	b = intern_string(L"S-1-5-18");
	c = intern_string(L"S-1-5-32-544");
	assert_int_equal(a, 1); /* from 1: a zeroed id is no account */
	assert_int_equal(b, 2);
	assert_int_equal(c, a);
}

static void test_names_and_strings_meet(void **state)
{
	unsigned by_string, by_name, by_group, token;

	(void)state;
	accounts_reset();
	assert_true(accounts_group("S-1-5-32-544", &by_string));
	/* Wine and Windows both know the alias by this name. */
	assert_true(accounts_group("Administrators", &by_name));
	assert_int_equal(by_string, by_name);
	assert_true(accounts_user("s-1-5-18", &token));
	assert_true(accounts_user("SYSTEM", &by_group));
	assert_int_equal(token, by_group);
	assert_int_not_equal(token, by_name);
}

static void test_refused(void **state)
{
	unsigned id = 77;

	(void)state;
	accounts_reset();
	assert_false(accounts_user("", &id));
	assert_false(accounts_user("S-1-x", &id));
	assert_false(accounts_group("no-such-group-cpupolicy", &id));
	assert_false(accounts_intern(NULL, &id));
	assert_int_equal(id, 77);
}

static void test_round_trip(void **state)
{
	unsigned char sid[ACCOUNTS_SID_MAX];
	unsigned id = intern_string(L"S-1-5-21-1-2-3-1001");
	wchar_t *text = NULL;

	(void)state;
	assert_true(accounts_sid(id, sid, sizeof(sid)));
	assert_true(ConvertSidToStringSidW(sid, &text));
	assert_true(wcscmp(text, L"S-1-5-21-1-2-3-1001") == 0);
	LocalFree(text);
	assert_false(accounts_sid(id, sid, 4)); /* does not fit */
	assert_false(accounts_sid(0, sid, sizeof(sid)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_sid_same_number),
		cmocka_unit_test(test_names_and_strings_meet),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_round_trip),
	};

	return unit_run("accounts", (struct unit_table){0}, UNIT_TESTS(tests),
			NULL, NULL);
}
