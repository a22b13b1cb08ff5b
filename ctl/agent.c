/* cpupolicyctl agent: the user's foreground, told to the daemon. It runs
 * in the user's session (a systemd user unit or XDG autostart on Linux,
 * the logon's Run key on Windows), so that the root daemon never opens a
 * user's display; it watches the window its user is looking at
 * (fgwindow.c) and sends "foreground PID" over the control endpoint each
 * time that window's process changes, and again now and then, for a
 * daemon started since. The daemon believes it for the user's own
 * processes only. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "os.h"
#include "proto.h"
#include "util.h"

/* How long the agent waits on the window for a change, and after how
 * long it tells the daemon again what has not changed. */
#define AGENT_WAIT_MS	1000
#define AGENT_RETELL_NS (30 * 1000000000LL)

struct agent {
	const struct ctl *ctl;
	bool verbose, once;
	long told;	       /* the pid the daemon was told, 0: none */
	long long told_ns;     /* when */
	bool unreachable_said; /* the daemon's absence, said once */
};

/* Whether the daemon took it; its word is said where it refused. */
static bool agent_tell(struct agent *a, long pid)
{
	struct proto_request req = {.verb = PROTO_VERB_FOREGROUND,
				    .pid = (pid_t)pid};
	char *text = NULL;
	size_t len = 0;
	int status;

	if (remote_call(a->ctl, &req, !a->unreachable_said, &status, &text,
			&len) < 0) {
		a->unreachable_said = true;
		return false;
	}
	a->unreachable_said = false;
	if (status || a->verbose)
		fprintf(status ? stderr : stdout, "cpupolicyctl agent: %.*s",
			(int)len, text);
	free(text);
	return status == 0;
}

static void agent_look(struct agent *a, long pid)
{
	long long now = timing_now_ns();

	if (pid <= 0 || (pid == a->told && now - a->told_ns < AGENT_RETELL_NS))
		return;
	if (agent_tell(a, pid)) {
		a->told = pid;
		a->told_ns = now;
	} else {
		a->told = 0;
	}
}

static int agent_usage(FILE *out, int status)
{
	fprintf(out, "usage: cpupolicyctl agent [--once] [--verbose]\n"
		     "  --once     tell the foreground once, and end\n"
		     "  --verbose  say each foreground the daemon took\n");
	return status;
}

int agent_main(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{"once", no_argument, NULL, 'o'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct agent a = {.ctl = ctl};
	struct fgwindow *w;
	char why[128];
	int c;

	while ((c = getopt_long(argc, argv, "ovh", options, NULL)) != -1) {
		if (c == 'o')
			a.once = true;
		else if (c == 'v')
			a.verbose = true;
		else
			return agent_usage(c == 'h' ? stdout : stderr,
					   c == 'h' ? CTL_EXIT_OK
						    : CTL_EXIT_USAGE);
	}
	if (optind != argc)
		return agent_usage(stderr, CTL_EXIT_USAGE);
	if (!(w = fgwindow_open(why, sizeof(why)))) {
		fprintf(stderr, "cpupolicyctl agent: %s\n", why);
		return CTL_EXIT_USAGE;
	}
	for (;;) {
		long pid = fgwindow_wait(w, a.once ? 0 : AGENT_WAIT_MS);

		if (pid < 0) {
			fprintf(stderr, "cpupolicyctl agent: the display "
					"is gone\n");
			break;
		}
		if (a.once) {
			bool told = pid > 0 && agent_tell(&a, pid);

			if (pid <= 0)
				fprintf(stderr, "cpupolicyctl agent: no window "
						"is in the foreground\n");
			fgwindow_close(w);
			return told ? CTL_EXIT_OK : CTL_EXIT_FAIL;
		}
		agent_look(&a, pid);
	}
	fgwindow_close(w);
	return CTL_EXIT_FAIL;
}
