/* The comparison of results as text (side-by-side table) and as JSON. The numbers are
 * computed by the compare command (src/cmd/compare.c); this only lays them out. */
#ifndef FSB_REPORT_COMPARE_TEXT_H
#define FSB_REPORT_COMPARE_TEXT_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/stats.h"
#include "report/result_read.h"

enum cmp_verdict {
	CMP_NA,          /* a side lacks the figure, or the baseline is 0 */
	CMP_SAME,        /* no significant difference (or exactly equal) */
	CMP_BETTER,
	CMP_WORSE,
	CMP_CHANGED,     /* significant, but the figure has no better direction */
};

struct cmp_cell {
	bool present;
	struct stats_summary s;
};

struct cmp_delta {
	enum cmp_verdict verdict;
	bool pct_valid;
	double pct;              /* (mean - baseline mean) / baseline mean * 100 */
	bool tested;             /* Welch's test ran (>= 2 runs on both sides) */
	struct stats_welch w;    /* w.p: the test's own p-value */
	double p_adj;            /* Holm-adjusted over every test of the table; NaN untested */
	bool fails;              /* worse by more than --fail-if-worse */
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
	unsigned nfailing;
	bool untested;                 /* some delta could not be tested (single runs) */
	unsigned ntests;               /* tests in Holm's correction */
};

const char *cmp_verdict_name(enum cmp_verdict v);
/* v with enough digits to see a few % differences at ref's magnitude ("inf" when not finite) */
void cmp_fmt_num(double v, double ref, char *buf, size_t len);
/* significance stars of a tested delta by its adjusted p-value: "***" p < 0.001, "**" < 0.01,
 * "*" < 0.05, else "" */
const char *cmp_stars(const struct cmp_delta *d);
void cmp_print_text(FILE *out, const struct cmp_table *t);
json_t *cmp_json(const struct cmp_table *t);
/* a value in the unit people read: ns become us; returns the unit to show */
const char *cmp_display(const char *unit, double *v);
#endif
