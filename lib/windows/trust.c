/* Windows: whether anyone but SYSTEM and Administrators could have
 * changed what a file the daemon obeys says (trust_path, os.h), by
 * owners and DACLs: the file and every folder from the volume's root
 * down to it, by the path given and by the path it resolves to. Only
 * SYSTEM, Administrators, TrustedInstaller (which owns C:\ and the
 * system's folders) and the account this process runs as (the service's
 * is SYSTEM) may own them or hold a right that changes them. A folder
 * above is judged by whether others may remove or rename what is in it
 * (FILE_DELETE_CHILD), or rewrite its DACL or owner to give themselves
 * that; the path itself also by DELETE, which removes or renames it.
 * Adding is not judged: C:\ProgramData lets users add folders, which
 * stay theirs (CREATOR OWNER), as /tmp's sticky bit does. Nor is the
 * DELETE of a folder above: another installer's "Users: Modify" on
 * C:\ProgramData lets users rename it away, but whatever they then put
 * in its place is a folder they made, owned by them (refused by the
 * owner check), or an existing folder moved there, whose content is
 * judged as any other: at worst the service refuses to start, it never
 * obeys what they wrote. What they cannot do is change what a trusted
 * folder holds. Both ACLs are accepted.
 * The state directory's check (statefile.c) and the install's
 * takeover (policyd/windows/install.c) judge with the same helpers.
 *
 * The calls, as Microsoft documents them:
 * GetNamedSecurityInfoW and GetSecurityInfo (aclapi.h) give a copy of
 * an object's security descriptor, owner and DACL:
 * https://learn.microsoft.com/en-us/windows/win32/api/aclapi/nf-aclapi-getnamedsecurityinfow
 * https://learn.microsoft.com/en-us/windows/win32/api/aclapi/nf-aclapi-getsecurityinfo
 * GetAce walks the DACL; each entry opens with an ACE_HEADER whose
 * AceType says its layout and whose AceFlags say whether it applies to
 * the object itself (INHERIT_ONLY_ACE: it does not):
 * https://learn.microsoft.com/en-us/windows/win32/api/securitybaseapi/nf-securitybaseapi-getace
 * https://learn.microsoft.com/en-us/windows/win32/api/winnt/ns-winnt-ace_header
 * ACCESS_ALLOWED_ACE and ACCESS_ALLOWED_CALLBACK_ACE share a layout
 * (Mask, then the SID); the object ACEs are for directory objects:
 * https://learn.microsoft.com/en-us/windows/win32/api/winnt/ns-winnt-access_allowed_ace
 * https://learn.microsoft.com/en-us/windows/win32/api/winnt/ns-winnt-access_allowed_callback_ace
 * The rights of files and folders (FILE_ADD_FILE is FILE_WRITE_DATA,
 * FILE_ADD_SUBDIRECTORY is FILE_APPEND_DATA on a folder):
 * https://learn.microsoft.com/en-us/windows/win32/fileio/file-access-rights-constants
 * GetFinalPathNameByHandleW names the file a path resolves to, through
 * junctions and symbolic links:
 * https://learn.microsoft.com/en-us/windows/win32/api/fileapi/nf-fileapi-getfinalpathnamebyhandlew
 * A deny entry only takes rights away: it is not needed to refuse, and
 * not relied on to accept. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "util.h"
#include "win.h"
#include "winapi.h"

/* The account this process runs as, for the owner and ACE checks. */
static bool trust_is_self(PSID sid)
{
	union {
		TOKEN_USER user;
		unsigned char bytes[sizeof(TOKEN_USER) + ACCOUNTS_SID_MAX];
	} u;
	HANDLE token;
	DWORD len;
	bool self = false;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return false;
	if (GetTokenInformation(token, TokenUser, &u, sizeof(u), &len))
		self = EqualSid(u.user.User.Sid, sid);
	CloseHandle(token);
	return self;
}

static bool trust_is_sid(PSID sid, const wchar_t *text)
{
	PSID other = NULL;
	bool same;

	if (!ConvertStringSidToSidW(text, &other))
		return false;
	same = EqualSid(sid, other);
	LocalFree(other);
	return same;
}

bool trust_sid_trusted(PSID sid)
{
	return IsWellKnownSid(sid, WinLocalSystemSid) ||
	       IsWellKnownSid(sid, WinBuiltinAdministratorsSid) ||
	       trust_is_self(sid) ||
	       /* NT SERVICE\TrustedInstaller owns C:\ and system folders. */
	       trust_is_sid(sid, L"S-1-5-80-956008885-3418522649-1831038044-"
				 L"1853292631-2271478464");
}

/* An entry for one of these grants nobody else anything on the object
 * itself: CREATOR OWNER and CREATOR GROUP are in no token (they are
 * replaced in what inherits them), OWNER RIGHTS is the owner, who is
 * trusted by then. */
static bool trust_sid_harmless(PSID sid)
{
	return IsWellKnownSid(sid, WinCreatorOwnerSid) ||
	       IsWellKnownSid(sid, WinCreatorGroupSid) ||
	       IsWellKnownSid(sid, WinCreatorOwnerRightsSid) ||
	       trust_sid_trusted(sid);
}

void trust_sid_text(PSID sid, char *buf, size_t size)
{
	wchar_t *text = NULL, name[128], domain[128];
	DWORD name_len = ARRAYSIZE(name), domain_len = ARRAYSIZE(domain);
	char id[96], account[512];
	SID_NAME_USE use;

	if (!sid || !ConvertSidToStringSidW(sid, &text) ||
	    !system_utf8(text, id, sizeof(id))) {
		if (text)
			LocalFree(text);
		snprintf(buf, size, "an unknown account");
		return;
	}
	LocalFree(text);
	if (LookupAccountSidW(NULL, sid, name, &name_len, domain, &domain_len,
			      &use) &&
	    system_utf8(name, account + 256, 256) &&
	    system_utf8(domain, account, 256) && account[0])
		snprintf(buf, size, "%s (%s\\%s)", id, account, account + 256);
	else if (name_len && system_utf8(name, account, sizeof(account)) &&
		 account[0])
		snprintf(buf, size, "%s (%s)", id, account);
	else
		snprintf(buf, size, "%s", id);
}

/* What an allow entry grants, and to whom; false for an entry of a
 * layout this does not know, which cannot be judged. */
static bool trust_ace_grant(ACE_HEADER *ace, ACCESS_MASK *mask, PSID *sid)
{
	switch (ace->AceType) {
	case ACCESS_ALLOWED_ACE_TYPE:
	case ACCESS_ALLOWED_CALLBACK_ACE_TYPE: {
		ACCESS_ALLOWED_ACE *allowed = (ACCESS_ALLOWED_ACE *)ace;

		*mask = allowed->Mask;
		*sid = (PSID)&allowed->SidStart;
		return true;
	}
	}
	return false;
}

static bool trust_ace_denies(const ACE_HEADER *ace)
{
	return ace->AceType == ACCESS_DENIED_ACE_TYPE ||
	       ace->AceType == ACCESS_DENIED_CALLBACK_ACE_TYPE ||
	       ace->AceType == ACCESS_DENIED_OBJECT_ACE_TYPE ||
	       ace->AceType == ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE;
}

enum trust_fault trust_sd_fault(PSID owner, PACL dacl, DWORD rights, char *why,
				size_t size)
{
	char who[256];

	if (!owner || !trust_sid_trusted(owner)) {
		trust_sid_text(owner, who, sizeof(who));
		snprintf(why, size, "owned by %s", owner ? who : "nobody");
		return TRUST_FAULT_OWNER;
	}
	if (!dacl) {
		snprintf(why, size, "open to everyone (no DACL)");
		return TRUST_FAULT_WRITABLE;
	}
	for (WORD i = 0; i < dacl->AceCount; i++) {
		ACE_HEADER *ace;
		ACCESS_MASK mask;
		PSID sid;

		if (!winapi_get()->GetAce(dacl, i, (void **)&ace)) {
			snprintf(why, size, "its DACL cannot be read");
			return TRUST_FAULT_WRITABLE;
		}
		if ((ace->AceFlags & INHERIT_ONLY_ACE) || trust_ace_denies(ace))
			continue;
		if (!trust_ace_grant(ace, &mask, &sid)) {
			snprintf(why, size,
				 "open to an access entry of type %u, which "
				 "cannot be judged",
				 (unsigned)ace->AceType);
			return TRUST_FAULT_WRITABLE;
		}
		if (!(mask & rights) || trust_sid_harmless(sid))
			continue;
		trust_sid_text(sid, who, sizeof(who));
		snprintf(why, size, "writable by %s (rights 0x%lx)", who,
			 (unsigned long)(mask & rights));
		return TRUST_FAULT_WRITABLE;
	}
	return TRUST_FAULT_NONE;
}

/* The owner and DACL of an object by name; TRUST_FAULT_UNKNOWN when
 * they cannot be read (errno set). */
enum trust_fault trust_object_fault(const wchar_t *path, DWORD rights,
				    char *why, size_t size)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	enum trust_fault fault;
	DWORD error;

	error = winapi_get()->GetNamedSecurityInfoW(
		path, SE_FILE_OBJECT,
		OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
		NULL, &dacl, NULL, &sd);
	if (error != ERROR_SUCCESS) {
		/* A fault is no status: errno is the caller's word on why. */
		errno = status_errno_of_win32(error);
		snprintf(why, size, "its security cannot be read (error %lu)",
			 (unsigned long)error);
		return TRUST_FAULT_UNKNOWN;
	}
	fault = trust_sd_fault(owner, dacl, rights, why, size);
	LocalFree(sd);
	return fault;
}

/* The path as a full path with backslashes, and where its root ends
 * (after "C:\" or "\\server\share\"); NULL when it is not absolute. The
 * "\\?\" of GetFinalPathNameByHandleW's names is taken off. */
char *trust_full_path(const char *path, size_t *root)
{
	wchar_t *wide = system_wide_dup(path), full[1024];
	char *out;
	DWORD n;

	if (!wide)
		return NULL;
	if (wcsncmp(wide, L"\\\\?\\UNC\\", 8) == 0)
		memmove(wide + 2, wide + 8,
			(wcslen(wide + 8) + 1) * sizeof(*wide));
	else if (wcsncmp(wide, L"\\\\?\\", 4) == 0)
		memmove(wide, wide + 4, (wcslen(wide + 4) + 1) * sizeof(*wide));
	n = GetFullPathNameW(wide, ARRAYSIZE(full), full, NULL);
	free(wide);
	if (n == 0 || n >= ARRAYSIZE(full))
		return NULL;
	out = xmalloc(4 * ARRAYSIZE(full));
	if (!system_utf8(full, out, 4 * ARRAYSIZE(full))) {
		free(out);
		return NULL;
	}
	if (out[0] && out[1] == ':' && out[2] == '\\') {
		*root = 3;
	} else if (out[0] == '\\' && out[1] == '\\') {
		const char *share = strchr(out + 2, '\\');

		share = share ? strchr(share + 1, '\\') : NULL;
		if (!share) {
			free(out);
			return NULL;
		}
		*root = (size_t)(share - out) + 1;
	} else {
		free(out);
		return NULL;
	}
	while (strlen(out) > *root && out[strlen(out) - 1] == '\\')
		out[strlen(out) - 1] = '\0';
	return out;
}

/* One component on the way: a folder above (parent), or the path
 * itself, a folder or a file. */
static enum trust_fault trust_step(const char *path, bool last, unsigned flags,
				   char *why, size_t size)
{
	wchar_t *wide = system_wide_dup(path);
	DWORD attrs, rights;
	enum trust_fault fault;

	if (!wide) {
		snprintf(why, size, "not valid UTF-8");
		errno = EINVAL;
		return TRUST_FAULT_UNKNOWN;
	}
	attrs = GetFileAttributesW(wide);
	if (attrs == INVALID_FILE_ATTRIBUTES) {
		/* A fault is no status: errno is the caller's word on why. */
		errno = status_errno_of_win32(GetLastError());
		snprintf(why, size, "cannot be checked");
		free(wide);
		return TRUST_FAULT_UNKNOWN;
	}
	if ((!last || (flags & TRUST_DIR)) &&
	    !(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		snprintf(why, size, "not a folder");
		free(wide);
		return TRUST_FAULT_TYPE;
	}
	if (last && (flags & TRUST_DIR) &&
	    (attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
		/* The state folder: whoever made the link chose where the
		 * journal goes. */
		snprintf(why, size, "a junction or symbolic link");
		free(wide);
		return TRUST_FAULT_TYPE;
	}
	rights = !last				      ? TRUST_PARENT_WRITE
		 : (attrs & FILE_ATTRIBUTE_DIRECTORY) ? TRUST_DIR_WRITE
						      : TRUST_FILE_WRITE;
	fault = trust_object_fault(wide, rights, why, size);
	free(wide);
	return fault;
}

/* Every folder from the root down to the path, and the path itself.
 * On a fault, *at is the component at fault (the caller frees it), why
 * its reason. */
static enum trust_fault trust_walk_one(const char *path, unsigned flags,
				       char **at, char *why, size_t size)
{
	size_t root;
	char *full = trust_full_path(path, &root);
	enum trust_fault fault = TRUST_FAULT_NONE;

	*at = NULL;
	if (!full) {
		snprintf(why, size, "not an absolute path");
		errno = EINVAL;
		*at = xstrdup(path);
		return TRUST_FAULT_UNKNOWN;
	}
	for (char *p = full + root; fault == TRUST_FAULT_NONE;) {
		char *end = p + strcspn(p, "\\");
		char c = *end;
		bool last = c == '\0';

		*end = '\0';
		fault = trust_step(full, last, flags, why, size);
		if (fault != TRUST_FAULT_NONE)
			*at = xstrdup(full);
		*end = c;
		if (last)
			break;
		p = end + 1;
	}
	free(full);
	return fault;
}

/* Where the path leads, through links and junctions; NULL where it
 * cannot be opened or named (the walk of the path as given stands). */
static char *trust_final_path(const char *path)
{
	wchar_t *wide = system_wide_dup(path), final[1024];
	HANDLE h;
	DWORD n;
	char *out;

	if (!wide)
		return NULL;
	h = CreateFileW(wide, 0,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(wide);
	if (h == INVALID_HANDLE_VALUE)
		return NULL;
	n = GetFinalPathNameByHandleW(h, final, ARRAYSIZE(final),
				      FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= ARRAYSIZE(final))
		return NULL;
	out = xmalloc(4 * ARRAYSIZE(final));
	if (!system_utf8(final, out, 4 * ARRAYSIZE(final))) {
		free(out);
		return NULL;
	}
	return out;
}

enum trust_fault trust_walk(const char *path, unsigned flags, char **at,
			    bool *resolved, char *why, size_t size)
{
	enum trust_fault fault = trust_walk_one(path, flags, at, why, size);
	size_t root, final_root;
	char *full, *final, *final_full;

	*resolved = false;
	if (fault != TRUST_FAULT_NONE || (flags & TRUST_DIR))
		return fault;
	final = trust_final_path(path);
	full = trust_full_path(path, &root);
	final_full = final ? trust_full_path(final, &final_root) : NULL;
	if (final_full && full && _stricmp(final_full, full) != 0) {
		fault = trust_walk_one(final_full, flags, at, why, size);
		*resolved = true;
	}
	free(final);
	free(full);
	free(final_full);
	return fault;
}

/* What to run: give the file to Administrators, or take the entry of
 * whoever may write it away (inherited entries are made explicit
 * first, so that there is one to take away). */
static void trust_fix(enum trust_fault fault, const char *at, const char *why,
		      char *fix, size_t size)
{
	const char *sid = strstr(why, "S-1-");
	size_t sid_len = sid ? strcspn(sid, " ()") : 0;

	if (fault == TRUST_FAULT_OWNER)
		snprintf(fix, size, "icacls \"%s\" /setowner *S-1-5-32-544",
			 at);
	else if (sid)
		snprintf(fix, size,
			 "icacls \"%s\" /inheritance:d && icacls \"%s\" "
			 "/remove:g *%.*s",
			 at, at, (int)sid_len, sid);
	else
		snprintf(fix, size,
			 "icacls \"%s\" /inheritance:r /grant:r "
			 "*S-1-5-18:F *S-1-5-32-544:F *S-1-5-32-545:RX",
			 at);
}

enum os_status trust_path(const char *path, char *why, size_t size)
{
	wchar_t *wide = system_wide_dup(path);
	char reason[512], fix[2048], *at = NULL;
	enum trust_fault fault;
	bool resolved, self;
	size_t root;
	char *full;

	if (!wide) {
		snprintf(why, size, "not valid UTF-8");
		errno = EINVAL;
		return OS_FAILED;
	}
	if (GetFileAttributesW(wide) == INVALID_FILE_ATTRIBUTES) {
		enum os_status status = status_of_win32(GetLastError());

		free(wide);
		snprintf(why, size, "cannot check it: %s", strerror(errno));
		return status == OS_GONE ? OS_GONE : OS_FAILED;
	}
	free(wide);
	fault = trust_walk(path, 0, &at, &resolved, reason, sizeof(reason));
	if (fault == TRUST_FAULT_NONE)
		return OS_OK;
	full = trust_full_path(path, &root);
	self = !resolved && full && at && _stricmp(full, at) == 0;
	free(full);
	if (fault == TRUST_FAULT_UNKNOWN) {
		snprintf(why, size, "cannot check %s: %s", at ? at : path,
			 reason);
		free(at);
		return OS_FAILED;
	}
	if (fault == TRUST_FAULT_TYPE) {
		snprintf(why, size, "%s is %s", at, reason);
		free(at);
		return OS_DENIED;
	}
	trust_fix(fault, at, reason, fix, sizeof(fix));
	if (self)
		snprintf(why, size, "%s (fix: %s)", reason, fix);
	else
		snprintf(why, size, "%s is %s (fix: %s)", at, reason, fix);
	free(at);
	return OS_DENIED;
}
