/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Plots of results with cairo, to PNG or SVG: fs_mark fill curves, throughput timelines,
 * latency distributions, and bars per figure as ratios to the baseline on a log axis with
 * 95 % intervals, significance stars and the absolute values. */
#ifndef FSB_REPORT_PLOT_CAIRO_H
#define FSB_REPORT_PLOT_CAIRO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result_read.h"

enum plot_type { PLOT_AUTO, PLOT_FILL, PLOT_TIMELINE, PLOT_LATENCY, PLOT_COMPARE };
enum plot_format { PLOT_PNG, PLOT_SVG };

/* compare: the stars of result res's figure key against the baseline (computed by the
 * caller: Welch's tests with a correction over all of them) */
struct plot_mark {
	const char *key;
	unsigned res;
	const char *stars;       /* the verdict drawn beside the bar ("worse", "equivalent"); "" none */
};

struct plot_opts {
	enum plot_type type;
	enum plot_format format;
	unsigned width, height;
	int fill_x;              /* fill's x axis: 0 FSUse% unless it never moves (then Count), 1 FSUse%, 2 Count */
	const char *title;       /* NULL: one made from the type and workload */
	int fill_y;              /* fill's y: 0 fs_mark's files/sec (the threads' rates summed), 1 aggregate
				  * (files over the iteration's wall time) */
	unsigned smooth;         /* fill: a moving median over this many iterations (0 or 1: none) */
	const unsigned *bold_run;/* fill: per result, the run drawn bold; NULL: run 0 */
	const char *bold_what;   /* fill's legend: what the bold run is ("median run by files/sec") */
	bool band;               /* fill: each result's median across its runs per FSUse% (or Count)
				  * bin, with the interquartile band; the runs faint behind it */
	const struct plot_mark *marks;   /* compare: verdicts; NULL: none drawn */
	unsigned nmarks;
	const char *marks_note;  /* compare: how the verdicts were decided */
};

extern const char *const plot_type_name[];   /* indexed by enum plot_type: "auto", "fill", ... */

/* The type drawn when none is asked for: fill for fs_mark, compare for several tiotest
 * results, timeline (or latency without time series) for one. */
enum plot_type plot_default_type(const struct rr_result *res, unsigned nres);
/* cairo loaded (at the first call; the *_render functions call it too): 0, or -ENOENT with a
 * one-line reason in err (libcairo.so.2 or one of its functions not found). A command that
 * draws calls it before it writes anything. */
int plot_load(char *err, size_t errlen);
/* Draws res into out (plot -o writes it through outfile). 0; -EINVAL with a one-line message
 * in err when the results have no data for the type (the message names the file); -EIO when
 * a write to out failed (out's own error says why); -ENOMEM with cairo's reason in err;
 * -ENOENT when cairo cannot be loaded (plot_load). */
int plot_render(const struct rr_result *res, unsigned nres, const struct plot_opts *o, FILE *out,
		char *err, size_t errlen);

/* fsbench history trend: one figure over a sequence of experiments (x: one slot each, labelled
 * by kernel release and date), one line per cell, the mean with its 95 % interval. Values are
 * [line * nx + x], NaN where a cell has no runs in that experiment. */
struct plot_trend {
	const char *title, *ylabel;
	unsigned nx, nlines;
	const char *const *xlabels;      /* [nx], two lines each: "6.18.4\n2026-12-01" */
	const char *const *lines;        /* [nlines] */
	const double *mean, *lo, *hi;
};
int plot_trend_render(const struct plot_trend *t, const struct plot_opts *o, FILE *out, char *err,
		      size_t errlen);

/* Bars side by side: one panel or a few (at most 4), groups along x, one bar per series in each
 * group (a colour per series, the legend on top), optional 95 % whiskers and a short note above
 * a bar (fsbench matrix --after: fsck time per cell with its verdict; free space by extent
 * size). Values are [series * ngroups + group]; NaN draws no bar. */
struct plot_bar_panel {
	const char *title, *xlabel, *ylabel;
	unsigned ngroups;
	const char *const *groups;       /* [ngroups] */
	const double *v, *lo, *hi;       /* lo and hi NULL: no whiskers */
	const char *const *notes;        /* NULL, or a note (or NULL) per bar */
};
struct plot_bars {
	const char *title;
	unsigned nseries;
	const char *const *series;
	unsigned npanels;
	const struct plot_bar_panel *panel;
};
int plot_bars_render(const struct plot_bars *b, const struct plot_opts *o, FILE *out, char *err,
		     size_t errlen);
#endif
