/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's stat, read and unlink phases, and the cleanup of every file a run created. */
#include "workload/fs_mark_int.h"

/* ---- the extra phases and the unlink phase: one request at a time, through the engine ---- */
int fsm_stat_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	unsigned hint = 0;
	struct statx stx;

	for (uint64_t i = 0; i < t->done && !stop_now(t->s); i++) {
		uint64_t k = t->iter_k0 + i;
		struct engine_req r = { .op = ENGINE_OP_STATX, .fd = fsm_locate(t, k, &hint), .name = t->name,
					.flags = AT_SYMLINK_NOFOLLOW, .mode = STATX_BASIC_STATS, .buf = &stx };
		int64_t res = engine_exec1(&t->ctx, &r);

		if (res < 0) {
			fsm_fail_file(t, (int)-res, "stat", k, &hint);
			break;
		}
		opstat_add(&t->op[FSM_STAT], lat_ns(r.done_lat - r.submit_lat), 0);
	}
	return 0;
}

int fsm_read_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	const struct fsm_config *c = t->s->c;
	unsigned hint = 0;

	for (uint64_t i = 0; i < t->done && !stop_now(t->s); i++) {
		uint64_t k = t->iter_k0 + i, prev, got = 0;
		struct engine_req r = { .op = ENGINE_OP_OPENAT, .fd = fsm_locate(t, k, &hint), .name = t->name,
					.flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC };
		int64_t res = engine_exec1(&t->ctx, &r);
		int fd;

		if (res < 0) {
			fsm_fail_file(t, (int)-res, "open", k, &hint);
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
				fsm_fail_file(t, (int)-res, "read", k, &hint);
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

			fsm_path_of(t, fsm_seg_of(t, k, &hint), k, path, sizeof(path));
			run_fail_detail(EIO, "read", path, -1, "read back %llu bytes, wrote %llu",
					(unsigned long long)got, (unsigned long long)c->file_bytes);
			return 0;
		}
	}
	return 0;
}

/* fs_mark unlinks in creation order, outside the loop window */
int fsm_unlink_work(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	unsigned hint = 0;

	for (uint64_t k = t->k_unlinked; k < t->iter_k0 + t->done; k++) {
		struct engine_req r = { .op = ENGINE_OP_UNLINKAT, .fd = fsm_locate(t, k, &hint), .name = t->name };
		int64_t res = engine_exec1(&t->ctx, &r);

		if (res < 0 && res != -ENOENT) {
			fsm_fail_file(t, (int)-res, "unlink", k, &hint);
			break;
		}
		opstat_add(&t->op[FSM_UNLINK], lat_ns(r.done_lat - r.submit_lat), 0);
		t->k_unlinked = k + 1;
	}
	return 0;
}

/* every phase's finish hook: the engine's kernel workers that served this thread, after the
 * window, before the thread (and its io-wq) exits */
void fsm_finish(struct worker *w)
{
	struct fsm_thread *t = w->ctx;

	if (t->ctx.ops && t->ctx.ops->workers)
		t->ctx.ops->workers(&t->ctx, &t->wq);
}

/* The cleanup callback: every name this run created and has not unlinked, regenerated. */
int fsm_cleanup_files(void *arg)
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
			dfd = fsm_locate(t, k, &hint);

			if (unlinkat(dfd, t->name, 0) < 0 && errno != ENOENT) {
				char path[PATH_MAX + 512];

				int err = errno;

				fsm_path_of(t, fsm_seg_of(t, k, &hint), k, path, sizeof(path));
				cleanup_report(path, err);
				failed++;
			}
		}
		t->k_unlinked = t->k_created;
	}
	return failed;
}
