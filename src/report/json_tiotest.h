/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's JSON result. */
#ifndef FSB_REPORT_JSON_TIOTEST_H
#define FSB_REPORT_JSON_TIOTEST_H
#include <jansson.h>

#include "report/json.h"
#include "workload/tiotest.h"

/* nruns == 1 puts the run at the top level, more go into "runs". */
json_t *tio_json(const struct tio_config *c, const struct driver_result *res,
		 const struct json_run_info *ri);
#endif
