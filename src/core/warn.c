/* Honesty warnings from a phase's figures and its kstat delta (thresholds in warn.h). */
#include "core/warn.h"

#include <stdarg.h>
#include <string.h>

#define MIB 1048576.0

static void add(struct warn_list *l, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct warn_list *l, const char *id, const char *fmt, ...)
{
	va_list ap;

	if (l->n >= WARN_MAX)
		return;
	l->w[l->n].id = id;
	va_start(ap, fmt);
	vsnprintf(l->w[l->n].msg, sizeof(l->w[0].msg), fmt, ap);
	va_end(ap);
	l->n++;
}

void warn_compute(const struct warn_phase *p, struct warn_list *l)
{
	double wall_s = (double)p->wall_ns / 1e9;

	memset(l, 0, sizeof(*l));
	if (p->read_bytes && !p->direct && p->k) {
		uint64_t dev = kstat_read_bytes(p->k);

		if (!p->has_device)
			add(l, "page_cache_reads", "%s: %.1f MiB read from a filesystem without a block "
			    "device: the rate is memory speed, not storage", p->name, (double)p->read_bytes / MIB);
		else if (p->data_set_bytes < p->mem_total_bytes && dev * 10 < p->read_bytes)
			add(l, "page_cache_reads", "%s: the device read %.1f MiB of the %.1f MiB read (%.0f%%); "
			    "the data set (%.1f MiB) fits in RAM (%.0f MiB): served from the page cache "
			    "(use -X or drop caches, -F)", p->name, (double)dev / MIB,
			    (double)p->read_bytes / MIB, 100.0 * (double)dev / (double)p->read_bytes,
			    (double)p->data_set_bytes / MIB, (double)p->mem_total_bytes / MIB);
	}
	if (p->write_bytes && !p->direct && !p->sync && p->k) {
		uint64_t dev = kstat_write_bytes(p->k);

		if (!p->has_device)
			add(l, "cache_absorbed_writes", "%s: %.1f MiB written to a filesystem without a block "
			    "device: the rate is memory speed, not storage", p->name, (double)p->write_bytes / MIB);
		else if (dev * 2 < p->write_bytes)
			add(l, "cache_absorbed_writes", "%s: the device wrote %.1f MiB of the %.1f MiB written "
			    "(%.0f%%) within the phase: the page cache absorbed the rest (use -S or -X)",
			    p->name, (double)dev / MIB, (double)p->write_bytes / MIB,
			    100.0 * (double)dev / (double)p->write_bytes);
	}
	if (wall_s > 0 && p->threads) {
		unsigned cores = p->cpus && p->cpus < p->threads ? p->cpus : p->threads;
		double busy = p->sys_s / wall_s / cores;

		if (busy >= 0.9)
			add(l, "cpu_bound", "%s: system CPU %.2f s in %.2f s = %.0f%% of %u core%s: the phase "
			    "is bound by kernel CPU, not by the device", p->name, p->sys_s, wall_s,
			    100.0 * busy, cores, cores == 1 ? "" : "s");
	}
	if (p->threads > 1 && p->last_done_ns >= 100000000 && p->first_done_ns * 2 < p->last_done_ns)
		add(l, "early_finisher", "%s: the first thread finished at %.3f s, the last at %.3f s: "
		    "for %.0f%% of the phase fewer threads were running", p->name,
		    (double)p->first_done_ns / 1e9, (double)p->last_done_ns / 1e9,
		    100.0 * (double)(p->last_done_ns - p->first_done_ns) / (double)p->last_done_ns);
}

void warn_print(FILE *out, const char *prog, const struct warn_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		fprintf(out, "%s: warning: %s\n", prog, l->w[i].msg);
}
