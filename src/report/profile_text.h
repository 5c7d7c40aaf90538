/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --profile output: the oprofile-like table per phase and the folded stacks file. */
#ifndef FSB_REPORT_PROFILE_TEXT_H
#define FSB_REPORT_PROFILE_TEXT_H
#include <stdio.h>

#include "core/perf_profile.h"

/* The table of this run's samples (image, app, symbol), the other processes under it (system-
 * wide), and with call chains the inclusive table. label: "Write phase", "iteration 1"; top:
 * rows of each (0: all). */
void profile_text_print(FILE *out, const char *label, const struct perf_profile *p, unsigned top);
/* "root;comm;frame;... count" lines; root names the phase so one file holds every phase.
 * Returns 0 or -EIO. */
int profile_write_folded(FILE *out, const char *root, const struct perf_profile *p);
/* Where --profile-callgraph's folded stacks go: the --profile-folded FILE, else the --json FILE
 * with .folded for .json (--json /dev/stdout gives /dev/stdout.folded, which the
 * destination check refuses: name one with --profile-folded). 0 with path filled in, -ENOENT when neither names a file ("--json -"),
 * -ENAMETOOLONG. */
int profile_folded_path(const char *folded, const char *json, char *path, size_t len);
#endif
