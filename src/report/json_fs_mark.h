/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark results as JSON: one object per iteration (built as each completes, so no
 * histogram outlives its iteration) and the whole result around them. An iteration keeps its
 * latency percentiles per op type; the buckets are the run's, merged over its iterations
 * (struct fsm_op_total), so a fill of thousands of iterations stays a few KiB per iteration. */
#ifndef FSB_REPORT_JSON_FS_MARK_H
#define FSB_REPORT_JSON_FS_MARK_H
#include <jansson.h>

#include "report/json.h"
#include "workload/fs_mark.h"

json_t *fsm_json_iter(const struct fsm_config *c, const struct fsm_iter *it);
/* runs[0..nruns-1] and, for each, the array of its fsm_json_iter() objects, or the marker
 * that stands for it (report/json_spool.h; a reference is taken). One run is the top level
 * itself; more go into "runs" (readers: root.runs or [root]). */
json_t *fsm_json(const struct fsm_config *c, const struct driver_result *res, json_t *const *iters,
		 const struct json_run_info *ri);
#endif
