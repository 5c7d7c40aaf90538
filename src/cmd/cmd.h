/* Subcommands and the exit codes every one of them uses (documented in fsbench(1)). */
#ifndef FSB_CMD_H
#define FSB_CMD_H
#include <stddef.h>

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,         /* the run failed: I/O error, verification mismatch, ... */
	EXIT_USAGE = 2,          /* bad command line; nothing was created */
	EXIT_UNSUPPORTED = 3,    /* cannot run here: no permission, no O_DIRECT, ... */
	/* interrupted: 128 + signal (130 SIGINT, 143 SIGTERM) */
};

/* prog is how to name the command in messages: "fsbench tiotest", or "tiotest" via a link */
struct workload_ops;
/* Any registered workload as a command (cmd/run.c). */
int cmd_workload(const struct workload_ops *w, int argc, char **argv, const char *prog);
/* fsbench list [workloads|engines]: what this fsbench has, one per line. */
int cmd_list(int argc, char **argv, const char *prog);
int cmd_compare(int argc, char **argv, const char *prog);
int cmd_plot(int argc, char **argv, const char *prog);
int cmd_report(int argc, char **argv, const char *prog);
int cmd_history(int argc, char **argv, const char *prog);
int cmd_man_options(int argc, char **argv, const char *prog);

/* compare and plot: result files are operands after the options */
struct opt_cmd;
struct rr_result;
/* Splits argv into the options (opts[0] = argv[0]) and the file operands ("--" ends the
 * options). -1 with a message in err when there are more than maxfiles. */
int cmd_split_operands(const struct opt_cmd *c, int argc, char **argv, char **opts, int *nopts,
		       const char **files, int *nfiles, int maxfiles, char *err, size_t errlen);
/* Loads every file, or prints "PROG: 'FILE': problem" and returns -1 (nothing left loaded). */
int cmd_load_results(const char *prog, const char **files, int nfiles, struct rr_result *res);
#endif
