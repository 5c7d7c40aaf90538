/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The analysis, report and history of a matrix result directory (what `fsbench matrix -o DIR`
 * writes, read by report/matrix_read.h): per cell and figure mean, 95 % interval and CV; each
 * axis' effect and every two axes' interaction, all tests corrected together (Holm-Bonferroni,
 * core/effects.h); written into DIR as summary.json, plot-compare.{svg,png} (and
 * plot-fill.{svg,png} for fs_mark), report.md and report.html (one self-contained file); the
 * runs recorded in the history database (report/history.h), idempotently; a short summary and
 * the report's path on term.
 *
 * The runner (`fsbench matrix`, cmd/matrix_run.c) calls matrix_report_opts() after its runs,
 * `fsbench report DIR` (cmd/report.c) on an existing directory. */
#ifndef FSB_REPORT_MATRIX_REPORT_H
#define FSB_REPORT_MATRIX_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct matrix_report_opts {
	const char *db;          /* the history database; NULL: history_default_path() */
	bool no_db;              /* record nothing */
	bool exclude_flagged;    /* runs flagged for other processes' CPU left out of the statistics */
	int fill_y;              /* fill plot's y: 0 files/sec, 1 aggregate */
	unsigned smooth;         /* fill plot: moving median over this many iterations (0: none) */
	unsigned profile_top;    /* rows of the side-by-side profile tables (0: 10) */
	bool (*stop)(void);      /* NULL, or true when the report is to end (the runner's signal):
				  * asked between its files and while the database is locked */
	const char *primary;     /* --primary KEY,...: the confirmatory figures; NULL: the declared ones */
	double equiv_pct;        /* --equivalence PCT; 0: VD_EQUIV_PCT */
	const char *junit;       /* --junit FILE: the primary effects and interactions as JUnit XML
				  * (report/junit.h; written with the other outputs); NULL: none */
};

/* o all zero: the defaults (the default database, flagged runs counted). 0; or, with a
 * one-line reason in err, -EINVAL when DIR is not a readable matrix result or an output cannot
 * be written there (checked first: nothing written), -ENODATA when everything was written but
 * no run could be used (all failed, or all flagged and --exclude-flagged: nothing compared),
 * -EIO when an output or the database could not be written (what was written is complete),
 * -EINTR when o->stop ended it (each file written is complete; the others are not there). */
int matrix_report_opts(const char *dir, const struct matrix_report_opts *o, FILE *term, char *err,
		       size_t errlen);
/* --repeat auto: whether every primary effect and interaction of DIR's runs so far is decided
 * (better, worse, equivalent, or without variation) at level alpha; *undecided counts the others.
 * Writes nothing. 0, or -EINVAL / -ENOMEM with the reason in err. */
int matrix_decided(const char *dir, const struct matrix_report_opts *o, double alpha, bool *decided,
		   unsigned *undecided, char *err, size_t errlen);
/* fsbench explain: DIR's Why (report/matrix_why.h) on term; with cell_a and cell_b (names) only
 * the effects between those two cells. Writes nothing. 0; -EINVAL with the reason in err (not a
 * readable matrix result, no such cell); -ENODATA when no primary effect is decided better or
 * worse (said on term); -ENOMEM. */
int matrix_explain(const char *dir, const char *cell_a, const char *cell_b, FILE *term, char *err, size_t errlen);
#endif
