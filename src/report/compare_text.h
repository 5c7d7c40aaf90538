/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The comparison of results as text (side-by-side table) and as JSON. The numbers are
 * computed by the compare command (src/cmd/compare.c); this only lays them out. */
#ifndef FSB_REPORT_COMPARE_TEXT_H
#define FSB_REPORT_COMPARE_TEXT_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/stats.h"
#include "core/verdict.h"
#include "report/result_read.h"

struct cmp_cell {
	bool present;
	struct stats_summary s;
};

struct cmp_delta {
	struct vd_test v;        /* against the baseline: estimate, family, verdict (core/verdict.h) */
	bool fails;              /* decided worse by more than --fail-if-worse */
};

struct cmp_row {
	const struct rr_figure *fig;   /* the first result's that has it (name, unit, direction) */
	struct cmp_cell *cell;         /* per result */
	struct cmp_delta *delta;       /* per result; [0] (the baseline) unused */
};

struct cmp_diff {
	const char *key;
	const char **value;            /* per result; NULL when that result lacks the fact */
};

struct cmp_table {
	unsigned nres;
	const struct rr_result *res;
	struct cmp_row *rows;
	unsigned nrows;
	struct cmp_diff *diffs;
	unsigned ndiffs;
	bool fail_set;
	double fail_pct;
	double equiv_pct;              /* --equivalence; 0: VD_EQUIV_PCT */
	unsigned nfailing;
	bool untested;                 /* some delta could not be tested (single runs) */
	unsigned nconfirm, nexplore;   /* tests in each family */
};

/* the delta's verdict by the figure's direction ("better", "equivalent", "undecided" ...) */
const char *cmp_verdict_name(const struct cmp_row *row, const struct cmp_delta *d);
/* v with enough digits to see a few % differences at ref's magnitude ("inf" when not finite) */
void cmp_fmt_num(double v, double ref, char *buf, size_t len);
void cmp_print_text(FILE *out, const struct cmp_table *t);
json_t *cmp_json(const struct cmp_table *t);
/* a value in the unit people read: ns become us; returns the unit to show */
const char *cmp_display(const char *unit, double *v);
#endif
