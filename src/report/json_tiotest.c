/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's JSON result: config, environment (json_result_head), per run its phases with their
 * figures (tio_phase_figs), threads, latency histograms, time series and kernel view. */
#include "report/json_tiotest.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "report/json.h"
#include "report/afterrun_report.h"
#include "report/json_kstat.h"

static json_t *tio_json_config(const struct tio_config *c)
{
	json_t *o = json_object(), *dirs = json_array(), *phases = json_array();

	json_object_set_new(o, "threads", json_u64(c->threads));
	/* a job of several processes (fsbench-mpi): threads is per process */
	if (run_opts_nprocs(&c->run) > 1)
		json_object_set_new(o, "processes", json_u64(run_opts_nprocs(&c->run)));
	json_object_set_new(o, "file_size_bytes", json_u64(c->file_bytes));
	json_object_set_new(o, "file_size_used_bytes", json_u64(c->blocks * c->block_bytes));
	json_object_set_new(o, "block_size_bytes", json_u64(c->block_bytes));
	json_object_set_new(o, "blocks_per_thread", json_u64(c->blocks));
	json_object_set_new(o, "random_ops_per_thread", json_u64(c->random_ops));
	for (unsigned i = 0; i < c->dirs.n; i++)
		json_array_append_new(dirs, json_string(c->dirs.v[i]));
	json_object_set_new(o, "dirs", dirs);
	for (int p = 0; p < TIO_NPHASES; p++)
		if (c->run_phase[p])
			json_array_append_new(phases, json_string(tio_phase_name[p]));
	json_object_set_new(o, "phases", phases);
	json_object_set_new(o, "engine", json_string(c->eng.ops ? c->eng.ops->name : "psync"));
	json_object_set_new(o, "iodepth", json_u64(c->eng.iodepth));
	json_engine_setup(o, &c->eng);
	json_object_set_new(o, "o_sync", json_boolean(c->sync));
	json_object_set_new(o, "o_direct", json_boolean(c->direct));
	json_object_set_new(o, "verify", json_boolean(c->verify));
	json_object_set_new(o, "drop_caches", json_boolean(c->drop_caches));
	json_object_set_new(o, "serial_write", json_boolean(c->serial_write));
	json_object_set_new(o, "raw", json_boolean(c->raw));
	json_object_set_new(o, "raw_offset_bytes", json_u64(c->raw_offset_bytes));
	json_object_set_new(o, "raw_offset_first", json_boolean(c->raw_offset_first));
	json_object_set_new(o, "seed", json_u64(c->seed));
	json_object_set_new(o, "repeat", json_u64(c->run.repeat));
	json_object_set_new(o, "interval_ns", json_u64(c->run.interval_ns));
	json_object_set_new(o, "keep", json_boolean(c->keep));
	json_object_set_new(o, "between_phases", c->between ? json_string(c->between) : json_null());
	return o;
}

static json_t *json_procio(const struct procio *io)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "rchar", json_u64(io->rchar), "wchar", json_u64(io->wchar),
			 "syscr", json_u64(io->syscr), "syscw", json_u64(io->syscw), "read_bytes", json_u64(io->read_bytes),
			 "write_bytes", json_u64(io->write_bytes), "cancelled_write_bytes",
			 json_u64(io->cancelled_write_bytes));
}

/* The layout after a phase: json_figures wrote its figures (null when absent) into "layout";
 * here the counts behind them and each file, or the reason there is none. A phase after which
 * no layout was taken has no "layout" at all. */
static void tio_json_layout(json_t *o, const struct tio_layout *l)
{
	json_t *lo = json_object_get(o, "layout"), *files;

	if (!l->measured) {
		json_object_del(o, "layout");
		return;
	}
	if (!json_is_object(lo))
		return;
	if (l->absent) {
		json_object_set_new(lo, "absent", json_string(l->why));
		return;
	}
	/* measured, but nothing placed to describe: the figures are null, and this says why */
	if (!l->sum.placed)
		json_object_set_new(lo, "absent", json_string("no test file has data on disk (empty, or "
							      "not allocated yet)"));
	json_object_set_new(lo, "files", json_u64(l->sum.files));
	json_object_set_new(lo, "extents", json_u64(l->sum.extents));
	json_object_set_new(lo, "fiemap_extents", json_u64(l->sum.fiemap_extents));
	json_object_set_new(lo, "discontinuities", json_u64(l->sum.discontinuities));
	json_object_set_new(lo, "mapped_bytes", json_u64(l->sum.mapped_bytes));
	json_object_set_new(lo, "max_extents_per_file", json_u64(l->sum.max_extents));
	/* data not placed yet (delayed allocation) and empty files are left out of the figures */
	json_object_set_new(lo, "unplaced_files", json_u64(l->sum.unplaced));
	json_object_set_new(lo, "empty_files", json_u64(l->sum.empty));
	if (!l->files)
		return;
	files = json_array();
	for (unsigned i = 0; i < l->sum.files; i++) {
		const struct layout_file *f = &l->files[i];

		json_array_append_new(files, json_pack("{s:i,s:o,s:o,s:o,s:o}", "thread", (int)i,
			"extents", json_u64(f->extents), "discontinuities", json_u64(f->discontinuities),
			"mapped_bytes", json_u64(f->mapped_bytes), "unplaced_bytes", json_u64(f->unknown_bytes)));
	}
	json_object_set_new(lo, "per_file", files);
}

static json_t *tio_json_phase(const struct tio_result *r, int p)
{
	const struct tio_phase_result *pr = &r->phase[p];
	json_t *o = json_object(), *threads = json_array();

	json_object_set_new(o, "name", json_string(tio_phase_name[p]));
	json_object_set_new(o, "complete", json_boolean(pr->complete));
	json_object_set_new(o, "ops", json_u64(pr->st.ops));
	json_object_set_new(o, "bytes", json_u64(pr->st.bytes));
	json_object_set_new(o, "wall_ns", json_u64(pr->wall_ns));
	json_object_set_new(o, "stopped_by_time_limit", json_boolean(pr->time_limited));
	json_object_set_new(o, "ramp_ns", json_u64(pr->ramp_ns));
	json_object_set_new(o, "first_done_ns", json_u64(pr->first_done_ns));
	json_object_set_new(o, "last_done_ns", json_u64(pr->last_done_ns));
	if (pr->first_done_bytes) {
		double fd_s = (double)pr->first_done_ns / 1e9;

		/* how far every thread had got when the fastest finished (elbencho's "first done") */
		json_object_set_new(o, "first_done", json_pack("{s:o,s:o,s:o,s:o}", "ns", json_u64(pr->first_done_ns),
			"ops", json_u64(pr->first_done_ops), "bytes", json_u64(pr->first_done_bytes), "rate_mib_per_s",
			json_num(fd_s > 0 ? (double)pr->first_done_bytes / 1048576.0 / fd_s : 0)));
	}
	json_object_set_new(o, "cpu_usr_s", json_num(pr->usr_s));
	json_object_set_new(o, "cpu_sys_s", json_num(pr->sys_s));
	json_object_set_new(o, "proc_io", json_procio(&pr->io));
	/* io_uring: the io-wq workers live at the end of the phase, and their CPU */
	if (pr->has_workers)
		json_object_set_new(o, "io_wq", json_pack("{s:o,s:o}", "threads", json_u64(pr->wq.threads),
							   "cpu_s", json_num(pr->wq.cpu_s)));
	/* io_uring: the time inside the calls that submitted the requests; absent for an engine
	 * that does not submit asynchronously (psync, mmap) */
	if (pr->has_submit)
		json_object_set_new(o, "submission", json_submission(&pr->sub, true));
	/* kernel-side view (core/observe.h): always when taken; profile with --profile */
	if (pr->obs.taken) {
		json_object_set_new(o, "kernel", kstat_json(&pr->obs.k));
		json_object_set_new(o, "warnings", warn_json(&pr->obs.warns));
	}
	if (pr->obs.profile)
		json_object_set_new(o, "profile", perf_json(pr->obs.profile));
	for (unsigned i = 0; i < pr->nthreads; i++) {
		const struct tio_thread_result *t = &pr->threads[i];

		json_array_append_new(threads, json_pack("{s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"thread", (int)i, "file", t->path, "ops", json_u64(t->ops), "bytes", json_u64(t->bytes),
			"start_ns", json_u64(t->start_ns), "end_ns", json_u64(t->end_ns), "flush_ns", json_u64(t->flush_ns),
			"cpu_usr_s", json_num(t->usr_s), "cpu_sys_s", json_num(t->sys_s), "nvcsw", json_u64(t->nvcsw),
			"nivcsw", json_u64(t->nivcsw)));
	}
	json_object_set_new(o, "threads", threads);
	json_object_set_new(o, "latency", json_latency(&pr->st));
	json_cost(o, &pr->cost);
	json_figures(o, tio_phase_figs, TIO_NFIGS, pr->fig);
	tio_json_layout(o, &pr->layout);
	json_object_set_new(o, "intervals", json_samples(pr->samples, pr->nsamples));
	json_object_set_new(o, "interval_ns", json_u64(pr->sample_interval_ns));
	return o;
}

/* One run: what --repeat repeats. */
static json_t *tio_json_run(const struct driver_result *res, const struct tio_result *r, bool last)
{
	json_t *o = json_object(), *phases = json_array();

	json_run_end(o, res, &r->head, last);
	json_object_set_new(o, "seed", json_u64(r->seed));
	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			json_array_append_new(phases, tio_json_phase(r, p));
	json_object_set_new(o, "phases", phases);
	json_object_set_new(o, "total_latency", json_latency(&r->total));
	json_figures(o, tio_run_figs, TIO_NRFIGS, r->fig);
	afterrun_json(o, &r->head.after);
	return o;
}

json_t *tio_json(const struct tio_config *c, const struct driver_result *res,
		 const struct json_run_info *ri)
{
	const struct tio_result *runs = res->runs;
	unsigned nruns = res->nruns;
	json_t *root = json_result_head(ri);

	json_object_set_new(root, "label", c->run.label ? json_string(c->run.label) : json_null());
	json_object_set_new(root, "config", tio_json_config(c));
	if (nruns == 1) {
		/* a single run is the top level itself; readers: runs = root.runs or [root] */
		json_t *run = tio_json_run(res, &runs[0], true);

		json_object_update(root, run);
		json_decref(run);
	} else {
		json_t *arr = json_array();

		for (unsigned i = 0; i < nruns; i++)
			json_array_append_new(arr, tio_json_run(res, &runs[i], i + 1 == nruns));
		json_object_set_new(root, "runs", arr);
		json_object_set_new(root, "complete", json_boolean(runs[nruns - 1].head.complete));
	}
	return root;
}
