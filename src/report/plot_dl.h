/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cairo, loaded when something is drawn (sys/dl.h) rather than linked: a command that draws
 * nothing does not pay for cairo's 18 libraries at every start (bench/README.md, start-up
 * cost). Internal to report/plot_*.c. */
#ifndef FSB_REPORT_PLOT_DL_H
#define FSB_REPORT_PLOT_DL_H
#include <cairo-svg.h>
#include <cairo.h>
#include <stddef.h>

/* the one soname loaded: the library libcairo2 ships (never a path) */
#define PLOT_DL_SONAME "libcairo.so.2"

/* Every cairo function fsbench calls, without its cairo_ prefix: one line here and the
 * pointer, its lookup and its type (cairo's own declaration, so each call is checked against
 * cairo.h) follow. Kept out of clang-format, which cannot lay out such a list. */
/* clang-format off */
#define PLOT_DL_FUNCS(X) \
	X(arc) X(clip) X(close_path) X(create) X(debug_reset_static_data) X(destroy) X(fill) \
	X(image_surface_create) X(line_to) X(move_to) X(paint) X(rectangle) X(restore) X(rotate) \
	X(save) X(select_font_face) X(set_dash) X(set_font_size) X(set_line_width) X(set_source_rgb) \
	X(set_source_rgba) X(show_text) X(status_to_string) X(stroke) X(surface_destroy) \
	X(surface_finish) X(surface_status) X(surface_write_to_png_stream) \
	X(svg_surface_create_for_stream) X(text_extents) X(translate)
/* clang-format on */

struct plot_dl {
#define PLOT_DL_PTR(name) __typeof__(cairo_##name) *name;
	PLOT_DL_FUNCS(PLOT_DL_PTR)
#undef PLOT_DL_PTR
};

/* cairo's functions, loaded at the first call (sys/dl.h); NULL with a one-line reason in err
 * when the library or one of its functions cannot be found */
const struct plot_dl *plot_dl_load(char *err, size_t errlen);
#endif
