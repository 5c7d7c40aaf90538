/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/core/hchange.c: a series with a step gets one change at the step, decided
 * worse (ratio below 1) and a flat one none; the history's summary is the geometric mean with
 * its interval cut at the runs' range; a bisection's "rules out worse than pct" on intervals
 * either side of the margin, both directions, and for a difference. */
#include "core/hchange.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

int main(void)
{
	static const double step[12] = { 100, 103, 98, 101, 99, 102, 70, 72, 69, 71, 70, 68 };
	static const double flat[12] = { 100, 103, 98, 101, 99, 102, 100, 97, 101, 99, 100, 102 };
	const struct hc_series s[2] = { { step, 12, true, VD_CONFIRMATORY, hc_seed("step") },
					{ flat, 12, true, VD_CONFIRMATORY, hc_seed("flat") } };
	struct hc_change *ch;
	struct ediv_opts o;
	struct stats_summary sm;
	unsigned n, bad;
	bool clipped;

	ediv_defaults(&o, 0);
	CHECK(hc_find(s, 2, &o, &ch, &n, &bad) == 0 && n == 1, "changes: %u", n);
	if (n == 1) {
		CHECK(ch[0].series == 0 && ch[0].lo == 0 && ch[0].at == 6 && ch[0].hi == 12, "at %u of series %u", ch[0].at,
		      ch[0].series);
		CHECK(ch[0].t.kind == VD_DIFFERENT && ch[0].t.sign < 0 && ch[0].t.ratio > 0.68 && ch[0].t.ratio < 0.72,
		      "verdict %d ratio %.3f", ch[0].t.kind, ch[0].t.ratio);
		CHECK(ch[0].p_perm <= 0.05, "p %.3f", ch[0].p_perm);
	}
	free(ch);
	CHECK(hc_seed("a") != hc_seed("b"), "seeds differ");

	/* 2 runs: the t interval (12.7 se) is cut at the runs */
	CHECK(hc_summary((double[]){ 100, 120 }, 2, false, &sm, &clipped) == 0 && clipped && sm.lo == 100 && sm.hi == 120 &&
	      fabs(sm.mean - sqrt(12000)) < 1e-9, "2 runs: %.3f [%.3f, %.3f]", sm.mean, sm.lo, sm.hi);
	CHECK(hc_summary(step, 6, false, &sm, &clipped) == 0 && !clipped && sm.lo > 98 && sm.hi < 103, "6 runs not cut");
	CHECK(hc_summary((double[]){ 5 }, 1, true, &sm, &clipped) == 0 && !clipped && sm.mean == 5, "one run");

	{
		struct vd_test t = { .kind = VD_DIFFERENT, .e = { .log = true }, .lo = 0.93, .hi = 0.98, .ratio = 0.955 };

		CHECK(hc_rules_out_worse(&t, 1, 10), "0.93 rules out -10 %% (higher better)");
		CHECK(!hc_rules_out_worse(&t, 1, 5), "0.93 does not rule out -5 %%");
		t = (struct vd_test){ .kind = VD_UNDECIDED, .e = { .log = true }, .lo = 0.97, .hi = 1.12, .ratio = 1.04 };
		CHECK(!hc_rules_out_worse(&t, -1, 10), "1.12 does not rule out +10 %% (lower better)");
		CHECK(hc_rules_out_worse(&t, -1, 15), "1.12 rules out +15 %%");
		CHECK(hc_rules_out_worse(&t, 0, 0), "no direction: nothing to rule out");
		t = (struct vd_test){ .kind = VD_UNDECIDED, .e = { .log = false }, .lo = -1.0, .hi = 2.0, .base = 20 };
		CHECK(hc_rules_out_worse(&t, 1, 10) && !hc_rules_out_worse(&t, 1, 4), "a difference: -1 of 20 is -5 %%");
		t.lo = NAN;
		CHECK(!hc_rules_out_worse(&t, 1, 50), "no interval: cannot rule out");
		t = (struct vd_test){ .kind = VD_SAME_CONST };
		CHECK(hc_rules_out_worse(&t, 1, 0), "no variation, equal");
	}
	return check_done("test_hchange");
}
