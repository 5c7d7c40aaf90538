/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sync after a run (core/afterrun.h) as fsbench shows and reads it: the --sysstats lines,
 * the raw record beside the figures in a run's JSON ("after"), and the unmount time a matrix
 * manifest keeps per run, read back as the run's figure. Presentation and reading only. */
#ifndef FSB_REPORT_AFTERRUN_REPORT_H
#define FSB_REPORT_AFTERRUN_REPORT_H
#include <jansson.h>
#include <stdio.h>

#include "core/afterrun.h"

struct rr_result;

/* --sysstats: the sync's row of the kernel-view table and one line of what it found */
void afterrun_text(FILE *out, const struct afterrun *a);
/* into run's "after" object (created when missing; the figures' json_figures wrote there):
 * taken, filesystems, sync_ns, the dirty and writeback memory before and after it, and the
 * kernel view of its window */
void afterrun_json(json_t *run, const struct afterrun *a);
/* a manifest run's umount_s: NaN when absent or not a non-negative number */
double afterrun_umount_read(const json_t *manifest_run);
/* the unmount's figure into the result's last run (nothing for NaN); 0 or -ENOMEM */
int afterrun_umount_put(struct rr_result *r, double umount_s);
#endif
