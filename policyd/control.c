/* The control protocol: one request per connection, the peer as the
 * system vouched for it (struct control_peer) checked per request.
 * Read-only requests (status, explain) are for root and the socket's
 * group; reload is for root, or also the group when the config says
 * group_may_reload. Clients are non-blocking and get a few seconds to
 * speak; a slow reader cannot stall the daemon. The endpoint itself is
 * the system's (linux/listen.c: a UNIX socket). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "os.h"
#include "policyd.h"
#include "util.h"

#define CONTROL_TIMEOUT_S 5

int control_open(struct daemon *d)
{
	return listen_open(d);
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

static struct control_client *control_free_slot(struct daemon *d)
{
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		if (!d->clients[i].conn)
			return &d->clients[i];
	}
	return NULL;
}

/* Every connection waiting; one more than there are slots for is hung
 * up on at once. */
void control_accept(struct daemon *d)
{
	struct listen_conn *conn;
	struct control_peer peer;

	while (listen_accept(d, &conn, &peer) > 0) {
		struct control_client *c = control_free_slot(d);

		if (!c) {
			listen_hang_up(conn);
			continue;
		}
		*c = (struct control_client){
			.conn = conn,
			.peer = peer,
			.deadline_ns = timing_now_ns() +
				       CONTROL_TIMEOUT_S * 1000000000LL,
		};
		if (loop_watch_client(d, c, false) < 0)
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
	if (proto_parse_request(c->request, c->request_len, &req, why,
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
		}
	}
	body = memstream_close(&answer, &body_len);
	c->response =
		xasprintf("%d\n%.*s", status, (int)body_len, body ? body : "");
	c->response_len = strlen(c->response);
	free(body);
}

static void control_send(struct daemon *d, struct control_client *c)
{
	while (c->response_sent < c->response_len) {
		long n = listen_send(c->conn, c->response + c->response_sent,
				     c->response_len - c->response_sent);

		if (n == LISTEN_AGAIN) {
			loop_watch_client(d, c, true);
			return;
		}
		if (n <= 0)
			break;
		c->response_sent += (size_t)n;
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
		long n = listen_recv(c->conn, c->request + c->request_len,
				     sizeof(c->request) - c->request_len);

		if (n == LISTEN_AGAIN)
			return;
		if (n <= 0) {
			control_drop(d, c);
			return;
		}
		c->request_len += (size_t)n;
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
