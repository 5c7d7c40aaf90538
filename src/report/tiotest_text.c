/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest 0.4.2's tables, byte for byte (doc/reference/tiotest.md §4), plus the --percentiles table. */
#include "report/tiotest_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/stats.h"
#include "report/engine_text.h"
#include "report/json_tiotest.h"
#include "report/afterrun_report.h"
#include "report/kstat_text.h"
#include "report/profile_text.h"
#include "report/result_read.h"
#include "report/workload_report.h"

#define MIB 1048576.0

static double secs(uint64_t ns)
{
	return (double)ns / NS_PER_S;
}

/* MB as tiotest prints it: ops * bs / 2^20; with the 0.4.0-0.4.2 random-MB bug fixed this is
 * threads * r * bs for the random phases (a unit conversion of the raw count) */
static double phase_mb(const struct tio_phase_result *p)
{
	return (double)p->st.bytes / MIB;
}


/* "| Write %11.0f MBs |" ... "| Random Read %5.0f MBs |": the label, then the size right-aligned
 * in what is left of tiotest 0.4.2's 23-column Item cell */
static void item_cell(FILE *out, const char *label, double mb)
{
	fprintf(out, "| %s %*.0f MBs |", label, (int)(16 - strlen(label)), mb);
}

static const char *const lat_label[TIO_NPHASES] = {
	"Write       ", "Random Write", "Read        ", "Random Read ",
};

/* mean, max (ns), over 2 s, over 10 s (%) */
static void lat_row(FILE *out, const char *label, double mean, double max, double o2, double o10)
{
	fprintf(out, "| %s | %12.3f ms | %12.3f ms | %8.5f | %9.5f |\n", label, mean / 1e6, max / 1e6,
		o2, o10);
}

void tio_print_tables(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	/* a job's processes together (fsbench-mpi): 4 ranks x 4 threads are 16 threads */
	fprintf(out, "Tiotest results for %llu concurrent io threads:\n",
		(unsigned long long)c->threads * run_opts_nprocs(&c->run));
	fputs(",----------------------------------------------------------------------.\n"
	      "| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n"
	      "+-----------------------+----------+--------------+----------+---------+\n", out);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];
		double t = secs(pr->wall_ns);

		if (!tio_phase_shown(pr))
			continue;
		/* CPU %: process CPU over the phase wall time, what 0.4.x shows on NPTL, measured once
		 * over the whole window instead of summed per thread */
		item_cell(out, tio_phase_label[p], phase_mb(pr));
		fprintf(out, " %6.1f s | %7.3f MB/s | %5.1f %%  | %5.1f %% |\n", t,
			pr->fig[TIO_FIG_RATE], pr->fig[TIO_FIG_USR_PCT], pr->fig[TIO_FIG_SYS_PCT]);
	}
	fputs("`----------------------------------------------------------------------'\n", out);
	if (c->text.no_latency)
		return;
	fputs("Tiotest latency results:\n"
	      ",-------------------------------------------------------------------------.\n"
	      "| Item         | Average latency | Maximum latency | % >2 sec | % >10 sec |\n"
	      "+--------------+-----------------+-----------------+----------+-----------+\n", out);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const double *f = r->phase[p].fig;

		if (tio_phase_shown(&r->phase[p]))
			lat_row(out, lat_label[p], f[TIO_FIG_LAT_MEAN], f[TIO_FIG_LAT_MAX],
				f[TIO_FIG_OVER_2S_PCT], f[TIO_FIG_OVER_10S_PCT]);
	}
	fputs("|--------------+-----------------+-----------------+----------+-----------|\n", out);
	lat_row(out, "Total       ", r->fig[TIO_RFIG_LAT_MEAN], r->fig[TIO_RFIG_LAT_MAX],
		r->fig[TIO_RFIG_OVER_2S_PCT], r->fig[TIO_RFIG_OVER_10S_PCT]);
	fputs("`--------------+-----------------+-----------------+----------+-----------'\n\n", out);
}

static const char *const terse_name[TIO_NPHASES] = { "write", "rwrite", "read", "rread" };

void tio_print_terse(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	(void)c;
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];
		const double *f = pr->fig;

		/* usr/sys are process CPU seconds of the phase: the value 0.4.x's S/t takes on NPTL;
		 * a phase that never ran prints zeros, as tiotest does */
		if (!pr->ran) {
			fprintf(out, "%s:%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f\n", terse_name[p],
				0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
			continue;
		}
		fprintf(out, "%s:%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f\n", terse_name[p],
			phase_mb(pr), secs(pr->wall_ns), pr->usr_s, pr->sys_s,
			f[TIO_FIG_LAT_MEAN] / 1e6, f[TIO_FIG_LAT_MAX] / 1e6, f[TIO_FIG_OVER_2S_PCT],
			f[TIO_FIG_OVER_10S_PCT]);
	}
	fprintf(out, "total:%.5f,%.5f,%.5f,%.5f\n", r->fig[TIO_RFIG_LAT_MEAN] / 1e6,
		r->fig[TIO_RFIG_LAT_MAX] / 1e6, r->fig[TIO_RFIG_OVER_2S_PCT], r->fig[TIO_RFIG_OVER_10S_PCT]);
}

static void pct_row(FILE *out, const char *label, const double *f)
{
	fprintf(out, "| %s | %11.0f | %10.3f | %9.3f | %9.3f | %9.3f | %9.3f | %9.3f |\n", label,
		f[TIO_FIG_IOPS], f[TIO_FIG_RATE], f[TIO_FIG_LAT_P50] / 1e6, f[TIO_FIG_LAT_P90] / 1e6,
		f[TIO_FIG_LAT_P99] / 1e6, f[TIO_FIG_LAT_P999] / 1e6, f[TIO_FIG_LAT_MAX] / 1e6);
}

void tio_print_percentiles(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	static const char rule[] =
		"+--------------+-------------+------------+-----------+-----------+-----------+-----------+-----------+\n";

	(void)c;
	fputs("Tiotest latency percentiles (fsbench):\n", out);
	fputs(",-----------------------------------------------------------------------------------------------------.\n", out);
	fputs("| Item         |        IOPS |       MB/s |    p50 ms |    p90 ms |    p99 ms |  p99.9 ms |    max ms |\n", out);
	fputs(rule, out);
	for (int p = 0; p < TIO_NPHASES; p++)
		if (tio_phase_shown(&r->phase[p]))
			pct_row(out, lat_label[p], r->phase[p].fig);
	fputs("`-----------------------------------------------------------------------------------------------------'\n\n", out);
}

/* bytes as people read them: "512 B", "33.2 KiB", "5.00 MiB" */
static const char *human_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && b >= 1024) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? (b < 10 ? "%.2f %s" : b < 100 ? "%.1f %s" : "%.0f %s") : "%.0f %s", b, unit[u]);
	return buf;
}

void tio_print_layout(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	static const char rule[] =
		"+--------------+-------+-----------+-------------+-------------+-----------------+\n";

	(void)c;
	fputs("Tiotest file layout after each phase (fsbench, FIEMAP):\n", out);
	fputs(",--------------------------------------------------------------------------------.\n", out);
	fputs("| After        | Files |   Extents | Extents/MiB | Mean extent | Discontinuities |\n", out);
	fputs(rule, out);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_layout *l = &r->phase[p].layout;
		const double *f = r->phase[p].fig;
		char mean[32];

		if (!r->phase[p].ran || !l->measured)
			continue;
		if (l->absent) {
			fprintf(out, "| %s | absent: %-55.55s |\n", lat_label[p], l->why);
			continue;
		}
		if (!l->sum.placed) {
			fprintf(out, "| %s | %5llu | %-55.55s |\n", lat_label[p], (unsigned long long)l->sum.files,
				"no data on disk yet (empty, or not allocated yet)");
			continue;
		}
		fprintf(out, "| %s | %5llu | %9llu | %11.3f | %11s | %15llu |\n", lat_label[p],
			(unsigned long long)l->sum.files, (unsigned long long)l->sum.extents,
			f[TIO_FIG_LAYOUT_EXTENTS_PER_MIB],
			human_bytes(f[TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES], mean, sizeof(mean)),
			(unsigned long long)l->sum.discontinuities);
	}
	fputs("`--------------------------------------------------------------------------------'\n\n", out);
}

/* --repeat: the figures of the classic tables, as their declarations say to combine them;
 * the text shows them in the classic units */
static const struct {
	enum tio_fig fig;
	const char *name, *unit;
	double scale;            /* figure unit -> shown unit */
} summary_figs[] = {
	{ TIO_FIG_RATE, "Rate", "MB/s", 1 },
	{ TIO_FIG_IOPS, "IOPS", "op/s", 1 },
	{ TIO_FIG_USR_PCT, "Usr CPU", "%", 1 },
	{ TIO_FIG_SYS_PCT, "Sys CPU", "%", 1 },
	{ TIO_FIG_LAT_MEAN, "Avg latency", "ms", 1e-6 },
	{ TIO_FIG_LAT_P99, "p99 latency", "ms", 1e-6 },
	{ TIO_FIG_LAT_MAX, "Max latency", "ms", 1e-6 },
};

void tio_print_summary(FILE *out, const struct tio_config *c, const struct tio_result *runs, unsigned n)
{
	double *v = calloc(n ? n : 1, sizeof(*v));

	(void)c;
	if (!v)
		return;
	fprintf(out, "Summary of %u runs: mean ± 95%% confidence interval (coefficient of variation)\n", n);
	fprintf(out, "rates are harmonic means (total work over total time)\n");
	for (int p = 0; p < TIO_NPHASES; p++) {
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++)
			if (tio_phase_shown(&runs[i].phase[p]) && runs[i].phase[p].complete)
				k++;
		if (!k)
			continue;
		for (size_t f = 0; f < sizeof(summary_figs) / sizeof(summary_figs[0]); f++) {
			const struct figure *fd = &tio_phase_figs[summary_figs[f].fig];
			struct stats_summary s;

			k = 0;
			for (unsigned i = 0; i < n; i++)
				if (tio_phase_shown(&runs[i].phase[p]) && runs[i].phase[p].complete)
					v[k++] = runs[i].phase[p].fig[summary_figs[f].fig] * summary_figs[f].scale;
			if (stats_summarize(v, k, figure_is_rate(fd), &s))
				continue;
			fprintf(out, "%-13s %-12s %12.3f ± %-10.3f %-5s (CV %5.1f%%, n=%u)\n",
				f ? "" : tio_phase_label[p], summary_figs[f].name, s.mean, s.ci,
				summary_figs[f].unit, s.cv_pct, s.n);
		}
	}
	fputc('\n', out);
	free(v);
}

/* ---- the presentation hooks (report/workload_report.h) ---- */
struct tio_out {
	const struct tio_config *c;
	struct report_out *o;
};

static int tio_rep_begin(void *st, const void *cfg, struct report_out *o)
{
	struct tio_out *x = st;

	x->c = cfg;
	x->o = o;
	return 0;
}

static void tio_rep_run_end(void *st, unsigned run, const void *result)
{
	struct tio_out *x = st;
	const struct tio_config *c = x->c;
	const struct tio_result *r = result;
	FILE *out = x->o->text;
	char label[64];

	if (!out)
		return;
	if (c->run.repeat > 1 && !c->text.terse)
		fprintf(out, "Run %u of %llu:\n", run + 1, (unsigned long long)c->run.repeat);
	if (c->text.terse)
		tio_print_terse(out, c, r);
	else
		tio_print_tables(out, c, r);
	if (c->text.percentiles)
		tio_print_percentiles(out, c, r);
	if (c->layout && !c->text.terse)
		tio_print_layout(out, c, r);
	if (!r->head.complete) {
		/* after the classic lines, so parsers that read the tables still do; the marker
		 * says these numbers do not describe the whole run */
		if (r->stopped_in >= 0)
			fprintf(out, "Results incomplete: the run stopped during the %s phase.\n",
				tio_phase_label[r->stopped_in]);
		else
			fprintf(out, "Results incomplete: the run stopped before all phases ran.\n");
	}
	/* --time-limit and --ramp, after the classic lines too */
	for (int p = 0; p < TIO_NPHASES && !c->text.terse; p++)
		if (r->phase[p].ran && r->phase[p].time_limited)
			fprintf(out, "%s phase: stopped by time limit after %.3f s.\n", tio_phase_label[p],
				(double)(r->phase[p].wall_ns + r->phase[p].ramp_ns) / 1e9);
	if (c->run.ramp_ns && !c->text.terse)
		fprintf(out, "Ramp: the first %.3f s of each phase left out of its figures (--ramp).\n",
			(double)c->run.ramp_ns / 1e9);
	/* --sysstats and --profile output under the classic tables */
	if (c->run.sysstats) {
		kstat_text_header(out);
		for (int p = 0; p < TIO_NPHASES; p++)
			if (r->phase[p].ran && r->phase[p].obs.taken)
				kstat_text_row(out, tio_phase_label[p], &r->phase[p].obs.k);
		afterrun_text(out, &r->head.after);
		/* io_uring: the kernel's io-wq workers that served the requests */
		for (int p = 0, head = 0; p < TIO_NPHASES; p++) {
			const struct tio_phase_result *pr = &r->phase[p];

			if (!pr->ran || !pr->has_workers)
				continue;
			if (!head++)
				fprintf(out, "\nio-wq workers per phase (io_uring's kernel threads, live at each "
					"thread's end of phase)\n%-14s %8s %9s\n", "Phase", "Threads", "CPU s");
			fprintf(out, "%-14s %8llu %9.2f\n", tio_phase_label[p],
				(unsigned long long)pr->wq.threads, pr->wq.cpu_s);
		}
		/* io_uring: the time inside the calls that submitted the requests */
		for (int p = 0, head = 0; p < TIO_NPHASES; p++) {
			const struct tio_phase_result *pr = &r->phase[p];

			if (!pr->ran || !pr->has_submit)
				continue;
			if (!head++)
				engine_text_submission_header(out, "per phase", "Phase");
			engine_text_submission_row(out, tio_phase_label[p], &pr->sub);
		}
	}
	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran && r->phase[p].obs.profile) {
			snprintf(label, sizeof(label), "%s phase", tio_phase_label[p]);
			profile_text_print(out, label, r->phase[p].obs.profile, (unsigned)c->run.profile_top);
		}
	fflush(out);
}

static void tio_rep_summary(void *st, const struct driver_result *res)
{
	struct tio_out *x = st;

	if (x->o->text && !x->c->text.terse)
		tio_print_summary(x->o->text, x->c, res->runs, res->nruns);
}

static json_t *tio_rep_json(void *st, const struct driver_result *res)
{
	struct tio_out *x = st;
	struct json_run_info ri = { .argc = x->o->argc, .argv = x->o->argv, .workload = "tiotest",
				    .res = res,
				    .started_unix_s = ((const struct tio_result *)res->runs)->head.started_unix_s };

	return tio_json(x->c, res, &ri);
}

/* every run's phases into one folded file, the phase as the root frame */
static int tio_rep_folded(void *st, FILE *f, const struct driver_result *res)
{
	const struct tio_result *runs = res->runs;
	char root[64];

	(void)st;
	for (unsigned i = 0; i < res->nruns; i++)
		for (int p = 0; p < TIO_NPHASES; p++) {
			if (!runs[i].phase[p].obs.profile)
				continue;
			if (res->nruns > 1)
				snprintf(root, sizeof(root), "run%u_%s", i + 1, tio_phase_name[p]);
			else
				snprintf(root, sizeof(root), "%s", tio_phase_name[p]);
			if (profile_write_folded(f, root, runs[i].phase[p].obs.profile))
				return -EIO;
		}
	return 0;
}

/* ---- reading a result back (report/result_read.h, a matrix report's cell) ---- */

static const struct rr_layout tio_layout = {
	.groups = "phases",
	.group_lat = "latency",
	.group_intervals = "intervals",
	.complete_field = "complete",
	.series_y = "throughput",
	.series_unit = "MiB/s",
	.series_x = "time since the phase start (s)",
};

/* tiotest 0.4.2's two tables (tiotest.md §4), MBs and Time from the config and the rate */
static void classic_tiotest(FILE *o, const struct rr_result *r)
{
	static const char *const ph[4] = { "write", "random_write", "read", "random_read" };
	static const char *const item[4] = { "Write", "Random Write", "Read", "Random Read" };
	static const char *const lat[4] = { "Write       ", "Random Write", "Read        ", "Random Read " };
	double thr = rr_fact_num(r, "config.threads"), fs = rr_fact_num(r, "config.file_size_used_bytes"),
	       bs = rr_fact_num(r, "config.block_size_bytes"),
	       rops = rr_fact_num(r, "config.random_ops_per_thread");
	char key[96];

	if (isnan(fs))
		fs = rr_fact_num(r, "config.file_size_bytes");
	fprintf(o, "Tiotest results for %.0f concurrent io threads:\n", isnan(thr) ? 0.0 : thr);
	fputs(",----------------------------------------------------------------------.\n"
	      "| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n"
	      "+-----------------------+----------+--------------+----------+---------+\n",
	      o);
	for (int p = 0; p < 4; p++) {
		double rate, mb;

		snprintf(key, sizeof(key), "%s.rate_mib_per_s", ph[p]);
		if (isnan(rate = rr_run_value(r, key, 0)))
			continue;
		mb = (p % 2 ? rops * bs : fs) * thr / 1048576.0;
		/* "| Write %11.0f MBs |": the size right-aligned in the 23-column cell */
		fprintf(o, "| %s %*.0f MBs |", item[p], (int)(16 - strlen(item[p])), isnan(mb) ? 0.0 : mb);
		snprintf(key, sizeof(key), "%s.cpu_usr_pct", ph[p]);
		fprintf(o, " %6.1f s | %7.3f MB/s | %5.1f %%  |", rate > 0 && !isnan(mb) ? mb / rate : 0.0,
			rate, rr_run_value(r, key, 0));
		snprintf(key, sizeof(key), "%s.cpu_sys_pct", ph[p]);
		fprintf(o, " %5.1f %% |\n", rr_run_value(r, key, 0));
	}
	fputs("`----------------------------------------------------------------------'\n", o);
	if (isnan(rr_run_value(r, "total.latency_mean_ns", 0)))
		return;
	fputs("Tiotest latency results:\n"
	      ",-------------------------------------------------------------------------.\n"
	      "| Item         | Average latency | Maximum latency | % >2 sec | % >10 sec |\n"
	      "+--------------+-----------------+-----------------+----------+-----------+\n",
	      o);
	for (int p = 0; p < 5; p++) {
		const char *g = p < 4 ? ph[p] : "total";
		double v[4];
		static const char *const k[4] = { "latency_mean_ns", "latency_max_ns", "latency_over_2s_pct",
						  "latency_over_10s_pct" };

		for (int i = 0; i < 4; i++) {
			snprintf(key, sizeof(key), "%s.%s", g, k[i]);
			/* "% >2 sec" is written for this table only (never compared): the run's own value */
			if (isnan(v[i] = rr_run_value(r, key, 0)))
				v[i] = rr_shown(r, key, 0);
		}
		if (isnan(v[0]))
			continue;
		if (p == 4)
			fputs("|--------------+-----------------+-----------------+----------+-----------|\n",
			      o);
		fprintf(o, "| %s | %12.3f ms | %12.3f ms | %8.5f | %9.5f |\n",
			p < 4 ? lat[p] : "Total       ", v[0] / 1e6, v[1] / 1e6, v[2], v[3]);
	}
	fputs("`--------------+-----------------+-----------------+----------+-----------'\n", o);
}

const struct workload_report tio_report = {
	.state_size = sizeof(struct tio_out),
	.begin = tio_rep_begin,
	.run_end = tio_rep_run_end,
	.summary = tio_rep_summary,
	.json = tio_rep_json,
	.folded = tio_rep_folded,
	.hint_reads = "use -X, or -F as root",
	.hint_writes = "use -S or -X",
	.layout = &tio_layout,
	.classic_from_figures = classic_tiotest,
};
