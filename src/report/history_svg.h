/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history report's plot: one figure of one configuration over its runs, as SVG text (inline
 * in report.html, a file beside report.md). Presentation only: the caller gives the values, the
 * groups' intervals and the changes. The DOM names what is drawn (class "run", "run flagged",
 * "interval", "change") so that a test can find it in the rendered page. */
#ifndef FSB_REPORT_HISTORY_SVG_H
#define FSB_REPORT_HISTORY_SVG_H
#include <stdbool.h>
#include <stdio.h>

/* a group of consecutive runs (one experiment): runs [first, end), its mean and interval */
struct hsvg_group {
	unsigned first, end;
	double mean, lo, hi;  /* lo/hi NaN: no interval (one run, no spread) */
	const char *label;    /* under the axis: kernel release; NULL: none */
	const char *sublabel; /* its second line: the date */
};

struct hsvg_plot {
	const char *title, *ylabel;
	const double *v;     /* [n] the runs' values in series order */
	const bool *flagged; /* [n] */
	unsigned n;
	const struct hsvg_group *g;
	unsigned ng;
	const unsigned *change;		 /* [nchange] a change between run change[k] - 1 and change[k] */
	const char *const *change_label; /* [nchange] its note ("x0.70 worse"), or NULL */
	unsigned nchange;
	unsigned width, height;
};

/* Writes the plot to out (an <svg> element with its xmlns). 0, or -EIO on a write error. */
int hsvg_write(const struct hsvg_plot *p, FILE *out);
#endif
