/* Who else could have written a file the daemon obeys (trust.c), on the
 * system it runs on: a folder and a file under %TEMP% given a security
 * descriptor of each case's, then judged. Under Wine every process has
 * the same token, and the files are the account's own: what a DACL
 * grants is judged here, who holds which token is not (check.ps1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit.h"

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "os.h"
#include "util.h"
#include "win.h"

/* SYSTEM and Administrators full, Users read: what --install sets. */
#define OURS L"(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)"
/* C:\ProgramData's owner and DACL as Windows installs it. */
#define PROGRAMDATA                                                            \
	L"O:SYD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICIIO;GA;;;CO)"           \
	L"(A;OICI;0x1200a9;;;BU)(A;CI;0x116;;;BU)"

enum rights_of {
	RIGHTS_FILE,
	RIGHTS_FOLDER, /* the path itself a folder */
	RIGHTS_PARENT, /* a folder above the path */
};

/* Security descriptors judged as they are: what Wine's files cannot
 * hold (it keeps a DACL as a Unix mode: the owner, Everyone). */
struct sd_case {
	const char *name;
	const wchar_t *sddl;
	enum rights_of rights;
	enum trust_fault fault;
	const char *said; /* in the reason; NULL: nothing to find */
};

static const struct sd_case sd_cases[] = {
	{"the install's own ACL", L"O:BAD:P" OURS, RIGHTS_FILE,
	 TRUST_FAULT_NONE, NULL},
	{"owned by SYSTEM", L"O:SYD:P" OURS, RIGHTS_FILE, TRUST_FAULT_NONE,
	 NULL},
	{"owned by Users", L"O:BUD:P" OURS, RIGHTS_FILE, TRUST_FAULT_OWNER,
	 "owned by S-1-5-32-545"},
	{"owned by a user", L"O:S-1-5-21-1-2-3-1001D:P" OURS, RIGHTS_PARENT,
	 TRUST_FAULT_OWNER, "owned by S-1-5-21-1-2-3-1001"},
	{"a file Everyone may write", L"O:BAD:P" OURS L"(A;;FA;;;WD)",
	 RIGHTS_FILE, TRUST_FAULT_WRITABLE, "writable by S-1-1-0"},
	{"a file Users may append to", L"O:BAD:P" OURS L"(A;;0x4;;;BU)",
	 RIGHTS_FILE, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-32-545 (BUILTIN\\Users) (rights 0x4)"},
	{"a file Users may give away (WRITE_DAC)",
	 L"O:BAD:P" OURS L"(A;;WD;;;BU)", RIGHTS_FILE, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-32-545"},
	{"a file Users may take (WRITE_OWNER)", L"O:BAD:P" OURS L"(A;;WO;;;BU)",
	 RIGHTS_FILE, TRUST_FAULT_WRITABLE, "writable by S-1-5-32-545"},
	{"a file Users may delete", L"O:BAD:P" OURS L"(A;;SD;;;BU)",
	 RIGHTS_FILE, TRUST_FAULT_WRITABLE, "writable by S-1-5-32-545"},
	{"GENERIC_WRITE for Authenticated Users",
	 L"O:BAD:P" OURS L"(A;;GW;;;AU)", RIGHTS_FILE, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-11"},
	{"a deny entry is not relied on",
	 L"O:BAD:P(D;;FA;;;WD)" OURS L"(A;;FA;;;WD)", RIGHTS_FILE,
	 TRUST_FAULT_WRITABLE, "writable by S-1-1-0"},
	{"no DACL at all (everyone has every right)", L"O:BA", RIGHTS_FILE,
	 TRUST_FAULT_WRITABLE, "no DACL"},
	{"an entry only for what is made later",
	 L"O:BAD:P" OURS L"(A;OICIIO;FA;;;WD)", RIGHTS_FOLDER, TRUST_FAULT_NONE,
	 NULL},
	/* C:\ProgramData: Users may add files and folders (CI: this folder
	 * and the folders below), CREATOR OWNER gets what they add (IO). */
	{"above the path, C:\\ProgramData's ACL: users may add",
	 L"O:SYD:P" OURS L"(A;CI;0x116;;;BU)(A;OICIIO;FA;;;CO)", RIGHTS_PARENT,
	 TRUST_FAULT_NONE, NULL},
	{"the same ACL on the rules folder itself",
	 L"O:SYD:P" OURS L"(A;CI;0x116;;;BU)(A;OICIIO;FA;;;CO)", RIGHTS_FOLDER,
	 TRUST_FAULT_WRITABLE, "writable by S-1-5-32-545"},
	{"above the path, users may remove what is in it",
	 L"O:SYD:P" OURS L"(A;;0x40;;;BU)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "(rights 0x40)"},
	/* Its own DELETE: what would replace it is judged on its own
	 * (trust.c); the path itself may not be deleted or renamed. */
	{"above the path, users may rename that folder itself",
	 L"O:SYD:P" OURS L"(A;;SD;;;BU)", RIGHTS_PARENT, TRUST_FAULT_NONE,
	 NULL},
	{"the path itself users may delete or rename",
	 L"O:SYD:P" OURS L"(A;;SD;;;BU)", RIGHTS_FOLDER, TRUST_FAULT_WRITABLE,
	 "(rights 0x10000)"},
	{"a file users may delete or rename", L"O:BAD:P" OURS L"(A;;SD;;;BU)",
	 RIGHTS_FILE, TRUST_FAULT_WRITABLE, "(rights 0x10000)"},
	{"above the path, users hold GENERIC_ALL",
	 L"O:SYD:P" OURS L"(A;;GA;;;BU)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-32-545"},
	{"above the path, users may take it (WRITE_OWNER)",
	 L"O:SYD:P" OURS L"(A;;WO;;;BU)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-32-545"},
	/* C:\ProgramData as Windows ships it (icacls: SYSTEM and
	 * Administrators (OI)(CI)(F), CREATOR OWNER (OI)(CI)(IO)(F), Users
	 * (OI)(CI)(RX) and (CI)(WD,AD,WEA,WA)), above the state folder. */
	{"C:\\ProgramData as shipped, above the state folder", PROGRAMDATA,
	 RIGHTS_PARENT, TRUST_FAULT_NONE, NULL},
	/* Loosened by another installer: Users Modify (M: RX, W and
	 * DELETE) on it and all below, or Write (W) on it and all below. */
	{"C:\\ProgramData with Users: Modify, above the state folder",
	 PROGRAMDATA L"(A;OICI;0x1301bf;;;BU)", RIGHTS_PARENT, TRUST_FAULT_NONE,
	 NULL},
	{"C:\\ProgramData with Users: Write, above the state folder",
	 PROGRAMDATA L"(A;OICI;0x100116;;;BU)", RIGHTS_PARENT, TRUST_FAULT_NONE,
	 NULL},
	{"C:\\ProgramData with Everyone: Full control, above it",
	 PROGRAMDATA L"(A;OICI;FA;;;WD)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "writable by S-1-1-0"},
	{"C:\\ProgramData with Users: delete subfolders and files",
	 PROGRAMDATA L"(A;CI;0x40;;;BU)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "(rights 0x40)"},
	/* The state folder itself (C:\ProgramData\cpupolicy\state), judged
	 * as the path: an ACL inherited from a loosened ProgramData, one
	 * that lets users delete it, and the one statefile.c gives it. */
	{"the state folder with ProgramData's Users: Modify inherited",
	 L"O:SYD:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)"
	 L"(A;OICIID;0x1301bf;;;BU)",
	 RIGHTS_FOLDER, TRUST_FAULT_WRITABLE, "writable by S-1-5-32-545"},
	{"the state folder with ProgramData's ACL inherited",
	 L"O:SYD:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)"
	 L"(A;OICIIOID;GA;;;CO)(A;OICIID;0x1200a9;;;BU)(A;CIID;0x116;;;BU)",
	 RIGHTS_FOLDER, TRUST_FAULT_WRITABLE, "(rights 0x106)"},
	{"the state folder users may delete",
	 L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;;0x110000;;;BU)",
	 RIGHTS_FOLDER, TRUST_FAULT_WRITABLE, "(rights 0x10000)"},
	{"the state folder as statefile.c makes it",
	 L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", RIGHTS_FOLDER,
	 TRUST_FAULT_NONE, NULL},
	{"above the path, users may rewrite its DACL",
	 L"O:SYD:P" OURS L"(A;;WD;;;BU)", RIGHTS_PARENT, TRUST_FAULT_WRITABLE,
	 "writable by S-1-5-32-545"},
	{"C:\\'s ACL: Authenticated Users add folders, modify below (IO)",
	 L"O:S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
	 L"D:P" OURS L"(A;;0x4;;;AU)(A;OICIIO;SDGXGWGR;;;AU)",
	 RIGHTS_PARENT, TRUST_FAULT_NONE, NULL},
	{"OWNER RIGHTS and CREATOR OWNER on the object itself",
	 L"O:BAD:P" OURS L"(A;;FA;;;OW)(A;;FA;;;CO)", RIGHTS_FILE,
	 TRUST_FAULT_NONE, NULL},
};

static void test_sd_case(void **state)
{
	static const DWORD rights[] = {
		[RIGHTS_FILE] = TRUST_FILE_WRITE,
		[RIGHTS_FOLDER] = TRUST_DIR_WRITE,
		[RIGHTS_PARENT] = TRUST_PARENT_WRITE,
	};
	const struct sd_case *c = *state;
	PSECURITY_DESCRIPTOR sd = NULL;
	BOOL present = FALSE, defaulted = FALSE;
	PSID owner = NULL;
	PACL dacl = NULL;
	char why[512] = "";
	enum trust_fault fault;

	assert_true(ConvertStringSecurityDescriptorToSecurityDescriptorW(
		c->sddl, SDDL_REVISION_1, &sd, NULL));
	assert_true(GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted));
	assert_true(GetSecurityDescriptorOwner(sd, &owner, &defaulted));
	fault = trust_sd_fault(owner, present ? dacl : NULL, rights[c->rights],
			       why, sizeof(why));
	LocalFree(sd);
	if (fault != c->fault)
		fail_msg("fault %d, expected %d: %s", fault, c->fault, why);
	if (c->said && !strstr(why, c->said))
		fail_msg("'%s' not in: %s", c->said, why);
}

/* A callback entry (a conditional one: Wine's SDDL cannot say it) is
 * judged as the allow entry it may be; one of a layout not known is not
 * judged, but refused. Made by hand: header, mask, Everyone's SID. */
static void test_sd_callback(void **state)
{
	static const BYTE types[] = {ACCESS_ALLOWED_CALLBACK_ACE_TYPE,
				     ACCESS_ALLOWED_OBJECT_ACE_TYPE};
	static const char *const said[] = {"writable by S-1-1-0",
					   "cannot be judged"};
	union {
		ACL acl;
		BYTE bytes[256];
	} u;
	BYTE ace[64] = {0}, everyone[SECURITY_MAX_SID_SIZE];
	DWORD sid_len = sizeof(everyone);
	PSID owner = NULL;
	char why[512];

	(void)state;
	assert_true(CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL,
				       ace + 32, &sid_len));
	owner = (PSID)(ace + 32);
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		ACE_HEADER *h = (ACE_HEADER *)ace;
		DWORD mask = FILE_ALL_ACCESS, len = sizeof(everyone);

		assert_true(
			CreateWellKnownSid(WinWorldSid, NULL, everyone, &len));
		assert_true(InitializeAcl(&u.acl, sizeof(u), ACL_REVISION_DS));
		h->AceType = types[i];
		h->AceFlags = 0;
		h->AceSize = (WORD)(sizeof(*h) + sizeof(mask) + len);
		memcpy(ace + sizeof(*h), &mask, sizeof(mask));
		memcpy(ace + sizeof(*h) + sizeof(mask), everyone, len);
		assert_true(AddAce(&u.acl, ACL_REVISION_DS, MAXDWORD, ace,
				   h->AceSize));
		assert_int_equal(trust_sd_fault(owner, &u.acl, TRUST_FILE_WRITE,
						why, sizeof(why)),
				 TRUST_FAULT_WRITABLE);
		if (!strstr(why, said[i]))
			fail_msg("'%s' not in: %s", said[i], why);
	}
}

/* And the walk on files, with what Wine keeps: Everyone's rights. */
struct trust_case {
	const char *name;
	/* SDDL of the folder and of the file in it (NULL: as made); a
	 * DACL only, protected: nothing inherited from %TEMP%. */
	const wchar_t *folder, *file;
	bool judge_folder; /* the folder is the path, not the file */
	enum os_status status;
	const char *said; /* in the message; NULL: nothing to find */
};

static const struct trust_case trust_cases[] = {
	{"the install's own ACL", L"D:P" OURS, L"D:P" OURS, false, OS_OK, NULL},
	{"a file Everyone may write", L"D:P" OURS, L"D:P" OURS L"(A;;FA;;;WD)",
	 false, OS_DENIED, "writable by S-1-1-0"},
	{"the fix for it", L"D:P" OURS, L"D:P" OURS L"(A;;FA;;;WD)", false,
	 OS_DENIED, "(fix: icacls \""},
	{"a folder above Everyone may write", L"D:P" OURS L"(A;OICI;FA;;;WD)",
	 NULL, false, OS_DENIED, "cpupolicy-trust-"},
	{"the folder itself Everyone may write",
	 L"D:P" OURS L"(A;OICI;FA;;;WD)", NULL, true, OS_DENIED,
	 "writable by S-1-1-0"},
};

static wchar_t folder[MAX_PATH], file[MAX_PATH];

static void set_sddl(const wchar_t *path, const wchar_t *sddl)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	BOOL present = FALSE, defaulted = FALSE;
	PACL dacl = NULL;

	assert_true(ConvertStringSecurityDescriptorToSecurityDescriptorW(
		sddl, SDDL_REVISION_1, &sd, NULL));
	assert_true(GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted));
	assert_int_equal(SetNamedSecurityInfoW(
				 (wchar_t *)path, SE_FILE_OBJECT,
				 DACL_SECURITY_INFORMATION |
					 PROTECTED_DACL_SECURITY_INFORMATION,
				 NULL, NULL, present ? dacl : NULL, NULL),
			 ERROR_SUCCESS);
	LocalFree(sd);
}

static void make_pair(void)
{
	HANDLE h;

	GetTempPathW(MAX_PATH, folder);
	_snwprintf(folder + wcslen(folder), MAX_PATH - wcslen(folder),
		   L"cpupolicy-trust-%lu",
		   (unsigned long)GetCurrentProcessId());
	_snwprintf(file, MAX_PATH, L"%ls\\a.rules", folder);
	CreateDirectoryW(folder, NULL);
	h = CreateFileW(file, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	assert_true(h != INVALID_HANDLE_VALUE);
	CloseHandle(h);
}

static void remove_pair(void)
{
	set_sddl(file, L"D:P" OURS);
	set_sddl(folder, L"D:P" OURS);
	DeleteFileW(file);
	RemoveDirectoryW(folder);
}

static void test_trust_case(void **state)
{
	const struct trust_case *c = *state;
	char path[MAX_PATH * 3], why[4096] = "";
	enum os_status status;

	make_pair();
	/* Wine keeps a DACL as the file's mode, where it ignores one given
	 * to CreateFileW: each is set after the file is made. */
	if (c->file)
		set_sddl(file, c->file);
	if (c->folder)
		set_sddl(folder, c->folder);
	assert_true(system_utf8(c->judge_folder ? folder : file, path,
				sizeof(path)));
	status = trust_path(path, why, sizeof(why));
	remove_pair();
	if (status != c->status)
		fail_msg("%s: status %d, expected %d: %s", path, status,
			 c->status, why);
	if (c->said && !strstr(why, c->said))
		fail_msg("'%s' not in: %s", c->said, why);
}

static void test_trust_gone(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(
		trust_path("C:\\no-such-folder\\x.rules", why, sizeof(why)),
		OS_GONE);
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(trust_cases) + 2] = {
		cmocka_unit_test(test_trust_gone),
		cmocka_unit_test(test_sd_callback),
	};

	for (size_t i = 0; i < ARRAY_SIZE(trust_cases); i++)
		tests[i + 2] = (struct CMUnitTest){
			.name = trust_cases[i].name,
			.test_func = test_trust_case,
			.initial_state = (void *)&trust_cases[i],
		};

	return unit_run("trust", UNIT_TABLE(sd_cases, test_sd_case),
			UNIT_TESTS(tests), NULL, NULL);
}
