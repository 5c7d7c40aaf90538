/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The matrix report's part for fsbench matrix --after (report/after_read.h): the findings (runs
 * after which the filesystem's checker found errors or could not check: first in every
 * output), the verdicts and free-extent histograms per cell, and the plot of both (fsck time per
 * cell with its 95 % interval and verdicts; free space by extent size). The figures themselves
 * (fsck wall time, free extents, ...) are the runs' figures: matrix_report tests them with the
 * others. Presentation only. */
#ifndef FSB_REPORT_MATRIX_AFTER_H
#define FSB_REPORT_MATRIX_AFTER_H
#include <jansson.h>
#include <stdio.h>

#include "report/doc.h"
#include "report/matrix_read.h"
#include "report/plot_cairo.h"

/* "Findings": nothing when there is none */
void mafter_findings_doc(struct doc *d, const struct mx *m);
void mafter_findings_term(FILE *term, const struct mx *m);
/* "After the runs": the verdicts and the histogram tables, then the plot (svg: NULL for none) */
void mafter_section_doc(struct doc *d, const struct mx *m, const char *svg, size_t svg_len);
/* summary.json's "after" per cell; json null when the experiment had no --after */
json_t *mafter_cell_json(const struct mx *m, unsigned cell);
/* summary.json's "findings": every run's finding */
json_t *mafter_findings_json(const struct mx *m);

/* The plot's data: built from m, kept alive until mafter_plot_free. 0, or -1 (no after data, or
 * out of memory: nothing to draw). */
struct mafter_plot {
	struct plot_bars b;
	struct plot_bar_panel panel[2];
	void *mem;                   /* everything the panels point into */
};
int mafter_plot_build(const struct mx *m, struct mafter_plot *p);
void mafter_plot_free(struct mafter_plot *p);
#endif
