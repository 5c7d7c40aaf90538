/* --profile output: the oprofile-like table per phase and the folded stacks file. */
#ifndef FSB_REPORT_PROFILE_TEXT_H
#define FSB_REPORT_PROFILE_TEXT_H
#include <stdio.h>

#include "sys/perf.h"

/* The table of this run's samples (image, app, symbol), the other processes under it (system-
 * wide), and with call chains the inclusive table. label: "Write phase", "iteration 1"; top:
 * rows of each (0: all). */
void profile_text_print(FILE *out, const char *label, const struct perf_profile *p, unsigned top);
/* "root;comm;frame;... count" lines; root names the phase so one file holds every phase.
 * Returns 0 or -EIO. */
int profile_write_folded(FILE *out, const char *root, const struct perf_profile *p);
/* Where --profile-callgraph's folded stacks go: the --profile-folded FILE, else the --json FILE
 * with .folded for .json. Opens it for writing (path filled in). NULL with *rc 0 when there is
 * nowhere to write, NULL with *rc -1 when it cannot be opened; either is said on stderr. */
FILE *profile_folded_open(const char *folded, const char *json, const char *prog, char *path,
			  size_t len, int *rc);
#endif
