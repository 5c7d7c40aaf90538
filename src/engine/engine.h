/* SPDX-License-Identifier: GPL-2.0-or-later */
/* I/O engines: how a workload's operations reach the kernel. The workload owns what to do,
 * offsets, timing and statistics; an engine only carries operations out. Engines are listed
 * once in engine.c's X-macro (a test may register more); `--engine NAME` picks one.
 *
 * Two interfaces, both in struct engine_ops.
 *
 * 1. One file's data path, synchronous (tiotest at depth 1):
 *   open   opens path with flags (O_RDWR etc. already chosen by the workload) and prepares a
 *          region [base, base+len) of it for I/O; 0 or -errno, the syscall that failed in *what.
 *          f->fd is a real descriptor afterwards (the workload ftruncates it, requests use it).
 *   rw     moves exactly len bytes at off (absolute); retries EINTR and short transfers;
 *          0 or -errno (a transfer that makes no progress is -EIO, a read past the end -ENODATA).
 *          NULL: the engine moves data through requests only.
 *   flush  makes the region durable (the end-of-phase fsync); 0 or -errno.
 *   close  releases everything open() took; 0 or -errno.
 *   psync's rw is not called through the pointer: engine_psync_rw() below is inlined into the
 *   op loop (the bench measures what an indirect call costs on a 1 us tmpfs pread).
 *
 * 2. Requests (struct engine_req), for data and metadata, with a queue depth. A worker makes
 *    one context (engine_ctx_init) with the depth it will keep in flight, and hands the engine
 *    CHAINS: a request and the ones linked after it by `next` (openat -> write -> fsync ->
 *    close is one chain). An engine implements either
 *   exec    (synchronous engines) runs one chain to completion before it returns; engine.c then
 *           provides submit and reap on top of it (completions come back in submit order);
 *   or submit + reap (asynchronous engines):
 *   submit  takes n chain heads; stamps submit_lat on every request of each chain; 0 or -errno
 *           (then nothing was submitted). The caller never has more than depth chains in flight.
 *   reap    waits until at least min chains have completed and returns up to max of their heads
 *           in out[]: their count, or -errno. Any order.
 *   init/exit  set up and release the engine's per-context state (ctx->priv); may be NULL.
 *
 * Request contract (what every engine guarantees, and what io_uring's linked requests give):
 *   - the requests of a chain run in order; each gets result (bytes moved, the new descriptor,
 *     or 0; -errno on failure) and done_lat. When one fails or moves fewer bytes than asked
 *     (a short read or write), the rest of the chain does not run: result -ECANCELED. A chain
 *     has completed when its last request completed or was cancelled.
 *   - submit_lat and done_lat are lat_now() values (core/clock.h): when the engine handed the
 *     request to the kernel (for a linked request: when its chain was submitted) and when it
 *     saw the completion. A chained op's own latency runs from the previous op's done_lat.
 *   - fd ENGINE_FD_CHAIN is the file the chain's openat opened. Descriptors that openat
 *     returns belong to the engine: pass them only to its requests (an io_uring engine may
 *     hand out direct descriptors).
 *   - off ENGINE_OFF_CUR reads or writes at the file position (read(2)/write(2)).
 *   - one syscall per request, short transfers included (the caller resubmits the rest, so
 *     each syscall is an op); a syscall interrupted by a signal is retried unless the run is
 *     stopping; a close interrupted by a signal has closed the file (Linux) and succeeds.
 *   - engines never print, never exit, and keep no state outside their context.
 *
 * Capabilities: caps says which requests an engine can do (ENGINE_DATA: read, write, fsync,
 * fdatasync on a file; ENGINE_META: the rest); max_depth 1 means synchronous. engine_select()
 * checks a workload's needs and the depth against them before anything runs.
 *
 * Submission time (struct engine_submit_stats): an asynchronous engine whose submit hands its
 * requests to the kernel in calls of its own (io_uring: io_uring_submit, an io_uring_enter
 * with entries to take, where the kernel may run a buffered transfer or a cached openat whole,
 * inline) sets submit_stats; every context then has ctx->submit, and the engine times each such
 * call with two lat_now() reads (not per request) and notes it with engine_submit_note(); each
 * request the calls handed over adds its latency, submit_lat to done_lat, when it completes
 * (engine_submit_done). Waiting for completions is not submission and is not counted. A
 * synchronous engine has no ctx->submit: its whole syscall is the request's latency. */
#ifndef FSB_ENGINE_H
#define FSB_ENGINE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <sys/syscall.h>

#include "core/hist.h"
#include "core/opt.h"

struct engine_file {
	int fd;
	char *map;               /* mmap engine: the mapped region */
	uint64_t map_base;       /* file offset of map[0] */
	uint64_t map_len;
	bool sync_each;          /* msync(MS_SYNC) after every op (tiotest -S with -M) */
	bool random;             /* access pattern hint for madvise */
	struct engine_ctx *ctx;  /* the context whose requests will use fd, or NULL: an engine
				  * may register the file there (io_uring: --io_uring-fixed, SQPOLL) */
};

enum engine_op {
	ENGINE_OP_READ,          /* fd, buf, len, off */
	ENGINE_OP_WRITE,         /* fd, buf, len, off */
	ENGINE_OP_FSYNC,         /* fd (a file or a directory) */
	ENGINE_OP_FDATASYNC,     /* fd */
	ENGINE_OP_OPENAT,        /* fd (directory), name, flags, mode: result is the new fd */
	ENGINE_OP_CLOSE,         /* fd */
	ENGINE_OP_FSETXATTR,     /* fd, name (attribute), buf, len (value), flags (XATTR_*) */
	ENGINE_OP_STATX,         /* fd (directory), name, flags (AT_*), mode (STATX_* mask), buf
				  * (struct statx) */
	ENGINE_OP_UNLINKAT,      /* fd (directory), name, flags (AT_REMOVEDIR) */
	ENGINE_OP_MKDIRAT,       /* fd (directory), name, mode */
	ENGINE_NOPS
};

#define ENGINE_FD_CHAIN INT_MIN          /* the file this chain's openat opened */
#define ENGINE_OFF_CUR UINT64_MAX        /* at the file position */

struct engine_req {
	enum engine_op op;
	int fd;                  /* file, directory (the *at ops) or ENGINE_FD_CHAIN */
	int flags;
	unsigned mode;
	const char *name;        /* path relative to fd, or the attribute name */
	void *buf;
	size_t len;
	uint64_t off;            /* absolute, or ENGINE_OFF_CUR */
	int64_t result;          /* bytes, new fd or 0; -errno; -ECANCELED: not run */
	uint64_t submit_lat;     /* lat_now() units */
	uint64_t done_lat;
	void *user;              /* the caller's */
	struct engine_req *next; /* the next request of the chain, NULL at its end */
};

enum engine_cap {
	ENGINE_DATA = 1u << 0,   /* read, write, fsync, fdatasync of a file */
	ENGINE_META = 1u << 1,   /* openat, close, fsetxattr, statx, unlinkat, mkdirat */
};

struct engine_ctx;
struct engine_opts;
struct engine_use;
struct engine_workers {
	uint64_t threads;
	double cpu_s;            /* user + system */
};

/* What an engine's submitting calls cost, per context (ctx->submit), summed per phase by the
 * workload and merged over threads and processes (engine_submit_stats_merge: exact, counts and
 * histogram buckets add up). In nanoseconds. */
struct engine_submit_stats {
	uint64_t sqes;           /* requests the calls handed to the kernel (what it said it took) */
	uint64_t in_submit_ns;   /* sum over the calls of duration x requests handed over: the
				  * requests' time inside the call that handed them over */
	uint64_t latency_ns;     /* sum of those requests' latencies, submit_lat to done_lat */
	struct hist call_ns;     /* each call's duration: count is the calls, sum their time */
};

/* Submission is negligible below this share of the requests' latency (1 %). */
#define ENGINE_SUBMIT_NEGLIGIBLE 0.01

struct engine_ops {
	const char *name;
	const char *summary;     /* one line, for `fsbench list engines` and the man page */
	unsigned caps;           /* enum engine_cap bits the request interface supports */
	unsigned max_depth;      /* requests in flight per context; 1: synchronous */
	bool hidden;             /* a test engine: found and listed only in the test build, with
				  * FSBENCH_TEST_ENGINES=1 */
	bool submit_stats;       /* times its submitting calls into ctx->submit (see above) */
	/* one file's data path */
	int (*open)(struct engine_file *f, const char *path, int flags, uint64_t base, uint64_t len,
		    const char **what);
	int (*rw)(struct engine_file *f, bool write, void *buf, size_t len, uint64_t off);
	int (*flush)(struct engine_file *f);
	int (*close)(struct engine_file *f);
	/* its own options (fio's per-engine options): a table (core/opt.h, long options only,
	 * flags and numbers: a config travels between processes as bytes) whose offsets are into
	 * a struct of options_size <= ENGINE_OPTS_PRIV bytes, options_defaults its values before
	 * parsing (NULL: zeros). Every workload with an engine accepts them; given with another
	 * engine they are bad input. The engine reads them with engine_options() (its check)
	 * and ctx->opts (its contexts). NULL: it has none */
	const struct opt *options;
	size_t options_size;
	const void *options_defaults;
	/* whether this system can run what the workload (u) asks with these options, before
	 * anything is created (after the workload's own checks): 0, or one line in err and
	 * -EINVAL (the options contradict what the workload does: exit 2) or -EOPNOTSUPP/-EPERM
	 * (cannot run here: exit 3); may be NULL */
	int (*check)(const struct engine_opts *e, const struct engine_use *u, char *err, size_t errlen);
	/* requests */
	int (*init)(struct engine_ctx *ctx);
	void (*exit)(struct engine_ctx *ctx);
	void (*exec)(struct engine_ctx *ctx, struct engine_req *head);
	int (*submit)(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n);
	int (*reap)(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max);
	/* the buffers the context's transfers will use lie in [base, base+len): an engine may
	 * register them (io_uring --io_uring-fixed); 0 or -errno; may be NULL */
	int (*buffers)(struct engine_ctx *ctx, void *base, size_t len);
	/* the kernel worker threads serving the calling thread's requests, live now (io_uring:
	 * io-wq's iou-wrk-TID): count and CPU seconds; called by the worker at the end of its
	 * phase; may be NULL (an engine without kernel workers) */
	void (*workers)(struct engine_ctx *ctx, struct engine_workers *out);
	/* the calling thread drives ctx from now on: an engine whose kernel state belongs to
	 * the thread that made it (io_uring's SINGLE_ISSUER rings) makes it again in this thread.
	 * Called by a phase's worker before the start barrier (outside the timed window), and
	 * by the engine itself when another thread submits; 0 or -errno; may be NULL */
	int (*attach)(struct engine_ctx *ctx);
	/* the flags the engine sets every context up with for options e on this system, as
	 * words for the JSON's config (io_uring: its rings' IORING_SETUP_* flags, without the
	 * prefix): their count, up to max into names; may be NULL (nothing to say) */
	unsigned (*setup_flags)(const struct engine_opts *e, const char **names, unsigned max);
	/* numbers the contexts are set up with for options e, as they are used (io_uring:
	 * spin_us, --io_uring-spin, 0 where the wait does not spin), for the JSON's config as
	 * engine_NAME: their count, up to max into names and values; may be NULL */
	unsigned (*setup_values)(const struct engine_opts *e, const char **names, uint64_t *values,
				 unsigned max);
};

/* A worker's context: used by one thread at a time. */
struct engine_ctx {
	const struct engine_ops *ops;
	unsigned depth;
	unsigned inflight;       /* chains submitted and not yet returned by engine_reap() */
	void *priv;              /* the engine's */
	/* completed heads not yet returned to the caller: a synchronous engine's chains (run at
	 * submit), and those engine_exec() reaped while waiting for its own */
	struct engine_req **ready;
	unsigned nready, ready_head;
	/* requests the engine handed to the kernel, by op (io_uring: ring operations, cancelled
	 * links included); counted by engines that keep it (0 otherwise), reset by the caller */
	uint64_t nops[ENGINE_NOPS];
	const void *opts;        /* the engine's own options (engine_opts.priv: engine_ctx_init_opts),
				  * NULL: its defaults (engine_ctx_init) */
	/* the engine's submitting calls (ops->submit_stats; NULL otherwise), allocated with the
	 * context; the engine adds, the caller takes and resets between phases */
	struct engine_submit_stats *submit;
};

/* Room for the selected engine's own options (engine_ops.options_size at most). */
#define ENGINE_OPTS_PRIV 64

/* The options every I/O workload shares (--engine, --iodepth: workload/run_opts.h declares
 * them once, with the OPT_GROUPS entry that stands for every engine's own options); a
 * workload's config embeds this as its member `eng`. */
struct engine_opts {
	const char *name;        /* --engine, NULL: not given */
	uint64_t iodepth;        /* --iodepth */
	const struct engine_ops *ops;    /* chosen by engine_select() */
	unsigned caps;           /* what the workload asked engine_select() for */
	bool data_path;
	/* the engines' options (core/opt.h's option groups, engine_opt_groups): which engine's
	 * values priv holds and which of its options the command line gave first; after
	 * engine_select(), the selected engine's */
	struct opt_group_state given;
	_Alignas(max_align_t) unsigned char priv[ENGINE_OPTS_PRIV];
};

/* What a workload does with its engine, for the engine's check: engine_select()'s caps and
 * data path, and what the workload's table declares (workload_checks, workload/workload.h). */
struct engine_use {
	const char *workload;    /* "tiotest", for messages */
	unsigned caps;
	bool data_path;          /* one file's data path (tiotest) */
	bool direct;             /* its transfers are O_DIRECT (the OPT_F_DIRECT option is set) */
	const char *direct_opt;  /* that option as the user writes it ("-X"), NULL: there is none */
	const char *const *targets;  /* where it works (workload_targets: devices as named, a
				      * missing directory's nearest existing parent) */
	unsigned ntargets;
};

/* The option groups every engine's options form (core/opt.h), for a workload's opt_cmd. */
extern const struct opt_groups engine_opt_groups;

extern const struct engine_ops engine_psync;
extern const struct engine_ops engine_mmap;
extern const struct engine_ops engine_io_uring;

/* ---- the registry ----------------------------------------------------------------------- */
/* The i-th engine (built-in, then registered), hidden ones included; NULL past the end. */
const struct engine_ops *engine_at(unsigned i);
/* By name; a hidden engine only in the test build with FSBENCH_TEST_ENGINES=1. NULL when unknown. */
const struct engine_ops *engine_find(const char *name);
/* Adds an engine (a test's); -EEXIST for a taken name, -ENOSPC when full, -EINVAL when it has
 * neither exec nor submit and reap. */
int engine_register(const struct engine_ops *e);
/* Visible: not a test engine, or the test build with FSBENCH_TEST_ENGINES=1. */
bool engine_usable(const struct engine_ops *e);
/* The values of e's engine's own options (its struct; engine_ops.options), after engine_select(). */
static inline const void *engine_options(const struct engine_opts *e)
{
	return e->priv;
}
/* The engine names --engine accepts, ", "-separated, into buf. */
void engine_names(char *buf, size_t len);
/* Resolves --engine/--iodepth for a workload that needs caps (and uses the data path when it
 * is tiotest: mmap_flag is its -M), in the workload's check. 0 with e->ops set and its own
 * options in e->priv, or -EINVAL with one line in err: an unknown name (the known ones
 * listed), -M contradicting --engine, an engine that cannot do what the workload needs, a
 * depth the engine cannot keep, another engine's option. */
int engine_select(struct engine_opts *e, const char *workload, unsigned caps, bool data_path,
		  bool mmap_flag, char *err, size_t errlen);
/* The selected engine's check (engine_ops.check) for what the workload does (u); called by
 * workload_checks() after the workload's own checks. 0, or its -errno with one line in err. */
int engine_check(const struct engine_opts *e, const struct engine_use *u, char *err, size_t errlen);
/* A request's operation, as error messages name it ("openat", "pwrite", ...). */
/* An op's name as the JSON's engine op counts name it ("openat", "write", ...). */
extern const char *const engine_op_key[ENGINE_NOPS];
const char *engine_op_name(const struct engine_req *r);

/* ---- requests --------------------------------------------------------------------------- */
int engine_ctx_init(struct engine_ctx *ctx, const struct engine_ops *ops, unsigned depth);
/* The same for the engine and its own options a workload's check chose (ctx->opts). */
int engine_ctx_init_opts(struct engine_ctx *ctx, const struct engine_opts *e, unsigned depth);
void engine_ctx_exit(struct engine_ctx *ctx);
/* The calling thread drives ctx from now on (ops->attach): 0 or -errno. */
int engine_ctx_attach(struct engine_ctx *ctx);

/* A context's ready ring (completed heads not yet returned): it holds at most
 * inflight <= depth heads (no division: a synchronous engine passes every chain through it). */
static inline void engine_ready_push(struct engine_ctx *ctx, struct engine_req *r)
{
	unsigned i = ctx->ready_head + ctx->nready;

	ctx->ready[i >= ctx->depth ? i - ctx->depth : i] = r;
	ctx->nready++;
}

static inline struct engine_req *engine_ready_pop(struct engine_ctx *ctx)
{
	struct engine_req *r = ctx->ready[ctx->ready_head];

	if (++ctx->ready_head == ctx->depth)
		ctx->ready_head = 0;
	ctx->nready--;
	return r;
}

/* Hands n chains to the engine: 0, or -errno with none of them in flight. Inline, as
 * engine_reap: the workloads' op loops call both for every request, and each call level
 * between a loop and io_uring_enter is one more return that the kernel's return-stack
 * refill makes mispredict after every context switch (bench/README.md, "Where fsbench's
 * io_uring depth-1 time goes"). */
static inline int engine_submit(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n)
{
	int rc;

	if (n > ctx->depth - ctx->inflight)
		return -EBUSY;
	if (ctx->ops->exec) {
		/* a synchronous engine: run now, hand back at reap, in order */
		for (unsigned i = 0; i < n; i++) {
			ctx->ops->exec(ctx, heads[i]);
			engine_ready_push(ctx, heads[i]);
		}
		ctx->inflight += n;
		return 0;
	}
	rc = ctx->ops->submit(ctx, heads, n);
	if (!rc)
		ctx->inflight += n;
	return rc;
}

/* Completed chains into out, at least min (waiting for them; never more than are in flight)
 * and at most max: their count, or -errno when the engine failed with none. */
static inline int engine_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max)
{
	unsigned got = 0;

	if (min > ctx->inflight)
		min = ctx->inflight;         /* never wait for what was not submitted */
	while (got < max && ctx->nready)
		out[got++] = engine_ready_pop(ctx);
	if (got < min && !ctx->ops->exec) {
		int n = ctx->ops->reap(ctx, out + got, min - got, max - got);

		if (n < 0 && !got)
			return n;
		if (n > 0)
			got += (unsigned)n;
	}
	ctx->inflight -= got;
	return (int)got;
}
/* The synchronous convenience path: runs one chain and waits for it, whatever else is in
 * flight (completions of other chains stay queued for engine_reap). 0, or -errno when the
 * engine itself failed; each request's outcome is in its result. */
int engine_exec(struct engine_ctx *ctx, struct engine_req *head);

/* One request, synchronously: its result (-errno on failure). */
static inline int64_t engine_exec1(struct engine_ctx *ctx, struct engine_req *r)
{
	int rc;

	r->next = NULL;
	rc = engine_exec(ctx, r);
	return rc ? rc : r->result;
}

static inline bool engine_req_rw(const struct engine_req *r)
{
	return r->op == ENGINE_OP_READ || r->op == ENGINE_OP_WRITE;
}

/* ---- submission time (struct engine_submit_stats) ---------------------------------------- */
void engine_submit_stats_init(struct engine_submit_stats *s);
/* dst += src: exact (sums and buckets add up, min and max kept). */
void engine_submit_stats_merge(struct engine_submit_stats *dst, const struct engine_submit_stats *src);
/* The requests' time inside submitting calls as a share of their latency: in_submit_ns /
 * latency_ns, in [0, 1] (each request's latency holds the call that handed it over); NAN when
 * no request completed (nothing to compare with). */
double engine_submit_share(const struct engine_submit_stats *s);
struct pack;
struct unpack;
void engine_submit_stats_pack(struct pack *p, const struct engine_submit_stats *s);
void engine_submit_stats_unpack(struct unpack *u, struct engine_submit_stats *s);

/* One submitting call of call_ns that handed n requests over (the engine's hot path: no
 * allocation, no clock read). */
static inline void engine_submit_note(struct engine_ctx *ctx, uint64_t call_ns, unsigned n)
{
	struct engine_submit_stats *s = ctx->submit;

	if (!s)
		return;
	hist_record(&s->call_ns, call_ns);
	s->sqes += n;
	s->in_submit_ns += call_ns * n;
}

/* A request those calls handed over has completed, lat_ns after its submit_lat. */
static inline void engine_submit_done(struct engine_ctx *ctx, uint64_t lat_ns)
{
	if (ctx->submit)
		ctx->submit->latency_ns += lat_ns;
}

/* ---- psync: the request executor every fd-based engine can use ---------------------------- */
/* Runs r's syscall (chain_fd stands for ENGINE_FD_CHAIN); sets r->result. No timestamps. */
void engine_psync_do(struct engine_req *r, int chain_fd);
/* Runs a chain in order per the contract, stamping submit_lat (with stamp_submit) and done_lat
 * with one clock read between two requests. */
void engine_psync_chain(struct engine_req *head, bool stamp_submit);
/* The data path of an ordinary descriptor (psync's open, flush and close hooks). */
int engine_fd_open(struct engine_file *f, const char *path, int flags, uint64_t base, uint64_t len,
		   const char **what);
int engine_fd_flush(struct engine_file *f);
int engine_fd_close(struct engine_file *f);

/* The short-transfer and EINTR loop every fd-based engine uses. */
int engine_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);
int engine_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* The psync transfer, inlined into a workload's op loop: on tmpfs a pread is ~1.2 us and
 * every call and wrapper in front of it shows in the rate. One raw syscall on x86-64 (no
 * libc wrapper, no cancellation point: fsbench never cancels threads); a short or failed
 * transfer falls back to the full loop above. */
static inline long engine_raw_prw(long nr, int fd, const void *buf, size_t len, uint64_t off)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = (long)off;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"((long)fd), "S"(buf), "d"(len), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return -1;               /* not reached: the fallback below takes it */
#endif
}

static inline int engine_psync_rw(int fd, bool write, void *buf, size_t len, uint64_t off)
{
#if defined(__x86_64__)
	long n = engine_raw_prw(write ? SYS_pwrite64 : SYS_pread64, fd, buf, len, off);

	if (__builtin_expect(n == (long)len, 1))
		return 0;
	if (n < 0 && n != -EINTR)
		return (int)n;
	if (n > 0) {
		/* a short transfer: the rest goes through the loop */
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
#endif
	return write ? engine_pwrite_full(fd, buf, len, off) : engine_pread_full(fd, buf, len, off);
}
#endif
