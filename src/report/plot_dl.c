/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cairo loaded at run time (plot_dl.h): its soname opened once, every function resolved into
 * one table. */
#include "report/plot_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct plot_dl fns;
static const struct plot_dl *loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	/* the soname only: the loader's own search (ld.so.cache, its trusted directories), as for
	 * a linked library. Never closed: cairo's fonts and caches live as long as the process. */
	void *h = dlopen(PLOT_DL_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(why, sizeof(why), "%s", e ? e : PLOT_DL_SONAME ": cannot be loaded");
		return;
	}
#define PLOT_DL_SYM(name)                                                                      \
	if (!(fns.name = (__typeof__(fns.name))dlsym(h, "cairo_" #name))) {                    \
		snprintf(why, sizeof(why), "%s: no function cairo_%s", PLOT_DL_SONAME, #name); \
		return;                                                                        \
	}
	PLOT_DL_FUNCS(PLOT_DL_SYM)
#undef PLOT_DL_SYM
	loaded = &fns;
}

const struct plot_dl *plot_dl_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!loaded)
		snprintf(err, errlen, "cannot draw: %s (cairo, Debian package libcairo2)", why);
	return loaded;
}
