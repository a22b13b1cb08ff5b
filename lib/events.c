/* Process events from the kernel through the netlink proc connector.
 * Matching happens at exec, never at fork: a forked child still carries
 * its parent's name and exe, and its exec event is the one that counts. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "events.h"

/* Bursts of thousands of execs must fit: what does not is lost (ENOBUFS),
 * and then the caller rescans /proc. */
#define EVENTS_RCVBUF (8 << 20)

static int events_subscribe(int fd, enum proc_cn_mcast_op op)
{
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg = {0};

	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(msg.op);
	msg.op = op;
	return send(fd, &msg, sizeof(msg), 0) == (ssize_t)sizeof(msg) ? 0 : -1;
}

int events_open(struct events *ev)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = CN_IDX_PROC,
	};
	int size = EVENTS_RCVBUF;

	*ev = (struct events){.fd = -1};
	ev->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_CONNECTOR);
	if (ev->fd < 0)
		return -1;
	/* FORCE goes past rmem_max; without the privilege take what we get. */
	if (setsockopt(ev->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)) < 0)
		setsockopt(ev->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(ev->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    events_subscribe(ev->fd, PROC_CN_MCAST_LISTEN) < 0) {
		int saved = errno;

		close(ev->fd);
		ev->fd = -1;
		errno = saved;
		return -1;
	}
	return 0;
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
	case PROC_EVENT_FORK:
		/* A new process is matched at its exec; only new threads of
		 * existing processes matter here. */
		if (pe->event_data.fork.child_pid ==
		    pe->event_data.fork.child_tgid)
			return;
		e = (struct events_event){EVENTS_KIND_THREAD,
					  pe->event_data.fork.child_tgid,
					  pe->event_data.fork.child_pid};
		break;
	case PROC_EVENT_EXEC:
		e = (struct events_event){EVENTS_KIND_EXEC,
					  pe->event_data.exec.process_tgid,
					  pe->event_data.exec.process_tgid};
		break;
	case PROC_EVENT_COMM:
		/* Thread names do not name the process. */
		if (pe->event_data.comm.process_pid !=
		    pe->event_data.comm.process_tgid)
			return;
		e = (struct events_event){EVENTS_KIND_RENAME,
					  pe->event_data.comm.process_tgid,
					  pe->event_data.comm.process_tgid};
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		if (pe->event_data.id.process_pid !=
		    pe->event_data.id.process_tgid)
			return;
		e = (struct events_event){EVENTS_KIND_RENAME,
					  pe->event_data.id.process_tgid,
					  pe->event_data.id.process_tgid};
		break;
	case PROC_EVENT_EXIT:
		e = (struct events_event){EVENTS_KIND_EXIT,
					  pe->event_data.exit.process_tgid,
					  pe->event_data.exit.process_pid};
		break;
	default:
		return;
	}
	fn(ctx, &e);
}

/* One datagram: netlink messages, each a connector message holding one
 * proc event. Anything short or malformed is skipped, never trusted. */
int events_parse(const void *buf, size_t len, events_fn fn, void *ctx)
{
	const struct nlmsghdr *nl = buf;
	int count = 0;

	for (; NLMSG_OK(nl, len); nl = NLMSG_NEXT(nl, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nl);
		struct proc_event pe = {0};
		size_t payload = NLMSG_PAYLOAD(nl, 0);

		if (nl->nlmsg_type == NLMSG_NOOP ||
		    nl->nlmsg_type == NLMSG_ERROR)
			continue;
		/* Every event used here keeps its ids in the first 16 bytes
		 * of event_data, whatever the kernel's version of the union. */
		if (payload < sizeof(*cn) || cn->id.idx != CN_IDX_PROC ||
		    cn->id.val != CN_VAL_PROC ||
		    cn->len < offsetof(struct proc_event, event_data) + 16 ||
		    payload - sizeof(*cn) < cn->len)
			continue;
		/* cn->data sits 4 bytes off the event's 8-byte alignment. */
		memcpy(&pe, cn->data,
		       cn->len < sizeof(pe) ? cn->len : sizeof(pe));
		events_emit(&pe, fn, ctx);
		count++;
	}
	return count;
}

/* Reads until nothing is left. Returns 1 when events were lost (the
 * caller must rescan), 0 otherwise, -1 when the socket failed. */
int events_read(struct events *ev, events_fn fn, void *ctx)
{
	/* Aligned for struct nlmsghdr. */
	static uint64_t buf[4096 / sizeof(uint64_t)];
	int lost = 0;

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = {buf, sizeof(buf)};
		struct msghdr msg = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n = recvmsg(ev->fd, &msg, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			ev->overflows++;
			lost = 1;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return lost;
		if (n < 0)
			return -1;
		/* Only the kernel speaks on this socket. */
		if (msg.msg_namelen != sizeof(from) || from.nl_pid != 0)
			continue;
		ev->received += (unsigned long long)events_parse(buf, (size_t)n,
								 fn, ctx);
	}
}
