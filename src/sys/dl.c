/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Libraries opened at run time by soname, their functions resolved once (sys/dl.h). */
#include "sys/dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

static int dl_open(struct dl_lib *l)
{
	/* the soname only: the loader's own search (ld.so.cache, its trusted directories), as for
	 * a linked library. Never closed: what the library keeps (cairo's font caches) lives as
	 * long as the process. */
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	char sym[128];
	const char *e;

	if (!h) {
		/* it names the file: "libcairo.so.2: cannot open shared object file: ..." */
		e = dlerror();
		snprintf(l->why, sizeof(l->why), "%s", e ? e : "cannot be loaded");
		return -ENOENT;
	}
	for (size_t i = 0; i < l->n; i++) {
		snprintf(sym, sizeof(sym), "%s%s", l->prefix, l->names[i]);
		if (!(l->fns[i] = dlsym(h, sym))) {
			snprintf(l->why, sizeof(l->why), "%s: no function %s", l->soname, sym);
			return -ENOENT;
		}
	}
	return 1;
}

int dl_load(struct dl_lib *l, char *err, size_t errlen)
{
	pthread_mutex_lock(&dl_lock);
	if (!l->state)
		l->state = dl_open(l);
	pthread_mutex_unlock(&dl_lock);
	if (l->state == 1)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s (Debian package %s)", l->why, l->package);
	return -ENOENT;
}
