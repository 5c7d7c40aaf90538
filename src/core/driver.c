/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver (core/driver.h): repeats, the phase bracketing, warnings, cleanup, the first
 * error and the signal, for every workload alike. */
#include "core/driver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/pack.h"
#include "core/phase_limit.h"
#include "core/sample.h"
#include "engine/engine.h"
#include "sys/blockdev.h"

/* each target's whole disk (sys/blockdev) and its request queue; nothing for a filesystem
 * without a device */
static void env_capture_queues(struct driver_env *e)
{
	struct blockdev *b = malloc(sizeof(*b));

	e->queues = calloc(e->ntargets ? e->ntargets : 1, sizeof(*e->queues));
	for (unsigned i = 0; b && e->queues && i < e->ntargets; i++)
		e->queue_ok[i] = blockdev_resolve(e->targets[i], b) == 0 && b->kind != BLOCKDEV_NONE &&
				 env_queue_read("/sys", b->disk, &e->queues[i]) == 0;
	free(b);
}

static void env_capture(struct driver_env *e, const char *const *targets, unsigned n)
{
	memset(e, 0, sizeof(*e));
	e->host_ok = env_host_read(&e->host) == 0;
	e->ntargets = n;
	e->mounts = calloc(n ? n : 1, sizeof(*e->mounts));
	for (unsigned i = 0; i < n; i++) {
		e->targets[i] = targets[i];
		e->mount_ok[i] = e->mounts && env_mount_of(targets[i], &e->mounts[i]) == 0;
	}
	env_capture_queues(e);
}

/* every phase's time limit: --time-limit, fsbench-mpi's --stonewall, the shorter of both */
static uint64_t driver_limit_ns(const struct driver *d)
{
	uint64_t a = d->opts ? d->opts->time_limit_ns : 0, b = d->stonewall_ns;

	return a && b ? (a < b ? a : b) : a ? a : b;
}

/* the release hook, then the phase's time limit and ramp (core/phase_limit.h) */
struct limit_release {
	const struct driver *d;
	struct phase_limit lim;
};

static int limit_release(void *arg, const struct phase *p)
{
	struct limit_release *x = arg;
	const struct driver *d = x->d;
	int rc = d->hooks.release ? d->hooks.release(d->hooks.arg, p) : 0;

	return rc ? rc : phase_limit_arm(&x->lim, (struct phase *)p);
}

static void driver_stream(void *arg, const struct phase *p, const struct sample *s)
{
	struct driver *d = arg;

	struct sample x = *s;

	x.ramp = d->opts && d->opts->ramp_ns && s->t_ns - s->dt_ns < d->opts->ramp_ns;
	d->sink.sample(d->sink.arg, d->run, p, &x);
}

int driver_phase(struct driver *d, struct phase *p, struct observe_phase *obs, struct procio *io)
{
	struct limit_release lr = { .d = d, .lim = { .limit_ns = driver_limit_ns(d),
						      .ramp_ns = d->opts ? d->opts->ramp_ns : 0 } };
	struct procio io0, io1;
	int rc;

	p->stonewalled = false;
	p->ramp_ns = p->ramp_ops = 0;
	for (unsigned i = 0; i < p->nworkers; i++)
		p->workers[i].ramp_ops = 0;
	p->release = limit_release;
	p->release_arg = &lr;
	p->progress = d->progress && d->sink.progress;
	p->draw = d->sink.progress;
	p->stream = d->sink.sample ? driver_stream : NULL;
	p->stream_arg = d;
	if (obs && d->obs_open)
		observe_begin(&d->obs);
	/* inside the kstat window, so its reads of /proc files are not in the process's
	 * rchar/syscr next to the phase's own bytes */
	if (io)
		procio_read(&io0);
	rc = phase_run(p);
	phase_limit_disarm(&lr.lim, p);
	if (io) {
		procio_read(&io1);
		procio_delta(&io0, &io1, io);
	}
	if (obs && d->obs_open)
		observe_end(&d->obs, obs);
	else if (obs)
		memset(obs, 0, sizeof(*obs));
	if (d->hooks.phase_end)
		d->hooks.phase_end(d->hooks.arg, p, obs && obs->taken ? obs : NULL);
	return rc;
}

void driver_warn(struct driver *d, struct observe_phase *obs, struct warn_phase *w,
		 const char *label, unsigned iter)
{
	if (!d->obs_open)
		return;
	observe_warn(&d->obs, obs, w);
	if (warn_tally_add(d->warns, &obs->warns, d->run + 1, label, iter))
		d->warns_short = true;
}

void driver_note(struct driver *d, const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;

	if (!d->sink.note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	d->sink.note(d->sink.arg, line);
}

void driver_unit(struct driver *d, const void *unit)
{
	if (d->sink.unit)
		d->sink.unit(d->sink.arg, d->run, unit);
}

/* A run that cannot go on ends the repeats: an error, a signal, a shortage of space. */
static bool run_ends_repeats(const struct run_head *h)
{
	return h->end == RUN_END_ERROR || h->end == RUN_END_SIGNAL || h->end == RUN_END_NOSPACE;
}

int driver_run(struct driver *d, struct driver_result *res)
{
	const struct workload_ops *w = d->w;
	const struct run_opts *o = d->opts;
	const char *targets[64];
	char *targets_buf;
	int ntargets = workload_targets(w, d->cfg, targets, 64, &targets_buf);
	struct observe_config oc = { .profile = o->profile || o->profile_callgraph || o->profile_folded ||
						o->profile_inclusive,
				     .hz = (unsigned)o->profile_hz,
				     .callgraph = o->profile_callgraph || o->profile_inclusive };
	uint64_t repeat = o->repeat ? o->repeat : 1;
	int rc = 0;

	/* the latency clock (the TSC where proven, core/clock.c): proven once, here, for a run;
	 * its per-CPU check moves this thread to every CPU and sleeps, which no other command
	 * (--version, report, list) should pay for */
	clock_init();
	memset(res, 0, sizeof(*res));
	run_reset();
	warn_tally_init(&res->warns);
	d->warns = &res->warns;
	d->warns_short = false;
	d->run = 0;
	if (ntargets < 0)
		return ntargets;
	env_capture(&res->env, targets, (unsigned)ntargets);
	res->env.targets_buf = targets_buf;
	res->runs = calloc(repeat, w->result_size);
	if (!res->runs || !res->env.mounts)
		return -ENOMEM;
	/* the kernel-side view: devices resolved once, perf opened once for every run */
	if (!d->no_kernel_view) {
		if (observe_open(&d->obs, &oc, targets, (unsigned)ntargets))
			return -ENOMEM;
		d->obs_open = true;
		res->profiled = d->obs.perf != NULL;
		snprintf(res->perf_why, sizeof(res->perf_why), "%s", d->obs.perf_why);
	}
	while (res->nruns < repeat && !run_stopping()) {
		struct run_head *h = driver_result_run(w, res, res->nruns);
		bool last = res->nruns + 1 == repeat;

		d->run = res->nruns;
		if (d->hooks.prepare_run && (rc = d->hooks.prepare_run(d->hooks.arg, d->run))) {
			run_fail(-rc, "prepare-run", "", -1);
			break;
		}
		h->index = d->run;
		h->started_unix_s = (long long)time(NULL);
		if (d->sink.run_begin)
			d->sink.run_begin(d->sink.arg, d->run, h->started_unix_s);
		rc = w->run(d, d->cfg, h);
		if (rc) {
			/* it could not start: not a result */
			if (!run_error_get())
				run_fail(-rc, "setup", "", -1);
			if (w->run_done)
				w->run_done(h);
			if (w->result_free)
				w->result_free(h);
			memset(h, 0, w->result_size);
			res->nostart = true;
			break;
		}
		h->index = d->run;
		afterrun_run(d, h, targets, ntargets);
		res->nruns++;
		if (d->sink.run_end)
			d->sink.run_end(d->sink.arg, d->run, h);
		if (run_ends_repeats(h) || run_stopping())
			break;
		if (last)
			break;
		/* fresh files for the next run; the last run's stay until the end (--keep) */
		if (cleanup_run(false))
			res->cleanup_failed = true;
		if (w->run_done)
			w->run_done(h);
	}
	res->signal = run_signal();
	if (res->signal && res->nruns) {
		const struct run_head *h = driver_result_run(w, res, res->nruns - 1);

		res->stopped_between = h->end != RUN_END_SIGNAL && h->complete;
	}
	if (run_error_get()) {
		res->failed = true;
		res->error = *run_error_get();
	}
	res->warns_short = d->warns_short;
	/* the devices stay for the warning text; perf goes */
	if (d->obs_open) {
		res->targets = d->obs.targets;
		res->ntargets = d->obs.ntargets;
		d->obs.targets = NULL;
		d->obs.ntargets = 0;
		observe_close(&d->obs);
		d->obs_open = false;
	}
	return 0;
}

/* What is left after driver_run(): the last run's files (kept with --keep) and its state. */
int driver_finish(const struct workload_ops *w, struct driver_result *res, bool keep)
{
	int rc = cleanup_run(keep);

	if (rc)
		res->cleanup_failed = true;
	if (res->nruns && w->run_done)
		w->run_done(driver_result_run(w, res, res->nruns - 1));
	return rc;
}

void driver_result_free(const struct workload_ops *w, struct driver_result *res)
{
	for (unsigned i = 0; res->runs && i < res->nruns; i++) {
		if (w->run_done)
			w->run_done(driver_result_run(w, res, i));
		if (w->result_free)
			w->result_free(driver_result_run(w, res, i));
	}
	free(res->runs);
	free(res->env.mounts);
	free(res->env.queues);
	free(res->env.targets_buf);
	free(res->targets);
	warn_tally_free(&res->warns);
	memset(res, 0, sizeof(*res));
}

int driver_result_merge(const struct workload_ops *w, struct driver_result *dst,
			const struct driver_result *src)
{
	if (!w->merge || dst->nruns != src->nruns)
		return -EINVAL;
	for (unsigned i = 0; i < dst->nruns; i++) {
		int rc = w->merge(driver_result_run(w, dst, i), driver_result_run(w, src, i));

		if (rc)
			return rc;
	}
	if (src->failed && !dst->failed) {
		dst->failed = true;
		dst->error = src->error;
	}
	dst->cleanup_failed |= src->cleanup_failed;
	if (!dst->signal)
		dst->signal = src->signal;
	return 0;
}

void driver_head_pack(struct pack *o, const struct run_head *h)
{
	pack_u64(o, h->end);
	pack_u64(o, h->complete);
	pack_i64(o, h->end_err);
	pack_str(o, h->end_detail);
	pack_i64(o, h->started_unix_s);
	pack_u64(o, h->index);
}

/* how much an end weighs when processes' results merge: the job ended as its worst process */
static int end_weight(enum run_end e)
{
	switch (e) {
	case RUN_END_ERROR: return 4;
	case RUN_END_SIGNAL: return 3;
	case RUN_END_NOSPACE: return 2;
	case RUN_END_FULL: return 1;
	default: return 0;
	}
}

void driver_head_merge(struct run_head *dst, const struct run_head *src)
{
	dst->complete = dst->complete && src->complete;
	if (end_weight(src->end) > end_weight(dst->end)) {
		dst->end = src->end;
		dst->end_err = src->end_err;
		memcpy(dst->end_detail, src->end_detail, sizeof(dst->end_detail));
	}
}

void driver_window_join(uint64_t *start_ns, uint64_t *wall_ns, uint64_t start2_ns, uint64_t wall2_ns)
{
	uint64_t s = *start_ns < start2_ns ? *start_ns : start2_ns;
	uint64_t e1 = *start_ns + *wall_ns, e2 = start2_ns + wall2_ns;

	*wall_ns = (e1 > e2 ? e1 : e2) - s;
	*start_ns = s;
}

void driver_engine_merge(struct engine_workers *wq, struct engine_submit_stats *sub,
			 const struct engine_workers *wq2, const struct engine_submit_stats *sub2)
{
	wq->threads += wq2->threads;
	wq->cpu_s += wq2->cpu_s;
	engine_submit_stats_merge(sub, sub2);
}

void driver_head_unpack(struct unpack *u, struct run_head *h)
{
	h->end = (enum run_end)unpack_u64(u);
	h->complete = unpack_u64(u);
	h->end_err = (int)unpack_i64(u);
	unpack_str_to(u, h->end_detail, sizeof(h->end_detail));
	h->started_unix_s = unpack_i64(u);
	h->index = (unsigned)unpack_u64(u);
}
