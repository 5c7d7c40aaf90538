/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fs_mark workload: directories, regenerable names, the per-thread create loop with the
 * -S sync methods, the stat/read/unlink phases, iterations and fill mode.
 * Compatibility notes say which fs_mark 3.3 behaviour (doc/reference/fs_mark.md) each choice keeps or fixes. */
#include "workload/fs_mark.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/pack.h"
#include "workload/run_opts.h"
#include "workload/workload.h"
#include "core/clock.h"

const char *const fsm_op_name[FSM_NOPS] = {
	"create", "write", "xattr", "fsync", "close", "dirsync", "sync", "reopen",
	"unlink", "stat", "read_open", "read", "read_close",
};

/* A run of files of one thread that share a time-stamp prefix and a starting subdirectory:
 * one per iteration, plus one per TIME_HASH move. Enough to regenerate every name. */
struct fsm_seg {
	uint64_t k0;             /* first file index (per thread, counted over the whole run) */
	unsigned sub0;
	char seq[24];            /* the time-stamp part, already cut/padded to its length */
};

struct fsm_thread {
	struct fsm_state *s;
	unsigned id, dir;        /* thread number, its -d index */
	uint64_t k_created;      /* files [0, k_created) were created by us (O_EXCL succeeded) */
	uint64_t k_unlinked;     /* files below this were unlinked by the unlink phase */
	uint64_t iter_k0, done;  /* this iteration: first index, files completely created */
	uint64_t loop_ns, loop_end_ns;
	struct fsm_seg *segs;
	unsigned nsegs, segcap;
	uint64_t seg_start_lat;  /* TIME_HASH: when the current subdirectory was entered (lat_now) */
	char *name;              /* name_chars + 1 */
	char *rbuf;              /* --read buffer */
	struct opstat op[FSM_NOPS];
	/* the engine: one context for every phase, --iodepth create chains in flight */
	struct engine_ctx ctx;
	struct fsm_slot *slots;
	unsigned nslots;
	struct fsm_slot **free_slots;
	struct engine_req **sub, **done_reqs;
	uint64_t last_lat;       /* the latest completion seen (lat_now) */
	struct engine_workers wq;  /* the engine's kernel workers at the end of the last phase */
	uint64_t *foreign;       /* files whose O_EXCL create found a file there: never removed */
	unsigned nforeign;
};

struct fsm_slot;

struct fsm_state {
	const struct fsm_config *c;
	struct driver *d;
	int *dirfd;              /* [dir * nsubdirs + sub] */
	struct fsm_thread *th;
	struct worker *workers;
	char *wbuf;              /* zeros, -w bytes (fs_mark writes zeros from a static buffer) */
	char *xbuf;
	uint64_t salt, bits_mask;
	unsigned bits;           /* unique bits encoded in the random part */
	/* the job's threads (fsbench-mpi: every process's; run_opts.proc): this process's first
	 * thread number and how many there are, so that names are unique across the job */
	unsigned thread_base, job_threads;
	atomic_int full;         /* errno that filled the filesystem (fill mode), 0 otherwise */
	char full_path[PATH_MAX + 512];
	const char *full_what;
	char label[64];          /* the progress line's prefix: "fs_mark run 2/3 iteration 5" */
	struct opstat *run_op;   /* [FSM_NOPS]: the reported iterations merged, packed at the end */
	const struct layout_groups *groups;   /* --layout on ext4: the geometry, else NULL */
	dev_t groups_dev;        /* ... of this filesystem */
};

/* ---- names ---------------------------------------------------------------------------------
 * fs_mark 3.3: hex seconds, '~' padding, then -r characters from [0-9A-Z] drawn with random().
 * Here the random part encodes u = k * threads + thread through a bijection on `bits` bits, so
 * names look random (creation order is not name order, which matters to directory indexes) yet
 * are unique by construction: `-r 0` no longer gives every file one name (doc/reference/fs_mark.md §4), and a
 * name can be rebuilt from (thread, k), so no name table is kept. 32 symbols (0-9A-V) make a
 * character exactly 5 bits. */
static const char fsm_alpha[32] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

static inline uint64_t mix_bits(uint64_t x, unsigned bits, uint64_t mask)
{
	unsigned sh = bits > 1 ? (bits + 1) / 2 : 1;

	/* xorshift-right and odd multiplication are both invertible modulo 2^bits */
	x ^= x >> sh;
	x = (x * UINT64_C(0xff51afd7ed558ccd)) & mask;
	x ^= x >> sh;
	x = (x * UINT64_C(0xc4ceb9fe1a85ec53)) & mask;
	x ^= x >> sh;
	return x;
}

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void name_tail(const struct fsm_config *c, unsigned bits, uint64_t mask, uint64_t salt,
		      unsigned jt, unsigned th, uint64_t k, char *name)
{
	unsigned r = c->rand_chars, i, lim = r < 13 ? r : 13;
	char *end = name + c->name_chars - 1;
	uint64_t x = 0, y;

	if (bits)
		x = mix_bits(((k * jt + th) ^ salt) & mask, bits, mask);
	for (i = 0; i < lim; i++)
		end[-(int)i] = fsm_alpha[(x >> (5 * i)) & 31];
	/* beyond 13 characters (64 bits) the rest is filler, derived from x to stay regenerable */
	for (y = x; i < r; i++) {
		if ((i - 13) % 12 == 0)
			y = mix64(y + UINT64_C(0x9e3779b97f4a7c15));
		end[-(int)i] = fsm_alpha[(y >> (5 * ((i - 13) % 12))) & 31];
	}
}

/* the time-stamp part: hex seconds cut to its last seq_len characters, or '~'-padded */
static void make_seq(const struct fsm_config *c, time_t now, char *seq)
{
	unsigned seq_len = c->name_chars - c->rand_chars;
	char hex[24];
	int n = snprintf(hex, sizeof(hex), "%lx", (unsigned long)now);

	if ((unsigned)n >= seq_len) {
		memcpy(seq, hex + n - seq_len, seq_len);
	} else {
		memcpy(seq, hex, (size_t)n);
		memset(seq + n, '~', seq_len - (unsigned)n);
	}
	seq[seq_len] = '\0';
}

static void name_bits(const struct fsm_config *c, unsigned *bits, uint64_t *mask)
{
	unsigned b = 5 * c->rand_chars;

	*bits = b > 64 ? 64 : b;
	*mask = *bits == 64 ? UINT64_MAX : (UINT64_C(1) << *bits) - 1;
}

/* ---- where file k of a thread lives ---------------------------------------------------------- */
static unsigned subdir_of(const struct fsm_config *c, const struct fsm_thread *t,
			  const struct fsm_seg *g, uint64_t k)
{
	switch (c->policy) {
	case FSM_DIR_TIME_HASH:
		return g->sub0;
	case FSM_DIR_ROUND_ROBIN:
		return (unsigned)((g->sub0 + (k - g->k0) / c->files_per_subdir) % c->nsubdirs);
	case FSM_DIR_SPREAD:
		return (unsigned)((k * t->s->job_threads + t->s->thread_base + t->id) % c->nsubdirs);
	default:
		return 0;
	}
}

/* the segment holding file k; *hint makes monotone walks (either direction) O(1) */
static const struct fsm_seg *seg_of(const struct fsm_thread *t, uint64_t k, unsigned *hint)
{
	unsigned i = *hint < t->nsegs ? *hint : t->nsegs - 1;

	while (i > 0 && t->segs[i].k0 > k)
		i--;
	while (i + 1 < t->nsegs && t->segs[i + 1].k0 <= k)
		i++;
	*hint = i;
	return &t->segs[i];
}

/* builds file k's name into t->name and returns its directory fd */
static int locate(struct fsm_thread *t, uint64_t k, unsigned *hint)
{
	struct fsm_state *s = t->s;
	const struct fsm_config *c = s->c;
	const struct fsm_seg *g = seg_of(t, k, hint);

	memcpy(t->name, g->seq, c->name_chars - c->rand_chars);
	name_tail(c, s->bits, s->bits_mask, s->salt, s->job_threads, s->thread_base + t->id, k, t->name);
	return s->dirfd[t->dir * c->nsubdirs + subdir_of(c, t, g, k)];
}

static void path_of(const struct fsm_thread *t, const struct fsm_seg *g, uint64_t k, char *buf,
		    size_t len)
{
	const struct fsm_config *c = t->s->c;

	if (c->policy == FSM_DIR_NONE)
		snprintf(buf, len, "%s/%s", c->dirs.v[t->dir], t->name);
	else
		snprintf(buf, len, "%s/%02x/%s", c->dirs.v[t->dir], subdir_of(c, t, g, k), t->name);
}

static int seg_push(struct fsm_thread *t, uint64_t k0, unsigned sub0, time_t now)
{
	if (t->nsegs == t->segcap) {
		unsigned ncap = t->segcap ? t->segcap * 2 : 8;
		struct fsm_seg *n = realloc(t->segs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->segs = n;
		t->segcap = ncap;
	}
	t->segs[t->nsegs] = (struct fsm_seg){ .k0 = k0, .sub0 = sub0 };
	make_seq(t->s->c, now, t->segs[t->nsegs].seq);
	t->nsegs++;
	return 0;
}

/* ---- errors ---------------------------------------------------------------------------------- */
static bool is_full(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

/* Fill mode: a full filesystem ends the fill (not an error); anything else is the run's error. */
static void fail_file(struct fsm_thread *t, int err, const char *what, uint64_t k, unsigned *hint)
{
	struct fsm_state *s = t->s;
	char path[PATH_MAX + 512];

	if (err == EINTR && run_stopping())
		return;
	path_of(t, seg_of(t, k, hint), k, path, sizeof(path));
	if (s->c->fill && is_full(err)) {
		int zero = 0;

		if (atomic_compare_exchange_strong(&s->full, &zero, err)) {
			snprintf(s->full_path, sizeof(s->full_path), "%s", path);
			s->full_what = what;
		}
		return;
	}
	if (err == EEXIST)
		run_fail_detail(err, what, path, -1, "%s (fsbench only creates new files; a name "
				"of an earlier run kept with -k? -r adds random characters)",
				strerror(err));
	else if (err == EOPNOTSUPP && !strcmp(what, "fsetxattr"))
		run_fail_detail(err, what, path, -1, "extended attributes not supported here (--xattr)");
	else
		run_fail(err, what, path, -1);
}

static inline bool stop_now(const struct fsm_state *s)
{
	return run_stopping() || atomic_load_explicit(&s->full, memory_order_relaxed);
}

/* ---- the create loop -------------------------------------------------------------------------
 * Every operation goes through the thread's engine context (engine/engine.h) as a chain per
 * file: openat(O_CREAT|O_EXCL) -> write x (-s / -w) -> fsetxattr (--xattr) -> fsync or
 * fdatasync (-S 1) -> close -> directory fsync (--dirsync), the syscalls and the order
 * fs_mark issues. Up to --iodepth files are in flight per thread; at depth 1 with psync each
 * chain runs at submit, one syscall after the other, exactly as a plain loop would. A file
 * with more than FSM_CHAIN_WRITES writes goes in several chains (the later ones on the
 * descriptor the first opened), and so does a file after a short write: the rest is written
 * from where it stopped, as fs_mark's loop does. Each op is timed from its request's
 * timestamps: from the previous op's completion (or its own submission, if later) to its own
 * completion, so at depth 1 the figures are what timing around each syscall gives. */
#define FSM_CHAIN_WRITES 16
#define FSM_CHAIN_MAX (1 + FSM_CHAIN_WRITES + 4)    /* openat, writes, xattr, fsync, close, dirsync */

struct fsm_slot {
	struct engine_req req[FSM_CHAIN_MAX];
	uint64_t k;              /* the file */
	int dfd;                 /* its directory */
	int fd;                  /* open (the engine's descriptor), or -1 */
	uint64_t left;           /* bytes still to write */
	uint64_t prev_lat;       /* the previous op's completion, 0 before the first */
	char *name;              /* name_chars + 1 */
	unsigned seg;            /* 1 + the segment whose time stamp name holds, 0: none */
};

static inline enum engine_op sync_op(const struct fsm_config *c)
{
	return c->fdatasync ? ENGINE_OP_FDATASYNC : ENGINE_OP_FSYNC;
}

/* The next chain of slot s: the file's openat first (open), then its writes, and once the
 * last write is in, the rest of its create. */
static struct engine_req *build_chain(const struct fsm_state *s, struct fsm_slot *sl, bool open)
{
	const struct fsm_config *c = s->c;
	struct engine_req *r = sl->req;
	const int fd = open ? ENGINE_FD_CHAIN : sl->fd;
	uint64_t left = sl->left;
	unsigned n = 0;

	if (open)
		r[n++] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = sl->dfd, .name = sl->name,
					      .flags = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
					      .mode = 0666 };
	/* fs_mark issues write(fd, buf, 0) for -s 0; no write at all here */
	for (unsigned w = 0; left && w < FSM_CHAIN_WRITES; w++) {
		size_t len = left < c->io_bytes ? (size_t)left : (size_t)c->io_bytes;

		r[n++] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = fd, .buf = s->wbuf, .len = len,
					      .off = ENGINE_OFF_CUR };
		left -= len;
	}
	if (!left) {
		if (c->xattr_bytes)
			r[n++] = (struct engine_req){ .op = ENGINE_OP_FSETXATTR, .fd = fd, .name = "user.fsbench",
						      .buf = s->xbuf, .len = c->xattr_bytes };
		if (c->sync_method == 1)
			r[n++] = (struct engine_req){ .op = sync_op(c), .fd = fd };
		r[n++] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = fd };
		if (c->dirsync)
			r[n++] = (struct engine_req){ .op = sync_op(c), .fd = sl->dfd };
	}
	for (unsigned i = 0; i < n; i++) {
		r[i].user = sl;
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
	}
	return r;
}

/* closes what a failed chain left open (its close was cancelled) */
static void slot_close(struct fsm_thread *t, struct fsm_slot *sl)
{
	struct engine_req r = { .op = ENGINE_OP_CLOSE, .fd = sl->fd };

	if (sl->fd >= 0)
		engine_exec1(&t->ctx, &r);
	sl->fd = -1;
}

/* A completed chain of slot sl: its ops recorded. 1: the file is created; 0: more to write
 * (a short write, or a big file), the next chain is to be built; -1: it failed (the run's
 * error, or the end of a fill, recorded; the file closed). */
static int chain_done(struct fsm_thread *t, struct fsm_slot *sl, struct engine_req *head,
		      unsigned *hint)
{
	const char *what = NULL;
	int err = 0;
	struct engine_req *r;

	for (r = head; r && r->result != -ECANCELED; r = r->next) {
		uint64_t from = r->submit_lat > sl->prev_lat ? r->submit_lat : sl->prev_lat;
		uint64_t lat = lat_ns(r->done_lat - from);
		bool dir = r->fd == sl->dfd && r->op != ENGINE_OP_OPENAT;

		sl->prev_lat = r->done_lat;
		if (r->done_lat > t->last_lat)
			t->last_lat = r->done_lat;
		if (__builtin_expect(r->result < 0 || (r->op == ENGINE_OP_WRITE && r->result == 0), 0)) {
			/* a write that makes no progress: fs_mark -w 0 spins forever there */
			err = r->result ? (int)-r->result : EIO;
			what = r->op == ENGINE_OP_OPENAT ? "open" : dir ? "fsync (directory)" : engine_op_name(r);
			if (r->op == ENGINE_OP_CLOSE)
				sl->fd = -1;     /* released even so */
			break;
		}
		switch (r->op) {
		case ENGINE_OP_OPENAT:
			sl->fd = (int)r->result;
			if (sl->k >= t->k_created)
				t->k_created = sl->k + 1;
			opstat_add(&t->op[FSM_CREATE], lat, 0);
			break;
		case ENGINE_OP_WRITE:
			sl->left -= (uint64_t)r->result;
			opstat_add(&t->op[FSM_WRITE], lat, (uint64_t)r->result);
			break;
		case ENGINE_OP_FSETXATTR:
			opstat_add(&t->op[FSM_XATTR], lat, 0);
			break;
		case ENGINE_OP_CLOSE:
			sl->fd = -1;
			opstat_add(&t->op[FSM_CLOSE], lat, 0);
			break;
		default:                 /* fsync, fdatasync: of the file or, after close, the directory */
			opstat_add(&t->op[dir ? FSM_DIRSYNC : FSM_FSYNC], lat, 0);
			break;
		}
	}
	if (!what)
		return sl->fd < 0 && !sl->left && !r ? 1 : 0;
	if (err == EEXIST && t->nforeign < t->nslots)
		t->foreign[t->nforeign++] = sl->k;   /* someone else's file: never removed */
	slot_close(t, sl);
	memcpy(t->name, sl->name, t->s->c->name_chars);
	fail_file(t, err, what, sl->k, hint);
	return -1;
}

/* closes what the engine refused to take */
static void refused(struct fsm_thread *t, int rc, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		slot_close(t, t->sub[i]->user);
	run_fail_msg(-rc, "the %s engine refused requests: %s", t->ctx.ops->name, strerror(-rc));
}

/* reopen file k read-only, fsync, close: the post-loop passes of -S 2..6 */
static int refsync(struct fsm_thread *t, uint64_t k, unsigned *hint)
{
	const struct fsm_config *c = t->s->c;
	struct engine_req r[3] = {
		{ .op = ENGINE_OP_OPENAT, .fd = locate(t, k, hint), .name = t->name,
		  .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC, .next = &r[1] },
		{ .op = sync_op(c), .fd = ENGINE_FD_CHAIN, .next = &r[2] },
		{ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN },
	};
	int rc = engine_exec(&t->ctx, r);

	if (rc || r[0].result < 0) {
		fail_file(t, rc ? -rc : (int)-r[0].result, "open", k, hint);
		return -1;
	}
	opstat_add(&t->op[FSM_REOPEN], lat_ns(r[0].done_lat - r[0].submit_lat), 0);
	if (r[1].result < 0) {
		struct engine_req cl = { .op = ENGINE_OP_CLOSE, .fd = (int)r[0].result };

		engine_exec1(&t->ctx, &cl);
		fail_file(t, (int)-r[1].result, c->fdatasync ? "fdatasync" : "fsync", k, hint);
		return -1;
	}
	opstat_add(&t->op[FSM_FSYNC], lat_ns(r[1].done_lat - r[0].done_lat), 0);
	opstat_add(&t->op[FSM_CLOSE], lat_ns(r[2].done_lat - r[1].done_lat), 0);
	return 0;
}

static int create_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	struct fsm_state *s = t->s;
	const struct fsm_config *c = s->c;
	const unsigned m = (unsigned)c->sync_method, seq_len = c->name_chars - c->rand_chars;
	const uint64_t k0 = t->iter_k0, n = c->nfiles;
	struct engine_ctx *ctx = &t->ctx;
	struct fsm_seg *g = &t->segs[t->nsegs - 1];
	unsigned hint = t->nsegs - 1, nfree = t->nslots, nsub = 0;
	uint64_t loop0, a, i = 0;

	for (unsigned k = 0; k < t->nslots; k++)
		t->free_slots[k] = &t->slots[k];
	/* latencies in lat_now() units (core/clock.h), the loop window in clock_ns() */
	loop0 = clock_ns();
	t->seg_start_lat = t->last_lat = lat_now();
	for (;;) {
		int got;

		while (nfree && i < n && !stop_now(s)) {
			const uint64_t k = k0 + i;
			struct fsm_slot *sl;

			/* TIME_HASH: fs_mark moves to the next subdirectory after 180 s in one */
			if (c->policy == FSM_DIR_TIME_HASH &&
			    __builtin_expect(lat_ns(t->last_lat - t->seg_start_lat) >
					     FSM_SECS_PER_DIR * UINT64_C(1000000000), 0)) {
				if (seg_push(t, k, (g->sub0 + 1) % c->nsubdirs, time(NULL))) {
					run_fail(ENOMEM, "malloc", "", -1);
					break;
				}
				g = &t->segs[t->nsegs - 1];
				hint = t->nsegs - 1;
				t->seg_start_lat = t->last_lat;
			}
			sl = t->free_slots[--nfree];
			sl->k = k;
			sl->dfd = s->dirfd[t->dir * c->nsubdirs + subdir_of(c, t, g, k)];
			sl->fd = -1;
			sl->left = c->file_bytes;
			sl->prev_lat = 0;
			if (sl->seg != t->nsegs) {
				memcpy(sl->name, g->seq, seq_len);
				sl->seg = t->nsegs;
			}
			name_tail(c, s->bits, s->bits_mask, s->salt, s->job_threads, s->thread_base + t->id, k,
				  sl->name);
			t->sub[nsub++] = build_chain(s, sl, true);
			i++;
		}
		if (nsub) {
			int rc = engine_submit(ctx, t->sub, nsub);

			if (rc) {
				refused(t, rc, nsub);
				for (unsigned k = 0; k < nsub; k++)
					t->free_slots[nfree++] = t->sub[k]->user;
			}
			nsub = 0;
		}
		if (!ctx->inflight)
			break;
		got = engine_reap(ctx, t->done_reqs, 1, t->nslots);
		if (got < 0) {
			run_fail_msg(-got, "the %s engine lost requests: %s", ctx->ops->name, strerror(-got));
			break;
		}
		for (int j = 0; j < got; j++) {
			struct fsm_slot *sl = t->done_reqs[j]->user;
			int res = chain_done(t, sl, t->done_reqs[j], &hint);

			/* a file in flight is finished even after a stop, as fs_mark finishes the
			 * file it is writing: only new files are not started */
			if (res == 0)
				t->sub[nsub++] = build_chain(s, sl, false);
			else
				t->free_slots[nfree++] = sl;
			if (res == 1)
				t->done++;
		}
	}
	/* the post-loop sync phase, inside the loop window, in fs_mark's code order (§3):
	 * sync(), in-order pass, reverse pass, first-file fsync */
	if (!stop_now(s) && t->done) {
		if (m == 2 || m == 4 || m == 6) {
			a = lat_now();
			sync();
			opstat_add(&t->op[FSM_SYNC], lat_ns(lat_now() - a), 0);
		}
		if (m == 5 || m == 6)
			for (uint64_t j = 0; j < t->done && !stop_now(s); j++)
				if (refsync(t, k0 + j, &hint))
					break;
		if (m == 3 || m == 4)
			for (uint64_t j = t->done; j-- > 0 && !stop_now(s);)
				if (refsync(t, k0 + j, &hint))
					break;
		if (m == 2)
			refsync(t, k0, &hint);
	}
	t->loop_end_ns = clock_ns();
	t->loop_ns = t->loop_end_ns - loop0;
	return 0;
}

/* ---- the extra phases and the unlink phase: one request at a time, through the engine ---- */
static int stat_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	unsigned hint = 0;
	struct statx stx;

	for (uint64_t i = 0; i < t->done && !stop_now(t->s); i++) {
		uint64_t k = t->iter_k0 + i;
		struct engine_req r = { .op = ENGINE_OP_STATX, .fd = locate(t, k, &hint), .name = t->name,
					.flags = AT_SYMLINK_NOFOLLOW, .mode = STATX_BASIC_STATS, .buf = &stx };
		int64_t res = engine_exec1(&t->ctx, &r);

		if (res < 0) {
			fail_file(t, (int)-res, "stat", k, &hint);
			break;
		}
		opstat_add(&t->op[FSM_STAT], lat_ns(r.done_lat - r.submit_lat), 0);
	}
	return 0;
}

static int read_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	const struct fsm_config *c = t->s->c;
	unsigned hint = 0;

	for (uint64_t i = 0; i < t->done && !stop_now(t->s); i++) {
		uint64_t k = t->iter_k0 + i, prev, got = 0;
		struct engine_req r = { .op = ENGINE_OP_OPENAT, .fd = locate(t, k, &hint), .name = t->name,
					.flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC };
		int64_t res = engine_exec1(&t->ctx, &r);
		int fd;

		if (res < 0) {
			fail_file(t, (int)-res, "open", k, &hint);
			return 0;
		}
		fd = (int)res;
		opstat_add(&t->op[FSM_READ_OPEN], lat_ns(r.done_lat - r.submit_lat), 0);
		prev = r.done_lat;
		for (;;) {
			r = (struct engine_req){ .op = ENGINE_OP_READ, .fd = fd, .buf = t->rbuf, .len = c->io_bytes,
						 .off = ENGINE_OFF_CUR };
			res = engine_exec1(&t->ctx, &r);
			if (res < 0) {
				r = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = fd };
				engine_exec1(&t->ctx, &r);
				fail_file(t, (int)-res, "read", k, &hint);
				return 0;
			}
			if (res == 0) {
				prev = r.done_lat;
				break;
			}
			opstat_add(&t->op[FSM_READ], lat_ns(r.done_lat - prev), (uint64_t)res);
			got += (uint64_t)res;
			prev = r.done_lat;
		}
		r = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = fd };
		engine_exec1(&t->ctx, &r);
		opstat_add(&t->op[FSM_READ_CLOSE], lat_ns(r.done_lat - prev), 0);
		if (got != c->file_bytes) {
			char path[PATH_MAX + 512];

			path_of(t, seg_of(t, k, &hint), k, path, sizeof(path));
			run_fail_detail(EIO, "read", path, -1, "read back %llu bytes, wrote %llu",
					(unsigned long long)got, (unsigned long long)c->file_bytes);
			return 0;
		}
	}
	return 0;
}

/* fs_mark unlinks in creation order, outside the loop window */
static int unlink_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	unsigned hint = 0;

	for (uint64_t k = t->k_unlinked; k < t->iter_k0 + t->done; k++) {
		struct engine_req r = { .op = ENGINE_OP_UNLINKAT, .fd = locate(t, k, &hint), .name = t->name };
		int64_t res = engine_exec1(&t->ctx, &r);

		if (res < 0 && res != -ENOENT) {
			fail_file(t, (int)-res, "unlink", k, &hint);
			break;
		}
		opstat_add(&t->op[FSM_UNLINK], lat_ns(r.done_lat - r.submit_lat), 0);
		t->k_unlinked = k + 1;
	}
	return 0;
}

/* Each phase's work, then (in the worker, before it exits and its io-wq with it) the engine's
 * kernel workers. */
#define WITH_WORKERS(fn)                                                                   \
	static int fn##_wq(struct worker *w)                                               \
	{                                                                                  \
		struct fsm_thread *t = w->ctx;                                             \
		int rc = fn(w);                                                            \
                                                                                           \
		if (t->ctx.ops && t->ctx.ops->workers)                                     \
			t->ctx.ops->workers(&t->ctx, &t->wq);                              \
		return rc;                                                                 \
	}
WITH_WORKERS(create_work)
WITH_WORKERS(stat_work)
WITH_WORKERS(read_work)
WITH_WORKERS(unlink_work)
#undef WITH_WORKERS

/* The cleanup callback: every name this run created and has not unlinked, regenerated. */
static int cleanup_files(void *arg)
{
	struct fsm_state *s = arg;
	int failed = 0;

	for (unsigned i = 0; s->th && i < s->c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];
		unsigned hint = 0;

		for (uint64_t k = t->k_unlinked; k < t->k_created; k++) {
			int dfd;
			bool mine = true;

			/* with files in flight, a later file may be created after one found a name
			 * taken: that one is below k_created, and not ours */
			for (unsigned f = 0; f < t->nforeign; f++)
				mine = mine && t->foreign[f] != k;
			if (!mine)
				continue;
			dfd = locate(t, k, &hint);

			if (unlinkat(dfd, t->name, 0) < 0 && errno != ENOENT) {
				char path[PATH_MAX + 512];

				int err = errno;

				path_of(t, seg_of(t, k, &hint), k, path, sizeof(path));
				cleanup_report(path, err);
				failed++;
			}
		}
		t->k_unlinked = t->k_created;
	}
	return failed;
}

/* ---- setup ----------------------------------------------------------------------------------- */
/* Makes (when missing) and opens one directory: its fd, or -errno with the syscall that failed
 * in *what and the path in full. The directory is made through the engine (an io_uring engine's
 * mkdirat); its handle is fsbench's own, opened directly: statfs and every engine's requests
 * use it. */
static int open_dir(struct engine_ctx *ctx, const char *path, int at, const char *name, bool top,
		    char *full, size_t len, const char **what)
{
	struct engine_req mk = { .op = ENGINE_OP_MKDIRAT, .fd = at, .name = name, .mode = 0777 };
	struct stat st;
	int64_t res;
	int fd, rc;

	if (top)
		snprintf(full, len, "%s", path);
	else
		snprintf(full, len, "%s/%s", path, name);
	*what = "mkdir";
	res = engine_exec1(ctx, &mk);
	if (res == 0) {
		*what = "register";
		rc = fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : cleanup_add(full, &st);
		if (rc < 0) {
			/* made here a moment ago and not registered: nothing else would remove it */
			unlinkat(at, name, AT_REMOVEDIR);
			return rc;
		}
	} else if (res != -EEXIST) {
		return (int)res;
	}
	/* the -d directory itself may be a symlink the user chose; below it nothing is followed */
	*what = "open";
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (top ? 0 : O_NOFOLLOW));
	return fd < 0 ? -errno : fd;
}

/* A directory that could not be made or opened. In fill mode a mkdir that finds no space or no
 * inodes left is the filesystem found full, as a file's open or write would be (fs_mark died of
 * it): recorded in s->full, no message. */
static int dir_failed(struct fsm_state *s, int rc, const char *what, const char *full)
{
	if (s->c->fill && is_full(-rc) && !strcmp(what, "mkdir")) {
		atomic_store(&s->full, -rc);
		snprintf(s->full_path, sizeof(s->full_path), "%s", full);
		s->full_what = what;
		return rc;
	}
	if (!strcmp(what, "mkdir"))
		run_fail_msg(-rc, "cannot create directory '%s': %s", full, strerror(-rc));
	else if (!strcmp(what, "register"))
		run_fail_msg(-rc, "cannot register '%s': %s", full, strerror(-rc));
	else
		run_fail_msg(-rc, "cannot open directory '%s': %s", full,
			     rc == -ELOOP ? "it is a symbolic link" : strerror(-rc));
	return rc;
}

/* Files a thread keeps in flight (--iodepth): never more than it creates per iteration. */
static unsigned fsm_depth(const struct fsm_config *c)
{
	return (unsigned)(c->eng.iodepth < c->nfiles ? c->eng.iodepth : c->nfiles);
}

/* Open files the run needs at most: every directory's fd, the files in flight and a reopen per
 * thread, and room for stdio, the log, the JSON and the kernel view (32: a plain run fits in
 * ulimit -n 64) */
static uint64_t nofile_need(const struct fsm_config *c)
{
	return (uint64_t)c->ndirs * c->nsubdirs + (fsm_depth(c) + 1ull) * c->nthreads + 32;
}

/* raises the soft limit to what the run needs; fsm_config_check() saw that the hard one allows it */
static int raise_nofile(uint64_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return -EMFILE;
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}

static int setup(struct fsm_state *s)
{
	const struct fsm_config *c = s->c;
	unsigned nfd = c->ndirs * c->nsubdirs;
	unsigned depth = fsm_depth(c);
	char full[PATH_MAX + 16];
	const char *what;
	struct fsm_thread *t0;
	uint64_t salt;
	int rc;

	if (raise_nofile(nofile_need(c))) {
		run_fail_msg(EMFILE, "%u directories (-d x -D) need more open files than RLIMIT_NOFILE allows",
			     nfd);
		return -EMFILE;
	}
	s->dirfd = malloc(nfd * sizeof(int));
	s->th = calloc(c->nthreads, sizeof(*s->th));
	s->workers = calloc(c->nthreads, sizeof(*s->workers));
	s->wbuf = calloc(1, c->io_bytes);
	s->xbuf = calloc(1, c->xattr_bytes + 1);
	s->run_op = malloc(FSM_NOPS * sizeof(*s->run_op));
	for (unsigned i = 0; s->dirfd && i < nfd; i++)
		s->dirfd[i] = -1;
	if (!s->dirfd || !s->th || !s->workers || !s->wbuf || !s->xbuf || !s->run_op)
		goto nomem;
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_init(&s->run_op[o]);
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];

		t->s = s;
		t->id = i;
		/* fs_mark: thread i + j*ndirs works in directory i (§2) */
		t->dir = i % c->ndirs;
		t->name = calloc(1, c->name_chars + 1);
		t->rbuf = c->read ? malloc(c->io_bytes) : NULL;
		if (!t->name || (c->read && !t->rbuf))
			goto nomem;
		if ((rc = engine_ctx_init_opts(&t->ctx, &c->eng, depth))) {
			if (rc == -ENOMEM)
				goto nomem;
			run_fail_msg(-rc, "cannot set up the %s engine: %s", c->eng.ops->name, strerror(-rc));
			return rc;
		}
		t->nslots = depth;
		t->slots = calloc(depth, sizeof(*t->slots));
		t->free_slots = calloc(depth, sizeof(*t->free_slots));
		t->sub = calloc(depth, sizeof(*t->sub));
		t->done_reqs = calloc(depth, sizeof(*t->done_reqs));
		t->foreign = calloc(depth, sizeof(*t->foreign));
		if (!t->slots || !t->free_slots || !t->sub || !t->done_reqs || !t->foreign)
			goto nomem;
		for (unsigned k = 0; k < depth; k++)
			if (!(t->slots[k].name = calloc(1, c->name_chars + 1)))
				goto nomem;
		s->workers[i].ctx = t;
	}
	/* the directories through the first thread's engine context, in this thread: nothing
	 * runs in it before the first phase */
	t0 = &s->th[0];
	for (unsigned d = 0; d < c->ndirs; d++) {
		int top = open_dir(&t0->ctx, c->dirs.v[d], AT_FDCWD, c->dirs.v[d], true, full, sizeof(full),
				   &what);

		if (top < 0)
			return dir_failed(s, top, what, full);
		if (c->policy == FSM_DIR_NONE) {
			s->dirfd[d] = top;
			continue;
		}
		/* created once, up front: fs_mark mkdir()s the target directory before every file */
		for (unsigned i = 0; i < c->nsubdirs; i++) {
			char sub[16];

			snprintf(sub, sizeof(sub), "%02x", i);
			rc = open_dir(&t0->ctx, c->dirs.v[d], top, sub, false, full, sizeof(full), &what);
			if (rc < 0) {
				close(top);
				return dir_failed(s, rc, what, full);
			}
			s->dirfd[d * c->nsubdirs + i] = rc;
		}
		close(top);
	}
	/* a different name stream every run, from the clock: runs kept with -k do not collide; a
	 * job's processes share the job's stream (each its own thread numbers) */
	if (c->run.job_salt)
		salt = mix64(c->run.job_salt + s->d->run);
	else
		salt = mix64(clock_ns() ^ ((uint64_t)getpid() << 32));
	s->thread_base = c->run.proc * c->nthreads;
	s->job_threads = c->nthreads * run_opts_nprocs(&c->run);
	name_bits(c, &s->bits, &s->bits_mask);
	s->salt = salt & s->bits_mask;
	if (cleanup_add_fn(cleanup_files, s))
		goto nomem;
	return 0;
nomem:
	run_fail_msg(ENOMEM, "out of memory");
	return -ENOMEM;
}

/* ---- space ----------------------------------------------------------------------------------- */
/* Bytes and inodes the next iteration needs on each filesystem (-d directories on one
 * filesystem add up): threads x files x size rounded to blocks, and threads x files inodes.
 * fs_mark counted n x s per thread only (doc/reference/fs_mark.md §5). Returns 0 when it fits. */
static int space_check(const struct fsm_state *s, uint64_t files_per_thread, char *why, size_t len)
{
	const struct fsm_config *c = s->c;

	for (unsigned d = 0; d < c->ndirs; d++) {
		struct statfs sf, so;
		unsigned threads = 0;
		uint64_t bsize, per_file, need_b, need_i, free_b;
		bool first = true;

		if (fstatfs(s->dirfd[d * c->nsubdirs], &sf) < 0)
			continue;
		for (unsigned e = 0; e < c->ndirs; e++) {
			if (fstatfs(s->dirfd[e * c->nsubdirs], &so) < 0 ||
			    memcmp(&so.f_fsid, &sf.f_fsid, sizeof(sf.f_fsid)) || so.f_type != sf.f_type)
				continue;
			if (e < d)
				first = false;   /* counted with an earlier directory */
			threads += c->nthreads / c->ndirs;
		}
		if (!first)
			continue;
		bsize = sf.f_bsize ? (uint64_t)sf.f_bsize : 4096;
		per_file = (c->file_bytes + bsize - 1) / bsize * bsize;
		need_b = threads * files_per_thread * per_file;
		need_i = threads * files_per_thread;
		free_b = (uint64_t)sf.f_bavail * bsize;
		if (free_b < need_b) {
			snprintf(why, len, "'%s' has %llu bytes free, %u thread(s) x %llu file(s) of %llu "
				 "bytes need %llu", c->dirs.v[d], (unsigned long long)free_b, threads,
				 (unsigned long long)files_per_thread,
				 (unsigned long long)c->file_bytes, (unsigned long long)need_b);
			return -ENOSPC;
		}
		/* f_files 0: the filesystem has no inode limit to report (btrfs) */
		if (sf.f_files && (uint64_t)sf.f_ffree < need_i) {
			snprintf(why, len, "'%s' has %llu inodes free, %u thread(s) x %llu file(s) need %llu",
				 c->dirs.v[d], (unsigned long long)sf.f_ffree, threads,
				 (unsigned long long)files_per_thread, (unsigned long long)need_i);
			return -ENOSPC;
		}
	}
	return 0;
}

static void use_pct(const struct fsm_state *s, int *blocks, int *inodes)
{
	struct statfs sf;

	*blocks = *inodes = 0;
	if (fstatfs(s->dirfd[0], &sf) < 0)
		return;
	/* fs_mark's FSUse%: truncated, reserved blocks count as used (§6) */
	if (sf.f_blocks)
		*blocks = (int)(100.0 * (double)(sf.f_blocks - sf.f_bavail) / (double)sf.f_blocks);
	if (sf.f_files)
		*inodes = (int)(100.0 * (double)(sf.f_files - sf.f_ffree) / (double)sf.f_files);
}

/* ---- --layout: a seeded sample of the iteration's files, mapped before the unlink phase ---- */
#define FSM_LAYOUT_SEED UINT64_C(0x1a7047)

/* the geometry the locality figures use: the first -d's filesystem's, when it is ext4 */
static void layout_groups_init(struct fsm_state *s, struct fsm_result *r)
{
	struct stat st;
	int rc = layout_ext4_groups(s->dirfd[0], &r->groups, r->groups_why, sizeof(r->groups_why));

	r->groups_ok = rc == 0 && fstat(s->dirfd[0], &st) == 0;
	if (rc && rc != -EOPNOTSUPP)
		snprintf(r->groups_why, sizeof(r->groups_why), "ext4 geometry unknown: %s", strerror(-rc));
	if (r->groups_ok) {
		s->groups = &r->groups;
		s->groups_dev = st.st_dev;
	}
}

/* one sampled file: file k of thread t, opened read-only by the name fsbench created (no link
 * followed, the directory fsbench opened), mapped. 0, or -errno from FIEMAP (the sample stops). */
static int layout_one(struct fsm_state *s, struct fsm_thread *t, uint64_t k, struct fsm_layout *L,
		      bool example)
{
	unsigned hint = 0;
	int dfd = locate(t, k, &hint), fd, rc;
	struct stat st, dst;
	struct layout_file f;

	fd = openat(dfd, t->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;        /* gone (another program): not in the sample */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fstat(dfd, &dst) < 0) {
		close(fd);
		return 0;
	}
	rc = layout_fd(fd, &f);
	if (rc) {
		layout_absent_reason(fd, rc, L->why, sizeof(L->why));
		close(fd);
		return rc;
	}
	close(fd);
	layout_sum_add(&L->sum, &f);
	if (s->groups && st.st_dev == s->groups_dev) {
		uint64_t dg = layout_locality_add(&L->loc, s->groups, st.st_ino, dst.st_ino, &f);

		if (example && dg != UINT64_MAX && L->nex < FSM_LAYOUT_EXAMPLES)
			L->ex[L->nex++] = (struct fsm_layout_example){
				.ino = st.st_ino, .dir_ino = dst.st_ino, .data_group = dg,
				.inode_group = layout_inode_group(s->groups, st.st_ino),
				.dir_group = layout_inode_group(s->groups, dst.st_ino),
				.first_block = f.first_physical / s->groups->block_bytes, .extents = f.extents };
	}
	return 0;
}

static void layout_figs(struct fsm_layout *L)
{
	const struct layout_locality *l = &L->loc;
	const bool ok = L->taken && !L->absent;

	L->fig[FSM_LFIG_EXTENTS_PER_FILE] = ok ? layout_extents_per_file(&L->sum) : NAN;
	L->fig[FSM_LFIG_ONE_EXTENT_PCT] = ok ? layout_one_extent_pct(&L->sum) : NAN;
	L->fig[FSM_LFIG_INODE_GROUP_PCT] = ok && l->files ? 100.0 * (double)l->in_inode_group / (double)l->files : NAN;
	L->fig[FSM_LFIG_DIR_GROUP_PCT] = ok && l->files ? 100.0 * (double)l->in_dir_group / (double)l->files : NAN;
}

/* N files of the iteration, one drawn from each of N equal strata of its files in creation
 * order, thread after thread: spread over the iteration, the threads and so the subdirectories
 * (each file's subdirectory follows from its index). The draw is seeded by the run and the
 * iteration: the same run samples the same files. */
static void layout_sample(struct fsm_state *s, struct fsm_iter *it)
{
	const struct fsm_config *c = s->c;
	struct fsm_layout *L = &it->layout;
	uint64_t total = 0, n, rng = mix64(FSM_LAYOUT_SEED ^ ((uint64_t)s->d->run << 40) ^ it->index);
	uint64_t base = 0;       /* files of the threads before thread th */
	unsigned th = 0;

	L->taken = true;
	for (unsigned i = 0; i < c->nthreads; i++)
		total += s->th[i].done;
	n = total < c->layout_files ? total : c->layout_files;
	for (uint64_t j = 0; j < n && !run_stopping(); j++) {
		uint64_t lo = j * total / n, hi = (j + 1) * total / n, g;

		rng += UINT64_C(0x9e3779b97f4a7c15);
		g = lo + (uint64_t)(((unsigned __int128)mix64(rng) * (hi - lo)) >> 64);
		while (g >= base + s->th[th].done)
			base += s->th[th++].done;
		L->sampled++;
		if (layout_one(s, &s->th[th], s->th[th].iter_k0 + (g - base), L,
			       j == 0 || j == n / 2 || j == n - 1)) {
			L->absent = true;
			break;
		}
	}
	if (!L->absent && !L->sum.placed) {
		L->absent = true;
		snprintf(L->why, sizeof(L->why), !total ? "no file was created in this iteration" :
			 c->file_bytes == 0 ? "the files are empty (-s 0): no data to place" :
			 "no sampled file has its data placed yet (delayed allocation, nothing synced)");
	}
	layout_figs(L);
}

/* ---- iterations ------------------------------------------------------------------------------ */
/* One phase of an iteration; live: the op whose per-worker statistics the progress line (and,
 * with interval_ns, the time series) follow. The samples are left in *ph for the caller. */
static int run_phase(struct fsm_state *s, struct phase *ph, enum fsm_op live, uint64_t expected,
		     uint64_t interval_ns, struct observe_phase *obs)
{
	const struct fsm_config *c = s->c;
	int rc;

	ph->nworkers = c->nthreads;
	ph->workers = s->workers;
	ph->interval_ns = interval_ns;
	ph->expected_ops = expected;
	ph->label = s->label;
	ph->ops_unit = "files";
	for (unsigned i = 0; i < c->nthreads; i++)
		s->workers[i].live = &s->th[i].op[live];
	rc = driver_phase(s->d, ph, obs, NULL);
	for (unsigned i = 0; i < c->nthreads; i++)
		s->workers[i].ctx = &s->th[i];
	return rc;
}

/* a phase after the create loop: no time series, its wall time */
const char *const fsm_phase_name[FSM_NPH] = { "create", "stat", "read", "unlink" };

/* the engine's request counts of the phase that just ended, from every thread's context */
static void take_engine_ops(struct fsm_state *s, struct fsm_iter *it, enum fsm_phase_id p)
{
	for (unsigned i = 0; i < s->c->nthreads; i++) {
		struct engine_ctx *ctx = &s->th[i].ctx;

		for (int o = 0; o < ENGINE_NOPS; o++)
			it->engine_ops[p][o] += ctx->nops[o];
		memset(ctx->nops, 0, sizeof(ctx->nops));
		it->wq[p].threads += s->th[i].wq.threads;
		it->wq[p].cpu_s += s->th[i].wq.cpu_s;
		memset(&s->th[i].wq, 0, sizeof(s->th[i].wq));
		it->has_workers = s->c->eng.ops->workers != NULL;
		if (ctx->submit) {
			engine_submit_stats_merge(&it->sub[p], ctx->submit);
			engine_submit_stats_init(ctx->submit);
			it->has_submit = true;
		}
	}
}

static int extra_phase(struct fsm_state *s, struct fsm_iter *it, enum fsm_phase_id p,
		       int (*work)(struct worker *), enum fsm_op live, uint64_t expected,
		       uint64_t *wall_ns)
{
	struct phase ph = { .name = fsm_phase_name[p], .work = work };
	int rc = run_phase(s, &ph, live, expected, 0, NULL);

	take_engine_ops(s, it, p);
	free(ph.samples);
	*wall_ns = ph.end_ns - ph.start_ns;
	return rc;
}

/* room for n iterations in the per-iteration arrays */
static int reserve(struct fsm_result *r, unsigned n)
{
	unsigned ncap = r->cap ? r->cap : 16;
	double *a, *b;
	uint64_t *f, *w, *t;

	if (n <= r->cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	if ((a = realloc(r->rates, ncap * sizeof(double))))
		r->rates = a;
	if (a && (b = realloc(r->agg_rates, ncap * sizeof(double))))
		r->agg_rates = b;
	else
		return -ENOMEM;
	if ((f = realloc(r->iter_files, ncap * sizeof(uint64_t))))
		r->iter_files = f;
	if (f && (w = realloc(r->iter_wall_ns, ncap * sizeof(uint64_t))))
		r->iter_wall_ns = w;
	else
		return -ENOMEM;
	if (!(t = realloc(r->iter_start_ns, ncap * sizeof(uint64_t))))
		return -ENOMEM;
	r->iter_start_ns = t;
	r->cap = ncap;
	return 0;
}

static int push_rate(struct fsm_result *r, const struct fsm_iter *it)
{
	if (reserve(r, r->niters + 1))
		return -ENOMEM;
	r->rates[r->niters] = it->files_per_sec;
	r->agg_rates[r->niters] = it->files_per_sec_aggregate;
	r->iter_files[r->niters] = it->files;
	r->iter_wall_ns[r->niters] = it->wall_ns;
	r->iter_start_ns[r->niters] = it->release_ns;
	r->niters++;
	return 0;
}

/* after the iteration callback: the run-wide figures of a reported iteration */
static void account(struct fsm_state *s, struct fsm_result *r, struct fsm_iter *it)
{
	r->app_overhead_ns += it->app_overhead_ns;
	hist_merge(&r->create_lat, &it->op[FSM_CREATE].lat);
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_merge(&s->run_op[o], &it->op[o]);
	/* the text table of a run is the create loop of all its iterations together: one iteration
	 * of a few milliseconds holds too few samples to read. Out of memory loses that iteration's
	 * samples only (the merge frees it). --profile-window: only the iterations whose FSUse% is
	 * in the window (the reference profiled "the first 15 % of the fill") */
	if (it->fsuse_pct >= (int)s->c->profile_win_lo && it->fsuse_pct <= (int)s->c->profile_win_hi) {
		perf_profile_merge(&r->profile, it->obs.profile);
		it->obs.profile = NULL;
		r->profiled_iters++;
	}
}

/* what the iteration callback saw and nothing keeps */
static void iter_release(struct fsm_iter *it)
{
	free(it->samples);
	it->samples = NULL;
	it->nsamples = 0;
	observe_phase_free(&it->obs);
}

/* the honesty warnings (core/warn.h) of the create loop */
static void iter_warn(struct driver *d, const struct fsm_config *c, const struct phase *ph,
		      struct fsm_iter *it)
{
	char name[32];
	struct warn_phase w = { .name = name, .write_bytes = it->op[FSM_WRITE].bytes,
				/* every method but -S 0 syncs the files before the loop ends */
				.sync = c->sync_method != 0, .threads = c->nthreads,
				.wall_ns = ph->end_ns - ph->start_ns,
				.first_done_ns = ph->first_done_ns - ph->start_ns,
				.last_done_ns = ph->end_ns - ph->start_ns, .sys_s = 0,
				/* a fill's last iteration ends at ENOSPC: short by design */
				.cut_short = it->partial || run_stopping() };

	/* the workers' own system time, not the main and reporter threads' too */
	for (unsigned i = 0; i < ph->nworkers; i++)
		w.sys_s += ph->workers[i].sys_s;
	snprintf(name, sizeof(name), "iteration %u", it->index + 1);
	driver_warn(d, &it->obs, &w, "iteration", it->index + 1);
}

static int one_iteration(struct fsm_state *s, struct fsm_iter *it, uint64_t *count)
{
	const struct fsm_config *c = s->c;
	time_t now = time(NULL);
	struct phase ph = { .name = "create", .work = create_work_wq };
	unsigned index = it->index;
	uint64_t release;
	int rc;

	memset(it, 0, offsetof(struct fsm_iter, op));
	it->index = index;
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_init(&it->op[o]);
	for (int p = 0; p < FSM_NPH; p++)
		engine_submit_stats_init(&it->sub[p]);
	it->start_unix_s = (uint64_t)now;
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];
		/* fs_mark starts every child's subdirectory at tv_sec % D, so threads started in
		 * the same second share it (§4) */
		unsigned sub0 = c->policy == FSM_DIR_NONE ? 0 : (unsigned)((uint64_t)now % c->nsubdirs);

		for (int o = 0; o < FSM_NOPS; o++)
			opstat_init(&t->op[o]);
		t->iter_k0 = t->k_created;
		t->done = t->loop_ns = 0;
		if (seg_push(t, t->iter_k0, sub0, now))
			return -ENOMEM;
		memcpy(t->name, t->segs[t->nsegs - 1].seq, c->name_chars - c->rand_chars);
	}
	if (s->d->progress) {
		int n = snprintf(s->label, sizeof(s->label), "fs_mark");

		if (c->run.repeat > 1)
			n += snprintf(s->label + n, sizeof(s->label) - (size_t)n, " run %u/%llu",
				      s->d->run + 1, (unsigned long long)c->run.repeat);
		if (c->fill || c->iterations > 1)
			snprintf(s->label + n, sizeof(s->label) - (size_t)n, " iteration %u", it->index + 1);
	}
	/* the directories made before are not the create phase's */
	for (unsigned i = 0; i < c->nthreads; i++) {
		memset(s->th[i].ctx.nops, 0, sizeof(s->th[i].ctx.nops));
		if (s->th[i].ctx.submit)
			engine_submit_stats_init(s->th[i].ctx.submit);
	}
	/* the kernel view is the create loop's window, as the rate is */
	rc = run_phase(s, &ph, FSM_CREATE, c->nthreads * c->nfiles, c->run.interval_ns, &it->obs);
	take_engine_ops(s, it, FSM_PH_CREATE);
	it->samples = ph.samples;
	it->nsamples = ph.nsamples;
	it->sample_interval_ns = ph.sample_interval_ns;
	if (rc)
		return rc;
	release = ph.start_ns;
	it->release_ns = release;
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];
		uint64_t op_ns = 0;

		it->files += t->done;
		if (t->done < c->nfiles)
			it->partial = true;
		if (t->loop_ns)
			it->files_per_sec += (double)t->done / ((double)t->loop_ns / NS_PER_S);
		for (int o = 0; o < FSM_LOOP_OPS; o++)
			op_ns += t->op[o].lat.sum;
		it->app_overhead_ns += t->loop_ns > op_ns ? t->loop_ns - op_ns : 0;
		if (t->loop_end_ns > release && t->loop_end_ns - release > it->wall_ns)
			it->wall_ns = t->loop_end_ns - release;
	}
	if (it->wall_ns)
		it->files_per_sec_aggregate = (double)it->files / ((double)it->wall_ns / NS_PER_S);
	/* the cost per file: the create loop's workers and its kernel view, as the rate */
	it->cost = (struct cost_raw){ .ops = it->files };
	for (unsigned i = 0; i < c->nthreads; i++) {
		const struct worker *w = &ph.workers[i];

		if (w->started)
			cost_add_worker(&it->cost, w->usr_s, w->sys_s, w->end_ns - w->start_ns, w->nvcsw, w->nivcsw);
	}
	if (it->obs.taken)
		cost_add_kstat(&it->cost, &it->obs.k);
	cost_figures(&it->cost, it->cost_fig);
	*count += it->files;
	it->count = *count;
	if (c->stat && !stop_now(s) &&
	    (rc = extra_phase(s, it, FSM_PH_STAT, stat_work_wq, FSM_STAT, it->files, &it->stat_wall_ns)))
		return rc;
	if (c->read && !stop_now(s) &&
	    (rc = extra_phase(s, it, FSM_PH_READ, read_work_wq, FSM_READ_OPEN, it->files, &it->read_wall_ns)))
		return rc;
	/* after the timed phases, before the files go: a fill's last, partial iteration too */
	if (c->layout_files && !run_stopping())
		layout_sample(s, it);
	if (!c->keep_files && !run_stopping() &&
	    (rc = extra_phase(s, it, FSM_PH_UNLINK, unlink_work_wq, FSM_UNLINK, it->files, &it->unlink_wall_ns)))
		return rc;
	for (unsigned i = 0; i < c->nthreads; i++)
		for (int o = 0; o < FSM_NOPS; o++)
			opstat_merge(&it->op[o], &s->th[i].op[o]);
	iter_warn(s->d, c, &ph, it);
	use_pct(s, &it->fsuse_pct, &it->iuse_pct);
	return 0;
}

/* the run's merged op types, kept packed (the full histograms go with the state); out of memory
 * loses them, not the run */
static void pack_totals(struct fsm_state *s, struct fsm_result *r)
{
	r->op_total = true;
	for (int o = 0; o < FSM_NOPS && r->op_total; o++) {
		struct fsm_op_total *t = &r->op[o];

		t->ops = s->run_op[o].ops;
		t->bytes = s->run_op[o].bytes;
		t->over_2s = s->run_op[o].over_2s;
		t->over_10s = s->run_op[o].over_10s;
		r->op_total = hist_pack(&t->lat, &s->run_op[o].lat) == 0;
	}
	if (!r->op_total)
		for (int o = 0; o < FSM_NOPS; o++)
			hist_packed_free(&r->op[o].lat);
}

/* fs_mark's average is the mean of its per-iteration files/sec (sums of per-thread rates); the
 * aggregate is every file over every iteration's wall time */
static void run_figures(struct fsm_result *r)
{
	double sum = 0, files = 0, wall = 0;

	for (unsigned i = 0; i < r->niters; i++) {
		sum += r->rates[i];
		files += (double)r->iter_files[i];
		wall += (double)r->iter_wall_ns[i] / NS_PER_S;
	}
	r->fig[FSM_RFIG_FILES_PER_SEC] = r->niters ? sum / r->niters : 0;
	r->fig[FSM_RFIG_AGGREGATE] = wall > 0 ? files / wall : 0;
}

static int fsm_run(struct driver *d, const void *cfg, void *result)
{
	const struct fsm_config *c = cfg;
	struct fsm_result *r = result;
	struct fsm_state *s = calloc(1, sizeof(*s));
	struct fsm_iter *it = calloc(1, sizeof(*it));
	uint64_t count = 0;
	int rc;

	hist_init(&r->create_lat);
	r->started = time(NULL);
	r->state = s;
	if (!s || !it) {
		free(it);
		run_fail_msg(ENOMEM, "out of memory");
		return -ENOMEM;
	}
	s->c = c;
	s->d = d;
	rc = setup(s);
	if (rc && atomic_load(&s->full)) {
		r->head.end = RUN_END_FULL;
		r->head.end_err = atomic_load(&s->full);
		snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s '%s': %s", s->full_what,
			 s->full_path, strerror(r->head.end_err));
		r->head.complete = true;
		run_figures(r);
		free(it);
		return 0;
	}
	if (rc) {
		free(it);
		return rc;
	}
	if (c->layout_files)
		layout_groups_init(s, r);
	for (unsigned i = 0; !c->fill ? i < c->iterations : true; i++) {
		char why[PATH_MAX + 128];

		/* fill mode stops only when not even one file per thread fits; otherwise the
		 * iteration runs into ENOSPC and is reported partial. Without -F a shortfall is an
		 * error before anything is created in that iteration. */
		if (space_check(s, c->fill ? 1 : c->nfiles, why, sizeof(why))) {
			r->head.end = c->fill ? RUN_END_FULL : RUN_END_NOSPACE;
			snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s", why);
			break;
		}
		it->index = i;
		rc = one_iteration(s, it, &count);
		if (rc) {
			if (!run_error_get())
				run_fail(-rc, "iteration", "", -1);
			r->head.end = RUN_END_ERROR;
			break;
		}
		r->total_files = count;
		if (run_signal()) {
			/* the interrupted iteration is not a row: only what completed is reported */
			r->head.end = RUN_END_SIGNAL;
			if (!it->partial) {
				if (push_rate(r, it))
					break;
				driver_unit(d, it);
				account(s, r, it);
			}
			break;
		}
		if (push_rate(r, it)) {
			run_fail(ENOMEM, "malloc", "", -1);
			r->head.end = RUN_END_ERROR;
			break;
		}
		driver_unit(d, it);
		account(s, r, it);
		iter_release(it);
		if (run_error_get()) {
			r->head.end = RUN_END_ERROR;
			break;
		}
		if (atomic_load(&s->full)) {
			int err = atomic_load(&s->full);

			r->head.end = RUN_END_FULL;
			r->head.end_err = err;
			snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s '%s': %s", s->full_what,
				 s->full_path, strerror(err));
			break;
		}
	}
	iter_release(it);
	free(it);
	pack_totals(s, r);
	for (unsigned i = 0; i < c->nthreads; i++)
		r->created |= s->th[i].k_created > 0;
	r->head.complete = r->head.end == RUN_END_DONE || r->head.end == RUN_END_FULL;
	run_figures(r);
	return 0;
}

bool fsm_result_keeps(const struct fsm_config *c, const struct fsm_result *r)
{
	return c->keep_files && r->created;
}

/* Frees the directories and names of a run once its files are cleaned up (or kept): the
 * cleanup callback fsm_run() registered reads them. The figures stay (--repeat's summary). */
static void fsm_result_drop_state(void *result)
{
	struct fsm_result *r = result;
	struct fsm_state *s = r->state;

	if (!s)
		return;
	for (unsigned i = 0; s->th && i < s->c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];

		free(t->segs);
		free(t->name);
		free(t->rbuf);
		engine_ctx_exit(&t->ctx);
		for (unsigned k = 0; t->slots && k < t->nslots; k++)
			free(t->slots[k].name);
		free(t->slots);
		free(t->free_slots);
		free(t->sub);
		free(t->done_reqs);
		free(t->foreign);
	}
	if (s->dirfd)
		for (unsigned i = 0; i < s->c->ndirs * s->c->nsubdirs; i++)
			if (s->dirfd[i] >= 0)
				close(s->dirfd[i]);
	free(s->dirfd);
	free(s->th);
	free(s->workers);
	free(s->wbuf);
	free(s->xbuf);
	free(s->run_op);
	free(s);
	r->state = NULL;
}

static void fsm_result_free(void *result)
{
	struct fsm_result *r = result;

	fsm_result_drop_state(r);
	free(r->rates);
	free(r->agg_rates);
	free(r->iter_files);
	free(r->iter_wall_ns);
	free(r->iter_start_ns);
	perf_profile_free(r->profile);
	for (int o = 0; o < FSM_NOPS; o++)
		hist_packed_free(&r->op[o].lat);
	memset(r, 0, sizeof(*r));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fsm_percentile(const double *v, unsigned n, double p)
{
	double *t, res;
	unsigned rank;

	if (!n || !(t = malloc(n * sizeof(double))))
		return 0;
	memcpy(t, v, n * sizeof(double));
	qsort(t, n, sizeof(double), cmp_double);
	rank = (unsigned)((p / 100.0) * n + 0.999999);
	res = t[rank ? (rank > n ? n - 1 : rank - 1) : 0];
	free(t);
	return res;
}

/* ---- configuration --------------------------------------------------------------------------- */
static int bad(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* fs_mark creates a missing -d, but only one level: a missing parent, or a -d that is not a
 * directory, is bad input, found before the header, the log or anything else is written */
static int check_dir(const char *dir, char *err, size_t len)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		snprintf(err, len, "option -d: '%s' is not a directory", dir);
		return -1;
	}
	if (errno != ENOENT) {
		snprintf(err, len, "option -d: cannot use '%s': %s", dir, strerror(errno));
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = '\0';          /* trailing slashes */
	slash = strrchr(parent, '/');
	if (!slash)
		return 0;                /* relative, in the working directory */
	slash[slash == parent] = '\0';
	if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "option -d: cannot create '%s': '%s' is not an existing directory", dir,
			 parent);
		return -1;
	}
	return 0;
}

int fsm_config_check(struct fsm_config *c, char *err, size_t len)
{
	char *end;

	uint64_t capacity, r_min = 0, cap;
	size_t sub_len = 0;
	struct rlimit rl;
	int rc = engine_select(&c->eng, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, err, len);

	if (rc)
		return rc;
	if (!c->dirs.n)
		return bad(err, len, "at least one directory is needed (-d DIR)");
	c->ndirs = c->dirs.n;
	/* fs_mark raises -t to the number of directories, and wants a multiple of it */
	if (c->threads < c->ndirs)
		c->threads = c->ndirs;
	if (c->threads % c->ndirs)
		return bad(err, len, "-t %llu must be a multiple of the number of -d directories (%u)",
			   (unsigned long long)c->threads, c->ndirs);
	if (c->threads > FSM_MAX_THREADS)
		return bad(err, len, "%u -d directories make more than %d threads",
			   c->ndirs, FSM_MAX_THREADS);
	c->nthreads = (unsigned)c->threads;
	if (c->subdirs == 1)
		return bad(err, len, "-D 1: the number of subdirectories must be at least 2");
	if (c->files_per_subdir && !c->subdirs)
		return bad(err, len, "-N %llu needs subdirectories (-D 2 or more)",
			   (unsigned long long)c->files_per_subdir);
	if (c->spread && !c->subdirs)
		return bad(err, len, "--spread needs subdirectories (-D 2 or more)");
	if (c->spread && c->files_per_subdir)
		return bad(err, len, "--spread and -N are two different directory policies; give one");
	c->profile_win_lo = 0;
	c->profile_win_hi = 100;
	if (c->profile_window) {
		unsigned long lo, hi;

		errno = 0;
		lo = strtoul(c->profile_window, &end, 10);
		if (end == c->profile_window || *end != '-' || !isdigit((unsigned char)end[1]))
			return bad(err, len, "--profile-window: '%s' is not A-B (two percentages)",
				   c->profile_window);
		hi = strtoul(end + 1, &end, 10);
		if (*end == '%')
			end++;
		if (*end || errno || lo > hi || hi > 100)
			return bad(err, len, "--profile-window: '%s' is not A-B with 0 <= A <= B <= 100",
				   c->profile_window);
		c->profile_win_lo = (unsigned)lo;
		c->profile_win_hi = (unsigned)hi;
	}
	c->nsubdirs = c->subdirs ? (unsigned)c->subdirs : 1;
	c->policy = !c->subdirs ? FSM_DIR_NONE : c->spread ? FSM_DIR_SPREAD :
		    c->files_per_subdir ? FSM_DIR_ROUND_ROBIN : FSM_DIR_TIME_HASH;
	if (c->fdatasync && c->sync_method == 0 && !c->dirsync)
		return bad(err, len, "--fdatasync changes nothing with -S 0 (no fsync is issued)");
	/* fs_mark: -L and -F imply -k; -L 0 runs once (§5) */
	c->keep_files = c->keep || c->fill || c->iterations_given;
	if (c->iterations == 0)
		c->iterations = 1;
	/* unique names: the random part must hold threads x files x iterations distinct values
	 * (fill: 64 bits); fs_mark's -r 0 reused one name per second */
	if (c->fill) {
		r_min = 13;
	} else {
		capacity = c->threads * run_opts_nprocs(&c->run) * c->nfiles;
		if (c->iterations > UINT64_MAX / capacity)
			return bad(err, len, "-L %llu: too many iterations",
				   (unsigned long long)c->iterations);
		capacity *= c->iterations;
		for (cap = 1; cap < capacity && r_min < 13; r_min++)
			cap = r_min >= 12 ? UINT64_MAX : cap << 5;
	}
	c->rand_chars = (unsigned)(c->rand_len > r_min ? c->rand_len : r_min);
	c->name_chars = c->name_len > c->rand_chars ? (unsigned)c->name_len : c->rand_chars;
	if (c->name_chars > NAME_MAX)
		return bad(err, len, "file names would be %u characters long (-p %llu -r %llu); "
			   "the most a filesystem takes is %d", c->name_chars,
			   (unsigned long long)c->name_len, (unsigned long long)c->rand_len, NAME_MAX);
	if (c->subdirs) {
		char tmp[24];

		sub_len = (size_t)snprintf(tmp, sizeof(tmp), "%02x", (unsigned)(c->subdirs - 1)) + 1;
	}
	/* found now, not after the header and the log: the directory fds the run keeps open */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < nofile_need(c))
		return bad(err, len, "%u directories (-d x -D) and %u threads need %llu open "
			   "files, RLIMIT_NOFILE allows %llu (ulimit -n)", c->ndirs * c->nsubdirs,
			   c->nthreads, (unsigned long long)nofile_need(c),
			   (unsigned long long)rl.rlim_max);
	for (unsigned d = 0; d < c->ndirs; d++) {
		size_t l = strlen(c->dirs.v[d]) + 1 + sub_len + c->name_chars;

		if (l >= PATH_MAX)
			return bad(err, len, "-d '%.40s...': paths would be %zu bytes long, the limit "
				   "is %d", c->dirs.v[d], l, PATH_MAX - 1);
		if (check_dir(c->dirs.v[d], err, len))
			return -EINVAL;
	}
	return 0;
}

/* ---- the options and the ops ----------------------------------------------------------------- */
#define F(x) offsetof(struct fsm_config, x)

/* Short options are fs_mark 3.3's (getopt "vhkFr:S:N:D:d:l:L:n:p:s:t:w:"), with its units and
 * defaults; the long spellings and the long-only options are fsbench's. */
static const struct opt fsm_opts[] = {
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, OPT_LIST_MAX,
	  "test directory, repeatable; created if missing; threads are split evenly over them" },
	{ 'D', "subdirs", OPT_UINT, F(subdirs), "N", 0, 1000000, 0, 0,
	  "subdirectories in each test directory (at least 2); without -N a thread stays in one for 180 s" },
	{ 'N', "files-per-subdir", OPT_UINT, F(files_per_subdir), "N", 0, UINT32_MAX, 0, 0,
	  "round robin: files a thread puts in a subdirectory before moving to the next (needs -D)" },
	{ 'n', "files", OPT_UINT, F(nfiles), "N", 1, FSM_MAX_FILES, 0, 0,
	  "files per thread per iteration" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, FSM_MAX_THREADS, 0, 0,
	  "threads; a multiple of the number of -d directories" },
	{ 's', "size", OPT_SIZE, F(file_bytes), "BYTES", 0, UINT64_C(1) << 40, 1, 0,
	  "size of each file in bytes; the long form also takes k/m/g suffixes" },
	{ 'w', "io-size", OPT_SIZE, F(io_bytes), "BYTES", 1, FSM_MAX_IO, 1, 0,
	  "bytes per write() call" },
	{ 'S', "sync-method", OPT_UINT, F(sync_method), "M", 0, 6, 0, 0,
	  "0 no sync, 1 fsync per file, 2 sync() and one fsync, 3 reverse reopen+fsync, "
	  "4 sync() then 3, 5 in-order reopen+fsync, 6 sync() then 5" },
	{ 'p', "name-length", OPT_UINT, F(name_len), "N", 1, 255, 0, 0, "file name length" },
	{ 'r', "random-length", OPT_UINT, F(rand_len), "N", 0, 255, 0, 0,
	  "random characters at the end of each name (raised to what unique names need)" },
	{ 'L', "iterations", OPT_UINT, F(iterations), "N", 0, UINT32_MAX, 0, 0,
	  "iterations (rows); implies -k" },
	{ 'F', "fill", OPT_FLAG, F(fill), NULL, 0, 0, 0, 0,
	  "iterate until the filesystem is full, then end cleanly (exit 0); implies -k" },
	{ 'k', "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the files (no unlink phase)" },
	{ 'l', "log", OPT_STR, F(log), "FILE", 0, 0, 0, 0,
	  "log file, appended to: the same header and rows as stdout" },
	{ 'v', "verbose", OPT_FLAG, F(text.verbose), NULL, 0, 0, 0, 0,
	  "min/avg/max microseconds of each system call type (18 more columns)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0,
	  "show this help (-h on stderr with exit 1 as fs_mark does, --help 0)" },
	{ 0, "summary", OPT_FLAG, F(text.summary), NULL, 0, 0, 0, 0,
	  "add the aggregate files/sec (files / iteration wall time) column and a closing summary" },
	{ 0, "percentiles", OPT_FLAG, F(text.percentiles), NULL, 0, 0, 0, 0,
	  "add p50 and p99 create latency columns (microseconds)" },
	{ 0, "inodes", OPT_FLAG, F(text.inodes), NULL, 0, 0, 0, 0, "add an inode use % column" },
	{ 0, "dirsync", OPT_FLAG, F(dirsync), NULL, 0, 0, 0, 0,
	  "fsync the directory after each file (timed, inside the loop)" },
	{ 0, "fdatasync", OPT_FLAG, F(fdatasync), NULL, 0, 0, 0, 0,
	  "fdatasync instead of fsync wherever the sync method fsyncs" },
	{ 0, "xattr", OPT_UINT, F(xattr_bytes), "BYTES", 0, 65536, 0, 0,
	  "set a BYTES-byte extended attribute (user.fsbench) on each file" },
	{ 0, "stat", OPT_FLAG, F(stat), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that stats every file" },
	{ 0, "read", OPT_FLAG, F(read), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that reads every file back" },
	{ 0, "spread", OPT_FLAG, F(spread), NULL, 0, 0, 0, 0,
	  "with -D: spread files evenly over the subdirectories, file by file" },
	{ 0, "layout", OPT_UINT_OPTIONAL, F(layout_files), "N", 1, 1000000, FSM_LAYOUT_DEFAULT, 0,
	  "after each iteration's timed phases, before the unlink, map a seeded sample of N of its "
	  "files (1000 when N is not given): extents per file and, on ext4, whether each file's "
	  "data lies in its inode's and its directory's block group (two more columns, and the JSON)" },
	ENGINE_OPTS(F),
	{ 0, "profile-window", OPT_STR, F(profile_window), "A-B", 0, 0, 0, 0,
	  "with --profile: the run's profile merges only the iterations whose FSUse% is from A to B "
	  "(e.g. 0-15: the start of a fill)" },
	RUN_OPTS(F, "create loop"),
	{ 0 },
};

static const struct opt_cmd fsm_cmd = {
	.name = "fs_mark",
	.summary = "File creation benchmark, compatible with fs_mark 3.3: threads create, write and sync\n"
		   "files in the -S method's order, then unlink them, one row per iteration.",
	.opts = fsm_opts,
};

void fsm_defaults(struct fsm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nfiles = 1000;
	c->threads = 1;
	c->file_bytes = 51200;
	c->io_bytes = 16384;
	c->sync_method = 1;
	c->name_len = 40;
	c->rand_len = 24;
	c->iterations = 1;
	c->log = "fs_log.txt";
	ENGINE_OPTS_DEFAULTS(c);
	RUN_OPTS_DEFAULTS(c);
}

static void fsm_defaults_ops(void *cfg)
{
	fsm_defaults(cfg);
}

/* -L given at all (even -L 0 or -L 1) implies -k in fs_mark */
static bool iterations_given(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--iterations") || !strncmp(a, "--iterations=", 13))
			return true;
		if (a[0] != '-' || a[1] == '-')
			continue;
		for (const char *p = a + 1; *p; p++) {
			if (*p == 'L')
				return true;
			if (strchr("vhkF", *p))
				continue;
			if (!p[1])
				i++;             /* the value is the next argument */
			break;                   /* the rest of this one is the value */
		}
	}
	return false;
}

static int fsm_check_ops(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	struct fsm_config *c = cfg;

	c->iterations_given = iterations_given(argc, argv);
	return fsm_config_check(c, err, errlen);
}

/* The kernel view resolves the targets before the run, when a -d may not exist yet: it is
 * then resolved through its nearest existing ancestor, the filesystem it will be created on. */
static unsigned fsm_targets(const void *cfg, const char **out, unsigned max)
{
	const struct fsm_config *c = cfg;
	unsigned n = c->dirs.n < max ? c->dirs.n : max;

	for (unsigned i = 0; i < n; i++) {
		struct stat st;

		out[i] = c->dirs.v[i];
		/* -d was checked: it exists, or its parent does (or it is relative, in ".") */
		if (stat(out[i], &st) < 0) {
			static char parents[OPT_LIST_MAX][PATH_MAX];
			char *slash;

			snprintf(parents[i], sizeof(parents[i]), "%s", c->dirs.v[i]);
			while ((slash = strrchr(parents[i], '/')) && slash != parents[i] && !slash[1])
				*slash = '\0';
			slash = strrchr(parents[i], '/');
			if (!slash)
				snprintf(parents[i], sizeof(parents[i]), ".");
			else
				slash[slash == parents[i]] = '\0';
			out[i] = parents[i];
		}
	}
	return n;
}

static bool fsm_keep(const void *cfg, const void *result)
{
	return result ? fsm_result_keeps(cfg, result) : ((const struct fsm_config *)cfg)->keep_files;
}

/* Runs of the same configuration from processes side by side: files, latency and overhead add
 * up; fs_mark's files/sec is a sum over threads and so adds up too; an iteration's window runs
 * from the first release to the last create loop end (absolute release times) and the
 * aggregate is recomputed over it. A process with fewer iterations (stopped early) adds to
 * the ones it has. */
static void window(uint64_t *start, uint64_t *wall, uint64_t start2, uint64_t wall2)
{
	uint64_t s = *start < start2 ? *start : start2;
	uint64_t e1 = *start + *wall, e2 = start2 + wall2;

	*wall = (e1 > e2 ? e1 : e2) - s;
	*start = s;
}

static int merge_op_total(struct fsm_op_total *a, const struct fsm_op_total *b)
{
	struct hist *x = malloc(sizeof(*x)), *y = malloc(sizeof(*y));
	struct hist_packed np;
	int rc = -ENOMEM;

	if (x && y) {
		hist_unpack(&a->lat, x);
		hist_unpack(&b->lat, y);
		hist_merge(x, y);
		if (!(rc = hist_pack(&np, x))) {
			hist_packed_free(&a->lat);
			a->lat = np;
			a->ops += b->ops;
			a->bytes += b->bytes;
			a->over_2s += b->over_2s;
			a->over_10s += b->over_10s;
		}
	}
	free(x);
	free(y);
	return rc;
}

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

static int fsm_merge(void *dst, const void *src)
{
	struct fsm_result *a = dst;
	const struct fsm_result *b = src;

	if (reserve(a, b->niters))
		return -ENOMEM;
	for (unsigned i = 0; i < b->niters; i++) {
		if (i >= a->niters) {
			a->rates[i] = b->rates[i];
			a->iter_files[i] = b->iter_files[i];
			a->iter_wall_ns[i] = b->iter_wall_ns[i];
			a->iter_start_ns[i] = b->iter_start_ns[i];
		} else {
			a->rates[i] += b->rates[i];
			a->iter_files[i] += b->iter_files[i];
			window(&a->iter_start_ns[i], &a->iter_wall_ns[i], b->iter_start_ns[i],
			       b->iter_wall_ns[i]);
		}
		a->agg_rates[i] = a->iter_wall_ns[i] ?
			(double)a->iter_files[i] / ((double)a->iter_wall_ns[i] / NS_PER_S) : 0;
	}
	if (b->niters > a->niters)
		a->niters = b->niters;
	a->total_files += b->total_files;
	a->app_overhead_ns += b->app_overhead_ns;
	hist_merge(&a->create_lat, &b->create_lat);
	if (a->op_total && b->op_total) {
		for (int o = 0; o < FSM_NOPS; o++)
			if (merge_op_total(&a->op[o], &b->op[o]))
				return -ENOMEM;
	} else if (a->op_total) {
		/* out of memory in one process: no merged totals rather than wrong ones */
		for (int o = 0; o < FSM_NOPS; o++)
			hist_packed_free(&a->op[o].lat);
		memset(a->op, 0, sizeof(a->op));
		a->op_total = false;
	}
	run_figures(a);
	a->head.complete = a->head.complete && b->head.complete;
	if (end_rank(b->head.end) > end_rank(a->head.end)) {
		a->head.end = b->head.end;
		a->head.end_err = b->head.end_err;
		memcpy(a->head.end_detail, b->head.end_detail, sizeof(a->head.end_detail));
	}
	return 0;
}

/* what merge and the report need, for the first process of a job (workload.h) */
static int fsm_pack(const void *result, int64_t off, struct pack *o)
{
	const struct fsm_result *r = result;

	driver_head_pack(o, &r->head);
	pack_i64(o, (int64_t)r->started);
	pack_u64(o, r->niters);
	for (unsigned i = 0; i < r->niters; i++) {
		pack_f64(o, r->rates[i]);
		pack_u64(o, r->iter_files[i]);
		pack_u64(o, r->iter_wall_ns[i]);
		pack_u64(o, r->iter_start_ns[i] - (uint64_t)off);
	}
	pack_u64(o, r->total_files);
	pack_u64(o, r->app_overhead_ns);
	pack_hist(o, &r->create_lat);
	pack_u64(o, r->op_total);
	for (int i = 0; r->op_total && i < FSM_NOPS; i++) {
		pack_u64(o, r->op[i].ops);
		pack_u64(o, r->op[i].bytes);
		pack_u64(o, r->op[i].over_2s);
		pack_u64(o, r->op[i].over_10s);
		pack_hist_packed(o, &r->op[i].lat);
	}
	return o->err;
}

static int fsm_unpack(void *result, struct unpack *u)
{
	struct fsm_result *r = result;
	uint64_t n;

	driver_head_unpack(u, &r->head);
	r->started = (time_t)unpack_i64(u);
	n = unpack_u64(u);
	if (u->err || n > u->len)
		return -EPROTO;
	if (reserve(r, (unsigned)n))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		r->rates[i] = unpack_f64(u);
		r->iter_files[i] = unpack_u64(u);
		r->iter_wall_ns[i] = unpack_u64(u);
		r->iter_start_ns[i] = unpack_u64(u);
		r->agg_rates[i] = r->iter_wall_ns[i] ?
			(double)r->iter_files[i] / ((double)r->iter_wall_ns[i] / NS_PER_S) : 0;
	}
	r->niters = (unsigned)n;
	r->total_files = unpack_u64(u);
	r->app_overhead_ns = unpack_u64(u);
	unpack_hist(u, &r->create_lat);
	r->op_total = unpack_u64(u);
	for (int i = 0; r->op_total && i < FSM_NOPS && !u->err; i++) {
		r->op[i].ops = unpack_u64(u);
		r->op[i].bytes = unpack_u64(u);
		r->op[i].over_2s = unpack_u64(u);
		r->op[i].over_10s = unpack_u64(u);
		unpack_hist_packed(u, &r->op[i].lat);
	}
	if (unpack_done(u))
		return u->err == -ENOMEM ? -ENOMEM : -EPROTO;
	run_figures(r);
	return 0;
}

/* an iteration (struct fsm_iter), the reporting unit */
static int fsm_pack_unit(const void *unit, int64_t off, struct pack *o)
{
	const struct fsm_iter *it = unit;

	pack_u64(o, it->index);
	pack_u64(o, it->files);
	pack_u64(o, it->count);
	pack_u64(o, it->partial);
	pack_i64(o, it->fsuse_pct);
	pack_i64(o, it->iuse_pct);
	pack_f64(o, it->files_per_sec);
	pack_u64(o, it->wall_ns);
	pack_u64(o, it->release_ns - (uint64_t)off);
	pack_u64(o, it->app_overhead_ns);
	pack_u64(o, it->stat_wall_ns);
	pack_u64(o, it->read_wall_ns);
	pack_u64(o, it->unlink_wall_ns);
	pack_u64(o, it->start_unix_s);
	pack_u64(o, it->obs.taken);
	if (it->obs.taken)
		pack_bytes(o, &it->obs.k, sizeof(it->obs.k));
	for (int i = 0; i < FSM_NOPS; i++)
		pack_opstat(o, &it->op[i]);
	/* the engine's side, per phase: ring operations, io-wq workers, submitting calls */
	pack_bytes(o, it->engine_ops, sizeof(it->engine_ops));
	pack_bytes(o, &it->cost, sizeof(it->cost));
	pack_u64(o, it->has_workers);
	pack_u64(o, it->has_submit);
	for (int p = 0; p < FSM_NPH; p++) {
		pack_u64(o, it->wq[p].threads);
		pack_f64(o, it->wq[p].cpu_s);
		if (it->has_submit)
			engine_submit_stats_pack(o, &it->sub[p]);
	}
	return o->err;
}

static int fsm_unpack_unit(void *unit, struct unpack *u)
{
	struct fsm_iter *it = unit;

	it->index = (unsigned)unpack_u64(u);
	it->files = unpack_u64(u);
	it->count = unpack_u64(u);
	it->partial = unpack_u64(u);
	it->fsuse_pct = (int)unpack_i64(u);
	it->iuse_pct = (int)unpack_i64(u);
	it->files_per_sec = unpack_f64(u);
	it->wall_ns = unpack_u64(u);
	it->release_ns = unpack_u64(u);
	it->app_overhead_ns = unpack_u64(u);
	it->stat_wall_ns = unpack_u64(u);
	it->read_wall_ns = unpack_u64(u);
	it->unlink_wall_ns = unpack_u64(u);
	it->start_unix_s = unpack_u64(u);
	it->obs.taken = unpack_u64(u);
	if (it->obs.taken)
		unpack_bytes(u, &it->obs.k, sizeof(it->obs.k));
	for (int i = 0; i < FSM_NOPS; i++)
		unpack_opstat(u, &it->op[i]);
	unpack_bytes(u, it->engine_ops, sizeof(it->engine_ops));
	unpack_bytes(u, &it->cost, sizeof(it->cost));
	cost_figures(&it->cost, it->cost_fig);
	it->has_workers = unpack_u64(u);
	it->has_submit = unpack_u64(u);
	for (int p = 0; p < FSM_NPH; p++) {
		it->wq[p].threads = unpack_u64(u);
		it->wq[p].cpu_s = unpack_f64(u);
		engine_submit_stats_init(&it->sub[p]);
		if (it->has_submit)
			engine_submit_stats_unpack(u, &it->sub[p]);
	}
	it->files_per_sec_aggregate = it->wall_ns ?
		(double)it->files / ((double)it->wall_ns / NS_PER_S) : 0;
	return unpack_done(u);
}

static int fsm_merge_unit(void *dst, const void *src)
{
	struct fsm_iter *a = dst;
	const struct fsm_iter *b = src;

	if (a->index != b->index)
		return -EINVAL;
	a->files += b->files;
	a->count += b->count;
	a->partial = a->partial || b->partial;
	/* FSUse% of the fullest filesystem */
	a->fsuse_pct = a->fsuse_pct > b->fsuse_pct ? a->fsuse_pct : b->fsuse_pct;
	a->iuse_pct = a->iuse_pct > b->iuse_pct ? a->iuse_pct : b->iuse_pct;
	a->files_per_sec += b->files_per_sec;
	a->app_overhead_ns += b->app_overhead_ns;
	window(&a->release_ns, &a->wall_ns, b->release_ns, b->wall_ns);
	a->files_per_sec_aggregate = a->wall_ns ?
		(double)a->files / ((double)a->wall_ns / NS_PER_S) : 0;
	/* the extra phases have no release time of their own here: the longest process's */
	if (b->stat_wall_ns > a->stat_wall_ns)
		a->stat_wall_ns = b->stat_wall_ns;
	if (b->read_wall_ns > a->read_wall_ns)
		a->read_wall_ns = b->read_wall_ns;
	if (b->unlink_wall_ns > a->unlink_wall_ns)
		a->unlink_wall_ns = b->unlink_wall_ns;
	if (b->start_unix_s < a->start_unix_s)
		a->start_unix_s = b->start_unix_s;
	if (!a->obs.taken && b->obs.taken) {
		a->obs.taken = true;
		a->obs.k = b->obs.k;
	}
	for (int i = 0; i < FSM_NOPS; i++)
		opstat_merge(&a->op[i], &b->op[i]);
	cost_merge(&a->cost, &b->cost);
	cost_figures(&a->cost, a->cost_fig);
	/* each process's engine: ring operations, io-wq workers and submitting calls add up */
	a->has_workers |= b->has_workers;
	a->has_submit |= b->has_submit;
	for (int p = 0; p < FSM_NPH; p++) {
		for (int k = 0; k < ENGINE_NOPS; k++)
			a->engine_ops[p][k] += b->engine_ops[p][k];
		a->wq[p].threads += b->wq[p].threads;
		a->wq[p].cpu_s += b->wq[p].cpu_s;
		engine_submit_stats_merge(&a->sub[p], &b->sub[p]);
	}
	return 0;
}

static void fsm_unit_free(void *unit)
{
	iter_release(unit);
}

static struct opt_strs *fsm_dirs(void *cfg)
{
	return &((struct fsm_config *)cfg)->dirs;
}

/* The figures every reader shares (core/figure.h). Per run: fs_mark's own files/sec (the sum
 * of the per-thread rates) and the aggregate, averaged over the run's iterations as its summary
 * block does (both primary: fs_mark's answer); per iteration, reduced over a run's iterations
 * as over_runs says. */
static const struct figure fsm_run_figs[] = {
	{ "files_per_sec", "summary.files_per_sec_sum_of_threads.average", "files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY | FIG_PRIMARY },
	{ "files_per_sec_aggregate", "summary.files_per_sec_aggregate.average", "files/sec aggregate", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_PRIMARY },
	AFTERRUN_FIGURES(FSM_RFIG_AFTER),
};

static const struct figure fsm_iter_figs[] = {
	{ "app_overhead_ns", "app_overhead_ns", "app overhead per iteration", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	{ "stat_files_per_sec", "phases.stat.files_per_sec", "stat files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	{ "read_files_per_sec", "phases.read.files_per_sec", "read files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	{ "unlink_files_per_sec", "phases.unlink.files_per_sec", "unlink files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	/* the create loop's cost per file (core/cost.h), from FSM_IFIG_COST on */
	COST_FIGURES(FSM_IFIG_COST, "file"),
	/* --layout (struct fsm_layout), from FSM_IFIG_LAYOUT on, in enum FSM_LFIG_* order */
	{ "layout_extents_per_file", "layout.extents_per_file", "extents per file", "extents", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_one_extent_pct", "layout.one_extent_pct", "files in one extent", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_inode_group_pct", "layout.inode_group_pct", "data in the inode's block group", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_dir_group_pct", "layout.dir_group_pct", "data in the directory's block group", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
};

_Static_assert(sizeof(fsm_iter_figs) / sizeof(fsm_iter_figs[0]) == FSM_IFIG_LAYOUT + FSM_NLFIGS,
	       "the layout figures are the last FSM_NLFIGS iteration figures");

static const struct figure_set fsm_figs = {
	.run = fsm_run_figs, .nrun = sizeof(fsm_run_figs) / sizeof(fsm_run_figs[0]),
	.iter = fsm_iter_figs, .niter = sizeof(fsm_iter_figs) / sizeof(fsm_iter_figs[0]),
	.iters = "iterations", .run_values_off = offsetof(struct fsm_result, fig),
};

extern const struct workload_report fsm_report;

const struct workload_ops workload_fs_mark = {
	.name = "fs_mark",
	.summary = "file create/write/sync/unlink rates and latency (fs_mark 3.3)",
	.cmd = &fsm_cmd,
	.config_size = sizeof(struct fsm_config),
	.run_opts_off = offsetof(struct fsm_config, run),
	.result_size = sizeof(struct fsm_result),
	.defaults = fsm_defaults_ops,
	.check = fsm_check_ops,
	.targets = fsm_targets,
	.run = fsm_run,
	.run_done = fsm_result_drop_state,
	.result_free = fsm_result_free,
	.merge = fsm_merge,
	.keep = fsm_keep,
	.target_opt = "dir",
	.dirs = fsm_dirs,
	.pack = fsm_pack,
	.unpack = fsm_unpack,
	.unit_size = sizeof(struct fsm_iter),
	.pack_unit = fsm_pack_unit,
	.unpack_unit = fsm_unpack_unit,
	.merge_unit = fsm_merge_unit,
	.unit_free = fsm_unit_free,
	.figs = &fsm_figs,
	.report = &fsm_report,
	.short_help_stderr = true,
};
