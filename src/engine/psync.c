/* psync: one pread/pwrite per op, as tiotest and fs_mark do. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/run.h"

/* Raw syscalls: glibc's pread/pwrite are cancellation points and, once the process has more
 * than one thread, wrap every call in cancellation enable/disable (atomics, ~15 ns per op).
 * fsbench never cancels threads, so it skips that. */
static inline ssize_t sys_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	return (ssize_t)syscall(SYS_pwrite64, fd, buf, len, (off_t)off);
}

static inline ssize_t sys_pread(int fd, void *buf, size_t len, uint64_t off)
{
	return (ssize_t)syscall(SYS_pread64, fd, buf, len, (off_t)off);
}

int engine_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = sys_pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR && !run_stopping())
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int engine_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = sys_pread(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR && !run_stopping())
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA; /* past end of file: the block was never there */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int psync_open(struct engine_file *f, const char *path, int flags, uint64_t base,
		      uint64_t len, const char **what)
{
	(void)base;
	(void)len;
	f->map = NULL;
	f->fd = open(path, flags | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		*what = "open";
		return -errno;
	}
	return 0;
}

static int psync_rw(struct engine_file *f, bool write, void *buf, size_t len, uint64_t off)
{
	if (write)
		return engine_pwrite_full(f->fd, buf, len, off);
	return engine_pread_full(f->fd, buf, len, off);
}

static int psync_flush(struct engine_file *f)
{
	return fsync(f->fd) < 0 ? -errno : 0;
}

static int psync_close(struct engine_file *f)
{
	int rc = close(f->fd) < 0 ? -errno : 0;

	f->fd = -1;
	return rc;
}

const struct engine_ops engine_psync = {
	.name = "psync",
	.open = psync_open,
	.rw = psync_rw,
	.flush = psync_flush,
	.close = psync_close,
};
