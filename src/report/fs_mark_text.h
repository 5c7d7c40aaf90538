/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark 3.3's text output, byte for byte (doc/reference/fs_mark.md §8): the '#' header block, the column
 * header, one row per iteration; plus fsbench's extra columns and the summary block.
 * Presentation only: every figure comes from fsm_iter / fsm_result. */
#ifndef FSB_REPORT_FS_MARK_TEXT_H
#define FSB_REPORT_FS_MARK_TEXT_H
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "workload/fs_mark.h"

/* log: the -l file's variant (fs_mark writes '#' where stdout has an empty line) */
void fsm_print_header(FILE *out, bool log, const struct fsm_config *c, int argc, char **argv,
		      time_t started);
void fsm_print_row(FILE *out, const struct fsm_config *c, const struct fsm_iter *it);
/* average and p50/p90/p99 of the per-iteration rates, both definitions */
void fsm_print_summary(FILE *out, const struct fsm_config *c, const struct fsm_result *r);
/* --repeat N > 1: per figure (both files/sec, app overhead per iteration, create p99) the mean
 * over the runs with its 95% confidence interval and CV (core/stats.h; rates harmonic), on
 * '#' lines so that fs_mark parsers skip them */
void fsm_print_runs_summary(FILE *out, const struct fsm_config *c, const struct fsm_result *runs,
			    unsigned n);
#endif
