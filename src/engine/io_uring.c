/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_uring: every request through one ring per context (liburing), chains as IOSQE_IO_LINK,
 * up to --iodepth chains in flight. Files a chain opens are direct descriptors: the engine
 * picks a slot of a sparse registered file table at submit time, the openat installs the file
 * there and the rest of the chain uses it with IOSQE_FIXED_FILE, so a whole create chain
 * (openat -> writes -> fsync -> close) goes to the kernel in one submission. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "core/clock.h"
#include "core/testhook.h"
#include "sys/blockdev.h"

/* The engine's own options (engine_ops.options): --engine io_uring only. */
struct uring_opts {
	bool sqpoll; /* --io_uring-sqpoll: a kernel thread polls the submission queue */
	bool fixed;  /* --io_uring-fixed: registered files and buffers */
	bool hipri;  /* --hipri: polled completion (IORING_SETUP_IOPOLL), O_DIRECT only */
};

static const struct uring_opts uring_defaults;

#define UO(x) offsetof(struct uring_opts, x)
static const struct opt uring_options[] = {
	{ 0, "io_uring-sqpoll", OPT_FLAG, UO(sqpoll), NULL, 0, 0, 0, 0,
	  "a kernel thread per ring polls the submission queue (IORING_SETUP_SQPOLL), so "
	  "submitting needs no system call" },
	{ 0, "io_uring-fixed", OPT_FLAG, UO(fixed), NULL, 0, 0, 0, 0,
	  "tiotest's file and buffers registered with the ring (IOSQE_FIXED_FILE, "
	  "READ_FIXED/WRITE_FIXED); fs_mark's files are direct descriptors anyway" },
	{ 0, "hipri", OPT_FLAG, UO(hipri), NULL, 0, 0, 0, 0,
	  "polled completion (IORING_SETUP_IOPOLL) for O_DIRECT transfers (tiotest -X), on a "
	  "device with poll queues (exit 3 otherwise); the end-of-phase fsync is then a system call" },
	{ 0 },
};
#undef UO

/* a context's options: the workload's (engine_ctx_init_opts), or the defaults */
static inline const struct uring_opts *uring_opts(const struct engine_ctx *ctx)
{
	return ctx->opts ? ctx->opts : &uring_defaults;
}

/* A direct descriptor as the workloads see it: ENGINE_URING_DIRECT + its table slot. Real
 * descriptors stay below (RLIMIT_NOFILE is far lower on any system fsbench runs on). */
#define ENGINE_URING_DIRECT (1 << 30)
#define URING_CHAIN_MAX 64           /* requests of one chain: fs_mark's longest is 21 */

struct uchain {
	struct engine_req *head;
	unsigned left;           /* completions still to come */
};

struct uring {
	struct io_uring ring;
	unsigned sq_entries;
	struct uchain *chains;   /* ctx->depth of them */
	unsigned *free_chain, nfree_chain;
	unsigned *free_file, nfree_file, nfiles;  /* the registered table's free slots */
	struct engine_req **done;  /* completed chain heads not yet handed out */
	unsigned ndone, done_head;
	/* ordinary descriptors registered in the table (--io_uring-fixed, SQPOLL): tiotest's file */
	struct { int fd; unsigned slot; } reg[4];
	unsigned nreg;
	char *buf_base;          /* registered buffer (--io_uring-fixed), index 0 */
	size_t buf_len;
};

/* What each operation is in a ring, and the kernel that brings it (IORING_OP_*). */
static const struct {
	int opcode;
	const char *name, *since;
} uop[ENGINE_NOPS] = {
	[ENGINE_OP_READ] = { IORING_OP_READ, "READ", "5.6" },
	[ENGINE_OP_WRITE] = { IORING_OP_WRITE, "WRITE", "5.6" },
	[ENGINE_OP_FSYNC] = { IORING_OP_FSYNC, "FSYNC", "5.1" },
	[ENGINE_OP_FDATASYNC] = { IORING_OP_FSYNC, "FSYNC", "5.1" },
	[ENGINE_OP_OPENAT] = { IORING_OP_OPENAT, "OPENAT", "5.15 (direct descriptors)" },
	[ENGINE_OP_CLOSE] = { IORING_OP_CLOSE, "CLOSE", "5.15 (direct descriptors)" },
	[ENGINE_OP_FSETXATTR] = { IORING_OP_FSETXATTR, "FSETXATTR", "5.19" },
	[ENGINE_OP_STATX] = { IORING_OP_STATX, "STATX", "5.6" },
	[ENGINE_OP_UNLINKAT] = { IORING_OP_UNLINKAT, "UNLINKAT", "5.11" },
	[ENGINE_OP_MKDIRAT] = { IORING_OP_MKDIRAT, "MKDIRAT", "5.15" },
};

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static void kernel_release(char *buf, size_t len)
{
	struct utsname u;

	snprintf(buf, len, "%s", uname(&u) ? "?" : u.release);
}

/* Whether this kernel can run what a workload needs (caps), once, before anything is created:
 * io_uring itself, each opcode (the probe), and for metadata the sparse file table that the
 * direct descriptors live in. FSBENCH_URING_MISSING=OP (the test build only, core/testhook.h) makes the probe say OP is
 * absent, so the refusal can be tested on a kernel that has everything. */
static int uring_kernel_check(const struct uring_opts *o, unsigned caps, char *err, size_t errlen)
{
	struct io_uring ring;
	struct io_uring_probe *probe;
	const char *hide = testhook_env("FSBENCH_URING_MISSING");
	char rel[128];
	int rc;

	kernel_release(rel, sizeof(rel));
	rc = io_uring_queue_init(4, &ring, 0);
	if (rc == -ENOSYS) {
		snprintf(err, errlen, "the io_uring engine: this kernel (%s) has no io_uring "
			 "(io_uring_setup: %s; Linux 5.1 with CONFIG_IO_URING brings it)", rel, strerror(-rc));
		return -EOPNOTSUPP;
	}
	if (rc == -EPERM) {
		FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		int v = -1;

		if (f) {
			if (fscanf(f, "%d", &v) != 1)
				v = -1;
			fclose(f);
		}
		if (v > 0)
			snprintf(err, errlen, "the io_uring engine: io_uring is disabled on this system "
				 "(sysctl kernel.io_uring_disabled = %d; 0 enables it)", v);
		else
			snprintf(err, errlen, "the io_uring engine: io_uring_setup: %s", strerror(-rc));
		return -EPERM;
	}
	if (rc) {
		snprintf(err, errlen, "the io_uring engine: io_uring_setup: %s", strerror(-rc));
		return rc == -ENOMEM ? -ENOMEM : -EOPNOTSUPP;
	}
	probe = io_uring_get_probe_ring(&ring);
	for (int op = 0; op < ENGINE_NOPS; op++) {
		bool need = (op <= ENGINE_OP_FDATASYNC) ? (caps & ENGINE_DATA) : (caps & ENGINE_META);
		bool hidden = hide && !strcasecmp(hide, uop[op].name);

		if (!need)
			continue;
		if (!probe || hidden || !io_uring_opcode_supported(probe, uop[op].opcode)) {
			snprintf(err, errlen, "the io_uring engine needs IORING_OP_%s (Linux %s); this "
				 "kernel (%s) does not have it", uop[op].name, uop[op].since, rel);
			rc = -EOPNOTSUPP;
			goto out;
		}
	}
	if ((caps & ENGINE_META) &&
	    ((hide && !strcasecmp(hide, "SPARSE")) || (rc = io_uring_register_files_sparse(&ring, 1)))) {
		snprintf(err, errlen, "the io_uring engine needs sparse registered file tables for "
			 "direct descriptors (Linux 5.19); this kernel (%s) does not have them", rel);
		rc = -EOPNOTSUPP;
		goto out;
	}
	if (o->sqpoll) {
		/* unprivileged since 5.11; before, it needs CAP_SYS_ADMIN */
		struct io_uring sq;
		struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 50 };

		rc = (hide && !strcasecmp(hide, "SQPOLL")) ? -EPERM : io_uring_queue_init_params(4, &sq, &p);
		if (rc) {
			snprintf(err, errlen, "option --io_uring-sqpoll: this kernel (%s) refuses a "
				 "submission queue polling thread (IORING_SETUP_SQPOLL: %s; unprivileged "
				 "since Linux 5.11)", rel, strerror(-rc));
			rc = -EOPNOTSUPP;
			goto out;
		}
		io_uring_queue_exit(&sq);
	}
out:
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	return rc;
}

/* --hipri: polled completion needs O_DIRECT transfers and, under every target, a device that
 * polls (queue/io_poll 1: NVMe with poll queues); anything else is refused before the run */
static int hipri_check(const struct engine_use *u, char *err, size_t errlen)
{
	if (!u->data_path || (!u->direct && !u->direct_opt)) {
		snprintf(err, errlen,
			 "option --hipri: polled completion is for O_DIRECT reads and "
			 "writes, which %s does not do",
			 u->workload);
		return -EINVAL;
	}
	if (!u->direct) {
		snprintf(err, errlen, "option --hipri: polled completion is for O_DIRECT transfers (add %s)",
			 u->direct_opt);
		return -EINVAL;
	}
	for (unsigned i = 0; i < u->ntargets; i++) {
		struct blockdev b;
		char p[PATH_MAX], v[8] = "";
		FILE *f;

		if (blockdev_resolve(u->targets[i], &b))
			continue; /* the workload's checks say why */
		if (b.kind == BLOCKDEV_NONE) {
			snprintf(err, errlen,
				 "option --hipri: '%s' is on %s, not on a block device: polled "
				 "completion needs a device with poll queues (NVMe: nvme.poll_queues)",
				 u->targets[i],
				 b.mount_known ? b.mount.fstype : "a filesystem without a device");
			return -EOPNOTSUPP;
		}
		snprintf(p, sizeof(p), "/sys/block/%s/queue/io_poll", b.disk);
		if ((f = fopen(p, "r"))) {
			if (!fgets(v, sizeof(v), f))
				v[0] = '\0';
			fclose(f);
		}
		if (v[0] != '1') {
			snprintf(err, errlen,
				 "option --hipri: device %s does not support polled I/O (%s is %s; "
				 "Linux polls NVMe devices with poll queues, nvme.poll_queues)",
				 b.disk, p, v[0] ? (v[strcspn(v, "\n")] = '\0', v) : "missing");
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* The options against what the workload does (exit 2), then the kernel (exit 3), then --hipri's
 * devices (exit 3). */
static int uring_check(const struct engine_opts *e, const struct engine_use *u, char *err, size_t errlen)
{
	const struct uring_opts *o = engine_options(e);
	int rc;

	if (o->hipri && !(u->data_path && u->direct) && (rc = hipri_check(u, err, errlen)))
		return rc;
	if ((rc = uring_kernel_check(o, u->caps, err, errlen)))
		return rc;
	return o->hipri ? hipri_check(u, err, errlen) : 0;
}

static void uring_exit(struct engine_ctx *ctx)
{
	struct uring *u = ctx->priv;

	if (!u)
		return;
	if (u->sq_entries)
		io_uring_queue_exit(&u->ring);
	free(u->chains);
	free(u->free_chain);
	free(u->free_file);
	free(u->done);
	free(u);
	ctx->priv = NULL;
}

static int uring_init(struct engine_ctx *ctx)
{
	struct io_uring_params p = { 0 };
	struct uring *u = calloc(1, sizeof(*u));
	unsigned depth = ctx->depth, sq;
	struct rlimit rl;
	int rc;

	if (!u)
		return -ENOMEM;
	ctx->priv = u;
	u->chains = calloc(depth, sizeof(*u->chains));
	u->free_chain = calloc(depth, sizeof(*u->free_chain));
	u->done = calloc(depth, sizeof(*u->done));
	/* every file a chain keeps open holds a slot until its close: depth of them, and a few
	 * for the one-request paths; the kernel caps a table at RLIMIT_NOFILE */
	u->nfiles = depth + 16;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && u->nfiles > rl.rlim_cur)
		u->nfiles = (unsigned)rl.rlim_cur;
	u->free_file = calloc(u->nfiles, sizeof(*u->free_file));
	if (!u->chains || !u->free_chain || !u->done || !u->free_file) {
		uring_exit(ctx);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < depth; i++)
		u->free_chain[u->nfree_chain++] = depth - 1 - i;
	for (unsigned i = 0; i < u->nfiles; i++)
		u->free_file[u->nfree_file++] = u->nfiles - 1 - i;
	/* room for a few whole chains at once; completions beyond the CQ ring wait in the
	 * kernel's overflow list (IORING_FEAT_NODROP), never lost */
	sq = pow2_at_least(depth < 16 ? 64 : depth * 4);
	if (sq > 4096)
		sq = 4096;
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = sq * 4;
	if (uring_opts(ctx)->sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 50;   /* ms the thread spins before it sleeps */
	}
	if (uring_opts(ctx)->hipri)
		p.flags |= IORING_SETUP_IOPOLL;
	/* Completions that need the submitting thread (task work: a buffered read finishing, an
	 * io-wq punt coming back) run when the thread enters the kernel anyway, to wait, instead
	 * of through an interrupt that stops it in user space (Linux 5.19; fio sets its rings up
	 * so too). Each of fsbench's rings is driven by one thread at a time, which always waits
	 * in io_uring_enter for what it reaps. Without it: half the rate or less at depth 8 on
	 * tmpfs here. Older kernels refuse the flag: the ring is made without it. */
	{
		struct io_uring_params p0 = p;

		p.flags |= IORING_SETUP_COOP_TASKRUN;
		rc = io_uring_queue_init_params(sq, &u->ring, &p);
		if (rc == -EINVAL) {
			p = p0;
			rc = io_uring_queue_init_params(sq, &u->ring, &p);
		}
	}
	if (rc) {
		uring_exit(ctx);
		return rc;
	}
	u->sq_entries = sq;
	/* the direct descriptors' table (uring_check made sure the kernel has it) */
	rc = io_uring_register_files_sparse(&u->ring, u->nfiles);
	if (rc) {
		uring_exit(ctx);
		return rc;
	}
	return 0;
}

static inline void fd_of(const struct engine_req *r, int chain_slot, int *fd, bool *fixed)
{
	int v = r->fd == ENGINE_FD_CHAIN ? ENGINE_URING_DIRECT + chain_slot : r->fd;

	*fixed = v >= ENGINE_URING_DIRECT;
	*fd = *fixed ? v - ENGINE_URING_DIRECT : v;
}

static inline bool in_bufs(const struct uring *u, const struct engine_req *r)
{
	return u->buf_len && (char *)r->buf >= u->buf_base &&
	       (char *)r->buf + r->len <= u->buf_base + u->buf_len;
}

/* one request into sqe; file_slot: the slot its openat installs into */
static void prep(struct uring *u, struct io_uring_sqe *sqe, struct engine_req *r, int chain_slot,
		 int file_slot)
{
	int fd;
	bool fixed;
	/* ENGINE_OFF_CUR is UINT64_MAX: -1 in the SQE, the file position (IORING_FEAT_RW_CUR_POS) */
	const uint64_t off = r->off;

	fd_of(r, chain_slot, &fd, &fixed);
	/* a registered ordinary descriptor: its slot */
	for (unsigned i = 0; !fixed && i < u->nreg && r->op <= ENGINE_OP_FDATASYNC; i++)
		if (u->reg[i].fd == fd) {
			fd = (int)u->reg[i].slot;
			fixed = true;
		}
	switch (r->op) {
	case ENGINE_OP_READ:
		if (in_bufs(u, r))
			io_uring_prep_read_fixed(sqe, fd, r->buf, (unsigned)r->len, off, 0);
		else
			io_uring_prep_read(sqe, fd, r->buf, (unsigned)r->len, off);
		break;
	case ENGINE_OP_WRITE:
		if (in_bufs(u, r))
			io_uring_prep_write_fixed(sqe, fd, r->buf, (unsigned)r->len, off, 0);
		else
			io_uring_prep_write(sqe, fd, r->buf, (unsigned)r->len, off);
		break;
	case ENGINE_OP_FSYNC:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	case ENGINE_OP_FDATASYNC:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	case ENGINE_OP_OPENAT:
		/* a direct descriptor has no close-on-exec flag (the kernel refuses it) */
		io_uring_prep_openat_direct(sqe, fd, r->name, r->flags & ~O_CLOEXEC, r->mode,
					    (unsigned)file_slot);
		fixed = false;           /* the directory is an ordinary descriptor */
		break;
	case ENGINE_OP_CLOSE:
		if (fixed) {
			io_uring_prep_close_direct(sqe, (unsigned)fd);
			fixed = false;
		} else {
			io_uring_prep_close(sqe, fd);
		}
		break;
	case ENGINE_OP_FSETXATTR:
		io_uring_prep_fsetxattr(sqe, fd, r->name, r->buf, r->flags, (unsigned)r->len);
		break;
	case ENGINE_OP_STATX:
		io_uring_prep_statx(sqe, fd, r->name, r->flags, r->mode, r->buf);
		break;
	case ENGINE_OP_UNLINKAT:
		io_uring_prep_unlinkat(sqe, fd, r->name, r->flags);
		break;
	case ENGINE_OP_MKDIRAT:
		io_uring_prep_mkdirat(sqe, fd, r->name, (mode_t)r->mode);
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
}

static void done_push(struct uring *u, unsigned depth, struct engine_req *r)
{
	unsigned i = u->done_head + u->ndone;

	u->done[i >= depth ? i - depth : i] = r;
	u->ndone++;
}

/* Every io_uring_submit is timed (engine.h: submission time): the entries go to the kernel in
 * io_uring_enter, which runs what it can inline before it returns (a page-cache read, a cached
 * openat), so for buffered I/O this is where the work happens; with SQPOLL it is a store and, when
 * the polling thread sleeps, a wake-up. Two clock reads per call, whatever the entries. Waiting
 * (io_uring_wait_cqe in reap, io_uring_sqring_wait for room) never submits and is not counted. */
static int submit_timed(struct engine_ctx *ctx, struct uring *u)
{
	uint64_t t0 = lat_now();
	int rc = io_uring_submit(&u->ring);

	engine_submit_note(ctx, lat_ns(lat_now() - t0), rc > 0 ? (unsigned)rc : 0);
	return rc;
}

static int uring_submit(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n)
{
	struct uring *u = ctx->priv;
	unsigned opens = 0;
	uint64_t now;
	int rc;

	/* all or nothing: chains, file slots and SQ room checked before the first SQE */
	if (n > u->nfree_chain)
		return -EBUSY;
	for (unsigned i = 0; i < n; i++) {
		unsigned len = 0;

		for (struct engine_req *r = heads[i]; r; r = r->next, len++)
			if (r->op == ENGINE_OP_OPENAT)
				opens++;
		if (len > URING_CHAIN_MAX || len > u->sq_entries)
			return -E2BIG;
	}
	if (opens > u->nfree_file)
		return -ENFILE;
	now = lat_now();
	for (unsigned i = 0; i < n; i++) {
		unsigned ci, pos = 0;
		struct uchain *c;
		int chain_slot = -1;

		/* an IOPOLL ring takes only O_DIRECT reads and writes: any other chain (tiotest's
		 * end-of-phase fsync) runs as system calls, completed at once */
		if (uring_opts(ctx)->hipri && !(engine_req_rw(heads[i]) && !heads[i]->next)) {
			engine_psync_chain(heads[i], true);
			done_push(u, ctx->depth, heads[i]);
			continue;
		}
		ci = u->free_chain[--u->nfree_chain];
		c = &u->chains[ci];

		c->head = heads[i];
		c->left = 0;
		for (struct engine_req *r = heads[i]; r; r = r->next)
			c->left++;
		/* a chain goes to the kernel whole: a link cut at the end of a submission would
		 * run its second half unlinked */
		if (io_uring_sq_space_left(&u->ring) < c->left) {
			submit_timed(ctx, u);
			/* SQPOLL: the polling thread frees the room as it takes the entries */
			while (uring_opts(ctx)->sqpoll && io_uring_sq_space_left(&u->ring) < c->left)
				io_uring_sqring_wait(&u->ring);
		}
		for (struct engine_req *r = heads[i]; r; r = r->next, pos++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
			int file_slot = -1;

			if (r->op == ENGINE_OP_OPENAT) {
				file_slot = (int)u->free_file[--u->nfree_file];
				chain_slot = file_slot;
			}
			/* an openat's slot rides in the request's result until it completes */
			r->result = file_slot;
			r->submit_lat = now;
			prep(u, sqe, r, chain_slot, file_slot);
			io_uring_sqe_set_data64(sqe, (uint64_t)ci << 32 | pos);
			if (r->next)
				sqe->flags |= IOSQE_IO_LINK;
			ctx->nops[r->op]++;
		}
	}
	/* the SQEs are in the ring: the kernel takes them whatever happens here (a failure of
	 * the enter itself is retried at the next submit, or by the reap before it waits) */
	do
		rc = submit_timed(ctx, u);
	while (rc == -EINTR);
	return 0;
}

/* one completion: its request's result, and its chain's when it was the last */
static void complete(struct engine_ctx *ctx, struct uring *u, uint64_t data, int res, uint64_t now)
{
	struct uchain *c = &u->chains[data >> 32];
	struct engine_req *r = c->head;

	for (unsigned pos = (unsigned)data; pos; pos--)
		r = r->next;
	if (r->op == ENGINE_OP_OPENAT) {
		int slot = (int)r->result;

		if (res < 0)
			u->free_file[u->nfree_file++] = (unsigned)slot;
		else
			res = ENGINE_URING_DIRECT + slot;
	} else if (r->op == ENGINE_OP_CLOSE && r->fd != ENGINE_FD_CHAIN && r->fd >= ENGINE_URING_DIRECT &&
		   res != -ECANCELED) {
		u->free_file[u->nfree_file++] = (unsigned)(r->fd - ENGINE_URING_DIRECT);
	} else if (r->op == ENGINE_OP_CLOSE && r->fd == ENGINE_FD_CHAIN && res != -ECANCELED) {
		/* the chain's own file: the slot its openat took */
		struct engine_req *o = c->head;

		while (o && o->op != ENGINE_OP_OPENAT)
			o = o->next;
		if (o && o->result >= ENGINE_URING_DIRECT)
			u->free_file[u->nfree_file++] = (unsigned)(o->result - ENGINE_URING_DIRECT);
	}
	/* Linux has released a descriptor even when its close was interrupted */
	if (res == -EINTR && r->op == ENGINE_OP_CLOSE)
		res = 0;
	r->result = res;
	r->done_lat = now;
	engine_submit_done(ctx, lat_ns(now - r->submit_lat));
	if (--c->left == 0) {
		done_push(u, ctx->depth, c->head);
		u->free_chain[u->nfree_chain++] = (unsigned)(data >> 32);
	}
}

static int uring_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max)
{
	struct uring *u = ctx->priv;
	unsigned got = 0;

	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;
		uint64_t now;

		while (got < max && u->ndone) {
			out[got++] = u->done[u->done_head];
			if (++u->done_head == ctx->depth)
				u->done_head = 0;
			u->ndone--;
		}
		if (got >= min || got == max)
			return (int)got;
		if (io_uring_cq_ready(&u->ring) == 0) {
			struct __kernel_timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };
			int rc;

			/* entries an enter that failed (EAGAIN, EBUSY) left in the ring: handed over
			 * now; when the kernel still takes none, completions are awaited for a
			 * millisecond at most and the enter tried again (waiting for entries nobody
			 * submitted would wait for ever) */
			if (!uring_opts(ctx)->sqpoll && io_uring_sq_ready(&u->ring)) {
				rc = submit_timed(ctx, u);
				if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
					return got ? (int)got : rc;
			}
			if (!uring_opts(ctx)->sqpoll && io_uring_sq_ready(&u->ring))
				rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ms);
			else
				rc = io_uring_wait_cqe(&u->ring, &cqe);

			/* a signal: the requests are still in flight, and the caller reaps them
			 * even when stopping, so wait on */
			if (rc == -EINTR || rc == -EAGAIN || rc == -ETIME)
				continue;
			if (rc)
				return got ? (int)got : rc;
		}
		now = lat_now();
		io_uring_for_each_cqe(&u->ring, head, cqe) {
			complete(ctx, u, cqe->user_data, cqe->res, now);
			seen++;
		}
		io_uring_cq_advance(&u->ring, seen);
	}
}

/* The data path's open and close (tiotest): ordinary descriptors, registered in the ring's
 * table with --io_uring-fixed, and always with SQPOLL: the polling thread resolves descriptors
 * in the table of the thread that made the ring, not in the worker's private one (core/run.c
 * unshares it), so an unregistered descriptor there is another file or none. */
static int uring_open(struct engine_file *f, const char *path, int flags, uint64_t base, uint64_t len,
		      const char **what)
{
	struct engine_ctx *ctx = f->ctx;
	struct uring *u = ctx ? ctx->priv : NULL;
	unsigned slot;
	int rc = engine_fd_open(f, path, flags, base, len, what);

	if (rc || !u || !(uring_opts(ctx)->fixed || uring_opts(ctx)->sqpoll))
		return rc;
	if (u->nreg == sizeof(u->reg) / sizeof(u->reg[0]) || !u->nfree_file) {
		rc = -EMFILE;
	} else {
		slot = u->free_file[--u->nfree_file];
		rc = io_uring_register_files_update(&u->ring, slot, &f->fd, 1);
		if (rc == 1) {
			u->reg[u->nreg].fd = f->fd;
			u->reg[u->nreg++].slot = slot;
			return 0;
		}
		u->free_file[u->nfree_file++] = slot;
		rc = rc < 0 ? rc : -EIO;
	}
	*what = "io_uring_register_files_update";
	engine_fd_close(f);
	return rc;
}

static int uring_close(struct engine_file *f)
{
	struct uring *u = f->ctx ? f->ctx->priv : NULL;

	for (unsigned i = 0; u && i < u->nreg; i++)
		if (u->reg[i].fd == f->fd) {
			int none = -1;

			io_uring_register_files_update(&u->ring, u->reg[i].slot, &none, 1);
			u->free_file[u->nfree_file++] = u->reg[i].slot;
			u->reg[i] = u->reg[--u->nreg];
			break;
		}
	return engine_fd_close(f);
}

static int uring_buffers(struct engine_ctx *ctx, void *base, size_t len)
{
	struct uring *u = ctx->priv;
	struct iovec iov = { .iov_base = base, .iov_len = len };
	int rc;

	if (!uring_opts(ctx)->fixed || !u)
		return 0;
	rc = io_uring_register_buffers(&u->ring, &iov, 1);
	if (rc)
		return rc;
	u->buf_base = base;
	u->buf_len = len;
	return 0;
}

/* io-wq: the kernel names the workers it starts for a task iou-wrk-TID, and they are threads
 * of this process, so /proc/self/task lists them with their CPU (utime, stime: fields 14, 15
 * of stat). A worker that went idle and exited before this call is not counted (io-wq lets an
 * idle worker go after a few seconds; the phase's own worker threads go at its end). */
static void uring_workers(struct engine_ctx *ctx, struct engine_workers *out)
{
	char want[32], path[300], buf[512];
	const double hz = (double)sysconf(_SC_CLK_TCK);
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (!d)
		return;
	snprintf(want, sizeof(want), "iou-wrk-%ld", (long)gettid());
	while ((de = readdir(d))) {
		FILE *f;
		char *p;
		unsigned long ut = 0, st = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* pid (comm) state ...: comm may hold spaces and parentheses, so up to the last ')' */
		{
			char *open = p ? strchr(buf, '(') : NULL;

			if (!open || !(p = strrchr(buf, ')')) || (size_t)(p - open - 1) != strlen(want) ||
			    strncmp(open + 1, want, strlen(want)))
				continue;
		}
		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2) {
			out->threads++;
			out->cpu_s += (double)(ut + st) / hz;
		}
	}
	closedir(d);
}

const struct engine_ops engine_io_uring = {
	.name = "io_uring",
	.summary = "every operation as an io_uring request (liburing): read/write, fsync, and openat, "
		   "close, statx, unlinkat, mkdirat, fsetxattr; chains as linked requests on direct "
		   "descriptors; --iodepth chains in flight",
	.caps = ENGINE_DATA | ENGINE_META,
	.max_depth = 4096,
	.submit_stats = true,
	.open = uring_open,
	.flush = engine_fd_flush,
	.close = uring_close,
	.options = uring_options,
	.options_size = sizeof(struct uring_opts),
	.options_defaults = &uring_defaults,
	.check = uring_check,
	.init = uring_init,
	.exit = uring_exit,
	.submit = uring_submit,
	.reap = uring_reap,
	.buffers = uring_buffers,
	.workers = uring_workers,
};
