/* The control protocol: one request per connection, the peer as the
 * system vouched for it (struct control_peer) checked per request.
 * Read-only requests (status, explain) are for root and the socket's
 * group; reload is for root, or also the group when the config says
 * group_may_reload; restraint's pause and resume are root's, an
 * exemption root's or the process's own user's. Clients are non-blocking and
 * get a few seconds to speak; a slow reader cannot stall the daemon, and no
 * number of other users' connections can keep root out (control_slot). The
 * endpoint itself is the system's (linux/listen.c: a UNIX socket). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "os.h"
#include "policyd.h"
#include "util.h"

#define CONTROL_TIMEOUT_S 5
/* Connections taken at one wake-up: a flood of them does not keep the
 * loop from its events (the rest wait for the next round). */
#define CONTROL_ACCEPTS_PER_WAKEUP 64
#define CONTROL_SHED_LOG_NS	   (60 * 1000000000LL)

_Static_assert(CONTROL_OTHERS_SLOTS < CONTROL_MAX_CLIENTS,
	       "the other users' share leaves root a slot");

int control_open(struct daemon *d)
{
	return listen_open(d) == OS_OK ? 0 : -1;
}

static void control_drop(struct daemon *d, struct control_client *c)
{
	if (!c->conn)
		return;
	loop_unwatch_client(d, c);
	listen_hang_up(c->conn);
	free(c->response);
	*c = (struct control_client){0};
}

void control_close(struct daemon *d)
{
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
		control_drop(d, &d->clients[i]);
	listen_close(d);
}

/* Whose connections can be closed to make room: those of the users
 * other than root, one such user's, or anybody's. */
enum control_whose {
	CONTROL_WHOSE_OTHERS,
	CONTROL_WHOSE_USER,
	CONTROL_WHOSE_ANY,
};

static bool control_is(const struct control_client *c, enum control_whose whose,
		       unsigned user)
{
	switch (whose) {
	case CONTROL_WHOSE_OTHERS:
		return !c->peer.admin;
	case CONTROL_WHOSE_USER:
		return !c->peer.admin && c->peer.user == user;
	case CONTROL_WHOSE_ANY:
		return true;
	}
	return false;
}

static size_t control_count(const struct daemon *d, enum control_whose whose,
			    unsigned user)
{
	size_t n = 0;

	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
		n += d->clients[i].conn &&
		     control_is(&d->clients[i], whose, user);
	return n;
}

/* The longest-connected of them; NULL: none. */
static struct control_client *control_oldest(struct daemon *d,
					     enum control_whose whose,
					     unsigned user)
{
	struct control_client *oldest = NULL;

	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		struct control_client *c = &d->clients[i];

		if (c->conn && control_is(c, whose, user) &&
		    (!oldest || c->since_ns < oldest->since_ns))
			oldest = c;
	}
	return oldest;
}

static struct control_client *control_free_slot(struct daemon *d)
{
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		if (!d->clients[i].conn)
			return &d->clients[i];
	}
	return NULL;
}

/* Said once a minute at most, with how many since: a flood of
 * connections must not flood the log. */
static void control_shed(struct daemon *d, const struct control_peer *peer,
			 const char *what, const char *why)
{
	long long now = timing_now_ns();

	d->control_shed++;
	if (d->control_shed_log_ns &&
	    now - d->control_shed_log_ns < CONTROL_SHED_LOG_NS)
		return;
	log_info("control: %s of %s (pid %d) closed: %s (%llu connections "
		 "closed so far)",
		 what, peer->who, (int)peer->pid, why, d->control_shed);
	d->control_shed_log_ns = now;
}

/* The slot a new connection takes, made free when it has to be; NULL: it
 * is hung up on. Root always gets one: by the caps on everybody else's
 * share, one is free unless root's own connections hold them, and then
 * its longest-connected one makes room. A user at their own share makes
 * room with their own oldest connection (the new one is the one somebody
 * waits on). */
static struct control_client *control_slot(struct daemon *d,
					   const struct control_peer *peer)
{
	struct control_client *c;
	enum control_whose whose;

	if (peer->admin) {
		c = control_free_slot(d);
		if (c)
			return c;
		whose = control_count(d, CONTROL_WHOSE_OTHERS, 0)
				? CONTROL_WHOSE_OTHERS
				: CONTROL_WHOSE_ANY;
	} else if (control_count(d, CONTROL_WHOSE_USER, peer->user) >=
		   CONTROL_USER_SLOTS) {
		whose = CONTROL_WHOSE_USER;
	} else if (control_count(d, CONTROL_WHOSE_OTHERS, 0) >=
			   CONTROL_OTHERS_SLOTS ||
		   !(c = control_free_slot(d))) {
		control_shed(d, peer, "a new connection",
			     "the slots left are root's");
		return NULL;
	} else {
		return c;
	}
	c = control_oldest(d, whose, peer->user);
	if (c) {
		char why[64] = "root needs its slot";

		if (!peer->admin)
			snprintf(why, sizeof(why),
				 "one user may hold %d at once",
				 CONTROL_USER_SLOTS);
		control_shed(d, &c->peer, "the oldest connection", why);
		control_drop(d, c);
	}
	return c;
}

/* The next connection waiting, if any; a failed accept is said at
 * debug level, as the next wake-up tries again (a full table of files
 * would say it at every one). */
static bool control_next(struct daemon *d, struct listen_conn **conn,
			 struct control_peer *peer)
{
	enum os_status status = listen_accept(d, conn, peer);

	if (status != OS_OK)
		log_debug("control: a connection not accepted (status %d)",
			  (int)status);
	return status == OS_OK && *conn;
}

/* The connections waiting, up to a round's worth; those there is no
 * room for are hung up on at once. */
void control_accept(struct daemon *d)
{
	struct listen_conn *conn;
	struct control_peer peer;

	for (int n = 0;
	     n < CONTROL_ACCEPTS_PER_WAKEUP && control_next(d, &conn, &peer);
	     n++) {
		struct control_client *c = control_slot(d, &peer);
		long long now = timing_now_ns();

		if (!c) {
			listen_hang_up(conn);
			continue;
		}
		*c = (struct control_client){
			.conn = conn,
			.peer = peer,
			.since_ns = now,
			.deadline_ns = now + CONTROL_TIMEOUT_S * 1000000000LL,
		};
		if (loop_watch_client(d, c, false) != OS_OK)
			control_drop(d, c);
	}
}

/* The socket's mode already keeps others out; this also holds when the
 * socket file's mode or group were changed by hand. */
static bool control_in_group(const struct daemon *d,
			     const struct control_client *c)
{
	return d->conf.socket_group && c->peer.in_group;
}

static bool control_allowed(const struct daemon *d,
			    const struct control_client *c,
			    enum proto_verb verb)
{
	if (c->peer.admin)
		return true;
	switch (verb) {
	case PROTO_VERB_PING:
	case PROTO_VERB_STATUS:
	case PROTO_VERB_EXPLAIN:
	case PROTO_VERB_METRICS:
		return control_in_group(d, c);
	case PROTO_VERB_RELOAD:
		return d->conf.group_may_reload && control_in_group(d, c);
	case PROTO_VERB_RESTRAINT_PAUSE:
	case PROTO_VERB_RESTRAINT_RESUME:
		return false;
	case PROTO_VERB_RESTRAINT_EXEMPT:
	case PROTO_VERB_FOREGROUND:
		return true; /* for its own processes: restrain_control */
	}
	return false;
}

static int control_reload(struct daemon *d, FILE *out)
{
	struct diag diag;
	int status;

	diag_init(&diag);
	status = daemon_reload(d, &diag);
	diag_print(&diag, out, true);
	if (status == 0)
		fprintf(out, "reloaded: %zu rules in %zu files\n",
			d->rules->count, d->rules->files_read);
	else
		fprintf(out, "reload failed: the previous rules stay in "
			     "force\n");
	diag_free(&diag);
	return status == 0 ? 0 : 1;
}

static void control_answer(struct daemon *d, struct control_client *c)
{
	struct proto_request req;
	struct memstream answer;
	char why[128], *body;
	size_t body_len;
	int status = 0;
	FILE *out = memstream_open(&answer);

	if (!out) {
		control_drop(d, c);
		return;
	}
	if (listen_identify(c->conn, &c->peer) != OS_OK) {
		log_info("control: a request from pid %d refused: who sent it "
			 "cannot be told",
			 (int)c->peer.pid);
		fprintf(out, "permission denied: the daemon cannot tell who "
			     "is asking\n");
		status = 1;
	} else if (proto_parse_request(c->request, c->request_len, &req, why,
				       sizeof(why)) < 0) {
		fprintf(out, "%s\n", why);
		status = 2;
	} else if (!control_allowed(d, c, req.verb)) {
		log_info("control: %s from %s (pid %d): permission denied",
			 proto_verb_name(req.verb), c->peer.who,
			 (int)c->peer.pid);
		fprintf(out, "permission denied\n");
		status = 1;
	} else {
		switch (req.verb) {
		case PROTO_VERB_PING:
			fprintf(out, "pong\n");
			break;
		case PROTO_VERB_STATUS:
			report_status(d, req.json, out);
			break;
		case PROTO_VERB_EXPLAIN:
			status = report_explain(d, req.pid, req.json, out);
			break;
		case PROTO_VERB_RELOAD:
			log_info("control: reload from %s (pid %d)",
				 c->peer.who, (int)c->peer.pid);
			status = control_reload(d, out);
			break;
		case PROTO_VERB_METRICS:
			report_metrics(d, out);
			break;
		case PROTO_VERB_RESTRAINT_PAUSE:
		case PROTO_VERB_RESTRAINT_RESUME:
		case PROTO_VERB_RESTRAINT_EXEMPT:
			status = restrain_control(d, &req, &c->peer, out);
			break;
		case PROTO_VERB_FOREGROUND:
			status = foreground_control(d, req.pid, &c->peer, out);
			break;
		}
	}
	body = memstream_close(&answer, &body_len);
	c->response =
		xasprintf("%d\n%.*s", status, (int)body_len, body ? body : "");
	c->response_len = strlen(c->response);
	free(body);
}

/* A client that hung up before its answer was read is its own affair;
 * anything else the endpoint did not do is worth a line. */
static void control_lost(const struct control_client *c, const char *doing,
			 enum os_status status)
{
	if (status == OS_GONE)
		log_debug("control: %s (pid %d) hung up while %s", c->peer.who,
			  (int)c->peer.pid, doing);
	else
		log_warnx("control: %s (pid %d) dropped: cannot go on %s",
			  c->peer.who, (int)c->peer.pid, doing);
}

static void control_send(struct daemon *d, struct control_client *c)
{
	while (c->response_sent < c->response_len) {
		size_t n;
		enum os_status status =
			listen_send(c->conn, c->response + c->response_sent,
				    c->response_len - c->response_sent, &n);

		if (status != OS_OK) {
			control_lost(c, "sending its answer", status);
			break;
		}
		if (n == 0) {
			loop_watch_client(d, c, true);
			return;
		}
		c->response_sent += n;
	}
	control_drop(d, c);
}

/* Input until the request's newline (or a full buffer), then the answer;
 * once it is there, only room to send the rest of it. */
void control_client_io(struct daemon *d, struct control_client *c,
		       bool can_send)
{
	if (!c->conn)
		return;
	if (c->response) {
		if (can_send)
			control_send(d, c);
		return;
	}
	for (;;) {
		size_t n;
		enum os_status status =
			listen_recv(c->conn, c->request + c->request_len,
				    sizeof(c->request) - c->request_len, &n);

		if (status != OS_OK) {
			control_lost(c, "reading its request", status);
			control_drop(d, c);
			return;
		}
		if (n == 0)
			return;
		c->request_len += n;
		if (memchr(c->request, '\n', c->request_len) ||
		    c->request_len == sizeof(c->request))
			break;
	}
	control_answer(d, c);
	if (c->response)
		control_send(d, c);
}

void control_expire(struct daemon *d)
{
	long long now = timing_now_ns();

	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		struct control_client *c = &d->clients[i];

		if (c->conn && now > c->deadline_ns)
			control_drop(d, c);
	}
}
