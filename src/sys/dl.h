/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared libraries opened at run time, by soname, when a command first needs them (cairo to
 * draw; libblkid and libmount for the experiment runner): the commands that never use them do
 * not map and relocate them, and their dependencies, at every start (bench/README.md, start-up
 * cost). Each library is an X-macro list of its functions, so that a table of pointers typed
 * by the library's own declarations (each call checked against its header) and the names to
 * resolve come from one list:
 *
 *   #define FOO_FUNCS(X) X(open) X(close)
 *   struct foo_fns {
 *   #define FOO_PTR(name) __typeof__(foo_##name) *name;
 *           FOO_FUNCS(FOO_PTR)
 *   };
 *   DL_LIBRARY(foo, FOO_FUNCS, struct foo_fns, "libfoo.so.1", "libfoo1", "foo_");
 *   ... dl_load(&foo_lib, err, errlen) == 0: foo_tab.f.open(...) */
#ifndef FSB_SYS_DL_H
#define FSB_SYS_DL_H
#include <stddef.h>

#define DL_NAME(name)	#name,
#define DL_COUNT(names) (sizeof(names) / sizeof((names)[0]))

struct dl_lib {
	const char *soname;	  /* "libcairo.so.2": the loader's search, never a path */
	const char *package;	  /* the Debian package that ships it, named in the message */
	const char *prefix;	  /* of every function's name: "cairo_" */
	const char *const *names; /* [n], without the prefix */
	void **fns;		  /* [n]: resolved into */
	size_t n;
	/* 0 not tried yet, 1 loaded, -ENOENT failed (why says) */
	int state;
	char why[256];
};

/* Opens l's library (RTLD_NOW | RTLD_LOCAL, never closed) and resolves every function, at the
 * first call; later calls return the first one's outcome. 0, or -ENOENT with one line in err
 * (may be NULL): the loader's reason, which names the file, or "SONAME: no function NAME",
 * then "(Debian package PACKAGE)". Thread-safe. */
int dl_load(struct dl_lib *l, char *err, size_t errlen);

/* VAR_names (FUNCS' names), VAR_tab (.f: TYPE, the table of pointers; .p: the same as void *)
 * and VAR_lib (the struct dl_lib for dl_load) of one library, all static */
#define DL_LIBRARY(var, funcs, type, soname_, package_, prefix_)                            \
	static const char *const var##_names[] = { funcs(DL_NAME) };                        \
	static union {                                                                      \
		type f;                                                                     \
		void *p[DL_COUNT(var##_names)];                                             \
	} var##_tab;                                                                        \
	_Static_assert(sizeof(var##_tab.f) == sizeof(var##_tab.p), "one name per pointer"); \
	static struct dl_lib var##_lib = { .soname = (soname_),                             \
					   .package = (package_),                           \
					   .prefix = (prefix_),                             \
					   .names = var##_names,                            \
					   .fns = var##_tab.p,                              \
					   .n = DL_COUNT(var##_names) }
#endif
