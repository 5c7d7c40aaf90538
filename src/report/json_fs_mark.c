/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's JSON result: config, environment (json_result_head), iterations, end, summary. */
#include "report/json_fs_mark.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "workload/workload.h"
#include "report/afterrun_report.h"
#include "report/json_kstat.h"

static const char *const policy_name[] = { "none", "time_hash", "round_robin", "spread" };

static json_t *config(const struct fsm_config *c)
{
	json_t *o = json_object(), *d = json_array();

	for (unsigned i = 0; i < c->dirs.n; i++)
		json_array_append_new(d, json_string(c->dirs.v[i]));
	json_object_set_new(o, "dirs", d);
	json_object_set_new(o, "threads", json_u64(c->nthreads));
	/* a job of several processes (fsbench-mpi): threads is per process */
	if (run_opts_nprocs(&c->run) > 1)
		json_object_set_new(o, "processes", json_u64(run_opts_nprocs(&c->run)));
	json_object_set_new(o, "files_per_thread", json_u64(c->nfiles));
	json_object_set_new(o, "file_bytes", json_u64(c->file_bytes));
	json_object_set_new(o, "io_bytes", json_u64(c->io_bytes));
	json_object_set_new(o, "sync_method", json_u64(c->sync_method));
	json_object_set_new(o, "subdirs", json_u64(c->subdirs));
	json_object_set_new(o, "files_per_subdir", json_u64(c->files_per_subdir));
	json_object_set_new(o, "dir_policy", json_string(policy_name[c->policy]));
	json_object_set_new(o, "name_length_option", json_u64(c->name_len));
	json_object_set_new(o, "random_length_option", json_u64(c->rand_len));
	json_object_set_new(o, "name_chars", json_u64(c->name_chars));
	json_object_set_new(o, "random_chars", json_u64(c->rand_chars));
	json_object_set_new(o, "iterations", c->fill ? json_null() : json_u64(c->iterations));
	json_object_set_new(o, "fill", json_boolean(c->fill));
	json_object_set_new(o, "keep", json_boolean(c->keep_files));
	json_object_set_new(o, "log", json_string(c->log));
	json_object_set_new(o, "dirsync", json_boolean(c->dirsync));
	json_object_set_new(o, "fdatasync", json_boolean(c->fdatasync));
	json_object_set_new(o, "xattr_bytes", json_u64(c->xattr_bytes));
	json_object_set_new(o, "stat", json_boolean(c->stat));
	json_object_set_new(o, "read", json_boolean(c->read));
	json_object_set_new(o, "engine", json_string(c->eng.ops ? c->eng.ops->name : "psync"));
	json_object_set_new(o, "iodepth", json_u64(c->eng.iodepth));
	json_engine_setup(o, &c->eng);
	json_object_set_new(o, "repeat", json_u64(c->run.repeat));
	json_object_set_new(o, "interval_ns", json_u64(c->run.interval_ns));
	json_object_set_new(o, "layout_files", c->layout_files ? json_u64(c->layout_files) : json_null());
	return o;
}

static json_t *phase(uint64_t files, uint64_t wall_ns)
{
	return json_pack("{s:o,s:o,s:o}", "files", json_u64(files), "wall_ns", json_u64(wall_ns),
			 "files_per_sec", json_num(wall_ns ? (double)files / ((double)wall_ns / NS_PER_S) : 0));
}

/* the six fs_mark op types always; the others when they happened */
static bool op_shown(int i, uint64_t ops)
{
	return i == FSM_CREATE || i == FSM_WRITE || i == FSM_FSYNC || i == FSM_SYNC || i == FSM_CLOSE ||
	       i == FSM_UNLINK || ops;
}

/* a run's latency per op type over its reported iterations, with the buckets */
static json_t *run_latency(const struct fsm_result *r)
{
	struct opstat *s = malloc(sizeof(*s));
	json_t *lat = json_object();

	if (!s) {
		json_decref(lat);
		return NULL;
	}
	for (int i = 0; i < FSM_NOPS; i++) {
		const struct fsm_op_total *t = &r->op[i];

		if (!op_shown(i, t->ops))
			continue;
		opstat_init(s);
		s->ops = t->ops;
		s->bytes = t->bytes;
		s->over_2s = t->over_2s;
		s->over_10s = t->over_10s;
		hist_unpack(&t->lat, &s->lat);
		json_object_set_new(lat, fsm_op_name[i], json_latency(s));
	}
	free(s);
	return lat;
}

/* --layout, one iteration: its figures (null when absent, with the reason), the counts behind
 * them, the extents-per-file histogram as [lo, hi, files] (hi null: no bound) for the buckets
 * that have files, and a few sampled files' inode and group numbers (ext4). A few hundred
 * bytes: a fill has thousands of iterations. */
static json_t *layout_iter(const struct fsm_layout *L)
{
	const struct layout_sum *s = &L->sum;
	const struct layout_locality *l = &L->loc;
	json_t *o = json_object(), *h, *ex;

	json_figures(o, &workload_fs_mark.figs->iter[FSM_IFIG_LAYOUT], FSM_NLFIGS, L->fig);
	/* json_figures writes at "layout.x": the object is what sits under "layout" */
	{
		json_t *inner = json_incref(json_object_get(o, "layout"));

		json_decref(o);
		o = inner ? inner : json_object();
	}
	if (L->absent)
		json_object_set_new(o, "absent", json_string(L->why));
	json_object_set_new(o, "sampled", json_u64(L->sampled));
	json_object_set_new(o, "placed", json_u64(s->placed));
	json_object_set_new(o, "unplaced", json_u64(s->unplaced));
	json_object_set_new(o, "empty", json_u64(s->empty));
	json_object_set_new(o, "inline", json_u64(s->inline_files));
	json_object_set_new(o, "max_extents", json_u64(s->max_extents));
	h = json_array();
	for (unsigned i = 0; i < LAYOUT_HIST_N; i++) {
		uint64_t hi = layout_hist_max(i);

		if (s->hist[i])
			json_array_append_new(h, json_pack("[o,o,o]", json_u64(i ? layout_hist_max(i - 1) + 1 : 0),
				hi == UINT64_MAX ? json_null() : json_u64(hi), json_u64(s->hist[i])));
	}
	json_object_set_new(o, "extents_hist", h);
	if (!l->files)
		return o;
	json_object_set_new(o, "located", json_u64(l->files));
	json_object_set_new(o, "mean_group_distance", json_num((double)l->inode_distance_sum / (double)l->files));
	if (l->in_inode_flex || l->in_dir_flex) {
		json_object_set_new(o, "inode_flex_group_pct", json_num(100.0 * (double)l->in_inode_flex / (double)l->files));
		json_object_set_new(o, "dir_flex_group_pct", json_num(100.0 * (double)l->in_dir_flex / (double)l->files));
	}
	ex = json_array();
	for (unsigned i = 0; i < L->nex; i++) {
		const struct fsm_layout_example *e = &L->ex[i];

		json_array_append_new(ex, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "ino", json_u64(e->ino),
			"inode_group", json_u64(e->inode_group), "dir_ino", json_u64(e->dir_ino),
			"dir_group", json_u64(e->dir_group), "data_group", json_u64(e->data_group),
			"first_block", json_u64(e->first_block), "extents", json_u64(e->extents)));
	}
	json_object_set_new(o, "examples", ex);
	return o;
}

json_t *fsm_json_iter(const struct fsm_config *c, const struct fsm_iter *it)
{
	json_t *o = json_object(), *lat = json_object(), *ph = json_object();

	json_object_set_new(o, "iteration", json_u64(it->index + 1));
	json_object_set_new(o, "start_unix_s", json_u64(it->start_unix_s));
	json_object_set_new(o, "files", json_u64(it->files));
	json_object_set_new(o, "count", json_u64(it->count));
	json_object_set_new(o, "partial", json_boolean(it->partial));
	json_object_set_new(o, "stopped_by_time_limit", json_boolean(it->time_limited));
	json_object_set_new(o, "ramp_ns", json_u64(it->ramp_ns));
	json_object_set_new(o, "fs_use_pct", json_integer(it->fsuse_pct));
	json_object_set_new(o, "inode_use_pct", json_integer(it->iuse_pct));
	json_object_set_new(o, "files_per_sec_sum_of_threads", json_num(it->files_per_sec));
	json_object_set_new(o, "files_per_sec_aggregate", json_num(it->files_per_sec_aggregate));
	json_object_set_new(o, "wall_ns", json_u64(it->wall_ns));
	json_object_set_new(o, "app_overhead_ns", json_u64(it->app_overhead_ns));
	if (c->stat)
		json_object_set_new(ph, "stat", phase(it->op[FSM_STAT].ops, it->stat_wall_ns));
	if (c->read)
		json_object_set_new(ph, "read", phase(it->op[FSM_READ_OPEN].ops, it->read_wall_ns));
	if (!c->keep_files)
		json_object_set_new(ph, "unlink", phase(it->op[FSM_UNLINK].ops, it->unlink_wall_ns));
	json_object_set_new(o, "phases", ph);
	/* percentiles only: a fill has thousands of iterations, and their buckets were the bulk
	 * of the file (a 71 MiB result); the run keeps the buckets, merged (fsm_json_run) */
	for (int i = 0; i < FSM_NOPS; i++)
		if (op_shown(i, it->op[i].ops))
			json_object_set_new(lat, fsm_op_name[i], json_latency_summary(&it->op[i]));
	json_object_set_new(o, "latency", lat);
	/* the create loop's time series and kernel view (core/observe.h), as tiotest's phases */
	json_object_set_new(o, "intervals", json_samples(it->samples, it->nsamples));
	json_object_set_new(o, "interval_ns", json_u64(it->sample_interval_ns));
	if (it->obs.taken) {
		json_object_set_new(o, "kernel", kstat_json(&it->obs.k));
		json_object_set_new(o, "warnings", warn_json(&it->obs.warns));
	}
	if (it->obs.profile)
		json_object_set_new(o, "profile", perf_json(it->obs.profile));
	if (it->layout.taken)
		json_object_set_new(o, "layout", layout_iter(&it->layout));
	json_cost(o, &it->cost);
	json_figures(o, &workload_fs_mark.figs->iter[FSM_IFIG_COST], COST_NFIGS, it->cost_fig);
	/* the engine's requests per phase and op (io_uring: ring operations), when it counts */
	{
		json_t *ro = json_object();

		for (int p = 0; p < FSM_NPH; p++) {
			json_t *ph_ops = json_object();

			for (int k = 0; k < ENGINE_NOPS; k++)
				if (it->engine_ops[p][k])
					json_object_set_new(ph_ops, engine_op_key[k], json_u64(it->engine_ops[p][k]));
			if (json_object_size(ph_ops))
				json_object_set_new(ro, fsm_phase_name[p], ph_ops);
			else
				json_decref(ph_ops);
		}
		if (json_object_size(ro))
			json_object_set_new(o, "ring_ops", ro);
		else
			json_decref(ro);
	}
	/* io_uring: the io-wq workers live at each phase's end, and their CPU */
	if (it->has_workers) {
		json_t *wq = json_object();

		json_object_set_new(wq, "create", json_pack("{s:o,s:o}", "threads", json_u64(it->wq[0].threads),
							     "cpu_s", json_num(it->wq[0].cpu_s)));
		for (int p = 1; p < FSM_NPH; p++)
			if ((p == FSM_PH_STAT && c->stat) || (p == FSM_PH_READ && c->read) ||
			    (p == FSM_PH_UNLINK && !c->keep_files))
				json_object_set_new(wq, fsm_phase_name[p], json_pack("{s:o,s:o}", "threads",
					json_u64(it->wq[p].threads), "cpu_s", json_num(it->wq[p].cpu_s)));
		json_object_set_new(o, "io_wq", wq);
	}
	/* io_uring: the time inside the calls that submitted the requests, per phase as io_wq
	 * (percentiles only, as the iteration's latency) */
	if (it->has_submit) {
		json_t *so = json_object();

		for (int p = 0; p < FSM_NPH; p++)
			if (p == FSM_PH_CREATE || (p == FSM_PH_STAT && c->stat) || (p == FSM_PH_READ && c->read) ||
			    (p == FSM_PH_UNLINK && !c->keep_files))
				json_object_set_new(so, fsm_phase_name[p], json_submission(&it->sub[p], false));
		json_object_set_new(o, "submission", so);
	}
	return o;
}

static const char *const end_name[] = { "done", "filesystem_full", "not_enough_space",
					"interrupted", "error" };

static json_t *rates(const double *v, unsigned n, double average)
{
	return json_pack("{s:o,s:o,s:o,s:o}", "average", json_num(average),
			 "p50", json_num(fsm_percentile(v, n, 50)), "p90", json_num(fsm_percentile(v, n, 90)),
			 "p99", json_num(fsm_percentile(v, n, 99)));
}

/* --layout: the ext4 geometry behind the locality figures, once per run, and how it was had */
static json_t *layout_groups(const struct fsm_result *r)
{
	const struct layout_groups *g = &r->groups;

	if (!r->groups_ok)
		return json_pack("{s:s}", "absent", r->groups_why);
	return json_pack("{s:s,s:b,s:o,s:o,s:o,s:o,s:o,s:o}", "source", g->source, "exact", g->exact,
			 "block_bytes", json_u64(g->block_bytes), "blocks_per_group", json_u64(g->blocks_per_group),
			 "inodes_per_group", json_u64(g->inodes_per_group),
			 "first_data_block", json_u64(g->first_data_block), "groups", json_u64(g->groups),
			 "groups_per_flex", g->groups_per_flex ? json_u64(g->groups_per_flex) : json_null());
}

/* One run: what --repeat repeats. last: the run the error (if any) belongs to. */
static json_t *fsm_json_run(const struct fsm_config *c, const struct driver_result *res,
			    const struct fsm_result *r, json_t *iters, bool last)
{
	json_t *o = json_object(), *end = json_object(), *sum = json_object();
	const struct run_error *e = last && res->failed ? &res->error : NULL;

	json_object_set_new(o, "iterations", iters ? json_incref(iters) : json_array());
	json_object_set_new(end, "reason", json_string(end_name[r->head.end]));
	if (r->head.end_detail[0])
		json_object_set_new(end, "detail", json_string(r->head.end_detail));
	if (r->head.end_err)
		json_object_set_new(end, "errno", json_string(strerrorname_np(r->head.end_err)));
	if (e) {
		char buf[PATH_MAX + 512];

		run_error_format(e, buf, sizeof(buf));
		json_object_set_new(end, "error", json_string(buf));
	}
	json_object_set_new(o, "end", end);
	if (c->profile_window)
		json_object_set_new(o, "profile_window", json_pack("{s:i,s:i,s:i}", "from_pct",
			(int)c->profile_win_lo, "to_pct", (int)c->profile_win_hi, "iterations",
			(int)r->profiled_iters));
	/* out of memory at the end of the run: no merged latency, the iterations' percentiles stay */
	if (r->op_total) {
		json_t *lat = run_latency(r);

		if (lat)
			json_object_set_new(o, "latency", lat);
	}
	json_object_set_new(sum, "iterations", json_u64(r->niters));
	json_object_set_new(sum, "files", json_u64(r->total_files));
	json_object_set_new(sum, "files_per_sec_sum_of_threads",
			    rates(r->rates, r->niters, r->fig[FSM_RFIG_FILES_PER_SEC]));
	json_object_set_new(sum, "files_per_sec_aggregate",
			    rates(r->agg_rates, r->niters, r->fig[FSM_RFIG_AGGREGATE]));
	json_object_set_new(o, "summary", sum);
	json_figures(o, workload_fs_mark.figs->run, workload_fs_mark.figs->nrun, r->fig);
	afterrun_json(o, &r->head.after);
	if (c->layout_files)
		json_object_set_new(o, "layout_block_groups", layout_groups(r));
	return o;
}

json_t *fsm_json(const struct fsm_config *c, const struct driver_result *res, json_t *const *iters,
		 const struct json_run_info *ri)
{
	const struct fsm_result *runs = res->runs;
	unsigned nruns = res->nruns;
	json_t *root = json_result_head(ri);

	if (!root)
		return NULL;
	json_object_set_new(root, "label", c->run.label ? json_string(c->run.label) : json_null());
	json_object_set_new(root, "config", config(c));
	if (nruns == 1) {
		/* a single run is the top level itself; readers: runs = root.runs or [root] */
		json_t *run = fsm_json_run(c, res, &runs[0], iters[0], true);

		json_object_update(root, run);
		json_decref(run);
	} else {
		json_t *arr = json_array();

		for (unsigned i = 0; i < nruns; i++)
			json_array_append_new(arr, fsm_json_run(c, res, &runs[i], iters[i], i + 1 == nruns));
		json_object_set_new(root, "runs", arr);
	}
	return root;
}
