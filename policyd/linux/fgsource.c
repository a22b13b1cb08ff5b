/* Linux: the foreground as desktops already declare it. The GNOME and
 * KDE extensions of system76-scheduler call SetForegroundProcess(u) of
 * com.system76.Scheduler at /com/system76/Scheduler on the system bus
 * with the focused window's pid; where system76-scheduler does not run,
 * the daemon takes the name (with replacement allowed: the scheduler
 * started later takes it back) and serves the method, believing a
 * caller only for its own processes (foreground.c). sd-bus is
 * libsystemd's, which the daemon links anyway: no D-Bus library more.
 * The bus policy file (packaging/dbus) lets root own the name and
 * anyone call the method. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "internal.h"
#include "log.h"
#include "util.h"

#define FGSOURCE_NAME	   "com.system76.Scheduler"
#define FGSOURCE_PATH	   "/com/system76/Scheduler"
#define FGSOURCE_INTERFACE "com.system76.Scheduler"

struct fgsource {
	sd_bus *bus;
	sd_bus_slot *slot;
};

static int fgsource_set(sd_bus_message *m, void *userdata, sd_bus_error *err)
{
	struct daemon *d = userdata;
	sd_bus_creds *creds = NULL;
	uint32_t pid;
	uid_t uid;
	char why[96];
	int r;

	if ((r = sd_bus_message_read(m, "u", &pid)) < 0)
		return r;
	if (sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID, &creds) < 0 ||
	    sd_bus_creds_get_euid(creds, &uid) < 0) {
		sd_bus_creds_unref(creds);
		return sd_bus_error_set(err, SD_BUS_ERROR_ACCESS_DENIED,
					"who is asking cannot be told");
	}
	sd_bus_creds_unref(creds);
	if (pid > 0x7fffffffu ||
	    foreground_declare(d, (pid_t)pid, uid, uid == 0, "D-Bus", why,
			       sizeof(why)) < 0)
		return sd_bus_error_set(err, SD_BUS_ERROR_ACCESS_DENIED,
					pid > 0x7fffffffu ? "no such process"
							  : why);
	return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable fgsource_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("SetForegroundProcess", "u", "", fgsource_set,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

/* No system bus (a container, a minimal server): no foreground, said
 * once; the name owned (system76-scheduler runs): its, said once. */
enum os_status fgsource_open(struct daemon *d)
{
	struct fgsource *f = xcalloc(1, sizeof(*f));
	int r;

	if ((r = sd_bus_open_system(&f->bus)) < 0) {
		log_info("no system bus (%s): no desktop can declare its "
			 "foreground",
			 strerror(-r));
		free(f);
		return OS_UNSUPPORTED;
	}
	r = sd_bus_add_object_vtable(f->bus, &f->slot, FGSOURCE_PATH,
				     FGSOURCE_INTERFACE, fgsource_vtable, d);
	if (r >= 0)
		r = sd_bus_request_name(f->bus, FGSOURCE_NAME,
					SD_BUS_NAME_ALLOW_REPLACEMENT);
	if (r < 0) {
		log_info("%s is not ours (%s): the foreground is %s's",
			 FGSOURCE_NAME, strerror(-r),
			 r == -EEXIST ? "system76-scheduler" : "not known");
		sd_bus_slot_unref(f->slot);
		sd_bus_unref(f->bus);
		free(f);
		return r == -EEXIST ? OS_DENIED : OS_FAILED;
	}
	d->fgsource = f;
	log_info("the foreground from %s's SetForegroundProcess on the "
		 "system bus",
		 FGSOURCE_NAME);
	return OS_OK;
}

long fgsource_fd(const struct daemon *d)
{
	return d->fgsource ? sd_bus_get_fd(d->fgsource->bus) : -1;
}

/* Everything the bus has, bounded: a flood of calls waits for the next
 * round. */
void fgsource_process(struct daemon *d)
{
	if (!d->fgsource)
		return;
	for (int i = 0; i < 64; i++) {
		int r = sd_bus_process(d->fgsource->bus, NULL);

		if (r == 0)
			break;
		if (r < 0) {
			log_warnx("the system bus failed (%s): no foreground "
				  "from it from now on",
				  strerror(-r));
			fgsource_close(d);
			return;
		}
	}
	sd_bus_flush(d->fgsource->bus);
}

void fgsource_close(struct daemon *d)
{
	if (!d->fgsource)
		return;
	sd_bus_slot_unref(d->fgsource->slot);
	sd_bus_flush_close_unref(d->fgsource->bus);
	free(d->fgsource);
	d->fgsource = NULL;
}
