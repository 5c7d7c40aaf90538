/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Honesty warnings from a phase's figures and its kstat delta (thresholds in warn.h), and
 * their tally over a command's phases, iterations and runs. */
#include "core/warn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MIB 1048576.0

/* warn_compute adds at most one warning of each of its five ids */
_Static_assert(WARN_MAX >= 5, "WARN_MAX below the number of warning ids");

#define SHORT_PHASE_NS 1000000000ull

static struct warn *add(struct warn_list *l, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct warn *add(struct warn_list *l, const char *id, const char *fmt, ...)
{
	struct warn *w = &l->w[l->n++];
	va_list ap;

	w->id = id;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	return w;
}

void warn_compute(const struct warn_phase *p, struct warn_list *l)
{
	double wall_s = (double)p->wall_ns / 1e9;
	struct warn *w;

	memset(l, 0, sizeof(*l));
	if (p->read_bytes && !p->direct && p->k) {
		uint64_t dev = kstat_read_bytes(p->k);

		w = NULL;
		if (!p->has_device)
			w = add(l, "page_cache_reads", "%s: %.1f MiB read from a filesystem without a block "
				"device: the rate is memory speed, not storage", p->name,
				(double)p->read_bytes / MIB);
		else if (p->data_set_bytes < p->mem_total_bytes && dev * 10 < p->read_bytes)
			w = add(l, "page_cache_reads", "%s: the device read %.1f MiB of the %.1f MiB read "
				"(%.0f%%); the data set (%.1f MiB) fits in RAM (%.0f MiB): served from the page "
				"cache (use -X or drop caches, -F)", p->name, (double)dev / MIB,
				(double)p->read_bytes / MIB, 100.0 * (double)dev / (double)p->read_bytes,
				(double)p->data_set_bytes / MIB, (double)p->mem_total_bytes / MIB);
		if (w) {
			w->no_device = !p->has_device;
			w->bytes = p->read_bytes;
			w->dev_bytes = dev;
			w->data_set_bytes = p->data_set_bytes;
			w->mem_total_bytes = p->mem_total_bytes;
		}
	}
	if (p->write_bytes && !p->direct && !p->sync && p->k) {
		uint64_t dev = kstat_write_bytes(p->k);

		w = NULL;
		if (!p->has_device)
			w = add(l, "cache_absorbed_writes", "%s: %.1f MiB written to a filesystem without a "
				"block device: the rate is memory speed, not storage", p->name,
				(double)p->write_bytes / MIB);
		else if (dev * 2 < p->write_bytes)
			w = add(l, "cache_absorbed_writes", "%s: the device wrote %.1f MiB of the %.1f MiB "
				"written (%.0f%%) within the phase: the page cache absorbed the rest (use -S or "
				"-X)", p->name, (double)dev / MIB, (double)p->write_bytes / MIB,
				100.0 * (double)dev / (double)p->write_bytes);
		if (w) {
			w->no_device = !p->has_device;
			w->bytes = p->write_bytes;
			w->dev_bytes = dev;
		}
	}
	/* under 50 ms the CPU figures are a few scheduler ticks: too coarse to call a phase bound */
	if (wall_s >= 0.05 && p->threads) {
		unsigned cores = p->cpus && p->cpus < p->threads ? p->cpus : p->threads;
		double busy = p->sys_s / wall_s / cores;

		if (busy >= 0.9) {
			w = add(l, "cpu_bound", "%s: system CPU %.2f s in %.2f s = %.0f%% of %u core%s: the "
				"phase is bound by kernel CPU, not by the device", p->name, p->sys_s, wall_s,
				100.0 * busy, cores, cores == 1 ? "" : "s");
			w->cpu_pct = 100.0 * p->sys_s / wall_s;
			w->cores = cores;
		}
	}
	if (p->threads > 1 && p->last_done_ns >= 100000000 && p->first_done_ns * 2 < p->last_done_ns) {
		w = add(l, "early_finisher", "%s: the first thread finished at %.3f s, the last at %.3f s: "
			"for %.0f%% of the phase fewer threads were running", p->name,
			(double)p->first_done_ns / 1e9, (double)p->last_done_ns / 1e9,
			100.0 * (double)(p->last_done_ns - p->first_done_ns) / (double)p->last_done_ns);
		w->first_done_ns = p->first_done_ns;
		w->last_done_ns = p->last_done_ns;
	}
	if (p->wall_ns && p->wall_ns < SHORT_PHASE_NS && !p->cut_short) {
		w = add(l, "short_phase", "%s: %.3f s, shorter than 1 s: start-up and the clock's and the "
			"scheduler's granularity weigh on its figures (give it more work)", p->name, wall_s);
		w->wall_s = wall_s;
	}
}

/* ---- the tally ------------------------------------------------------------------------------ */
static void span_add(struct warn_span *s, double v)
{
	if (!s->n || v < s->lo)
		s->lo = v;
	if (!s->n || v > s->hi)
		s->hi = v;
	s->n++;
}

static enum warn_kind kind_of(const struct warn *w)
{
	if (!strcmp(w->id, "page_cache_reads"))
		return w->no_device ? WARN_MEMORY : WARN_CACHE_READS;
	if (!strcmp(w->id, "cache_absorbed_writes"))
		return w->no_device ? WARN_MEMORY : WARN_CACHE_WRITES;
	if (!strcmp(w->id, "cpu_bound"))
		return WARN_CPU;
	if (!strcmp(w->id, "early_finisher"))
		return WARN_EARLY;
	if (!strcmp(w->id, "short_phase"))
		return WARN_SHORT;
	return WARN_NKINDS;
}

/* adds iteration it to the sorted range list; 0 or -ENOMEM */
static int iters_add(struct warn_tally_phase *p, unsigned it)
{
	unsigned i = 0;

	while (i < p->niters && p->iters[i].hi + 1 < it)
		i++;
	if (i < p->niters && p->iters[i].lo <= it && it <= p->iters[i].hi)
		return 0;
	if (i < p->niters && p->iters[i].hi + 1 == it) {
		p->iters[i].hi = it;
		/* it may close the gap to the next range */
		if (i + 1 < p->niters && p->iters[i + 1].lo == it + 1) {
			p->iters[i].hi = p->iters[i + 1].hi;
			memmove(&p->iters[i + 1], &p->iters[i + 2], (p->niters - i - 2) * sizeof(p->iters[0]));
			p->niters--;
		}
		return 0;
	}
	if (i < p->niters && p->iters[i].lo == it + 1) {
		p->iters[i].lo = it;
		return 0;
	}
	if (p->niters == p->cap) {
		unsigned cap = p->cap ? 2 * p->cap : 4;
		void *v = realloc(p->iters, cap * sizeof(p->iters[0]));

		if (!v)
			return -ENOMEM;
		p->iters = v;
		p->cap = cap;
	}
	memmove(&p->iters[i + 1], &p->iters[i], (p->niters - i) * sizeof(p->iters[0]));
	p->iters[i].lo = p->iters[i].hi = it;
	p->niters++;
	return 0;
}

void warn_tally_init(struct warn_tally *t)
{
	memset(t, 0, sizeof(*t));
}

int warn_tally_add(struct warn_tally *t, const struct warn_list *l, unsigned run, const char *phase,
		   unsigned iter)
{
	int rc = 0;

	if (run > t->max_run)
		t->max_run = run;
	for (unsigned i = 0; i < l->n; i++) {
		const struct warn *w = &l->w[i];
		enum warn_kind kind = kind_of(w);
		struct warn_tally_kind *k;
		struct warn_tally_phase *p;
		unsigned j;

		if (kind == WARN_NKINDS)
			continue;
		k = &t->k[kind];
		for (j = 0; j < k->nphases; j++)
			if (!strcmp(k->p[j].phase, phase))
				break;
		if (j == WARN_TALLY_PHASES)
			continue;
		p = &k->p[j];
		if (j == k->nphases) {
			k->nphases++;
			p->phase = phase;
		}
		if (k->last_run != run) {
			k->last_run = run;
			k->runs++;
		}
		if (p->last_run != run) {
			p->last_run = run;
			p->runs++;
		}
		if (iter && iters_add(p, iter))
			rc = -ENOMEM;
		switch (kind) {
		case WARN_MEMORY:
		case WARN_CACHE_READS:
		case WARN_CACHE_WRITES:
			span_add(strcmp(w->id, "page_cache_reads") ? &p->write_bytes : &p->read_bytes,
				 (double)w->bytes);
			span_add(&p->dev_bytes, (double)w->dev_bytes);
			if (kind == WARN_CACHE_READS) {
				span_add(&k->data_set_bytes, (double)w->data_set_bytes);
				span_add(&k->mem_total_bytes, (double)w->mem_total_bytes);
			}
			break;
		case WARN_CPU:
			span_add(&p->cpu_pct, w->cpu_pct);
			span_add(&k->cores, w->cores);
			break;
		case WARN_EARLY:
			span_add(&p->first_s, (double)w->first_done_ns / 1e9);
			span_add(&p->last_s, (double)w->last_done_ns / 1e9);
			break;
		case WARN_SHORT:
			span_add(&p->wall_s, w->wall_s);
			break;
		case WARN_NKINDS:
			break;
		}
	}
	return rc;
}

bool warn_tally_empty(const struct warn_tally *t)
{
	for (int k = 0; k < WARN_NKINDS; k++)
		if (t->k[k].nphases)
			return false;
	return true;
}

void warn_tally_free(struct warn_tally *t)
{
	for (int k = 0; k < WARN_NKINDS; k++)
		for (unsigned j = 0; j < t->k[k].nphases; j++)
			free(t->k[k].p[j].iters);
	memset(t, 0, sizeof(*t));
}
