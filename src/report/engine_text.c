/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine registry as text, and an engine's submission time as --sysstats rows
 * (report/engine_text.h). */
#include "report/engine_text.h"

#include <math.h>

#include "engine/engine.h"
#include "report/opt_text.h"

void engine_text_list(FILE *out, bool man)
{
	const struct engine_ops *e;

	for (unsigned i = 0; (e = engine_at(i)); i++) {
		/* the man page is built once for everyone: never with the test engines */
		if (man ? e->hidden : !engine_usable(e))
			continue;
		if (man)
			fprintf(out, ".TP\n.B %s\n%s\n", e->name, e->summary);
		else
			fprintf(out, "%-8s %s\n", e->name, e->summary);
		if (!e->options)
			continue;
		/* its own options, from its table, under its name (indented: the list's first
		 * column stays the engines' names) */
		static const unsigned char zeros[ENGINE_OPTS_PRIV];
		const struct opt_cmd c = { .name = e->name, .opts = e->options };
		const void *def = e->options_defaults ? e->options_defaults : zeros;

		if (man) {
			fputs(".RS\n", out);
			opt_text_man(&c, def, out);
			fputs(".RE\n", out);
		} else {
			opt_text_options(&c, def, NULL, out);
		}
	}
}

void engine_text_submission_header(FILE *out, const char *what, const char *first)
{
	fprintf(out, "\nio_uring submission %s (time inside the calls that submitted; share: of the "
		"requests' latency)\n%-16s %9s %9s %10s %9s %9s %9s %7s\n", what, first, "Calls", "SQEs",
		"Total ms", "Mean us", "p99 us", "Max us", "Share %");
}

void engine_text_submission_row(FILE *out, const char *label, const struct engine_submit_stats *s)
{
	const struct hist *h = &s->call_ns;
	const double share = engine_submit_share(s);
	char pct[16] = "-";

	if (isfinite(share))
		snprintf(pct, sizeof(pct), "%.2f", 100.0 * share);
	fprintf(out, "%-16s %9llu %9llu %10.3f %9.2f %9.2f %9.2f %7s\n", label,
		(unsigned long long)h->count, (unsigned long long)s->sqes, (double)h->sum / 1e6,
		hist_mean(h) / 1e3, (double)hist_percentile(h, 99) / 1e3, (double)(h->count ? h->max : 0) / 1e3,
		pct);
}
