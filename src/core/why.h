/* SPDX-License-Identifier: GPL-2.0-or-later */
/* From "slower" to "why": for a decided primary effect (a confirmatory test decided better or
 * worse), the exploratory effects that may explain it: the same two cells, the same group (a
 * tiotest phase; fs_mark's run and iteration figures are one group), figures the caller marks
 * as explanatory (cost per op, kernel view), largest change first. Plain numbers in and out:
 * the report (Why) and `fsbench explain` print them. */
#ifndef FSB_CORE_WHY_H
#define FSB_CORE_WHY_H
#include <stdbool.h>

#include "core/effects.h"

/* a primary effect the Why section explains */
bool why_wanted(const struct eff_test *t);
/* The size of a test's change, comparable across figures: |log ratio| for a ratio, the
 * difference relative to the baseline's mean otherwise; -1 when not estimated. */
double why_size(const struct eff_test *t);
/* Into out[0..max): indices into r->t of the effects explaining r->t[t] (group[fig]: the
 * figure's group, explains[fig]: an explanatory figure), largest why_size first; a test that
 * was not estimated comes last. Returns how many. */
unsigned why_rank(const struct eff_result *r, unsigned t, const unsigned *group, const bool *explains,
		  unsigned *out, unsigned max);
#endif
