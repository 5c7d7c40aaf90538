/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's create loop: a chain of engine requests per file, --iodepth files in flight per
 * thread (the contract is above struct fsm_slot in fs_mark_int.h). */
#include "workload/fs_mark_int.h"

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
			opstat_add_at(&t->op[FSM_CREATE], r->done_lat, lat, 0);
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
	fsm_fail_file(t, err, what, sl->k, hint);
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
		{ .op = ENGINE_OP_OPENAT, .fd = fsm_locate(t, k, hint), .name = t->name,
		  .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC, .next = &r[1] },
		{ .op = sync_op(c), .fd = ENGINE_FD_CHAIN, .next = &r[2] },
		{ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN },
	};
	int rc = engine_exec(&t->ctx, r);

	if (rc || r[0].result < 0) {
		fsm_fail_file(t, rc ? -rc : (int)-r[0].result, "open", k, hint);
		return -1;
	}
	opstat_add(&t->op[FSM_REOPEN], lat_ns(r[0].done_lat - r[0].submit_lat), 0);
	if (r[1].result < 0) {
		struct engine_req cl = { .op = ENGINE_OP_CLOSE, .fd = (int)r[0].result };

		engine_exec1(&t->ctx, &cl);
		fsm_fail_file(t, (int)-r[1].result, c->fdatasync ? "fdatasync" : "fsync", k, hint);
		return -1;
	}
	opstat_add(&t->op[FSM_FSYNC], lat_ns(r[1].done_lat - r[0].done_lat), 0);
	opstat_add(&t->op[FSM_CLOSE], lat_ns(r[2].done_lat - r[1].done_lat), 0);
	return 0;
}

/* The post-loop sync phase, inside the loop window, in fs_mark's code order (§3): sync(),
 * in-order pass, reverse pass, first-file fsync. */
static void post_loop_sync(struct fsm_thread *t, uint64_t k0, unsigned *hint)
{
	const struct fsm_state *s = t->s;
	const unsigned m = (unsigned)s->c->sync_method;
	uint64_t a;

	if (stop_now(s) || !t->done)
		return;
	if (m == 2 || m == 4 || m == 6) {
		a = lat_now();
		sync();
		opstat_add(&t->op[FSM_SYNC], lat_ns(lat_now() - a), 0);
	}
	if (m == 5 || m == 6)
		for (uint64_t j = 0; j < t->done && !stop_now(s); j++)
			if (refsync(t, k0 + j, hint))
				break;
	if (m == 3 || m == 4)
		for (uint64_t j = t->done; j-- > 0 && !stop_now(s);)
			if (refsync(t, k0 + j, hint))
				break;
	if (m == 2)
		refsync(t, k0, hint);
}

int fsm_create_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	struct fsm_state *s = t->s;
	const struct fsm_config *c = s->c;
	const unsigned seq_len = c->name_chars - c->rand_chars;
	const uint64_t k0 = t->iter_k0, n = c->nfiles;
	struct engine_ctx *ctx = &t->ctx;
	struct fsm_seg *g = &t->segs[t->nsegs - 1];
	unsigned hint = t->nsegs - 1, nfree = t->nslots, nsub = 0;
	uint64_t loop0, i = 0;

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
				if (fsm_seg_push(t, k, (g->sub0 + 1) % c->nsubdirs, time(NULL))) {
					run_fail(ENOMEM, "malloc", "", -1);
					break;
				}
				g = &t->segs[t->nsegs - 1];
				hint = t->nsegs - 1;
				t->seg_start_lat = t->last_lat;
			}
			sl = t->free_slots[--nfree];
			sl->k = k;
			sl->dfd = s->dirfd[t->dir * c->nsubdirs + fsm_subdir_of(c, t, g, k)];
			sl->fd = -1;
			sl->left = c->file_bytes;
			sl->prev_lat = 0;
			if (sl->seg != t->nsegs) {
				memcpy(sl->name, g->seq, seq_len);
				sl->seg = t->nsegs;
			}
			fsm_name_tail(c, s->bits, s->bits_mask, s->salt, s->job_threads, s->thread_base + t->id, k,
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
	post_loop_sync(t, k0, &hint);
	t->loop_end_ns = clock_ns();
	t->loop_ns = t->loop_end_ns - loop0;
	return 0;
}
