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

#include "core/hist.h"
#include "core/observe.h"
#include "core/opt.h"
#include "core/run.h"
#include "core/sample.h"

/* fs_mark 3.3's limits and defaults (fs_mark.md §2) */
#define FSM_MAX_THREADS 1024         /* fs_mark: 64; more is allowed, the multiple-of-dirs rule stays */
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
	bool fill, keep, verbose;    /* -F -k -v */
	const char *log;             /* -l */
	int help;
	/* fsbench's own (long options only) */
	const char *json;
	bool summary, percentiles, inodes, dirsync, fdatasync, stat, read, spread;
	uint64_t xattr_bytes;
	uint64_t interval_ns;        /* --interval: time series resolution of the create loop */
	bool quiet;                  /* --quiet: no progress line */
	uint64_t repeat;             /* --repeat N */
	const char *label;           /* --label NAME */
	bool sysstats;               /* --sysstats: kernel view table and warnings on stderr */
	bool profile, profile_callgraph;   /* --profile, --profile-callgraph */
	bool profile_inclusive;      /* --profile-inclusive: call chains, inclusive table */
	uint64_t profile_hz, profile_top;
	const char *profile_folded;  /* --profile-folded FILE */
	/* set by the command */
	bool progress;               /* stderr is a terminal and not --quiet */
	unsigned run_no;             /* 1-based run of --repeat, for the progress line */
	struct observe *obs;         /* kernel-side session, NULL for none */
	/* derived by fsm_config_check() */
	bool keep_files;             /* -k, -L or -F */
	bool iterations_given;
	enum fsm_dir_policy policy;
	unsigned nthreads, ndirs, nsubdirs;   /* nsubdirs: 1 without -D */
	unsigned name_chars;         /* length of every name: max(-p, random part) */
	unsigned rand_chars;         /* random part: -r, raised to what unique names need */
};

/* One thread's figures for one iteration (create loop, extra phases, unlink). */
struct fsm_state;


struct fsm_iter {
	unsigned index;              /* 0-based */
	uint64_t files;              /* created in this iteration, all threads */
	uint64_t count;              /* cumulative, as fs_mark's Count */
	bool partial;                /* stopped before every thread created -n files */
	int fsuse_pct, iuse_pct;     /* statfs of the first -d after the iteration */
	double files_per_sec;        /* fs_mark's: sum of the per-thread rates */
	double files_per_sec_aggregate; /* files / (last loop end - release) */
	uint64_t wall_ns;            /* release .. last create loop end */
	uint64_t app_overhead_ns;    /* summed over threads */
	uint64_t stat_wall_ns, read_wall_ns, unlink_wall_ns;
	uint64_t start_unix_s;
	/* the create loop's time series (sample.h) and kernel view (observe.h): valid during the
	 * iteration callback only, freed by fsm_run() after it */
	struct sample *samples;
	unsigned nsamples;
	uint64_t sample_interval_ns;
	struct observe_phase obs;
	struct opstat op[FSM_NOPS];  /* all threads merged; must stay the last member */
};

enum fsm_end { FSM_END_DONE, FSM_END_FULL, FSM_END_NOSPACE, FSM_END_SIGNAL, FSM_END_ERROR };

/* Called after each iteration (the row is printed as it completes, as fs_mark does). */
typedef void (*fsm_iter_fn)(const struct fsm_config *c, const struct fsm_iter *it, void *arg);

struct fsm_result {
	enum fsm_end end;
	int end_err;                 /* errno that ended a fill (ENOSPC, EDQUOT) */
	char end_detail[PATH_MAX + 640]; /* the closing line for a fill end or a space shortage */
	unsigned niters;             /* iterations reported (complete or partial) */
	double *rates;               /* per iteration: fs_mark Files/sec */
	double *agg_rates;           /* per iteration: aggregate files/sec */
	uint64_t *iter_files;        /* per iteration: files created */
	uint64_t *iter_wall_ns;
	unsigned cap;
	uint64_t total_files;
	uint64_t app_overhead_ns;    /* summed over the reported iterations */
	struct hist create_lat;      /* create latency of the reported iterations, merged */
	struct perf_profile *profile; /* --profile: every iteration's create loop, merged */
	time_t started;
	struct fsm_state *state;     /* directories and names, alive until fsm_result_drop_state() */
};

/* Checks cross-option constraints (fs_mark's and fsbench's fixes) and fills the derived
 * fields. Returns 0, or -1 with a one-line message in err and *exit_code set. */
int fsm_config_check(struct fsm_config *c, char *err, size_t errlen, int *exit_code);
/* Runs the iterations; files and directories are registered for cleanup, which the caller
 * runs. Returns 0 when it ran (see r->end and run_error_get()), or -errno when it could not
 * start (message already on stderr). */
int fsm_run(const struct fsm_config *c, struct fsm_result *r, const char *prog, fsm_iter_fn fn,
	    void *arg);
/* Frees the directories and names of a run once its files are cleaned up (or kept): the
 * cleanup callback fsm_run() registered reads them, so call this only after cleanup_run().
 * The figures stay (for --repeat's summary). */
void fsm_result_drop_state(struct fsm_result *r);
/* fsm_result_drop_state() and the figures */
void fsm_result_free(struct fsm_result *r);
/* p-th percentile (nearest rank) of v[0..n-1], copied and sorted; 0 when n is 0 */
double fsm_percentile(const double *v, unsigned n, double p);
/* Builds name number k of thread th into buf (name_chars + 1 bytes), given the iteration's
 * time-stamp prefix; exposed for tests. */
void fsm_name(const struct fsm_config *c, uint64_t salt, const char *seq, unsigned th, uint64_t k,
	      char *buf);
#endif
