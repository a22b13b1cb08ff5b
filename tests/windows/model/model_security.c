/* Owners and DACLs of files and folders by name, and of handles, as the
 * test sets them (SDDL); what the test did not set is the system's. */
#include <string.h>
#include <wchar.h>

#include <windows.h>

#include <sddl.h>

#include "model.h"

enum {
	MODEL_OBJECTS = 32,
};

static struct {
	wchar_t path[260];
	HANDLE handle;
	wchar_t sddl[512];
} model_objects[MODEL_OBJECTS];
static size_t model_object_count;
static struct winapi model_system; /* the real calls, for the rest */

void model_security_reset(void)
{
	model_object_count = 0;
}

static void model_security_add(const wchar_t *path, HANDLE h,
			       const wchar_t *sddl)
{
	if (model_object_count == MODEL_OBJECTS)
		return;
	model_objects[model_object_count].handle = h;
	swprintf(model_objects[model_object_count].path, 260, L"%ls",
		 path ? path : L"");
	swprintf(model_objects[model_object_count].sddl, 512, L"%ls", sddl);
	model_object_count++;
}

void model_security_set(const wchar_t *path, const wchar_t *sddl)
{
	model_security_add(path, NULL, sddl);
}

void model_security_handle(HANDLE handle, const wchar_t *sddl)
{
	model_security_add(NULL, handle, sddl);
}

/* "ppSecurityDescriptor ... must be freed with LocalFree"; the owner and
 * DACL pointers point into it; a DACL that is NULL grants everyone full
 * access (SE_DACL_PRESENT clear, "D:NO_ACCESS_CONTROL").
 * sdk-api-src/content/aclapi/nf-aclapi-getnamedsecurityinfow.md */
static DWORD model_security_out(const wchar_t *sddl, PSID *owner, PACL *dacl,
				PSECURITY_DESCRIPTOR *sd)
{
	BOOL present = FALSE, defaulted = FALSE;

	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, sd, NULL))
		return GetLastError();
	if (owner)
		GetSecurityDescriptorOwner(*sd, owner, &defaulted);
	if (dacl) {
		GetSecurityDescriptorDacl(*sd, &present, dacl, &defaulted);
		if (!present)
			*dacl = NULL;
	}
	return ERROR_SUCCESS;
}

static DWORD WINAPI model_get_named_security(LPCWSTR name, SE_OBJECT_TYPE type,
					     SECURITY_INFORMATION what,
					     PSID *owner, PSID *group,
					     PACL *dacl, PACL *sacl,
					     PSECURITY_DESCRIPTOR *sd)
{
	model_count("GetNamedSecurityInfoW");
	for (size_t i = 0; i < model_object_count; i++) {
		if (!model_objects[i].handle &&
		    _wcsicmp(model_objects[i].path, name) == 0)
			return model_security_out(model_objects[i].sddl, owner,
						  dacl, sd);
	}
	return model_system.GetNamedSecurityInfoW(name, type, what, owner,
						  group, dacl, sacl, sd);
}

static DWORD WINAPI model_get_security(HANDLE h, SE_OBJECT_TYPE type,
				       SECURITY_INFORMATION what, PSID *owner,
				       PSID *group, PACL *dacl, PACL *sacl,
				       PSECURITY_DESCRIPTOR *sd)
{
	model_count("GetSecurityInfo");
	for (size_t i = 0; i < model_object_count; i++) {
		if (model_objects[i].handle == h)
			return model_security_out(model_objects[i].sddl, owner,
						  dacl, sd);
	}
	return model_system.GetSecurityInfo(h, type, what, owner, group, dacl,
					    sacl, sd);
}

void model_security_install(struct winapi *w)
{
	model_system = *w;
	w->GetNamedSecurityInfoW = model_get_named_security;
	w->GetSecurityInfo = model_get_security;
}
