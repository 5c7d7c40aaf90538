/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The changes in a history: each series (one figure of one configuration, in run order) split
 * by core/edivisive, and each change decided as core/verdict decides every comparison: the runs
 * between the previous change (or the start) and this one against the runs from it to the next
 * change (or the end), unpaired, primary figures confirmatory (Holm) and the others exploratory
 * (Benjamini-Hochberg) over every change found. A change point is where the series differs most;
 * the verdict's test is on the same runs, so its p-value is optimistic (selection): the
 * permutation p-value is the change's own significance, the verdict says how large and how sure
 * the step is under the rules every comparison follows. Context at a change: the other figures
 * of the same runs on either side, compared as one exploratory family. */
#ifndef FSB_CORE_HCHANGE_H
#define FSB_CORE_HCHANGE_H
#include <stdbool.h>
#include <stdint.h>

#include "core/edivisive.h"
#include "core/stats.h"
#include "core/verdict.h"

struct hc_series {
	const double *v;         /* values in run order */
	unsigned n;
	bool log_ok;             /* a ratio figure: detected on ln v (when every value is > 0) */
	enum vd_family fam;
	uint64_t seed;           /* the permutations' (hc_seed of the series' name: stable across calls) */
};

struct hc_change {
	unsigned series;
	unsigned lo, at, hi;     /* before: runs [lo, at), after: [at, hi) */
	double q, p_perm;        /* E-divisive's statistic and permutation p-value */
	struct vd_test t;        /* after against before */
};

/* Every change of every series, series by series in index order; *out malloc'ed (NULL when none).
 * o: the detection's options (its seed is combined with each series'). 0; -ENOMEM; -E2BIG (a
 * series longer than EDIV_MAX_N: *bad is its index). */
int hc_find(const struct hc_series *s, unsigned ns, const struct ediv_opts *o, struct hc_change **out, unsigned *n,
	    unsigned *bad);
/* FNV-1a 64 of a name */
uint64_t hc_seed(const char *name);
/* Context: nf figures' values before (a[i], na[i]) and after (b[i], nb[i]) one change, each a
 * test in one exploratory family (log_ok[i] as vd_compare's). 0, or -ENOMEM. */
int hc_context(const double *const *a, const unsigned *na, const double *const *b, const unsigned *nb,
	       const bool *log_ok, unsigned nf, struct vd_test *out);
/* The history's summary of one group of runs, the same in show, trend, check and report: the
 * geometric mean and its 95 % interval on the log scale (what the verdicts compare: ratios of
 * geometric means), percentages and figures with a value <= 0 the arithmetic mean and its t
 * interval; the interval cut at the lowest and highest run (*clipped then), so that no whisker
 * reaches beyond the data (a 95 % interval of 2 runs spans 12.7 standard errors). 0, or -EINVAL
 * without a value. */
int hc_summary(const double *v, unsigned n, bool pct, struct stats_summary *s, bool *clipped);
/* A bisection's "good" for one figure: t's interval rules out that B is worse than A by more than
 * pct % (dir: 1 higher is better, -1 lower; 0: nothing to rule out, true). The bound is the
 * interval's end on the worse side, as a % of A (a ratio's (bound - 1) 100, a difference's
 * bound / |A| 100); a figure without variation compares its values. A one-sided non-inferiority
 * margin: "not worse by more than pct", at the interval's level. */
bool hc_rules_out_worse(const struct vd_test *t, int dir, double pct);
#endif
