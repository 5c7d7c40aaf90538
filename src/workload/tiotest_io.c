/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's per-thread op loop: -c block contents, the plain path and the queued path
 * (--iodepth, or an engine without a synchronous rw). */
#include "workload/tiotest_int.h"

#include "core/hot.h"

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
bool tio_queued(const struct tio_config *c)
{
	return c->eng.iodepth > 1 || !c->eng.ops->rw;
}

/* What the queued path keeps per thread: never more slots than one phase has ops. */
unsigned tio_depth(const struct tio_config *c)
{
	uint64_t most = c->blocks > c->random_ops ? c->blocks : c->random_ops;

	return (unsigned)(c->eng.iodepth < most ? c->eng.iodepth : most);
}

/* A completed request of the queued path: the op recorded from its own timestamps, checked
 * with -c, its slot freed; a short transfer goes back in sub[] for the rest. 0 or -errno (the
 * run's error, recorded). */
FSB_HOT static int tio_complete(struct worker *w, struct tio_worker *tw, struct engine_req *r,
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
		opstat_add_at(&tw->st, r->done_lat, lat_ns(r->done_lat - s->t0), c->block_bytes);
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
 * left in the engine when the phase ends. Not inlined into tio_work, whose other paths are not
 * hot: it stays in .text.hot (core/hot.h). */
FSB_HOT __attribute__((noinline)) static int tio_work_queued(struct worker *w, struct tio_worker *tw, int fd)
{
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	struct engine_ctx *ctx = &t->ctx;
	const bool write = phase_writes[tw->phase], random = phase_random[tw->phase];
	const uint64_t bs = c->block_bytes, blocks = t->written ? t->written : c->blocks;
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

/* The phase's open of the thread's file (or -R region), proven still the one setup made */
static int work_open(const struct tio_config *c, struct tio_thread *t, struct engine_file *f,
		     uint64_t base)
{
	const struct engine_ops *eng = c->eng.ops;
	const char *what = "open";
	int rc;

	rc = eng->open(f, t->path, tio_open_flags(c), base, c->blocks * c->block_bytes, &what);
	if (rc) {
		fail_io(c, rc, what, t->path, -1);
		return rc;
	}
	if ((rc = same_file(c, f->fd, t))) {
		if (rc == -ESTALE)
			run_fail_detail(ESTALE, "open", t->path, -1, "not the %s fsbench %s: it was "
					"replaced (renamed over, or a hard link to another file); "
					"not used", c->raw ? "device" : "file",
					c->raw ? "opened at the start" : "created");
		else
			fail_io(c, rc, "fstat", t->path, -1);
		eng->close(f);
		return rc;
	}
	return 0;
}

/* The phase's closing fsync, timed into tw->flush_ns: 0 or -errno */
static int work_flush(struct tio_worker *tw, struct engine_file *f, bool queued)
{
	uint64_t t0 = clock_ns();
	int rc;

	if (queued) {
		/* through the engine too: an asynchronous engine's fsync is one of its requests */
		struct engine_req r = { .op = ENGINE_OP_FSYNC, .fd = f->fd };
		int64_t res = engine_exec1(&tw->t->ctx, &r);

		rc = res < 0 ? (int)res : 0;
	} else {
		rc = tw->c->eng.ops->flush(f);
	}
	tw->flush_ns = clock_ns() - t0;
	return rc;
}

/* the phase's finish hook (queued path): the kernel workers that served this thread, after
 * the window, before the thread and its io-wq go */
void tio_finish(struct worker *w)
{
	struct tio_worker *tw = w->ctx;

	tw->c->eng.ops->workers(&tw->t->ctx, &tw->wq);
}

int tio_work(struct worker *w)
{
	struct tio_worker *tw = w->ctx;
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	const struct engine_ops *eng = c->eng.ops;
	const bool write = phase_writes[tw->phase], random = phase_random[tw->phase];
	const uint64_t bs = c->block_bytes, blocks = t->written ? t->written : c->blocks, base = t->base;
	const uint64_t n = random ? c->random_ops : blocks;
	const uint32_t gen_now = tw->phase == TIO_RWRITE;
	const bool psync = eng == &engine_psync, queued = tio_queued(c);
	struct engine_file f = { .fd = -1, .sync_each = c->mmap && c->sync, .random = random,
				 .ctx = queued ? &t->ctx : NULL };
	unsigned char *buf = t->buf;
	uint64_t rng = tw->seed;
	uint64_t t0, t1;
	int rc, crc;

	if ((rc = work_open(c, t, &f, base)))
		return rc;
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
		opstat_add_at(&tw->st, t1, lat_ns(t1 - t0), bs);
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
	rc = work_flush(tw, &f, queued);
	if (rc && !run_stopping())
		fail_io(c, rc, "fsync", t->path, -1);
out:
	crc = eng->close(&f);
	if (crc && !rc) {
		fail_io(c, crc, "close", t->path, -1);
		rc = crc;
	}
	return rc;
}
