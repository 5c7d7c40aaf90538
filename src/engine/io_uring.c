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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "core/clock.h"
#include "core/hot.h"
#include "core/testhook.h"
#include "sys/blockdev.h"

/* The engine's own options (engine_ops.options): --engine io_uring only. */
struct uring_opts {
	bool sqpoll; /* --io_uring-sqpoll: a kernel thread polls the submission queue */
	bool fixed;  /* --io_uring-fixed: registered files and buffers */
	bool hipri;  /* --hipri: polled completion (IORING_SETUP_IOPOLL), O_DIRECT only */
	uint64_t spin_us; /* --io_uring-spin: look for completions this long before sleeping */
};

/* the default of --io_uring-spin, and why 0: bench/README.md, uring.sh, "--io_uring-spin" */
#define URING_SPIN_US	  0
#define URING_SPIN_MAX_US 1000
static const struct uring_opts uring_defaults = { .spin_us = URING_SPIN_US };

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
	{ 0, "io_uring-spin", OPT_UINT, UO(spin_us), "USEC", 0, URING_SPIN_MAX_US, 0, 0,
	  "before sleeping for a completion, look for one for up to USEC microseconds (0: sleep "
	  "at once; not with --hipri, whose wait polls)" },
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
	bool live;	/* ring made (and not yet torn down) */
	uint64_t owner; /* the thread that made it (uring_self) */
	unsigned setup; /* its IORING_SETUP_* flags, the same for every ring of ctx */
	bool getevents; /* submit with IORING_ENTER_GETEVENTS (submit_timed) */
	uint64_t spin_ns; /* --io_uring-spin as used (uring_spin_used): 0, no spin */
	unsigned sq_entries;
	/* the last submitting call's end and the completions ready right after it: those
	 * completed inside it, and are stamped with its end rather than a clock read each */
	uint64_t enter_end;
	unsigned cq_at_enter;
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

/* Which thread this is, for the rings' owner: a number given the first time a thread asks,
 * never reused (a pthread_t or a thread's TLS address is, once the thread is gone). */
static uint64_t uring_self(void)
{
	static atomic_uint_fast64_t last;
	static __thread uint64_t me;

	if (__builtin_expect(!me, 0))
		me = atomic_fetch_add(&last, 1) + 1;
	return me;
}

/* How a completion reaches the thread that submitted: the most efficient way the kernel has,
 * first that it takes. SINGLE_ISSUER|DEFER_TASKRUN (Linux 6.1): the work that finishes a
 * request runs only when that thread enters the kernel to collect completions, never through
 * an interrupt, and the ring skips its locking; the ring must be made and driven by one thread
 * (uring_attach), and that thread must enter with GETEVENTS for what it waits for (uring_reap
 * does: it waits in the kernel whenever the completion queue is empty). COOP_TASKRUN (5.19):
 * the same work runs when the thread enters the kernel anyway. With SQPOLL the polling thread
 * submits and runs that work: DEFER_TASKRUN is refused there, and so is COOP_TASKRUN by recent
 * kernels (6.18 here), so such a ring takes SINGLE_ISSUER alone (6.0) where the kernel has it.
 * Without any, buffered 4 KiB reads on tmpfs at depth 8 ran at half the rate or less;
 * DEFER_TASKRUN took a bare loop from 0.76 s to 0.55 s of CPU against COOP_TASKRUN for the
 * same reads. FSBENCH_URING_MISSING (the test build) names a flag to treat as absent, and
 * with it every flag that came later (DEFER_TASKRUN 6.1, SINGLE_ISSUER 6.0, COOP_TASKRUN
 * 5.19), as an older kernel would, so the whole fallback can be tested here. */
static const struct {
	unsigned flags;
	unsigned since; /* rank of its newest flag: 3, 2, 1; 0 for none */
	bool sqpoll;	/* for SQPOLL rings (true) or the others (false) */
} taskrun_way[] = {
	{ IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 3, false },
	{ IORING_SETUP_SINGLE_ISSUER, 2, true },
	{ IORING_SETUP_COOP_TASKRUN, 1, false },
	{ IORING_SETUP_COOP_TASKRUN, 1, true },
	{ 0, 0, false },
};

static unsigned hidden_since(void)
{
	static const char *const flag[] = { "COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN" };
	const char *hide = testhook_env("FSBENCH_URING_MISSING");

	for (unsigned i = 0; hide && i < 3; i++)
		if (!strcasecmp(hide, flag[i]))
			return i + 1;
	return 4;
}

static const struct {
	unsigned flag;
	const char *name;
} setup_name[] = {
	{ IORING_SETUP_CQSIZE, "CQSIZE" },
	{ IORING_SETUP_SQPOLL, "SQPOLL" },
	{ IORING_SETUP_IOPOLL, "IOPOLL" },
	{ IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
	{ IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER" },
	{ IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN" },
};

/* The task-work flags for rings of the base flags (SQPOLL, IOPOLL): found once per process
 * by a probe ring of each way in turn (the kernel is the same for every ring). */
static unsigned uring_taskrun(unsigned base)
{
	static atomic_uint known[4]; /* by SQPOLL, IOPOLL; bit 31: found */
	const bool sqpoll = base & IORING_SETUP_SQPOLL;
	const unsigned k = (unsigned)sqpoll << 1 | !!(base & IORING_SETUP_IOPOLL), hide = hidden_since();
	unsigned v = atomic_load(&known[k]);
	size_t i = 0;

	if (v)
		return v & ~(1u << 31);
	for (; taskrun_way[i].flags; i++) {
		struct io_uring ring;
		struct io_uring_params p = { .flags = base | taskrun_way[i].flags, .sq_thread_idle = 50 };
		int rc;

		if (taskrun_way[i].sqpoll != sqpoll || taskrun_way[i].since >= hide)
			continue;
		rc = io_uring_queue_init_params(4, &ring, &p);
		if (!rc) {
			io_uring_queue_exit(&ring);
			break;
		}
		/* only EINVAL says the kernel does not take the flags; any other refusal (io_uring
		 * disabled, no memory) is the ring's to report, and nothing is learnt */
		if (rc != -EINVAL)
			return taskrun_way[i].flags;
	}
	atomic_store(&known[k], taskrun_way[i].flags | 1u << 31);
	return taskrun_way[i].flags;
}

static unsigned uring_setup_of(bool sqpoll, bool hipri)
{
	unsigned base = (sqpoll ? IORING_SETUP_SQPOLL : 0) | (hipri ? IORING_SETUP_IOPOLL : 0);

	return IORING_SETUP_CQSIZE | base | uring_taskrun(base);
}

static unsigned uring_setup_flags(const struct engine_opts *e, const char **names, unsigned max)
{
	const struct uring_opts *o = engine_options(e);
	unsigned flags = uring_setup_of(o->sqpoll, o->hipri), n = 0;

	for (size_t i = 0; i < sizeof(setup_name) / sizeof(setup_name[0]); i++)
		if ((flags & setup_name[i].flag) && n < max)
			names[n++] = setup_name[i].name;
	return n;
}

/* Registered ring descriptors (IORING_REGISTER_RING_FDS, Linux 5.18): a thread that registers
 * its ring enters it by an index into its own table of rings, not through a descriptor, so
 * neither io_uring_enter of a request (two per request at depth 1) looks the ring up and takes
 * a reference to its file. At depth 1 pinned, bench/uring.sh: +1.2 % (sequential) and +2.3 %
 * (random) reads per second. The registration belongs to the thread that made it and goes
 * with that thread, so only a phase's worker registers, for the ring it made to drive
 * (uring_attach), never the main thread (whose ring_make is setup, or a submission of its
 * own). Found once per process at the kernel check: 1 taken, 2 refused (an older kernel, or
 * FSBENCH_URING_MISSING=RING_FDS in the test build), 0 not yet known. */
static atomic_uint ring_fds_known;

static bool ring_fds_ok(void)
{
	return atomic_load(&ring_fds_known) == 1;
}

static void ring_fds_probe(struct io_uring *ring)
{
	const char *hide = testhook_env("FSBENCH_URING_MISSING");
	bool ok = !(hide && !strcasecmp(hide, "RING_FDS")) && io_uring_register_ring_fd(ring) == 1;

	if (ok)
		io_uring_unregister_ring_fd(ring);
	atomic_store(&ring_fds_known, ok ? 1 : 2);
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
	/* the rings' flags found now, before anything is created or timed */
	uring_setup_of(o->sqpoll, o->hipri);
	ring_fds_probe(&ring);
out:
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	return rc;
}

/* --hipri: polled completion needs O_DIRECT transfers (a usage error otherwise) and, under
 * every target, a device that polls (queue/io_poll 1: NVMe with poll queues); anything else is
 * refused before the run */
static int hipri_usage(const struct engine_use *u, char *err, size_t errlen)
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
	return 0;
}

static int hipri_devices(const struct engine_use *u, char *err, size_t errlen)
{
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

	if (o->hipri && (rc = hipri_usage(u, err, errlen)))
		return rc;
	if ((rc = uring_kernel_check(o, u->caps, err, errlen)))
		return rc;
	return o->hipri ? hipri_devices(u, err, errlen) : 0;
}

static void uring_exit(struct engine_ctx *ctx)
{
	struct uring *u = ctx->priv;

	if (!u)
		return;
	if (u->live)
		io_uring_queue_exit(&u->ring);
	free(u->chains);
	free(u->free_chain);
	free(u->free_file);
	free(u->done);
	free(u);
	ctx->priv = NULL;
}

/* --io_uring-spin as the reap uses it: a polled ring's wait polls the device already */
static uint64_t uring_spin_used(const struct uring_opts *o)
{
	return o->hipri ? 0 : o->spin_us;
}

/* The ring, in the calling thread, with the direct descriptors' table (uring_check made sure
 * the kernel has it), the registered buffers and the registered ordinary descriptors. */
static int ring_make(struct uring *u, bool reg_fd)
{
	struct io_uring_params p = { .flags = u->setup,
				     .cq_entries = u->sq_entries * 4,
				     .sq_thread_idle = 50 }; /* ms the SQPOLL thread spins */
	struct iovec iov = { .iov_base = u->buf_base, .iov_len = u->buf_len };
	int rc = io_uring_queue_init_params(u->sq_entries, &u->ring, &p);

	if (rc)
		return rc;
	u->live = true;
	u->owner = uring_self();
	u->cq_at_enter = 0;
	/* refused (the thread's table of 16 rings full): the ring is entered by its descriptor */
	if (reg_fd && ring_fds_ok())
		(void)io_uring_register_ring_fd(&u->ring);
	rc = io_uring_register_files_sparse(&u->ring, u->nfiles);
	if (!rc && u->buf_len)
		rc = io_uring_register_buffers(&u->ring, &iov, 1);
	for (unsigned i = 0; !rc && i < u->nreg; i++) {
		rc = io_uring_register_files_update(&u->ring, u->reg[i].slot, &u->reg[i].fd, 1);
		rc = rc == 1 ? 0 : rc < 0 ? rc : -EIO;
	}
	return rc;
}

static int uring_init(struct engine_ctx *ctx)
{
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
	u->sq_entries = sq > 4096 ? 4096 : sq;
	u->setup = uring_setup_of(uring_opts(ctx)->sqpoll, uring_opts(ctx)->hipri);
	u->getevents = !(u->setup & (IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL));
	u->spin_ns = uring_spin_used(uring_opts(ctx)) * 1000;
	/* made here too, though a phase's worker makes it again (uring_attach): whatever the
	 * kernel refuses is said at setup, before anything is timed */
	rc = ring_make(u, false);
	if (rc)
		uring_exit(ctx);
	return rc;
}

/* The calling thread drives the context from now on: its ring is made again in this thread
 * (SINGLE_ISSUER: only the thread that made a ring may submit to it); the registrations
 * follow, the ring's own descriptor too with reg_fd. Nothing may be in flight in the old ring. */
static int ring_take(struct engine_ctx *ctx, bool reg_fd)
{
	struct uring *u = ctx->priv;

	if (!u || (u->live && u->owner == uring_self()))
		return 0;
	if (u->nfree_chain != ctx->depth)
		return -EBUSY;
	if (u->live) {
		io_uring_queue_exit(&u->ring);
		u->live = false;
	}
	return ring_make(u, reg_fd);
}

/* engine_ctx_attach: a phase's worker, before the start barrier; its ring's descriptor is
 * registered (ring_fds_probe says why only here) */
static int uring_attach(struct engine_ctx *ctx)
{
	return ring_take(ctx, true);
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

FSB_HOT static void done_push(struct uring *u, unsigned depth, struct engine_req *r)
{
	unsigned i = u->done_head + u->ndone;

	u->done[i >= depth ? i - depth : i] = r;
	u->ndone++;
}

/* Every io_uring_submit is timed (engine.h: submission time): the entries go to the kernel in
 * io_uring_enter, which runs what it can inline before it returns (a page-cache read, a cached
 * openat), so for buffered I/O this is where the work happens; with SQPOLL it is a store and, when
 * the polling thread sleeps, a wake-up. Two clock reads per call, whatever the entries, and
 * they are the requests' timestamps too: the call's start is their submit_lat (*t0), and
 * its end the done_lat of every completion ready when it returns (u->enter_end), which
 * the kernel posted inside it. Waiting (io_uring_wait_cqe in reap, io_uring_sqring_wait for
 * room) never submits and is not counted.
 * The enter asks for events too (GETEVENTS, at least none: it never waits), as fio's does:
 * with DEFER_TASKRUN a request that finished while this thread was in user space is only
 * posted when the thread enters with GETEVENTS, so a plain submit left it for a second enter
 * (the reap's wait, which then did not wait) on every batch; now the submitting call posts it
 * and the reap takes it from the ring. Not with SQPOLL (the call would enter the kernel where
 * a store suffices) nor IOPOLL (it would poll the device: waiting). */
static inline __attribute__((always_inline)) int submit_timed(struct engine_ctx *ctx, struct uring *u,
							     uint64_t *t0)
{
	uint64_t t1;
	int rc;

	*t0 = lat_now();
	rc = u->getevents ? io_uring_submit_and_get_events(&u->ring) : io_uring_submit(&u->ring);
	t1 = lat_now();
	u->enter_end = t1;
	u->cq_at_enter = io_uring_cq_ready(&u->ring);
	engine_submit_note(ctx, lat_ns(t1 - *t0), rc > 0 ? (unsigned)rc : 0);
	return rc;
}

/* an IOPOLL ring takes only O_DIRECT reads and writes: any other chain (tiotest's
 * end-of-phase fsync) runs as system calls, completed at once */
static inline bool as_syscalls(const struct engine_ctx *ctx, const struct engine_req *head)
{
	return uring_opts(ctx)->hipri && !(engine_req_rw(head) && !head->next);
}

/* heads[from..to): their requests were handed over by the call that started at t0 */
FSB_HOT static void stamp(const struct engine_ctx *ctx, struct engine_req *const *heads, unsigned from, unsigned to,
		  uint64_t t0)
{
	for (unsigned i = from; i < to; i++)
		for (struct engine_req *r = heads[i]; r && !as_syscalls(ctx, heads[i]); r = r->next)
			r->submit_lat = t0;
}

FSB_HOT static int uring_submit(struct engine_ctx *ctx, struct engine_req *const *heads, unsigned n)
{
	struct uring *u = ctx->priv;
	unsigned opens = 0, unstamped = 0;
	uint64_t t0;
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
	/* another thread than the ring's: a SINGLE_ISSUER ring refuses it, so it is made anew
	 * here (a phase's worker has done it before its start, uring_attach) */
	if (__builtin_expect(u->owner != uring_self(), 0) && (rc = ring_take(ctx, false)))
		return rc;
	for (unsigned i = 0; i < n; i++) {
		unsigned ci, pos = 0;
		struct uchain *c;
		int chain_slot = -1;

		if (as_syscalls(ctx, heads[i])) {
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
			submit_timed(ctx, u, &t0);
			stamp(ctx, heads, unstamped, i, t0);
			unstamped = i;
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
			prep(u, sqe, r, chain_slot, file_slot);
			io_uring_sqe_set_data64(sqe, (uint64_t)ci << 32 | pos);
			if (r->next)
				sqe->flags |= IOSQE_IO_LINK;
			ctx->nops[r->op]++;
		}
	}
	/* the SQEs are in the ring: the kernel takes them whatever happens here (a failure of
	 * the enter itself is retried at the next submit, or by the reap before it waits); the
	 * timestamps are set before any completion is looked at */
	do
		rc = submit_timed(ctx, u, &t0);
	while (rc == -EINTR);
	stamp(ctx, heads, unstamped, n, t0);
	return 0;
}

/* one completion: its request's result, and its chain's when it was the last */
FSB_HOT static void complete(struct engine_ctx *ctx, struct uring *u, uint64_t data, int res, uint64_t now)
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

/* --io_uring-spin: before a wait that would sleep, look for a completion for up to spin_ns.
 * With DEFER_TASKRUN (or COOP_TASKRUN) a finished request is posted only when this thread
 * enters with GETEVENTS, so each look is io_uring_get_events (an enter that never waits); an
 * SQPOLL ring's completions are posted by its kernel thread, so a look there reads the CQ.
 * On a VM a sleep and its wake-up (an IPI to a halted vCPU) can cost more than a 4 KiB read
 * (bench/README.md, uring.sh): at depth 1 most of a request's time. Bounded: a request that
 * takes longer costs spin_ns of CPU more, then the wait as before. Whether one was found. */
FSB_HOT static bool uring_spin(struct uring *u, bool sqpoll)
{
	const uint64_t t0 = lat_now();

	do {
		if (!sqpoll && io_uring_get_events(&u->ring) < 0)
			return false;
		if (io_uring_cq_ready(&u->ring))
			return true;
	} while (lat_ns(lat_now() - t0) < u->spin_ns);
	return false;
}

FSB_HOT static int uring_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned min, unsigned max)
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
			uint64_t t0;
			int rc;

			/* entries an enter that failed (EAGAIN, EBUSY) left in the ring: handed over
			 * now; when the kernel still takes none, completions are awaited for a
			 * millisecond at most and the enter tried again (waiting for entries nobody
			 * submitted would wait for ever) */
			if (!uring_opts(ctx)->sqpoll && io_uring_sq_ready(&u->ring)) {
				rc = submit_timed(ctx, u, &t0);
				if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
					return got ? (int)got : rc;
			}
			if (!uring_opts(ctx)->sqpoll && io_uring_sq_ready(&u->ring))
				rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ms);
			else if (u->spin_ns && uring_spin(u, uring_opts(ctx)->sqpoll))
				rc = 0;
			else
				rc = io_uring_wait_cqe(&u->ring, &cqe);

			/* what the wait found came after the last submitting call */
			u->cq_at_enter = 0;
			/* a signal: the requests are still in flight, and the caller reaps them
			 * even when stopping, so wait on */
			if (rc == -EINTR || rc == -EAGAIN || rc == -ETIME)
				continue;
			if (rc)
				return got ? (int)got : rc;
		}
		/* the completions the last submitting call left: its end; any later one: now */
		now = u->enter_end;
		io_uring_for_each_cqe(&u->ring, head, cqe) {
			if (seen == u->cq_at_enter)
				now = lat_now();
			complete(ctx, u, cqe->user_data, cqe->res, now);
			seen++;
		}
		u->cq_at_enter -= seen < u->cq_at_enter ? seen : u->cq_at_enter;
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
	if ((rc = ring_take(ctx, false))) {
		*what = "io_uring_setup";
		engine_fd_close(f);
		return rc;
	}
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
	if ((rc = ring_take(ctx, false)))
		return rc;
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

static unsigned uring_setup_values(const struct engine_opts *e, const char **names, uint64_t *values,
				   unsigned max)
{
	unsigned n = 0;

	if (n < max) {
		names[n] = "spin_us";
		values[n++] = uring_spin_used(engine_options(e));
	}
	/* known once the kernel was checked, which every run does before its config is written */
	if (n < max && atomic_load(&ring_fds_known)) {
		names[n] = "registered_ring";
		values[n++] = ring_fds_ok();
	}
	return n;
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
	.attach = uring_attach,
	.setup_flags = uring_setup_flags,
	.setup_values = uring_setup_values,
};
