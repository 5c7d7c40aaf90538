/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's iterations: the phases of one, fill mode, the run, and the result's life. */
#include "workload/fs_mark_int.h"

#include "core/phase_limit.h"

/* ---- iterations ------------------------------------------------------------------------------ */
/* A phase's worker makes its thread's engine state its own (io_uring: the ring) before the
 * release: 0 or -errno (recorded). */
static int fsm_prepare(struct worker *w)
{
	struct fsm_thread *t = w->ctx;
	int rc = engine_ctx_attach(&t->ctx);

	if (rc)
		run_fail_msg(-rc, "cannot set up the %s engine: %s", t->s->c->eng.ops->name, strerror(-rc));
	return rc;
}

/* One phase of an iteration; live: the op whose per-worker statistics the progress line (and,
 * with interval_ns, the time series) follow. The samples are left in *ph for the caller. */
static int run_phase(struct fsm_state *s, struct phase *ph, enum fsm_op live, uint64_t expected,
		     uint64_t interval_ns, struct observe_phase *obs)
{
	const struct fsm_config *c = s->c;
	int rc;

	ph->nworkers = c->nthreads;
	ph->workers = s->workers;
	ph->prepare = fsm_prepare;
	ph->finish = fsm_finish;
	ph->interval_ns = interval_ns;
	ph->expected_ops = expected;
	ph->label = s->label;
	ph->ops_unit = "files";
	for (unsigned i = 0; i < c->nthreads; i++)
		s->workers[i].live = &s->th[i].op[live];
	rc = driver_phase(s->d, ph, obs, NULL);
	for (unsigned i = 0; i < c->nthreads; i++)
		s->workers[i].ctx = &s->th[i];
	return rc;
}

/* a phase after the create loop: no time series, its wall time */
const char *const fsm_phase_name[FSM_NPH] = { "create", "stat", "read", "unlink" };

/* the engine's request counts of the phase that just ended, from every thread's context */
static void take_engine_ops(struct fsm_state *s, struct fsm_iter *it, enum fsm_phase_id p)
{
	for (unsigned i = 0; i < s->c->nthreads; i++) {
		struct engine_ctx *ctx = &s->th[i].ctx;

		for (int o = 0; o < ENGINE_NOPS; o++)
			it->engine_ops[p][o] += ctx->nops[o];
		memset(ctx->nops, 0, sizeof(ctx->nops));
		it->wq[p].threads += s->th[i].wq.threads;
		it->wq[p].cpu_s += s->th[i].wq.cpu_s;
		memset(&s->th[i].wq, 0, sizeof(s->th[i].wq));
		it->has_workers = s->c->eng.ops->workers != NULL;
		if (ctx->submit) {
			engine_submit_stats_merge(&it->sub[p], ctx->submit);
			engine_submit_stats_init(ctx->submit);
			it->has_submit = true;
		}
	}
}

static int extra_phase(struct fsm_state *s, struct fsm_iter *it, enum fsm_phase_id p,
		       int (*work)(struct worker *), enum fsm_op live, uint64_t expected,
		       uint64_t *wall_ns)
{
	struct phase ph = { .name = fsm_phase_name[p], .work = work };
	int rc = run_phase(s, &ph, live, expected, 0, NULL);

	take_engine_ops(s, it, p);
	free(ph.samples);
	*wall_ns = ph.end_ns - ph.start_ns;
	return rc;
}

/* room for n iterations in the per-iteration arrays */
int fsm_reserve(struct fsm_result *r, unsigned n)
{
	unsigned ncap = r->cap ? r->cap : 16;
	double *a, *b;
	uint64_t *f, *w, *t;

	if (n <= r->cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	if ((a = realloc(r->rates, ncap * sizeof(double))))
		r->rates = a;
	if (a && (b = realloc(r->agg_rates, ncap * sizeof(double))))
		r->agg_rates = b;
	else
		return -ENOMEM;
	if ((f = realloc(r->iter_files, ncap * sizeof(uint64_t))))
		r->iter_files = f;
	if (f && (w = realloc(r->iter_wall_ns, ncap * sizeof(uint64_t))))
		r->iter_wall_ns = w;
	else
		return -ENOMEM;
	if (!(t = realloc(r->iter_start_ns, ncap * sizeof(uint64_t))))
		return -ENOMEM;
	r->iter_start_ns = t;
	r->cap = ncap;
	return 0;
}

static int push_rate(struct fsm_result *r, const struct fsm_iter *it)
{
	if (fsm_reserve(r, r->niters + 1))
		return -ENOMEM;
	r->rates[r->niters] = it->files_per_sec;
	r->agg_rates[r->niters] = it->files_per_sec_aggregate;
	r->iter_files[r->niters] = it->files;
	r->iter_wall_ns[r->niters] = it->wall_ns;
	r->iter_start_ns[r->niters] = it->release_ns;
	r->niters++;
	return 0;
}

/* after the iteration callback: the run-wide figures of a reported iteration */
static void account(struct fsm_state *s, struct fsm_result *r, struct fsm_iter *it)
{
	r->app_overhead_ns += it->app_overhead_ns;
	hist_merge(&r->create_lat, &it->op[FSM_CREATE].lat);
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_merge(&s->run_op[o], &it->op[o]);
	/* the text table of a run is the create loop of all its iterations together: one iteration
	 * of a few milliseconds holds too few samples to read. Out of memory loses that iteration's
	 * samples only (the merge frees it). --profile-window: only the iterations whose FSUse% is
	 * in the window (the reference profiled "the first 15 % of the fill") */
	if (it->fsuse_pct >= (int)s->c->profile_win_lo && it->fsuse_pct <= (int)s->c->profile_win_hi) {
		perf_profile_merge(&r->profile, it->obs.profile);
		it->obs.profile = NULL;
		r->profiled_iters++;
	}
}

/* what the iteration callback saw and nothing keeps */
void fsm_iter_release(struct fsm_iter *it)
{
	free(it->samples);
	it->samples = NULL;
	it->nsamples = 0;
	observe_phase_free(&it->obs);
}

/* the honesty warnings (core/warn.h) of the create loop */
static void iter_warn(struct driver *d, const struct fsm_config *c, const struct phase *ph,
		      struct fsm_iter *it)
{
	char name[32];
	struct warn_phase w = { .name = name, .write_bytes = it->op[FSM_WRITE].bytes,
				/* every method but -S 0 syncs the files before the loop ends */
				.sync = c->sync_method != 0, .threads = c->nthreads,
				.wall_ns = ph->end_ns - ph->start_ns,
				.first_done_ns = ph->first_done_ns - ph->start_ns,
				.last_done_ns = ph->end_ns - ph->start_ns, .sys_s = 0,
				/* a fill's last iteration ends at ENOSPC: short by design */
				.cut_short = it->partial || run_stopping() };

	/* the workers' own system time, not the main and reporter threads' too */
	for (unsigned i = 0; i < ph->nworkers; i++)
		w.sys_s += ph->workers[i].sys_s;
	snprintf(name, sizeof(name), "iteration %u", it->index + 1);
	driver_warn(d, &it->obs, &w, "iteration", it->index + 1);
}

/* The progress line's prefix: "fs_mark run 2/3 iteration 5" */
static void iter_label(struct fsm_state *s, const struct fsm_iter *it)
{
	const struct fsm_config *c = s->c;
	int n;

	if (!s->d->progress)
		return;
	n = snprintf(s->label, sizeof(s->label), "fs_mark");
	if (c->run.repeat > 1)
		n += snprintf(s->label + n, sizeof(s->label) - (size_t)n, " run %u/%llu",
			      s->d->run + 1, (unsigned long long)c->run.repeat);
	if (c->fill || c->iterations > 1)
		snprintf(s->label + n, sizeof(s->label) - (size_t)n, " iteration %u", it->index + 1);
}

/* The create loop's figures over its threads: files, rates, overhead, window and cost */
static void create_figures(struct fsm_state *s, struct fsm_iter *it, const struct phase *ph)
{
	const struct fsm_config *c = s->c;
	uint64_t release;

	/* --ramp: the window and the rates start after it; files and Count keep every file */
	release = phase_measured_start(ph);
	it->release_ns = release;
	it->time_limited = ph->stonewalled;
	it->ramp_ns = ph->ramp_ns;
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];
		uint64_t op_ns = 0;

		it->files += t->done;
		if (t->done < c->nfiles)
			it->partial = true;
		it->ramp_files += ph->workers[i].ramp_ops;
		if (t->loop_ns > ph->ramp_ns)
			it->files_per_sec += (double)(t->done - ph->workers[i].ramp_ops) /
					     ((double)(t->loop_ns - ph->ramp_ns) / NS_PER_S);
		for (int o = 0; o < FSM_LOOP_OPS; o++)
			op_ns += t->op[o].lat.sum;
		it->app_overhead_ns += t->loop_ns > op_ns ? t->loop_ns - op_ns : 0;
		if (t->loop_end_ns > release && t->loop_end_ns - release > it->wall_ns)
			it->wall_ns = t->loop_end_ns - release;
	}
	if (it->wall_ns)
		it->files_per_sec_aggregate = (double)(it->files - it->ramp_files) /
					      ((double)it->wall_ns / NS_PER_S);
	/* the cost per file: the create loop's workers and its kernel view, as the rate */
	it->cost = (struct cost_raw){ .ops = it->files };
	for (unsigned i = 0; i < c->nthreads; i++) {
		const struct worker *w = &ph->workers[i];

		if (w->started)
			cost_add_worker(&it->cost, w->usr_s, w->sys_s, w->end_ns - w->start_ns, w->nvcsw, w->nivcsw);
	}
	if (it->obs.taken)
		cost_add_kstat(&it->cost, &it->obs.k);
	cost_figures(&it->cost, it->cost_fig);
}

static int one_iteration(struct fsm_state *s, struct fsm_iter *it, uint64_t *count)
{
	const struct fsm_config *c = s->c;
	time_t now = time(NULL);
	struct phase ph = { .name = "create", .work = fsm_create_work };
	unsigned index = it->index;
	int rc;

	memset(it, 0, offsetof(struct fsm_iter, op));
	it->index = index;
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_init(&it->op[o]);
	for (int p = 0; p < FSM_NPH; p++)
		engine_submit_stats_init(&it->sub[p]);
	it->start_unix_s = (uint64_t)now;
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];
		/* fs_mark starts every child's subdirectory at tv_sec % D, so threads started in
		 * the same second share it (§4) */
		unsigned sub0 = c->policy == FSM_DIR_NONE ? 0 : (unsigned)((uint64_t)now % c->nsubdirs);

		for (int o = 0; o < FSM_NOPS; o++)
			opstat_init(&t->op[o]);
		t->iter_k0 = t->k_created;
		t->done = t->loop_ns = 0;
		if (fsm_seg_push(t, t->iter_k0, sub0, now))
			return -ENOMEM;
		memcpy(t->name, t->segs[t->nsegs - 1].seq, c->name_chars - c->rand_chars);
	}
	iter_label(s, it);
	/* the directories made before are not the create phase's */
	for (unsigned i = 0; i < c->nthreads; i++) {
		memset(s->th[i].ctx.nops, 0, sizeof(s->th[i].ctx.nops));
		if (s->th[i].ctx.submit)
			engine_submit_stats_init(s->th[i].ctx.submit);
	}
	/* the kernel view is the create loop's window, as the rate is */
	rc = run_phase(s, &ph, FSM_CREATE, c->nthreads * c->nfiles, c->run.interval_ns, &it->obs);
	take_engine_ops(s, it, FSM_PH_CREATE);
	it->samples = ph.samples;
	it->nsamples = ph.nsamples;
	it->sample_interval_ns = ph.sample_interval_ns;
	if (rc)
		return rc;
	create_figures(s, it, &ph);
	*count += it->files;
	it->count = *count;
	if (c->stat && !stop_now(s) &&
	    (rc = extra_phase(s, it, FSM_PH_STAT, fsm_stat_work, FSM_STAT, it->files, &it->stat_wall_ns)))
		return rc;
	if (c->read && !stop_now(s) &&
	    (rc = extra_phase(s, it, FSM_PH_READ, fsm_read_work, FSM_READ_OPEN, it->files,
			      &it->read_wall_ns)))
		return rc;
	/* after the timed phases, before the files go: a fill's last, partial iteration too */
	if (c->layout_files && !run_stopping())
		fsm_layout_sample(s, it);
	if (!c->keep_files && !run_stopping() &&
	    (rc = extra_phase(s, it, FSM_PH_UNLINK, fsm_unlink_work, FSM_UNLINK, it->files,
			      &it->unlink_wall_ns)))
		return rc;
	for (unsigned i = 0; i < c->nthreads; i++)
		for (int o = 0; o < FSM_NOPS; o++)
			opstat_merge(&it->op[o], &s->th[i].op[o]);
	iter_warn(s->d, c, &ph, it);
	fsm_use_pct(s, &it->fsuse_pct, &it->iuse_pct);
	return 0;
}

/* the run's merged op types, kept packed (the full histograms go with the state); out of memory
 * loses them, not the run */
static void pack_totals(struct fsm_state *s, struct fsm_result *r)
{
	r->op_total = true;
	for (int o = 0; o < FSM_NOPS && r->op_total; o++) {
		struct fsm_op_total *t = &r->op[o];

		t->ops = s->run_op[o].ops;
		t->bytes = s->run_op[o].bytes;
		t->over_2s = s->run_op[o].over_2s;
		t->over_10s = s->run_op[o].over_10s;
		r->op_total = hist_pack(&t->lat, &s->run_op[o].lat) == 0;
	}
	if (!r->op_total)
		for (int o = 0; o < FSM_NOPS; o++)
			hist_packed_free(&r->op[o].lat);
}

/* fs_mark's average is the mean of its per-iteration files/sec (sums of per-thread rates); the
 * aggregate is every file over every iteration's wall time */
void fsm_run_figures(struct fsm_result *r)
{
	double sum = 0, files = 0, wall = 0;

	for (unsigned i = 0; i < r->niters; i++) {
		sum += r->rates[i];
		files += (double)r->iter_files[i];
		wall += (double)r->iter_wall_ns[i] / NS_PER_S;
	}
	r->fig[FSM_RFIG_FILES_PER_SEC] = r->niters ? sum / r->niters : 0;
	r->fig[FSM_RFIG_AGGREGATE] = wall > 0 ? files / wall : 0;
}

int fsm_run(struct driver *d, const void *cfg, void *result)
{
	const struct fsm_config *c = cfg;
	struct fsm_result *r = result;
	struct fsm_state *s = calloc(1, sizeof(*s));
	struct fsm_iter *it = calloc(1, sizeof(*it));
	uint64_t count = 0;
	int rc;

	hist_init(&r->create_lat);
	r->started = time(NULL);
	r->state = s;
	if (!s || !it) {
		free(it);
		run_fail_msg(ENOMEM, "out of memory");
		return -ENOMEM;
	}
	s->c = c;
	s->d = d;
	rc = fsm_setup(s);
	if (rc && atomic_load(&s->full)) {
		r->head.end = RUN_END_FULL;
		r->head.end_err = atomic_load(&s->full);
		snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s '%s': %s", s->full_what,
			 s->full_path, strerror(r->head.end_err));
		r->head.complete = true;
		fsm_run_figures(r);
		free(it);
		return 0;
	}
	if (rc) {
		free(it);
		return rc;
	}
	if (c->layout_files)
		fsm_layout_groups_init(s, r);
	for (unsigned i = 0; !c->fill ? i < c->iterations : true; i++) {
		char why[PATH_MAX + 128];

		/* fill mode stops only when not even one file per thread fits; otherwise the
		 * iteration runs into ENOSPC and is reported partial. Without -F a shortfall is an
		 * error before anything is created in that iteration. */
		if (fsm_space_check(s, c->fill ? 1 : c->nfiles, why, sizeof(why))) {
			r->head.end = c->fill ? RUN_END_FULL : RUN_END_NOSPACE;
			snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s", why);
			break;
		}
		it->index = i;
		rc = one_iteration(s, it, &count);
		if (rc) {
			if (!run_error_get())
				run_fail(-rc, "iteration", "", -1);
			r->head.end = RUN_END_ERROR;
			break;
		}
		r->total_files = count;
		if (run_signal()) {
			/* the interrupted iteration is not a row: only what completed is reported */
			r->head.end = RUN_END_SIGNAL;
			if (!it->partial) {
				if (push_rate(r, it))
					break;
				driver_unit(d, it);
				account(s, r, it);
			}
			break;
		}
		if (push_rate(r, it)) {
			run_fail(ENOMEM, "malloc", "", -1);
			r->head.end = RUN_END_ERROR;
			break;
		}
		driver_unit(d, it);
		account(s, r, it);
		fsm_iter_release(it);
		if (run_error_get()) {
			r->head.end = RUN_END_ERROR;
			break;
		}
		if (atomic_load(&s->full)) {
			int err = atomic_load(&s->full);

			r->head.end = RUN_END_FULL;
			r->head.end_err = err;
			snprintf(r->head.end_detail, sizeof(r->head.end_detail), "%s '%s': %s", s->full_what,
				 s->full_path, strerror(err));
			break;
		}
	}
	fsm_iter_release(it);
	free(it);
	pack_totals(s, r);
	for (unsigned i = 0; i < c->nthreads; i++)
		r->created |= s->th[i].k_created > 0;
	r->head.complete = r->head.end == RUN_END_DONE || r->head.end == RUN_END_FULL;
	fsm_run_figures(r);
	return 0;
}

bool fsm_result_keeps(const struct fsm_config *c, const struct fsm_result *r)
{
	return c->keep_files && r->created;
}

/* Frees the directories and names of a run once its files are cleaned up (or kept): the
 * cleanup callback fsm_run() registered reads them. The figures stay (--repeat's summary). */
void fsm_result_drop_state(void *result)
{
	struct fsm_result *r = result;
	struct fsm_state *s = r->state;

	if (!s)
		return;
	for (unsigned i = 0; s->th && i < s->c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];

		free(t->segs);
		free(t->name);
		free(t->rbuf);
		engine_ctx_exit(&t->ctx);
		for (unsigned k = 0; t->slots && k < t->nslots; k++)
			free(t->slots[k].name);
		free(t->slots);
		free(t->free_slots);
		free(t->sub);
		free(t->done_reqs);
		free(t->foreign);
	}
	if (s->dirfd)
		for (unsigned i = 0; i < s->c->ndirs * s->c->nsubdirs; i++)
			if (s->dirfd[i] >= 0)
				close(s->dirfd[i]);
	free(s->dirfd);
	free(s->th);
	free(s->workers);
	free(s->wbuf);
	free(s->xbuf);
	free(s->run_op);
	free(s);
	r->state = NULL;
}

void fsm_result_free(void *result)
{
	struct fsm_result *r = result;

	fsm_result_drop_state(r);
	free(r->rates);
	free(r->agg_rates);
	free(r->iter_files);
	free(r->iter_wall_ns);
	free(r->iter_start_ns);
	perf_profile_free(r->profile);
	for (int o = 0; o < FSM_NOPS; o++)
		hist_packed_free(&r->op[o].lat);
	memset(r, 0, sizeof(*r));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fsm_percentile(const double *v, unsigned n, double p)
{
	double *t, res;
	unsigned rank;

	if (!n || !(t = malloc(n * sizeof(double))))
		return 0;
	memcpy(t, v, n * sizeof(double));
	qsort(t, n, sizeof(double), cmp_double);
	rank = (unsigned)((p / 100.0) * n + 0.999999);
	res = t[rank ? (rank > n ? n - 1 : rank - 1) : 0];
	free(t);
	return res;
}
