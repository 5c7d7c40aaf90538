/* Plots of results with cairo, to PNG or SVG: fs_mark fill curves, throughput timelines,
 * latency distributions, and bars per figure with 95 % intervals. */
#ifndef FSB_REPORT_PLOT_CAIRO_H
#define FSB_REPORT_PLOT_CAIRO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result_read.h"

enum plot_type { PLOT_AUTO, PLOT_FILL, PLOT_TIMELINE, PLOT_LATENCY, PLOT_COMPARE };
enum plot_format { PLOT_PNG, PLOT_SVG };

struct plot_opts {
	enum plot_type type;
	enum plot_format format;
	unsigned width, height;
	int fill_x;              /* fill's x axis: 0 FSUse% unless it never moves (then Count), 1 FSUse%, 2 Count */
	const char *title;       /* NULL: one made from the type and workload */
};

extern const char *const plot_type_name[];   /* indexed by enum plot_type: "auto", "fill", ... */

/* The type drawn when none is asked for: fill for fs_mark, compare for several tiotest
 * results, timeline (or latency without time series) for one. */
enum plot_type plot_default_type(const struct rr_result *res, unsigned nres);
/* Draws res into out (plot -o writes it through outfile). 0; -EINVAL with a one-line message
 * in err when the results have no data for the type (the message names the file); -EIO when
 * a write to out failed (out's own error says why); -ENOMEM with cairo's reason in err. */
int plot_render(const struct rr_result *res, unsigned nres, const struct plot_opts *o, FILE *out,
		char *err, size_t errlen);
#endif
