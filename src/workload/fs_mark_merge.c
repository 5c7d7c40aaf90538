/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's results of processes side by side (fsbench-mpi): merge, pack and unpack. */
#include "workload/fs_mark_int.h"

/* Runs of the same configuration from processes side by side: files, latency and overhead add
 * up; fs_mark's files/sec is a sum over threads and so adds up too; an iteration's window runs
 * from the first release to the last create loop end (absolute release times) and the
 * aggregate is recomputed over it. A process with fewer iterations (stopped early) adds to
 * the ones it has. */
static int merge_op_total(struct fsm_op_total *a, const struct fsm_op_total *b)
{
	struct hist *x = malloc(sizeof(*x)), *y = malloc(sizeof(*y));
	struct hist_packed np;
	int rc = -ENOMEM;

	if (x && y) {
		hist_unpack(&a->lat, x);
		hist_unpack(&b->lat, y);
		hist_merge(x, y);
		if (!(rc = hist_pack(&np, x))) {
			hist_packed_free(&a->lat);
			a->lat = np;
			a->ops += b->ops;
			a->bytes += b->bytes;
			a->over_2s += b->over_2s;
			a->over_10s += b->over_10s;
		}
	}
	free(x);
	free(y);
	return rc;
}

int fsm_merge(void *dst, const void *src)
{
	struct fsm_result *a = dst;
	const struct fsm_result *b = src;

	if (fsm_reserve(a, b->niters))
		return -ENOMEM;
	for (unsigned i = 0; i < b->niters; i++) {
		if (i >= a->niters) {
			a->rates[i] = b->rates[i];
			a->iter_files[i] = b->iter_files[i];
			a->iter_wall_ns[i] = b->iter_wall_ns[i];
			a->iter_start_ns[i] = b->iter_start_ns[i];
		} else {
			a->rates[i] += b->rates[i];
			a->iter_files[i] += b->iter_files[i];
			driver_window_join(&a->iter_start_ns[i], &a->iter_wall_ns[i], b->iter_start_ns[i],
					   b->iter_wall_ns[i]);
		}
		a->agg_rates[i] = a->iter_wall_ns[i] ?
			(double)a->iter_files[i] / ((double)a->iter_wall_ns[i] / NS_PER_S) : 0;
	}
	if (b->niters > a->niters)
		a->niters = b->niters;
	a->total_files += b->total_files;
	a->app_overhead_ns += b->app_overhead_ns;
	hist_merge(&a->create_lat, &b->create_lat);
	if (a->op_total && b->op_total) {
		for (int o = 0; o < FSM_NOPS; o++)
			if (merge_op_total(&a->op[o], &b->op[o]))
				return -ENOMEM;
	} else if (a->op_total) {
		/* out of memory in one process: no merged totals rather than wrong ones */
		for (int o = 0; o < FSM_NOPS; o++)
			hist_packed_free(&a->op[o].lat);
		memset(a->op, 0, sizeof(a->op));
		a->op_total = false;
	}
	fsm_run_figures(a);
	driver_head_merge(&a->head, &b->head);
	return 0;
}

/* what merge and the report need, for the first process of a job (workload.h) */
int fsm_pack(const void *result, int64_t off, struct pack *o)
{
	const struct fsm_result *r = result;

	driver_head_pack(o, &r->head);
	pack_i64(o, (int64_t)r->started);
	pack_u64(o, r->niters);
	for (unsigned i = 0; i < r->niters; i++) {
		pack_f64(o, r->rates[i]);
		pack_u64(o, r->iter_files[i]);
		pack_u64(o, r->iter_wall_ns[i]);
		pack_u64(o, r->iter_start_ns[i] - (uint64_t)off);
	}
	pack_u64(o, r->total_files);
	pack_u64(o, r->app_overhead_ns);
	pack_hist(o, &r->create_lat);
	pack_u64(o, r->op_total);
	for (int i = 0; r->op_total && i < FSM_NOPS; i++) {
		pack_u64(o, r->op[i].ops);
		pack_u64(o, r->op[i].bytes);
		pack_u64(o, r->op[i].over_2s);
		pack_u64(o, r->op[i].over_10s);
		pack_hist_packed(o, &r->op[i].lat);
	}
	return o->err;
}

int fsm_unpack(void *result, struct unpack *u)
{
	struct fsm_result *r = result;
	uint64_t n;

	driver_head_unpack(u, &r->head);
	r->started = (time_t)unpack_i64(u);
	n = unpack_u64(u);
	if (u->err || n > u->len)
		return -EPROTO;
	if (fsm_reserve(r, (unsigned)n))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		r->rates[i] = unpack_f64(u);
		r->iter_files[i] = unpack_u64(u);
		r->iter_wall_ns[i] = unpack_u64(u);
		r->iter_start_ns[i] = unpack_u64(u);
		r->agg_rates[i] = r->iter_wall_ns[i] ?
			(double)r->iter_files[i] / ((double)r->iter_wall_ns[i] / NS_PER_S) : 0;
	}
	r->niters = (unsigned)n;
	r->total_files = unpack_u64(u);
	r->app_overhead_ns = unpack_u64(u);
	unpack_hist(u, &r->create_lat);
	r->op_total = unpack_u64(u);
	for (int i = 0; r->op_total && i < FSM_NOPS && !u->err; i++) {
		r->op[i].ops = unpack_u64(u);
		r->op[i].bytes = unpack_u64(u);
		r->op[i].over_2s = unpack_u64(u);
		r->op[i].over_10s = unpack_u64(u);
		unpack_hist_packed(u, &r->op[i].lat);
	}
	if (unpack_done(u))
		return u->err == -ENOMEM ? -ENOMEM : -EPROTO;
	fsm_run_figures(r);
	return 0;
}

/* an iteration (struct fsm_iter), the reporting unit */
int fsm_pack_unit(const void *unit, int64_t off, struct pack *o)
{
	const struct fsm_iter *it = unit;

	pack_u64(o, it->index);
	pack_u64(o, it->files);
	pack_u64(o, it->count);
	pack_u64(o, it->partial);
	pack_u64(o, it->time_limited);
	pack_u64(o, it->ramp_ns);
	pack_u64(o, it->ramp_files);
	pack_i64(o, it->fsuse_pct);
	pack_i64(o, it->iuse_pct);
	pack_f64(o, it->files_per_sec);
	pack_u64(o, it->wall_ns);
	pack_u64(o, it->release_ns - (uint64_t)off);
	pack_u64(o, it->app_overhead_ns);
	pack_u64(o, it->stat_wall_ns);
	pack_u64(o, it->read_wall_ns);
	pack_u64(o, it->unlink_wall_ns);
	pack_u64(o, it->start_unix_s);
	pack_u64(o, it->obs.taken);
	if (it->obs.taken)
		pack_kstat(o, &it->obs.k);
	for (int i = 0; i < FSM_NOPS; i++)
		pack_opstat(o, &it->op[i]);
	/* the engine's side, per phase: ring operations, io-wq workers, submitting calls */
	pack_bytes(o, it->engine_ops, sizeof(it->engine_ops));
	pack_bytes(o, &it->cost, sizeof(it->cost));
	pack_u64(o, it->has_workers);
	pack_u64(o, it->has_submit);
	for (int p = 0; p < FSM_NPH; p++) {
		pack_u64(o, it->wq[p].threads);
		pack_f64(o, it->wq[p].cpu_s);
		if (it->has_submit)
			engine_submit_stats_pack(o, &it->sub[p]);
	}
	return o->err;
}

int fsm_unpack_unit(void *unit, struct unpack *u)
{
	struct fsm_iter *it = unit;

	it->index = (unsigned)unpack_u64(u);
	it->files = unpack_u64(u);
	it->count = unpack_u64(u);
	it->partial = unpack_u64(u);
	it->time_limited = unpack_u64(u) != 0;
	it->ramp_ns = unpack_u64(u);
	it->ramp_files = unpack_u64(u);
	it->fsuse_pct = (int)unpack_i64(u);
	it->iuse_pct = (int)unpack_i64(u);
	it->files_per_sec = unpack_f64(u);
	it->wall_ns = unpack_u64(u);
	it->release_ns = unpack_u64(u);
	it->app_overhead_ns = unpack_u64(u);
	it->stat_wall_ns = unpack_u64(u);
	it->read_wall_ns = unpack_u64(u);
	it->unlink_wall_ns = unpack_u64(u);
	it->start_unix_s = unpack_u64(u);
	it->obs.taken = unpack_u64(u);
	if (it->obs.taken)
		unpack_kstat(u, &it->obs.k);
	for (int i = 0; i < FSM_NOPS; i++)
		unpack_opstat(u, &it->op[i]);
	unpack_bytes(u, it->engine_ops, sizeof(it->engine_ops));
	unpack_bytes(u, &it->cost, sizeof(it->cost));
	cost_figures(&it->cost, it->cost_fig);
	it->has_workers = unpack_u64(u);
	it->has_submit = unpack_u64(u);
	for (int p = 0; p < FSM_NPH; p++) {
		it->wq[p].threads = unpack_u64(u);
		it->wq[p].cpu_s = unpack_f64(u);
		engine_submit_stats_init(&it->sub[p]);
		if (it->has_submit)
			engine_submit_stats_unpack(u, &it->sub[p]);
	}
	it->files_per_sec_aggregate = it->wall_ns ?
		(double)(it->files - it->ramp_files) / ((double)it->wall_ns / NS_PER_S) : 0;
	return unpack_done(u);
}

int fsm_merge_unit(void *dst, const void *src)
{
	struct fsm_iter *a = dst;
	const struct fsm_iter *b = src;

	if (a->index != b->index)
		return -EINVAL;
	a->files += b->files;
	a->count += b->count;
	a->partial = a->partial || b->partial;
	a->time_limited |= b->time_limited;
	a->ramp_ns = a->ramp_ns > b->ramp_ns ? a->ramp_ns : b->ramp_ns;
	a->ramp_files += b->ramp_files;
	/* FSUse% of the fullest filesystem */
	a->fsuse_pct = a->fsuse_pct > b->fsuse_pct ? a->fsuse_pct : b->fsuse_pct;
	a->iuse_pct = a->iuse_pct > b->iuse_pct ? a->iuse_pct : b->iuse_pct;
	a->files_per_sec += b->files_per_sec;
	a->app_overhead_ns += b->app_overhead_ns;
	driver_window_join(&a->release_ns, &a->wall_ns, b->release_ns, b->wall_ns);
	a->files_per_sec_aggregate = a->wall_ns ?
		(double)(a->files - a->ramp_files) / ((double)a->wall_ns / NS_PER_S) : 0;
	/* the extra phases have no release time of their own here: the longest process's */
	if (b->stat_wall_ns > a->stat_wall_ns)
		a->stat_wall_ns = b->stat_wall_ns;
	if (b->read_wall_ns > a->read_wall_ns)
		a->read_wall_ns = b->read_wall_ns;
	if (b->unlink_wall_ns > a->unlink_wall_ns)
		a->unlink_wall_ns = b->unlink_wall_ns;
	if (b->start_unix_s < a->start_unix_s)
		a->start_unix_s = b->start_unix_s;
	if (!a->obs.taken && b->obs.taken) {
		a->obs.taken = true;
		a->obs.k = b->obs.k;
	}
	for (int i = 0; i < FSM_NOPS; i++)
		opstat_merge(&a->op[i], &b->op[i]);
	cost_merge(&a->cost, &b->cost);
	cost_figures(&a->cost, a->cost_fig);
	/* each process's engine: ring operations, io-wq workers and submitting calls add up */
	a->has_workers |= b->has_workers;
	a->has_submit |= b->has_submit;
	for (int p = 0; p < FSM_NPH; p++) {
		for (int k = 0; k < ENGINE_NOPS; k++)
			a->engine_ops[p][k] += b->engine_ops[p][k];
		driver_engine_merge(&a->wq[p], &a->sub[p], &b->wq[p], &b->sub[p]);
	}
	return 0;
}

void fsm_unit_free(void *unit)
{
	fsm_iter_release(unit);
}

