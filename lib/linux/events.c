/* Process events from the kernel through the netlink proc connector.
 * Matching happens at exec, never at fork: a forked child still carries
 * its parent's name and exe, and its exec event is the one that counts. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "linux.h"

/* Linux 6.6 lets a listener say which events it wants (struct proc_input);
 * older headers do not have it. */
struct events_proc_input {
	uint32_t mcast_op;
	uint32_t event_type;
};

/* Times a question to the kernel is asked when its answer may have been
 * lost in a flood (events_answered). */
#define EVENTS_ASKS 5

/* The kernel's PROC_EVENT_ALL: the only filter that lets acks through. */
#define EVENTS_ALL 0xe00003c7u

/* The kernel's event bits for what a listener wants. The kernel takes a
 * filter of no bits for all of them: when nothing is wanted, the one
 * bit asked for is coredumps, which are rare, and ignored here. */
static uint32_t events_mask(unsigned wanted)
{
	uint32_t mask = 0;

	if (wanted & EVENTS_WANT_EXECS)
		mask |= PROC_EVENT_EXEC;
	if (wanted & EVENTS_WANT_THREADS)
		mask |= PROC_EVENT_FORK | PROC_EVENT_EXIT;
	if (wanted & EVENTS_WANT_RENAMES)
		mask |= PROC_EVENT_COMM;
	if (wanted & EVENTS_WANT_IDS)
		mask |= PROC_EVENT_UID | PROC_EVENT_GID;
	return mask ? mask : PROC_EVENT_COREDUMP;
}

static int events_send(int fd, const void *payload, size_t len)
{
	/* nlmsghdr, cn_msg, payload: built by hand, as cn_msg ends in a
	 * flexible array. */
	uint32_t buf[(NLMSG_HDRLEN + sizeof(struct cn_msg) +
		      sizeof(struct events_proc_input) + 3) /
		     4] = {0};
	struct nlmsghdr *nl = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nl);
	size_t size = NLMSG_HDRLEN + sizeof(*cn) + len;

	nl->nlmsg_len = (uint32_t)size;
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = (uint16_t)len;
	memcpy(cn->data, payload, len);
	return send(fd, buf, size, 0) == (ssize_t)size ? 0 : -1;
}

static int events_subscribe(int fd, enum proc_cn_mcast_op op)
{
	uint32_t value = op;

	return events_send(fd, &value, sizeof(value));
}

static int events_filter(int fd, uint32_t wanted)
{
	struct events_proc_input input = {PROC_CN_MCAST_LISTEN, wanted};

	return events_send(fd, &input, sizeof(input));
}

static void events_note_ack(void *ctx, const struct events_event *e)
{
	(void)ctx;
	(void)e;
}

/* The kernel's answer to a question on the socket (an acknowledgement)
 * is queued behind what is already there: a flood of events that began
 * before (any user can rename a process in a loop) fills the queue, and
 * the answer is dropped with the rest. So room is made first (what is
 * queued is read and dropped: the scan at start covers it), and the
 * question is asked again a few times when it may just have been lost.
 * 1 when an answer came (its error is in ev->acks), 0 when none did, -1
 * when the question could not be sent (errno says why). */
static int events_answered(struct events *ev, int (*ask)(int fd), int attempts)
{
	struct pollfd pfd = {.fd = ev->fd, .events = POLLIN};

	bool lost;

	for (int attempt = 0; attempt < attempts; attempt++) {
		events_read(ev, events_note_ack, NULL, &lost);
		ev->acks = (struct events_acks){0};
		if (ask(ev->fd) < 0)
			return -1;
		for (int i = 0; i < 10 && !ev->acks.count; i++) {
			if (poll(&pfd, 1, 20) > 0)
				events_read(ev, events_note_ack, NULL, &lost);
		}
		if (ev->acks.count)
			return 1;
	}
	return 0;
}

static int events_ask_filter(int fd)
{
	return events_filter(fd, EVENTS_ALL);
}

static int events_ask_listen(int fd)
{
	return events_subscribe(fd, PROC_CN_MCAST_LISTEN);
}

/* Linux 6.6 or later by its version: a kernel that should answer the
 * filter, asked again when no answer came. An older one (or a backport)
 * is asked once. */
static bool events_kernel_filters(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	return uname(&u) == 0 &&
	       sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 6));
}

/* Only a kernel that reads struct proc_input acknowledges it (an older one
 * drops the message without a word): wait briefly for the answer. The
 * answer is itself an event that a narrower filter would hold back. */
static bool events_filter_supported(struct events *ev)
{
	return events_answered(ev, events_ask_filter,
			       events_kernel_filters() ? EVENTS_ASKS : 1) > 0;
}

/* Before Linux 6.6 subscribing takes CAP_NET_ADMIN, and a refusal comes
 * back as an acknowledgement with an error, or not at all when nobody
 * else listens: either way no events would ever come. */
static int events_subscribe_checked(struct events *ev)
{
	int answered = events_answered(ev, events_ask_listen, EVENTS_ASKS);

	if (answered < 0)
		return -1;
	if (!answered || ev->acks.last_error) {
		errno = ev->acks.last_error ? ev->acks.last_error : EPERM;
		return -1;
	}
	return 0;
}

/* Each kind of event costs the daemon a wakeup: forks and exits matter
 * only while a process is managed (its new threads, its children, its
 * end), renames only when a rule matches on name, changes of ids only
 * when one matches on user or group. Without the kernel's filter every
 * event comes anyway, and the caller ignores what it does not need. */
enum os_status events_want(struct events *ev, unsigned wanted)
{
	if (!ev->filtering || ev->fd < 0 || ev->wanted == wanted)
		return OS_OK;
	if (events_filter(ev->fd, events_mask(wanted)) < 0)
		return status_of_errno(errno);
	ev->wanted = wanted;
	return OS_OK;
}

/* CPUPOLICY_EVENTS_UNFILTERED=1: every event, whatever is asked for, as
 * from a kernel before 6.6 — that path, tested and measured on a newer
 * one. */
static bool events_unfiltered(void)
{
	const char *value = getenv("CPUPOLICY_EVENTS_UNFILTERED");

	return value && strcmp(value, "1") == 0;
}

/* What a failure to open or subscribe means here: without a proc
 * connector in this network namespace the socket is refused
 * (EPROTONOSUPPORT), or on newer kernels the subscription finds nobody
 * to send to (ECONNREFUSED). The errno is kept for events_why_not. */
static enum os_status events_failed(struct events *ev, int error)
{
	ev->error = error;
	if (error == ECONNREFUSED)
		return OS_UNSUPPORTED;
	return status_of_errno(error);
}

/* A bound socket (ours, or the service manager's): buffer, subscribe. */
static enum os_status events_setup(struct events *ev, int fd,
				   unsigned buffer_kb)
{
	int size = (int)buffer_kb * 1024;

	ev->fd = fd;
	/* FORCE goes past rmem_max; without the privilege take what we get. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	ev->filtering = !events_unfiltered() && events_filter_supported(ev);
	ev->wanted = EVENTS_WANT_THREADS | EVENTS_WANT_RENAMES |
		     EVENTS_WANT_IDS | EVENTS_WANT_EXECS;
	if (ev->filtering)
		ev->filtering = events_filter(fd, events_mask(ev->wanted)) == 0;
	if (!ev->filtering && events_subscribe_checked(ev) < 0) {
		int saved = errno;

		close(fd);
		ev->fd = -1;
		return events_failed(ev, saved);
	}
	return OS_OK;
}

void events_init(struct events *ev)
{
	*ev = (struct events){.fd = -1};
}

/* opt->buffer_kb: the socket's receive buffer. Bursts must fit: what does not
 * is lost (ENOBUFS), and then the caller rescans /proc. */
enum os_status events_open(struct events *ev, const struct events_options *opt)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = CN_IDX_PROC,
	};
	int fd;

	*ev = (struct events){.fd = -1};
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		return events_failed(ev, errno);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int saved = errno;

		close(fd);
		return events_failed(ev, saved);
	}
	return events_setup(ev, fd, opt->buffer_kb);
}

/* A socket the service manager opened and bound to the proc connector's
 * group (ListenNetlink=connector 1): it lives in the host's network
 * namespace, so the daemon itself may run in a private one. */
enum os_status events_adopt(struct events *ev, long passed,
			    const struct events_options *opt)
{
	int fd = (int)passed, flags = fcntl(fd, F_GETFL);

	*ev = (struct events){.fd = -1};
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return events_failed(ev, errno);
	return events_setup(ev, fd, opt->buffer_kb);
}

void events_close(struct events *ev)
{
	if (ev->fd >= 0) {
		events_subscribe(ev->fd, PROC_CN_MCAST_IGNORE);
		close(ev->fd);
	}
	ev->fd = -1;
}

static void events_emit(const struct proc_event *pe, events_fn fn, void *ctx)
{
	struct events_event e;

	switch (pe->what) {
	case PROC_EVENT_NONE: /* the answer to a subscription */
		return;
	case PROC_EVENT_FORK:
		/* A new process is matched at its exec; its fork matters for
		 * what it inherits until then. */
		e = (struct events_event){
			.kind = pe->event_data.fork.child_pid ==
						pe->event_data.fork.child_tgid
					? EVENTS_KIND_FORK
					: EVENTS_KIND_THREAD,
			.pid = pe->event_data.fork.child_tgid,
			.tid = pe->event_data.fork.child_pid,
			.parent = pe->event_data.fork.parent_tgid,
			.parent_tid = pe->event_data.fork.parent_pid};
		break;
	case PROC_EVENT_EXEC:
		e = (struct events_event){
			.kind = EVENTS_KIND_EXEC,
			.pid = pe->event_data.exec.process_tgid,
			.tid = pe->event_data.exec.process_tgid};
		break;
	case PROC_EVENT_COMM:
		/* Thread names do not name the process. */
		if (pe->event_data.comm.process_pid !=
		    pe->event_data.comm.process_tgid)
			return;
		e = (struct events_event){
			.kind = EVENTS_KIND_RENAME,
			.pid = pe->event_data.comm.process_tgid,
			.tid = pe->event_data.comm.process_tgid};
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		if (pe->event_data.id.process_pid !=
		    pe->event_data.id.process_tgid)
			return;
		e = (struct events_event){
			.kind = EVENTS_KIND_IDS,
			.pid = pe->event_data.id.process_tgid,
			.tid = pe->event_data.id.process_tgid};
		break;
	case PROC_EVENT_EXIT:
		e = (struct events_event){
			.kind = EVENTS_KIND_EXIT,
			.pid = pe->event_data.exit.process_tgid,
			.tid = pe->event_data.exit.process_pid};
		break;
	default:
		return;
	}
	fn(ctx, &e);
}

/* One datagram: netlink messages, each a connector message holding one
 * proc event. Anything short or malformed is skipped, never trusted. */
unsigned events_parse(const void *buf, size_t len, events_fn fn, void *ctx,
		      struct events_acks *acks)
{
	const struct nlmsghdr *nl = buf;
	unsigned count = 0;

	/* NLMSG_NEXT would step past the end (and len wrap around) when a
	 * message claims more than is left: step by hand. */
	while (NLMSG_OK(nl, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nl);
		struct proc_event pe = {0};
		size_t payload = NLMSG_PAYLOAD(nl, 0), step;

		/* Every event used here keeps its ids in the first 16 bytes
		 * of event_data, whatever the kernel's version of the union. */
		if (nl->nlmsg_type != NLMSG_NOOP &&
		    nl->nlmsg_type != NLMSG_ERROR && payload >= sizeof(*cn) &&
		    cn->id.idx == CN_IDX_PROC && cn->id.val == CN_VAL_PROC &&
		    cn->len >= offsetof(struct proc_event, event_data) + 16 &&
		    payload - sizeof(*cn) >= cn->len) {
			/* cn->data sits 4 bytes off the event's 8-byte
			 * alignment. */
			memcpy(&pe, cn->data,
			       cn->len < sizeof(pe) ? cn->len : sizeof(pe));
			if (pe.what == PROC_EVENT_NONE) {
				acks->count++;
				acks->last_error = (int)pe.event_data.ack.err;
			}
			events_emit(&pe, fn, ctx);
			count++;
		}
		step = NLMSG_ALIGN(nl->nlmsg_len);
		if (step >= len)
			break;
		len -= step;
		nl = (const struct nlmsghdr *)((const char *)nl + step);
	}
	return count;
}

/* Reads until nothing is left, many datagrams per system call, or until
 * a few thousand were read: a flood faster than the daemon reads would
 * otherwise keep it here, before it can judge the flood. The socket is
 * still readable then, and the loop comes back at once. *lost when
 * events were lost (ENOBUFS: the caller must rescan). */
enum os_status events_read(struct events *ev, events_fn fn, void *ctx,
			   bool *lost)
{
	enum {
		BATCH = 64,
		SIZE = 256,
		BATCHES = 64,
	};
	/* Aligned for struct nlmsghdr. */
	static uint64_t bufs[BATCH][SIZE / sizeof(uint64_t)];
	static struct sockaddr_nl from[BATCH];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];

	*lost = false;

	for (int batches = 0; batches < BATCHES; batches++) {
		int n;

		for (int i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){bufs[i], SIZE};
			msgs[i] = (struct mmsghdr){
				.msg_hdr = {.msg_name = &from[i],
					    .msg_namelen = sizeof(from[i]),
					    .msg_iov = &iov[i],
					    .msg_iovlen = 1},
			};
		}
		n = recvmmsg(ev->fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			ev->overflows++;
			*lost = true;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return OS_OK;
		if (n < 0)
			return status_of_errno(errno);
		for (int i = 0; i < n; i++) {
			/* Only the kernel speaks on this socket. */
			if (msgs[i].msg_hdr.msg_namelen != sizeof(from[i]) ||
			    from[i].nl_pid != 0)
				continue;
			ev->received += events_parse(bufs[i], msgs[i].msg_len,
						     fn, ctx, &ev->acks);
		}
		/* A short batch drained the queue: no need to ask again. */
		if (n < BATCH)
			return OS_OK;
	}
	return OS_OK;
}

/* The inode numbers of the initial namespaces are fixed by the kernel
 * (PROC_PID_INIT_INO, PROC_USER_INIT_INO in include/linux/proc_ns.h). An
 * unreadable link counts as initial: then another reason is named. */
static bool events_initial_ns(const char *link, ino_t initial)
{
	struct stat st;

	return stat(link, &st) < 0 || st.st_ino == initial;
}

static bool events_cap_net_admin(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t value = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, CAP_NET_ADMIN, CAP_EFFECTIVE, &value);
		cap_free(caps);
	}
	return value == CAP_SET;
}

/* The facts behind a refusal, read right after it (status, and error:
 * its errno). */
void events_env_read(struct events_env *env, enum os_status status, int error)
{
	struct utsname u;

	*env = (struct events_env){.status = status, .error = error};
	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &env->kernel_major,
		       &env->kernel_minor);
	env->cap_net_admin = events_cap_net_admin();
	env->initial_pid_ns =
		events_initial_ns("/proc/self/ns/pid", 0xEFFFFFFCu);
	env->initial_user_ns =
		events_initial_ns("/proc/self/ns/user", 0xEFFFFFFDu);
}

/* Why the kernel sends no process events, and what would make it: the
 * proc connector lives only in the initial network namespace; it ignores
 * a subscription from any PID or user namespace but the initial ones,
 * whatever the kernel's version; before Linux 6.6 it also wants
 * CAP_NET_ADMIN. */
void events_refusal(const struct events_env *env, char *buf, size_t size)
{
	bool before_6_6 = env->kernel_major < 6 ||
			  (env->kernel_major == 6 && env->kernel_minor < 6);

	/* No connector here (events_failed): another network namespace,
	 * or a kernel built without one. */
	if (env->status == OS_UNSUPPORTED)
		snprintf(buf, size,
			 "no proc connector here: it exists only in the "
			 "initial network namespace (of a kernel built with "
			 "CONFIG_PROC_EVENTS), and cpupolicyd runs in another "
			 "one: start it in the initial one, or pass it a proc "
			 "connector socket opened there (cpupolicyd.socket's "
			 "ListenNetlink=connector 1)");
	else if (!env->initial_pid_ns || !env->initial_user_ns)
		snprintf(buf, size,
			 "the kernel sends process events only to the initial "
			 "PID and user namespaces, and cpupolicyd runs in a "
			 "%s namespace of its own (a container?): run it on "
			 "the host, or in the host's PID and user namespaces",
			 !env->initial_pid_ns ? "PID" : "user");
	else if (env->status == OS_DENIED && before_6_6 && !env->cap_net_admin)
		snprintf(buf, size,
			 "Linux %d.%d lets only a process with CAP_NET_ADMIN "
			 "subscribe to process events (6.6 and later let any "
			 "process): give cpupolicyd CAP_NET_ADMIN (see "
			 "cpupolicyd(8))",
			 env->kernel_major, env->kernel_minor);
	else
		snprintf(buf, size, "the proc connector refused: %s",
			 strerror(env->error));
}

/* Why events_open failed, and what would make it work. */
void events_why_not(const struct events *ev, enum os_status status, char *buf,
		    size_t size)
{
	struct events_env env;

	events_env_read(&env, status, ev->error);
	events_refusal(&env, buf, size);
}
