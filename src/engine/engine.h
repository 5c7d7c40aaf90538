/* I/O engines: how one block is moved between a buffer and a file. The workload owns offsets,
 * timing and statistics; an engine only does the transfer.
 *
 * Hook contract:
 *   open   opens path with flags (O_RDWR etc. already chosen by the workload) and prepares a
 *          region [base, base+len) of it for I/O; 0 or -errno, the syscall that failed in *what.
 *   rw     moves exactly len bytes at off (absolute); retries EINTR and short transfers;
 *          0 or -errno (a transfer that makes no progress is -EIO).
 *   flush  makes the region durable (the end-of-phase fsync); 0 or -errno.
 *   close  releases everything open() took; 0 or -errno. */
#ifndef FSB_ENGINE_H
#define FSB_ENGINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sys/syscall.h>

struct engine_file {
	int fd;
	char *map;               /* mmap engine: the mapped region */
	uint64_t map_base;       /* file offset of map[0] */
	uint64_t map_len;
	bool sync_each;          /* msync(MS_SYNC) after every op (tiotest -S with -M) */
	bool random;             /* access pattern hint for madvise */
};

struct engine_ops {
	const char *name;
	int (*open)(struct engine_file *f, const char *path, int flags, uint64_t base, uint64_t len,
		    const char **what);
	int (*rw)(struct engine_file *f, bool write, void *buf, size_t len, uint64_t off);
	int (*flush)(struct engine_file *f);
	int (*close)(struct engine_file *f);
};

extern const struct engine_ops engine_psync;
extern const struct engine_ops engine_mmap;

/* The short-transfer and EINTR loop every fd-based engine uses. */
int engine_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);
int engine_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* The psync transfer, inlined into a workload's op loop: on tmpfs a pread is ~1.2 us and
 * every call and wrapper in front of it shows in the rate. One raw syscall on x86-64 (no
 * libc wrapper, no cancellation point: fsbench never cancels threads); a short or failed
 * transfer falls back to the full loop above. */
static inline long engine_raw_prw(long nr, int fd, const void *buf, size_t len, uint64_t off)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = (long)off;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"((long)fd), "S"(buf), "d"(len), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return -1;               /* not reached: the fallback below takes it */
#endif
}

static inline int engine_psync_rw(int fd, bool write, void *buf, size_t len, uint64_t off)
{
#if defined(__x86_64__)
	long n = engine_raw_prw(write ? SYS_pwrite64 : SYS_pread64, fd, buf, len, off);

	if (__builtin_expect(n == (long)len, 1))
		return 0;
	if (n < 0 && n != -EINTR)
		return (int)n;
	if (n > 0) {
		/* a short transfer: the rest goes through the loop */
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
#endif
	return write ? engine_pwrite_full(fd, buf, len, off) : engine_pread_full(fd, buf, len, off);
}
#endif
