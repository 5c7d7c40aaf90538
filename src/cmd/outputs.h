/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The files a command's options name (--json, the folded stacks, fs_mark's -l log, plot -o):
 * checked together before anything runs, opened and committed through outfile, each failure
 * said once in one style. */
#ifndef FSB_CMD_OUTPUTS_H
#define FSB_CMD_OUTPUTS_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/driver.h"
#include "core/figure.h"
#include "core/outfile.h"
#include "report/json_spool.h"

struct outputs_dest {
	const char *opt;             /* as the user knows it: "--json", "-l" */
	const char *path;
	enum outfile_mode mode;
};

/* Checks every destination (outfile_check). The first that cannot be written is one line,
 * "PROG: option OPT: cannot write 'PATH': reason", and the result is EXIT_USAGE; else 0. */
int outputs_check(const char *prog, const struct outputs_dest *v, unsigned n);
/* The workload commands' destinations: --json, --csv, --stream, --profile-callgraph's folded
 * file (derived as the writer does) and log (fs_mark -l; NULL: none). 0 or EXIT_USAGE, said. */
int outputs_check_run(const char *prog, const struct run_opts *o, const char *log);
/* Opens path (NULL after "PROG: cannot write 'PATH': reason"). */
struct outfile *outputs_open(const char *prog, const char *path, enum outfile_mode mode);
/* outfile_commit, a failure said ("PROG: cannot write 'PATH': reason"; nothing for EPIPE on
 * standard output, which the exit status says). 0 or -errno. */
int outputs_commit(const char *prog, struct outfile *of, const char *path);
/* root as indented JSON into path, complete or absent. 0 or -errno, said. */
int outputs_json(const char *prog, const char *path, const json_t *root);
/* the same, with the arrays root leaves in sp spliced in (report/json_spool.h; NULL: none) */
int outputs_json_spooled(const char *prog, const char *path, const json_t *root,
			 const struct json_spool *sp);
/* root's declared figures (fs) as CSV (report/csv.h) into path, complete or absent, the
 * arrays root leaves in sp (NULL: none) read from it. 0 or -errno, said. */
int outputs_csv(const char *prog, const char *path, const struct figure_set *fs, const json_t *root,
		const struct json_spool *sp);
/* The --profile-callgraph file: opened for the caller to write the stacks into, then
 * outputs_commit. NULL when it cannot be opened (said) or there is nowhere to write it
 * (*rc 0, said as a note). */
struct outfile *outputs_folded_open(const char *prog, const char *folded, const char *json,
				    char *path, size_t len, int *rc);
#endif
