/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testwl, the test build's workload (workload/testwl.c): its result, for its presentation. */
#ifndef FSB_WORKLOAD_TESTWL_H
#define FSB_WORKLOAD_TESTWL_H
#include "core/driver.h"
#include "core/run.h"

enum { TESTWL_OPS_PER_S, TESTWL_LAT_MEAN, TESTWL_NFIGS };

struct testwl_result {
	struct run_head head;
	double fig[TESTWL_NFIGS];
	struct opstat st;
};

#endif
