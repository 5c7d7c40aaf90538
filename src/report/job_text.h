/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job of several processes (core/job.h) as text, under the classic output of each run:
 * the stonewall note always; with --sysstats the clocks, each phase's start skew, window,
 * aggregate and stonewall figures, and each host's kernel view; with --percentiles each
 * host's rates and latency percentiles per phase. */
#ifndef FSB_REPORT_JOB_TEXT_H
#define FSB_REPORT_JOB_TEXT_H
#include <stdbool.h>
#include <stdio.h>

#include "core/job.h"

void job_text_run(FILE *out, const struct job *j, unsigned run, bool sysstats, bool percentiles);
#endif
