/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fs_mark workload: t threads each create n files per iteration (name, open, write in -w
 * chunks, the -S sync method), optionally stat and read them back, then unlink them unless kept;
 * iterations repeat (-L) or fill the filesystem (-F). fs_mark 3.3 compatible in what it does
 * and what it counts; fsm_run() fills fsm_result, report code prints it.
 *
 * Names are regenerable from (thread, file index), so no name table exists: memory is O(1) in
 * -n, including the reopen passes of -S 3..6 and the cleanup of an interrupted run. */
#ifndef FSB_WORKLOAD_FS_MARK_H
#define FSB_WORKLOAD_FS_MARK_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/cost.h"
#include "core/driver.h"
#include "core/hist.h"
#include "core/observe.h"
#include "core/opt.h"
#include "core/run.h"
#include "core/sample.h"
#include "sys/layout.h"
#include "engine/engine.h"

/* fs_mark 3.3's limits and defaults (doc/reference/fs_mark.md §2) */
#define FSM_MAX_THREADS 64           /* fs_mark's cap on -t (and so on -d: threads >= dirs) */
#define FSM_MAX_FILES 1000000        /* -n */
#define FSM_MAX_IO (1u << 20)        /* -w */
#define FSM_SECS_PER_DIR 180         /* TIME_HASH: seconds a thread stays in one subdirectory */

/* op types timed per file; the first FSM_LOOP_OPS are inside the create-loop window */
enum fsm_op {
	FSM_CREATE, FSM_WRITE, FSM_XATTR, FSM_FSYNC, FSM_CLOSE, FSM_DIRSYNC, FSM_SYNC, FSM_REOPEN,
	FSM_LOOP_OPS,
	FSM_UNLINK = FSM_LOOP_OPS, FSM_STAT, FSM_READ_OPEN, FSM_READ, FSM_READ_CLOSE,
	FSM_NOPS
};
extern const char *const fsm_op_name[FSM_NOPS];  /* "create", "write", ... (JSON keys) */

enum fsm_dir_policy { FSM_DIR_NONE, FSM_DIR_TIME_HASH, FSM_DIR_ROUND_ROBIN, FSM_DIR_SPREAD };

struct fsm_config {
	/* fs_mark 3.3's options, its units and defaults */
	struct opt_strs dirs;        /* -d, repeatable */
	uint64_t subdirs;            /* -D */
	uint64_t files_per_subdir;   /* -N */
	uint64_t nfiles;             /* -n, per thread per iteration */
	uint64_t threads;            /* -t */
	uint64_t file_bytes;         /* -s */
	uint64_t io_bytes;           /* -w */
	uint64_t sync_method;        /* -S 0..6 */
	uint64_t name_len;           /* -p */
	uint64_t rand_len;           /* -r */
	uint64_t iterations;         /* -L */
	bool fill, keep;             /* -F -k */
	const char *log;             /* -l */
	int help;
	/* fsbench's own (long options only) */
	/* presentation only (report/fs_mark_text.c reads them; the run does not) */
	struct {
		bool verbose;                /* -v */
		bool summary, percentiles, inodes;
	} text;
	bool dirsync, fdatasync, stat, read, spread;
	uint64_t xattr_bytes;
	uint64_t layout_files;       /* --layout[=N]: files sampled per iteration, 0: none */
	const char *profile_window;  /* --profile-window A-B (FSUse%) */
	struct run_opts run;         /* the options every workload shares */
	struct engine_opts eng;      /* --engine, --iodepth */
	/* derived by fsm_config_check() */
	bool keep_files;             /* -k, -L or -F */
	unsigned profile_win_lo, profile_win_hi;   /* --profile-window, 0-100 without it */
	bool iterations_given;
	enum fsm_dir_policy policy;
	unsigned nthreads, ndirs, nsubdirs;   /* nsubdirs: 1 without -D */
	unsigned name_chars;         /* length of every name: max(-p, random part) */
	unsigned rand_chars;         /* random part: -r, raised to what unique names need */
};

/* One thread's figures for one iteration (create loop, extra phases, unlink). */
struct fsm_state;

/* --layout: a seeded sample of an iteration's files, mapped after the create loop (and --stat,
 * --read) and before the unlink phase, outside every timed window (sys/layout.h). Its figures
 * are fsm_iter_figs[FSM_IFIG_LAYOUT ...], NAN where absent. */
#define FSM_LAYOUT_DEFAULT 1000
#define FSM_LAYOUT_EXAMPLES 3
/* the first cost-per-file (core/cost.h) and layout figures in the iteration figures */
enum { FSM_IFIG_COST = 4, FSM_IFIG_LAYOUT = FSM_IFIG_COST + COST_NFIGS };
enum { FSM_LFIG_EXTENTS_PER_FILE, FSM_LFIG_ONE_EXTENT_PCT, FSM_LFIG_INODE_GROUP_PCT,
       FSM_LFIG_DIR_GROUP_PCT, FSM_NLFIGS };
struct fsm_layout {
	bool taken;                  /* --layout, and the iteration got that far */
	bool absent;                 /* no figures: why says so */
	char why[LAYOUT_REASON_MAX];
	uint64_t sampled;            /* files picked (all of them when fewer than N) */
	struct layout_sum sum;       /* those mapped */
	struct layout_locality loc;  /* ext4: their data against their inode's and directory's group */
	unsigned nex;                /* a few sampled files, for checking against debugfs */
	struct fsm_layout_example {
		uint64_t ino, dir_ino, inode_group, dir_group, data_group, first_block, extents;
	} ex[FSM_LAYOUT_EXAMPLES];
	double fig[FSM_NLFIGS];
};


/* the phases of an iteration, for the engine's request counts */
enum fsm_phase_id { FSM_PH_CREATE, FSM_PH_STAT, FSM_PH_READ, FSM_PH_UNLINK, FSM_NPH };
extern const char *const fsm_phase_name[FSM_NPH];

struct fsm_iter {
	unsigned index;              /* 0-based */
	uint64_t files;              /* created in this iteration, all threads */
	uint64_t count;              /* cumulative, as fs_mark's Count */
	bool partial;                /* stopped before every thread created -n files */
	bool time_limited;           /* the create loop was stopped by --time-limit */
	uint64_t ramp_ns;            /* --ramp: left out of wall_ns and the rates (0: none) */
	uint64_t ramp_files;         /* ... and the files created in it (still in files) */
	int fsuse_pct, iuse_pct;     /* statfs of the first -d after the iteration */
	double files_per_sec;        /* fs_mark's: sum of the per-thread rates */
	double files_per_sec_aggregate; /* files / (last loop end - release) */
	uint64_t wall_ns;            /* release .. last create loop end */
	uint64_t release_ns;         /* the create loop's release, absolute CLOCK_MONOTONIC (after
				      * a job's merge: the first, on the job's common timeline) */
	uint64_t app_overhead_ns;    /* summed over threads */
	uint64_t stat_wall_ns, read_wall_ns, unlink_wall_ns;
	uint64_t start_unix_s;
	/* the create loop's time series (sample.h) and kernel view (observe.h): valid during the
	 * iteration callback only, freed by fsm_run() after it */
	struct sample *samples;
	unsigned nsamples;
	uint64_t sample_interval_ns;
	struct observe_phase obs;
	struct fsm_layout layout;    /* --layout */
	struct cost_raw cost;        /* the create loop's, per file */
	double cost_fig[COST_NFIGS]; /* ... its figures, fsm_iter_figs[FSM_IFIG_COST ...] */
	/* requests the engine handed to the kernel per phase and op, all threads (io_uring: ring
	 * operations; 0 for an engine that does not count them) */
	uint64_t engine_ops[FSM_NPH][ENGINE_NOPS];
	bool has_workers;            /* the engine reports kernel workers (io_uring's io-wq) */
	struct engine_workers wq[FSM_NPH];   /* ... live at each phase's end, all threads */
	bool has_submit;             /* the engine times its submitting calls (io_uring) */
	struct engine_submit_stats sub[FSM_NPH];   /* ... per phase, all threads */
	struct opstat op[FSM_NOPS];  /* all threads merged; must stay the last member */
};

/* An op type over a run's reported iterations: what the JSON keeps per run (the iterations keep
 * only their percentiles), packed so that --repeat's runs cost little memory each. */
struct fsm_op_total {
	uint64_t ops, bytes, over_2s, over_10s;
	struct hist_packed lat;
};

/* the run's figures (fsm_figs.run): fs_mark's average files/sec and the aggregate */
enum { FSM_RFIG_FILES_PER_SEC, FSM_RFIG_AGGREGATE, FSM_RFIG_AFTER /* core/afterrun.h */,
       FSM_NRFIGS = FSM_RFIG_AFTER + AFTERRUN_NFIGS };

/* An fs_mark run: head.end says how it ended (RUN_END_FULL: the fill filled the filesystem,
 * head.end_err and head.end_detail say with what; RUN_END_NOSPACE: not enough space for an
 * iteration). Each iteration goes to the driver's sink as it completes (driver_unit(), a
 * struct fsm_iter), so the row is printed when it is done, as fs_mark does. */

struct fsm_result {
	struct run_head head;        /* must stay first */
	double fig[FSM_NRFIGS];      /* computed once the run ended */
	unsigned niters;             /* iterations reported (complete or partial) */
	double *rates;               /* per iteration: fs_mark Files/sec */
	double *agg_rates;           /* per iteration: aggregate files/sec */
	uint64_t *iter_files;        /* per iteration: files created */
	uint64_t *iter_wall_ns;
	uint64_t *iter_start_ns;     /* per iteration: the create loop's release (release_ns) */
	unsigned cap;
	uint64_t total_files;
	uint64_t app_overhead_ns;    /* summed over the reported iterations */
	struct hist create_lat;      /* create latency of the reported iterations, merged */
	struct fsm_op_total op[FSM_NOPS];  /* every op type, merged like create_lat */
	bool op_total;               /* op[] is filled (not when memory ran out) */
	struct perf_profile *profile; /* --profile: every iteration's create loop, merged (those in
				       * --profile-window's FSUse% range) */
	unsigned profiled_iters;     /* how many iterations the profile holds */
	time_t started;
	bool created;                /* at least one file was created (one cut short counts) */
	struct fsm_state *state;     /* directories and names, alive until fsm_result_drop_state() */
	/* --layout: the ext4 geometry of the first -d's filesystem, for the locality figures */
	struct layout_groups groups;
	bool groups_ok;
	char groups_why[LAYOUT_REASON_MAX];
};

/* Checks cross-option constraints and fills the derived fields. Returns 0, or with a one-line
 * message in err: -EINVAL for bad input, -EPERM or -EOPNOTSUPP when it cannot run here. */
int fsm_config_check(struct fsm_config *c, char *err, size_t errlen);
void fsm_defaults(struct fsm_config *c);
/* Whether the run's files and directories stay at the end: kept files (-k, -L, -F) and at
 * least one file created. A run that created none leaves no directory either, so a fill that
 * found the filesystem full at its first mkdir ends as cleanly as one that found it full at its
 * first file, and a run refused at its first file leaves no empty subdirectories. */
bool fsm_result_keeps(const struct fsm_config *c, const struct fsm_result *r);
/* p-th percentile (nearest rank) of v[0..n-1], copied and sorted; 0 when n is 0 */
double fsm_percentile(const double *v, unsigned n, double p);
extern const struct workload_ops workload_fs_mark;
#endif
