/* The statistics of an experiment of several axes (fsbench matrix): per cell and figure the
 * mean, its 95 % interval and CV; each axis' effect, one Welch's t-test for every pair of
 * cells that differ in exactly one axis; for every two axes the interaction (difference of
 * differences) of every 2x2 square of cells that differ only in those two axes; and Holm's
 * correction over all of these tests together, the family of one report (core/stats.h has
 * the formulas). Plain numbers in, plain numbers out: no file, no text.
 *
 * Which side is the baseline: the cell with the axis' earlier value (the order the experiment
 * lists the values in), so "ext4 -> btrfs" reads as the experiment was written. */
#ifndef FSB_CORE_EFFECTS_H
#define FSB_CORE_EFFECTS_H
#include <stdbool.h>

#include "core/stats.h"

#define EFF_MAX_AXES 8

struct eff_figure {
	bool rate;               /* harmonic mean, tests on reciprocals, interaction on the log scale */
	int dir;                 /* 1 higher is better, -1 lower is better, 0 neither */
};

struct eff_input {
	unsigned naxes, ncells, nfig;
	const unsigned *cell_value;      /* [cell * naxes + axis]: the index of the cell's value */
	const struct eff_figure *fig;    /* [nfig] */
	const double *const *v;          /* [cell * nfig + fig]: n[cell] values, NaN where a run lacks it */
	const unsigned *n;               /* [cell]: runs */
};

struct eff_cell {
	bool present;            /* at least one value */
	struct stats_summary s;
};

enum eff_kind { EFF_EFFECT, EFF_INTERACTION };
enum eff_verdict { EFF_NA, EFF_SAME, EFF_BETTER, EFF_WORSE, EFF_CHANGED };

struct eff_test {
	enum eff_kind kind;
	unsigned fig;
	unsigned axis, axis_b;   /* effect: the axis that differs; interaction: the two axes */
	unsigned cell[4];        /* effect: [0] baseline, [1] the other; interaction: A1B1, A2B1, A1B2, A2B2 */
	bool tested;             /* >= 2 values on every side (and positive rates for a log interaction) */
	bool pct_valid;
	double pct;              /* effect: (mean1 - mean0) / |mean0| * 100; interaction on the log scale:
				  * (ratio of ratios - 1) * 100 */
	struct stats_welch w;    /* effect */
	struct stats_interaction ia;   /* interaction */
	double p;                /* the test's own p-value; NaN untested */
	double p_adj;            /* Holm-adjusted over every test of the analysis; NaN untested */
	bool significant;        /* p_adj < 0.05 */
	enum eff_verdict verdict;
};

struct eff_result {
	struct eff_cell *cell;   /* [cell * nfig + fig] */
	struct eff_test *t;
	unsigned nt;
	unsigned ntests;         /* tests in the correction (tested ones) */
};

/* 0, or -1 out of memory (r safe to eff_free). */
int eff_analyze(const struct eff_input *in, struct eff_result *r);
void eff_free(struct eff_result *r);
const char *eff_verdict_name(enum eff_verdict v);
/* "***" p < 0.001, "**" < 0.01, "*" < 0.05 (adjusted), else "" */
const char *eff_stars(double p_adj);
#endif
