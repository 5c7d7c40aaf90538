/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mdtest's results: the SUMMARY tables and the declared figures computed from the phases'
 * windows, and the results of a job's tasks merged, packed and unpacked (fsbench-mpi). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/afterrun.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/pack.h"
#include "workload/mdtest.h"
#include "workload/mdtest_int.h"
#include "workload/workload.h"

/* ---- the SUMMARY tables and the figures ------------------------------------------------------ */
/* Per iteration, a test's job rate is its items over its window (the release of every task to
 * the last task's end), its time the window; Max, Min, Mean and the sample standard deviation
 * over iterations as mdtest prints them (0 for one iteration). */
void mdt_summarize(struct mdt_result *r)
{
	double (*v)[2] = calloc(r->niters ? r->niters : 1, sizeof(*v));

	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		unsigned n = 0;

		for (unsigned j = 0; j < r->niters; j++) {
			const struct mdt_cell *x = &r->cell[j][t];
			double s = x->end_ns > x->start_ns ? (double)(x->end_ns - x->start_ns) / NS_PER_S : 0;

			if (!x->ran || !v)
				continue;
			v[n][0] = s > 0 && x->items ? (double)x->items / s : 0;
			v[n][1] = s;
			n++;
		}
		for (unsigned m = 0; m < 2; m++) {
			double *col = r->table[m][t], sum = 0, var = 0;

			if (!n || !v) {
				/* mdtest prints a test that did not run as zeros */
				col[MDT_MAX] = col[MDT_MIN] = col[MDT_MEAN] = col[MDT_SD] = 0;
				continue;
			}
			col[MDT_MAX] = -INFINITY;
			col[MDT_MIN] = INFINITY;
			for (unsigned j = 0; j < n; j++) {
				col[MDT_MAX] = fmax(col[MDT_MAX], v[j][m]);
				col[MDT_MIN] = fmin(col[MDT_MIN], v[j][m]);
				sum += v[j][m];
			}
			col[MDT_MEAN] = sum / n;
			for (unsigned j = 0; j < n; j++)
				var += (v[j][m] - col[MDT_MEAN]) * (v[j][m] - col[MDT_MEAN]);
			col[MDT_SD] = n > 1 ? sqrt(var / (n - 1)) : 0;
		}
		if (t != MDT_DIR_READ) {
			unsigned f = t < MDT_DIR_READ ? t : t - 1;

			r->fig[f] = n ? r->table[0][t][MDT_MEAN] : NAN;
		}
	}
	for (unsigned t = 0, f = MDT_NRATES; t < MDT_TREE_CREATE; t++) {
		if (t == MDT_DIR_READ)
			continue;
		r->fig[f++] = r->op[t].ops ? (double)hist_percentile(&r->op[t].lat, 50) : NAN;
		r->fig[f++] = r->op[t].ops ? (double)hist_percentile(&r->op[t].lat, 99) : NAN;
	}
	free(v);
}

#define RATE(k, n, fl) { k "_per_s", "operations." k ".rate_per_s", n " rate", "ops/s", \
			  FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL | (fl) }
#define LAT(k, n) { k "_latency_p50_ns", "operations." k ".latency_p50_ns", n " latency p50", "ns", \
		    FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL }, \
		  { k "_latency_p99_ns", "operations." k ".latency_p99_ns", n " latency p99", "ns", \
		    FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL }
static const struct figure mdt_run_figs[MDT_NFIGS] = {
	RATE("dir_create", "directory creation", FIG_PRIMARY),
	RATE("dir_stat", "directory stat", FIG_PRIMARY),
	RATE("dir_rename", "directory rename", 0),
	RATE("dir_remove", "directory removal", FIG_PRIMARY),
	RATE("file_create", "file creation", FIG_PRIMARY | FIG_KEY),
	RATE("file_stat", "file stat", FIG_PRIMARY | FIG_KEY),
	RATE("file_read", "file read", FIG_PRIMARY),
	RATE("file_remove", "file removal", FIG_PRIMARY | FIG_KEY),
	RATE("tree_create", "tree creation", 0),
	RATE("tree_remove", "tree removal", 0),
	LAT("dir_create", "directory creation"),
	LAT("dir_stat", "directory stat"),
	LAT("dir_rename", "directory rename"),
	LAT("dir_remove", "directory removal"),
	LAT("file_create", "file creation"),
	LAT("file_stat", "file stat"),
	LAT("file_read", "file read"),
	LAT("file_remove", "file removal"),
	AFTERRUN_FIGURES(MDT_FIG_AFTER),
};
const struct figure_set mdt_figs = {
	.run = mdt_run_figs, .nrun = MDT_NFIGS,
	.run_values_off = offsetof(struct mdt_result, fig),
};

/* ---- across processes ------------------------------------------------------------------------ */
/* Tasks side by side: items add up, a test's window runs from the first release to the last
 * end, latency histograms merge exactly; the tables are recomputed from the merged windows. */
int mdt_merge(void *dst, const void *src)
{
	struct mdt_result *a = dst;
	const struct mdt_result *b = src;

	if (a->niters < b->niters) {
		void *n = realloc(a->cell, b->niters * sizeof(*a->cell));

		if (!n)
			return -ENOMEM;
		a->cell = n;
		memset(a->cell + a->niters, 0, (b->niters - a->niters) * sizeof(*a->cell));
		a->niters = b->niters;
	}
	for (unsigned j = 0; j < b->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			struct mdt_cell *x = &a->cell[j][t];
			const struct mdt_cell *y = &b->cell[j][t];

			if (!y->ran)
				continue;
			if (!x->ran) {
				*x = *y;
				/* the kernel view is each process's own */
				memset(&x->obs, 0, sizeof(x->obs));
				continue;
			}
			x->items += y->items;
			x->start_ns = x->start_ns < y->start_ns ? x->start_ns : y->start_ns;
			x->end_ns = x->end_ns > y->end_ns ? x->end_ns : y->end_ns;
			x->time_limited |= y->time_limited;
			x->ramp_ns = x->ramp_ns > y->ramp_ns ? x->ramp_ns : y->ramp_ns;
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		opstat_merge(&a->op[t], &b->op[t]);
		for (unsigned o = 0; o < ENGINE_NOPS; o++)
			a->engine_ops[t][o] += b->engine_ops[t][o];
	}
	for (unsigned i = 0; i < b->nranks && a->nranks < MDT_MAX_RANKS; i++) {
		bool known = false;

		for (unsigned k = 0; k < a->nranks; k++)
			known |= a->rank_host[k] == b->rank_host[i];
		a->nhosts += !known;
		a->rank_host[a->nranks++] = b->rank_host[i];
	}
	if (!a->items && !a->tree_dirs) {
		a->items = b->items;
		a->tree_dirs = b->tree_dirs;
		a->seed = b->seed;
		a->head.started_unix_s = b->head.started_unix_s;
	}
	if (!a->fs_ok && b->fs_ok) {
		a->fs_ok = true;
		a->fs_bytes = b->fs_bytes;
		a->fs_free_bytes = b->fs_free_bytes;
		a->fs_files = b->fs_files;
		a->fs_free_files = b->fs_free_files;
	}
	a->nprocs += b->nprocs;
	if (b->finished_unix_s > a->finished_unix_s)
		a->finished_unix_s = b->finished_unix_s;
	driver_head_merge(&a->head, &b->head);
	mdt_summarize(a);
	return 0;
}

int mdt_pack(const void *result, int64_t off, struct pack *o)
{
	const struct mdt_result *r = result;

	driver_head_pack(o, &r->head);
	pack_u64(o, r->niters);
	for (unsigned j = 0; j < r->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const struct mdt_cell *x = &r->cell[j][t];

			pack_u64(o, x->ran);
			pack_u64(o, x->items);
			pack_u64(o, x->start_ns - (uint64_t)off);
			pack_u64(o, x->end_ns - (uint64_t)off);
			pack_u64(o, x->time_limited);
			pack_u64(o, x->ramp_ns);
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		pack_opstat(o, &r->op[t]);
		for (unsigned e = 0; e < ENGINE_NOPS; e++)
			pack_u64(o, r->engine_ops[t][e]);
	}
	pack_u64(o, r->nprocs);
	pack_u64(o, r->nranks);
	for (unsigned i = 0; i < r->nranks; i++)
		pack_u64(o, r->rank_host[i]);
	pack_i64(o, r->finished_unix_s);
	pack_u64(o, r->items);
	pack_u64(o, r->tree_dirs);
	pack_i64(o, r->seed);
	pack_u64(o, r->fs_ok);
	pack_u64(o, r->fs_bytes);
	pack_u64(o, r->fs_free_bytes);
	pack_u64(o, r->fs_files);
	pack_u64(o, r->fs_free_files);
	return o->err;
}

int mdt_unpack(void *result, struct unpack *u)
{
	struct mdt_result *r = result;
	uint64_t n;

	driver_head_unpack(u, &r->head);
	n = unpack_u64(u);
	if (u->err || n > 1000000 || n * MDT_NTESTS * 32 > u->len)
		return -EPROTO;
	if (n && !(r->cell = calloc(n, sizeof(*r->cell))))
		return -ENOMEM;
	r->niters = (unsigned)n;
	for (unsigned j = 0; j < n; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			struct mdt_cell *x = &r->cell[j][t];

			x->ran = unpack_u64(u) != 0;
			x->items = unpack_u64(u);
			x->start_ns = unpack_u64(u);
			x->end_ns = unpack_u64(u);
			x->time_limited = unpack_u64(u) != 0;
			x->ramp_ns = unpack_u64(u);
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		unpack_opstat(u, &r->op[t]);
		for (unsigned e = 0; e < ENGINE_NOPS; e++)
			r->engine_ops[t][e] = unpack_u64(u);
	}
	r->nprocs = (unsigned)unpack_u64(u);
	n = unpack_u64(u);
	if (u->err || n > MDT_MAX_RANKS)
		return -EPROTO;
	r->nranks = (unsigned)n;
	for (unsigned i = 0; i < n; i++)
		r->rank_host[i] = unpack_u64(u);
	r->nhosts = r->nranks ? 1 : 0;
	r->finished_unix_s = unpack_i64(u);
	r->items = unpack_u64(u);
	r->tree_dirs = unpack_u64(u);
	r->seed = unpack_i64(u);
	r->fs_ok = unpack_u64(u) != 0;
	r->fs_bytes = unpack_u64(u);
	r->fs_free_bytes = unpack_u64(u);
	r->fs_files = unpack_u64(u);
	r->fs_free_files = unpack_u64(u);
	if (unpack_done(u))
		return u->err == -ENOMEM ? -ENOMEM : -EPROTO;
	mdt_summarize(r);
	return 0;
}
