/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history report -o DIR: not yet */
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/history_int.h"

int hist_report_check(const struct hist_config *c, const char *prog)
{
	(void)c;
	fprintf(stderr, "%s: history report: not built yet\n", prog);
	return EXIT_USAGE;
}

int hist_report(struct history *h, const struct hist_config *c, const char *prog)
{
	(void)h;
	(void)c;
	(void)prog;
	return EXIT_FAILED;
}
