/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between mdtest's files: the run (mdtest.c), the results (mdtest_result.c), the options and
 * the ops struct (mdtest_opts.c). */
#ifndef FSB_WORKLOAD_MDTEST_INT_H
#define FSB_WORKLOAD_MDTEST_INT_H
#include <stdint.h>

#include "core/figure.h"
#include "workload/mdtest.h"

/* the tree's directories at most */
#define MDT_MAX_DIRS UINT64_C(100000000)

struct driver;
struct pack;
struct unpack;
struct opt_strs;

/* the workload hooks (workload/workload.h) */
int mdt_run(struct driver *d, const void *cfg, void *result);
void mdt_run_done(void *result);
void mdt_result_free(void *result);
int mdt_merge(void *dst, const void *src);
int mdt_pack(const void *result, int64_t off, struct pack *o);
int mdt_unpack(void *result, struct unpack *u);
extern const struct figure_set mdt_figs;
/* the SUMMARY tables and the figures from the result's cells */
void mdt_summarize(struct mdt_result *r);
#endif
