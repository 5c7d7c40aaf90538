/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench export --openmetrics: results' figures as OpenMetrics text (node_exporter's textfile
 * collector), one gauge family per figure, named fsbench_<figure>_<unit> in base units. */
#ifndef FSB_REPORT_OPENMETRICS_H
#define FSB_REPORT_OPENMETRICS_H
#include <stddef.h>
#include <stdio.h>

#include "report/result_read.h"

/* One result to export: its figures, and its labels (fs, cell; NULL: none). */
struct om_item {
	const struct rr_result *r;
	const char *fs;
	const char *cell;
	const char *result;          /* a result file's name, for results outside a matrix */
};

/* The metric name of a figure key ("write.rate_mib_per_s" of tiotest: "rate") and unit
 * ("MiB/s") into name ("fsbench_rate_bytes_per_second"), the factor that turns a value into
 * the base unit into *scale, the phase (the key's group prefix when the workload declares
 * groups; "" else) into phase. */
void om_name(const char *workload, const char *key, const char *unit, char *name, size_t len,
	     char *phase, size_t plen, double *scale);
/* items as OpenMetrics text into f: each family once (# TYPE gauge, # HELP), its samples
 * (the mean over runs, harmonic for rates; figures with no value left out), "# EOF" last.
 * 0, or -EIO after a failed write, -ENOMEM. */
int om_write(FILE *f, const struct om_item *items, unsigned n);
#endif
