/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile table (the layout of opreport's symbol summary) and folded stacks. */
#include "report/profile_text.h"

#include <errno.h>
#include <string.h>

#define ROW_HEADER "%-8s %-8s %-24s %-24s %s\n", "samples", "%", "image name", "app name", "symbol name"

void profile_text_print(FILE *out, const char *label, const struct perf_profile *p, unsigned top)
{
	size_t n = top && top < p->nself ? top : p->nself;
	size_t no = top && top < p->nother ? top : p->nother;
	size_t ni = top && top < p->ninc ? top : p->ninc;
	uint64_t shown = 0;

	fprintf(out, "\nProfile: %s, %llu samples, cpu-clock at %u Hz, %s%s, %llu lost\n", label,
		(unsigned long long)p->samples, p->hz,
		p->system_wide ? "all CPUs" : "this process", p->system_wide ? " (idle excluded)" : "",
		(unsigned long long)p->lost);
	fprintf(out, ROW_HEADER);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%-8llu %-8.4f %-24s %-24s %s\n", (unsigned long long)p->v[i].samples, p->v[i].pct,
			p->v[i].image, p->v[i].app, p->v[i].symbol);
		shown += p->v[i].samples;
	}
	if (n < p->nself)
		fprintf(out, "(top %zu of %zu symbols: %.1f%% of the samples; --profile-top 0 shows all)\n", n,
			p->nself, p->samples ? 100.0 * (double)shown / (double)p->samples : 0.0);
	/* the rest of the machine: one line per process, its share of all sampled CPU */
	if (p->system_wide || p->nother) {
		fprintf(out, "other processes: %llu samples, %.1f %% of the machine's sampled CPU\n",
			(unsigned long long)p->other_samples, p->other_pct);
		if (no)
			fprintf(out, "%-8s %-8s %-8s %s\n", "samples", "%", "pid", "command");
		for (size_t i = 0; i < no; i++)
			fprintf(out, "%-8llu %-8.4f %-8d %s\n", (unsigned long long)p->other[i].samples,
				p->other[i].pct, (int)p->other[i].pid, p->other[i].comm);
		if (no < p->nother)
			fprintf(out, "(top %zu of %zu processes; --profile-top 0 shows all)\n", no, p->nother);
	}
	if (!p->callgraph)
		return;
	fprintf(out, "\nInclusive profile: %s, children included (a symbol once per sample), %% of the "
		"%llu samples above\n", label, (unsigned long long)p->samples);
	fprintf(out, ROW_HEADER);
	for (size_t i = 0; i < ni; i++) {
		const struct perf_entry *e = &p->v[p->inc[i]];

		fprintf(out, "%-8llu %-8.4f %-24s %-24s %s\n", (unsigned long long)e->inclusive,
			e->inclusive_pct, e->image, e->app, e->symbol);
	}
	if (ni < p->ninc)
		fprintf(out, "(top %zu of %zu symbols; --profile-top 0 shows all)\n", ni, p->ninc);
}

int profile_write_folded(FILE *out, const char *root, const struct perf_profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (fprintf(out, "%s;%s %llu\n", root, p->stacks[i].folded,
			    (unsigned long long)p->stacks[i].count) < 0)
			return -EIO;
	return 0;
}

int profile_folded_path(const char *folded, const char *json, char *path, size_t len)
{
	size_t n;

	if (folded)
		return snprintf(path, len, "%s", folded) < (int)len ? 0 : -ENAMETOOLONG;
	if (!json || !strcmp(json, "-"))
		return -ENOENT;
	n = strlen(json);
	if (n > 5 && !strcmp(json + n - 5, ".json"))
		n -= 5;
	return snprintf(path, len, "%.*s.folded", (int)n, json) < (int)len ? 0 : -ENAMETOOLONG;
}
