/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cairo loaded at run time (plot_dl.h) through sys/dl. */
#include "report/plot_dl.h"

#include "sys/dl.h"

static const char *const names[] = { PLOT_DL_FUNCS(DL_NAME) };
static union {
	struct plot_dl f;
	void *p[DL_COUNT(names)];
} fns;
_Static_assert(sizeof(fns.f) == sizeof(fns.p), "one name per pointer");
static struct dl_lib cairo = {
	.soname = PLOT_DL_SONAME,
	.package = "libcairo2",
	.prefix = "cairo_",
	.names = names,
	.fns = fns.p,
	.n = DL_COUNT(names),
};

const struct plot_dl *plot_dl_load(char *err, size_t errlen)
{
	return dl_load(&cairo, err, errlen) ? NULL : &fns.f;
}
