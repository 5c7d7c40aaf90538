/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tiotest workload: file setup, the four phases and the per-thread op loop.
 * Compatibility notes say which tiotest 0.4.2 behaviour each choice keeps or fixes. */
#include "workload/tiotest_int.h"

const char *const tio_phase_name[TIO_NPHASES] = { "write", "random_write", "read", "random_read" };
const char *const tio_phase_label[TIO_NPHASES] = { "Write", "Random Write", "Read", "Random Read" };

int tio_config_check(struct tio_config *c, char *err, size_t errlen)
{
	int rc;

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
	rc = engine_select(&c->eng, "tiotest", ENGINE_DATA, true, c->mmap, err, errlen);
	if (rc)
		return rc;
	c->mmap = c->eng.ops == &engine_mmap;
	if (c->direct && c->mmap) {
		snprintf(err, errlen, "options -X and -M cannot be combined (O_DIRECT does not apply to mmap)");
		return -EINVAL;
	}
	c->json_stdout = outfile_is_stdout(c->run.json);
	for (unsigned i = 0; i < c->dirs.n; i++) {
		struct stat st;

		if (c->between && strchr(c->dirs.v[i], '\n')) {
			snprintf(err, errlen, "option -d: a path with a newline cannot be listed one per "
				 "line in FSBENCH_FILES_LIST (--between-phases)");
			return -EINVAL;
		}
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
		/* the run holds each device with one exclusive open: a device named twice would
		 * refuse its own second open, and its threads' regions would overlap */
		for (unsigned j = 0; c->raw && j < i; j++) {
			struct stat sj;

			if (stat(c->dirs.v[j], &sj) == 0 && S_ISBLK(sj.st_mode) && sj.st_rdev == st.st_rdev) {
				snprintf(err, errlen, "option -R: '%s' and '%s' are the same device",
					 c->dirs.v[j], c->dirs.v[i]);
				return -EINVAL;
			}
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


/* The figures, computed once from the raw counters (core/figure.h): the text tables, the JSON,
 * the --repeat summary and compare all read these. Primary: each phase's rate (the question a
 * tiotest experiment asks). Derived, never tested: IOPS (the rate over the block size), the mean
 * extent size and discontinuities per MiB (the same layout as extents per MiB, measured once). */
const struct figure tio_phase_figs[TIO_NFIGS] = {
	[TIO_FIG_RATE] = { "rate_mib_per_s", "rate_mib_per_s", "rate", "MiB/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY | FIG_PRIMARY },
	[TIO_FIG_IOPS] = { "iops", "iops", "IOPS", "IOPS", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_DERIVED },
	[TIO_FIG_USR_PCT] = { "cpu_usr_pct", "cpu_usr_pct", "CPU usr", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_SYS_PCT] = { "cpu_sys_pct", "cpu_sys_pct", "CPU sys", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[TIO_FIG_LAT_MEAN] = { "latency_mean_ns", "latency.mean_ns", "latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_FIG_LAT_P50] = { "latency_p50_ns", "latency.p50_ns", "latency p50", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P90] = { "latency_p90_ns", "latency.p90_ns", "latency p90", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_P99] = { "latency_p99_ns", "latency.p99_ns", "latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_KEY },
	[TIO_FIG_LAT_P999] = { "latency_p99_9_ns", "latency.p99_9_ns", "latency p99.9", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL },
	[TIO_FIG_LAT_MAX] = { "latency_max_ns", "latency.max_ns", "latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_FIG_OVER_2S_PCT] = { "latency_over_2s_pct", "latency.over_2s_pct", "ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	[TIO_FIG_OVER_10S_PCT] = { "latency_over_10s_pct", "latency.over_10s_pct", "ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	/* the layout the phase left (struct tio_layout): absent from read phases and older results */
	[TIO_FIG_LAYOUT_EXTENTS_PER_MIB] = { "layout_extents_per_mib", "layout.extents_per_mib", "extents per MiB", "extents/MiB", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	[TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES] = { "layout_mean_extent_bytes", "layout.mean_extent_bytes", "mean extent size", "bytes", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_DERIVED },
	[TIO_FIG_LAYOUT_DISCONT_PER_MIB] = { "layout_discontinuities_per_mib", "layout.discontinuities_per_mib", "discontinuities per MiB", "/MiB", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_DERIVED },
	COST_FIGURES(TIO_FIG_COST, "op"),
};

const struct figure tio_run_figs[TIO_NRFIGS] = {
	[TIO_RFIG_LAT_MEAN] = { "total.latency_mean_ns", "total_latency.mean_ns", "total latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_P99] = { "total.latency_p99_ns", "total_latency.p99_ns", "total latency p99", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
	[TIO_RFIG_LAT_MAX] = { "total.latency_max_ns", "total_latency.max_ns", "total latency max", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[TIO_RFIG_OVER_2S_PCT] = { "total.latency_over_2s_pct", "total_latency.over_2s_pct", "total ops over 2 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	[TIO_RFIG_OVER_10S_PCT] = { "total.latency_over_10s_pct", "total_latency.over_10s_pct", "total ops over 10 s", "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL | FIG_NOCOMPARE },
	AFTERRUN_FIGURES(TIO_RFIG_AFTER),
};

static const struct figure_set tio_figs = {
	.run = tio_run_figs, .nrun = TIO_NRFIGS, .group = tio_phase_figs, .ngroup = TIO_NFIGS,
	.groups = "phases", .run_values_off = offsetof(struct tio_result, fig),
};

/* the latency part of a figure array: mean, p50, p90, p99, p99.9, max, over 2 s, over 10 s */
/* ---- the options and the ops ----------------------------------------------------------------- */
#define MIB (UINT64_C(1) << 20)
#define F(x) offsetof(struct tio_config, x)

/* Short options are tiotest 0.4.2's, with its units and defaults; long-only ones are fsbench's. */
static const struct opt tio_opts[] = {
	{ 'f', "size", OPT_SIZE, F(file_bytes), "MIB", 1, UINT64_C(1) << 50, MIB, 0,
	  "file size per thread in MiB; the long form also takes k/m/g/t suffixes" },
	{ 'b', "block-size", OPT_SIZE, F(block_bytes), "BYTES", 1, UINT64_C(1) << 30, 1, 0,
	  "block (I/O) size in bytes; the long form also takes k/m/g suffixes" },
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, OPT_F_TARGET, 50,
	  "directory for the test files, repeatable (threads use them round-robin); with -R a block device" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, 4096, 0, 0, "number of threads" },
	{ 'r', "random-ops", OPT_UINT, F(random_ops), "N", 1, UINT64_C(1) << 40, 0, 0,
	  "random I/O operations per thread (both random phases)" },
	{ 'k', "skip", OPT_UINTS, F(skip), "PHASE", 0, 3, 0, OPT_LIST_MAX,
	  "skip phase PHASE, repeatable: 0 write, 1 random write, 2 read, 3 random read" },
	{ 'L', "no-latency", OPT_FLAG, F(text.no_latency), NULL, 0, 0, 0, 0, "do not print the latency table" },
	{ 'T', "terse", OPT_FLAG, F(text.terse), NULL, 0, 0, 0, 0, "terse machine-readable output (five lines)" },
	{ 'W', "serial-write", OPT_FLAG, F(serial_write), NULL, 0, 0, 0, 0,
	  "run the sequential write phase one thread at a time (less fragmentation)" },
	{ 'S', "sync", OPT_FLAG, F(sync), NULL, 0, 0, 0, 0, "open the files with O_SYNC (every phase)" },
	{ 'X', "direct", OPT_FLAG, F(direct), NULL, 0, 0, OPT_F_DIRECT, 0,
	  "open the files with O_DIRECT (every phase)" },
	{ 'M', "mmap", OPT_FLAG, F(mmap), NULL, 0, 0, 0, 0, "use mmap and memcpy instead of pread/pwrite" },
	{ 'c', "verify", OPT_FLAG, F(verify), NULL, 0, 0, 0, 0,
	  "write self-describing checksummed blocks and verify every block read" },
	{ 'F', "drop-caches", OPT_FLAG, F(drop_caches), NULL, 0, 0, 0, 0,
	  "sync and drop the page cache before each phase (root only)" },
	{ 'R', "raw", OPT_FLAG, F(raw), NULL, 0, 0, OPT_F_NAMES_DEVICES, 0, "raw device mode: -d names unmounted block devices" },
	{ 'o', "raw-offset", OPT_SIZE, F(raw_offset_bytes), "MIB", 0, UINT64_C(1) << 50, MIB, 0,
	  "with -R: gap in MiB between threads' regions on one device" },
	{ 'O', "raw-offset-first", OPT_FLAG, F(raw_offset_first), NULL, 0, 0, 0, 0,
	  "with -R: the first thread on each device also starts at the -o offset" },
	{ 'D', "debug", OPT_UINT, F(debug), "LEVEL", 0, 100, 0, 0,
	  "debug messages on stderr (40: phases, 50: file sizing)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help (-h exits 1 as tiotest does, --help 0)" },
	{ 0, "percentiles", OPT_FLAG, F(text.percentiles), NULL, 0, 0, 0, 0,
	  "print a third table: IOPS, MB/s and latency p50/p90/p99/p99.9/max per phase" },
	{ 0, "seed", OPT_UINT, F(seed), "N", 0, UINT64_MAX, 0, 0,
	  "seed of the random offsets (each thread and phase derives its own stream)" },
	{ 0, "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the test files at the end" },
	{ 0, "between-phases", OPT_STR, F(between), "CMD", 0, 0, 0, 0,
	  "run 'sh -c CMD' between phases (env: FSBENCH_PHASE_DONE, FSBENCH_PHASE_NEXT, FSBENCH_FILES); a failure stops the run" },
	{ 0, "layout", OPT_FLAG, F(layout), NULL, 0, 0, 0, 0,
	  "after the classic output, the test files' layout after each write phase: extents, extents "
	  "per MiB, mean extent size, physical discontinuities (FIEMAP; the JSON has it always)" },
	ENGINE_OPTS(F),
	RUN_OPTS(F, "phase"),
	{ 0 },
};

static const struct opt_cmd tio_cmd = {
	.name = "tiotest",
	.summary = "Threaded I/O test, compatible with tiotest 0.4.2: sequential write, random write,\n"
		   "sequential read and random read, one file per thread, with throughput, CPU and latency.",
	.opts = tio_opts,
	ENGINE_OPT_GROUPS,
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
	ENGINE_OPTS_DEFAULTS(c);
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

static bool tio_keep(const void *cfg, const void *result)
{
	(void)result;
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
	.run = tio_run,
	.result_free = tio_result_free,
	.merge = tio_merge,
	.keep = tio_keep,
	.pack = tio_pack,
	.unpack = tio_unpack,
	.figs = &tio_figs,
	.report = &tio_report,
};
