/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mdtest's item phases at --iodepth N above 1: up to N items' request chains in flight per
 * task, submitted in mdtest's order, the tree's order kept (mdtest_int.h; fs_mark_create.c is
 * the same design for fs_mark's creates). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "workload/mdtest_int.h"

/* An item in flight: its chain, and the path and statx buffer the chain points at (the kernel
 * reads a linked request's name when it prepares it, after the submit). */
struct mdt_slot {
	struct engine_req r[4];
	struct statx stx;
	uint64_t i;    /* its index in the phase's visit */
	uint64_t node; /* the tree's phases: its directory */
	int open_fd;   /* a descriptor its failed chain left open, or -1 */
	bool busy;
	char path[PATH_MAX];
};

struct mdt_queue {
	unsigned n, nfree;
	struct mdt_slot *slot;
	struct mdt_slot **free;
	struct engine_req **sub, **out;
};

void mdt_queue_free(struct mdt_queue *q)
{
	if (!q)
		return;
	free(q->slot);
	free(q->free);
	free(q->sub);
	free(q->out);
	free(q);
}

int mdt_queue_new(struct mdt_state *s, unsigned depth)
{
	struct mdt_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	s->q = q;
	q->n = depth;
	q->slot = calloc(depth, sizeof(*q->slot));
	q->free = calloc(depth, sizeof(*q->free));
	q->sub = calloc(depth, sizeof(*q->sub));
	q->out = calloc(depth, sizeof(*q->out));
	s->skip = calloc(depth, sizeof(*s->skip));
	return q->slot && q->free && q->sub && q->out && s->skip ? 0 : -ENOMEM;
}

bool mdt_skipped(const struct mdt_state *s, enum mdt_test t, uint64_t i)
{
	for (unsigned j = 0; j < s->nskip && s->skip_test == t; j++)
		if (s->skip[j] == i)
			return true;
	return false;
}

/* Fills slot sl for item i of the task's phase: the number of requests of its chain, 0 when
 * this task has nothing to do for it (-S removals: the first task's), or -errno. */
static int queue_fill(const struct mdt_task *k, struct mdt_slot *sl, uint64_t i)
{
	struct mdt_state *s = k->s;
	const enum mdt_test t = k->t;
	const bool tree = t >= MDT_TREE_CREATE, dir = tree || t <= MDT_DIR_REMOVE;
	int rc;

	sl->i = i;
	sl->open_fd = -1;
	sl->node = 0;
	if (tree) {
		sl->node = s->order[t == MDT_TREE_CREATE ? i : s->c->num_dirs - 1 - i];
		rc = mdt_node_path(s, s->own_tree, sl->node, sl->path, sizeof(sl->path));
		rc = rc < 0 ? rc : 0;
	} else if (t == MDT_DIR_STAT || t == MDT_FILE_STAT || t == MDT_FILE_READ) {
		rc = mdt_item_path(s, t, mdt_stat_item_num(s, t, i), sl->path, sizeof(sl->path));
	} else {
		rc = mdt_item_path(s, t, mdt_visit_item(s, i), sl->path, sizeof(sl->path));
	}
	if (rc)
		return rc;
	switch (t) {
	case MDT_TREE_CREATE:
	case MDT_DIR_CREATE:
	case MDT_FILE_CREATE:
		return (int)mdt_build_create(s, sl->r, sl->path, dir);
	case MDT_DIR_STAT:
	case MDT_FILE_STAT:
		mdt_build_stat(sl->r, sl->path, &sl->stx);
		return 1;
	case MDT_FILE_READ:
		return (int)mdt_build_read(s, sl->r, sl->path);
	default:
		if (t == MDT_FILE_REMOVE && s->c->shared_file && s->rank != 0)
			return 0;
		mdt_build_remove(sl->r, sl->path, dir);
		return 1;
	}
}

/* The tree's order, kept with requests in flight: a directory is made once its parent's mkdir
 * completed, and removed once its children's rmdirs did. */
static bool queue_blocked(const struct mdt_task *k, const struct mdt_slot *sl)
{
	const struct mdt_queue *q = k->s->q;
	const uint64_t b = k->s->c->branch;

	if (k->t != MDT_TREE_CREATE && k->t != MDT_TREE_REMOVE)
		return false;
	for (unsigned j = 0; j < q->n; j++) {
		const struct mdt_slot *x = &q->slot[j];

		if (!x->busy)
			continue;
		if (k->t == MDT_TREE_CREATE && sl->node > 0 && x->node == (sl->node - 1) / b)
			return true;
		if (k->t == MDT_TREE_REMOVE && x->node > 0 && (x->node - 1) / b == sl->node)
			return true;
	}
	return false;
}

/* A completed chain: its latency from the submit to its last request's completion (the
 * depth's queueing included, as fio's clat at a depth), or the first error. */
static int queue_done(struct mdt_task *k, struct mdt_slot *sl)
{
	struct mdt_state *s = k->s;
	const struct engine_req *last = sl->r;
	uint64_t bytes = 0;

	for (const struct engine_req *r = sl->r; r; r = r->next) {
		int64_t res = r->result;

		if (res >= 0 && engine_req_rw(r) && (uint64_t)res != r->len)
			res = -EIO; /* mdtest: "unable to write file", "unable to read file" */
		if (res < 0) {
			if (r == sl->r && s->nskip < s->q->n &&
			    (k->t == MDT_TREE_CREATE || k->t == MDT_DIR_CREATE || k->t == MDT_FILE_CREATE)) {
				s->skip_test = k->t;
				s->skip[s->nskip++] = sl->i;
			}
			if (sl->r[0].op == ENGINE_OP_OPENAT && sl->r[0].result >= 0 && r != sl->r)
				sl->open_fd = (int)sl->r[0].result; /* its close was cancelled */
			return mdt_op_fail(res, engine_op_name(r), sl->path);
		}
		if (r->op == ENGINE_OP_WRITE)
			bytes = (uint64_t)res;
		last = r;
	}
	opstat_add_at(&k->st, last->done_lat, lat_ns(last->done_lat - sl->r->submit_lat), bytes);
	k->done++;
	return 0;
}

/* what the phase's items [start, end) did, for the cleanup and the later phases: fail_at is
 * the first that failed (UINT64_MAX: none); the ones before it all completed */
static void queue_account(struct mdt_task *k, uint64_t end, uint64_t fail_at)
{
	struct mdt_state *s = k->s;
	const uint64_t ok = fail_at < end ? fail_at : end;

	switch (k->t) {
	case MDT_TREE_CREATE:
		s->tree_made = end;
		break;
	case MDT_TREE_REMOVE:
		s->tree_made = s->c->num_dirs - ok;
		break;
	case MDT_DIR_CREATE:
		s->dirs_made = end;
		break;
	case MDT_FILE_CREATE:
		s->files_made = end;
		break;
	case MDT_DIR_REMOVE:
		s->dirs_removed_ok = ok;
		break;
	case MDT_FILE_REMOVE:
		s->files_removed_ok = ok;
		break;
	default:
		break;
	}
}

/* completions: slots back, results checked, the first error in *err; -1: the engine lost
 * requests (nothing more will complete) */
static int queue_reap(struct mdt_task *k, uint64_t *fail_at, int *err)
{
	struct mdt_queue *q = k->s->q;
	int got = engine_reap(&k->s->ctx, q->out, 1, q->n);

	if (got < 0) {
		run_fail_msg(-got, "the %s engine lost requests: %s", k->s->ctx.ops->name, strerror(-got));
		*err = *err ? *err : got;
		return -1;
	}
	for (int j = 0; j < got; j++) {
		struct mdt_slot *sl = q->out[j]->user;
		int rc = queue_done(k, sl);

		sl->busy = false;
		q->free[q->nfree++] = sl;
		if (rc && sl->i < *fail_at)
			*fail_at = sl->i;
		if (rc && !*err)
			*err = rc;
	}
	return 0;
}

/* Items [k->done, n) of the phase, up to the depth in flight, submitted in mdtest's order;
 * after a stop or an error nothing new is submitted and what is in flight completes. */
int mdt_queue_work(struct mdt_task *k, uint64_t n)
{
	struct mdt_state *s = k->s;
	struct mdt_queue *q = s->q;
	uint64_t i = k->done, fail_at = UINT64_MAX;
	int err = 0, rc;

	q->nfree = q->n;
	for (unsigned j = 0; j < q->n; j++) {
		q->slot[j].busy = false;
		q->slot[j].open_fd = -1;
		q->free[j] = &q->slot[j];
	}
	for (;;) {
		unsigned nsub = 0;

		while (!err && q->nfree && i < n && !run_stopping()) {
			struct mdt_slot *sl = q->free[q->nfree - 1];
			int nr = queue_fill(k, sl, i);

			if (nr < 0) {
				err = mdt_op_fail(nr, mdt_test_key[k->t], sl->path);
				break;
			}
			if (queue_blocked(k, sl))
				break;
			i++;
			if (nr == 0) {
				k->done++;
				continue;
			}
			for (int r = 0; r < nr; r++)
				sl->r[r].user = sl;
			sl->busy = true;
			q->nfree--;
			q->sub[nsub++] = sl->r;
		}
		if (nsub && (rc = engine_submit(&s->ctx, q->sub, nsub))) {
			for (unsigned j = 0; j < nsub; j++) {
				struct mdt_slot *sl = q->sub[j]->user;

				sl->busy = false;
				q->free[q->nfree++] = sl;
			}
			i -= nsub;
			run_fail_msg(-rc, "the %s engine refused requests: %s", s->ctx.ops->name,
				     strerror(-rc));
			err = err ? err : rc;
		}
		if (!s->ctx.inflight || queue_reap(k, &fail_at, &err))
			break;
	}
	for (unsigned j = 0; j < q->n; j++)
		if (q->slot[j].open_fd >= 0) {
			struct engine_req cl = { .op = ENGINE_OP_CLOSE, .fd = q->slot[j].open_fd };

			engine_exec1(&s->ctx, &cl);
		}
	queue_account(k, i, fail_at);
	return err;
}
