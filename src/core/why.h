/* SPDX-License-Identifier: GPL-2.0-or-later */
/* From "slower" to "why": for a primary effect (a confirmatory test), decided better or worse
 * or undecided, the exploratory effects that may explain it: the same two cells, the same group
 * (a tiotest phase; fs_mark's run and iteration figures are one group), figures the caller
 * marks as explanatory (cost per op, kernel view), largest change first. An undecided effect
 * gets the same rows, which the caller heads as undecided: the largest changes measured, none
 * of which decides it (never "no difference": fsbench(1) STATISTICS). Plain numbers in and
 * out: the report (Why) and `fsbench explain` print them. */
#ifndef FSB_CORE_WHY_H
#define FSB_CORE_WHY_H
#include <stdbool.h>

#include "core/effects.h"

enum why_kind {
	WHY_NONE,      /* not explained: an interaction, exploratory, equivalent, not estimated */
	WHY_DECIDED,   /* a primary effect decided better or worse (or deterministic) */
	WHY_UNDECIDED, /* a primary effect undecided: the same rows, headed as such */
};

/* whether and how the Why section explains a test */
enum why_kind why_status(const struct eff_test *t);
/* The size of a test's change, comparable across figures: |log ratio| for a ratio, the
 * difference relative to the baseline's mean otherwise; -1 when not estimated. */
double why_size(const struct eff_test *t);
/* The change a test's interval guarantees, on why_size's scale: the distance from no change to
 * the interval's nearer end for a test decided different (why_size for a deterministic one), 0
 * otherwise. */
double why_floor(const struct eff_test *t);
/* Into out[0..max): indices into r->t of the effects explaining r->t[t] (group[fig]: the
 * figure's group, explains[fig]: an explanatory figure), largest why_floor first, then largest
 * why_size: the changes the data show before the point estimates of noisy ones (an undecided
 * x3 [0.02, 500] tells less than a decided x2 [1.6, 2.5]); a test that was not estimated comes
 * last. Returns how many. */
unsigned why_rank(const struct eff_result *r, unsigned t, const unsigned *group, const bool *explains,
		  unsigned *out, unsigned max);
#endif
