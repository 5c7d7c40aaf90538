/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --csv: a result's declared figures as one row per phase or iteration (report/csv.c). */
#ifndef FSB_REPORT_CSV_H
#define FSB_REPORT_CSV_H
#include <jansson.h>
#include <stdio.h>

#include "core/figure.h"
#include "report/json_spool.h"

/* root (a workload's result JSON) as CSV into f: a header "run,phase,KEY (UNIT),..." (the
 * group's or iteration's figures, then the run's, which repeat on each row of their run), one
 * row per element of the run's groups or iterations (one row per run when it has neither);
 * an absent or non-numeric figure is an empty cell; fs NULL (no figures declared): the run
 * column only. An array root leaves in sp (a marker, report/json_spool.h) is read from sp, one
 * element at a time; sp NULL: none. 0, or -errno (-EIO after a failed write). */
int csv_write(FILE *f, const struct figure_set *fs, const json_t *root, const struct json_spool *sp);
#endif
