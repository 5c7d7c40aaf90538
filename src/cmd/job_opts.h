/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options of a job of several processes (fsbench-mpi: src/mpi/), beside the workload's:
 * declared once here, so that fsbench-mpi parses them, --help lists them and the man page is
 * generated from them (fsbench __man-options mpi) even where fsbench-mpi is not built. */
#ifndef FSB_CMD_JOB_OPTS_H
#define FSB_CMD_JOB_OPTS_H
#include <stdbool.h>
#include <stdint.h>

#include "core/opt.h"

struct job_opts {
	bool shared_dir;             /* --shared-dir */
	uint64_t stonewall_ns;       /* --stonewall; 0: none */
	uint64_t timeout_ns;         /* --mpi-timeout */
};

extern const struct opt_cmd job_opt_cmd;
void job_opts_defaults(struct job_opts *o);
/* Moves the job's options (long names, "--name VALUE" or "--name=VALUE") out of argv into
 * jargv (jargv[0] = argv[0]): argv keeps the workload's, in order. jargv has room for argc + 1
 * entries. Both lists end with NULL. */
void job_opts_split(int *argc, char **argv, int *jargc, char **jargv);
#endif
