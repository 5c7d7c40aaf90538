/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The honesty warnings on stderr: one line per kind for the whole command (core/warn.h's
 * tally), naming the phases or iterations it applies to with the numbers behind it, and with
 * several runs in how many of them it fired. Presentation only. */
#ifndef FSB_REPORT_WARN_TEXT_H
#define FSB_REPORT_WARN_TEXT_H
#include <stdio.h>

#include "core/warn.h"
#include "sys/blockdev.h"

struct warn_text_ctx {
	const char *prog;                /* "fsbench tiotest" */
	const struct blockdev *targets;  /* for "no block device under MOUNT (FSTYPE)" */
	unsigned ntargets;
	const char *hint_reads;          /* page cache reads: what to change (NULL: nothing) */
	const char *hint_writes;         /* writes absorbed by the cache: what to change */
	unsigned nruns;                  /* the runs that completed */
};

/* Lines "PROG: warning: WHAT: PHASE (NUMBERS), PHASE (NUMBERS)[; in K of N runs]". */
void warn_text_print(FILE *out, const struct warn_tally *t, const struct warn_text_ctx *c);
#endif
