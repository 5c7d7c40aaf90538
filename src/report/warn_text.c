/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Honesty warnings on stderr, one line per kind (see warn_text.h). */
#include "report/warn_text.h"

#include <stdlib.h>
#include <string.h>

#define MIB 1048576.0
#define GIB 1073741824.0
#define SHOWN_RANGES 4           /* iteration ranges named before "..." */

/* "v" or "lo-hi" when they differ at this precision */
static void span(FILE *out, const struct warn_span *s, double scale, int prec)
{
	char lo[32], hi[32];

	snprintf(lo, sizeof(lo), "%.*f", prec, s->lo / scale);
	snprintf(hi, sizeof(hi), "%.*f", prec, s->hi / scale);
	if (strcmp(lo, hi))
		fprintf(out, "%s-%s", lo, hi);
	else
		fputs(lo, out);
}

/* "write", "iteration 3", "iterations 1-3, 5, ... (12 in all)" */
static void phase_name(FILE *out, const struct warn_tally_phase *p)
{
	unsigned long long all = 0;

	if (!p->niters) {
		fputs(p->phase, out);
		return;
	}
	for (unsigned i = 0; i < p->niters; i++)
		all += p->iters[i].hi - p->iters[i].lo + 1ULL;
	fprintf(out, "%s%s ", p->phase, all > 1 ? "s" : "");
	for (unsigned i = 0; i < p->niters && i < SHOWN_RANGES; i++) {
		fprintf(out, "%s%u", i ? ", " : "", p->iters[i].lo);
		if (p->iters[i].hi > p->iters[i].lo)
			fprintf(out, "-%u", p->iters[i].hi);
	}
	if (p->niters > SHOWN_RANGES)
		fprintf(out, ", ... (%llu in all)", all);
}

/* "PRE in 1 runPOST" when a phase fired in fewer runs than its kind */
static void phase_runs(FILE *out, const struct warn_tally_kind *k, const struct warn_tally_phase *p,
		       const char *pre, const char *post)
{
	if (p->runs < k->runs)
		fprintf(out, "%sin %u run%s%s", pre, p->runs, p->runs == 1 ? "" : "s", post);
}

/* the deviceless targets, "MOUNT (FSTYPE)" each once; whether all are memory filesystems */
static bool nodev_where(FILE *out, const struct warn_text_ctx *c)
{
	bool memory = true, any = false;

	for (unsigned i = 0; i < c->ntargets; i++) {
		const struct blockdev *b = &c->targets[i];
		unsigned j;

		if (b->kind != BLOCKDEV_NONE)
			continue;
		for (j = 0; j < i; j++)
			if (c->targets[j].kind == BLOCKDEV_NONE &&
			    !strcmp(c->targets[j].mount.mount_point, b->mount.mount_point))
				break;
		if (j < i)
			continue;
		if (b->mount_known)
			fprintf(out, "%s%s (%s)", any ? ", " : "", b->mount.mount_point, b->mount.fstype);
		else
			fprintf(out, "%sthe target", any ? ", " : "");
		memory &= b->mount_known && (!strcmp(b->mount.fstype, "tmpfs") ||
					     !strcmp(b->mount.fstype, "ramfs"));
		any = true;
	}
	if (!any)
		fputs("the target", out);
	return any && memory;
}

static void line_memory(FILE *out, const struct warn_tally_kind *k, const struct warn_text_ctx *c)
{
	fputs("no block device under ", out);
	if (nodev_where(out, c))
		fputs(", so these rates are memory speed, not storage: ", out);
	else
		fputs(", so these rates may be cache speed, not storage (no device statistics to "
		      "tell): ", out);
	for (unsigned j = 0; j < k->nphases; j++) {
		const struct warn_tally_phase *p = &k->p[j];
		const char *sep = "";

		fputs(j ? ", " : "", out);
		phase_name(out, p);
		fputs(" (", out);
		if (p->write_bytes.n) {
			span(out, &p->write_bytes, MIB, 1);
			fputs(" MiB written", out);
			sep = ", ";
		}
		if (p->read_bytes.n) {
			fputs(sep, out);
			span(out, &p->read_bytes, MIB, 1);
			fputs(" MiB read", out);
		}
		phase_runs(out, k, p, ", ", "");
		fputc(')', out);
	}
}

static void line_cache(FILE *out, const struct warn_tally_kind *k, bool reads, const char *hint)
{
	if (reads) {
		fputs("reads served from the page cache, not the device (data set ", out);
		span(out, &k->data_set_bytes, MIB, 1);
		fputs(" MiB, RAM ", out);
		span(out, &k->mem_total_bytes, GIB, 1);
		fprintf(out, " GiB%s%s): ", hint ? "; " : "", hint ? hint : "");
	} else {
		fprintf(out, "writes absorbed by the page cache, the device wrote less than half within "
			"the phase%s%s%s: ", hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
	}
	for (unsigned j = 0; j < k->nphases; j++) {
		const struct warn_tally_phase *p = &k->p[j];
		const struct warn_span *asked = reads ? &p->read_bytes : &p->write_bytes;

		fputs(j ? ", " : "", out);
		phase_name(out, p);
		fprintf(out, " (device %s ", reads ? "read" : "wrote");
		span(out, &p->dev_bytes, MIB, 1);
		fputs(" of ", out);
		span(out, asked, MIB, 1);
		fputs(" MiB", out);
		phase_runs(out, k, p, ", ", "");
		fputc(')', out);
	}
}

static void line_cpu(FILE *out, const struct warn_tally_kind *k)
{
	fputs("bound by kernel CPU, not by the device (system CPU in % of one core, out of ", out);
	span(out, &k->cores, 0.01, 0);
	fputs("% usable): ", out);
	for (unsigned j = 0; j < k->nphases; j++) {
		const struct warn_tally_phase *p = &k->p[j];

		fputs(j ? ", " : "", out);
		phase_name(out, p);
		fputs(" (", out);
		span(out, &p->cpu_pct, 1, 0);
		fputc('%', out);
		phase_runs(out, k, p, ", ", "");
		fputc(')', out);
	}
}

static void line_early(FILE *out, const struct warn_tally_kind *k)
{
	fputs("threads finished far apart, fewer ran towards the end: ", out);
	for (unsigned j = 0; j < k->nphases; j++) {
		const struct warn_tally_phase *p = &k->p[j];

		fputs(j ? ", " : "", out);
		phase_name(out, p);
		fputs(" (first thread done at ", out);
		span(out, &p->first_s, 1, 3);
		fputs(" s, last at ", out);
		span(out, &p->last_s, 1, 3);
		fputs(" s", out);
		phase_runs(out, k, p, ", ", "");
		fputc(')', out);
	}
}

static void line_short(FILE *out, const struct warn_tally_kind *k)
{
	fputs("shorter than 1 s, start-up and timing granularity weigh on their figures (give them more "
	      "work): ", out);
	for (unsigned j = 0; j < k->nphases; j++) {
		const struct warn_tally_phase *p = &k->p[j];

		fputs(j ? ", " : "", out);
		phase_name(out, p);
		fputs(" (", out);
		span(out, &p->wall_s, 1, 3);
		fputs(" s", out);
		phase_runs(out, k, p, ", ", "");
		fputc(')', out);
	}
}

static void lines_print(FILE *out, const struct warn_tally *t, const struct warn_text_ctx *c)
{
	unsigned nruns = c->nruns > t->max_run ? c->nruns : t->max_run;

	for (int kind = 0; kind < WARN_NKINDS; kind++) {
		const struct warn_tally_kind *k = &t->k[kind];

		if (!k->nphases)
			continue;
		fprintf(out, "%s: warning: ", c->prog);
		switch ((enum warn_kind)kind) {
		case WARN_MEMORY:
			line_memory(out, k, c);
			break;
		case WARN_CACHE_READS:
			line_cache(out, k, true, c->hint_reads);
			break;
		case WARN_CACHE_WRITES:
			line_cache(out, k, false, c->hint_writes);
			break;
		case WARN_CPU:
			line_cpu(out, k);
			break;
		case WARN_EARLY:
			line_early(out, k);
			break;
		case WARN_SHORT:
			line_short(out, k);
			break;
		case WARN_NKINDS:
			break;
		}
		if (nruns > 1)
			fprintf(out, "; in %u of %u runs", k->runs, nruns);
		fputc('\n', out);
	}
}

/* The lines are put together first and written in one go: stderr is unbuffered, so written
 * piece by piece a line would go out in a dozen writes, and where several processes share the
 * stream (an MPI job's ranks, forwarded by mpirun apart from rank 0's stdout) another's output
 * could land inside it: "PROG: warning: " on the line of the classic table's first row. */
void warn_text_print(FILE *out, const struct warn_tally *t, const struct warn_text_ctx *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool whole = false;

	if (m) {
		lines_print(m, t, c);
		whole = !fclose(m);
	}
	if (whole)
		fwrite(buf, 1, len, out);
	else
		lines_print(out, t, c); /* no memory for the lines: piece by piece, as before */
	fflush(out);
	free(buf);
}
