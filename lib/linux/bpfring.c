/* The reader of the exec filter's BPF ring buffer (BPF_MAP_TYPE_RINGBUF),
 * by the layout the kernel documents (Documentation/bpf/ringbuf.rst):
 * a page with the consumer's position, which the daemon writes, then a
 * page with the producer's, then the data, mapped twice in a row so that
 * a record that wraps reads as one. Each record starts with an 8-byte
 * header: its length, with a bit while the program still writes it and
 * one when it discarded it; records are 8-byte aligned. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "linux.h"
#include "util.h"

struct bpfring {
	int fd;
	size_t page, size; /* size: the data's, a power of 2 */
	unsigned long *consumer;
	const unsigned long *producer;
	const unsigned char *data;
};

/* The ring of map fd, mapped; NULL and errno on a failure. */
struct bpfring *bpfring_open(int fd)
{
	struct bpfring *r = xcalloc(1, sizeof(*r));
	unsigned entries;
	void *p;

	r->fd = fd;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	if (bpfmap_max_entries(fd, &entries) < 0)
		goto fail;
	r->size = entries;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->consumer = p;
	p = mmap(NULL, r->page + 2 * r->size, PROT_READ, MAP_SHARED, fd,
		 (off_t)r->page);
	if (p == MAP_FAILED)
		goto fail;
	r->producer = p;
	r->data = (const unsigned char *)p + r->page;
	return r;
fail:
	bpfring_close(r);
	return NULL;
}

void bpfring_close(struct bpfring *r)
{
	int saved = errno;

	if (!r)
		return;
	if (r->consumer)
		munmap(r->consumer, r->page);
	if (r->producer)
		munmap((void *)r->producer, r->page + 2 * r->size);
	free(r);
	errno = saved;
}

/* A record's room in the ring: its header and data, 8-byte aligned. */
static unsigned long bpfring_room(__u32 len)
{
	len &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
	return ((unsigned long)len + BPF_RINGBUF_HDR_SZ + 7) / 8 * 8;
}

/* Hands each record written in full to fn, in the ring's order, until
 * none is left or fn returns less than 0: then that record is taken and
 * fn's value returned, the rest stays for the next call. The number of
 * records otherwise. The producer's position is read with acquire and
 * the consumer's written with release, as the kernel's side pairs them. */
int bpfring_consume(struct bpfring *r, bpfring_fn fn, void *ctx)
{
	unsigned long consumer = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	unsigned long producer;
	int count = 0;

	do {
		producer = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		while (consumer < producer) {
			const __u32 *header =
				(const __u32 *)(r->data +
						(consumer & (r->size - 1)));
			__u32 len = __atomic_load_n(header, __ATOMIC_ACQUIRE);
			int status = 0;

			if (len & BPF_RINGBUF_BUSY_BIT)
				return count; /* still being written */
			consumer += bpfring_room(len);
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				status = fn(ctx,
					    (const unsigned char *)header +
						    BPF_RINGBUF_HDR_SZ,
					    len);
				count++;
			}
			__atomic_store_n(r->consumer, consumer,
					 __ATOMIC_RELEASE);
			if (status < 0)
				return status;
		}
	} while (__atomic_load_n(r->producer, __ATOMIC_ACQUIRE) != producer);
	return count;
}
