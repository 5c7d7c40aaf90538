/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psync: one syscall per op, as tiotest and fs_mark do: the data path of one file (its rw is
 * engine_psync_rw(), inlined in the op loop) and the synchronous request executor, which the
 * other fd-based engines reuse. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/run.h"

/* Raw syscalls: glibc's wrappers are cancellation points and, once the process has more than
 * one thread, wrap every call in cancellation enable/disable (atomics, ~15 ns per op). fsbench
 * never cancels threads, so it skips that. Returns the kernel's value: -errno on failure. */
static inline long sys6(long nr, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long ret = syscall(nr, a, b, c, d, e);

	return ret < 0 ? -errno : ret;
#endif
}

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

/* ---- requests ------------------------------------------------------------------------------- */
static long do_once(const struct engine_req *r, int fd)
{
	switch (r->op) {
	case ENGINE_OP_READ:
		if (r->off == ENGINE_OFF_CUR)
			return sys6(SYS_read, fd, (long)r->buf, (long)r->len, 0, 0);
		return sys6(SYS_pread64, fd, (long)r->buf, (long)r->len, (long)r->off, 0);
	case ENGINE_OP_WRITE:
		if (r->off == ENGINE_OFF_CUR)
			return sys6(SYS_write, fd, (long)r->buf, (long)r->len, 0, 0);
		return sys6(SYS_pwrite64, fd, (long)r->buf, (long)r->len, (long)r->off, 0);
	case ENGINE_OP_FSYNC:
		return sys6(SYS_fsync, fd, 0, 0, 0, 0);
	case ENGINE_OP_FDATASYNC:
		return sys6(SYS_fdatasync, fd, 0, 0, 0, 0);
	case ENGINE_OP_OPENAT:
		return sys6(SYS_openat, fd, (long)r->name, r->flags, (long)r->mode, 0);
	case ENGINE_OP_CLOSE:
		return sys6(SYS_close, fd, 0, 0, 0, 0);
	case ENGINE_OP_FSETXATTR:
		return sys6(SYS_fsetxattr, fd, (long)r->name, (long)r->buf, (long)r->len, r->flags);
	case ENGINE_OP_STATX:
		return sys6(SYS_statx, fd, (long)r->name, r->flags, (long)r->mode, (long)r->buf);
	case ENGINE_OP_UNLINKAT:
		return sys6(SYS_unlinkat, fd, (long)r->name, r->flags, 0, 0);
	case ENGINE_OP_MKDIRAT:
		return sys6(SYS_mkdirat, fd, (long)r->name, (long)r->mode, 0, 0);
	default:
		return -EINVAL;
	}
}

/* inlined into the chain walk: fs_mark's create loop runs three or more of these per file */
static inline __attribute__((always_inline)) void psync_do(struct engine_req *r, int chain_fd)
{
	int fd = r->fd == ENGINE_FD_CHAIN ? chain_fd : r->fd;
	long n;

	if (fd == ENGINE_FD_CHAIN) {
		/* a chain that uses its file without an openat before: the caller's bug */
		r->result = -EBADF;
		return;
	}
	for (;;) {
		n = do_once(r, fd);
		/* Linux releases the descriptor even when close is interrupted: retrying could
		 * close a descriptor another thread just got */
		if (n == -EINTR && r->op == ENGINE_OP_CLOSE)
			n = 0;
		if (n != -EINTR || run_stopping())
			break;
	}
	r->result = n;
}

void engine_psync_do(struct engine_req *r, int chain_fd)
{
	psync_do(r, chain_fd);
}

void engine_psync_chain(struct engine_req *head, bool stamp_submit)
{
	int chain_fd = ENGINE_FD_CHAIN;
	uint64_t t = lat_now();

	for (struct engine_req *r = head; r; r = r->next) {
		if (stamp_submit)
			r->submit_lat = t;
		psync_do(r, chain_fd);
		t = lat_now();
		r->done_lat = t;
		if (r->op == ENGINE_OP_OPENAT && r->result >= 0)
			chain_fd = (int)r->result;
		if (r->result < 0 || (engine_req_rw(r) && (uint64_t)r->result < r->len)) {
			for (struct engine_req *c = r->next; c; c = c->next) {
				c->result = -ECANCELED;
				if (stamp_submit)
					c->submit_lat = t;
				c->done_lat = t;
			}
			break;
		}
	}
}

static void psync_exec(struct engine_ctx *ctx, struct engine_req *head)
{
	(void)ctx;
	engine_psync_chain(head, true);
}

/* ---- one file's data path ------------------------------------------------------------------- */
int engine_fd_open(struct engine_file *f, const char *path, int flags, uint64_t base, uint64_t len,
		   const char **what)
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

int engine_fd_flush(struct engine_file *f)
{
	return fsync(f->fd) < 0 ? -errno : 0;
}

int engine_fd_close(struct engine_file *f)
{
	int rc = close(f->fd) < 0 ? -errno : 0;

	f->fd = -1;
	return rc;
}

const struct engine_ops engine_psync = {
	.name = "psync",
	.summary = "one synchronous system call per operation (pread/pwrite, openat, write, fsync, "
		   "close ...), as tiotest and fs_mark issue them; depth 1",
	.caps = ENGINE_DATA | ENGINE_META,
	.max_depth = 1,
	.open = engine_fd_open,
	.rw = psync_rw,
	.flush = engine_fd_flush,
	.close = engine_fd_close,
	.exec = psync_exec,
};
