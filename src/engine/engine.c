/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine registry (every built-in engine listed once, stress-ng's X-macro; a test may
 * register more), --engine/--iodepth resolution, and the request plumbing every engine shares:
 * contexts, submit/reap over a synchronous engine's exec, the synchronous convenience path. */
#include "engine/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/testhook.h"

/* Adding an engine: its file, exporting engine_NAME, and one line here. */
#define ENGINES(X) \
	X(psync)   \
	X(mmap)    \
	X(io_uring) \
	X(testq)

#define DECLARE(n) extern const struct engine_ops engine_##n;
ENGINES(DECLARE)
#undef DECLARE

#define ENTRY(n) &engine_##n,
static const struct engine_ops *const builtin[] = { ENGINES(ENTRY) };
#undef ENTRY

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))
#define MAX_EXTRA 8

static const struct engine_ops *extra[MAX_EXTRA];
static unsigned nextra;

const struct engine_ops *engine_at(unsigned i)
{
	if (i < NBUILTIN)
		return builtin[i];
	i -= (unsigned)NBUILTIN;
	return i < nextra ? extra[i] : NULL;
}

/* Test engines stay out of sight (no --engine, no list, no man page) unless asked for, and
 * can be asked for only in the test build (core/testhook.h): the CLI tests use them to run the workloads' queued paths end to end. */
static bool test_engines(void)
{
	const char *v = testhook_env("FSBENCH_TEST_ENGINES");

	return v && !strcmp(v, "1");
}

bool engine_usable(const struct engine_ops *e)
{
	return !e->hidden || test_engines();
}

static const struct engine_ops *find_any(const char *name)
{
	const struct engine_ops *e;

	for (unsigned i = 0; (e = engine_at(i)); i++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

const struct engine_ops *engine_find(const char *name)
{
	const struct engine_ops *e = find_any(name);

	return e && engine_usable(e) ? e : NULL;
}

int engine_register(const struct engine_ops *e)
{
	if (!e->name || !(e->exec || (e->submit && e->reap) || e->rw) || e->options_size > ENGINE_OPTS_PRIV)
		return -EINVAL;
	if (find_any(e->name))
		return -EEXIST;
	if (nextra == MAX_EXTRA)
		return -ENOSPC;
	extra[nextra++] = e;
	return 0;
}

/* ---- the engines' own options (core/opt.h's option groups) -------------------------------- */
static const unsigned char no_options[ENGINE_OPTS_PRIV];

/* the i-th engine's options; a test engine's only where it is usable, so that --help, the
 * man page and the completion never show them */
static bool group_at(unsigned i, struct opt_group *g)
{
	const struct engine_ops *e = engine_at(i);

	if (!e)
		return false;
	g->name = e->name;
	if (e->options && engine_usable(e)) {
		g->opts = e->options;
		g->defaults = e->options_defaults ? e->options_defaults : no_options;
		g->size = e->options_size;
	}
	return true;
}

const struct opt_groups engine_opt_groups = {
	.kind = "engine",
	.select = "engine",
	.at = group_at,
	.given_off = offsetof(struct engine_opts, given),
	.values_off = offsetof(struct engine_opts, priv),
	.values_size = ENGINE_OPTS_PRIV,
};

/* The engine's own options: given with another engine, bad input; else its values in priv
 * (its defaults when none was given) */
static int own_options(struct engine_opts *e, const struct engine_ops *ops, char *err, size_t errlen)
{
	struct opt_group_state *st = &e->given;
	unsigned i = 0;

	if (st->given && engine_at(st->owner - 1) != ops) {
		const struct engine_ops *o = engine_at(st->owner - 1);

		snprintf(err, errlen, "option --%s applies to --engine %s only (not %s)",
			 o->options[st->given - 1].lname, o->name, ops->name);
		return -EINVAL;
	}
	if (st->given)
		return 0;
	while (engine_at(i) != ops)
		i++;
	memset(e->priv, 0, sizeof(e->priv));
	if (ops->options_defaults)
		memcpy(e->priv, ops->options_defaults, ops->options_size);
	st->owner = i + 1;
	return 0;
}

void engine_names(char *buf, size_t len)
{
	const struct engine_ops *e;
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; (e = engine_at(i)) && n < len; i++)
		if (engine_usable(e))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", e->name);
}

static bool has_requests(const struct engine_ops *e)
{
	return e->exec || (e->submit && e->reap);
}

int engine_select(struct engine_opts *e, const char *workload, unsigned caps, bool data_path,
		  bool mmap_flag, char *err, size_t errlen)
{
	const char *name = e->name;
	const struct engine_ops *ops;
	uint64_t depth = e->iodepth ? e->iodepth : 1;
	char names[256];

	if (mmap_flag && name && strcmp(name, "mmap")) {
		snprintf(err, errlen, "options -M and --engine %s contradict each other (-M means "
			 "--engine mmap)", name);
		return -EINVAL;
	}
	if (!name)
		name = mmap_flag ? "mmap" : "psync";
	ops = engine_find(name);
	if (!ops) {
		engine_names(names, sizeof(names));
		snprintf(err, errlen, "option --engine: unknown engine '%s' (known: %s)", name, names);
		return -EINVAL;
	}
	/* a workload with a data path of its own (tiotest) takes an engine's rw at depth 1 */
	if (!(data_path && ops->rw && depth == 1) && (!has_requests(ops) || (caps & ~ops->caps))) {
		if ((caps & ENGINE_META) && !(ops->caps & ENGINE_META))
			snprintf(err, errlen, "option --engine: %s cannot run %s: it has no metadata "
				 "operations (openat, close, fsync, ...)", ops->name, workload);
		else
			snprintf(err, errlen, "option --engine: %s cannot run %s: it does not do "
				 "the operations %s needs", ops->name, workload, workload);
		return -EINVAL;
	}
	if (depth > ops->max_depth) {
		if (ops->max_depth <= 1)
			snprintf(err, errlen, "option --iodepth %llu: the %s engine is synchronous, one "
				 "request at a time (use an engine that queues requests)",
				 (unsigned long long)depth, ops->name);
		else
			snprintf(err, errlen, "option --iodepth %llu: the %s engine keeps at most %u "
				 "requests in flight", (unsigned long long)depth, ops->name,
				 ops->max_depth);
		return -EINVAL;
	}
	if (own_options(e, ops, err, errlen))
		return -EINVAL;
	e->name = ops->name;
	e->iodepth = depth;
	e->ops = ops;
	e->caps = caps;
	e->data_path = data_path;
	return 0;
}

int engine_check(const struct engine_opts *e, const struct engine_use *u, char *err, size_t errlen)
{
	return e->ops && e->ops->check ? e->ops->check(e, u, err, errlen) : 0;
}

const char *const engine_op_key[ENGINE_NOPS] = {
	[ENGINE_OP_READ] = "read", [ENGINE_OP_WRITE] = "write", [ENGINE_OP_FSYNC] = "fsync",
	[ENGINE_OP_FDATASYNC] = "fdatasync", [ENGINE_OP_OPENAT] = "openat", [ENGINE_OP_CLOSE] = "close",
	[ENGINE_OP_FSETXATTR] = "fsetxattr", [ENGINE_OP_STATX] = "statx",
	[ENGINE_OP_UNLINKAT] = "unlinkat", [ENGINE_OP_MKDIRAT] = "mkdirat",
};

const char *engine_op_name(const struct engine_req *r)
{
	switch (r->op) {
	case ENGINE_OP_READ:
		return r->off == ENGINE_OFF_CUR ? "read" : "pread";
	case ENGINE_OP_WRITE:
		return r->off == ENGINE_OFF_CUR ? "write" : "pwrite";
	case ENGINE_OP_FSYNC:
		return "fsync";
	case ENGINE_OP_FDATASYNC:
		return "fdatasync";
	case ENGINE_OP_OPENAT:
		return "open";
	case ENGINE_OP_CLOSE:
		return "close";
	case ENGINE_OP_FSETXATTR:
		return "fsetxattr";
	case ENGINE_OP_STATX:
		return "statx";
	case ENGINE_OP_UNLINKAT:
		return "unlink";
	case ENGINE_OP_MKDIRAT:
		return "mkdir";
	default:
		return "?";
	}
}

/* ---- contexts and the queue ------------------------------------------------------------- */
static int ctx_init(struct engine_ctx *ctx, const struct engine_ops *ops, unsigned depth,
		    const struct engine_opts *e)
{
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	if (!has_requests(ops))
		return -EOPNOTSUPP;
	ctx->ops = ops;
	ctx->opts = e ? engine_options(e) : NULL;
	ctx->depth = depth ? depth : 1;
	ctx->ready = calloc(ctx->depth, sizeof(*ctx->ready));
	if (ops->submit_stats && (ctx->submit = malloc(sizeof(*ctx->submit))))
		engine_submit_stats_init(ctx->submit);
	rc = !ctx->ready || (ops->submit_stats && !ctx->submit) ? -ENOMEM : ops->init ? ops->init(ctx) : 0;
	if (rc) {
		free(ctx->ready);
		free(ctx->submit);
		ctx->ready = NULL;
		ctx->submit = NULL;
	}
	return rc;
}

int engine_ctx_init(struct engine_ctx *ctx, const struct engine_ops *ops, unsigned depth)
{
	return ctx_init(ctx, ops, depth, NULL);
}

int engine_ctx_init_opts(struct engine_ctx *ctx, const struct engine_opts *e, unsigned depth)
{
	return ctx_init(ctx, e->ops, depth, e);
}

void engine_ctx_exit(struct engine_ctx *ctx)
{
	if (ctx->ops && ctx->ops->exit)
		ctx->ops->exit(ctx);
	free(ctx->ready);
	free(ctx->submit);
	memset(ctx, 0, sizeof(*ctx));
}

int engine_ctx_attach(struct engine_ctx *ctx)
{
	return ctx->ops && ctx->ops->attach ? ctx->ops->attach(ctx) : 0;
}

int engine_exec(struct engine_ctx *ctx, struct engine_req *head)
{
	int rc;

	if (ctx->ops->exec) {
		ctx->ops->exec(ctx, head);
		return 0;
	}
	if (ctx->inflight >= ctx->depth)
		return -EBUSY;
	rc = ctx->ops->submit(ctx, &head, 1);
	if (rc)
		return rc;
	for (;;) {
		struct engine_req *r;
		int n = ctx->ops->reap(ctx, &r, 1, 1);

		if (n < 0)
			return n;
		if (n == 0)
			continue;
		if (r == head)
			return 0;
		/* another chain's completion: kept for the caller's next engine_reap() */
		engine_ready_push(ctx, r);
	}
}

/* ---- submission time -------------------------------------------------------------------- */
void engine_submit_stats_init(struct engine_submit_stats *s)
{
	s->sqes = s->in_submit_ns = s->latency_ns = 0;
	hist_init(&s->call_ns);
}

void engine_submit_stats_merge(struct engine_submit_stats *dst, const struct engine_submit_stats *src)
{
	dst->sqes += src->sqes;
	dst->in_submit_ns += src->in_submit_ns;
	dst->latency_ns += src->latency_ns;
	hist_merge(&dst->call_ns, &src->call_ns);
}

double engine_submit_share(const struct engine_submit_stats *s)
{
	return s->latency_ns ? (double)s->in_submit_ns / (double)s->latency_ns : NAN;
}

void engine_submit_stats_pack(struct pack *p, const struct engine_submit_stats *s)
{
	pack_u64(p, s->sqes);
	pack_u64(p, s->in_submit_ns);
	pack_u64(p, s->latency_ns);
	pack_hist(p, &s->call_ns);
}

void engine_submit_stats_unpack(struct unpack *u, struct engine_submit_stats *s)
{
	s->sqes = unpack_u64(u);
	s->in_submit_ns = unpack_u64(u);
	s->latency_ns = unpack_u64(u);
	unpack_hist(u, &s->call_ns);
}
