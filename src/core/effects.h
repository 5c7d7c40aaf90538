/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The statistics of an experiment of several axes (fsbench matrix): per cell and figure the
 * mean, its 95 % interval and CV; each axis' effect for every pair of cells that differ in
 * exactly one axis; for every two axes the interaction (difference of differences) of every
 * 2x2 square of cells that differ only in those two axes. Each is estimated, corrected in its
 * family and given a verdict by core/verdict (paired by round when the runs were interleaved
 * and every round is complete). Plain numbers in, plain numbers out: no file, no text.
 *
 * Which side is the baseline: the cell with the axis' earlier value (the order the experiment
 * lists the values in), so "ext4 -> btrfs" reads as the experiment was written. */
#ifndef FSB_CORE_EFFECTS_H
#define FSB_CORE_EFFECTS_H
#include <stdbool.h>

#include "core/stats.h"
#include "core/verdict.h"

#define EFF_MAX_AXES 8

struct eff_figure {
	bool rate;               /* harmonic mean in the cell summaries */
	bool ratio;              /* the effect is a ratio B/A on the log scale (rates, times,
				  * latencies); else a difference (percentages, counts) */
	int dir;                 /* 1 higher is better, -1 lower is better, 0 neither */
	enum vd_family family;   /* confirmatory (primary), exploratory, or none (derived) */
};

struct eff_input {
	unsigned naxes, ncells, nfig;
	const unsigned *cell_value;      /* [cell * naxes + axis]: the index of the cell's value */
	const struct eff_figure *fig;    /* [nfig] */
	const double *const *v;          /* [cell * nfig + fig]: n[cell] values, NaN where a run lacks it */
	const unsigned *n;               /* [cell]: runs */
	const unsigned *const *round;    /* [cell]: each run's round, or NULL: the runs were not
					  * interleaved in rounds (no pairing) */
	struct vd_opts opts;             /* alpha, equivalence margin */
};

struct eff_cell {
	bool present;            /* at least one value */
	struct stats_summary s;
	double mean; /* the arithmetic mean, whatever s is (a difference's scale) */
};

enum eff_kind { EFF_EFFECT, EFF_INTERACTION };

struct eff_test {
	enum eff_kind kind;
	unsigned fig;
	unsigned axis, axis_b;   /* effect: the axis that differs; interaction: the two axes */
	unsigned cell[4];        /* effect: [0] baseline, [1] the other; interaction: A1B1, A2B1, A1B2, A2B2 */
	struct vd_test v;        /* the estimate, its family, p_adj and verdict (core/verdict.h) */
};

struct eff_result {
	struct eff_cell *cell;   /* [cell * nfig + fig] */
	struct eff_test *t;
	unsigned nt;
	unsigned nconfirm, nexplore;   /* tests in each family */
};

/* 0, or -1 out of memory (r safe to eff_free). */
int eff_analyze(const struct eff_input *in, struct eff_result *r);
void eff_free(struct eff_result *r);
#endif
