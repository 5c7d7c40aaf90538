/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine registry as text: `fsbench list engines` and the man page's ENGINES entries; and
 * an engine's submission time (struct engine_submit_stats) as --sysstats rows. */
#ifndef FSB_REPORT_ENGINE_TEXT_H
#define FSB_REPORT_ENGINE_TEXT_H
#include <stdbool.h>
#include <stdio.h>

struct engine_submit_stats;

/* "name  summary" lines of the visible engines, or man page entries (.TP/.B) with man; each
 * followed by its own options (engine_ops.options), indented (with man: .RS, .TP, .RE). */
void engine_text_list(FILE *out, bool man);
/* The submission table's title ("per phase") and column heads, first naming the label column. */
void engine_text_submission_header(FILE *out, const char *what, const char *first);
/* One row: calls, SQEs, total ms, mean, p99 and max us of a call, share % ("-": no request). */
void engine_text_submission_row(FILE *out, const char *label, const struct engine_submit_stats *s);
#endif
