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

/* Debian's adduser gives users ids from 1000 (FIRST_UID); 65534 is
 * nobody, which the system's daemons run as. */
bool accounts_system(unsigned id)
{
	return id < 1000 || id == 65534;
}
