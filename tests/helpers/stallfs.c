/* A FUSE filesystem of one executable file that stops answering on
 * SIGUSR1, as a user's own FUSE server may: whoever then asks it for
 * anything waits for good. The exe identity test runs a program from it
 * and checks that the daemon does not wait.
 *   stallfs MOUNTPOINT FILE
 * Mounts at MOUNTPOINT a directory holding "app", FILE's bytes, mode 0755,
 * with attributes that are never valid for long (so that a stat asks
 * again), and serves it until SIGUSR1; needs root. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
	STALLFS_FILE = 2, /* the node id of "app" */
};

static volatile sig_atomic_t stalled;
static char *content;
static size_t content_size;

static void stallfs_stall(int sig)
{
	(void)sig;
	stalled = 1;
}

static void stallfs_reply(int fd, uint64_t unique, int error, const void *body,
			  size_t size)
{
	struct fuse_out_header out = {
		.len = (uint32_t)(sizeof(out) + size),
		.error = -error,
		.unique = unique,
	};
	struct iovec iov[2] = {{&out, sizeof(out)}, {(void *)body, size}};

	if (writev(fd, iov, size ? 2 : 1) < 0 && errno != ENOENT)
		perror("stallfs: reply");
}

static void stallfs_attr(uint64_t node, struct fuse_attr *attr)
{
	*attr = (struct fuse_attr){.ino = node, .blksize = 4096};
	if (node == STALLFS_FILE) {
		attr->mode = S_IFREG | 0755;
		attr->nlink = 1;
		attr->size = content_size;
		attr->blocks = (content_size + 511) / 512;
	} else {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
	}
}

static void stallfs_lookup(int fd, const struct fuse_in_header *in,
			   const char *name)
{
	struct fuse_entry_out entry = {.nodeid = STALLFS_FILE, .generation = 1};

	if (in->nodeid != FUSE_ROOT_ID || strcmp(name, "app") != 0) {
		stallfs_reply(fd, in->unique, ENOENT, NULL, 0);
		return;
	}
	stallfs_attr(STALLFS_FILE, &entry.attr);
	stallfs_reply(fd, in->unique, 0, &entry, sizeof(entry));
}

static void stallfs_read(int fd, const struct fuse_in_header *in,
			 const struct fuse_read_in *read_in)
{
	size_t size = read_in->size;

	if (read_in->offset >= content_size)
		size = 0;
	else if (size > content_size - read_in->offset)
		size = content_size - read_in->offset;
	stallfs_reply(fd, in->unique, 0, content + read_in->offset, size);
}

static void stallfs_request(int fd, const char *buf)
{
	const struct fuse_in_header *in = (const void *)buf;
	const void *arg = buf + sizeof(*in);
	struct fuse_init_out init = {.major = FUSE_KERNEL_VERSION,
				     .minor = FUSE_KERNEL_MINOR_VERSION,
				     .max_write = 4096,
				     .time_gran = 1};
	struct fuse_attr_out attr = {0};
	struct fuse_open_out open_out = {.fh = 1};

	switch (in->opcode) {
	case FUSE_INIT:
		init.max_readahead =
			((const struct fuse_init_in *)arg)->max_readahead;
		stallfs_reply(fd, in->unique, 0, &init, sizeof(init));
		break;
	case FUSE_LOOKUP:
		stallfs_lookup(fd, in, arg);
		break;
	case FUSE_GETATTR:
		stallfs_attr(in->nodeid, &attr.attr);
		stallfs_reply(fd, in->unique, 0, &attr, sizeof(attr));
		break;
	case FUSE_OPEN:
		stallfs_reply(fd, in->unique, 0, &open_out, sizeof(open_out));
		break;
	case FUSE_READ:
		stallfs_read(fd, in, arg);
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_DESTROY:
		stallfs_reply(fd, in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break; /* no answer */
	default:
		stallfs_reply(fd, in->unique, ENOSYS, NULL, 0);
		break;
	}
}

static void stallfs_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		perror(path);
		exit(2);
	}
	content_size = (size_t)size;
	content = malloc(content_size ? content_size : 1);
	if (!content || fread(content, 1, content_size, f) != content_size) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	char options[128];
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: stallfs MOUNTPOINT FILE\n");
		return 2;
	}
	stallfs_load(argv[2]);
	/* No SA_RESTART: the read in progress ends, and the loop sees it. */
	sigaction(SIGUSR1, &(struct sigaction){.sa_handler = stallfs_stall},
		  NULL);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/fuse");
		return 2;
	}
	snprintf(options, sizeof(options),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("stallfs", argv[1], "fuse", MS_NOSUID | MS_NODEV, options) <
	    0) {
		perror("mount");
		return 2;
	}
	while (!stalled) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("stallfs: read");
			return 1;
		}
		stallfs_request(fd, buf);
	}
	/* Never answer again, and keep the connection: a request now waits
	 * until this process dies. */
	for (;;)
		pause();
}
