/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workload registry: every built-in workload listed once (stress-ng's X-macro); adding a
 * workload is its file plus one line here. */
#include "workload/workload.h"

#include <errno.h>
#include <string.h>

#include "core/testhook.h"

#define WORKLOADS(X) \
	X(tiotest)   \
	X(fs_mark)    \
	X(mdtest)

/* the test build's workloads, hidden (workload/testwl.c: a workload report/ does not know) */
#ifdef FSB_TEST_HOOKS
#define TEST_WORKLOADS(X) X(testwl)
#else
#define TEST_WORKLOADS(X)
#endif

#define DECLARE(n) extern const struct workload_ops workload_##n;
WORKLOADS(DECLARE)
TEST_WORKLOADS(DECLARE)
#undef DECLARE

#define ENTRY(n) &workload_##n,
static const struct workload_ops *const builtin[] = { WORKLOADS(ENTRY) TEST_WORKLOADS(ENTRY) };
#undef ENTRY

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))
#define MAX_EXTRA 8

static const struct workload_ops *extra[MAX_EXTRA];
static unsigned nextra;

const struct workload_ops *workload_at(unsigned i)
{
	if (i < NBUILTIN)
		return builtin[i];
	i -= (unsigned)NBUILTIN;
	return i < nextra ? extra[i] : NULL;
}

const struct workload_ops *workload_find(const char *name)
{
	const struct workload_ops *w;

	for (unsigned i = 0; (w = workload_at(i)); i++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

int workload_register(const struct workload_ops *w)
{
	if (workload_find(w->name))
		return -EEXIST;
	if (nextra == MAX_EXTRA)
		return -ENOSPC;
	extra[nextra++] = w;
	return 0;
}
