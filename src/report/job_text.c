/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's text under each run's classic output (report/job_text.h). Presentation only: the
 * figures are core/job.c's sums. */
#include "report/job_text.h"

#include <stdlib.h>
#include <string.h>

#include "report/kstat_text.h"

#define MIB 1048576.0

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double per_s(uint64_t n, uint64_t ns)
{
	return ns ? (double)n / secs(ns) : 0;
}

static void stonewall_note(FILE *out, const struct job *j, const struct job_phase_sum *s, unsigned n)
{
	bool any = false;

	fprintf(out, "Stonewall: every phase stops %.3f s after its release (--stonewall); stopped:",
		secs(j->stonewall_ns));
	for (unsigned i = 0; i < n; i++)
		if (s[i].stonewalled) {
			fprintf(out, "%s %s (%u of %u ranks)", any ? "," : "", s[i].name, s[i].stonewalled,
				s[i].nranks);
			any = true;
		}
	fprintf(out, "%s\n", any ? "" : " none (every phase ended first)");
}

static void skew_table(FILE *out, const struct job *j, const struct job_phase_sum *s, unsigned n)
{
	fprintf(out, "\nMPI job: %u ranks on %u host%s, %llu threads each; clocks aligned to rank 0's "
		"within %.1f us (ping-pong, best of %u)\n", j->nranks, j->nhosts, j->nhosts == 1 ? "" : "s",
		(unsigned long long)j->threads_per_rank, secs(job_clock_error_max(j)) * 1e6,
		j->clock_rounds);
	fprintf(out, "%-14s %5s %10s %10s %12s %12s %12s %12s\n", "Phase", "Ranks", "Skew us",
		"Window s", "Agg MiB/s", "Agg ops/s", "SW MiB/s", "SW ops/s");
	for (unsigned i = 0; i < n; i++) {
		const struct job_phase_sum *p = &s[i];
		uint64_t w = job_phase_window_ns(p);
		uint64_t fw = p->first_end_ns > p->release_min_ns ? p->first_end_ns - p->release_min_ns : 0;

		fprintf(out, "%-14s %5u %10.1f %10.3f %12.2f %12.1f", p->name, p->nranks,
			(double)job_phase_skew_ns(p) / 1e3, secs(w), per_s(p->bytes, w) / MIB, per_s(p->ops, w));
		if (p->at_first_complete)
			fprintf(out, " %12.2f %12.1f\n", per_s(p->at_first_bytes, fw) / MIB,
				per_s(p->at_first_ops, fw));
		else
			fprintf(out, " %12s %12s\n", "-", "-");
	}
	fprintf(out, "(Skew: spread of the ranks' release times on the common timeline. Agg: all "
		"ranks' work over first release to last completion. SW, stonewall: the work every "
		"rank had done when the first rank finished, over the time to then.)\n");
}

/* a host's phases of a run, summed by phase name: instances' windows add up */
static void host_rows(FILE *out, const struct job *j, unsigned run, unsigned host)
{
	unsigned n = 0;
	struct job_phase_sum *s = job_phase_sums(j, (int)host, &n);
	char names[64][JOB_NAME_MAX];
	unsigned nn = job_phase_names(j, run, names, 64);
	struct opstat *st = malloc(sizeof(*st));

	for (unsigned k = 0; st && k < nn; k++) {
		uint64_t ops = 0, bytes = 0, wall = 0;
		unsigned inst = 0;

		for (unsigned i = 0; i < n; i++)
			if (s[i].run == run && !strcmp(s[i].name, names[k])) {
				ops += s[i].ops;
				bytes += s[i].bytes;
				wall += job_phase_window_ns(&s[i]);
				inst++;
			}
		if (!inst)
			continue;
		job_lat_merge(j, (int)host, -1, run, names[k], st);
		fprintf(out, "%-16.16s %5u %-12.12s %12.1f %10.2f %10.3f %10.3f %10.3f\n", j->hosts[host].name,
			j->hosts[host].nranks, names[k], per_s(ops, wall), per_s(bytes, wall) / MIB,
			(double)hist_percentile(&st->lat, 50) / 1e6, (double)hist_percentile(&st->lat, 99) / 1e6,
			st->lat.count ? (double)st->lat.max / 1e6 : 0.0);
	}
	free(st);
	free(s);
}

static void kstat_rows(FILE *out, const struct job *j, unsigned run)
{
	struct kstat_delta *k = malloc(sizeof(*k));
	bool header = false;

	for (unsigned h = 0; h < j->nhosts; h++) {
		const struct job_rank *rk = &j->ranks[j->hosts[h].first_rank];

		for (unsigned i = 0; k && rk->delivered && i < rk->nphases; i++) {
			struct job_phase ph, *p = &ph;
			char label[JOB_HOST_MAX + JOB_NAME_MAX];
			bool have;

			if (job_phase_get(rk, i, p))
				continue;
			have = p->run == run && job_phase_kstat(p, k);
			job_phase_clear(p);
			if (!have)
				continue;
			if (!header) {
				/* one rank per host reads it: rows are HOST:PHASE */
				kstat_text_header(out);
				header = true;
			}
			snprintf(label, sizeof(label), "%.7s:%.31s", j->hosts[h].name, p->name);
			kstat_text_row(out, label, k);
		}
	}
	free(k);
}

void job_text_run(FILE *out, const struct job *j, unsigned run, bool sysstats, bool percentiles)
{
	unsigned n = 0, k = 0;
	struct job_phase_sum *all = job_phase_sums(j, -1, &n);

	for (unsigned i = 0; i < n; i++)
		if (all[i].run == run)
			all[k++] = all[i];
	if (j->stonewall_ns)
		stonewall_note(out, j, all, k);
	if (sysstats)
		skew_table(out, j, all, k);
	if (percentiles) {
		fprintf(out, "\nPer host (fsbench-mpi):\n%-16s %5s %-12s %12s %10s %10s %10s %10s\n", "Host",
			"Ranks", "Phase", "ops/s", "MiB/s", "p50 ms", "p99 ms", "max ms");
		for (unsigned h = 0; h < j->nhosts; h++)
			host_rows(out, j, run, h);
	}
	if (sysstats)
		kstat_rows(out, j, run);
	for (unsigned r = 0; r < j->nranks; r++) {
		const struct job_rank *rk = &j->ranks[r];

		if (rk->delivered && rk->full && rk->full_run == run)
			fprintf(out,
				"Filesystem full: rank %u on host %s, in or after its iteration %u: %s\n", r,
				j->hosts[rk->host].name, rk->full_units, rk->full_detail);
	}
	if (j->missing[0])
		fprintf(out, "Results missing from %s: the job's figures leave them out.\n", j->missing);
	free(all);
}
