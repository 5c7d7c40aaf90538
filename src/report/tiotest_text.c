/* tiotest 0.4.2's tables, byte for byte (tiotest.md §4), plus the --percentiles table. */
#include "report/tiotest_text.h"

#include "core/clock.h"
#include "core/stats.h"

#define MIB 1048576.0

static double secs(uint64_t ns)
{
	return (double)ns / NS_PER_S;
}

/* MB as tiotest prints it: ops * bs / 2^20; with the 0.4.0-0.4.2 random-MB bug fixed this is
 * threads * r * bs for the random phases */
static double phase_mb(const struct tio_phase_result *p)
{
	return (double)p->st.bytes / MIB;
}

static bool phase_shown(const struct tio_phase_result *p)
{
	/* tiotest leaves a row out when its block count is zero */
	return p->ran && p->st.ops > 0;
}

static const char *const row_fmt[TIO_NPHASES] = {
	"| Write %11.0f MBs |",
	"| Random Write %4.0f MBs |",
	"| Read %12.0f MBs |",
	"| Random Read %5.0f MBs |",
};

static const char *const lat_label[TIO_NPHASES] = {
	"Write       ", "Random Write", "Read        ", "Random Read ",
};

static void lat_row(FILE *out, const char *label, const struct opstat *s)
{
	double n = s->ops ? (double)s->ops : 1.0;

	fprintf(out, "| %s | %12.3f ms | %12.3f ms | %8.5f | %9.5f |\n", label,
		hist_mean(&s->lat) / 1e6, s->ops ? (double)s->lat.max / 1e6 : 0.0,
		100.0 * (double)s->over_2s / n, 100.0 * (double)s->over_10s / n);
}

void tio_print_tables(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	fprintf(out, "Tiotest results for %llu concurrent io threads:\n", (unsigned long long)c->threads);
	fputs(",----------------------------------------------------------------------.\n"
	      "| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n"
	      "+-----------------------+----------+--------------+----------+---------+\n", out);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];
		double t = secs(pr->wall_ns);

		if (!phase_shown(pr))
			continue;
		/* CPU %: process CPU over the phase wall time, what 0.4.x shows on NPTL, measured once
		 * over the whole window instead of summed per thread */
		fprintf(out, row_fmt[p], phase_mb(pr));
		fprintf(out, " %6.1f s | %7.3f MB/s | %5.1f %%  | %5.1f %% |\n", t,
			t > 0 ? phase_mb(pr) / t : 0.0, t > 0 ? 100.0 * pr->usr_s / t : 0.0,
			t > 0 ? 100.0 * pr->sys_s / t : 0.0);
	}
	fputs("`----------------------------------------------------------------------'\n", out);
	if (c->no_latency)
		return;
	fputs("Tiotest latency results:\n"
	      ",-------------------------------------------------------------------------.\n"
	      "| Item         | Average latency | Maximum latency | % >2 sec | % >10 sec |\n"
	      "+--------------+-----------------+-----------------+----------+-----------+\n", out);
	for (int p = 0; p < TIO_NPHASES; p++)
		if (phase_shown(&r->phase[p]))
			lat_row(out, lat_label[p], &r->phase[p].st);
	fputs("|--------------+-----------------+-----------------+----------+-----------|\n", out);
	lat_row(out, "Total       ", &r->total);
	fputs("`--------------+-----------------+-----------------+----------+-----------'\n\n", out);
}

static const char *const terse_name[TIO_NPHASES] = { "write", "rwrite", "read", "rread" };

void tio_print_terse(FILE *out, const struct tio_config *c, const struct tio_result *r)
{
	(void)c;
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];
		const struct opstat *s = &pr->st;
		double n = s->ops ? (double)s->ops : 1.0;

		/* usr/sys are process CPU seconds of the phase: the value 0.4.x's S/t takes on NPTL */
		fprintf(out, "%s:%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f\n", terse_name[p],
			phase_mb(pr), secs(pr->wall_ns), pr->usr_s, pr->sys_s,
			hist_mean(&s->lat) / 1e6, s->ops ? (double)s->lat.max / 1e6 : 0.0,
			100.0 * (double)s->over_2s / n, 100.0 * (double)s->over_10s / n);
	}
	{
		const struct opstat *s = &r->total;
		double n = s->ops ? (double)s->ops : 1.0;

		fprintf(out, "total:%.5f,%.5f,%.5f,%.5f\n", hist_mean(&s->lat) / 1e6,
			s->ops ? (double)s->lat.max / 1e6 : 0.0, 100.0 * (double)s->over_2s / n,
			100.0 * (double)s->over_10s / n);
	}
}

static void pct_row(FILE *out, const char *label, const struct opstat *s, double wall_s)
{
	const struct hist *h = &s->lat;

	fprintf(out, "| %s | %11.0f | %10.3f | %9.3f | %9.3f | %9.3f | %9.3f | %9.3f |\n", label,
		wall_s > 0 ? (double)s->ops / wall_s : 0.0,
		wall_s > 0 ? (double)s->bytes / MIB / wall_s : 0.0,
		(double)hist_percentile(h, 50) / 1e6, (double)hist_percentile(h, 90) / 1e6,
		(double)hist_percentile(h, 99) / 1e6, (double)hist_percentile(h, 99.9) / 1e6,
		s->ops ? (double)h->max / 1e6 : 0.0);
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
		if (phase_shown(&r->phase[p]))
			pct_row(out, lat_label[p], &r->phase[p].st, secs(r->phase[p].wall_ns));
	fputs("`-----------------------------------------------------------------------------------------------------'\n\n", out);
}

struct summary_fig {
	const char *name, *unit;
	bool harmonic;           /* a rate of runs doing the same work */
	double (*get)(const struct tio_phase_result *p);
};

static double f_rate(const struct tio_phase_result *p) { return phase_mb(p) / secs(p->wall_ns); }
static double f_iops(const struct tio_phase_result *p) { return (double)p->st.ops / secs(p->wall_ns); }
static double f_usr(const struct tio_phase_result *p) { return 100.0 * p->usr_s / secs(p->wall_ns); }
static double f_sys(const struct tio_phase_result *p) { return 100.0 * p->sys_s / secs(p->wall_ns); }
static double f_avg(const struct tio_phase_result *p) { return hist_mean(&p->st.lat) / 1e6; }
static double f_p99(const struct tio_phase_result *p) { return (double)hist_percentile(&p->st.lat, 99) / 1e6; }
static double f_max(const struct tio_phase_result *p) { return (double)p->st.lat.max / 1e6; }

static const struct summary_fig figs[] = {
	{ "Rate", "MB/s", true, f_rate },
	{ "IOPS", "op/s", true, f_iops },
	{ "Usr CPU", "%", false, f_usr },
	{ "Sys CPU", "%", false, f_sys },
	{ "Avg latency", "ms", false, f_avg },
	{ "p99 latency", "ms", false, f_p99 },
	{ "Max latency", "ms", false, f_max },
};

void tio_print_summary(FILE *out, const struct tio_config *c, const struct tio_result *runs, unsigned n)
{
	double v[n];

	(void)c;
	fprintf(out, "Summary of %u runs: mean ± 95%% confidence interval (coefficient of variation)\n", n);
	fprintf(out, "rates are harmonic means (total work over total time)\n");
	for (int p = 0; p < TIO_NPHASES; p++) {
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++)
			if (phase_shown(&runs[i].phase[p]) && runs[i].phase[p].complete)
				k++;
		if (!k)
			continue;
		for (size_t f = 0; f < sizeof(figs) / sizeof(figs[0]); f++) {
			struct stats_summary s;

			k = 0;
			for (unsigned i = 0; i < n; i++)
				if (phase_shown(&runs[i].phase[p]) && runs[i].phase[p].complete)
					v[k++] = figs[f].get(&runs[i].phase[p]);
			if (stats_summarize(v, k, figs[f].harmonic, &s))
				continue;
			fprintf(out, "%-13s %-12s %12.3f ± %-10.3f %-5s (CV %5.1f%%, n=%u)\n",
				f ? "" : tio_phase_label[p], figs[f].name, s.mean, s.ci, figs[f].unit,
				s.cv_pct, s.n);
		}
	}
	fputc('\n', out);
}
