/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workload contract. A workload is one file exporting one `struct workload_ops`, listed
 * once in workload/registry.c's X-macro; the command (cmd/run.c), the driver (core/driver.h),
 * `fsbench list`, the man page and the tests all walk that list.
 *
 * Hooks, in the order the driver calls them:
 *   defaults     fills a zeroed config with the workload's defaults (the shared options'
 *                too: RUN_OPTS_DEFAULTS).
 *   check        after parsing: cross-option constraints, derived fields. 0, or with one line
 *                in err: -EINVAL (bad input) or -EPERM/-EOPNOTSUPP (cannot run here); the
 *                command turns that into its exit status. Callers run it through
 *                workload_checks(), which then runs the engine's check. Nothing may be created here. argv is the command line (some tools' options have
 *                meaning by presence alone: fs_mark's -L).
 *   run          one run of the whole benchmark: creates its files through the cleanup
 *                registry, runs its phases through driver_phase(), fills the result (which
 *                begins with struct run_head). Returns 0 when it ran, completely or not (the
 *                head says how it ended), or -errno when it could not start, with the error
 *                recorded by run_fail() (a value with its message; nothing is printed).
 *   run_done     after the run's files were removed (or kept): release what the removal
 *                needed (fs_mark's directory handles). May be NULL.
 *   result_free  frees what a result holds (not the result itself).
 *   merge        adds a result of the same configuration from another process: counters
 *                summed, histograms merged exactly, windows joined (each result keeps its
 *                phases' absolute CLOCK_MONOTONIC release times, so the merged window runs
 *                from the first release to the last completion); -EINVAL when the shapes
 *                differ. May be NULL (then results cannot be merged).
 *
 * Across processes (fsbench-mpi, src/mpi/; all NULL: the workload runs in one process only).
 * Every process of a job runs the same config (the first one's, shipped as bytes: a config
 * holds no pointers but its options table's strings, which travel as strings); run.proc,
 * run.nprocs and run.job_salt (core/driver.h) say which process this is, and the workload
 * numbers its threads proc * threads + i, so names, seeds and thread numbers are the job's.
 *   pack         a result as bytes (core/pack.h) for the first process: only what merge and
 *                the report need (counters, histograms, windows, CPU, the kernel view), with
 *                absolute times minus clock_offset_ns, i.e. on the job's common timeline.
 *   unpack       the bytes back into a zeroed result (result_free frees it); -EPROTO for a
 *                malformed stream.
 *   pack_unit, unpack_unit, merge_unit, unit_free, unit_size
 *                the same for the reporting units handed to driver_unit() (fs_mark's
 *                iterations): the first process merges unit i of every process and reports
 *                the merged unit as one row. NULL: the workload has no units.
 *
 * The directories the run works in are not a hook but a declaration in the options table
 * (core/opt.h): the one OPT_STR or OPT_STRS option flagged OPT_F_TARGET ("-d"), with
 * OPT_F_TARGET_SHARED when a job's processes share it (mdtest's tasks), and an OPT_FLAG flagged
 * OPT_F_NAMES_DEVICES when, set, it makes that option name devices (tiotest -R). From it:
 *   workload_targets()    the kernel view's and the environment's targets, each missing
 *                         directory replaced by its nearest existing parent (devices as named);
 *   workload_rank_dirs()  the list fsbench-mpi points at DIR/rank.R, created and removed by the
 *                         job through the cleanup registry (--shared-dir leaves them alone);
 *   workload_target_opt() the option fsbench matrix refuses in the workload's arguments and
 *                         appends as "--OPT=MOUNTPOINT", so that the target goes through the
 *                         table like any option and the JSON's command line shows it. A
 *                         workload without one cannot run in a matrix.
 *
 * Presentation (report/) is reached through `report`: the classic text, the JSON, the
 * --profile-callgraph file. A workload without a classic format leaves it NULL and gets the
 * generic figure table and JSON. */
#ifndef FSB_WORKLOAD_WORKLOAD_H
#define FSB_WORKLOAD_WORKLOAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/figure.h"
#include "core/opt.h"

struct driver;
struct driver_result;
struct workload_report;
struct pack;
struct unpack;
struct opt_strs;
struct engine_opts;

struct workload_ops {
	const char *name;            /* the subcommand and the JSON's "workload" */
	const char *summary;         /* one line, for `fsbench list` and --help */
	const struct opt_cmd *cmd;   /* the options table (the shared ones included) */
	size_t config_size;
	size_t run_opts_off;         /* offsetof(config, run): struct run_opts */
	size_t result_size;          /* one run; begins with struct run_head */
	void (*defaults)(void *cfg);
	int (*check)(void *cfg, int argc, char **argv, char *err, size_t errlen);
	int (*run)(struct driver *d, const void *cfg, void *result);
	void (*run_done)(void *result);
	void (*result_free)(void *result);
	int (*merge)(void *dst, const void *src);
	/* the run's files stay at the end (tiotest --keep, fs_mark -k/-L/-F): for the last run's
	 * result (a run that could not start: its zeroed result), or with result NULL what the
	 * configuration asks for; NULL hook: never */
	bool (*keep)(const void *cfg, const void *result);
	const struct figure_set *figs;
	const struct workload_report *report;
	/* across processes (see above) */
	int (*pack)(const void *result, int64_t clock_offset_ns, struct pack *out);
	int (*unpack)(void *result, struct unpack *in);
	size_t unit_size;
	int (*pack_unit)(const void *unit, int64_t clock_offset_ns, struct pack *out);
	int (*unpack_unit)(void *unit, struct unpack *in);
	int (*merge_unit)(void *dst, const void *src);
	void (*unit_free)(void *unit);
	bool short_help_stderr;      /* -h prints on stderr (fs_mark does; both exit 1) */
	bool hidden;                 /* not listed (test workloads) */
};

/* The registry: the built-in workloads, then those registered at run time (tests). */
const struct workload_ops *workload_find(const char *name);
/* The i-th workload, NULL past the end. */
const struct workload_ops *workload_at(unsigned i);
/* Adds a workload (a test's); -EEXIST for a taken name, -ENOSPC when full. */
int workload_register(const struct workload_ops *w);

/* The run's target option (OPT_F_TARGET), NULL when it has none. */
const struct opt *workload_target_opt(const struct workload_ops *w);
/* Whether cfg's target option names devices (an OPT_F_NAMES_DEVICES flag is set). */
bool workload_names_devices(const struct workload_ops *w, const void *cfg);
/* The targets for the kernel view and the environment: up to max, each a value of the target
 * option or (when it does not exist yet) its nearest existing parent, held in *buf, which the
 * caller frees (NULL when nothing was resolved). How many, or -ENOMEM. */
int workload_targets(const struct workload_ops *w, const void *cfg, const char **out, unsigned max,
		     char **buf);
/* path, cut back to its nearest existing parent ("." for a relative name with none) */
void workload_nearest_existing(char *path);
/* The list fsbench-mpi points at DIR/rank.R: 0 with *out the list, or NULL when the job's
 * processes share the target; -ENOTDIR when there are no directories to give each process
 * (no target option, a single one, or it names devices). */
int workload_rank_dirs(const struct workload_ops *w, void *cfg, struct opt_strs **out);

/* The checks every caller runs after parsing (fsbench WORKLOAD, fsbench-mpi, the matrix): the
 * workload's check, then its engine's (engine_check) for what the table declares the run
 * does: where (the targets above) and whether with O_DIRECT (an OPT_FLAG flagged
 * OPT_F_DIRECT). The check hook's return convention. */
int workload_checks(const struct workload_ops *w, void *cfg, int argc, char **argv, char *err, size_t errlen);
/* The config's struct engine_opts (the table's OPT_GROUPS entry of the engines' options:
 * workload/run_opts.h's ENGINE_OPTS), NULL for a workload without an engine. */
struct engine_opts *workload_engine(const struct workload_ops *w, void *cfg);

/* The checks' one line in err (printf), and -EINVAL. */
int workload_bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A -d the workload creates when missing, one level deep (fs_mark, mdtest): 0 when it is a
 * directory or its parent is; else -EINVAL with one line in err. */
int workload_check_new_dir(const char *dir, char *err, size_t len);

static inline const struct run_opts *workload_run_opts(const struct workload_ops *w, const void *cfg)
{
	return (const struct run_opts *)((const char *)cfg + w->run_opts_off);
}
#endif
