/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload's presentation: its classic text, its JSON, its folded profile stacks. The
 * command (cmd/run.c) drives these hooks from the driver's sink; they format what the
 * workload and the driver computed and never compute figures themselves.
 *
 * Hooks (any may be NULL; st is state_size zeroed bytes the command owns):
 *   begin      before the first run; 0 or -errno (e.g. no memory)
 *   run_begin  a run starts (fs_mark prints its header here)
 *   unit       a reporting unit completed (fs_mark: an iteration's row)
 *   run_end    a run ended: its tables, how it ended, the --sysstats/--profile tables
 *   summary    after the last run, with more than one run: the --repeat summary
 *   json       the whole result as JSON (NULL when out of memory)
 *   spool      the arrays json's document leaves out of memory (report/json_spool.h: fs_mark's
 *              iterations), for the writers to splice in; NULL: none
 *   folded     --profile-callgraph: every run's stacks into f; 0 or -errno
 *   end        frees st's contents
 *
 * Reading results back (compare, plot, `fsbench report`; none of report/ names a workload):
 *   layout     where the result keeps its groups, iterations, latency and time series
 *              (report/result_read.h); NULL: its run figures and "complete" only
 *   classic_from_figures
 *              one run of a result read back (run 0 of r) as the workload's classic table,
 *              rebuilt from its figures and facts (a matrix report's cell); NULL: the
 *              figures listed one a line */
#ifndef FSB_REPORT_WORKLOAD_REPORT_H
#define FSB_REPORT_WORKLOAD_REPORT_H
#include <jansson.h>
#include <stdio.h>

#include "core/driver.h"
#include "report/json_spool.h"

struct rr_layout;
struct rr_result;

/* Where the presentation goes. */
struct report_out {
	const struct workload_ops *w;
	FILE *text;                  /* the classic output: stdout, NULL when --json - owns it */
	FILE *err;                   /* stderr: how a run ended, interruptions */
	FILE *log;                   /* the workload's own log (fs_mark -l), NULL for none; the
				      * command opens it (cmd/outputs.h) and checks every write */
	const char *prog;            /* "fsbench tiotest", or "tiotest" through a link */
	int argc;
	char **argv;
	const char *log_path;        /* the log's path (report->log_path), NULL for none */
	int log_err;                 /* first failed write to the log: -errno, 0 when fine */
	bool quiet_signal;           /* run_end: the run was stopped by a signal that is not said
				      * (SIGPIPE: the reader went away) */
	bool keeps;                  /* run_end: the run's files stay (--keep, fs_mark -k/-L/-F) */
};

struct workload_report {
	size_t state_size;
	int (*begin)(void *st, const void *cfg, struct report_out *o);
	void (*run_begin)(void *st, unsigned run, long long started_unix_s);
	void (*unit)(void *st, unsigned run, const void *unit);
	void (*run_end)(void *st, unsigned run, const void *result);
	void (*summary)(void *st, const struct driver_result *res);
	json_t *(*json)(void *st, const struct driver_result *res);
	struct json_spool *(*spool)(void *st);
	int (*folded)(void *st, FILE *f, const struct driver_result *res);
	void (*end)(void *st);
	/* the workload's own log file: its path in cfg (NULL: none) */
	const char *(*log_path)(const void *cfg);
	/* hints for the warning lines: what to change so reads / writes reach the device */
	const char *hint_reads, *hint_writes;
	const struct rr_layout *layout;
	void (*classic_from_figures)(FILE *o, const struct rr_result *r);
};
#endif
