/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What plot_cairo.c draws with and plot_axis.c computes: an axis and its numbers. Internal to
 * report/plot_*.c (the names are those they had as plot_cairo.c's own). */
#ifndef FSB_REPORT_PLOT_CAIRO_INT_H
#define FSB_REPORT_PLOT_CAIRO_INT_H
#include <stdbool.h>
#include <stddef.h>

struct axis {
	double lo, hi;
	bool log;
	const char *label;
	int kind;  /* 0: numbers, 1: durations in ns, 2: "nines" percentiles, 3: ratios (log) */
	bool hide; /* no ticks (bar charts: the names are the axis) */
};

/* a round step that cuts range into about target parts */
double nice_step(double range, int target);
/* v's tick label on axis a whose ticks are step apart */
void fmt_tick(const struct axis *a, double v, double step, char *buf, size_t len);
/* a ratio axis' ticks into t (at most max); how many */
unsigned ratio_ticks(const struct axis *a, double *t, unsigned max);
/* a's range: [lo, hi] extended to round numbers, never empty */
void axis_fit(struct axis *a, double lo, double hi, bool from_zero);
/* v in unit as people read it: ns as us or ms, 3 significant digits, k/M */
void fmt_abs(double v, const char *unit, char *buf, size_t len);
#endif
