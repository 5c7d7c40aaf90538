/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench report DIR: the analysis, report and history of a matrix result directory again
 * (report/matrix_report.h), e.g. after fsbench changed, with other options, or into another
 * database. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "core/quote.h"
#include "core/verdict.h"
#include "report/matrix_report.h"
#include "report/opt_text.h"

struct report_config {
	const char *db;
	bool no_db;
	bool exclude_flagged;
	const char *y;
	uint64_t smooth;
	uint64_t profile_top;
	const char *primary, *equivalence;
	const char *junit;
	int help;
};

#define F(x) offsetof(struct report_config, x)
static const struct opt report_opts[] = {
	{ 0, "db", OPT_STR, F(db), "FILE", 0, 0, 0, 0,
	  "the history database the runs go into (default: $XDG_DATA_HOME/fsbench/history.db, else ~/.local/share/fsbench/history.db)" },
	{ 0, "no-db", OPT_FLAG, F(no_db), NULL, 0, 0, 0, 0, "record nothing in the history database" },
	{ 0, "exclude-flagged", OPT_FLAG, F(exclude_flagged), NULL, 0, 0, 0, 0,
	  "leave the runs flagged for other processes' CPU out of the statistics (default: counted, and marked)" },
	{ 0, "y", OPT_STR, F(y), "FIGURE", 0, 0, 0, 0, "the fill plot's y axis: files (fs_mark's files/sec) or aggregate" },
	{ 0, "smooth", OPT_UINT, F(smooth), "N", 0, 100000, 0, 0, "the fill plot: a moving median over N iterations (0: none)" },
	{ 0, "profile-top", OPT_UINT, F(profile_top), "N", 1, 1000, 0, 0, "rows of the profile tables" },
	{ 0, "primary", OPT_STR, F(primary), "FIG,...", 0, 0, 0, 0,
	  "the primary figures (keys, e.g. write.rate_mib_per_s, or rate_mib_per_s for every phase): the "
	  "confirmatory family (default: the experiment's, else the workload's declared ones)" },
	{ 0, "equivalence", OPT_STR, F(equivalence), "PCT", 0, 0, 0, 0,
	  "the equivalence margin: a ratio within [1/(1+PCT/100), 1+PCT/100] (90 % interval) is equivalent "
	  "(default: the experiment's, else 5)" },
	{ 0, "junit", OPT_STR, F(junit), "FILE", 0, 0, 0, 0,
	  "also write the primary effects and interactions as JUnit XML: a test case each, a failure for an "
	  "effect decided worse, skipped for undecided or untested (- standard output: the summary then goes to "
	  "standard error)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

static const struct opt_cmd report_cmd = {
	.name = "report",
	.summary = "Analyse a matrix result directory (DIR after the options: what fsbench matrix -o DIR wrote) again:\n"
		   "summary.json, plots, report.md and report.html into DIR; its runs into the history database.",
	.opts = report_opts,
};

static void report_defaults(struct report_config *c)
{
	memset(c, 0, sizeof(*c));
	c->profile_top = 10;
}

static void report_defaults_any(void *c)
{
	report_defaults(c);
}

const struct cmd_options report_options = { &report_cmd, sizeof(struct report_config), report_defaults_any };

int cmd_report(int argc, char **argv, const char *prog)
{
	struct report_config c, defaults;
	struct matrix_report_opts mo = { 0 };
	const char *dirs[2];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024], q[QUOTE_MAX];
	int nopts, ndirs, rc;

	report_defaults(&c);
	defaults = c;
	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&report_cmd, argc, argv, opts, &nopts, dirs, &ndirs, 1, err, sizeof(err)) ||
	    opt_parse(&report_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, !strcmp(err, "more than 1 results") ? "one directory only" : err);
		free(opts);
		return EXIT_USAGE;
	}
	free(opts);
	if (c.help) {
		opt_text_help(&report_cmd, &defaults, prog, stdout);
		printf("\nExit status: 0; 1 when an output or the database cannot be written, or the database is damaged;\n"
		       "2 on a bad command line, a directory that is not a readable matrix result (a file in it reached\n"
		       "through a symbolic link, not regular, or as root another user's: refused), or a --db path refused;\n"
		       "3 when no run could be used (nothing to compare: every run failed, or was flagged and left out by\n"
		       "--exclude-flagged), or cairo (libcairo2), which draws the plots, cannot be loaded.\n");
		return EXIT_OK;
	}
	if (ndirs != 1) {
		fprintf(stderr, "%s: needs the matrix result directory (usage: %s [OPTION]... DIR)\n", prog, prog);
		return EXIT_USAGE;
	}
	if (c.y && strcmp(c.y, "files") && strcmp(c.y, "aggregate")) {
		fprintf(stderr, "%s: option --y: '%s' is not files or aggregate\n", prog, quote_str(c.y, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (c.db && c.no_db) {
		fprintf(stderr, "%s: --db and --no-db contradict each other\n", prog);
		return EXIT_USAGE;
	}
	if (c.primary && vd_primary_check(c.primary)) {
		fprintf(stderr, "%s: option --primary: '%s' is not a comma-separated list of figure keys\n", prog,
			quote_str(c.primary, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (c.equivalence && vd_parse_equiv(c.equivalence, &mo.equiv_pct)) {
		fprintf(stderr, "%s: option --equivalence: '%s' is not a percentage above 0 and below 100\n", prog,
			quote_str(c.equivalence, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (c.junit && outputs_check(prog, &(const struct outputs_dest){ "--junit", c.junit, OUTFILE_REPLACE }, 1))
		return EXIT_USAGE;
	if ((rc = cmd_plot_ready(prog)))
		return rc;
	mo.junit = c.junit;
	mo.primary = c.primary;
	mo.db = c.db;
	mo.no_db = c.no_db;
	mo.exclude_flagged = c.exclude_flagged;
	mo.fill_y = c.y && !strcmp(c.y, "aggregate");
	mo.smooth = (unsigned)c.smooth;
	mo.profile_top = (unsigned)c.profile_top;
	/* --junit -: the XML alone on standard output, the summary on standard error */
	rc = matrix_report_opts(dirs[0], &mo, c.junit && outfile_is_stdout(c.junit) ? stderr : stdout, err,
				sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc == -EINVAL ? EXIT_USAGE : rc == -ENODATA ? EXIT_UNSUPPORTED : EXIT_FAILED;
	}
	return EXIT_OK;
}
