/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tiotest workload: file setup, the four phases and the per-thread op loop.
 * Compatibility notes say which tiotest 0.4.2 behaviour each choice keeps or fixes. */
#include "workload/tiotest.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <zlib.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/outfile.h"
#include "core/pack.h"
#include "workload/run_opts.h"
#include "workload/workload.h"
#include "engine/engine.h"
#include "sys/blockdev.h"

extern char **environ;

const char *const tio_phase_name[TIO_NPHASES] = { "write", "random_write", "read", "random_read" };
const char *const tio_phase_label[TIO_NPHASES] = { "Write", "Random Write", "Read", "Random Read" };

static const bool phase_writes[TIO_NPHASES] = { true, true, false, false };
static const bool phase_random[TIO_NPHASES] = { false, true, false, true };

/* What persists for one thread across phases: its file and, with -c, which generation each
 * block holds (0: sequential write, 1: random write). */
struct tio_thread {
	char path[PATH_MAX];
	/* what path must still be when a phase reopens it: the file fsbench created (dev, ino),
	 * or with -R the device (rdev) the run holds */
	dev_t dev, rdev;
	ino_t ino;
	uint64_t base;           /* first byte of the thread's region (non-zero only with -R) */
	unsigned char *gen;      /* -c: one bit per block */
	void *buf;               /* bs bytes, page aligned (O_DIRECT) */
	/* the queued path (tio_queued()): the engine context, made once for every phase so a
	 * ring's setup is not inside a phase's time, and one slot per request in flight */
	struct engine_ctx ctx;
	struct tio_slot *slots;
	void *qbuf;              /* the slots' blocks, each page aligned */
	struct tio_slot **free_slots;
	struct engine_req **sub, **done;
};

/* One op in flight on the queued path. A short transfer is resubmitted for the rest in the
 * same slot, and the op counts once, from its first submission to its last completion (what
 * engine_psync_rw's loop does at depth 1). */
struct tio_slot {
	struct engine_req req;
	unsigned char *buf;
	uint64_t b, off;         /* block index and its offset */
	uint64_t t0;             /* the first submission (lat_now units), 0 before */
};

struct tio_worker {
	const struct tio_config *c;
	struct tio_thread *t;
	enum tio_phase phase;
	uint64_t seed;           /* this thread's seed for this phase */
	uint64_t flush_ns;
	struct engine_workers wq;  /* the engine's kernel workers at the end of the phase */
	struct opstat st;
};

/* splitmix64: tiny, fast, and good enough for offsets and payload bytes */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, n) by multiply-shift: no modulo bias worth the name, no division */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

/* -c block layout: a 32-byte header, then payload from a PRNG keyed by (seed, offset). */
#define VHDR_MAGIC 0x46534231u   /* "FSB1" */
struct vhdr {
	uint32_t magic;
	uint32_t crc;            /* crc32 of the whole block with this field zero */
	uint64_t offset;
	uint64_t seed;
	uint32_t file_id;
	uint32_t gen;
};

static uint32_t block_crc(unsigned char *blk, size_t len)
{
	struct vhdr *h = (struct vhdr *)blk;
	uint32_t saved = h->crc, crc;

	h->crc = 0;
	crc = (uint32_t)crc32(0, blk, (uInt)len);
	h->crc = saved;
	return crc;
}

static void block_fill(unsigned char *blk, size_t len, uint64_t off, uint64_t seed,
		       uint32_t file_id, uint32_t gen)
{
	struct vhdr *h = (struct vhdr *)blk;
	uint64_t s = seed ^ (off * UINT64_C(0x9e3779b97f4a7c15));
	size_t i;

	for (i = sizeof(*h); i + 8 <= len; i += 8) {
		uint64_t v = rng_next(&s);

		memcpy(blk + i, &v, 8);
	}
	for (; i < len; i++)
		blk[i] = (unsigned char)rng_next(&s);
	*h = (struct vhdr){ .magic = VHDR_MAGIC, .offset = off, .seed = seed, .file_id = file_id,
			    .gen = gen };
	h->crc = block_crc(blk, len);
}

/* 0 when the block read back is the one written there; else a reason */
static const char *block_check(unsigned char *blk, size_t len, uint64_t off, uint32_t file_id,
			       uint32_t gen)
{
	struct vhdr h;

	memcpy(&h, blk, sizeof(h));
	if (h.magic != VHDR_MAGIC)
		return "no fsbench block header (block lost or never written)";
	if (block_crc(blk, len) != h.crc)
		return "checksum mismatch (block corrupted)";
	if (h.file_id != file_id)
		return "block belongs to another thread's file";
	if (h.offset != off)
		return "block belongs at another offset (misplaced write)";
	if (h.gen != gen)
		return "stale block (an older write of this offset)";
	return NULL;
}

static inline bool gen_get(const unsigned char *g, uint64_t b)
{
	return g[b >> 3] & (1u << (b & 7));
}

static inline void gen_set(unsigned char *g, uint64_t b)
{
	g[b >> 3] |= (unsigned char)(1u << (b & 7));
}

static int tio_open_flags(const struct tio_config *c)
{
	/* O_RDWR in every phase as 0.4.x does; no O_CREAT: the file exists since setup, so a
	 * symlink swapped in later is refused (O_NOFOLLOW), and -R never creates anything */
	int flags = O_RDWR;

	if (!c->raw)
		flags |= O_NOFOLLOW;
	if (c->sync)
		flags |= O_SYNC;
	if (c->direct)
		flags |= O_DIRECT;
	return flags;
}

static void fail_io(const struct tio_config *c, int err, const char *what, const char *path,
		    int64_t off)
{
	if (err == -EINVAL && c->direct)
		run_fail_detail(-err, what, path, off, "%s (O_DIRECT needs the block size and offsets "
				"aligned to the device's logical block size)", strerror(-err));
	else if (err == -ENODATA)
		run_fail_detail(EIO, what, path, off, "unexpected end of file");
	else
		run_fail(-err, what, path, off);
}

/* Requests in flight (engine.h) instead of one transfer at a time: an engine without a data
 * path of its own, or a depth above 1. */
static bool tio_queued(const struct tio_config *c)
{
	return c->eng.iodepth > 1 || !c->eng.ops->rw;
}

/* What the queued path keeps per thread: never more slots than one phase has ops. */
static unsigned tio_depth(const struct tio_config *c)
{
	uint64_t most = c->blocks > c->random_ops ? c->blocks : c->random_ops;

	return (unsigned)(c->eng.iodepth < most ? c->eng.iodepth : most);
}

/* A completed request of the queued path: the op recorded from its own timestamps, checked
 * with -c, its slot freed; a short transfer goes back in sub[] for the rest. 0 or -errno (the
 * run's error, recorded). */
static int tio_complete(struct worker *w, struct tio_worker *tw, struct engine_req *r,
			unsigned *nfree, unsigned *nsub)
{
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	struct tio_slot *s = r->user;
	const bool write = phase_writes[tw->phase];
	int err;

	if (!s->t0)
		s->t0 = r->submit_lat;
	if (__builtin_expect(r->result == (int64_t)r->len, 1)) {
		t->free_slots[(*nfree)++] = s;
		opstat_add(&tw->st, lat_ns(r->done_lat - s->t0), c->block_bytes);
		if (!c->verify)
			return 0;
		if (write) {
			if (tw->phase == TIO_RWRITE)
				gen_set(t->gen, s->b);
			return 0;
		}
		const char *why = block_check(s->buf, c->block_bytes, s->off, w->id, gen_get(t->gen, s->b));

		if (why) {
			run_fail_detail(EBADMSG, "verify", t->path, (int64_t)s->off, "%s", why);
			return -EBADMSG;
		}
		return 0;
	}
	if (r->result > 0 && !run_stopping()) {
		r->buf = (char *)r->buf + r->result;
		r->len -= (size_t)r->result;
		r->off += (uint64_t)r->result;
		t->sub[(*nsub)++] = r;
		return 0;
	}
	t->free_slots[(*nfree)++] = s;
	if (r->result > 0 || (r->result == -EINTR && run_stopping()))
		return 0;                /* stopped: the op is not counted, and not an error */
	/* no progress: as engine_pwrite_full / engine_pread_full say it */
	err = r->result ? (int)r->result : write ? -EIO : -ENODATA;
	fail_io(c, err, write ? "pwrite" : "pread", t->path, (int64_t)s->off);
	return err;
}

/* The phase's ops with up to ctx->depth requests in flight. The offsets are drawn in the same
 * order as at depth 1 (same seed, same blocks); they complete in the engine's order. After an
 * error or a stop nothing more is submitted and what is in flight is reaped, so nothing is
 * left in the engine when the phase ends. */
static int tio_work_queued(struct worker *w, struct tio_worker *tw, int fd)
{
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	struct engine_ctx *ctx = &t->ctx;
	const bool write = phase_writes[tw->phase], random = phase_random[tw->phase];
	const uint64_t bs = c->block_bytes, blocks = c->blocks;
	const uint64_t n = random ? c->random_ops : blocks;
	const uint32_t gen_now = tw->phase == TIO_RWRITE;
	unsigned nfree = ctx->depth, nsub = 0;
	uint64_t rng = tw->seed, i = 0;
	int rc = 0;

	for (unsigned k = 0; k < ctx->depth; k++)
		t->free_slots[k] = &t->slots[k];
	for (;;) {
		int got;

		while (nfree && i < n && !rc && !run_stopping()) {
			struct tio_slot *s = t->free_slots[--nfree];

			s->b = random ? rng_below(&rng, blocks) : i;
			s->off = t->base + s->b * bs;
			s->t0 = 0;
			if (c->verify && write)
				block_fill(s->buf, bs, s->off, tw->seed, w->id, gen_now);
			s->req = (struct engine_req){ .op = write ? ENGINE_OP_WRITE : ENGINE_OP_READ, .fd = fd,
						      .buf = s->buf, .len = bs, .off = s->off, .user = s };
			t->sub[nsub++] = &s->req;
			i++;
		}
		if (nsub) {
			int e = engine_submit(ctx, t->sub, nsub);

			if (e) {
				/* not in flight: forgotten, and the run's error */
				if (!rc) {
					fail_io(c, e, write ? "pwrite" : "pread", t->path, -1);
					rc = e;
				}
				while (nsub)
					t->free_slots[nfree++] = t->sub[--nsub]->user;
			}
			nsub = 0;
		}
		if (!ctx->inflight)
			break;
		got = engine_reap(ctx, t->done, 1, ctx->depth);
		if (got < 0) {
			/* the engine lost its requests: nothing more can be reaped */
			if (!rc)
				fail_io(c, got, write ? "pwrite" : "pread", t->path, -1);
			return rc ? rc : got;
		}
		for (int k = 0; k < got; k++) {
			int e = tio_complete(w, tw, t->done[k], &nfree, &nsub);

			if (e && !rc)
				rc = e;
		}
		if (rc || run_stopping())
			while (nsub)         /* the rest of a short transfer: not resubmitted */
				t->free_slots[nfree++] = t->sub[--nsub]->user;
	}
	return rc;
}

/* A phase opens its file by name: it must still be the inode fsbench created (a name swapped
 * for a hard link to another file, or renamed over between phases, is neither written nor
 * read), or with -R the device the run holds (a symlink -d now pointing elsewhere). O_NOFOLLOW
 * alone stops neither. open() and mmap() change nothing in the file, so checking here, before
 * the ftruncate and the first transfer, is enough. */
static int same_file(const struct tio_config *c, int fd, const struct tio_thread *t)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (c->raw ? !S_ISBLK(st.st_mode) || st.st_rdev != t->rdev :
		     st.st_dev != t->dev || st.st_ino != t->ino)
		return -ESTALE;
	return 0;
}

static int tio_work(struct worker *w)
{
	struct tio_worker *tw = w->ctx;
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	const struct engine_ops *eng = c->eng.ops;
	const bool write = phase_writes[tw->phase], random = phase_random[tw->phase];
	const uint64_t bs = c->block_bytes, blocks = c->blocks, base = t->base;
	const uint64_t n = random ? c->random_ops : blocks;
	const uint32_t gen_now = tw->phase == TIO_RWRITE;
	const bool psync = eng == &engine_psync, queued = tio_queued(c);
	struct engine_file f = { .fd = -1, .sync_each = c->mmap && c->sync, .random = random,
				 .ctx = queued ? &t->ctx : NULL };
	unsigned char *buf = t->buf;
	uint64_t rng = tw->seed;
	const char *what = "open";
	uint64_t t0, t1;
	int rc;

	rc = eng->open(&f, t->path, tio_open_flags(c), base, blocks * bs, &what);
	if (rc) {
		fail_io(c, rc, what, t->path, -1);
		return rc;
	}
	if ((rc = same_file(c, f.fd, t))) {
		if (rc == -ESTALE)
			run_fail_detail(ESTALE, "open", t->path, -1, "not the %s fsbench %s: it was "
					"replaced (renamed over, or a hard link to another file); "
					"not used", c->raw ? "device" : "file",
					c->raw ? "opened at the start" : "created");
		else
			fail_io(c, rc, "fstat", t->path, -1);
		eng->close(&f);
		return rc;
	}
	/* 0.4.x truncates to the whole-block size at every phase: a no-op after setup, but it keeps
	 * the same syscalls inside the window */
	if (!c->raw && !c->mmap && ftruncate(f.fd, (off_t)(blocks * bs)) < 0) {
		rc = -errno;
		fail_io(c, rc, "ftruncate", t->path, -1);
		goto out;
	}
	/* the queued path, or one transfer at a time (psync inline: the hot path of the bench) */
	if (queued && (rc = tio_work_queued(w, tw, f.fd)))
		goto out;
	for (uint64_t i = 0, end = queued ? 0 : n; i < end; i++) {
		uint64_t b = random ? rng_below(&rng, blocks) : i;
		uint64_t off = base + b * bs;

		if (__builtin_expect(run_stopping(), 0))
			break;
		if (c->verify && write)
			block_fill(buf, bs, off, tw->seed, w->id, gen_now);
		t0 = lat_now();
		/* psync inline; other engines through their hook */
		rc = psync ? engine_psync_rw(f.fd, write, buf, bs, off) : eng->rw(&f, write, buf, bs, off);
		t1 = lat_now();
		if (__builtin_expect(rc != 0, 0)) {
			fail_io(c, rc, write ? (c->mmap ? "memcpy" : "pwrite") : (c->mmap ? "memcpy" : "pread"),
				t->path, (int64_t)off);
			goto out;
		}
		opstat_add(&tw->st, lat_ns(t1 - t0), bs);
		if (c->verify) {
			if (write) {
				if (gen_now)
					gen_set(t->gen, b);
			} else {
				const char *why = block_check(buf, bs, off, w->id, gen_get(t->gen, b));

				if (why) {
					run_fail_detail(EBADMSG, "verify", t->path, (int64_t)off, "%s", why);
					rc = -EBADMSG;
					goto out;
				}
			}
		}
	}
	/* tiotest fsyncs at the end of every phase, reads included, inside the phase time */
	t0 = clock_ns();
	if (queued) {
		/* through the engine too: an asynchronous engine's fsync is one of its requests */
		struct engine_req r = { .op = ENGINE_OP_FSYNC, .fd = f.fd };
		int64_t res = engine_exec1(&t->ctx, &r);

		rc = res < 0 ? (int)res : 0;
	} else {
		rc = eng->flush(&f);
	}
	tw->flush_ns = clock_ns() - t0;
	if (rc && !run_stopping())
		fail_io(c, rc, "fsync", t->path, -1);
out:
	if (queued && eng->workers)
		eng->workers(&t->ctx, &tw->wq);
	{
		int crc = eng->close(&f);

		if (crc && !rc) {
			fail_io(c, crc, "close", t->path, -1);
			rc = crc;
		}
	}
	return rc;
}

/* --hipri: polled completion needs O_DIRECT and, under every -d, a device that polls
 * (queue/io_poll 1: NVMe with poll queues); anything else is refused before the run */
static int hipri_check(const struct tio_config *c, char *err, size_t errlen)
{
	if (!c->direct) {
		snprintf(err, errlen, "option --hipri: polled completion is for O_DIRECT transfers (add -X)");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->dirs.n; i++) {
		struct blockdev b;
		char p[PATH_MAX], v[8] = "";
		FILE *f;

		if (blockdev_resolve(c->dirs.v[i], &b))
			continue;            /* the -d checks say why */
		if (b.kind == BLOCKDEV_NONE) {
			snprintf(err, errlen, "option --hipri: '%s' is on %s, not on a block device: polled "
				 "completion needs a device with poll queues (NVMe: nvme.poll_queues)",
				 c->dirs.v[i], b.mount_known ? b.mount.fstype : "a filesystem without a device");
			return -EOPNOTSUPP;
		}
		snprintf(p, sizeof(p), "/sys/block/%s/queue/io_poll", b.disk);
		if ((f = fopen(p, "r"))) {
			if (!fgets(v, sizeof(v), f))
				v[0] = '\0';
			fclose(f);
		}
		if (v[0] != '1') {
			snprintf(err, errlen, "option --hipri: device %s does not support polled I/O (%s is %s; "
				 "Linux polls NVMe devices with poll queues, nvme.poll_queues)", b.disk, p,
				 v[0] ? (v[strcspn(v, "\n")] = '\0', v) : "missing");
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

int tio_config_check(struct tio_config *c, char *err, size_t errlen)
{
	int rc;

	for (int p = 0; p < TIO_NPHASES; p++)
		c->run_phase[p] = true;
	for (unsigned i = 0; i < c->skip.n; i++)
		c->run_phase[c->skip.v[i]] = false;
	if (c->block_bytes > c->file_bytes) {
		/* tiotest divides by zero here (SIGFPE) */
		snprintf(err, errlen, "block size %llu bytes is larger than the file size %llu bytes",
			 (unsigned long long)c->block_bytes, (unsigned long long)c->file_bytes);
		return -EINVAL;
	}
	c->blocks = c->file_bytes / c->block_bytes;
	if (c->verify && c->block_bytes < sizeof(struct vhdr)) {
		snprintf(err, errlen, "option -c: the block size must be at least %zu bytes to carry "
			 "a verification header", sizeof(struct vhdr));
		return -EINVAL;
	}
	if (c->verify && !c->run_phase[TIO_WRITE] && (c->run_phase[TIO_READ] || c->run_phase[TIO_RREAD])) {
		snprintf(err, errlen, "option -c: verification needs the write phase (do not skip it with -k 0)");
		return -EINVAL;
	}
	if ((c->raw_offset_bytes || c->raw_offset_first) && !c->raw) {
		snprintf(err, errlen, "options -o and -O only apply to raw devices (-R)");
		return -EINVAL;
	}
	rc = engine_select(&c->eng, "tiotest", ENGINE_DATA, true, c->mmap, err, errlen);
	if (rc)
		return rc;
	c->mmap = c->eng.ops == &engine_mmap;
	if (c->direct && c->mmap) {
		snprintf(err, errlen, "options -X and -M cannot be combined (O_DIRECT does not apply to mmap)");
		return -EINVAL;
	}
	c->json_stdout = outfile_is_stdout(c->run.json);
	for (unsigned i = 0; i < c->dirs.n; i++) {
		struct stat st;

		if (c->between && strchr(c->dirs.v[i], '\n')) {
			snprintf(err, errlen, "option -d: a path with a newline cannot be listed one per "
				 "line in FSBENCH_FILES_LIST (--between-phases)");
			return -EINVAL;
		}
		if (strlen(c->dirs.v[i]) + 64 >= PATH_MAX) {
			snprintf(err, errlen, "option -d: path '%.64s...' is too long", c->dirs.v[i]);
			return -EINVAL;
		}
		if (stat(c->dirs.v[i], &st) < 0) {
			snprintf(err, errlen, "option -d: cannot use '%s': %s", c->dirs.v[i], strerror(errno));
			return -EINVAL;
		}
		if (c->raw && !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "option -R: '%s' is not a block device", c->dirs.v[i]);
			return -EINVAL;
		}
		/* the run holds each device with one exclusive open: a device named twice would
		 * refuse its own second open, and its threads' regions would overlap */
		for (unsigned j = 0; c->raw && j < i; j++) {
			struct stat sj;

			if (stat(c->dirs.v[j], &sj) == 0 && S_ISBLK(sj.st_mode) && sj.st_rdev == st.st_rdev) {
				snprintf(err, errlen, "option -R: '%s' and '%s' are the same device",
					 c->dirs.v[j], c->dirs.v[i]);
				return -EINVAL;
			}
		}
		if (!c->raw && !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "option -d: '%s' is not a directory", c->dirs.v[i]);
			return -EINVAL;
		}
	}
	if (c->eng.hipri && (rc = hipri_check(c, err, errlen)))
		return rc;
	if (c->drop_caches && geteuid() != 0) {
		/* tiotest prints a warning per thread and reports empty tables with exit 0 */
		snprintf(err, errlen, "option -F: dropping the page cache needs root");
		return -EPERM;
	}
	return 0;
}

static int drop_caches(void)
{
	int fd, rc = 0;

	/* drop_caches only drops clean pages: write back first, and do it before the window opens
	 * (tiotest does it inside the window, in every thread, while others already run) */
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		rc = -errno;
	close(fd);
	return rc;
}

/* --between-phases: FSBENCH_FILES_LIST names a file with the test files one per line (a shell
 * loop can read it whatever the paths hold; FSBENCH_FILES, space-separated, breaks on spaces),
 * in a private directory (mkdtemp, 0700) so that nothing can be planted at its name. Both are
 * registered for cleanup the moment they exist and removed by tio_run() at its end. */
struct tio_list {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
};

static int list_create(const struct tio_config *c, const struct tio_thread *th, struct tio_list *l)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	FILE *f;
	int fd, rc = 0;

	if (!tmp || tmp[0] != '/' || strlen(tmp) + 32 >= sizeof(l->dir))
		tmp = "/tmp";
	snprintf(l->dir, sizeof(l->dir), "%s/fsbench-files.XXXXXX", tmp);
	if (!mkdtemp(l->dir)) {
		rc = -errno;
		l->dir[0] = '\0';
		return rc;
	}
	rc = lstat(l->dir, &st) < 0 ? -errno : cleanup_add(l->dir, &st);
	if (rc) {
		rmdir(l->dir);
		l->dir[0] = '\0';
		return rc;
	}
	snprintf(l->path, sizeof(l->path), "%s/files", l->dir);
	fd = cleanup_create_file(l->path, O_WRONLY, 0600);
	if (fd < 0) {
		l->path[0] = '\0';
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < c->threads; i++)
		fprintf(f, "%s\n", th[i].path);
	if (fflush(f) || ferror(f))
		rc = -(errno ? errno : EIO);
	if (fclose(f) && !rc)
		rc = -(errno ? errno : EIO);
	return rc;
}

static void list_remove(struct tio_list *l)
{
	if (l->path[0])
		cleanup_remove_now(l->path);
	if (l->dir[0])
		cleanup_remove_now(l->dir);
	l->path[0] = l->dir[0] = '\0';
}

/* waits for the command; a signal that stops the run stops it too (SIGTERM), so a hook that
 * waits (a sleep, a hung remount) does not hold the clean-up back. -EINTR: stopped that way. */
static int wait_between(pid_t pid)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	bool killed = false;
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (run_stopping() && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		/* polled, not a blocking waitpid: a signal that lands just before the wait
		 * would not interrupt it */
		nanosleep(&tick, NULL);
	}
	if (killed)
		return -EINTR;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECANCELED;
}

/* NAME=VALUE, or NULL (asprintf leaves its pointer undefined on failure) */
static char *env_var(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s;
}

static int run_between(const struct tio_config *c, enum tio_phase done, int next,
		       struct tio_thread *th, const struct tio_list *list)
{
	char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, (char *)c->between, NULL };
	size_t flen = 1;
	char *files, *e[4] = { NULL, NULL, NULL, NULL };
	char **envp;
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	int rc;
	pid_t pid;

	for (unsigned i = 0; i < c->threads; i++)
		flen += strlen(th[i].path) + 1;
	files = calloc(1, flen + 16);
	for (unsigned i = 0; files && i < c->threads; i++) {
		strcat(files, i ? " " : "");
		strcat(files, th[i].path);
	}
	while (environ[n])
		n++;
	envp = calloc(n + 5, sizeof(*envp));
	e[0] = env_var("FSBENCH_PHASE_DONE", tio_phase_name[done]);
	e[1] = env_var("FSBENCH_PHASE_NEXT", next >= 0 ? tio_phase_name[next] : "");
	e[2] = files ? env_var("FSBENCH_FILES", files) : NULL;
	e[3] = env_var("FSBENCH_FILES_LIST", list->path);
	if (!envp || !e[0] || !e[1] || !e[2] || !e[3]) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(envp, environ, n * sizeof(*envp));
	memcpy(envp + n, e, sizeof(e));
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		rc = -rc;
		goto out;
	}
	/* --json -: stdout is the JSON's alone, so the command's stdout goes to stderr */
	if (c->json_stdout)
		rc = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	/* what this process has written so far comes before what the command writes */
	fflush(NULL);
	if (!rc)
		rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	rc = rc ? -rc : wait_between(pid);
out:
	for (int i = 0; i < 4; i++)
		free(e[i]);
	free(envp);
	free(files);
	return rc;
}

/* The queued path's context and slots for one thread: 0 or -errno (recorded). */
static int queue_setup(const struct tio_config *c, struct tio_thread *t)
{
	const unsigned depth = tio_depth(c);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t stride = (c->block_bytes + page - 1) / page * page;
	int rc = engine_ctx_init_opts(&t->ctx, &c->eng, depth);

	if (rc) {
		run_fail_msg(-rc, "cannot set up the %s engine: %s", c->eng.ops->name, strerror(-rc));
		return rc;
	}
	t->slots = calloc(depth, sizeof(*t->slots));
	t->free_slots = calloc(depth, sizeof(*t->free_slots));
	t->sub = calloc(depth, sizeof(*t->sub));
	t->done = calloc(depth, sizeof(*t->done));
	if (!t->slots || !t->free_slots || !t->sub || !t->done ||
	    posix_memalign(&t->qbuf, page, stride * depth))
		return -ENOMEM;
	memset(t->qbuf, 0, stride * depth);
	for (unsigned k = 0; k < depth; k++)
		t->slots[k].buf = (unsigned char *)t->qbuf + k * stride;
	if (c->eng.ops->buffers && (rc = c->eng.ops->buffers(&t->ctx, t->qbuf, stride * depth))) {
		run_fail_msg(-rc, "cannot register the buffers with the %s engine: %s", c->eng.ops->name,
			     strerror(-rc));
		return rc;
	}
	return 0;
}

static void queue_free(struct tio_thread *t)
{
	engine_ctx_exit(&t->ctx);
	free(t->slots);
	free(t->free_slots);
	free(t->sub);
	free(t->done);
	free(t->qbuf);
}

/* O_DIRECT refuses a block size that is not a multiple of the device's logical block size at
 * the first transfer, not at open: one transfer of the thread's first block finds out now,
 * before any phase. On a test file a write of the zeros it already holds (a read of a hole is
 * not checked); on a device, whose data is not ours until the write phase, a read. The offsets
 * are base + multiples of -b, and base is whole MiB, so the first block stands for all.
 * Closes fd; 0, or -EOPNOTSUPP with the error recorded. */
static int direct_aligned(const struct tio_config *c, const struct tio_thread *t, int fd,
			  const char *dir)
{
	ssize_t n = c->raw ? pread(fd, t->buf, c->block_bytes, (off_t)t->base) :
			     pwrite(fd, t->buf, c->block_bytes, 0);
	int err = errno;

	close(fd);
	if (n >= 0 || err != EINVAL)
		return 0;
	run_fail_msg(EOPNOTSUPP, "O_DIRECT on '%s' refuses %llu-byte blocks (-b): the block size "
		     "must be a multiple of the device's logical block size", dir,
		     (unsigned long long)c->block_bytes);
	return -EOPNOTSUPP;
}

/* -R: each device is opened once with O_EXCL, and held so until the end of the run (excl[d]
 * for -d number d): a mount, or another fsbench -R run, cannot take it in the meantime (EBUSY:
 * exit status 3). Threads past the first on a device share its claim. */
static int setup_threads(struct driver *d, const struct tio_config *c, struct tio_thread *th, int pid,
			 int *excl)
{
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread *t = &th[i];
		const char *dir = c->dirs.v[i % c->dirs.n];
		long page = sysconf(_SC_PAGESIZE);
		struct stat st;
		int fd, rc;

		if (posix_memalign(&t->buf, (size_t)page, c->block_bytes))
			return -ENOMEM;
		memset(t->buf, 0, c->block_bytes);
		if (c->verify && !(t->gen = calloc(c->blocks / 8 + 1, 1)))
			return -ENOMEM;
		if (tio_queued(c) && (rc = queue_setup(c, t)))
			return rc;
		if (c->raw) {
			/* thread k on a device starts at k*(f+o) MiB, plus o with -O (tiotest -o/-O) */
			uint64_t k = i / c->dirs.n, dev_bytes = 0;

			snprintf(t->path, sizeof(t->path), "%s", dir);
			t->base = k * (c->file_bytes + c->raw_offset_bytes) +
				  (c->raw_offset_first ? c->raw_offset_bytes : 0);
			fd = excl[i % c->dirs.n];
			if (fd < 0) {
				fd = open(dir, O_RDONLY | O_CLOEXEC | O_EXCL);
				if (fd < 0) {
					int err = errno;

					run_fail_msg(err, "cannot use '%s': %s%s", dir, strerror(err),
						     err == EBUSY ? " (mounted, or in use by another program or "
						     "fsbench -R run)" : "");
					return -err;
				}
				excl[i % c->dirs.n] = fd;
			}
			if (fstat(fd, &st) < 0)
				return -errno;
			t->rdev = st.st_rdev;
			if (ioctl(fd, BLKGETSIZE64, &dev_bytes) < 0)
				dev_bytes = 0;
			if (t->base + c->blocks * c->block_bytes > dev_bytes) {
				run_fail_msg(ENOSPC, "device '%s' (%llu bytes) is too small for thread %u's "
					     "region ending at byte %llu", dir, (unsigned long long)dev_bytes, i,
					     (unsigned long long)(t->base + c->blocks * c->block_bytes));
				return -ENOSPC;
			}
			if (c->direct) {
				int dfd = open(dir, O_RDONLY | O_DIRECT | O_CLOEXEC);

				if (dfd < 0) {
					int err = errno;

					run_fail_msg(err == EINVAL ? EOPNOTSUPP : err,
						     "O_DIRECT is not supported on '%s': %s", dir, strerror(err));
					return err == EINVAL ? -EOPNOTSUPP : -err;
				}
				if ((dfd = direct_aligned(c, t, dfd, dir)) < 0)
					return dfd;
			}
			continue;
		}
		/* keep the original name so scripts that look for the files still find them; the
		 * thread's number is the job's (a job's processes may share a directory and a pid) */
		snprintf(t->path, sizeof(t->path), "%s/_tiotest_pid%d.thr%u", dir, pid,
			 c->run.proc * (unsigned)c->threads + i);
		fd = cleanup_create_file(t->path, O_RDWR, 0600);
		if (fd < 0) {
			run_fail_msg(-fd, "cannot create '%s': %s", t->path, strerror(-fd));
			return fd;
		}
		if (c->debug >= 50)
			driver_note(d, "tiotest: ftruncate '%s' to %llu bytes", t->path,
				    (unsigned long long)(c->blocks * c->block_bytes));
		if (fstat(fd, &st) < 0 || ftruncate(fd, (off_t)(c->blocks * c->block_bytes)) < 0) {
			int err = errno;

			run_fail_msg(err, "cannot size '%s': %s", t->path, strerror(err));
			close(fd);
			return -err;
		}
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		close(fd);
		if (c->direct) {
			/* find out now, not as a failed run, that the filesystem refuses O_DIRECT */
			fd = open(t->path, O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				int err = errno;

				run_fail_msg(err == EINVAL ? EOPNOTSUPP : err,
					     "O_DIRECT is not supported on '%s': %s", dir, strerror(err));
				return err == EINVAL ? -EOPNOTSUPP : -err;
			}
			if ((fd = direct_aligned(c, t, fd, dir)) < 0)
				return fd;
		}
	}
	return 0;
}

/* The figures, computed once from the raw counters (core/figure.h): the text tables, the JSON,
 * the --repeat summary and compare all read these. Primary: each phase's rate (the question a
 * tiotest experiment asks). Derived, never tested: IOPS (the rate over the block size), the mean
 * extent size and discontinuities per MiB (the same layout as extents per MiB, measured once). */
const struct figure tio_phase_figs[TIO_NFIGS] = {
	[TIO_FIG_RATE] = { "rate_mib_per_s", "rate_mib_per_s", "rate", "MiB/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY | FIG_PRIMARY },
	[TIO_FIG_IOPS] = { "iops", "iops", "IOPS", "IOPS", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_DERIVED },
	[TIO_FIG_USR_PCT] = { "cpu_usr_pct", "cpu_usr_pct", "CPU usr", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_SYS_PCT] = { "cpu_sys_pct", "cpu_sys_pct", "CPU sys", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_LAT_MEAN] = { "latency_mean_ns", "latency.mean_ns", "latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_FIG_LAT_P50] = { "latency_p50_ns", "latency.p50_ns", "latency p50", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P90] = { "latency_p90_ns", "latency.p90_ns", "latency p90", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P99] = { "latency_p99_ns", "latency.p99_ns", "latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_KEY },
	[TIO_FIG_LAT_P999] = { "latency_p99_9_ns", "latency.p99_9_ns", "latency p99.9", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_MAX] = { "latency_max_ns", "latency.max_ns", "latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_FIG_OVER_2S_PCT] = { "latency_over_2s_pct", "latency.over_2s_pct", "ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	[TIO_FIG_OVER_10S_PCT] = { "latency_over_10s_pct", "latency.over_10s_pct", "ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	/* the layout the phase left (struct tio_layout): absent from read phases and older results */
	[TIO_FIG_LAYOUT_EXTENTS_PER_MIB] = { "layout_extents_per_mib", "layout.extents_per_mib", "extents per MiB", "extents/MiB", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	[TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES] = { "layout_mean_extent_bytes", "layout.mean_extent_bytes", "mean extent size", "bytes", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_DERIVED },
	[TIO_FIG_LAYOUT_DISCONT_PER_MIB] = { "layout_discontinuities_per_mib", "layout.discontinuities_per_mib", "discontinuities per MiB", "/MiB", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_DERIVED },
	COST_FIGURES(TIO_FIG_COST, "op"),
};

const struct figure tio_run_figs[TIO_NRFIGS] = {
	[TIO_RFIG_LAT_MEAN] = { "total.latency_mean_ns", "total_latency.mean_ns", "total latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_P99] = { "total.latency_p99_ns", "total_latency.p99_ns", "total latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_MAX] = { "total.latency_max_ns", "total_latency.max_ns", "total latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_RFIG_OVER_2S_PCT] = { "total.latency_over_2s_pct", "total_latency.over_2s_pct", "total ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	[TIO_RFIG_OVER_10S_PCT] = { "total.latency_over_10s_pct", "total_latency.over_10s_pct", "total ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	AFTERRUN_FIGURES(TIO_RFIG_AFTER),
};

static const struct figure_set tio_figs = {
	.run = tio_run_figs, .nrun = TIO_NRFIGS, .group = tio_phase_figs, .ngroup = TIO_NFIGS,
	.groups = "phases", .run_values_off = offsetof(struct tio_result, fig),
};

/* the latency part of a figure array: mean, p50, p90, p99, p99.9, max, over 2 s, over 10 s */
static void lat_figs(const struct opstat *s, double *mean, double *p50, double *p90, double *p99,
		     double *p999, double *max, double *over2, double *over10)
{
	const struct hist *h = &s->lat;
	double n = s->ops ? (double)s->ops : 1.0;

	*mean = hist_mean(h);
	if (p50) {
		*p50 = (double)hist_percentile(h, 50);
		*p90 = (double)hist_percentile(h, 90);
	}
	*p99 = (double)hist_percentile(h, 99);
	if (p999)
		*p999 = (double)hist_percentile(h, 99.9);
	*max = s->ops ? (double)h->max : 0.0;
	*over2 = 100.0 * (double)s->over_2s / n;
	*over10 = 100.0 * (double)s->over_10s / n;
}

static void layout_figures(const struct tio_layout *l, double *f)
{
	const bool ok = l->measured && !l->absent;

	f[TIO_FIG_LAYOUT_EXTENTS_PER_MIB] = ok ? layout_extents_per_mib(&l->sum) : NAN;
	f[TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES] = ok ? layout_mean_extent_bytes(&l->sum) : NAN;
	f[TIO_FIG_LAYOUT_DISCONT_PER_MIB] = ok ? layout_discontinuities_per_mib(&l->sum) : NAN;
}

static void phase_figures(struct tio_phase_result *pr)
{
	double wall_s = (double)pr->wall_ns / 1e9;
	double *f = pr->fig;

	f[TIO_FIG_RATE] = wall_s > 0 ? (double)pr->st.bytes / 1048576.0 / wall_s : 0;
	f[TIO_FIG_IOPS] = wall_s > 0 ? (double)pr->st.ops / wall_s : 0;
	f[TIO_FIG_USR_PCT] = wall_s > 0 ? 100.0 * pr->usr_s / wall_s : 0;
	f[TIO_FIG_SYS_PCT] = wall_s > 0 ? 100.0 * pr->sys_s / wall_s : 0;
	lat_figs(&pr->st, &f[TIO_FIG_LAT_MEAN], &f[TIO_FIG_LAT_P50], &f[TIO_FIG_LAT_P90],
		 &f[TIO_FIG_LAT_P99], &f[TIO_FIG_LAT_P999], &f[TIO_FIG_LAT_MAX], &f[TIO_FIG_OVER_2S_PCT],
		 &f[TIO_FIG_OVER_10S_PCT]);
	layout_figures(&pr->layout, f);
	/* from the threads (every process's, after a merge), so a merged phase recomputes it */
	pr->cost = (struct cost_raw){ .ops = pr->st.ops };
	for (unsigned i = 0; i < pr->nthreads; i++) {
		const struct tio_thread_result *t = &pr->threads[i];

		cost_add_worker(&pr->cost, t->usr_s, t->sys_s, t->end_ns - t->start_ns, t->nvcsw, t->nivcsw);
	}
	if (pr->obs.taken)
		cost_add_kstat(&pr->cost, &pr->obs.k);
	cost_figures(&pr->cost, &f[TIO_FIG_COST]);
}

void tio_result_figures(struct tio_result *r)
{
	double *f = r->fig;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			phase_figures(&r->phase[p]);

	lat_figs(&r->total, &f[TIO_RFIG_LAT_MEAN], NULL, NULL, &f[TIO_RFIG_LAT_P99], NULL,
		 &f[TIO_RFIG_LAT_MAX], &f[TIO_RFIG_OVER_2S_PCT], &f[TIO_RFIG_OVER_10S_PCT]);
}

static void collect(const struct tio_config *c, struct phase *ph, struct tio_worker *tw,
		    struct tio_phase_result *pr, struct tio_thread *th)
{
	pr->start_ns = ph->start_ns;
	pr->nthreads = (unsigned)c->threads;
	pr->wall_ns = ph->end_ns - ph->start_ns;
	pr->first_done_ns = ph->first_done_ns - ph->start_ns;
	pr->first_done_ops = ph->first_done_ops;
	pr->first_done_bytes = ph->first_done_bytes;
	pr->last_done_ns = ph->end_ns - ph->start_ns;
	pr->usr_s = ph->usr_s;
	pr->sys_s = ph->sys_s;
	pr->samples = ph->samples;
	pr->nsamples = ph->nsamples;
	pr->sample_interval_ns = ph->sample_interval_ns;
	pr->complete = !run_stopping();
	pr->has_workers = tio_queued(c) && c->eng.ops->workers;
	pr->has_submit = tio_queued(c) && c->eng.ops->submit_stats;
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread_result *t = &pr->threads[i];
		struct worker *w = &ph->workers[i];

		opstat_merge(&pr->st, &tw[i].st);
		snprintf(t->path, sizeof(t->path), "%s", th[i].path);
		t->ops = tw[i].st.ops;
		t->bytes = tw[i].st.bytes;
		t->start_ns = w->started ? w->start_ns - ph->start_ns : 0;
		t->end_ns = w->started ? w->end_ns - ph->start_ns : 0;
		t->flush_ns = tw[i].flush_ns;
		pr->wq.threads += tw[i].wq.threads;
		pr->wq.cpu_s += tw[i].wq.cpu_s;
		/* the context lives across phases: taken, and reset for the next one */
		if (th[i].ctx.submit) {
			engine_submit_stats_merge(&pr->sub, th[i].ctx.submit);
			engine_submit_stats_init(th[i].ctx.submit);
		}
		t->usr_s = w->usr_s;
		t->sys_s = w->sys_s;
		t->nvcsw = w->nvcsw;
		t->nivcsw = w->nivcsw;
	}
	phase_figures(pr);
}

/* the honesty warnings (core/warn.h) from this phase's figures */
static void phase_warn(struct driver *d, const struct tio_config *c, struct tio_phase_result *pr,
		       int p)
{
	/* the phases as the warnings on stderr name them */
	static const char *const words[TIO_NPHASES] = { "write", "random write", "read", "random read" };
	struct warn_phase w = { .name = tio_phase_name[p], .direct = c->direct, .sync = c->sync,
				.data_set_bytes = c->threads * c->blocks * c->block_bytes,
				.threads = (unsigned)c->threads, .wall_ns = pr->wall_ns,
				.first_done_ns = pr->first_done_ns, .last_done_ns = pr->last_done_ns,
				.sys_s = 0, .cut_short = !pr->complete };

	/* the workers' own system time ("near 100 % of one core per thread"), not the process's,
	 * which also holds the main and reporter threads */
	for (unsigned i = 0; i < c->threads; i++)
		w.sys_s += pr->threads[i].sys_s;
	if (phase_writes[p])
		w.write_bytes = pr->st.bytes;
	else
		w.read_bytes = pr->st.bytes;
	/* a phase cut short by an error or a signal: its window is not the phase's, its warnings
	 * would be noise; they are computed (for the JSON) but not tallied */
	if (pr->complete)
		driver_warn(d, &pr->obs, &w, words[p], 0);
}

static uint64_t phase_seed(uint64_t seed, unsigned thread, unsigned phase)
{
	/* distinct per (thread, phase), reproducible from --seed */
	uint64_t s = seed ^ ((uint64_t)thread << 32) ^ ((uint64_t)phase << 56);

	return rng_next(&s);
}

/* ---- the test files' layout (struct tio_layout): outside every phase window ----------------- */
/* Read-only descriptors of the test files, opened once right after setup, while each name is
 * certainly the file fsbench just created (dev, ino checked): FIEMAP needs an open file, and the
 * phases keep their own opens exactly as tiotest does them. -1 where none (-R, a failed open). */
static int *layout_open(const struct tio_config *c, const struct tio_thread *th)
{
	int *fd = malloc(c->threads * sizeof(int));

	for (unsigned i = 0; fd && i < c->threads; i++) {
		struct stat st;

		fd[i] = c->raw ? -1 : open(th[i].path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd[i] >= 0 && (fstat(fd[i], &st) < 0 || st.st_dev != th[i].dev || st.st_ino != th[i].ino)) {
			close(fd[i]);
			fd[i] = -1;
		}
	}
	return fd;
}

static void layout_close(const struct tio_config *c, int *fd)
{
	for (unsigned i = 0; fd && i < c->threads; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
}

/* every test file's layout now, into the phase that just ended; absent with a reason, never
 * zeros, when there is none to be had */
static void layout_take(const struct tio_config *c, const int *fd, const struct tio_thread *th,
			struct tio_phase_result *pr)
{
	struct tio_layout *l = &pr->layout;

	l->measured = true;
	memset(&l->sum, 0, sizeof(l->sum));
	if (c->raw) {
		l->absent = true;
		snprintf(l->why, sizeof(l->why), "-R: the threads' regions are ranges of a raw device, not files");
		goto out;
	}
	free(l->files);
	l->files = calloc(c->threads, sizeof(*l->files));
	for (unsigned i = 0; i < c->threads; i++) {
		int rc = !l->files ? -ENOMEM : fd && fd[i] >= 0 ? layout_fd(fd[i], &l->files[i]) : -EBADF;

		if (rc) {
			l->absent = true;
			if (rc == -EBADF)
				snprintf(l->why, sizeof(l->why), "the test file '%.80s' could not be opened read-only",
					 th[i].path);
			else if (rc == -ENOMEM)
				snprintf(l->why, sizeof(l->why), "out of memory");
			else
				layout_absent_reason(fd[i], rc, l->why, sizeof(l->why));
			free(l->files);
			l->files = NULL;
			memset(&l->sum, 0, sizeof(l->sum));
			break;
		}
		layout_sum_add(&l->sum, &l->files[i]);
	}
out:
	layout_figures(l, pr->fig);
}

/* with -k, the last phase that ran also gets the layout its files have at the end (a read phase
 * after skipped writes reads what setup and earlier writes left) */
static void layout_last(const struct tio_config *c, const int *fd, const struct tio_thread *th,
			struct tio_result *r)
{
	int last = -1;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			last = p;
	if (c->skip.n && last >= 0 && !r->phase[last].layout.measured && !run_stopping())
		layout_take(c, fd, th, &r->phase[last]);
}

static int tio_run(struct driver *d, const void *cfg, void *result)
{
	const struct tio_config *c = cfg;
	struct tio_result *r = result;
	struct tio_thread *th = calloc(c->threads, sizeof(*th));
	struct tio_worker *tw = calloc(c->threads, sizeof(*tw));
	struct worker *workers = calloc(c->threads, sizeof(*workers));
	int *excl = calloc(c->dirs.n, sizeof(*excl));
	struct tio_list list = { .dir = "", .path = "" };
	int *lay_fd = NULL;
	int rc = -ENOMEM;

	r->stopped_in = -1;
	r->seed = c->seed;
	r->pid = getpid();
	opstat_init(&r->total);
	if (!th || !tw || !workers || !excl)
		goto out;
	for (unsigned i = 0; i < c->dirs.n; i++)
		excl[i] = -1;
	for (int p = 0; p < TIO_NPHASES; p++) {
		opstat_init(&r->phase[p].st);
		engine_submit_stats_init(&r->phase[p].sub);
		r->phase[p].threads = calloc(c->threads, sizeof(*r->phase[p].threads));
		if (!r->phase[p].threads)
			goto out;
	}
	rc = setup_threads(d, c, th, r->pid, excl);
	if (rc)
		goto out;
	lay_fd = layout_open(c, th);
	if (c->between && (rc = list_create(c, th, &list))) {
		run_fail_msg(-rc, "cannot write the file list for --between-phases in '%s': %s",
			     list.dir[0] ? list.dir : "$TMPDIR", strerror(-rc));
		goto out;
	}
	for (int p = 0, last = -1; p < TIO_NPHASES && !run_stopping(); p++) {
		struct tio_phase_result *pr = &r->phase[p];
		struct phase ph = { .name = tio_phase_name[p], .nworkers = (unsigned)c->threads,
				    /* -W: only the sequential write phase runs one thread at a time */
				    .serial = c->serial_write && p == TIO_WRITE,
				    .work = tio_work, .workers = workers,
				    .interval_ns = c->run.interval_ns, .label = "tiotest",
				    .expected_ops = c->threads * (phase_random[p] ? c->random_ops : c->blocks) };

		if (!c->run_phase[p])
			continue;
		if (last >= 0 && c->between) {
			rc = run_between(c, (enum tio_phase)last, p, th, &list);
			if (rc == -EINTR)
				break;   /* the run was stopped by a signal, and the command with it */
			if (rc) {
				/* reported once, with the run's first error, after the results */
				run_fail_detail(ECANCELED, "between-phases", c->between, -1,
						"the command failed after the %s phase (%s)", tio_phase_name[last],
						rc == -ECANCELED ? "non-zero exit" : strerror(-rc));
				break;
			}
		}
		if (c->drop_caches && (rc = drop_caches())) {
			run_fail(-rc, "write", "/proc/sys/vm/drop_caches", -1);
			break;
		}
		/* a signal during the command or the cache drop stops the run before this phase,
		 * which then never ran, rather than inside it with no ops */
		if (run_stopping())
			break;
		if (c->debug >= 40)
			driver_note(d, "tiotest: starting phase %s", tio_phase_name[p]);
		for (unsigned i = 0; i < c->threads; i++) {
			/* the job's thread number: every process of a job draws its own offsets */
			tw[i] = (struct tio_worker){ .c = c, .t = &th[i], .phase = (enum tio_phase)p,
						     .seed = phase_seed(c->seed, c->run.proc * (unsigned)c->threads + i,
									(unsigned)p) };
			opstat_init(&tw[i].st);
			workers[i].ctx = &tw[i];
			workers[i].live = &tw[i].st;
		}
		pr->ran = true;
		rc = driver_phase(d, &ph, &pr->obs, &pr->io);
		collect(c, &ph, tw, pr, th);
		phase_warn(d, c, pr, p);
		opstat_merge(&r->total, &pr->st);
		if (!pr->complete)
			r->stopped_in = p;
		last = p;
		if (phase_writes[p] && !run_stopping())
			layout_take(c, lay_fd, th, pr);
	}
	layout_last(c, lay_fd, th, r);
	rc = 0;
	tio_result_figures(r);
	r->head.complete = !run_stopping();
	r->head.end = r->head.complete ? RUN_END_DONE : run_error_get() ? RUN_END_ERROR : RUN_END_SIGNAL;
out:
	if (rc == -ENOMEM)
		run_fail_msg(ENOMEM, "out of memory");
	list_remove(&list);
	layout_close(c, lay_fd);
	for (unsigned i = 0; excl && i < c->dirs.n; i++)
		if (excl[i] >= 0)
			close(excl[i]);
	free(excl);
	for (unsigned i = 0; th && i < c->threads; i++) {
		free(th[i].buf);
		free(th[i].gen);
		queue_free(&th[i]);
	}
	free(th);
	free(tw);
	free(workers);
	return rc;
}

static void tio_result_free(void *result)
{
	struct tio_result *r = result;

	for (int p = 0; p < TIO_NPHASES; p++) {
		free(r->phase[p].threads);
		r->phase[p].threads = NULL;
		free(r->phase[p].samples);
		r->phase[p].samples = NULL;
		free(r->phase[p].layout.files);
		r->phase[p].layout.files = NULL;
		observe_phase_free(&r->phase[p].obs);
	}
}

/* Results of the same configuration from processes side by side: ops and histograms add up,
 * CPU adds up, the window runs from the first release to the last completion (the phases'
 * absolute release times), the threads are listed one process after the other; the figures
 * are recomputed from the merged counters. "First done" stays each process's own snapshot,
 * summed (a job's figure at its first rank's end is fsbench-mpi's, src/mpi/). */
static int merge_phase(struct tio_phase_result *x, const struct tio_phase_result *y)
{
	uint64_t start = x->start_ns < y->start_ns ? x->start_ns : y->start_ns;
	uint64_t dx = x->start_ns - start, dy = y->start_ns - start;
	uint64_t xfirst = x->first_done_ns + dx, yfirst = y->first_done_ns + dy;
	uint64_t xlast = x->last_done_ns + dx, ylast = y->last_done_ns + dy;
	struct tio_thread_result *t;

	if (!x->ran || !y->ran)
		return x->ran == y->ran ? 0 : -EINVAL;
	t = realloc(x->threads, (x->nthreads + y->nthreads + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	x->threads = t;
	for (unsigned i = 0; i < x->nthreads; i++) {
		t[i].start_ns += dx;
		t[i].end_ns += dx;
	}
	for (unsigned i = 0; i < y->nthreads; i++) {
		t[x->nthreads + i] = y->threads[i];
		t[x->nthreads + i].start_ns += dy;
		t[x->nthreads + i].end_ns += dy;
	}
	x->nthreads += y->nthreads;
	opstat_merge(&x->st, &y->st);
	/* each process mapped its own files: the sums add up, the figures are recomputed */
	x->layout.measured = x->layout.measured && y->layout.measured;
	x->layout.absent |= y->layout.absent;
	if (x->layout.measured && !x->layout.absent)
		layout_sum_merge(&x->layout.sum, &y->layout.sum);
	if (y->layout.absent)
		snprintf(x->layout.why, sizeof(x->layout.why), "%s", y->layout.why);
	free(x->layout.files);   /* this process's files alone no longer match the sums */
	x->layout.files = NULL;
	x->start_ns = start;
	x->first_done_ns = xfirst < yfirst ? xfirst : yfirst;
	x->last_done_ns = xlast > ylast ? xlast : ylast;
	x->wall_ns = x->last_done_ns;
	x->first_done_ops += y->first_done_ops;
	x->first_done_bytes += y->first_done_bytes;
	x->usr_s += y->usr_s;
	x->sys_s += y->sys_s;
	/* each process's engine: its io-wq workers and its submitting calls add up */
	x->has_workers |= y->has_workers;
	x->wq.threads += y->wq.threads;
	x->wq.cpu_s += y->wq.cpu_s;
	x->has_submit |= y->has_submit;
	engine_submit_stats_merge(&x->sub, &y->sub);
	x->complete = x->complete && y->complete;
	/* one kernel view per host: the first one that was taken stands for the job */
	if (!x->obs.taken && y->obs.taken) {
		x->obs.taken = true;
		x->obs.k = y->obs.k;
	}
	return 0;
}

/* how a run ended, the worst first */
static int end_rank(enum run_end e)
{
	switch (e) {
	case RUN_END_ERROR: return 4;
	case RUN_END_SIGNAL: return 3;
	case RUN_END_NOSPACE: return 2;
	case RUN_END_FULL: return 1;
	default: return 0;
	}
}

static int tio_merge(void *dst, const void *src)
{
	struct tio_result *a = dst;
	const struct tio_result *b = src;
	int rc;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (a->phase[p].ran != b->phase[p].ran)
			return -EINVAL;
	for (int p = 0; p < TIO_NPHASES; p++)
		if ((rc = merge_phase(&a->phase[p], &b->phase[p])))
			return rc;
	opstat_merge(&a->total, &b->total);
	if (b->stopped_in >= 0 && (a->stopped_in < 0 || b->stopped_in < a->stopped_in))
		a->stopped_in = b->stopped_in;
	tio_result_figures(a);
	a->head.complete = a->head.complete && b->head.complete;
	if (end_rank(b->head.end) > end_rank(a->head.end))
		a->head.end = b->head.end;
	return 0;
}

/* what merge and the report need, for the first process of a job (workload.h) */
static int tio_pack(const void *result, int64_t off, struct pack *o)
{
	const struct tio_result *r = result;

	driver_head_pack(o, &r->head);
	pack_i64(o, r->stopped_in);
	pack_u64(o, r->seed);
	pack_i64(o, r->pid);
	pack_opstat(o, &r->total);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];

		pack_u64(o, pr->ran);
		if (!pr->ran)
			continue;
		pack_u64(o, pr->complete);
		pack_opstat(o, &pr->st);
		pack_u64(o, pr->start_ns - (uint64_t)off);
		pack_u64(o, pr->wall_ns);
		pack_u64(o, pr->first_done_ns);
		pack_u64(o, pr->last_done_ns);
		pack_u64(o, pr->first_done_ops);
		pack_u64(o, pr->first_done_bytes);
		pack_f64(o, pr->usr_s);
		pack_f64(o, pr->sys_s);
		pack_bytes(o, &pr->io, sizeof(pr->io));
		pack_u64(o, pr->has_workers);
		pack_u64(o, pr->wq.threads);
		pack_f64(o, pr->wq.cpu_s);
		pack_u64(o, pr->has_submit);
		if (pr->has_submit)
			engine_submit_stats_pack(o, &pr->sub);
		pack_u64(o, pr->obs.taken);
		if (pr->obs.taken)
			pack_bytes(o, &pr->obs.k, sizeof(pr->obs.k));
		pack_u64(o, pr->nthreads);
		for (unsigned i = 0; i < pr->nthreads; i++) {
			const struct tio_thread_result *t = &pr->threads[i];

			pack_str(o, t->path);
			pack_u64(o, t->ops);
			pack_u64(o, t->bytes);
			pack_u64(o, t->start_ns);
			pack_u64(o, t->end_ns);
			pack_u64(o, t->flush_ns);
			pack_f64(o, t->usr_s);
			pack_f64(o, t->sys_s);
			pack_u64(o, t->nvcsw);
			pack_u64(o, t->nivcsw);
		}
	}
	return o->err;
}

static int tio_unpack(void *result, struct unpack *u)
{
	struct tio_result *r = result;

	driver_head_unpack(u, &r->head);
	r->stopped_in = (int)unpack_i64(u);
	r->seed = unpack_u64(u);
	r->pid = (int)unpack_i64(u);
	unpack_opstat(u, &r->total);
	for (int p = 0; p < TIO_NPHASES && !u->err; p++) {
		struct tio_phase_result *pr = &r->phase[p];
		uint64_t n;

		opstat_init(&pr->st);
		engine_submit_stats_init(&pr->sub);
		pr->ran = unpack_u64(u);
		if (!pr->ran)
			continue;
		pr->complete = unpack_u64(u);
		unpack_opstat(u, &pr->st);
		pr->start_ns = unpack_u64(u);
		pr->wall_ns = unpack_u64(u);
		pr->first_done_ns = unpack_u64(u);
		pr->last_done_ns = unpack_u64(u);
		pr->first_done_ops = unpack_u64(u);
		pr->first_done_bytes = unpack_u64(u);
		pr->usr_s = unpack_f64(u);
		pr->sys_s = unpack_f64(u);
		unpack_bytes(u, &pr->io, sizeof(pr->io));
		pr->has_workers = unpack_u64(u);
		pr->wq.threads = unpack_u64(u);
		pr->wq.cpu_s = unpack_f64(u);
		pr->has_submit = unpack_u64(u);
		if (pr->has_submit)
			engine_submit_stats_unpack(u, &pr->sub);
		pr->obs.taken = unpack_u64(u);
		if (pr->obs.taken)
			unpack_bytes(u, &pr->obs.k, sizeof(pr->obs.k));
		n = unpack_u64(u);
		if (u->err || n > 4096)
			return -EPROTO;
		if (!(pr->threads = calloc(n + 1, sizeof(*pr->threads))))
			return -ENOMEM;
		pr->nthreads = (unsigned)n;
		for (unsigned i = 0; i < pr->nthreads; i++) {
			struct tio_thread_result *t = &pr->threads[i];

			unpack_str_to(u, t->path, sizeof(t->path));
			t->ops = unpack_u64(u);
			t->bytes = unpack_u64(u);
			t->start_ns = unpack_u64(u);
			t->end_ns = unpack_u64(u);
			t->flush_ns = unpack_u64(u);
			t->usr_s = unpack_f64(u);
			t->sys_s = unpack_f64(u);
			t->nvcsw = unpack_u64(u);
			t->nivcsw = unpack_u64(u);
		}
	}
	if (unpack_done(u))
		return -EPROTO;
	tio_result_figures(r);
	return 0;
}

/* per-rank subdirectories need directories: -R names devices */
static struct opt_strs *tio_dirs(void *cfg)
{
	struct tio_config *c = cfg;

	return c->raw ? NULL : &c->dirs;
}

/* ---- the options and the ops ----------------------------------------------------------------- */
#define MIB (UINT64_C(1) << 20)
#define F(x) offsetof(struct tio_config, x)

/* Short options are tiotest 0.4.2's, with its units and defaults; long-only ones are fsbench's. */
static const struct opt tio_opts[] = {
	{ 'f', "size", OPT_SIZE, F(file_bytes), "MIB", 1, UINT64_C(1) << 50, MIB, 0,
	  "file size per thread in MiB; the long form also takes k/m/g/t suffixes" },
	{ 'b', "block-size", OPT_SIZE, F(block_bytes), "BYTES", 1, UINT64_C(1) << 30, 1, 0,
	  "block (I/O) size in bytes; the long form also takes k/m/g suffixes" },
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, 50,
	  "directory for the test files, repeatable (threads use them round-robin); with -R a block device" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, 4096, 0, 0, "number of threads" },
	{ 'r', "random-ops", OPT_UINT, F(random_ops), "N", 1, UINT64_C(1) << 40, 0, 0,
	  "random I/O operations per thread (both random phases)" },
	{ 'k', "skip", OPT_UINTS, F(skip), "PHASE", 0, 3, 0, OPT_LIST_MAX,
	  "skip phase PHASE, repeatable: 0 write, 1 random write, 2 read, 3 random read" },
	{ 'L', "no-latency", OPT_FLAG, F(text.no_latency), NULL, 0, 0, 0, 0, "do not print the latency table" },
	{ 'T', "terse", OPT_FLAG, F(text.terse), NULL, 0, 0, 0, 0, "terse machine-readable output (five lines)" },
	{ 'W', "serial-write", OPT_FLAG, F(serial_write), NULL, 0, 0, 0, 0,
	  "run the sequential write phase one thread at a time (less fragmentation)" },
	{ 'S', "sync", OPT_FLAG, F(sync), NULL, 0, 0, 0, 0, "open the files with O_SYNC (every phase)" },
	{ 'X', "direct", OPT_FLAG, F(direct), NULL, 0, 0, 0, 0, "open the files with O_DIRECT (every phase)" },
	{ 'M', "mmap", OPT_FLAG, F(mmap), NULL, 0, 0, 0, 0, "use mmap and memcpy instead of pread/pwrite" },
	{ 'c', "verify", OPT_FLAG, F(verify), NULL, 0, 0, 0, 0,
	  "write self-describing checksummed blocks and verify every block read" },
	{ 'F', "drop-caches", OPT_FLAG, F(drop_caches), NULL, 0, 0, 0, 0,
	  "sync and drop the page cache before each phase (root only)" },
	{ 'R', "raw", OPT_FLAG, F(raw), NULL, 0, 0, 0, 0, "raw device mode: -d names unmounted block devices" },
	{ 'o', "raw-offset", OPT_SIZE, F(raw_offset_bytes), "MIB", 0, UINT64_C(1) << 50, MIB, 0,
	  "with -R: gap in MiB between threads' regions on one device" },
	{ 'O', "raw-offset-first", OPT_FLAG, F(raw_offset_first), NULL, 0, 0, 0, 0,
	  "with -R: the first thread on each device also starts at the -o offset" },
	{ 'D', "debug", OPT_UINT, F(debug), "LEVEL", 0, 100, 0, 0,
	  "debug messages on stderr (40: phases, 50: file sizing)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help (-h exits 1 as tiotest does, --help 0)" },
	{ 0, "percentiles", OPT_FLAG, F(text.percentiles), NULL, 0, 0, 0, 0,
	  "print a third table: IOPS, MB/s and latency p50/p90/p99/p99.9/max per phase" },
	{ 0, "seed", OPT_UINT, F(seed), "N", 0, UINT64_MAX, 0, 0,
	  "seed of the random offsets (each thread and phase derives its own stream)" },
	{ 0, "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the test files at the end" },
	{ 0, "between-phases", OPT_STR, F(between), "CMD", 0, 0, 0, 0,
	  "run 'sh -c CMD' between phases (env: FSBENCH_PHASE_DONE, FSBENCH_PHASE_NEXT, FSBENCH_FILES); a failure stops the run" },
	{ 0, "layout", OPT_FLAG, F(layout), NULL, 0, 0, 0, 0,
	  "after the classic output, the test files' layout after each write phase: extents, extents "
	  "per MiB, mean extent size, physical discontinuities (FIEMAP; the JSON has it always)" },
	ENGINE_OPTS(F),
	RUN_OPTS(F, "phase"),
	{ 0 },
};

static const struct opt_cmd tio_cmd = {
	.name = "tiotest",
	.summary = "Threaded I/O test, compatible with tiotest 0.4.2: sequential write, random write,\n"
		   "sequential read and random read, one file per thread, with throughput, CPU and latency.",
	.opts = tio_opts,
};

void tio_defaults(struct tio_config *c)
{
	memset(c, 0, sizeof(*c));
	c->file_bytes = 10 * MIB;
	c->block_bytes = 4096;
	c->dirs.n = 1;
	c->dirs.v[0] = ".";
	c->threads = 4;
	/* tiotest HEAD's default since 2023; 0.3.3 and early 0.4.x used 1000 */
	c->random_ops = 100000;
	c->seed = UINT64_C(0x5eed);
	ENGINE_OPTS_DEFAULTS(c);
	RUN_OPTS_DEFAULTS(c);
}

static void tio_defaults_ops(void *cfg)
{
	tio_defaults(cfg);
}

static int tio_check_ops(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	return tio_config_check(cfg, err, errlen);
}

static unsigned tio_targets(const void *cfg, const char **out, unsigned max)
{
	const struct tio_config *c = cfg;
	unsigned n = c->dirs.n < max ? c->dirs.n : max;

	for (unsigned i = 0; i < n; i++)
		out[i] = c->dirs.v[i];
	return n;
}

static bool tio_keep(const void *cfg, const void *result)
{
	(void)result;
	return ((const struct tio_config *)cfg)->keep;
}

extern const struct workload_report tio_report;

const struct workload_ops workload_tiotest = {
	.name = "tiotest",
	.summary = "threaded sequential/random read/write throughput and latency (tiotest 0.4.2)",
	.cmd = &tio_cmd,
	.config_size = sizeof(struct tio_config),
	.run_opts_off = offsetof(struct tio_config, run),
	.result_size = sizeof(struct tio_result),
	.defaults = tio_defaults_ops,
	.check = tio_check_ops,
	.targets = tio_targets,
	.run = tio_run,
	.result_free = tio_result_free,
	.merge = tio_merge,
	.keep = tio_keep,
	.target_opt = "dir",
	.dirs = tio_dirs,
	.pack = tio_pack,
	.unpack = tio_unpack,
	.figs = &tio_figs,
	.report = &tio_report,
};
