/* The tiotest workload: file setup, the four phases and the per-thread op loop.
 * Compatibility notes say which tiotest 0.4.2 behaviour each choice keeps or fixes. */
#include "workload/tiotest.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>
#include <zlib.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/pack.h"
#include "workload/run_opts.h"
#include "workload/workload.h"
#include "engine/engine.h"

extern char **environ;

const char *const tio_phase_name[TIO_NPHASES] = { "write", "random_write", "read", "random_read" };
const char *const tio_phase_label[TIO_NPHASES] = { "Write", "Random Write", "Read", "Random Read" };

static const bool phase_writes[TIO_NPHASES] = { true, true, false, false };
static const bool phase_random[TIO_NPHASES] = { false, true, false, true };

/* What persists for one thread across phases: its file and, with -c, which generation each
 * block holds (0: sequential write, 1: random write). */
struct tio_thread {
	char path[PATH_MAX];
	uint64_t base;           /* first byte of the thread's region (non-zero only with -R) */
	unsigned char *gen;      /* -c: one bit per block */
	void *buf;               /* bs bytes, page aligned (O_DIRECT) */
};

struct tio_worker {
	const struct tio_config *c;
	struct tio_thread *t;
	enum tio_phase phase;
	uint64_t seed;           /* this thread's seed for this phase */
	uint64_t flush_ns;
	struct opstat st;
};

/* splitmix64: tiny, fast, and good enough for offsets and payload bytes */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, n) by multiply-shift: no modulo bias worth the name, no division */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

/* -c block layout: a 32-byte header, then payload from a PRNG keyed by (seed, offset). */
#define VHDR_MAGIC 0x46534231u   /* "FSB1" */
struct vhdr {
	uint32_t magic;
	uint32_t crc;            /* crc32 of the whole block with this field zero */
	uint64_t offset;
	uint64_t seed;
	uint32_t file_id;
	uint32_t gen;
};

static uint32_t block_crc(unsigned char *blk, size_t len)
{
	struct vhdr *h = (struct vhdr *)blk;
	uint32_t saved = h->crc, crc;

	h->crc = 0;
	crc = (uint32_t)crc32(0, blk, (uInt)len);
	h->crc = saved;
	return crc;
}

static void block_fill(unsigned char *blk, size_t len, uint64_t off, uint64_t seed,
		       uint32_t file_id, uint32_t gen)
{
	struct vhdr *h = (struct vhdr *)blk;
	uint64_t s = seed ^ (off * UINT64_C(0x9e3779b97f4a7c15));
	size_t i;

	for (i = sizeof(*h); i + 8 <= len; i += 8) {
		uint64_t v = rng_next(&s);

		memcpy(blk + i, &v, 8);
	}
	for (; i < len; i++)
		blk[i] = (unsigned char)rng_next(&s);
	*h = (struct vhdr){ .magic = VHDR_MAGIC, .offset = off, .seed = seed, .file_id = file_id,
			    .gen = gen };
	h->crc = block_crc(blk, len);
}

/* 0 when the block read back is the one written there; else a reason */
static const char *block_check(unsigned char *blk, size_t len, uint64_t off, uint32_t file_id,
			       uint32_t gen)
{
	struct vhdr h;

	memcpy(&h, blk, sizeof(h));
	if (h.magic != VHDR_MAGIC)
		return "no fsbench block header (block lost or never written)";
	if (block_crc(blk, len) != h.crc)
		return "checksum mismatch (block corrupted)";
	if (h.file_id != file_id)
		return "block belongs to another thread's file";
	if (h.offset != off)
		return "block belongs at another offset (misplaced write)";
	if (h.gen != gen)
		return "stale block (an older write of this offset)";
	return NULL;
}

static inline bool gen_get(const unsigned char *g, uint64_t b)
{
	return g[b >> 3] & (1u << (b & 7));
}

static inline void gen_set(unsigned char *g, uint64_t b)
{
	g[b >> 3] |= (unsigned char)(1u << (b & 7));
}

static int tio_open_flags(const struct tio_config *c)
{
	/* O_RDWR in every phase as 0.4.x does; no O_CREAT: the file exists since setup, so a
	 * symlink swapped in later is refused (O_NOFOLLOW), and -R never creates anything */
	int flags = O_RDWR;

	if (!c->raw)
		flags |= O_NOFOLLOW;
	if (c->sync)
		flags |= O_SYNC;
	if (c->direct)
		flags |= O_DIRECT;
	return flags;
}

static void fail_io(const struct tio_config *c, int err, const char *what, const char *path,
		    int64_t off)
{
	if (err == -EINVAL && c->direct)
		run_fail_detail(-err, what, path, off, "%s (O_DIRECT needs the block size and offsets "
				"aligned to the device's logical block size)", strerror(-err));
	else if (err == -ENODATA)
		run_fail_detail(EIO, what, path, off, "unexpected end of file");
	else
		run_fail(-err, what, path, off);
}

static int tio_work(struct worker *w)
{
	struct tio_worker *tw = w->ctx;
	const struct tio_config *c = tw->c;
	struct tio_thread *t = tw->t;
	const struct engine_ops *eng = c->mmap ? &engine_mmap : &engine_psync;
	const bool write = phase_writes[tw->phase], random = phase_random[tw->phase];
	const uint64_t bs = c->block_bytes, blocks = c->blocks, base = t->base;
	const uint64_t n = random ? c->random_ops : blocks;
	const uint32_t gen_now = tw->phase == TIO_RWRITE;
	const bool psync = eng == &engine_psync;
	struct engine_file f = { .fd = -1, .sync_each = c->mmap && c->sync, .random = random };
	unsigned char *buf = t->buf;
	uint64_t rng = tw->seed;
	const char *what = "open";
	uint64_t t0, t1;
	int rc;

	rc = eng->open(&f, t->path, tio_open_flags(c), base, blocks * bs, &what);
	if (rc) {
		fail_io(c, rc, what, t->path, -1);
		return rc;
	}
	/* 0.4.x truncates to the whole-block size at every phase: a no-op after setup, but it keeps
	 * the same syscalls inside the window */
	if (!c->raw && !c->mmap && ftruncate(f.fd, (off_t)(blocks * bs)) < 0) {
		rc = -errno;
		fail_io(c, rc, "ftruncate", t->path, -1);
		goto out;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = random ? rng_below(&rng, blocks) : i;
		uint64_t off = base + b * bs;

		if (__builtin_expect(run_stopping(), 0))
			break;
		if (c->verify && write)
			block_fill(buf, bs, off, tw->seed, w->id, gen_now);
		t0 = lat_now();
		/* psync inline; other engines through their hook */
		rc = psync ? engine_psync_rw(f.fd, write, buf, bs, off) : eng->rw(&f, write, buf, bs, off);
		t1 = lat_now();
		if (__builtin_expect(rc != 0, 0)) {
			fail_io(c, rc, write ? (c->mmap ? "memcpy" : "pwrite") : (c->mmap ? "memcpy" : "pread"),
				t->path, (int64_t)off);
			goto out;
		}
		opstat_add(&tw->st, lat_ns(t1 - t0), bs);
		if (c->verify) {
			if (write) {
				if (gen_now)
					gen_set(t->gen, b);
			} else {
				const char *why = block_check(buf, bs, off, w->id, gen_get(t->gen, b));

				if (why) {
					run_fail_detail(EBADMSG, "verify", t->path, (int64_t)off, "%s", why);
					rc = -EBADMSG;
					goto out;
				}
			}
		}
	}
	/* tiotest fsyncs at the end of every phase, reads included, inside the phase time */
	t0 = clock_ns();
	rc = eng->flush(&f);
	tw->flush_ns = clock_ns() - t0;
	if (rc && !run_stopping())
		fail_io(c, rc, "fsync", t->path, -1);
out:
	{
		int crc = eng->close(&f);

		if (crc && !rc) {
			fail_io(c, crc, "close", t->path, -1);
			rc = crc;
		}
	}
	return rc;
}

int tio_config_check(struct tio_config *c, char *err, size_t errlen)
{
	for (int p = 0; p < TIO_NPHASES; p++)
		c->run_phase[p] = true;
	for (unsigned i = 0; i < c->skip.n; i++)
		c->run_phase[c->skip.v[i]] = false;
	if (c->block_bytes > c->file_bytes) {
		/* tiotest divides by zero here (SIGFPE) */
		snprintf(err, errlen, "block size %llu bytes is larger than the file size %llu bytes",
			 (unsigned long long)c->block_bytes, (unsigned long long)c->file_bytes);
		return -EINVAL;
	}
	c->blocks = c->file_bytes / c->block_bytes;
	if (c->verify && c->block_bytes < sizeof(struct vhdr)) {
		snprintf(err, errlen, "option -c: the block size must be at least %zu bytes to carry "
			 "a verification header", sizeof(struct vhdr));
		return -EINVAL;
	}
	if (c->verify && !c->run_phase[TIO_WRITE] && (c->run_phase[TIO_READ] || c->run_phase[TIO_RREAD])) {
		snprintf(err, errlen, "option -c: verification needs the write phase (do not skip it with -k 0)");
		return -EINVAL;
	}
	if ((c->raw_offset_bytes || c->raw_offset_first) && !c->raw) {
		snprintf(err, errlen, "options -o and -O only apply to raw devices (-R)");
		return -EINVAL;
	}
	if (c->direct && c->mmap) {
		snprintf(err, errlen, "options -X and -M cannot be combined (O_DIRECT does not apply to mmap)");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->dirs.n; i++) {
		struct stat st;

		if (strlen(c->dirs.v[i]) + 64 >= PATH_MAX) {
			snprintf(err, errlen, "option -d: path '%.64s...' is too long", c->dirs.v[i]);
			return -EINVAL;
		}
		if (stat(c->dirs.v[i], &st) < 0) {
			snprintf(err, errlen, "option -d: cannot use '%s': %s", c->dirs.v[i], strerror(errno));
			return -EINVAL;
		}
		if (c->raw && !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "option -R: '%s' is not a block device", c->dirs.v[i]);
			return -EINVAL;
		}
		if (!c->raw && !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "option -d: '%s' is not a directory", c->dirs.v[i]);
			return -EINVAL;
		}
	}
	if (c->drop_caches && geteuid() != 0) {
		/* tiotest prints a warning per thread and reports empty tables with exit 0 */
		snprintf(err, errlen, "option -F: dropping the page cache needs root");
		return -EPERM;
	}
	return 0;
}

static int drop_caches(void)
{
	int fd, rc = 0;

	/* drop_caches only drops clean pages: write back first, and do it before the window opens
	 * (tiotest does it inside the window, in every thread, while others already run) */
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		rc = -errno;
	close(fd);
	return rc;
}

static int run_between(const struct tio_config *c, enum tio_phase done, int next,
		       struct tio_thread *th)
{
	char *argv[] = { "sh", "-c", (char *)c->between, NULL };
	size_t flen = 1;
	char *files, *e1, *e2, *e3;
	char **envp;
	size_t n = 0;
	int status, rc;
	pid_t pid;

	for (unsigned i = 0; i < c->threads; i++)
		flen += strlen(th[i].path) + 1;
	files = calloc(1, flen + 16);
	for (unsigned i = 0; files && i < c->threads; i++) {
		strcat(files, i ? " " : "");
		strcat(files, th[i].path);
	}
	while (environ[n])
		n++;
	envp = calloc(n + 4, sizeof(*envp));
	if (!files || !envp || asprintf(&e1, "FSBENCH_PHASE_DONE=%s", tio_phase_name[done]) < 0) {
		free(files);
		free(envp);
		return -ENOMEM;
	}
	if (asprintf(&e2, "FSBENCH_PHASE_NEXT=%s", next >= 0 ? tio_phase_name[next] : "") < 0)
		e2 = NULL;
	if (asprintf(&e3, "FSBENCH_FILES=%s", files) < 0)
		e3 = NULL;
	memcpy(envp, environ, n * sizeof(*envp));
	envp[n] = e1;
	envp[n + 1] = e2;
	envp[n + 2] = e2 ? e3 : NULL;
	rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, envp);
	if (!rc) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = -ECANCELED;
	} else {
		rc = -rc;
	}
	free(e1);
	free(e2);
	free(e3);
	free(envp);
	free(files);
	return rc;
}

static int setup_threads(struct driver *d, const struct tio_config *c, struct tio_thread *th, int pid)
{
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread *t = &th[i];
		const char *dir = c->dirs.v[i % c->dirs.n];
		long page = sysconf(_SC_PAGESIZE);
		int fd;

		if (posix_memalign(&t->buf, (size_t)page, c->block_bytes))
			return -ENOMEM;
		memset(t->buf, 0, c->block_bytes);
		if (c->verify && !(t->gen = calloc(c->blocks / 8 + 1, 1)))
			return -ENOMEM;
		if (c->raw) {
			/* thread k on a device starts at k*(f+o) MiB, plus o with -O (tiotest -o/-O) */
			uint64_t k = i / c->dirs.n, dev_bytes = 0;

			snprintf(t->path, sizeof(t->path), "%s", dir);
			t->base = k * (c->file_bytes + c->raw_offset_bytes) +
				  (c->raw_offset_first ? c->raw_offset_bytes : 0);
			fd = open(dir, O_RDONLY | O_CLOEXEC | O_EXCL);
			if (fd < 0) {
				int err = errno;

				run_fail_msg(err, "cannot use '%s': %s%s", dir, strerror(err),
					     err == EBUSY ? " (mounted or in use)" : "");
				return -err;
			}
			if (ioctl(fd, BLKGETSIZE64, &dev_bytes) < 0)
				dev_bytes = 0;
			close(fd);
			if (t->base + c->blocks * c->block_bytes > dev_bytes) {
				run_fail_msg(ENOSPC, "device '%s' (%llu bytes) is too small for thread %u's "
					     "region ending at byte %llu", dir, (unsigned long long)dev_bytes, i,
					     (unsigned long long)(t->base + c->blocks * c->block_bytes));
				return -ENOSPC;
			}
			continue;
		}
		/* keep the original name so scripts that look for the files still find them; the
		 * thread's number is the job's (a job's processes may share a directory and a pid) */
		snprintf(t->path, sizeof(t->path), "%s/_tiotest_pid%d.thr%u", dir, pid,
			 c->run.proc * (unsigned)c->threads + i);
		fd = cleanup_create_file(t->path, O_RDWR, 0600);
		if (fd < 0) {
			run_fail_msg(-fd, "cannot create '%s': %s", t->path, strerror(-fd));
			return fd;
		}
		if (c->debug >= 50)
			driver_note(d, "tiotest: ftruncate '%s' to %llu bytes", t->path,
				    (unsigned long long)(c->blocks * c->block_bytes));
		if (ftruncate(fd, (off_t)(c->blocks * c->block_bytes)) < 0) {
			int err = errno;

			run_fail_msg(err, "cannot size '%s': %s", t->path, strerror(err));
			close(fd);
			return -err;
		}
		close(fd);
		if (c->direct) {
			/* find out now, not as a failed run, that the filesystem refuses O_DIRECT */
			fd = open(t->path, O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				int err = errno;

				run_fail_msg(err == EINVAL ? EOPNOTSUPP : err,
					     "O_DIRECT is not supported on '%s': %s", dir, strerror(err));
				return err == EINVAL ? -EOPNOTSUPP : -err;
			}
			close(fd);
		}
	}
	return 0;
}

/* The figures, computed once from the raw counters (core/figure.h): the text tables, the JSON,
 * the --repeat summary and compare all read these. */
const struct figure tio_phase_figs[TIO_NFIGS] = {
	[TIO_FIG_RATE] = { "rate_mib_per_s", "rate_mib_per_s", "rate", "MiB/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY },
	[TIO_FIG_IOPS] = { "iops", "iops", "IOPS", "IOPS", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, 0 },
	[TIO_FIG_USR_PCT] = { "cpu_usr_pct", "cpu_usr_pct", "CPU usr", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_SYS_PCT] = { "cpu_sys_pct", "cpu_sys_pct", "CPU sys", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_LAT_MEAN] = { "latency_mean_ns", "latency.mean_ns", "latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_FIG_LAT_P50] = { "latency_p50_ns", "latency.p50_ns", "latency p50", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P90] = { "latency_p90_ns", "latency.p90_ns", "latency p90", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P99] = { "latency_p99_ns", "latency.p99_ns", "latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_KEY },
	[TIO_FIG_LAT_P999] = { "latency_p99_9_ns", "latency.p99_9_ns", "latency p99.9", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_MAX] = { "latency_max_ns", "latency.max_ns", "latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_FIG_OVER_2S_PCT] = { "latency_over_2s_pct", "latency.over_2s_pct", "ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	[TIO_FIG_OVER_10S_PCT] = { "latency_over_10s_pct", "latency.over_10s_pct", "ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
};

const struct figure tio_run_figs[TIO_NRFIGS] = {
	[TIO_RFIG_LAT_MEAN] = { "total.latency_mean_ns", "total_latency.mean_ns", "total latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_P99] = { "total.latency_p99_ns", "total_latency.p99_ns", "total latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_MAX] = { "total.latency_max_ns", "total_latency.max_ns", "total latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_RFIG_OVER_2S_PCT] = { "total.latency_over_2s_pct", "total_latency.over_2s_pct", "total ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	[TIO_RFIG_OVER_10S_PCT] = { "total.latency_over_10s_pct", "total_latency.over_10s_pct", "total ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
};

static const struct figure_set tio_figs = {
	.run = tio_run_figs, .nrun = TIO_NRFIGS, .group = tio_phase_figs, .ngroup = TIO_NFIGS,
	.groups = "phases",
};

/* the latency part of a figure array: mean, p50, p90, p99, p99.9, max, over 2 s, over 10 s */
static void lat_figs(const struct opstat *s, double *mean, double *p50, double *p90, double *p99,
		     double *p999, double *max, double *over2, double *over10)
{
	const struct hist *h = &s->lat;
	double n = s->ops ? (double)s->ops : 1.0;

	*mean = hist_mean(h);
	if (p50) {
		*p50 = (double)hist_percentile(h, 50);
		*p90 = (double)hist_percentile(h, 90);
	}
	*p99 = (double)hist_percentile(h, 99);
	if (p999)
		*p999 = (double)hist_percentile(h, 99.9);
	*max = s->ops ? (double)h->max : 0.0;
	*over2 = 100.0 * (double)s->over_2s / n;
	*over10 = 100.0 * (double)s->over_10s / n;
}

static void phase_figures(struct tio_phase_result *pr)
{
	double wall_s = (double)pr->wall_ns / 1e9;
	double *f = pr->fig;

	f[TIO_FIG_RATE] = wall_s > 0 ? (double)pr->st.bytes / 1048576.0 / wall_s : 0;
	f[TIO_FIG_IOPS] = wall_s > 0 ? (double)pr->st.ops / wall_s : 0;
	f[TIO_FIG_USR_PCT] = wall_s > 0 ? 100.0 * pr->usr_s / wall_s : 0;
	f[TIO_FIG_SYS_PCT] = wall_s > 0 ? 100.0 * pr->sys_s / wall_s : 0;
	lat_figs(&pr->st, &f[TIO_FIG_LAT_MEAN], &f[TIO_FIG_LAT_P50], &f[TIO_FIG_LAT_P90],
		 &f[TIO_FIG_LAT_P99], &f[TIO_FIG_LAT_P999], &f[TIO_FIG_LAT_MAX], &f[TIO_FIG_OVER_2S_PCT],
		 &f[TIO_FIG_OVER_10S_PCT]);
}

void tio_result_figures(struct tio_result *r)
{
	double *f = r->fig;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			phase_figures(&r->phase[p]);

	lat_figs(&r->total, &f[TIO_RFIG_LAT_MEAN], NULL, NULL, &f[TIO_RFIG_LAT_P99], NULL,
		 &f[TIO_RFIG_LAT_MAX], &f[TIO_RFIG_OVER_2S_PCT], &f[TIO_RFIG_OVER_10S_PCT]);
}

static void collect(const struct tio_config *c, struct phase *ph, struct tio_worker *tw,
		    struct tio_phase_result *pr, struct tio_thread *th)
{
	pr->start_ns = ph->start_ns;
	pr->nthreads = (unsigned)c->threads;
	pr->wall_ns = ph->end_ns - ph->start_ns;
	pr->first_done_ns = ph->first_done_ns - ph->start_ns;
	pr->first_done_ops = ph->first_done_ops;
	pr->first_done_bytes = ph->first_done_bytes;
	pr->last_done_ns = ph->end_ns - ph->start_ns;
	pr->usr_s = ph->usr_s;
	pr->sys_s = ph->sys_s;
	pr->samples = ph->samples;
	pr->nsamples = ph->nsamples;
	pr->sample_interval_ns = ph->sample_interval_ns;
	pr->complete = !run_stopping();
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread_result *t = &pr->threads[i];
		struct worker *w = &ph->workers[i];

		opstat_merge(&pr->st, &tw[i].st);
		snprintf(t->path, sizeof(t->path), "%s", th[i].path);
		t->ops = tw[i].st.ops;
		t->bytes = tw[i].st.bytes;
		t->start_ns = w->started ? w->start_ns - ph->start_ns : 0;
		t->end_ns = w->started ? w->end_ns - ph->start_ns : 0;
		t->flush_ns = tw[i].flush_ns;
		t->usr_s = w->usr_s;
		t->sys_s = w->sys_s;
	}
	phase_figures(pr);
}

/* the honesty warnings (core/warn.h) from this phase's figures */
static void phase_warn(struct driver *d, const struct tio_config *c, struct tio_phase_result *pr,
		       int p)
{
	/* the phases as the warnings on stderr name them */
	static const char *const words[TIO_NPHASES] = { "write", "random write", "read", "random read" };
	struct warn_phase w = { .name = tio_phase_name[p], .direct = c->direct, .sync = c->sync,
				.data_set_bytes = c->threads * c->blocks * c->block_bytes,
				.threads = (unsigned)c->threads, .wall_ns = pr->wall_ns,
				.first_done_ns = pr->first_done_ns, .last_done_ns = pr->last_done_ns,
				.sys_s = 0 };

	/* the workers' own system time ("near 100 % of one core per thread"), not the process's,
	 * which also holds the main and reporter threads */
	for (unsigned i = 0; i < c->threads; i++)
		w.sys_s += pr->threads[i].sys_s;
	if (phase_writes[p])
		w.write_bytes = pr->st.bytes;
	else
		w.read_bytes = pr->st.bytes;
	/* a phase cut short by an error or a signal: its window is not the phase's, its warnings
	 * would be noise; they are computed (for the JSON) but not tallied */
	if (pr->complete)
		driver_warn(d, &pr->obs, &w, words[p], 0);
}

static uint64_t phase_seed(uint64_t seed, unsigned thread, unsigned phase)
{
	/* distinct per (thread, phase), reproducible from --seed */
	uint64_t s = seed ^ ((uint64_t)thread << 32) ^ ((uint64_t)phase << 56);

	return rng_next(&s);
}

static int tio_run(struct driver *d, const void *cfg, void *result)
{
	const struct tio_config *c = cfg;
	struct tio_result *r = result;
	struct tio_thread *th = calloc(c->threads, sizeof(*th));
	struct tio_worker *tw = calloc(c->threads, sizeof(*tw));
	struct worker *workers = calloc(c->threads, sizeof(*workers));
	int rc = -ENOMEM;

	r->stopped_in = -1;
	r->seed = c->seed;
	r->pid = getpid();
	opstat_init(&r->total);
	if (!th || !tw || !workers)
		goto out;
	for (int p = 0; p < TIO_NPHASES; p++) {
		opstat_init(&r->phase[p].st);
		r->phase[p].threads = calloc(c->threads, sizeof(*r->phase[p].threads));
		if (!r->phase[p].threads)
			goto out;
	}
	rc = setup_threads(d, c, th, r->pid);
	if (rc)
		goto out;
	for (int p = 0, last = -1; p < TIO_NPHASES && !run_stopping(); p++) {
		struct tio_phase_result *pr = &r->phase[p];
		struct phase ph = { .name = tio_phase_name[p], .nworkers = (unsigned)c->threads,
				    /* -W: only the sequential write phase runs one thread at a time */
				    .serial = c->serial_write && p == TIO_WRITE,
				    .work = tio_work, .workers = workers,
				    .interval_ns = c->run.interval_ns, .label = "tiotest",
				    .expected_ops = c->threads * (phase_random[p] ? c->random_ops : c->blocks) };

		if (!c->run_phase[p])
			continue;
		if (last >= 0 && c->between) {
			rc = run_between(c, (enum tio_phase)last, p, th);
			if (rc) {
				/* reported once, with the run's first error, after the results */
				run_fail_detail(ECANCELED, "between-phases", c->between, -1,
						"the command failed after the %s phase (%s)", tio_phase_name[last],
						rc == -ECANCELED ? "non-zero exit" : strerror(-rc));
				break;
			}
		}
		if (c->drop_caches && (rc = drop_caches())) {
			run_fail(-rc, "write", "/proc/sys/vm/drop_caches", -1);
			break;
		}
		/* a signal during the command or the cache drop stops the run before this phase,
		 * which then never ran, rather than inside it with no ops */
		if (run_stopping())
			break;
		if (c->debug >= 40)
			driver_note(d, "tiotest: starting phase %s", tio_phase_name[p]);
		for (unsigned i = 0; i < c->threads; i++) {
			/* the job's thread number: every process of a job draws its own offsets */
			tw[i] = (struct tio_worker){ .c = c, .t = &th[i], .phase = (enum tio_phase)p,
						     .seed = phase_seed(c->seed, c->run.proc * (unsigned)c->threads + i,
									(unsigned)p) };
			opstat_init(&tw[i].st);
			workers[i].ctx = &tw[i];
			workers[i].live = &tw[i].st;
		}
		pr->ran = true;
		rc = driver_phase(d, &ph, &pr->obs, &pr->io);
		collect(c, &ph, tw, pr, th);
		phase_warn(d, c, pr, p);
		opstat_merge(&r->total, &pr->st);
		if (!pr->complete)
			r->stopped_in = p;
		last = p;
	}
	rc = 0;
	tio_result_figures(r);
	r->head.complete = !run_stopping();
	r->head.end = r->head.complete ? RUN_END_DONE : run_error_get() ? RUN_END_ERROR : RUN_END_SIGNAL;
out:
	if (rc == -ENOMEM)
		run_fail_msg(ENOMEM, "out of memory");
	for (unsigned i = 0; th && i < c->threads; i++) {
		free(th[i].buf);
		free(th[i].gen);
	}
	free(th);
	free(tw);
	free(workers);
	return rc;
}

static void tio_result_free(void *result)
{
	struct tio_result *r = result;

	for (int p = 0; p < TIO_NPHASES; p++) {
		free(r->phase[p].threads);
		r->phase[p].threads = NULL;
		free(r->phase[p].samples);
		r->phase[p].samples = NULL;
		observe_phase_free(&r->phase[p].obs);
	}
}

/* Results of the same configuration from processes side by side: ops and histograms add up,
 * CPU adds up, the window runs from the first release to the last completion (the phases'
 * absolute release times), the threads are listed one process after the other; the figures
 * are recomputed from the merged counters. "First done" stays each process's own snapshot,
 * summed (a job's figure at its first rank's end is fsbench-mpi's, src/mpi/). */
static int merge_phase(struct tio_phase_result *x, const struct tio_phase_result *y)
{
	uint64_t start = x->start_ns < y->start_ns ? x->start_ns : y->start_ns;
	uint64_t dx = x->start_ns - start, dy = y->start_ns - start;
	uint64_t xfirst = x->first_done_ns + dx, yfirst = y->first_done_ns + dy;
	uint64_t xlast = x->last_done_ns + dx, ylast = y->last_done_ns + dy;
	struct tio_thread_result *t;

	if (!x->ran || !y->ran)
		return x->ran == y->ran ? 0 : -EINVAL;
	t = realloc(x->threads, (x->nthreads + y->nthreads + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	x->threads = t;
	for (unsigned i = 0; i < x->nthreads; i++) {
		t[i].start_ns += dx;
		t[i].end_ns += dx;
	}
	for (unsigned i = 0; i < y->nthreads; i++) {
		t[x->nthreads + i] = y->threads[i];
		t[x->nthreads + i].start_ns += dy;
		t[x->nthreads + i].end_ns += dy;
	}
	x->nthreads += y->nthreads;
	opstat_merge(&x->st, &y->st);
	x->start_ns = start;
	x->first_done_ns = xfirst < yfirst ? xfirst : yfirst;
	x->last_done_ns = xlast > ylast ? xlast : ylast;
	x->wall_ns = x->last_done_ns;
	x->first_done_ops += y->first_done_ops;
	x->first_done_bytes += y->first_done_bytes;
	x->usr_s += y->usr_s;
	x->sys_s += y->sys_s;
	x->complete = x->complete && y->complete;
	/* one kernel view per host: the first one that was taken stands for the job */
	if (!x->obs.taken && y->obs.taken) {
		x->obs.taken = true;
		x->obs.k = y->obs.k;
	}
	return 0;
}

/* how a run ended, the worst first */
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

static int tio_merge(void *dst, const void *src)
{
	struct tio_result *a = dst;
	const struct tio_result *b = src;
	int rc;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (a->phase[p].ran != b->phase[p].ran)
			return -EINVAL;
	for (int p = 0; p < TIO_NPHASES; p++)
		if ((rc = merge_phase(&a->phase[p], &b->phase[p])))
			return rc;
	opstat_merge(&a->total, &b->total);
	if (b->stopped_in >= 0 && (a->stopped_in < 0 || b->stopped_in < a->stopped_in))
		a->stopped_in = b->stopped_in;
	tio_result_figures(a);
	a->head.complete = a->head.complete && b->head.complete;
	if (end_rank(b->head.end) > end_rank(a->head.end))
		a->head.end = b->head.end;
	return 0;
}

/* what merge and the report need, for the first process of a job (workload.h) */
static int tio_pack(const void *result, int64_t off, struct pack *o)
{
	const struct tio_result *r = result;

	pack_u64(o, r->head.end);
	pack_u64(o, r->head.complete);
	pack_i64(o, r->head.end_err);
	pack_str(o, r->head.end_detail);
	pack_i64(o, r->head.started_unix_s);
	pack_u64(o, r->head.index);
	pack_i64(o, r->stopped_in);
	pack_u64(o, r->seed);
	pack_i64(o, r->pid);
	pack_opstat(o, &r->total);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];

		pack_u64(o, pr->ran);
		if (!pr->ran)
			continue;
		pack_u64(o, pr->complete);
		pack_opstat(o, &pr->st);
		pack_u64(o, pr->start_ns - (uint64_t)off);
		pack_u64(o, pr->wall_ns);
		pack_u64(o, pr->first_done_ns);
		pack_u64(o, pr->last_done_ns);
		pack_u64(o, pr->first_done_ops);
		pack_u64(o, pr->first_done_bytes);
		pack_f64(o, pr->usr_s);
		pack_f64(o, pr->sys_s);
		pack_bytes(o, &pr->io, sizeof(pr->io));
		pack_u64(o, pr->obs.taken);
		if (pr->obs.taken)
			pack_bytes(o, &pr->obs.k, sizeof(pr->obs.k));
		pack_u64(o, pr->nthreads);
		for (unsigned i = 0; i < pr->nthreads; i++) {
			const struct tio_thread_result *t = &pr->threads[i];

			pack_str(o, t->path);
			pack_u64(o, t->ops);
			pack_u64(o, t->bytes);
			pack_u64(o, t->start_ns);
			pack_u64(o, t->end_ns);
			pack_u64(o, t->flush_ns);
			pack_f64(o, t->usr_s);
			pack_f64(o, t->sys_s);
		}
	}
	return o->err;
}

static int tio_unpack(void *result, struct unpack *u)
{
	struct tio_result *r = result;

	r->head.end = (enum run_end)unpack_u64(u);
	r->head.complete = unpack_u64(u);
	r->head.end_err = (int)unpack_i64(u);
	unpack_str_to(u, r->head.end_detail, sizeof(r->head.end_detail));
	r->head.started_unix_s = unpack_i64(u);
	r->head.index = (unsigned)unpack_u64(u);
	r->stopped_in = (int)unpack_i64(u);
	r->seed = unpack_u64(u);
	r->pid = (int)unpack_i64(u);
	unpack_opstat(u, &r->total);
	for (int p = 0; p < TIO_NPHASES && !u->err; p++) {
		struct tio_phase_result *pr = &r->phase[p];
		uint64_t n;

		opstat_init(&pr->st);
		pr->ran = unpack_u64(u);
		if (!pr->ran)
			continue;
		pr->complete = unpack_u64(u);
		unpack_opstat(u, &pr->st);
		pr->start_ns = unpack_u64(u);
		pr->wall_ns = unpack_u64(u);
		pr->first_done_ns = unpack_u64(u);
		pr->last_done_ns = unpack_u64(u);
		pr->first_done_ops = unpack_u64(u);
		pr->first_done_bytes = unpack_u64(u);
		pr->usr_s = unpack_f64(u);
		pr->sys_s = unpack_f64(u);
		unpack_bytes(u, &pr->io, sizeof(pr->io));
		pr->obs.taken = unpack_u64(u);
		if (pr->obs.taken)
			unpack_bytes(u, &pr->obs.k, sizeof(pr->obs.k));
		n = unpack_u64(u);
		if (u->err || n > 4096)
			return -EPROTO;
		if (!(pr->threads = calloc(n + 1, sizeof(*pr->threads))))
			return -ENOMEM;
		pr->nthreads = (unsigned)n;
		for (unsigned i = 0; i < pr->nthreads; i++) {
			struct tio_thread_result *t = &pr->threads[i];

			unpack_str_to(u, t->path, sizeof(t->path));
			t->ops = unpack_u64(u);
			t->bytes = unpack_u64(u);
			t->start_ns = unpack_u64(u);
			t->end_ns = unpack_u64(u);
			t->flush_ns = unpack_u64(u);
			t->usr_s = unpack_f64(u);
			t->sys_s = unpack_f64(u);
		}
	}
	if (unpack_done(u))
		return -EPROTO;
	tio_result_figures(r);
	return 0;
}

/* per-rank subdirectories need directories: -R names devices */
static struct opt_strs *tio_dirs(void *cfg)
{
	struct tio_config *c = cfg;

	return c->raw ? NULL : &c->dirs;
}

/* ---- the options and the ops ----------------------------------------------------------------- */
#define MIB (UINT64_C(1) << 20)
#define F(x) offsetof(struct tio_config, x)

/* Short options are tiotest 0.4.2's, with its units and defaults; long-only ones are fsbench's. */
static const struct opt tio_opts[] = {
	{ 'f', "size", OPT_SIZE, F(file_bytes), "MIB", 1, UINT64_C(1) << 50, MIB, 0,
	  "file size per thread in MiB; the long form also takes k/m/g/t suffixes" },
	{ 'b', "block-size", OPT_SIZE, F(block_bytes), "BYTES", 1, UINT64_C(1) << 30, 1, 0,
	  "block (I/O) size in bytes; the long form also takes k/m/g suffixes" },
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, 50,
	  "directory for the test files, repeatable (threads use them round-robin); with -R a block device" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, 4096, 0, 0, "number of threads" },
	{ 'r', "random-ops", OPT_UINT, F(random_ops), "N", 1, UINT64_C(1) << 40, 0, 0,
	  "random I/O operations per thread (both random phases)" },
	{ 'k', "skip", OPT_UINTS, F(skip), "PHASE", 0, 3, 0, OPT_LIST_MAX,
	  "skip phase PHASE, repeatable: 0 write, 1 random write, 2 read, 3 random read" },
	{ 'L', "no-latency", OPT_FLAG, F(no_latency), NULL, 0, 0, 0, 0, "do not print the latency table" },
	{ 'T', "terse", OPT_FLAG, F(terse), NULL, 0, 0, 0, 0, "terse machine-readable output (five lines)" },
	{ 'W', "serial-write", OPT_FLAG, F(serial_write), NULL, 0, 0, 0, 0,
	  "run the sequential write phase one thread at a time (less fragmentation)" },
	{ 'S', "sync", OPT_FLAG, F(sync), NULL, 0, 0, 0, 0, "open the files with O_SYNC (every phase)" },
	{ 'X', "direct", OPT_FLAG, F(direct), NULL, 0, 0, 0, 0, "open the files with O_DIRECT (every phase)" },
	{ 'M', "mmap", OPT_FLAG, F(mmap), NULL, 0, 0, 0, 0, "use mmap and memcpy instead of pread/pwrite" },
	{ 'c', "verify", OPT_FLAG, F(verify), NULL, 0, 0, 0, 0,
	  "write self-describing checksummed blocks and verify every block read" },
	{ 'F', "drop-caches", OPT_FLAG, F(drop_caches), NULL, 0, 0, 0, 0,
	  "sync and drop the page cache before each phase (root only)" },
	{ 'R', "raw", OPT_FLAG, F(raw), NULL, 0, 0, 0, 0, "raw device mode: -d names unmounted block devices" },
	{ 'o', "raw-offset", OPT_SIZE, F(raw_offset_bytes), "MIB", 0, UINT64_C(1) << 50, MIB, 0,
	  "with -R: gap in MiB between threads' regions on one device" },
	{ 'O', "raw-offset-first", OPT_FLAG, F(raw_offset_first), NULL, 0, 0, 0, 0,
	  "with -R: the first thread on each device also starts at the -o offset" },
	{ 'D', "debug", OPT_UINT, F(debug), "LEVEL", 0, 100, 0, 0,
	  "debug messages on stderr (40: phases, 50: file sizing)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help (-h exits 1 as tiotest does, --help 0)" },
	{ 0, "percentiles", OPT_FLAG, F(percentiles), NULL, 0, 0, 0, 0,
	  "print a third table: IOPS, MB/s and latency p50/p90/p99/p99.9/max per phase" },
	{ 0, "seed", OPT_UINT, F(seed), "N", 0, UINT64_MAX, 0, 0,
	  "seed of the random offsets (each thread and phase derives its own stream)" },
	{ 0, "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the test files at the end" },
	{ 0, "between-phases", OPT_STR, F(between), "CMD", 0, 0, 0, 0,
	  "run 'sh -c CMD' between phases (env: FSBENCH_PHASE_DONE, FSBENCH_PHASE_NEXT, FSBENCH_FILES); a failure stops the run" },
	RUN_OPTS(F, "phase"),
	{ 0 },
};

static const struct opt_cmd tio_cmd = {
	.name = "tiotest",
	.summary = "Threaded I/O test, compatible with tiotest 0.4.2: sequential write, random write,\n"
		   "sequential read and random read, one file per thread, with throughput, CPU and latency.",
	.opts = tio_opts,
};

void tio_defaults(struct tio_config *c)
{
	memset(c, 0, sizeof(*c));
	c->file_bytes = 10 * MIB;
	c->block_bytes = 4096;
	c->dirs.n = 1;
	c->dirs.v[0] = ".";
	c->threads = 4;
	/* tiotest HEAD's default since 2023; 0.3.3 and early 0.4.x used 1000 */
	c->random_ops = 100000;
	c->seed = UINT64_C(0x5eed);
	RUN_OPTS_DEFAULTS(c);
}

static void tio_defaults_ops(void *cfg)
{
	tio_defaults(cfg);
}

static int tio_check_ops(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	return tio_config_check(cfg, err, errlen);
}

static unsigned tio_targets(const void *cfg, const char **out, unsigned max)
{
	const struct tio_config *c = cfg;
	unsigned n = c->dirs.n < max ? c->dirs.n : max;

	for (unsigned i = 0; i < n; i++)
		out[i] = c->dirs.v[i];
	return n;
}

static bool tio_keep(const void *cfg)
{
	return ((const struct tio_config *)cfg)->keep;
}

extern const struct workload_report tio_report;

const struct workload_ops workload_tiotest = {
	.name = "tiotest",
	.summary = "threaded sequential/random read/write throughput and latency (tiotest 0.4.2)",
	.cmd = &tio_cmd,
	.config_size = sizeof(struct tio_config),
	.run_opts_off = offsetof(struct tio_config, run),
	.result_size = sizeof(struct tio_result),
	.defaults = tio_defaults_ops,
	.check = tio_check_ops,
	.targets = tio_targets,
	.run = tio_run,
	.result_free = tio_result_free,
	.merge = tio_merge,
	.keep = tio_keep,
	.dirs = tio_dirs,
	.pack = tio_pack,
	.unpack = tio_unpack,
	.figs = &tio_figs,
	.report = &tio_report,
};
