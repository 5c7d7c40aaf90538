/* Subcommands and the exit codes every one of them uses (documented in fsbench(1)). */
#ifndef FSB_CMD_H
#define FSB_CMD_H

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,         /* the run failed: I/O error, verification mismatch, ... */
	EXIT_USAGE = 2,          /* bad command line; nothing was created */
	EXIT_UNSUPPORTED = 3,    /* cannot run here: no permission, no O_DIRECT, ... */
	/* interrupted: 128 + signal (130 SIGINT, 143 SIGTERM) */
};

/* prog is how to name the command in messages: "fsbench tiotest", or "tiotest" via a link */
int cmd_tiotest(int argc, char **argv, const char *prog);
int cmd_fs_mark(int argc, char **argv, const char *prog);
int cmd_man_options(int argc, char **argv, const char *prog);
#endif
