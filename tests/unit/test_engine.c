/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine/: the registry (built-ins, hidden test engines, runtime registration, the list),
 * engine_select's answers for --engine/--iodepth, and the request contract on every engine
 * that has requests, this binary's own registered one included: chains with ENGINE_FD_CHAIN,
 * cancellation after a failure or a short transfer, timestamps, every op, reap min/max, and
 * engine_exec while other chains are in flight; the submission time (engine_submit_stats:
 * note, merge, share, pack) and what io_uring records in it. Runs in a temporary directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/clock.h"
#include "core/pack.h"
#include "engine/engine.h"
#include "report/engine_text.h"

/* ---- an engine registered by this test: asynchronous, completes in reverse order ---- */
struct revq {
	struct engine_req **q;
	unsigned n;
};

static int revq_init(struct engine_ctx *ctx)
{
	struct revq *r = calloc(1, sizeof(*r));

	if (!r || !(r->q = calloc(ctx->depth, sizeof(*r->q)))) {
		free(r);
		return -ENOMEM;
	}
	ctx->priv = r;
	return 0;
}

static void revq_exit(struct engine_ctx *ctx)
{
	struct revq *r = ctx->priv;

	free(r->q);
	free(r);
}

static int revq_submit(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n)
{
	struct revq *r = ctx->priv;
	uint64_t now = lat_now();

	for (unsigned i = 0; i < n; i++) {
		for (struct engine_req *q = heads[i]; q; q = q->next)
			q->submit_lat = now;
		r->q[r->n++] = heads[i];
	}
	return 0;
}

/* the last submitted first; everything queued at once, whatever min says */
static int revq_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max)
{
	struct revq *r = ctx->priv;
	unsigned got = 0;

	(void)min;
	while (r->n && got < max) {
		struct engine_req *h = r->q[--r->n];

		engine_psync_chain(h, false);
		out[got++] = h;
	}
	return (int)got;
}

static const struct engine_ops engine_revq = {
	.name = "revq", .summary = "test: reverse order", .caps = ENGINE_DATA | ENGINE_META,
	.max_depth = 64, .init = revq_init, .exit = revq_exit, .submit = revq_submit, .reap = revq_reap,
};

static const struct engine_ops engine_broken = { .name = "broken", .summary = "no hooks" };

/* ---- the registry ---- */
static void test_registry(void)
{
	char buf[4096], names[256];
	FILE *f;
	size_t n;

	unsetenv("FSBENCH_TEST_ENGINES");
	CHECK(engine_find("psync") == &engine_psync, "psync");
	CHECK(engine_find("mmap") == &engine_mmap, "mmap");
	CHECK(engine_find("nope") == NULL, "unknown");
	CHECK(engine_find("testq") == NULL, "testq hidden without FSBENCH_TEST_ENGINES=1");
	CHECK(engine_at(0) == &engine_psync, "psync first: the default");
	engine_names(names, sizeof(names));
	CHECK(!strcmp(names, "psync, mmap, io_uring"), "names: %s", names);

	f = fmemopen(buf, sizeof(buf), "w");
	engine_text_list(f, false);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n] = '\0';
	CHECK(!strncmp(buf, "psync    one synchronous", 24), "list: %s", buf);
	CHECK(strstr(buf, "\nmmap     ") && !strstr(buf, "testq"), "list: %s", buf);

	setenv("FSBENCH_TEST_ENGINES", "1", 1);
	CHECK(engine_find("testq") != NULL, "testq with FSBENCH_TEST_ENGINES=1");
	f = fmemopen(buf, sizeof(buf), "w");
	engine_text_list(f, true);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n] = '\0';
	CHECK(!strncmp(buf, ".TP\n.B psync\n", 13) && !strstr(buf, "testq"),
	      "man list never has the test engines: %s", buf);

	CHECK(engine_register(&engine_revq) == 0, "register");
	CHECK(engine_find("revq") == &engine_revq, "registered engine found");
	CHECK(engine_register(&engine_revq) == -EEXIST, "twice");
	CHECK(engine_register(&engine_psync) == -EEXIST, "a built-in's name");
	CHECK(engine_register(&engine_broken) == -EINVAL, "an engine with no way to run anything");
	f = fmemopen(buf, sizeof(buf), "w");
	engine_text_list(f, false);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n] = '\0';
	CHECK(strstr(buf, "\nrevq     test: reverse order\n") != NULL, "list has it: %s", buf);
	{
		static struct engine_ops many[9];
		static char mnames[9][16];
		int rc = 0;

		for (int i = 0; i < 9 && !rc; i++) {
			snprintf(mnames[i], sizeof(mnames[i]), "extra%d", i);
			many[i] = engine_revq;
			many[i].name = mnames[i];
			rc = engine_register(&many[i]);
		}
		CHECK(rc == -ENOSPC, "the table fills up: %d", rc);
	}
}

/* ---- engine_select ---- */
struct sel_case {
	const char *name;
	uint64_t depth;
	const char *workload;
	unsigned caps;
	bool data_path, mmap_flag;
	const char *want;        /* the chosen engine, or NULL */
	const char *err;         /* a substring of the message */
};

static void test_select(void)
{
	static const struct sel_case cases[] = {
		{ NULL, 1, "tiotest", ENGINE_DATA, true, false, "psync", NULL },
		{ NULL, 0, "tiotest", ENGINE_DATA, true, false, "psync", NULL },
		{ NULL, 1, "tiotest", ENGINE_DATA, true, true, "mmap", NULL },
		{ "mmap", 1, "tiotest", ENGINE_DATA, true, true, "mmap", NULL },
		{ "mmap", 1, "tiotest", ENGINE_DATA, true, false, "mmap", NULL },
		{ "psync", 1, "tiotest", ENGINE_DATA, true, true, NULL,
		  "options -M and --engine psync contradict each other" },
		{ "nope", 1, "tiotest", ENGINE_DATA, true, false, NULL,
		  "option --engine: unknown engine 'nope' (known: psync, mmap, io_uring, testq, revq" },
		{ "psync", 4, "tiotest", ENGINE_DATA, true, false, NULL,
		  "option --iodepth 4: the psync engine is synchronous" },
		{ "mmap", 2, "tiotest", ENGINE_DATA, true, false, NULL, "mmap cannot run tiotest" },
		{ "mmap", 1, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, NULL,
		  "option --engine: mmap cannot run fs_mark: it has no metadata operations" },
		{ NULL, 1, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, "psync", NULL },
		{ "testq", 32, "tiotest", ENGINE_DATA, true, false, "testq", NULL },
		{ "testq", 4096, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, "testq", NULL },
		{ "revq", 65, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, NULL,
		  "the revq engine keeps at most 64 requests in flight" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sel_case *k = &cases[i];
		struct engine_opts e = { .name = k->name, .iodepth = k->depth };
		char err[512] = "";
		int rc = engine_select(&e, k->workload, k->caps, k->data_path, k->mmap_flag, err, sizeof(err));

		if (k->want) {
			CHECK(rc == 0 && e.ops && !strcmp(e.ops->name, k->want) && !strcmp(e.name, k->want) &&
			      e.iodepth >= 1, "case %zu: rc %d, %s", i, rc, err);
		} else {
			CHECK(rc == -EINVAL && strstr(err, k->err) && !strchr(err, '\n'),
			      "case %zu: rc %d, message '%s'", i, rc, err);
		}
	}
}

/* an engine's own options: another engine's is refused by name, the selected one's defaults
 * fill the area when none was given, and every built-in engine's table fits and is long-only
 * flags and numbers (a config travels between processes as bytes) */
static void test_own_options(void)
{
	const struct engine_ops *e;
	unsigned uring = 0;
	char err[512] = "";

	while (engine_at(uring) != &engine_io_uring)
		uring++;
	{
		struct engine_opts o = { .name = "psync", .iodepth = 1, .given = { uring + 1, 3 } };
		int rc = engine_select(&o, "tiotest", ENGINE_DATA, true, false, err, sizeof(err));

		CHECK(rc == -EINVAL &&
			      !strcmp(err, "option --hipri applies to --engine io_uring only (not psync)"),
		      "io_uring's option with psync: %d %s", rc, err);
	}
	{
		struct engine_opts o = { .name = "io_uring", .iodepth = 1, .given = { uring + 1, 1 } };

		o.priv[0] = 1;
		CHECK(engine_select(&o, "tiotest", ENGINE_DATA, true, false, err, sizeof(err)) == 0 &&
			      o.priv[0] == 1 && o.given.owner == uring + 1,
		      "io_uring's own option kept: %s", err);
	}
	{
		struct engine_opts o = { .name = "io_uring", .iodepth = 1 };

		memset(o.priv, 0xff, sizeof(o.priv));
		CHECK(engine_select(&o, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, err,
				    sizeof(err)) == 0 &&
			      o.given.owner == uring + 1 && !o.given.given && !o.priv[0] && !o.priv[2],
		      "io_uring's defaults when none given");
	}
	for (unsigned i = 0; (e = engine_at(i)); i++)
		for (const struct opt *op = e->options; op && !opt_is_end(op); op++)
			CHECK(e->options_size <= ENGINE_OPTS_PRIV && !op->sname && op->lname &&
				      op->type != OPT_STR && op->type != OPT_STRS && op->type != OPT_GROUPS &&
				      op->off < e->options_size,
			      "%s: option %s", e->name, op->lname);
}

/* ---- the request contract ---- */
static char dir[64];
static int dfd;

static void chain_link(struct engine_req *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
}

static void test_requests(const struct engine_ops *e)
{
	struct engine_ctx ctx;
	char name[32], buf[64], rbuf[64];
	struct engine_req r[6], *done[8];
	struct statx stx;
	int rc, got;

	CHECK(engine_ctx_init(&ctx, e, 8) == 0, "%s: init", e->name);
	/* submission time only for an engine that says it times its calls */
	CHECK(!ctx.submit == !e->submit_stats, "%s: submit stats %p, submit_stats %d", e->name,
	      (void *)ctx.submit, e->submit_stats);
	memset(buf, 'x', sizeof(buf));

	/* a create chain: openat -> write -> write -> fsync -> close, the fd from the chain */
	snprintf(name, sizeof(name), "f-%s", e->name);
	memset(r, 0, sizeof(r));
	r[0] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = dfd, .name = name,
				    .flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, .mode = 0600 };
	r[1] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = ENGINE_FD_CHAIN, .buf = buf, .len = 10,
				    .off = ENGINE_OFF_CUR };
	r[2] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = ENGINE_FD_CHAIN, .buf = buf, .len = 5,
				    .off = ENGINE_OFF_CUR };
	r[3] = (struct engine_req){ .op = ENGINE_OP_FDATASYNC, .fd = ENGINE_FD_CHAIN };
	r[4] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	chain_link(r, 5);
	rc = engine_exec(&ctx, r);
	CHECK(rc == 0 && r[0].result >= 0 && r[1].result == 10 && r[2].result == 5 && r[3].result == 0 &&
	      r[4].result == 0, "%s: create chain: %d %lld %lld %lld %lld %lld", e->name, rc,
	      (long long)r[0].result, (long long)r[1].result, (long long)r[2].result,
	      (long long)r[3].result, (long long)r[4].result);
	for (int i = 0; i < 5; i++)
		CHECK(r[i].submit_lat && r[i].done_lat >= r[i].submit_lat &&
		      (i == 0 || r[i].done_lat >= r[i - 1].done_lat), "%s: timestamps of request %d",
		      e->name, i);

	/* statx and read at the file position, then pread at an offset */
	r[0] = (struct engine_req){ .op = ENGINE_OP_STATX, .fd = dfd, .name = name,
				    .flags = AT_SYMLINK_NOFOLLOW, .mode = STATX_SIZE, .buf = &stx };
	CHECK(engine_exec1(&ctx, r) == 0 && stx.stx_size == 15, "%s: statx: size %llu", e->name,
	      (unsigned long long)stx.stx_size);
	r[0] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = dfd, .name = name, .flags = O_RDONLY };
	r[1] = (struct engine_req){ .op = ENGINE_OP_READ, .fd = ENGINE_FD_CHAIN, .buf = rbuf, .len = 64,
				    .off = ENGINE_OFF_CUR };
	r[2] = (struct engine_req){ .op = ENGINE_OP_READ, .fd = ENGINE_FD_CHAIN, .buf = rbuf, .len = 4, .off = 11 };
	r[3] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	chain_link(r, 4);
	CHECK(engine_exec(&ctx, r) == 0 && r[1].result == 15, "%s: read: %lld", e->name, (long long)r[1].result);
	/* a read shorter than asked breaks the chain: the rest is cancelled, the file stays open */
	CHECK(r[2].result == -ECANCELED && r[3].result == -ECANCELED, "%s: after a short read: %lld %lld",
	      e->name, (long long)r[2].result, (long long)r[3].result);
	r[4] = (struct engine_req){ .op = ENGINE_OP_READ, .fd = (int)r[0].result, .buf = rbuf, .len = 4, .off = 11 };
	CHECK(engine_exec1(&ctx, &r[4]) == 4, "%s: pread at an offset", e->name);
	r[4] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = (int)r[0].result };
	CHECK(engine_exec1(&ctx, &r[4]) == 0, "%s: close", e->name);

	/* a failure cancels the rest: O_EXCL on an existing name */
	r[0] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = dfd, .name = name,
				    .flags = O_CREAT | O_EXCL | O_WRONLY, .mode = 0600 };
	r[1] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	chain_link(r, 2);
	CHECK(engine_exec(&ctx, r) == 0 && r[0].result == -EEXIST && r[1].result == -ECANCELED,
	      "%s: failed chain: %lld %lld", e->name, (long long)r[0].result, (long long)r[1].result);

	/* fsetxattr: tmpfs has user xattrs since 6.6; elsewhere EOPNOTSUPP is the answer */
	{
		int fd = openat(dfd, name, O_RDONLY);

		r[0] = (struct engine_req){ .op = ENGINE_OP_FSETXATTR, .fd = fd, .name = "user.t", .buf = buf, .len = 8 };
		int64_t x = engine_exec1(&ctx, r);

		CHECK(x == 0 || x == -EOPNOTSUPP, "%s: fsetxattr: %lld", e->name, (long long)x);
		close(fd);
	}

	/* mkdirat, unlinkat of a file and of the directory */
	r[0] = (struct engine_req){ .op = ENGINE_OP_MKDIRAT, .fd = dfd, .name = "sub", .mode = 0700 };
	CHECK(engine_exec1(&ctx, r) == 0, "%s: mkdirat", e->name);
	CHECK(engine_exec1(&ctx, r) == -EEXIST, "%s: mkdirat twice", e->name);
	r[0] = (struct engine_req){ .op = ENGINE_OP_UNLINKAT, .fd = dfd, .name = "sub", .flags = AT_REMOVEDIR };
	CHECK(engine_exec1(&ctx, r) == 0, "%s: rmdir", e->name);
	r[0] = (struct engine_req){ .op = ENGINE_OP_UNLINKAT, .fd = dfd, .name = name };
	CHECK(engine_exec1(&ctx, r) == 0, "%s: unlinkat", e->name);
	CHECK(engine_exec1(&ctx, r) == -ENOENT, "%s: unlinkat twice", e->name);

	/* depth: 8 chains in flight, the 9th refused; reap max bounds; nothing lost */
	{
		struct engine_req m[9];
		struct engine_req *heads[9];
		bool seen[9] = { false };
		unsigned total = 0;

		for (int i = 0; i < 9; i++) {
			m[i] = (struct engine_req){ .op = ENGINE_OP_MKDIRAT, .fd = dfd, .name = NULL, .mode = 0700,
						    .user = (void *)(uintptr_t)i };
			heads[i] = &m[i];
		}
		static const char *const dn[9] = { "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8" };
		for (int i = 0; i < 9; i++)
			m[i].name = dn[i];
		CHECK(engine_submit(&ctx, heads, 9) == -EBUSY, "%s: more than depth refused", e->name);
		CHECK(engine_submit(&ctx, heads, 6) == 0 && ctx.inflight == 6, "%s: submit 6", e->name);
		/* engine_exec with others in flight: they stay for engine_reap */
		CHECK(engine_exec1(&ctx, &m[6]) == 0 && ctx.inflight == 6, "%s: exec among others: %u",
		      e->name, ctx.inflight);
		seen[6] = true;
		while (ctx.inflight) {
			got = engine_reap(&ctx, done, 1, 2);
			CHECK(got >= 1 && got <= 2, "%s: reap 1..2 gave %d", e->name, got);
			if (got < 1)
				break;
			for (int i = 0; i < got; i++) {
				int k = (int)(uintptr_t)done[i]->user;

				CHECK(!seen[k] && done[i]->result == 0, "%s: completion %d twice or failed", e->name, k);
				seen[k] = true;
				total++;
			}
		}
		CHECK(total == 6, "%s: %u of 6 completions", e->name, total);
		CHECK(engine_reap(&ctx, done, 1, 8) == 0, "%s: reap with nothing in flight", e->name);
		for (int i = 0; i < 7; i++) {
			r[0] = (struct engine_req){ .op = ENGINE_OP_UNLINKAT, .fd = dfd, .name = dn[i],
						    .flags = AT_REMOVEDIR };
			CHECK(engine_exec1(&ctx, r) == 0, "%s: rmdir %s", e->name, dn[i]);
		}
	}
	engine_ctx_exit(&ctx);
}

/* io_uring's direct descriptors: a slot of the registered table per open file, free again
 * when its close completes (also the close that ends a chain, and one after a failed chain):
 * 20 rounds of depth chains open -> write -> close go through a table of depth + 16 slots,
 * the descriptors are direct ones (not in the process's table), and the ring op counts are
 * the requests submitted, cancelled links included */
static void test_uring_slots(void)
{
	const unsigned depth = 8;
	struct engine_ctx ctx;
	struct engine_req r[8][3], *heads[8], *done[8];
	char names[8][16], buf[4] = "abc";
	char why[256];

	if (engine_io_uring.check(
		    &(struct engine_opts){ .iodepth = depth },
		    &(struct engine_use){ .workload = "test", .caps = ENGINE_DATA | ENGINE_META }, why,
		    sizeof(why))) {
		CHECK_SKIP("io_uring slots", "%s", why);
		return;
	}
	CHECK(engine_ctx_init(&ctx, &engine_io_uring, depth) == 0, "io_uring: init");
	for (unsigned round = 0; round < 20; round++) {
		unsigned got = 0;

		for (unsigned i = 0; i < depth; i++) {
			snprintf(names[i], sizeof(names[i]), "s%u", i);
			r[i][0] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = dfd, .name = names[i],
						       .flags = O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, .mode = 0600 };
			r[i][1] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = ENGINE_FD_CHAIN, .buf = buf,
						       .len = 3, .off = ENGINE_OFF_CUR };
			r[i][2] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
			/* every other round, a chain that fails at its write (a directory fd is no file):
			 * the close is cancelled and the slot is closed by the caller, as fs_mark does */
			if (round % 2 && i == 3)
				r[i][1].fd = dfd;
			chain_link(r[i], 3);
			heads[i] = r[i];
		}
		CHECK(engine_submit(&ctx, heads, depth) == 0, "io_uring: round %u submit", round);
		while (got < depth) {
			int n = engine_reap(&ctx, done, 1, depth);

			CHECK(n > 0, "io_uring: round %u reap %d", round, n);
			if (n <= 0)
				break;
			for (int k = 0; k < n; k++) {
				struct engine_req *h = done[k];

				CHECK(h[0].result >= (1 << 30), "io_uring: a direct descriptor: %lld", (long long)h[0].result);
				if (h[1].fd == dfd) {
					struct engine_req cl = { .op = ENGINE_OP_CLOSE, .fd = (int)h[0].result };

					CHECK(h[1].result < 0 && h[2].result == -ECANCELED, "io_uring: failed chain %lld %lld",
					      (long long)h[1].result, (long long)h[2].result);
					CHECK(engine_exec1(&ctx, &cl) == 0, "io_uring: close after a failed chain");
				} else {
					CHECK(h[1].result == 3 && h[2].result == 0, "io_uring: chain %lld %lld",
					      (long long)h[1].result, (long long)h[2].result);
				}
			}
			got += (unsigned)n;
		}
	}
	CHECK(ctx.nops[ENGINE_OP_OPENAT] == 20 * depth && ctx.nops[ENGINE_OP_WRITE] == 20 * depth &&
	      ctx.nops[ENGINE_OP_CLOSE] == 20 * depth + 10, "io_uring: ring ops %llu %llu %llu",
	      (unsigned long long)ctx.nops[ENGINE_OP_OPENAT], (unsigned long long)ctx.nops[ENGINE_OP_WRITE],
	      (unsigned long long)ctx.nops[ENGINE_OP_CLOSE]);
	/* submission time: every SQE went through a timed call (one per round at least, one per
	 * close after a failed chain), each of them completed and added its latency, and the time
	 * inside the calls is part of that latency (no timing figure is asserted) */
	{
		const struct engine_submit_stats *st = ctx.submit;
		const uint64_t sqes = 20 * depth * 3 + 10;

		CHECK(st && st->sqes == sqes && st->call_ns.count >= 20 + 10 && st->call_ns.count <= sqes &&
		      st->call_ns.sum > 0 && st->latency_ns >= st->in_submit_ns && st->in_submit_ns >= st->call_ns.sum,
		      "io_uring: submission calls %llu sqes %llu (want %llu) total %llu in %llu latency %llu",
		      st ? (unsigned long long)st->call_ns.count : 0, st ? (unsigned long long)st->sqes : 0,
		      (unsigned long long)sqes, st ? (unsigned long long)st->call_ns.sum : 0,
		      st ? (unsigned long long)st->in_submit_ns : 0, st ? (unsigned long long)st->latency_ns : 0);
		CHECK(st && engine_submit_share(st) > 0 && engine_submit_share(st) <= 1, "io_uring: share %g",
		      st ? engine_submit_share(st) : NAN);
	}
	engine_ctx_exit(&ctx);
	for (unsigned i = 0; i < depth; i++)
		CHECK(unlinkat(dfd, names[i], 0) == 0, "unlink %s", names[i]);
}

/* ---- submission time (struct engine_submit_stats) ---- */
/* one context's calls: (duration, SQEs) pairs, then the latency of each request */
struct sub_case {
	unsigned ncalls;
	uint64_t call_ns[4];
	unsigned sqes[4];
	unsigned nreq;
	uint64_t req_ns[8];
};

static void sub_fill(struct engine_submit_stats *s, const struct sub_case *c)
{
	struct engine_ctx ctx = { .submit = s };

	engine_submit_stats_init(s);
	for (unsigned i = 0; i < c->ncalls; i++)
		engine_submit_note(&ctx, c->call_ns[i], c->sqes[i]);
	for (unsigned i = 0; i < c->nreq; i++)
		engine_submit_done(&ctx, c->req_ns[i]);
}

static bool sub_equal(const struct engine_submit_stats *a, const struct engine_submit_stats *b)
{
	return a->sqes == b->sqes && a->in_submit_ns == b->in_submit_ns && a->latency_ns == b->latency_ns &&
	       a->call_ns.count == b->call_ns.count && a->call_ns.sum == b->call_ns.sum &&
	       a->call_ns.min == b->call_ns.min && a->call_ns.max == b->call_ns.max &&
	       !memcmp(a->call_ns.buckets, b->call_ns.buckets, sizeof(a->call_ns.buckets));
}

static void test_submit_stats(void)
{
	/* merge(a, b) must be the stats of a's and b's calls and requests noted in one context */
	static const struct {
		const char *name;
		struct sub_case a, b, both;
	} t[] = {
		{ "two contexts", { 2, { 1000, 3000 }, { 1, 4 }, 5, { 2000, 4000, 4000, 4000, 4000 } },
		  { 1, { 500000 }, { 2 }, 2, { 600000, 700000 } },
		  { 3, { 1000, 3000, 500000 }, { 1, 4, 2 }, 7, { 2000, 4000, 4000, 4000, 4000, 600000, 700000 } } },
		{ "into an empty one", { 0, { 0 }, { 0 }, 0, { 0 } },
		  { 2, { 70, 9000000000ull }, { 32, 1 }, 3, { 100, 100, 9000000000ull } },
		  { 2, { 70, 9000000000ull }, { 32, 1 }, 3, { 100, 100, 9000000000ull } } },
		{ "an empty one in", { 1, { 64 }, { 1 }, 1, { 64 } }, { 0, { 0 }, { 0 }, 0, { 0 } },
		  { 1, { 64 }, { 1 }, 1, { 64 } } },
		{ "a call that took nothing (EINTR)", { 1, { 900 }, { 0 }, 0, { 0 } },
		  { 1, { 1200 }, { 3 }, 3, { 5000, 5000, 5000 } },
		  { 2, { 900, 1200 }, { 0, 3 }, 3, { 5000, 5000, 5000 } } },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct engine_submit_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *w = malloc(sizeof(*w));

		if (!a || !b || !w) {
			CHECK(0, "out of memory");
			free(a), free(b), free(w);
			return;
		}
		sub_fill(a, &t[i].a);
		sub_fill(b, &t[i].b);
		sub_fill(w, &t[i].both);
		engine_submit_stats_merge(a, b);
		CHECK(sub_equal(a, w), "%s: merged calls %llu sqes %llu in %llu latency %llu min %llu, want %llu %llu %llu %llu %llu",
		      t[i].name, (unsigned long long)a->call_ns.count, (unsigned long long)a->sqes,
		      (unsigned long long)a->in_submit_ns, (unsigned long long)a->latency_ns,
		      (unsigned long long)a->call_ns.min, (unsigned long long)w->call_ns.count,
		      (unsigned long long)w->sqes, (unsigned long long)w->in_submit_ns,
		      (unsigned long long)w->latency_ns, (unsigned long long)w->call_ns.min);
		/* through the byte stream a job's ranks use, and back: the same */
		{
			struct pack p = { 0 };
			struct unpack u;

			engine_submit_stats_pack(&p, a);
			unpack_init(&u, p.buf, p.len);
			engine_submit_stats_unpack(&u, b);
			CHECK(!p.err && !unpack_done(&u) && sub_equal(a, b), "%s: pack/unpack", t[i].name);
			/* a truncated stream is an error, never a half-filled result read as whole */
			unpack_init(&u, p.buf, p.len ? p.len - 1 : 0);
			engine_submit_stats_unpack(&u, b);
			CHECK(unpack_done(&u) != 0, "%s: truncated stream accepted", t[i].name);
			pack_free(&p);
		}
		free(a);
		free(b);
		free(w);
	}
	/* the share: time inside the calls per request over the requests' latency */
	{
		static const struct {
			struct sub_case c;
			double share;    /* NAN: no request completed */
		} sh[] = {
			{ { 1, { 1000 }, { 1 }, 1, { 4000 } }, 0.25 },
			{ { 2, { 1000, 3000 }, { 1, 2 }, 3, { 2000, 7000, 7000 } }, 7000.0 / 16000.0 },
			{ { 1, { 1000 }, { 1 }, 0, { 0 } }, NAN },
			{ { 0, { 0 }, { 0 }, 0, { 0 } }, NAN },
		};
		struct engine_submit_stats *s = malloc(sizeof(*s));
		struct engine_ctx ctx = { .submit = s };
		double got;

		for (size_t i = 0; s && i < sizeof(sh) / sizeof(sh[0]); i++) {
			sub_fill(s, &sh[i].c);
			got = engine_submit_share(s);
			CHECK(isnan(sh[i].share) ? isnan(got) : fabs(got - sh[i].share) < 1e-12, "share %zu: %g, want %g",
			      i, got, sh[i].share);
		}
		/* 32 requests in one call of 10 us, each 20 us from submission to completion: half
		 * of each one's latency, which total_ns / summed latency (10 of 640 us) calls 1.6 % */
		if (s) {
			engine_submit_stats_init(s);
			engine_submit_note(&ctx, 10000, 32);
			for (int k = 0; k < 32; k++)
				engine_submit_done(&ctx, 20000);
			got = engine_submit_share(s);
			CHECK(fabs(got - 0.5) < 1e-12, "share of 32 requests in one call: %g", got);
		}
		free(s);
	}
	/* a context without submission stats (a synchronous engine): nothing recorded, no crash */
	{
		struct engine_ctx ctx = { .submit = NULL };

		engine_submit_note(&ctx, 100, 1);
		engine_submit_done(&ctx, 100);
		CHECK(ctx.submit == NULL, "no stats appeared");
	}
}

/* testq's short transfers: a write chain stops after the short write, the rest cancelled */
static void test_short(void)
{
	const struct engine_ops *e;
	struct engine_ctx ctx;
	struct engine_req r[3];
	char buf[100] = { 0 };

	setenv("FSBENCH_TESTQ_SHORT", "1", 1);
	e = engine_find("testq");
	CHECK(e && engine_ctx_init(&ctx, e, 2) == 0, "testq init");
	unsetenv("FSBENCH_TESTQ_SHORT");
	if (!e)
		return;
	r[0] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = dfd, .name = "short",
				    .flags = O_CREAT | O_EXCL | O_WRONLY, .mode = 0600 };
	r[1] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = ENGINE_FD_CHAIN, .buf = buf, .len = 100, .off = 0 };
	r[2] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	chain_link(r, 3);
	CHECK(engine_exec(&ctx, r) == 0 && r[0].result >= 0 && r[1].result == 50 && r[2].result == -ECANCELED,
	      "short write: %lld %lld", (long long)r[1].result, (long long)r[2].result);
	close((int)r[0].result);
	unlinkat(dfd, "short", 0);
	engine_ctx_exit(&ctx);
}

int main(void)
{
	const struct engine_ops *e;
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	clock_init();
	test_registry();
	test_select();
	test_submit_stats();
	snprintf(dir, sizeof(dir), "%s/fsbench-engine.XXXXXX", tmp);
	if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		perror(dir);
		return 1;
	}
	for (unsigned i = 0; (e = engine_at(i)); i++) {
		struct engine_ctx ctx;

		char why[256];

		if (!e->exec && !e->submit) {
			CHECK(engine_ctx_init(&ctx, e, 1) == -EOPNOTSUPP, "%s: no requests", e->name);
			continue;
		}
		/* io_uring disabled or too old here: its contract is not checked, visibly */
		if (e->check &&
		    e->check(&(struct engine_opts){ .iodepth = 8 },
			     &(struct engine_use){ .workload = "test", .caps = ENGINE_DATA | ENGINE_META },
			     why, sizeof(why))) {
			CHECK_SKIP(e->name, "%s", why);
			continue;
		}
		test_requests(e);
	}
	test_short();
	test_uring_slots();
	test_own_options();
	{
		DIR *d = fdopendir(dfd);
		struct dirent *de;
		int left = 0;

		while (d && (de = readdir(d)))
			left += de->d_name[0] != '.';
		CHECK(left == 0, "%d entries left in %s", left, dir);
		if (d)
			closedir(d);
	}
	rmdir(dir);
	return check_done("test_engine");
}
