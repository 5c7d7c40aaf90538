/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live status line on stderr (a terminal only): phase, % done, rate, ETA; erased when the
 * phase ends. Presentation of what core/sample.c computes. */
#ifndef FSB_REPORT_PROGRESS_TEXT_H
#define FSB_REPORT_PROGRESS_TEXT_H
#include "core/run.h"

void progress_text_draw(const struct progress_view *v);
#endif
