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
#endif
