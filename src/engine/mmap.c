/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mmap: the region is mapped once and each op is a memcpy (tiotest -M). One mapping of the
 * whole region, 64-bit offsets throughout: no 1 GiB chunking, so no chunk-boundary bugs. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int mmap_open(struct engine_file *f, const char *path, int flags, uint64_t base,
		     uint64_t len, const char **what)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t aligned = base - base % (uint64_t)page;
	void *m;

	f->fd = open(path, flags | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		*what = "open";
		return -errno;
	}
	/* mmap offsets must be page aligned; keep the slack in front of the region */
	m = mmap(NULL, len + (base - aligned), PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)aligned);
	if (m == MAP_FAILED) {
		int err = errno;

		close(f->fd);
		f->fd = -1;
		*what = "mmap";
		return -err;
	}
	f->map = (char *)m + (base - aligned);
	f->map_base = base;
	f->map_len = len;
	madvise(m, len + (base - aligned), f->random ? MADV_RANDOM : MADV_SEQUENTIAL);
	return 0;
}

static int mmap_rw(struct engine_file *f, bool write, void *buf, size_t len, uint64_t off)
{
	char *p = f->map + (off - f->map_base);

	if (write)
		memcpy(p, buf, len);
	else
		memcpy(buf, p, len);
	if (f->sync_each) {
		long page = sysconf(_SC_PAGESIZE);
		uintptr_t a = (uintptr_t)p - (uintptr_t)p % (uintptr_t)page;

		if (msync((void *)a, len + ((uintptr_t)p - a), MS_SYNC) < 0)
			return -errno;
	}
	return 0;
}

static int mmap_flush(struct engine_file *f)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)f->map - (uintptr_t)f->map % (uintptr_t)page;

	if (msync((void *)a, f->map_len + ((uintptr_t)f->map - a), MS_SYNC) < 0)
		return -errno;
	return fsync(f->fd) < 0 ? -errno : 0;
}

static int mmap_close(struct engine_file *f)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)f->map - (uintptr_t)f->map % (uintptr_t)page;
	int rc = 0;

	if (f->map && munmap((void *)a, f->map_len + ((uintptr_t)f->map - a)) < 0)
		rc = -errno;
	f->map = NULL;
	if (close(f->fd) < 0 && !rc)
		rc = -errno;
	f->fd = -1;
	return rc;
}

/* No requests: mmap moves one file's data and nothing else (fs_mark cannot use it), one
 * memcpy at a time. */
const struct engine_ops engine_mmap = {
	.name = "mmap",
	.summary = "the file region mapped once, each operation a memcpy (tiotest -M); data only, "
		   "depth 1",
	.caps = 0,
	.max_depth = 1,
	.open = mmap_open,
	.rw = mmap_rw,
	.flush = mmap_flush,
	.close = mmap_close,
};
