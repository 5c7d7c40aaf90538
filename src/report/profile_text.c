/* The profile table (the layout of opreport's symbol summary) and folded stacks. */
#include "report/profile_text.h"

#include <errno.h>
#include <string.h>

void profile_text_print(FILE *out, const char *label, const struct perf_profile *p, unsigned top)
{
	size_t n = top && top < p->n ? top : p->n;
	uint64_t shown = 0;

	fprintf(out, "\nProfile: %s, %llu samples, cpu-clock at %u Hz, %s%s, %llu lost\n", label,
		(unsigned long long)p->samples, p->hz,
		p->system_wide ? "all CPUs" : "this process", p->system_wide ? " (idle excluded)" : "",
		(unsigned long long)p->lost);
	fprintf(out, "%-8s %-8s %-24s %s\n", "samples", "%", "image name", "symbol name");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%-8llu %-8.4f %-24s %s\n", (unsigned long long)p->v[i].samples, p->v[i].pct,
			p->v[i].image, p->v[i].symbol);
		shown += p->v[i].samples;
	}
	if (n < p->n)
		fprintf(out, "(top %zu of %zu symbols: %.1f%% of the samples; --profile-top 0 shows all)\n", n,
			p->n, p->samples ? 100.0 * (double)shown / (double)p->samples : 0.0);
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
