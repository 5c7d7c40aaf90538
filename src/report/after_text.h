/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The after-run tools' results as text (fsbench __after): the verdict first, a finding in
 * capitals with the checker's own words under it, then the command and what it cost. */
#ifndef FSB_REPORT_AFTER_TEXT_H
#define FSB_REPORT_AFTER_TEXT_H
#include <stdio.h>

#include "sys/fsck.h"
#include "sys/freespace.h"

void fsck_text_print(FILE *out, const struct fsck_result *r);
void freespace_text_print(FILE *out, const struct freespace_result *r);
#endif
