/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Change points in a series in run order: E-divisive means with a permutation test (Matteson and
 * James 2014, "A nonparametric approach for multiple change point analysis of multivariate data",
 * JASA 109:334-345; R's ecp::e.divisive), as Hunter (datastax-labs/hunter) and MongoDB's
 * signal processing (Daly et al. 2020, ICPE) use it on performance histories.
 *
 * The statistic. For a segment y[0..m) split at tau (X = y[0..tau), Y = y[tau..m)), with
 * d(a, b) = |a - b|^alpha (0 < alpha < 2):
 *     E(tau) = 2/(tau (m - tau)) sum_{i<tau<=j} d(y_i, y_j)
 *              - sum_{i<k<tau} d / C(tau, 2) - sum_{tau<=j<k} d / C(m - tau, 2)
 *     Q(tau) = tau (m - tau) / m * E(tau)
 * the scaled empirical energy distance between the two sides: 0 in expectation when X and Y
 * come from one distribution, growing with any difference in distribution (alpha < 2), not only
 * in the mean. The split of a segment is its tau with the largest Q, each side at least min_size
 * values. As in Daly et al. and Hunter, the segment's end is fixed (ecp also searches it): the
 * series is a history, its segments end at the changes found so far.
 *
 * The test. Hierarchical, one change per round: the best split of every current segment; the
 * largest Q of them is tested by permutation: R times, the values are shuffled within each
 * segment and the largest Q over all segments taken again; p = (1 + #{Q_perm >= Q}) / (R + 1).
 * With p <= sig the change is kept and the next round starts; else the search ends. Under no
 * change the values are exchangeable, so the first round's false-alarm rate is at most sig
 * (tests/unit/test_edivisive.c measures it on flat series). The shuffles come from a seeded
 * generator (splitmix64): the same series gives the same answer on every machine.
 *
 * Defaults (fsbench(1) HISTORY, history changes): alpha 1, sig 0.05, R 199 permutations, min_size
 * 3 values per side, at most 16 changes. Time O(R m^2) per round, memory O(m^2) for the distances. */
#ifndef FSB_CORE_EDIVISIVE_H
#define FSB_CORE_EDIVISIVE_H
#include <stdint.h>

#define EDIV_ALPHA 1.0
#define EDIV_SIG 0.05
#define EDIV_PERMS 199
#define EDIV_MIN_SIZE 3
#define EDIV_MAX_CHANGES 16
#define EDIV_MAX_N 1024          /* a longer series is refused (-E2BIG): n^2 distances (8 MiB) */

struct ediv_opts {
	double alpha;            /* EDIV_ALPHA */
	double sig;              /* EDIV_SIG */
	unsigned perms;          /* EDIV_PERMS */
	unsigned min_size;       /* EDIV_MIN_SIZE, >= 2 */
	uint64_t seed;
};

struct ediv_change {
	unsigned at;             /* the first index after the change */
	double q;                /* its Q */
	double p;                /* its permutation p-value */
};

/* Q of y[0..m) split at tau (2 <= tau <= m - 2); NaN otherwise */
double ediv_q(const double *y, unsigned m, unsigned tau, double alpha);
/* The split of y[0..m) with the largest Q, each side >= min_size: 0 with *tau, *q; -EINVAL when
 * m < 2 min_size (or min_size < 2); -ENOMEM. */
int ediv_best(const double *y, unsigned m, unsigned min_size, double alpha, unsigned *tau, double *q);
/* Change points of y[0..n) (finite values): out[0..*nout) in index order, at most max. 0;
 * -EINVAL (bad options, a value not finite), -E2BIG (n > EDIV_MAX_N), -ENOMEM. A series too
 * short to split has no change. */
int ediv_detect(const double *y, unsigned n, const struct ediv_opts *o, struct ediv_change *out, unsigned max,
		unsigned *nout);
/* the defaults above, with seed */
void ediv_defaults(struct ediv_opts *o, uint64_t seed);
#endif
