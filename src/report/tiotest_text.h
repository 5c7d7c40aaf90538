/* tiotest's classic text output: the throughput table, the latency table, terse mode, and
 * fsbench's percentile table. Presentation only: every figure comes from tio_result. */
#ifndef FSB_REPORT_TIOTEST_TEXT_H
#define FSB_REPORT_TIOTEST_TEXT_H
#include <stdio.h>

#include "workload/tiotest.h"

void tio_print_tables(FILE *out, const struct tio_config *c, const struct tio_result *r);
void tio_print_terse(FILE *out, const struct tio_config *c, const struct tio_result *r);
void tio_print_percentiles(FILE *out, const struct tio_config *c, const struct tio_result *r);
#endif
