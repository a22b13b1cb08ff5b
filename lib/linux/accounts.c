/* Linux: user and group names from the system's databases (NSS, so LDAP
 * and systemd's dynamic users too). */
#include <grp.h>
#include <pwd.h>

#include "os.h"

bool accounts_user(const char *name, unsigned *id)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return false;
	*id = pw->pw_uid;
	return true;
}

bool accounts_group(const char *name, unsigned *id)
{
	struct group *gr = getgrnam(name);

	if (!gr)
		return false;
	*id = gr->gr_gid;
	return true;
}
