/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Why of a matrix report (report.md/html's section and `fsbench explain`): for each decided
 * primary effect, the cost-per-op and kernel-view figures whose change is largest with their
 * exploratory verdicts (core/why.h picks them), and the profile symbols whose cost per op
 * changed most (core/profdiff.h), the profile's window above them. Presentation only. */
#ifndef FSB_REPORT_MATRIX_WHY_H
#define FSB_REPORT_MATRIX_WHY_H
#include <stdio.h>

#include "core/effects.h"
#include "report/doc.h"
#include "report/matrix_read.h"

struct mwhy_in {
	const struct mx *m;
	const struct rr_figure *const *fig;   /* [nfig]: the analysis' figures */
	unsigned nfig;
	const struct eff_result *r;
	int cell_a, cell_b;      /* only the effects between these two cells (either order); -1: all */
};

/* true for a figure that explains (cost per op, the after-window figures) */
bool mwhy_explains(const char *key);
void mwhy_doc(struct doc *d, const struct mwhy_in *in);
/* on a terminal; returns the number of effects explained */
unsigned mwhy_term(FILE *out, const struct mwhy_in *in);
#endif
