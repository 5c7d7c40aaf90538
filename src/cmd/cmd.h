/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Subcommands and the exit codes every one of them uses (documented in fsbench(1)). */
#ifndef FSB_CMD_H
#define FSB_CMD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/driver.h"
#include <stdint.h>

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,         /* the run failed: I/O error, verification mismatch, ... */
	EXIT_USAGE = 2,          /* bad command line; nothing was created */
	EXIT_UNSUPPORTED = 3,    /* cannot run here: no permission, no O_DIRECT, ... */
	/* interrupted: 128 + signal (130 SIGINT, 143 SIGTERM); SIGPIPE: 1 */
};

/* The one mapping from the errno that ended a run (a setup failure or the run's first error;
 * either sign) to the exit status: EXIT_UNSUPPORTED for "cannot run here" (EACCES, EPERM,
 * EROFS, EOPNOTSUPP, EBUSY), EXIT_FAILED for everything else. */
int cmd_exit_for_errno(int err);
/* The exit status of a run stopped by signal sig: 128 + sig, but 1 for SIGPIPE. */
int cmd_exit_for_signal(int sig);
/* A stop that is not announced on stderr (SIGPIPE: the reader went away). */
bool cmd_signal_quiet(int sig);

/* prog is how to name the command in messages: "fsbench tiotest", or "tiotest" via a link */
struct workload_ops;
/* Any registered workload as a command (cmd/run.c). */
int cmd_workload(const struct workload_ops *w, int argc, char **argv, const char *prog);
/* One run of a workload whose config is parsed and checked: the driver, the presentation (the
 * classic text, the JSON and the other files its options name), the exit status. The command
 * above and the experiment runner (cmd/matrix.c) both go through it; signal handlers and the
 * cleanup reporter are the caller's. */
struct cmd_run_io {
	const char *prog;            /* how messages name the command */
	int argc;                    /* the command line the JSON records */
	char **argv;
	FILE *text;                  /* the classic output; NULL: none */
	FILE *err;                   /* how the run ended, warnings, errors */
	struct driver_hooks hooks;   /* e.g. prepare_run */
	char *error;                 /* NULL, or filled with the first error as one line ("": none) */
	size_t errorlen;
};
int cmd_workload_run(const struct workload_ops *w, void *cfg, struct cmd_run_io *io);

/* A workload run by several processes as one job (fsbench-mpi: src/mpi/). The leader parses,
 * checks, prints and writes every output; the others run and hand it their results.
 * cmd_workload_job() calls these where a job differs from one process:
 *   agree    after the leader's parse, checks and output checks, on every process: code is
 *            the leader's verdict (an exit status, or CMD_RUN); every process gets it, and
 *            the leader's config into cfg. Returns the verdict.
 *   prepare  before the run: the job's driver hooks, sink and placement (d->cfg is cfg).
 *   gather   after the run and its cleanup (the files go first: a job's teardown can be
 *            short): the leader's res becomes the job's result, and the leader's sink sees
 *            the job's runs and units, which prints the classic output. 0 or -errno.
 *   json     adds the job's part to the leader's JSON document; sp, when not NULL, is the
 *            document's spool (report/json_spool.h), for its arrays of one element a phase.
 *   finish   the job's exit status: the leader's code, agreed by every process. */
struct driver;
struct driver_result;
struct json_t;
struct json_spool;
struct opt_cmd;
#define CMD_RUN (-1)
struct cmd_job {
	bool leader;
	const struct opt_cmd *opts;  /* the job's own options: --help lists them too */
	const void *opts_defaults;
	/* this process's place, into the config's run options before the leader's checks */
	unsigned proc, nprocs;
	uint64_t job_salt;
	int (*agree)(void *arg, const struct workload_ops *w, void *cfg, int code);
	void (*prepare)(void *arg, struct driver *d, void *cfg);
	int (*gather)(void *arg, struct driver *d, struct driver_result *res);
	void (*json)(void *arg, struct json_t *root, struct json_spool *sp);
	int (*finish)(void *arg, int code);
	void *arg;
};
int cmd_workload_job(const struct workload_ops *w, int argc, char **argv, const char *prog,
		     const struct cmd_job *job);
/* fsbench list [workloads|engines]: what this fsbench has, one per line; alone, every command. */
int cmd_list(int argc, char **argv, const char *prog);
int cmd_compare(int argc, char **argv, const char *prog);
int cmd_plot(int argc, char **argv, const char *prog);
int cmd_matrix(int argc, char **argv, const char *prog);
int cmd_report(int argc, char **argv, const char *prog);
/* fsbench explain DIR [CELL_A CELL_B] (cmd/explain.c) */
int cmd_explain(int argc, char **argv, const char *prog);
/* fsbench export --openmetrics FILE DIR|RESULT... (cmd/export.c) */
int cmd_export(int argc, char **argv, const char *prog);
int cmd_history(int argc, char **argv, const char *prog);
int cmd_man_options(int argc, char **argv, const char *prog);

/* A command's options as data: the table its parser, --help and the man page read, the size
 * of its config, and what fills a zeroed config with the defaults (NULL: zero is the default). */
struct opt_cmd;
struct cmd_options {
	const struct opt_cmd *cmd;
	size_t config_size;
	void (*defaults)(void *cfg);
};
extern const struct cmd_options compare_options, plot_options, matrix_options, report_options,
	explain_options, export_options, history_options;

/* The commands besides the workloads (cmd/commands.c), as git's table of builtins: name,
 * function, summary, options (NULL: none in a table), hidden from --help and list. */
struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv, const char *prog);
	const char *summary;
	const struct cmd_options *opts;
	bool hidden;
};
/* The i-th command, NULL past the last; by name (hidden ones too), or NULL. */
const struct subcmd *subcmd_at(unsigned i);
const struct subcmd *subcmd_find(const char *name);
/* fsbench __after fsck|freespace DEVICE FSTYPE [--json FILE] [--after-timeout T] (cmd/after.c,
 * hidden) */
int cmd_after(int argc, char **argv, const char *prog);
/* --after-timeout (matrix and __after): "auto" (FSDEV_TIMEOUT_AUTO, sys/fsdev.h) or a time as
 * OPT_TIME reads it, 1 s to 30 days, in ns. 0, -EINVAL or -ERANGE. */
int after_timeout_parse(const char *s, uint64_t *ns);

/* compare and plot: result files are operands after the options */
struct opt_cmd;
struct rr_result;
/* Splits argv into the options (opts[0] = argv[0]) and the file operands ("--" ends the
 * options). -1 with a message in err when there are more than maxfiles. */
int cmd_split_operands(const struct opt_cmd *c, int argc, char **argv, char **opts, int *nopts,
		       const char **files, int *nfiles, int maxfiles, char *err, size_t errlen);
/* Loads every operand (cmd/results.c): a result file, a matrix directory (each cell one result,
 * named by the cell, or DIR:CELL when cells of several directories are loaded) or DIR:CELL; at
 * most max results, *nres of them. Or prints "PROG: 'OPERAND': problem" and returns -1 (nothing
 * left loaded). */
int cmd_load_results(const char *prog, const char **ops, int nops, struct rr_result *res, int max, int *nres);
/* Every command that draws (plot, report, matrix, history trend -o) asks first, before it
 * writes or sets up anything: 0 when cairo is loaded, else EXIT_UNSUPPORTED with one line said
 * ("PROG: cannot draw: libcairo.so.2: ..."). */
int cmd_plot_ready(const char *prog);
/* plot: results with the same label (and workload) become one, their runs together, in the
 * first one's place: a matrix cell's run files are one series. 0 or -ENOMEM. */
int cmd_group_labels(struct rr_result *res, int *nres);
#endif
