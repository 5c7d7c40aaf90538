/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --sysstats: a compact table of the kernel's view of each phase (devices, CPU split, dirty
 * pages), printed under the classic output. Presentation only. */
#ifndef FSB_REPORT_KSTAT_TEXT_H
#define FSB_REPORT_KSTAT_TEXT_H
#include <stdio.h>

#include "sys/kstat.h"

void kstat_text_header(FILE *out);
/* one row per device of the phase (CPU and memory columns on the first); label: the phase */
void kstat_text_row(FILE *out, const char *label, const struct kstat_delta *d);
#endif
