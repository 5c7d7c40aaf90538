/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cairo loaded at run time (plot_dl.h) through sys/dl. */
#include "report/plot_dl.h"

#include "sys/dl.h"

DL_LIBRARY(cr, PLOT_DL_FUNCS, struct plot_dl, PLOT_DL_SONAME, "libcairo2", "cairo_");

const struct plot_dl *plot_dl_load(char *err, size_t errlen)
{
	return dl_load(&cr_lib, err, errlen) ? NULL : &cr_tab.f;
}
