/* Windows: accounts by name (DOMAIN\name or name, LookupAccountNameW) or
 * SID string (S-1-5-..., ConvertStringSidToSidW), and the table that gives
 * each SID the small number the core holds for a user or group id. The
 * same SID gets the same number for the life of the process, whether it
 * came from a rule or from a process's token (procinfo.c), so comparing
 * numbers compares SIDs. One thread uses it: the daemon's loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <sddl.h>

#include "util.h"
#include "win.h"

struct accounts_entry {
	unsigned char sid[ACCOUNTS_SID_MAX];
};

static struct accounts_entry *accounts_table;
static size_t accounts_count;

bool accounts_intern(const void *sid, unsigned *id)
{
	PSID p = (PSID)sid;
	DWORD len;

	if (!p || !IsValidSid(p))
		return false;
	len = GetLengthSid(p);
	if (len > ACCOUNTS_SID_MAX)
		return false;
	for (size_t i = 0; i < accounts_count; i++) {
		if (EqualSid(accounts_table[i].sid, p)) {
			*id = (unsigned)i + 1;
			return true;
		}
	}
	/* Bounded: a table that large means something hands us endless
	 * made-up SIDs; refuse rather than grow without end. */
	if (accounts_count >= 1u << 20)
		return false;
	accounts_table = xreallocarray(accounts_table, accounts_count + 1,
				       sizeof(*accounts_table));
	memset(&accounts_table[accounts_count], 0, sizeof(*accounts_table));
	memcpy(accounts_table[accounts_count].sid, p, len);
	*id = (unsigned)++accounts_count;
	return true;
}

bool accounts_sid(unsigned id, void *sid, size_t size)
{
	DWORD len;

	if (id == 0 || id > accounts_count)
		return false;
	len = GetLengthSid(accounts_table[id - 1].sid);
	if (len > size)
		return false;
	memcpy(sid, accounts_table[id - 1].sid, len);
	return true;
}

/* DOMAIN\name, else the SID as a string: for messages. */
void accounts_text(const void *sid, char *out, size_t size)
{
	wchar_t name[128], domain[128], text[300], *str;
	DWORD name_len = ARRAYSIZE(name), domain_len = ARRAYSIZE(domain);
	SID_NAME_USE use;

	snprintf(out, size, "an unknown account");
	if (LookupAccountSidW(NULL, (PSID)sid, name, &name_len, domain,
			      &domain_len, &use)) {
		_snwprintf(text, ARRAYSIZE(text), L"%ls%ls%ls", domain,
			   domain[0] ? L"\\" : L"", name);
		text[ARRAYSIZE(text) - 1] = L'\0';
		system_utf8(text, out, size);
	} else if (ConvertSidToStringSidW((PSID)sid, &str)) {
		system_utf8(str, out, size);
		LocalFree(str);
	}
}

void accounts_reset(void)
{
	free(accounts_table);
	accounts_table = NULL;
	accounts_count = 0;
}

static bool accounts_from_string(const wchar_t *name, unsigned *id)
{
	PSID sid = NULL;
	bool ok;

	if (!ConvertStringSidToSidW(name, &sid))
		return false;
	ok = accounts_intern(sid, id);
	LocalFree(sid);
	return ok;
}

/* A name as LookupAccountNameW resolves it, of one of the kinds wanted
 * (a user, or a group: a domain group, a local alias like Administrators,
 * a well-known group like Everyone). */
static bool accounts_lookup(const char *name, bool group, unsigned *id)
{
	unsigned char sid[ACCOUNTS_SID_MAX];
	wchar_t domain[256];
	DWORD sid_len = sizeof(sid), domain_len = ARRAYSIZE(domain);
	SID_NAME_USE use;
	wchar_t *wide;
	bool ok = false;

	if (!name[0])
		return false;
	wide = system_wide_dup(name);
	if (!wide)
		return false;
	if ((wide[0] == L'S' || wide[0] == L's') && wide[1] == L'-') {
		ok = accounts_from_string(wide, id);
		free(wide);
		return ok;
	}
	if (LookupAccountNameW(NULL, wide, sid, &sid_len, domain, &domain_len,
			       &use)) {
		switch (use) {
		case SidTypeUser:
			ok = !group;
			break;
		case SidTypeGroup:
		case SidTypeAlias:
			ok = group;
			break;
		case SidTypeWellKnownGroup:
			/* SYSTEM, LOCAL SERVICE: users that are
			 * well-known SIDs; Everyone: a group. */
			ok = true;
			break;
		default:
			break;
		}
		ok = ok && accounts_intern(sid, id);
	}
	free(wide);
	return ok;
}

bool accounts_user(const char *name, unsigned *id)
{
	return accounts_lookup(name, false, id);
}

bool accounts_group(const char *name, unsigned *id)
{
	return accounts_lookup(name, true, id);
}

/* The NT authority's (5) well-known accounts of the system: LocalSystem
 * S-1-5-18, LocalService S-1-5-19, NetworkService S-1-5-20, and the
 * virtual accounts of services (S-1-5-80-...), of the window manager
 * (S-1-5-90-..., DWM) and of the font driver host (S-1-5-96-...)
 * (learn.microsoft.com, "Well-known SIDs" and "Service accounts"). */
bool accounts_system(unsigned id)
{
	static const SID_IDENTIFIER_AUTHORITY nt = {SECURITY_NT_AUTHORITY};
	static const DWORD system_rids[] = {18, 19, 20, 80, 90, 96};
	unsigned char sid[ACCOUNTS_SID_MAX];
	PSID p = (PSID)sid;
	DWORD first;

	if (!accounts_sid(id, sid, sizeof(sid)) ||
	    memcmp(GetSidIdentifierAuthority(p), &nt, sizeof(nt)) != 0 ||
	    *GetSidSubAuthorityCount(p) < 1)
		return false;
	first = *GetSidSubAuthority(p, 0);
	for (size_t i = 0; i < ARRAY_SIZE(system_rids); i++) {
		if (first == system_rids[i])
			return true;
	}
	return false;
}
