/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job of several processes (core/job.h) as JSON: the result's "mpi" object beside the
 * job's merged figures: the clocks, every phase's skew, window, aggregate and stonewall
 * figures, per host and per rank their phases, latency (buckets) and kernel view, the job's
 * first error. */
#ifndef FSB_REPORT_JSON_JOB_H
#define FSB_REPORT_JSON_JOB_H
#include <jansson.h>

#include "core/job.h"
#include "report/json_spool.h"

/* sp: where the arrays of one element a phase go (a fill has thousands), NULL: in memory */
json_t *json_job(const struct job *j, struct json_spool *sp);
#endif
