/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver: what every workload shares, owned once. A command (cmd/run.c) parses a
 * workload's options into its config, then hands the workload's ops (workload/workload.h) and
 * the config to driver_run(), which
 *   - captures the environment at the start (host, the targets' mounts and devices),
 *   - opens the kernel view (observe.h) once for every run,
 *   - runs the workload --repeat times, cleaning up each run's files in between,
 *   - brackets every phase (driver_phase): kernel view, /proc/self/io, profile, the release hook,
 *   - tallies the honesty warnings, keeps the first error and the signal that stopped the run,
 * and returns everything in struct driver_result. Nothing here prints or picks an exit status:
 * presentation goes through the sink (callbacks the command supplies), errors travel as values.
 *
 * Hook points (HACKING.md draws them):
 *   hooks.release       in every phase, after all workers are parked and before they are
 *                       released: several processes can be released together (an MPI barrier).
 *   hooks.prepare_run   before each run of a repeat: prepare the target (re-mkfs, remount,
 *                       drop caches). A failure stops the repeats as a first error would.
 *   hooks.phase_end     after each phase's workers are joined and its kernel view closed:
 *                       what the phase did, for a record beside the workload's (fsbench-mpi's
 *                       per-rank phases, skew and stonewall figures).
 *   stonewall_ns        every phase ends that long after its release (IOR -D, mdtest -W): the
 *                       workers stop at their next op (RUN_STOP_PHASE), the phase counts what
 *                       was done, the next phase runs; phase.stonewalled says it happened.
 *   no_kernel_view      another process on this host takes the kernel view (fsbench-mpi: one
 *                       rank per host reads diskstats, /proc/stat, vmstat).
 *   driver_result_merge()  results of several processes merged (counters summed, histograms
 *                       merged exactly), through the workload's merge hook.
 *
 * Process-wide state: the stop flag and the signal are process-wide by nature; the first error
 * is reset at each driver_run() and copied into its result, so one process can run the driver
 * any number of times (the experiment runner does). */
#ifndef FSB_CORE_DRIVER_H
#define FSB_CORE_DRIVER_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/afterrun.h"
#include "core/observe.h"
#include "core/run.h"
#include "core/warn.h"
#include "sys/env.h"
#include "sys/procio.h"

struct workload_ops;

/* The options every workload shares (workload/run_opts.h declares them once); a workload's config
 * embeds this struct as its member `run`. */
struct run_opts {
	const char *json;            /* --json FILE ('-': stdout) */
	const char *csv;             /* --csv FILE: the figures, a row per phase or iteration */
	const char *stream;          /* --stream FILE: interval samples as JSON Lines, live */
	uint64_t repeat;             /* --repeat N */
	const char *label;           /* --label NAME */
	uint64_t interval_ns;        /* --interval: time series resolution */
	uint64_t time_limit_ns;      /* --time-limit: every phase ends that long after its release */
	uint64_t ramp_ns;            /* --ramp: every phase's first TIME left out of its figures */
	bool quiet;                  /* --quiet: no progress line, no warnings on stderr */
	bool sysstats;               /* --sysstats */
	bool profile, profile_callgraph;
	bool profile_inclusive;      /* call chains and the inclusive table, no folded file */
	uint64_t profile_hz, profile_top;
	const char *profile_folded;  /* --profile-folded FILE */
	/* this process's place in a job of several (fsbench-mpi), set by the job, not by options:
	 * process proc of nprocs (0 of 1 alone); job_salt, when not 0, is the job's seed for
	 * names that must be unique across its processes (the same on every process) */
	unsigned proc, nprocs;
	uint64_t job_salt;
};

/* the job's processes: 1 alone (a zeroed run_opts counts as alone too) */
static inline unsigned run_opts_nprocs(const struct run_opts *o)
{
	return o->nprocs ? o->nprocs : 1;
}

/* How a run ended. */
enum run_end {
	RUN_END_DONE,                /* every phase or iteration ran */
	RUN_END_FULL,                /* fill mode: the filesystem is full (a complete result) */
	RUN_END_NOSPACE,             /* not enough space to start: a failure */
	RUN_END_SIGNAL,              /* stopped by a signal */
	RUN_END_ERROR,               /* stopped by the run's first error */
};

/* Every workload's run result begins with this. */
struct run_head {
	enum run_end end;
	bool complete;               /* DONE or FULL */
	int end_err;                 /* errno behind FULL or NOSPACE */
	char end_detail[PATH_MAX + 640];   /* one line for FULL or NOSPACE */
	long long started_unix_s;
	unsigned index;              /* 0-based run of the repeat */
	struct afterrun after;       /* the sync after the run (the driver's, core/afterrun.h) */
};

/* The environment captured when the command started (the JSON's "environment"). */
struct driver_env {
	bool host_ok;
	struct env_host host;
	unsigned ntargets;
	const char *targets[64];     /* as named on the command line, or a missing directory's
				      * nearest existing parent (workload_targets()) */
	char *targets_buf;           /* ... which lives here */
	struct env_mount *mounts;    /* ntargets entries; mount_ok[i] false when unknown */
	bool mount_ok[64];
	struct env_queue *queues;    /* ntargets entries: the target's disk's request queue;
				      * queue_ok[i] false when it has none (tmpfs) or unknown */
	bool queue_ok[64];
};

/* Presentation callbacks, supplied by the command; any may be NULL. unit: a workload's
 * reporting unit as it completes (fs_mark's iteration rows). */
struct driver_sink {
	void (*run_begin)(void *arg, unsigned run, long long started_unix_s);
	void (*unit)(void *arg, unsigned run, const void *unit);
	void (*run_end)(void *arg, unsigned run, const void *result);
	void (*note)(void *arg, const char *line);    /* a workload's debug line (tiotest -D) */
	void (*progress)(const struct progress_view *v); /* the live status line (progress set) */
	/* an interval sample of the phase in progress as it completes (--stream), from the
	 * phase's reporter thread */
	void (*sample)(void *arg, unsigned run, const struct phase *p, const struct sample *s);
	void *arg;
};

struct driver_hooks {
	int (*release)(void *arg, const struct phase *p);       /* 0 or -errno */
	int (*prepare_run)(void *arg, unsigned run);             /* 0 or -errno */
	/* obs: the phase's kernel view, NULL when none was taken */
	void (*phase_end)(void *arg, const struct phase *p, const struct observe_phase *obs);
	void *arg;
};

struct driver {
	const struct workload_ops *w;
	const void *cfg;
	const struct run_opts *opts;
	struct driver_sink sink;
	struct driver_hooks hooks;
	bool progress;               /* a live status line on stderr */
	const char *prog;            /* how messages name the command: only for perf's one line */
	uint64_t stonewall_ns;       /* 0: phases run to their end */
	bool no_kernel_view;         /* another process takes this host's kernel view */
	/* the session: valid during driver_run() */
	struct observe obs;
	bool obs_open;
	unsigned run;                /* the run in progress, 0-based */
	struct warn_tally *warns;
	bool warns_short;
};

struct driver_result {
	unsigned nruns;              /* runs that ran (complete or not) */
	void *runs;                  /* nruns results of w->result_size bytes each */
	bool failed;                 /* a first error was recorded */
	struct run_error error;      /* the first error (valid when failed) */
	int signal;                  /* the signal that stopped the command, 0 for none */
	bool nostart;                /* a run could not start (its error is the first error) */
	bool cleanup_failed;         /* something fsbench created could not be removed */
	/* where the first error happened, for a job of several processes ("rank 2 on host n1:
	 * "), printed before the error; "" for one process */
	char origin[192];
	bool stopped_between;        /* the signal came between two runs */
	struct driver_env env;
	struct warn_tally warns;     /* every run's warnings, for one stderr line per kind */
	bool warns_short;            /* out of memory: some warnings lost their iteration numbers */
	/* the kernel view's devices, for the warning text */
	struct blockdev *targets;
	unsigned ntargets;
	bool profiled;               /* perf was open (--profile and permitted) */
	char perf_why[512];          /* --profile asked, not permitted: why ("" otherwise) */
};

/* Runs the workload opts->repeat times. d->w, cfg, opts, sink, hooks, progress and prog are the
 * caller's; the rest is the driver's. Returns 0 (see res for how it went) or -ENOMEM. */
int driver_run(struct driver *d, struct driver_result *res);
/* After the results are written: removes the last run's files (forgets them with keep) and
 * releases its state. Returns cleanup_run()'s count of what could not be removed. */
int driver_finish(const struct workload_ops *w, struct driver_result *res, bool keep);
void driver_result_free(const struct workload_ops *w, struct driver_result *res);
/* the i-th run's result */
static inline void *driver_result_run(const struct workload_ops *w, const struct driver_result *res,
				      unsigned i);

/* ---- for workloads ---------------------------------------------------------------------- */
/* Runs one phase inside the kernel view and /proc/self/io window (obs, io may be NULL), with
 * the release hook between "all parked" and "release". Returns phase_run()'s result. */
int driver_phase(struct driver *d, struct phase *p, struct observe_phase *obs, struct procio *io);
/* The warnings of a phase or iteration whose figures are complete: computed from w, kept in
 * obs->warns (for the JSON) and tallied for stderr. label is static ("write", "iteration");
 * iter is 1-based or 0 for none. */
void driver_warn(struct driver *d, struct observe_phase *obs, struct warn_phase *w,
		 const char *label, unsigned iter);
/* A debug line for the sink (printed on stderr by the command). */
void driver_note(struct driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands a completed reporting unit to the sink (fs_mark: an iteration's row). */
void driver_unit(struct driver *d, const void *unit);

/* A run's head as an MPI rank sends it (workload_ops.pack/unpack start with it). */
struct pack;
struct unpack;
void driver_head_pack(struct pack *o, const struct run_head *h);
void driver_head_unpack(struct unpack *u, struct run_head *h);
/* What is process-generic in merging the results of processes side by side (workload_ops.merge):
 * the head (complete if both are; the end that weighs more, error > signal > no space > full >
 * done, with its errno and detail), a window on the job's timeline joined with another (from
 * the first start to the last end), and an engine's io-wq workers and submitting calls, which
 * add up. The workloads' merge hooks keep only their own counters. */
struct engine_workers;
struct engine_submit_stats;
void driver_head_merge(struct run_head *dst, const struct run_head *src);
void driver_window_join(uint64_t *start_ns, uint64_t *wall_ns, uint64_t start2_ns, uint64_t wall2_ns);
void driver_engine_merge(struct engine_workers *wq, struct engine_submit_stats *sub,
			 const struct engine_workers *wq2, const struct engine_submit_stats *sub2);

/* Merges src into dst, run by run, through the workload's merge hook: the results of several
 * processes that ran the same configuration side by side. -EINVAL when they differ in shape. */
int driver_result_merge(const struct workload_ops *w, struct driver_result *dst,
			const struct driver_result *src);

#include "workload/workload.h"
static inline void *driver_result_run(const struct workload_ops *w, const struct driver_result *res,
				      unsigned i)
{
	return (char *)res->runs + (size_t)i * w->result_size;
}
#endif
