/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testq: a test-only asynchronous engine, usable only in the test build (core/testhook.h) with
 * FSBENCH_TEST_ENGINES=1. submit only
 * queues chains; reap runs a random number of them (at least min), picked in random order,
 * with the real syscalls (the psync executor), so completions come back late and out of order
 * as an asynchronous engine's do, and the workloads' queued paths run end to end from the CLI.
 * FSBENCH_TESTQ_SHORT=N makes every Nth read or write move half its bytes (a short transfer),
 * which the workloads must finish as psync does. Not a benchmark: it serialises everything. */
#include "engine/engine.h"

#include <stdlib.h>

#include "core/clock.h"
#include "core/testhook.h"

struct testq {
	struct engine_req **q;   /* queued chain heads */
	unsigned n;
	uint64_t rng;
	unsigned short_every, count;
};

static uint64_t next_rand(struct testq *t)
{
	uint64_t z = (t->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int testq_init(struct engine_ctx *ctx)
{
	struct testq *t = calloc(1, sizeof(*t));
	const char *s = testhook_env("FSBENCH_TESTQ_SHORT");

	if (!t || !(t->q = calloc(ctx->depth, sizeof(*t->q)))) {
		free(t);
		return -ENOMEM;
	}
	t->rng = lat_now() ^ (uint64_t)(uintptr_t)ctx;
	t->short_every = s ? (unsigned)strtoul(s, NULL, 10) : 0;
	ctx->priv = t;
	return 0;
}

static void testq_exit(struct engine_ctx *ctx)
{
	struct testq *t = ctx->priv;

	if (t)
		free(t->q);
	free(t);
	ctx->priv = NULL;
}

static int testq_submit(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n)
{
	struct testq *t = ctx->priv;
	uint64_t now = lat_now();

	if (t->n + n > ctx->depth)
		return -EBUSY;
	for (unsigned i = 0; i < n; i++) {
		for (struct engine_req *r = heads[i]; r; r = r->next)
			r->submit_lat = now;
		t->q[t->n++] = heads[i];
	}
	return 0;
}

/* the psync chain walk, with the short transfers injected */
static void run_chain(struct testq *t, struct engine_req *head)
{
	int chain_fd = ENGINE_FD_CHAIN;

	for (struct engine_req *r = head; r; r = r->next) {
		if (engine_req_rw(r) && t->short_every && r->len > 1 && ++t->count % t->short_every == 0) {
			size_t len = r->len;

			r->len = len / 2;
			engine_psync_do(r, chain_fd);
			r->len = len;
		} else {
			engine_psync_do(r, chain_fd);
		}
		r->done_lat = lat_now();
		if (r->op == ENGINE_OP_OPENAT && r->result >= 0)
			chain_fd = (int)r->result;
		if (r->result < 0 || (engine_req_rw(r) && (uint64_t)r->result < r->len)) {
			for (struct engine_req *c = r->next; c; c = c->next) {
				c->result = -ECANCELED;
				c->done_lat = r->done_lat;
			}
			break;
		}
	}
}

static int testq_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max)
{
	struct testq *t = ctx->priv;
	unsigned want = min;

	if (max > min)
		want += (unsigned)(next_rand(t) % (max - min + 1));
	if (want > t->n)
		want = t->n;
	for (unsigned i = 0; i < want; i++) {
		unsigned j = (unsigned)(next_rand(t) % t->n);
		struct engine_req *head = t->q[j];

		t->q[j] = t->q[--t->n];
		run_chain(t, head);
		out[i] = head;
	}
	return (int)want;
}

const struct engine_ops engine_testq = {
	.name = "testq",
	.summary = "test engine: queues requests and runs them at reap time, in random order "
		   "(test build only)",
	.caps = ENGINE_DATA | ENGINE_META,
	.max_depth = 4096,
	.hidden = true,
	.open = engine_fd_open,
	.flush = engine_fd_flush,
	.close = engine_fd_close,
	.init = testq_init,
	.exit = testq_exit,
	.submit = testq_submit,
	.reap = testq_reap,
};
