/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-phase reporter thread: interval samples and the progress line (design in sample.h). */
#include "core/sample.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/run.h"

/* 5 ms: a phase of 100 ms still gets 20 points. The snapshots are taken by the workers, at
 * the first op that completes past a tick (opstat_add_at), not by a thread woken every tick:
 * that thread's wake-ups were 14-15 ns of CPU per tiotest op on tmpfs (0.8 %), and each one
 * can land on a CPU a worker needs (bench/README.md, tiotest.sh, "The reporter's ticks"). */
#define BASE_TICK_MAX_NS 5000000u
#define MAX_PENDING 40               /* intervals held before the tick doubles */
#define PROGRESS_NS 250000000u       /* redraw the status line 4 times a second */
/* the thread takes a snapshot the workers have not (all of them waiting in one long op, or a
 * workload that counts its live op without opstat_add_at) once it is this late, or a tick
 * late when it is awake anyway (progress, --stream) */
#define STALL_NS	 1000000000u

struct snap {
	uint64_t t_ns, ops, bytes;
	unsigned n;              /* non-empty buckets */
	uint16_t *idx;
	uint64_t *cnt;           /* cumulative counts */
};

struct sampler {
	struct opstat_tick tick; /* the workers' view: when the next snapshot is due */
	struct phase *p;
	pthread_t tid;
	uint64_t next_snap; /* the next tick, clock_ns(): on the grid of the phase start */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool go;                 /* the window is open: p->start_ns is set (sampler_go) */
	bool stop;
	uint64_t tick_ns, want_ns;
	struct snap *snaps;      /* pending cumulative snapshots, snaps[0] the oldest */
	unsigned nsnaps;
	struct sample *out;
	unsigned nout, capout;
	uint64_t *acc;           /* dense scratch: HIST_NBUCKETS */
	struct hist diff;        /* scratch */
	uint64_t last_prog_ns, last_prog_bytes, last_prog_ops;
	bool drew;
	struct snap stream_last; /* p->stream: the end of the last interval streamed */
};

/* s->acc is all zero between calls: only the buckets between the workers' lowest min and
 * highest max are added to, counted, copied out and cleared (a few hundred of the 3776). */
static int take_snap(struct sampler *s, uint64_t now, struct snap *out)
{
	struct phase *p = s->p;
	unsigned n = 0, k = 0, lo = HIST_NBUCKETS, hi = 0;

	out->ops = out->bytes = 0;
	for (unsigned w = 0; w < p->nworkers; w++) {
		const struct opstat *st = p->workers[w].live;

		if (!st)
			continue;
		uint64_t mn, mx;

		out->ops += HIST_PEEK(st->ops);
		out->bytes += HIST_PEEK(st->bytes);
		/* only the buckets between the worker's min and max can be non-zero, so the
		 * snapshot touches few of the worker's cache lines. min and max are read after
		 * the ops counter and only widen, so the range covers what counted. */
		mn = HIST_PEEK(st->lat.min);
		mx = HIST_PEEK(st->lat.max);
		if (mn > mx)
			continue;        /* nothing recorded yet */
		unsigned i = hist_index(mn), e = hist_index(mx);

		lo = i < lo ? i : lo;
		hi = e > hi ? e : hi;
		for (; i <= e; i++)
			s->acc[i] += HIST_PEEK(st->lat.buckets[i]);
	}
	for (unsigned i = lo; i <= hi && i < HIST_NBUCKETS; i++)
		n += s->acc[i] != 0;
	out->t_ns = now - p->start_ns;
	out->n = n;
	out->idx = malloc((n ? n : 1) * sizeof(*out->idx));
	out->cnt = malloc((n ? n : 1) * sizeof(*out->cnt));
	if (!out->idx || !out->cnt) {
		free(out->idx);
		free(out->cnt);
		out->idx = NULL;
		out->cnt = NULL;
		n = 0;
	}
	for (unsigned i = lo; i <= hi && i < HIST_NBUCKETS; i++) {
		if (s->acc[i] && n) {
			out->idx[k] = (uint16_t)i;
			out->cnt[k++] = s->acc[i];
		}
		s->acc[i] = 0;
	}
	return out->idx ? 0 : -ENOMEM;
}

static void snap_free(struct snap *x)
{
	free(x->idx);
	free(x->cnt);
}

/* the sample between two cumulative snapshots */
static void sample_between(struct sampler *s, const struct snap *a, const struct snap *b,
			   struct sample *o)
{
	struct hist *h = &s->diff;
	unsigned j = 0;

	hist_init(h);
	for (unsigned i = 0; i < b->n; i++) {
		uint64_t before = 0, lo, hi;

		while (j < a->n && a->idx[j] < b->idx[i])
			j++;
		if (j < a->n && a->idx[j] == b->idx[i])
			before = a->cnt[j];
		if (b->cnt[i] <= before)
			continue;
		h->buckets[b->idx[i]] = b->cnt[i] - before;
		h->count += b->cnt[i] - before;
		hist_bucket_range(b->idx[i], &lo, &hi);
		if (lo < h->min)
			h->min = lo;
		if (hi > h->max)
			h->max = hi;
	}
	o->t_ns = b->t_ns;
	o->dt_ns = b->t_ns - a->t_ns;
	o->ops = b->ops - a->ops;
	o->bytes = b->bytes - a->bytes;
	o->p50_ns = hist_percentile(h, 50);
	o->p90_ns = hist_percentile(h, 90);
	o->p99_ns = hist_percentile(h, 99);
	o->p999_ns = hist_percentile(h, 99.9);
	o->parts = NULL;
	o->nparts = 0;
	o->proc = 0;
	o->ramp = false;         /* the driver marks the ramp's (core/phase_limit.h) */
}

static void emit(struct sampler *s, const struct snap *a, const struct snap *b)
{
	if (s->nout == s->capout) {
		unsigned ncap = s->capout ? s->capout * 2 : 64;
		struct sample *n = realloc(s->out, ncap * sizeof(*n));

		if (!n)
			return;
		s->out = n;
		s->capout = ncap;
	}
	sample_between(s, a, b, &s->out[s->nout++]);
}

/* --stream: the interval that ends at now (or at the phase end), handed over at once. Its own
 * snapshots: the stored samples' tick may still be finer than the interval. */
static void stream_to(struct sampler *s, uint64_t now)
{
	struct snap x;
	struct sample o;

	if (take_snap(s, now, &x))
		return;
	if (x.t_ns <= s->stream_last.t_ns) {
		snap_free(&x);
		return;
	}
	sample_between(s, &s->stream_last, &x, &o);
	s->p->stream(s->p->stream_arg, s->p, &o);
	snap_free(&s->stream_last);
	s->stream_last = x;
}

static void add_snap(struct sampler *s, uint64_t now)
{
	struct snap x;

	if (take_snap(s, now, &x))
		return;
	s->snaps[s->nsnaps++] = x;
	if (s->tick_ns < s->want_ns && s->nsnaps > MAX_PENDING) {
		/* keep snapshots 0, 2, 4, ...: each pair of intervals becomes one */
		unsigned k = 0;

		for (unsigned i = 0; i < s->nsnaps; i++) {
			if (i % 2 == 0)
				s->snaps[k++] = s->snaps[i];
			else
				snap_free(&s->snaps[i]);
		}
		s->nsnaps = k;
		s->tick_ns *= 2;
	}
	if (s->tick_ns >= s->want_ns) {
		while (s->nsnaps >= 2) {
			emit(s, &s->snaps[0], &s->snaps[1]);
			snap_free(&s->snaps[0]);
			memmove(&s->snaps[0], &s->snaps[1], (s->nsnaps - 1) * sizeof(*s->snaps));
			s->nsnaps--;
		}
	}
}

static void progress(struct sampler *s, uint64_t now)
{
	struct phase *p = s->p;
	uint64_t ops = 0, bytes = 0;
	double dt, rate, pct = -1, eta = -1;

	for (unsigned w = 0; w < p->nworkers; w++) {
		const struct opstat *st = p->workers[w].live;

		if (st) {
			ops += HIST_PEEK(st->ops);
			bytes += HIST_PEEK(st->bytes);
		}
	}
	dt = (double)(now - s->last_prog_ns) / NS_PER_S;
	if (p->ops_unit)
		rate = dt > 0 ? (double)(ops - s->last_prog_ops) / dt : 0;
	else
		rate = dt > 0 ? (double)(bytes - s->last_prog_bytes) / 1048576.0 / dt : 0;
	if (p->expected_ops) {
		double done_s = (double)(now - p->start_ns) / NS_PER_S;

		pct = 100.0 * (double)ops / (double)p->expected_ops;
		if (ops)
			eta = done_s * ((double)p->expected_ops - (double)ops) / (double)ops;
	}
	s->last_prog_ns = now;
	s->last_prog_bytes = bytes;
	s->last_prog_ops = ops;
	if (p->draw) {
		struct progress_view v = { .label = p->label ? p->label : "fsbench", .phase = p->name,
					   .ops_unit = p->ops_unit, .pct = pct > 100 ? 100 : pct,
					   .rate = rate, .eta_s = eta };

		p->draw(&v);
		s->drew = true;
	}
}

/* under s->mu: the workers' next due time, lat_now() units, for s->next_snap */
static void arm(struct sampler *s, uint64_t now)
{
	uint64_t ahead = s->next_snap > now ? s->next_snap - now : 0;

	atomic_store_explicit(&s->tick.due, lat_now() + lat_span(ahead), memory_order_relaxed);
}

/* under s->mu: the snapshot owed at s->next_snap, taken at now, and the next tick armed */
static void snap_due(struct sampler *s, uint64_t now)
{
	if (now >= s->next_snap) {
		add_snap(s, now);
		/* ticks stay on the grid of the phase start, even if one was late */
		while (s->next_snap <= now)
			s->next_snap += s->tick_ns;
	}
	arm(s, now);
}

/* a worker's op completed past due (opstat_add_at): it takes the snapshot, unless another
 * worker or the thread holds the sampler (then its next op looks again) */
void opstat_tick_fire(struct opstat_tick *t)
{
	struct sampler *s = (struct sampler *)((char *)t - offsetof(struct sampler, tick));

	if (pthread_mutex_trylock(&s->mu))
		return;
	snap_due(s, clock_ns());
	pthread_mutex_unlock(&s->mu);
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct phase *p = s->p;
	uint64_t next_prog, next_stream;

	pthread_mutex_lock(&s->mu);
	/* sampler_go wakes this thread only for the progress line or --stream: otherwise it
	 * finds the phase started when its own second is up */
	while (!s->go && !s->stop) {
		struct timespec ts = clock_ts(clock_ns() + STALL_NS);

		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
	next_prog = p->start_ns + PROGRESS_NS;
	next_stream = p->start_ns + p->interval_ns;
	s->last_prog_ns = p->start_ns;
	while (!s->stop) {
		uint64_t due = UINT64_MAX, now;
		struct timespec ts;

		if (p->interval_ns)
			due = s->next_snap + (s->tick_ns > STALL_NS ? s->tick_ns : STALL_NS);
		if (p->progress && next_prog < due)
			due = next_prog;
		if (p->stream && p->interval_ns && next_stream < due)
			due = next_stream;
		ts = clock_ts(due);
		if (due == UINT64_MAX)
			pthread_cond_wait(&s->cv, &s->mu);
		else
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		if (s->stop)
			break;
		now = clock_ns();
		if (p->interval_ns && now >= s->next_snap + s->tick_ns)
			snap_due(s, now);
		if (p->stream && p->interval_ns && now >= next_stream) {
			/* on the grid of the phase start: a late wake-up ends the interval then */
			stream_to(s, now);
			while (next_stream <= now)
				next_stream += p->interval_ns;
		}
		if (p->progress && now >= next_prog) {
			progress(s, now);
			next_prog = now + PROGRESS_NS;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct sampler *sampler_start(struct phase *p)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = p;
	atomic_init(&s->tick.due, UINT64_MAX);
	s->want_ns = p->interval_ns;
	s->tick_ns = p->interval_ns;
	while (s->tick_ns > BASE_TICK_MAX_NS)
		s->tick_ns = (s->tick_ns + 1) / 2;
	if (p->interval_ns) {
		/* re-derive so that doubling lands exactly on the wanted interval */
		unsigned k = 0;

		while ((p->interval_ns >> k) > BASE_TICK_MAX_NS)
			k++;
		s->tick_ns = p->interval_ns >> k;
		if (!s->tick_ns)
			s->tick_ns = 1;
		s->want_ns = s->tick_ns << k;
	}
	s->snaps = calloc(MAX_PENDING + 2, sizeof(*s->snaps));
	s->acc = calloc(HIST_NBUCKETS, sizeof(*s->acc));
	pthread_mutex_init(&s->mu, NULL);
	clock_cond_init(&s->cv);
	if (!s->snaps || !s->acc)
		goto fail;
	/* the first snapshot is the phase start: every live statistic is zero there */
	if (p->interval_ns)
		s->snaps[s->nsnaps++] = (struct snap){ 0 };
	if (pthread_create(&s->tid, NULL, sampler_main, s))
		goto fail;
	return s;
fail:
	for (unsigned i = 0; i < s->nsnaps; i++)
		snap_free(&s->snaps[i]);
	free(s->snaps);
	free(s->acc);
	free(s);
	return NULL;
}

void sampler_arm(struct sampler *s)
{
	struct phase *p;

	if (!s || !s->p->interval_ns)
		return;
	p = s->p;
	pthread_mutex_lock(&s->mu);
	s->next_snap = p->start_ns + s->tick_ns;
	arm(s, clock_ns());
	for (unsigned w = 0; w < p->nworkers; w++)
		if (p->workers[w].live)
			p->workers[w].live->tick = &s->tick;
	pthread_mutex_unlock(&s->mu);
}

void sampler_go(struct sampler *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->go = true;
	if (s->p->progress || s->p->stream)
		pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void sampler_stop(struct sampler *s)
{
	struct phase *p;

	if (!s)
		return;
	p = s->p;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->tid, NULL);
	for (unsigned w = 0; w < p->nworkers; w++)
		if (p->workers[w].live && p->workers[w].live->tick == &s->tick)
			p->workers[w].live->tick = NULL;
	if (p->interval_ns) {
		/* the final snapshot at the phase end: exact totals, a possibly shorter last interval */
		struct snap x;

		if (!take_snap(s, p->end_ns, &x)) {
			if (s->nsnaps && x.t_ns > s->snaps[s->nsnaps - 1].t_ns)
				s->snaps[s->nsnaps++] = x;
			else
				snap_free(&x);
		}
		for (unsigned i = 0; i + 1 < s->nsnaps; i++)
			emit(s, &s->snaps[i], &s->snaps[i + 1]);
		if (p->stream)
			stream_to(s, p->end_ns);
	}
	snap_free(&s->stream_last);
	if (s->drew) {
		struct progress_view v = { .erase = true };

		p->draw(&v);
	}
	for (unsigned i = 0; i < s->nsnaps; i++)
		snap_free(&s->snaps[i]);
	p->samples = s->out;
	p->nsamples = s->nout;
	p->sample_interval_ns = s->tick_ns;
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->snaps);
	free(s->acc);
	free(s);
}
