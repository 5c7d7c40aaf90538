/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fs_mark workload: directories, regenerable names, the per-thread create loop with the
 * -S sync methods, the stat/read/unlink phases, iterations and fill mode.
 * Compatibility notes say which fs_mark 3.3 behaviour (doc/reference/fs_mark.md) each choice keeps or fixes. */
#include "workload/fs_mark_int.h"

const char *const fsm_op_name[FSM_NOPS] = {
	"create", "write", "xattr", "fsync", "close", "dirsync", "sync", "reopen",
	"unlink", "stat", "read_open", "read", "read_close",
};

/* --profile-window A-B: the percentages of each create loop the profile keeps */
static int check_profile_window(struct fsm_config *c, char *err, size_t len)
{
	unsigned long lo, hi;
	char *end;

	c->profile_win_lo = 0;
	c->profile_win_hi = 100;
	if (!c->profile_window)
		return 0;
	errno = 0;
	lo = strtoul(c->profile_window, &end, 10);
	if (end == c->profile_window || *end != '-' || !isdigit((unsigned char)end[1]))
		return workload_bad(err, len, "--profile-window: '%s' is not A-B (two percentages)",
			   c->profile_window);
	hi = strtoul(end + 1, &end, 10);
	if (*end == '%')
		end++;
	if (*end || errno || lo > hi || hi > 100)
		return workload_bad(err, len, "--profile-window: '%s' is not A-B with 0 <= A <= B <= 100",
			   c->profile_window);
	c->profile_win_lo = (unsigned)lo;
	c->profile_win_hi = (unsigned)hi;
	return 0;
}

int fsm_config_check(struct fsm_config *c, char *err, size_t len)
{
	uint64_t capacity, r_min = 0, cap;
	size_t sub_len = 0;
	struct rlimit rl;
	int rc = engine_select(&c->eng, "fs_mark", ENGINE_DATA | ENGINE_META, false, false, err, len);

	if (rc)
		return rc;
	if (!c->dirs.n)
		return workload_bad(err, len, "at least one directory is needed (-d DIR)");
	c->ndirs = c->dirs.n;
	/* fs_mark raises -t to the number of directories, and wants a multiple of it */
	if (c->threads < c->ndirs)
		c->threads = c->ndirs;
	if (c->threads % c->ndirs)
		return workload_bad(err, len, "-t %llu must be a multiple of the number of -d directories (%u)",
			   (unsigned long long)c->threads, c->ndirs);
	if (c->threads > FSM_MAX_THREADS)
		return workload_bad(err, len, "%u -d directories make more than %d threads",
			   c->ndirs, FSM_MAX_THREADS);
	c->nthreads = (unsigned)c->threads;
	if (c->subdirs == 1)
		return workload_bad(err, len, "-D 1: the number of subdirectories must be at least 2");
	if (c->files_per_subdir && !c->subdirs)
		return workload_bad(err, len, "-N %llu needs subdirectories (-D 2 or more)",
			   (unsigned long long)c->files_per_subdir);
	if (c->spread && !c->subdirs)
		return workload_bad(err, len, "--spread needs subdirectories (-D 2 or more)");
	if (c->spread && c->files_per_subdir)
		return workload_bad(err, len, "--spread and -N are two different directory policies; give one");
	if ((rc = check_profile_window(c, err, len)))
		return rc;
	c->nsubdirs = c->subdirs ? (unsigned)c->subdirs : 1;
	c->policy = !c->subdirs ? FSM_DIR_NONE : c->spread ? FSM_DIR_SPREAD :
		    c->files_per_subdir ? FSM_DIR_ROUND_ROBIN : FSM_DIR_TIME_HASH;
	if (c->fdatasync && c->sync_method == 0 && !c->dirsync)
		return workload_bad(err, len, "--fdatasync changes nothing with -S 0 (no fsync is issued)");
	/* fs_mark: -L and -F imply -k; -L 0 runs once (§5) */
	c->keep_files = c->keep || c->fill || c->iterations_given;
	if (c->iterations == 0)
		c->iterations = 1;
	/* unique names: the random part must hold threads x files x iterations distinct values
	 * (fill: 64 bits); fs_mark's -r 0 reused one name per second */
	if (c->fill) {
		r_min = 13;
	} else {
		capacity = c->threads * run_opts_nprocs(&c->run) * c->nfiles;
		if (c->iterations > UINT64_MAX / capacity)
			return workload_bad(err, len, "-L %llu: too many iterations",
				   (unsigned long long)c->iterations);
		capacity *= c->iterations;
		for (cap = 1; cap < capacity && r_min < 13; r_min++)
			cap = r_min >= 12 ? UINT64_MAX : cap << 5;
	}
	c->rand_chars = (unsigned)(c->rand_len > r_min ? c->rand_len : r_min);
	c->name_chars = c->name_len > c->rand_chars ? (unsigned)c->name_len : c->rand_chars;
	if (c->name_chars > NAME_MAX)
		return workload_bad(err, len, "file names would be %u characters long (-p %llu -r %llu); "
			   "the most a filesystem takes is %d", c->name_chars,
			   (unsigned long long)c->name_len, (unsigned long long)c->rand_len, NAME_MAX);
	if (c->subdirs) {
		char tmp[24];

		sub_len = (size_t)snprintf(tmp, sizeof(tmp), "%02x", (unsigned)(c->subdirs - 1)) + 1;
	}
	/* found now, not after the header and the log: the directory fds the run keeps open */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < fsm_nofile_need(c))
		return workload_bad(err, len, "%u directories (-d x -D) and %u threads need %llu open "
			   "files, RLIMIT_NOFILE allows %llu (ulimit -n)", c->ndirs * c->nsubdirs,
			   c->nthreads, (unsigned long long)fsm_nofile_need(c),
			   (unsigned long long)rl.rlim_max);
	for (unsigned d = 0; d < c->ndirs; d++) {
		size_t l = strlen(c->dirs.v[d]) + 1 + sub_len + c->name_chars;

		if (l >= PATH_MAX)
			return workload_bad(err, len, "-d '%.40s...': paths would be %zu bytes long, the limit "
				   "is %d", c->dirs.v[d], l, PATH_MAX - 1);
		if (workload_check_new_dir(c->dirs.v[d], err, len))
			return -EINVAL;
	}
	return 0;
}

/* ---- the options and the ops ----------------------------------------------------------------- */
#define F(x) offsetof(struct fsm_config, x)

/* Short options are fs_mark 3.3's (getopt "vhkFr:S:N:D:d:l:L:n:p:s:t:w:"), with its units and
 * defaults; the long spellings and the long-only options are fsbench's. */
static const struct opt fsm_opts[] = {
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, OPT_F_TARGET, OPT_LIST_MAX,
	  "test directory, repeatable; created if missing; threads are split evenly over them" },
	{ 'D', "subdirs", OPT_UINT, F(subdirs), "N", 0, 1000000, 0, 0,
	  "subdirectories in each test directory (at least 2); without -N a thread stays in one for 180 s" },
	{ 'N', "files-per-subdir", OPT_UINT, F(files_per_subdir), "N", 0, UINT32_MAX, 0, 0,
	  "round robin: files a thread puts in a subdirectory before moving to the next (needs -D)" },
	{ 'n', "files", OPT_UINT, F(nfiles), "N", 1, FSM_MAX_FILES, 0, 0,
	  "files per thread per iteration" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, FSM_MAX_THREADS, 0, 0,
	  "threads; a multiple of the number of -d directories" },
	{ 's', "size", OPT_SIZE, F(file_bytes), "BYTES", 0, UINT64_C(1) << 40, 1, 0,
	  "size of each file in bytes; the long form also takes k/m/g suffixes" },
	{ 'w', "io-size", OPT_SIZE, F(io_bytes), "BYTES", 1, FSM_MAX_IO, 1, 0,
	  "bytes per write() call" },
	{ 'S', "sync-method", OPT_UINT, F(sync_method), "M", 0, 6, 0, 0,
	  "0 no sync, 1 fsync per file, 2 sync() and one fsync, 3 reverse reopen+fsync, "
	  "4 sync() then 3, 5 in-order reopen+fsync, 6 sync() then 5" },
	{ 'p', "name-length", OPT_UINT, F(name_len), "N", 1, 255, 0, 0, "file name length" },
	{ 'r', "random-length", OPT_UINT, F(rand_len), "N", 0, 255, 0, 0,
	  "random characters at the end of each name (raised to what unique names need)" },
	{ 'L', "iterations", OPT_UINT, F(iterations), "N", 0, UINT32_MAX, 0, 0,
	  "iterations (rows); implies -k" },
	{ 'F', "fill", OPT_FLAG, F(fill), NULL, 0, 0, 0, 0,
	  "iterate until the filesystem is full, then end cleanly (exit 0); implies -k" },
	{ 'k', "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the files (no unlink phase)" },
	{ 'l', "log", OPT_STR, F(log), "FILE", 0, 0, 0, 0,
	  "log file, appended to: the same header and rows as stdout" },
	{ 'v', "verbose", OPT_FLAG, F(text.verbose), NULL, 0, 0, 0, 0,
	  "min/avg/max microseconds of each system call type (18 more columns)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0,
	  "show this help (-h on stderr with exit 1 as fs_mark does, --help 0)" },
	{ 0, "summary", OPT_FLAG, F(text.summary), NULL, 0, 0, 0, 0,
	  "add the aggregate files/sec (files / iteration wall time) column and a closing summary" },
	{ 0, "percentiles", OPT_FLAG, F(text.percentiles), NULL, 0, 0, 0, 0,
	  "add p50 and p99 create latency columns (microseconds)" },
	{ 0, "inodes", OPT_FLAG, F(text.inodes), NULL, 0, 0, 0, 0, "add an inode use % column" },
	{ 0, "dirsync", OPT_FLAG, F(dirsync), NULL, 0, 0, 0, 0,
	  "fsync the directory after each file (timed, inside the loop)" },
	{ 0, "fdatasync", OPT_FLAG, F(fdatasync), NULL, 0, 0, 0, 0,
	  "fdatasync instead of fsync wherever the sync method fsyncs" },
	{ 0, "xattr", OPT_UINT, F(xattr_bytes), "BYTES", 0, 65536, 0, 0,
	  "set a BYTES-byte extended attribute (user.fsbench) on each file" },
	{ 0, "stat", OPT_FLAG, F(stat), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that stats every file" },
	{ 0, "read", OPT_FLAG, F(read), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that reads every file back" },
	{ 0, "spread", OPT_FLAG, F(spread), NULL, 0, 0, 0, 0,
	  "with -D: spread files evenly over the subdirectories, file by file" },
	{ 0, "layout", OPT_UINT_OPTIONAL, F(layout_files), "N", 1, 1000000, FSM_LAYOUT_DEFAULT, 0,
	  "after each iteration's timed phases, before the unlink, map a seeded sample of N of its "
	  "files (1000 when N is not given): extents per file and, on ext4, whether each file's "
	  "data lies in its inode's and its directory's block group (two more columns, and the JSON)" },
	ENGINE_OPTS(F),
	{ 0, "profile-window", OPT_STR, F(profile_window), "A-B", 0, 0, 0, 0,
	  "with --profile: the run's profile merges only the iterations whose FSUse% is from A to B "
	  "(e.g. 0-15: the start of a fill)" },
	RUN_OPTS(F, "create loop"),
	{ 0 },
};

static const struct opt_cmd fsm_cmd = {
	.name = "fs_mark",
	.summary = "File creation benchmark, compatible with fs_mark 3.3: threads create, write and sync\n"
		   "files in the -S method's order, then unlink them, one row per iteration.",
	.opts = fsm_opts,
	ENGINE_OPT_GROUPS,
};

void fsm_defaults(struct fsm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nfiles = 1000;
	c->threads = 1;
	c->file_bytes = 51200;
	c->io_bytes = 16384;
	c->sync_method = 1;
	c->name_len = 40;
	c->rand_len = 24;
	c->iterations = 1;
	c->log = "fs_log.txt";
	ENGINE_OPTS_DEFAULTS(c);
	RUN_OPTS_DEFAULTS(c);
}

static void fsm_defaults_ops(void *cfg)
{
	fsm_defaults(cfg);
}

/* -L given at all (even -L 0 or -L 1) implies -k in fs_mark */
static bool iterations_given(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--iterations") || !strncmp(a, "--iterations=", 13))
			return true;
		if (a[0] != '-' || a[1] == '-')
			continue;
		for (const char *p = a + 1; *p; p++) {
			if (*p == 'L')
				return true;
			if (strchr("vhkF", *p))
				continue;
			if (!p[1])
				i++;             /* the value is the next argument */
			break;                   /* the rest of this one is the value */
		}
	}
	return false;
}

static int fsm_check_ops(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	struct fsm_config *c = cfg;

	c->iterations_given = iterations_given(argc, argv);
	return fsm_config_check(c, err, errlen);
}

static bool fsm_keep(const void *cfg, const void *result)
{
	return result ? fsm_result_keeps(cfg, result) : ((const struct fsm_config *)cfg)->keep_files;
}


/* The figures every reader shares (core/figure.h). Per run: fs_mark's own files/sec (the sum
 * of the per-thread rates) and the aggregate, averaged over the run's iterations as its summary
 * block does (both primary: fs_mark's answer); per iteration, reduced over a run's iterations
 * as over_runs says. */
static const struct figure fsm_run_figs[] = {
	{ "files_per_sec", "summary.files_per_sec_sum_of_threads.average", "files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY | FIG_PRIMARY },
	{ "files_per_sec_aggregate", "summary.files_per_sec_aggregate.average", "files/sec aggregate", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_PRIMARY },
	AFTERRUN_FIGURES(FSM_RFIG_AFTER),
};

static const struct figure fsm_iter_figs[] = {
	{ "app_overhead_ns", "app_overhead_ns", "app overhead per iteration", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	{ "stat_files_per_sec", "phases.stat.files_per_sec", "stat files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	{ "read_files_per_sec", "phases.read.files_per_sec", "read files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	{ "unlink_files_per_sec", "phases.unlink.files_per_sec", "unlink files/sec", "files/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL },
	/* the create loop's cost per file (core/cost.h), from FSM_IFIG_COST on */
	COST_FIGURES(FSM_IFIG_COST, "file"),
	/* --layout (struct fsm_layout), from FSM_IFIG_LAYOUT on, in enum FSM_LFIG_* order */
	{ "layout_extents_per_file", "layout.extents_per_file", "extents per file", "extents", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_one_extent_pct", "layout.one_extent_pct", "files in one extent", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_inode_group_pct", "layout.inode_group_pct", "data in the inode's block group", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
	{ "layout_dir_group_pct", "layout.dir_group_pct", "data in the directory's block group", "%", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },
};

_Static_assert(sizeof(fsm_iter_figs) / sizeof(fsm_iter_figs[0]) == FSM_IFIG_LAYOUT + FSM_NLFIGS,
	       "the layout figures are the last FSM_NLFIGS iteration figures");

static const struct figure_set fsm_figs = {
	.run = fsm_run_figs, .nrun = sizeof(fsm_run_figs) / sizeof(fsm_run_figs[0]),
	.iter = fsm_iter_figs, .niter = sizeof(fsm_iter_figs) / sizeof(fsm_iter_figs[0]),
	.iters = "iterations", .run_values_off = offsetof(struct fsm_result, fig),
};

extern const struct workload_report fsm_report;

const struct workload_ops workload_fs_mark = {
	.name = "fs_mark",
	.summary = "file create/write/sync/unlink rates and latency (fs_mark 3.3)",
	.cmd = &fsm_cmd,
	.config_size = sizeof(struct fsm_config),
	.run_opts_off = offsetof(struct fsm_config, run),
	.result_size = sizeof(struct fsm_result),
	.defaults = fsm_defaults_ops,
	.check = fsm_check_ops,
	.run = fsm_run,
	.run_done = fsm_result_drop_state,
	.result_free = fsm_result_free,
	.merge = fsm_merge,
	.keep = fsm_keep,
	.pack = fsm_pack,
	.unpack = fsm_unpack,
	.unit_size = sizeof(struct fsm_iter),
	.pack_unit = fsm_pack_unit,
	.unpack_unit = fsm_unpack_unit,
	.merge_unit = fsm_merge_unit,
	.unit_free = fsm_unit_free,
	.figs = &fsm_figs,
	.report = &fsm_report,
	.short_help_stderr = true,
};
