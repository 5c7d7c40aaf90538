/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verdicts: what matrix/report, compare and history check all say about "B against A". One
 * module, so the three commands cannot disagree (fsbench(1) STATISTICS has the reasoning).
 *
 * Estimate. Rates, times and latencies are positive and their noise is multiplicative: the
 * effect is the ratio B/A, estimated on y = ln x (vd_est.log). Unpaired: Welch's t on the logs,
 * the ratio of geometric means exp(mean ln b - mean ln a), se^2 = s_a^2/n_a + s_b^2/n_b, df by
 * Welch-Satterthwaite (Welch 1947). Paired by round (an interleaved design: each round ran both
 * cells under the same machine conditions): d_r = ln b_r - ln a_r, a one-sample t with R - 1
 * df, so drift between rounds cancels. Additive figures (percentages, counts that can be 0, or
 * any figure with a value <= 0) keep the difference b - a on their own scale. Interaction of
 * two axes (cells 11, 21, 12, 22): (y22 - y12) - (y21 - y11); paired, the per-round contrast
 * c_r and a one-sample t; unpaired, the four cells' variances with Welch-Satterthwaite df.
 *
 * Families. Each test belongs to one: confirmatory (the primary figures' effects and
 * interactions; Holm 1979, family-wise error rate), exploratory (every other tested figure;
 * Benjamini-Hochberg 1995, false discovery rate), or none (derived or duplicate figures, shown
 * but never tested).
 *
 * Verdicts. VD_DIFFERENT (better/worse by the figure's direction): the corrected interval
 * excludes 1 (0 for a difference). The corrected interval of a test with p-value p and adjusted
 * p_adj has level 1 - alpha p / p_adj: it excludes the null exactly when p_adj < alpha, for Holm
 * and BH alike, so the interval printed and the verdict never disagree. VD_EQUIVALENT: the
 * (1 - 2 alpha) interval (90 %) lies inside [1/(1+delta), 1+delta] (TOST, Schuirmann 1987; the
 * margin symmetric on the log scale), or for a difference inside +-delta |mean of A|.
 * VD_UNDECIDED: neither; rounds that would decide it at the observed spread, n (t se / h)^2 with
 * h = |est| (a difference) or ln(1+delta) - |est| (equivalence), whichever is fewer. A figure
 * that does not vary within either side is not tested: VD_SAME_CONST (equal) or
 * VD_DETERMINISTIC (different). Fewer than 2 values on a side: VD_UNDECIDED, untested. */
#ifndef FSB_CORE_VERDICT_H
#define FSB_CORE_VERDICT_H
#include <stdbool.h>

#define VD_ALPHA 0.05
#define VD_EQUIV_PCT 5.0

/* an estimate on its analysis scale (ln of a ratio, or a difference) */
struct vd_est {
	bool log;                /* est is ln(B/A) (or ln of a ratio of ratios) */
	bool paired;             /* from per-round differences */
	unsigned n;              /* rounds (paired), else the mean count per side */
	double est, se, df, t, p;   /* p two-sided; se 0 with no spread (p 1 when est is 0, else 0) */
};

/* Welch's t on a, b (on their logs when log; every value must then be > 0): est = mean b - mean a.
 * 0, or -1 with fewer than 2 values on a side (or a value <= 0 on the log scale). */
int vd_welch(const double *a, unsigned na, const double *b, unsigned nb, bool log, struct vd_est *e);
/* One-sample t on d[0..n-1] (the per-round differences or contrasts). 0, or -1 when n < 2. */
int vd_one_sample(const double *d, unsigned n, struct vd_est *e);
/* Paired: d_r = b_r - a_r (of the logs when log). 0, or -1 (n < 2, a value <= 0 on the log scale). */
int vd_paired(const double *a, const double *b, unsigned n, bool log, struct vd_est *e);
/* Unpaired interaction of v[0] A1B1, v[1] A2B1, v[2] A1B2, v[3] A2B2 (n[i] values each): the
 * mean logs (or means) contrast with the four variances. 0, or -1 (a cell with < 2 values). */
int vd_interaction(const double *const v[4], const unsigned n[4], bool log, struct vd_est *e);
/* e's two-sided interval of confidence level (e.g. 0.95), on e's scale */
void vd_interval(const struct vd_est *e, double level, double *lo, double *hi);
/* Benjamini-Hochberg adjusted p-values (adj may be p); NaN entries are not tests. Returns m. */
unsigned vd_bh(const double *p, unsigned n, double *adj);

enum vd_family { VD_FAM_NONE, VD_CONFIRMATORY, VD_EXPLORATORY };

enum vd_kind {
	VD_NA,                   /* a side has no value */
	VD_NOT_TESTED,           /* derived or duplicate figure: shown, never tested */
	VD_UNDECIDED,
	VD_DIFFERENT,            /* better/worse by the figure's direction (sign) */
	VD_EQUIVALENT,
	VD_SAME_CONST,           /* no variation within either side, equal values */
	VD_DETERMINISTIC,        /* no variation within either side, different values */
};

struct vd_opts {
	double alpha;            /* VD_ALPHA */
	double equiv_pct;        /* delta, % */
};

struct vd_test {
	/* in (vd_compare and the caller) */
	enum vd_family family;
	/* out */
	bool tested;             /* estimated and in its family's correction */
	bool incomplete;         /* rounds were wanted but incomplete: unpaired instead */
	const char *why;         /* why untested ("fewer than 2 runs on a side"); NULL */
	struct vd_est e;
	double base;             /* baseline's mean (geometric when log): the equivalence margin of a difference */
	double p_adj;            /* in its family; NaN untested */
	unsigned family_size;
	enum vd_kind kind;
	int sign;                /* +1 B above A, -1 below, 0 equal */
	double ratio;            /* log: exp(est); else the difference est */
	double lo, hi;           /* the interval the verdict rests on, on the ratio (or difference) scale */
	double level;            /* its confidence level */
	double more_rounds;      /* undecided: rounds more that would decide it; NaN otherwise/unknown */
};

/* Estimates B against A. ra/rb: each value's round (NULL: not a blocked design); when rounds
 * are given and every round has both a and b, the estimate is paired, else unpaired with
 * t->incomplete. log_ok: a figure whose effect is a ratio (falls back to a difference when a
 * value is <= 0). Non-finite values are left out. Sets t->family to fam (VD_FAM_NONE: not tested). */
void vd_compare(const double *a, unsigned na, const unsigned *ra, const double *b, unsigned nb,
		const unsigned *rb, bool log_ok, enum vd_family fam, struct vd_test *t);
/* The same for an interaction: v[4], n[4], rounds r[4] (NULL entries: unpaired). */
void vd_compare_interaction(const double *const v[4], const unsigned n[4], const unsigned *const r[4],
			    bool log_ok, enum vd_family fam, struct vd_test *t);
/* After every test is estimated: the corrections (Holm in the confirmatory family, BH in the
 * exploratory one) and each test's verdict, interval and rounds to decide. 0, or -1 out of memory. */
int vd_decide(struct vd_test *t, unsigned n, const struct vd_opts *o);
/* dir: 1 higher is better, -1 lower is better, 0 neither. "better", "worse", "changed",
 * "equivalent", "undecided", "same (no variation)", "differs in every run (deterministic)",
 * "not tested (derived)", "n/a". */
const char *vd_word(const struct vd_test *t, int dir);
/* a decided worse beyond pct % (the ratio's distance from 1, or the difference relative to A) */
bool vd_fails(const struct vd_test *t, int dir, double pct);
/* the effect as a signed percentage: (ratio - 1) 100, or the difference relative to |base| */
double vd_pct(const struct vd_test *t);
const char *vd_family_name(enum vd_family f);
/* --repeat auto: the rounds after which the runner looks at the primary effects, 3, 5, 8, 12,
 * 20, 30, 45, 70, ... up to max_rounds (always the last look). Returns nlooks (<= VD_MAX_LOOKS),
 * 0 when max_rounds < 3. Each look decides at its own level, vd_look_alpha: a weighted
 * Bonferroni over the looks, whose levels add up to alpha, bounds the error of any stopping
 * rule that uses them (a union bound: no assumption about how the looks depend on each other),
 * simpler to trust than a boundary fitted by simulation and, unlike a confidence sequence, as
 * tight as a fixed-n test at that level. */
#define VD_MAX_LOOKS 12
#define VD_MIN_ROUNDS 3
unsigned vd_looks(unsigned max_rounds, unsigned looks[VD_MAX_LOOKS]);
/* the level of look k (0-based) of nlooks: VD_ALPHA when there is one look; otherwise half of it
 * at the first look (3 rounds: the large effects a matrix is usually run for are decided there)
 * and the other half split evenly over the later looks */
double vd_look_alpha(unsigned nlooks, unsigned k);
/* the level of the verdicts after `rounds` rounds: that of the first look at or after it (a
 * look that never happens spends nothing: stopping early, by --max-time or a signal, may use its
 * level); the last look's beyond the last */
double vd_stop_alpha(const unsigned looks[], unsigned nlooks, unsigned rounds);

/* --equivalence PCT: 0 with *pct, or -EINVAL (not a number above 0 and below 100) */
int vd_parse_equiv(const char *s, double *pct);
/* --primary KEY,...: figure keys ("write.rate_mib_per_s", or "rate_mib_per_s" for every group),
 * comma-separated, none empty, letters, digits, '_', '.' and '-' only. 0, or -EINVAL. */
int vd_primary_check(const char *list);
#endif
