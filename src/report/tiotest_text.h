/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's classic text output: the throughput table, the latency table, terse mode, and
 * fsbench's percentile table. Presentation only: every figure comes from tio_result. */
#ifndef FSB_REPORT_TIOTEST_TEXT_H
#define FSB_REPORT_TIOTEST_TEXT_H
#include <stdio.h>

#include "workload/tiotest.h"

void tio_print_tables(FILE *out, const struct tio_config *c, const struct tio_result *r);
void tio_print_terse(FILE *out, const struct tio_config *c, const struct tio_result *r);
/* --repeat: per phase and figure, mean ± 95 % CI and CV over the complete runs. */
void tio_print_summary(FILE *out, const struct tio_config *c, const struct tio_result *runs, unsigned n);
void tio_print_percentiles(FILE *out, const struct tio_config *c, const struct tio_result *r);
/* --layout: the test files' layout after each phase that has one */
void tio_print_layout(FILE *out, const struct tio_config *c, const struct tio_result *r);
#endif
