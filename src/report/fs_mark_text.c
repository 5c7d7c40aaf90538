/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark 3.3's header, columns and rows (doc/reference/fs_mark.md §8), and fsbench's extra columns. */
#include "report/fs_mark_text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/stats.h"
#include "report/engine_text.h"
#include "report/json_fs_mark.h"
#include "report/afterrun_report.h"
#include "report/kstat_text.h"
#include "report/profile_text.h"
#include "report/result_read.h"
#include "report/workload_report.h"

static const char *const sync_text[7] = {
	"NO SYNC: Test does not issue sync() or fsync() calls.",
	"INBAND FSYNC: fsync() per file in write loop.",
	/* fs_mark's text; it is one fsync per thread, not per subdirectory (doc/reference/fs_mark.md §3) */
	"SYSTEM SYNC/SINGLE FSYNC: Issue sync() after main write loop and 1 file fsync() per subdirectory.",
	"POST REVERSE: Reopen and fsync() each file in reverse order after main write loop.",
	"SYNC POST REVERSE: Issue sync() and then reopen and fsync() each file in reverse order after main write loop.",
	"POST: Reopen and fsync() each file in order after main write loop.",
	"SYNC POST: Issue sync() and then reopen and fsync() each file in order after main write loop.",
};

static const char *const verbose_cols[6] = {
	"CREAT (Min/Avg/Max)", "WRITE (Min/Avg/Max)", "FSYNC (Min/Avg/Max)",
	"SYNC (Min/Avg/Max)", "CLOSE (Min/Avg/Max)", "UNLINK (Min/Avg/Max)",
};
static const enum fsm_op verbose_ops[6] = {
	FSM_CREATE, FSM_WRITE, FSM_FSYNC, FSM_SYNC, FSM_CLOSE, FSM_UNLINK,
};

void fsm_print_header(FILE *out, bool log, const struct fsm_config *c, int argc, char **argv,
		      time_t started)
{
	fputs("\n# ", out);
	for (int i = 0; i < argc; i++)
		fprintf(out, " %s ", argv[i]);
	/* ctime() ends with its own newline, as in fs_mark */
	/* a job's processes together (fsbench-mpi): every process's threads */
	fprintf(out, "\n#\tVersion 3.3, %u thread(s) starting at %s",
		c->nthreads * run_opts_nprocs(&c->run), ctime(&started));
	fprintf(out, "#\tSync method: %s\n", sync_text[c->sync_method]);
	switch (c->policy) {
	case FSM_DIR_NONE:
		fputs("#\tDirectories:  no subdirectories used\n", out);
		break;
	case FSM_DIR_TIME_HASH:
		fprintf(out, "#\tDirectories:  Time based hash between directories across %u subdirectories "
			"with %d seconds per subdirectory.\n", c->nsubdirs, FSM_SECS_PER_DIR);
		break;
	case FSM_DIR_ROUND_ROBIN:
		fprintf(out, "#\tDirectories:  Round Robin between directories across %u subdirectories "
			"with %llu files per subdirectory.\n", c->nsubdirs,
			(unsigned long long)c->files_per_subdir);
		break;
	case FSM_DIR_SPREAD:
		fprintf(out, "#\tDirectories:  Spread evenly across %u subdirectories, file by file "
			"(fsbench --spread).\n", c->nsubdirs);
		break;
	}
	/* fs_mark prints -p, -p minus -r and -r as given, even when that is negative */
	fprintf(out, "#\tFile names: %d bytes long, (%d initial bytes of time stamp with %d random "
		"bytes at end of name)\n", (int)c->name_len, (int)c->name_len - (int)c->rand_len,
		(int)c->rand_len);
	fprintf(out, "#\tFiles info: size %llu bytes, written with an IO size of %llu bytes per write\n",
		(unsigned long long)c->file_bytes, (unsigned long long)c->io_bytes);
	fputs("#\tApp overhead is time in microseconds spent in the test not doing file writing "
	      "related system calls.\n", out);
	if (c->text.verbose)
		fprintf(out, "%s#\tAll system call times are reported in microseconds.\n\n", log ? "#" : "");
	else
		fputs(log ? "#\n" : "\n", out);
	fprintf(out, "%6s %12s %12s %12s %16s", "FSUse%", "Count", "Size", "Files/sec", "App Overhead");
	if (c->text.verbose)
		for (int i = 0; i < 6; i++)
			fprintf(out, " %26s", verbose_cols[i]);
	if (c->text.percentiles)
		fprintf(out, " %12s %12s", "CREAT p50us", "CREAT p99us");
	if (c->text.inodes)
		fprintf(out, " %6s", "IUse%");
	if (c->text.summary)
		fprintf(out, " %14s", "Agg Files/sec");
	if (c->layout_files)
		fprintf(out, " %12s %10s", "Extents/file", "1-extent%");
	fputc('\n', out);
}

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)((ns + 500) / 1000);
}

void fsm_print_row(FILE *out, const struct fsm_config *c, const struct fsm_iter *it)
{
	fprintf(out, "%6u %12llu %12llu %12.1f %16llu", (unsigned)it->fsuse_pct,
		(unsigned long long)it->count, (unsigned long long)c->file_bytes, it->files_per_sec,
		us(it->app_overhead_ns));
	if (c->text.verbose) {
		/* true min/max and exact averages over every call of every thread (fs_mark took 0
		 * for "unset" and averaged integer per-thread averages, doc/reference/fs_mark.md §6) */
		for (int i = 0; i < 6; i++) {
			const struct hist *h = &it->op[verbose_ops[i]].lat;

			fprintf(out, " %8llu %8llu %8llu", h->count ? us(h->min) : 0ULL,
				h->count ? us(h->sum / h->count) : 0ULL, us(h->max));
		}
	}
	if (c->text.percentiles) {
		const struct hist *h = &it->op[FSM_CREATE].lat;

		fprintf(out, " %12.1f %12.1f", (double)hist_percentile(h, 50) / 1e3,
			(double)hist_percentile(h, 99) / 1e3);
	}
	if (c->text.inodes)
		fprintf(out, " %6d", it->iuse_pct);
	if (c->text.summary)
		fprintf(out, " %14.1f", it->files_per_sec_aggregate);
	if (c->layout_files) {
		/* --layout: absent is "-", never 0 (the JSON says why) */
		const double *f = it->layout.fig;

		if (it->layout.taken && !isnan(f[FSM_LFIG_EXTENTS_PER_FILE]))
			fprintf(out, " %12.2f %10.1f", f[FSM_LFIG_EXTENTS_PER_FILE], f[FSM_LFIG_ONE_EXTENT_PCT]);
		else
			fprintf(out, " %12s %10s", "-", "-");
	}
	if (it->time_limited)
		fputs(" stopped by time limit", out);   /* --time-limit: fewer files by design */
	else if (it->partial)
		fputs(" partial", out);
	fputc('\n', out);
}

void fsm_print_summary(FILE *out, const struct fsm_config *c, const struct fsm_result *r)
{
	unsigned n = r->niters;

	(void)c;
	fprintf(out, "#\tIterations reported: %u, files created: %llu\n", n,
		(unsigned long long)r->total_files);
	if (!n)
		return;
	fprintf(out, "#\tFiles/sec, sum of per-thread rates (fs_mark):  average %.1f  p50 %.1f  "
		"p90 %.1f  p99 %.1f\n", r->fig[FSM_RFIG_FILES_PER_SEC], fsm_percentile(r->rates, n, 50),
		fsm_percentile(r->rates, n, 90), fsm_percentile(r->rates, n, 99));
	fprintf(out, "#\tFiles/sec, files / iteration wall time:        average %.1f  p50 %.1f  "
		"p90 %.1f  p99 %.1f\n", r->fig[FSM_RFIG_AGGREGATE],
		fsm_percentile(r->agg_rates, n, 50), fsm_percentile(r->agg_rates, n, 90),
		fsm_percentile(r->agg_rates, n, 99));
}

/* --repeat: one figure per run, summarised over the runs */
struct runs_fig {
	const char *name, *unit;
	bool harmonic;           /* a rate of runs doing the same work */
	double (*get)(const struct fsm_result *r);
};

static double f_rate(const struct fsm_result *r)
{
	return r->fig[FSM_RFIG_FILES_PER_SEC];
}

static double f_agg(const struct fsm_result *r)
{
	return r->fig[FSM_RFIG_AGGREGATE];
}

static double f_overhead(const struct fsm_result *r)
{
	return (double)r->app_overhead_ns / r->niters / 1e3;
}

static double f_p99(const struct fsm_result *r)
{
	return (double)hist_percentile(&r->create_lat, 99) / 1e3;
}

static const struct runs_fig figs[] = {
	{ "Files/sec", "files/s", true, f_rate },
	{ "Agg Files/sec", "files/s", true, f_agg },
	{ "App Overhead", "us/iter", false, f_overhead },
	{ "CREAT p99", "us", false, f_p99 },
};

void fsm_print_runs_summary(FILE *out, const struct fsm_config *c, const struct fsm_result *runs,
			    unsigned n)
{
	double *v = calloc(n ? n : 1, sizeof(*v));

	(void)c;
	if (!v)
		return;
	fprintf(out, "\n#\tSummary of %u runs: mean ± 95%% confidence interval (coefficient of variation)\n", n);
	fprintf(out, "#\trates are harmonic means (total work over total time); Files/sec is fs_mark's "
		"(the average of the rows), Agg Files/sec files / iteration wall time\n");
	for (size_t f = 0; f < sizeof(figs) / sizeof(figs[0]); f++) {
		struct stats_summary s;
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++)
			if (runs[i].niters)
				v[k++] = figs[f].get(&runs[i]);
		if (stats_summarize(v, k, figs[f].harmonic, &s))
			continue;
		fprintf(out, "#\t%-14s %12.1f ± %-10.1f %-8s (CV %5.1f%%, n=%u)\n", figs[f].name, s.mean,
			s.ci, figs[f].unit, s.cv_pct, s.n);
	}
	free(v);
}

/* ---- the presentation hooks (report/workload_report.h) ---------------------------------- */
struct fsm_out {
	const struct fsm_config *c;
	struct report_out *o;
	/* --json, --csv: every run's iterations, written as each completes (a fill has
	 * hundreds; kept in memory they grew the process by ~60 KiB each) */
	struct json_spool *iters;
	/* --sysstats: the current run's kstat rows, printed under the classic rows; with
	 * io_uring, the io-wq workers per iteration and phase and the time inside the calls that
	 * submitted the requests. A row per iteration, so spooled to unnamed files like the
	 * iterations (in memory, a fill's rows grew the process by ~1 KiB an iteration). */
	FILE *kbuf, *wbuf, *sbuf;
};

static const char *fsm_log_path(const void *cfg)
{
	return ((const struct fsm_config *)cfg)->log;
}

static int fsm_rep_begin(void *st, const void *cfg, struct report_out *o)
{
	struct fsm_out *x = st;
	const struct fsm_config *c = cfg;

	x->c = c;
	x->o = o;
	if ((c->run.json || c->run.csv) &&
	    !(x->iters = json_spool_open(c->run.json ? c->run.json : c->run.csv,
					 c->run.repeat ? (unsigned)c->run.repeat : 1))) {
		int e = errno;

		fprintf(o->err, "%s: cannot keep the iterations for the results: %s\n", o->prog, strerror(e));
		return e == ENOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}

static void fsm_rep_run_begin(void *st, unsigned run, long long started)
{
	struct fsm_out *x = st;
	const struct fsm_config *c = x->c;

	(void)run;
	/* each run prints exactly what a single run prints */
	if (x->o->text) {
		fsm_print_header(x->o->text, false, c, x->o->argc, x->o->argv, (time_t)started);
		fflush(x->o->text);
	}
	if (x->o->log)
		fsm_print_header(x->o->log, true, c, x->o->argc, x->o->argv, (time_t)started);
	if (c->run.sysstats && x->o->text) {
		const char *near = c->run.json ? c->run.json : c->run.csv;

		x->kbuf = json_spool_text(near);
		x->wbuf = json_spool_text(near);
		x->sbuf = json_spool_text(near);
	}
}

static void fsm_rep_unit(void *st, unsigned run, const void *unit)
{
	struct fsm_out *x = st;
	const struct fsm_config *c = x->c;
	const struct fsm_iter *it = unit;

	if (x->o->text) {
		fsm_print_row(x->o->text, c, it);
		fflush(x->o->text);
	}
	if (x->o->log)
		fsm_print_row(x->o->log, c, it);
	if (x->iters) {
		json_t *o = fsm_json_iter(c, it);

		/* a failure (no memory, no space for the spool) is the results' write error */
		json_spool_add(x->iters, run, o);
		json_decref(o);
	}
	if (x->kbuf && it->obs.taken) {
		char label[32];

		snprintf(label, sizeof(label), "iteration %u", it->index + 1);
		kstat_text_row(x->kbuf, label, &it->obs.k);
	}
	if (x->wbuf && it->has_workers) {
		fprintf(x->wbuf, "%-14u", it->index + 1);
		for (int p = 0; p < FSM_NPH; p++)
			if (p == FSM_PH_CREATE || (p == FSM_PH_STAT && c->stat) || (p == FSM_PH_READ && c->read) ||
			    (p == FSM_PH_UNLINK && !c->keep_files))
				fprintf(x->wbuf, " %s %llu threads %.2f s", fsm_phase_name[p],
					(unsigned long long)it->wq[p].threads, it->wq[p].cpu_s);
		fputc('\n', x->wbuf);
	}
	if (x->sbuf && it->has_submit)
		for (int p = 0; p < FSM_NPH; p++)
			if (p == FSM_PH_CREATE || (p == FSM_PH_STAT && c->stat) || (p == FSM_PH_READ && c->read) ||
			    (p == FSM_PH_UNLINK && !c->keep_files)) {
				char label[32];

				snprintf(label, sizeof(label), "%u %s", it->index + 1, fsm_phase_name[p]);
				engine_text_submission_row(x->sbuf, label, &it->sub[p]);
			}
}

static void sysstats_close(struct fsm_out *x)
{
	FILE **f[] = { &x->kbuf, &x->wbuf, &x->sbuf };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (*f[i])
			fclose(*f[i]);
		*f[i] = NULL;
	}
}

static void fsm_rep_run_end(void *st, unsigned run, const void *result)
{
	struct fsm_out *x = st;
	const struct fsm_config *c = x->c;
	const struct fsm_result *r = result;
	FILE *out = x->o->text;
	char label[96];

	(void)run;
	switch (r->head.end) {
	case RUN_END_FULL:
		fprintf(x->o->err, "%s: fill ended, the filesystem is full: %s\n", x->o->prog,
			r->head.end_detail);
		break;
	case RUN_END_NOSPACE:
		fprintf(x->o->err, "%s: not enough free space: %s\n", x->o->prog, r->head.end_detail);
		break;
	case RUN_END_SIGNAL:
		if (x->o->quiet_signal)
			break;
		fprintf(x->o->err, "%s: interrupted; %s\n", x->o->prog,
			x->o->keeps ? "the files are kept" : "removing the files");
		fsm_print_summary(x->o->err, c, r);
		break;
	default:
		break;
	}
	if (out && c->text.summary && r->head.end != RUN_END_SIGNAL)
		fsm_print_summary(out, c, r);
	/* --sysstats and --profile output under the run's classic output */
	if (x->kbuf) {
		kstat_text_header(out);
		json_spool_text_copy(x->kbuf, out);
		afterrun_text(out, &r->head.after);
	}
	if (x->wbuf && ftello(x->wbuf) > 0) {
		fprintf(out, "\nio-wq workers per iteration and phase (io_uring's kernel threads, "
			     "live at each thread's end of phase; CPU user + system)\nIteration\n");
		json_spool_text_copy(x->wbuf, out);
	}
	if (x->sbuf && ftello(x->sbuf) > 0) {
		engine_text_submission_header(out, "per iteration and phase", "Iteration phase");
		json_spool_text_copy(x->sbuf, out);
	}
	sysstats_close(x);
	if (out && r->profile) {
		if (c->profile_window)
			snprintf(label, sizeof(label), "create loop, the %u iteration%s at FSUse%% %u-%u%s",
				 r->profiled_iters, r->profiled_iters == 1 ? "" : "s", c->profile_win_lo,
				 c->profile_win_hi, r->profiled_iters == 1 ? "" : " together");
		else if (r->niters > 1)
			snprintf(label, sizeof(label), "create loop, iterations 1-%u together", r->niters);
		else
			snprintf(label, sizeof(label), "create loop");
		profile_text_print(out, label, r->profile, (unsigned)c->run.profile_top);
	}
	if (out)
		fflush(out);
}

static void fsm_rep_summary(void *st, const struct driver_result *res)
{
	struct fsm_out *x = st;

	if (x->o->text) {
		fsm_print_runs_summary(x->o->text, x->c, res->runs, res->nruns);
		fflush(x->o->text);
	}
}

static json_t *fsm_rep_json(void *st, const struct driver_result *res)
{
	struct fsm_out *x = st;
	struct json_run_info ri = { .argc = x->o->argc, .argv = x->o->argv, .workload = "fs_mark",
				    .res = res,
				    .started_unix_s = ((const struct fsm_result *)res->runs)->head.started_unix_s };

	json_t **marks = calloc(res->nruns ? res->nruns : 1, sizeof(*marks)), *root = NULL;
	unsigned i;

	if (!marks || !x->iters)
		goto out;
	for (i = 0; i < res->nruns; i++)
		if (!(marks[i] = json_spool_marker(x->iters, i)))
			goto out;
	root = fsm_json(x->c, res, marks, &ri);
out:
	for (i = 0; marks && i < res->nruns; i++)
		json_decref(marks[i]);
	free(marks);
	return root;
}

static struct json_spool *fsm_rep_spool(void *st)
{
	return ((struct fsm_out *)st)->iters;
}

/* every run's merged create loops into one folded file */
static int fsm_rep_folded(void *st, FILE *f, const struct driver_result *res)
{
	const struct fsm_result *runs = res->runs;
	char root[64];

	(void)st;
	for (unsigned i = 0; i < res->nruns; i++) {
		if (!runs[i].profile)
			continue;
		if (res->nruns > 1)
			snprintf(root, sizeof(root), "run%u_create", i + 1);
		else
			snprintf(root, sizeof(root), "create");
		if (profile_write_folded(f, root, runs[i].profile))
			return -EIO;
	}
	return 0;
}

static void fsm_rep_end(void *st)
{
	struct fsm_out *x = st;

	sysstats_close(x);
	json_spool_free(x->iters);
}

/* ---- reading a result back (report/result_read.h, a matrix report's cell) ---- */

static const char *const fsm_end_ok[] = { "done", "filesystem_full", NULL };

/* fs_mark's intervals count files created (ops; bytes are 0) */
static const struct rr_layout fsm_layout = {
	.iters = "iterations",
	.iter_lats = "latency",
	.run_lats = "latency",
	.iter_lat_key_fig = "create",
	.fill_x = "fs_use_pct",
	.fill_x2 = "count",
	.fill_y = "files_per_sec_sum_of_threads",
	.fill_y2 = "layout.extents_per_file",
	.fill_agg = "files_per_sec_aggregate",
	.fill_overhead = "app_overhead_ns",
	.end_field = "end.reason",
	.end_ok = fsm_end_ok,
	.iter_intervals = "intervals",
	.iter_series = "create",
	.iter_wall = "wall_ns",
	.series_y_ops = true,
	.series_y = "create rate",
	.series_unit = "files/s",
	.series_x = "time in the create loops, iterations end to end (s)",
};

/* fs_mark 3.3's rows (fs_mark.md §8); a long fill shows every k-th row */
static void classic_fs_mark(FILE *o, const struct rr_result *r)
{
	const struct rr_series *s = r->nfill ? &r->fill[0] : NULL;
	double size = rr_fact_num(r, "config.file_bytes");
	unsigned step = 1;

	fputs("FSUse%        Count         Size    Files/sec     App Overhead\n", o);
	if (!s)
		return;
	while (s->n / step > 60)
		step++;
	for (unsigned k = 0; k < s->n; k++) {
		if (k % step && k + 1 != s->n)
			continue;
		fprintf(o, "%6.0f %12.0f %12.0f %12.1f %16.0f\n", s->x[k], s->x2[k], isnan(size) ? 0.0 : size,
			s->y[k],
			s->overhead_ns && !isnan(s->overhead_ns[k]) ? s->overhead_ns[k] / 1000 : 0.0);
	}
	if (step > 1)
		fprintf(o, "(every %u%s iteration of %u shown, and the last)\n", step,
			step == 2   ? "nd"
			: step == 3 ? "rd"
				    : "th",
			s->n);
}

const struct workload_report fsm_report = {
	.state_size = sizeof(struct fsm_out),
	.begin = fsm_rep_begin,
	.run_begin = fsm_rep_run_begin,
	.unit = fsm_rep_unit,
	.run_end = fsm_rep_run_end,
	.summary = fsm_rep_summary,
	.json = fsm_rep_json,
	.spool = fsm_rep_spool,
	.folded = fsm_rep_folded,
	.end = fsm_rep_end,
	.log_path = fsm_log_path,
	.hint_writes = "-S 0 syncs nothing",
	.layout = &fsm_layout,
	.classic_from_figures = classic_fs_mark,
};
