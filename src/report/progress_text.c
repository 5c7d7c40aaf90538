/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live status line (report/progress_text.h). */
#include "report/progress_text.h"

#include <stdio.h>

void progress_text_draw(const struct progress_view *v)
{
	if (v->erase) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%s %s:", v->label, v->phase);
	if (v->pct >= 0)
		fprintf(stderr, " %5.1f%%", v->pct);
	if (v->ops_unit)
		fprintf(stderr, " %10.0f %s/s", v->rate, v->ops_unit);
	else
		fprintf(stderr, " %10.1f MiB/s", v->rate);
	if (v->eta_s >= 0)
		fprintf(stderr, "  ETA %llu:%02llu", (unsigned long long)v->eta_s / 60,
			(unsigned long long)v->eta_s % 60);
	fflush(stderr);
}
