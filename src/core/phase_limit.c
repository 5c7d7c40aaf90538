/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The phase's time limit and ramp (core/phase_limit.h): a timer thread per phase. */
#include "core/phase_limit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/sample.h"

/* a worker's statistics as they are now: the same relaxed loads the sampler makes; only the
 * buckets between min and max can be non-zero */
static void snap_take(struct opstat *dst, const struct opstat *st)
{
	uint64_t mn, mx;

	opstat_init(dst);
	dst->ops = HIST_PEEK(st->ops);
	dst->bytes = HIST_PEEK(st->bytes);
	dst->over_2s = HIST_PEEK(st->over_2s);
	dst->over_10s = HIST_PEEK(st->over_10s);
	mn = HIST_PEEK(st->lat.min);
	mx = HIST_PEEK(st->lat.max);
	if (mn > mx)
		return;
	for (unsigned i = hist_index(mn), e = hist_index(mx); i <= e; i++) {
		dst->lat.buckets[i] = HIST_PEEK(st->lat.buckets[i]);
		dst->lat.count += dst->lat.buckets[i];
	}
	dst->lat.sum = HIST_PEEK(st->lat.sum);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* st minus the snapshot: exact for the counters and buckets; min and max become the bounds
 * of the first and last buckets left (within the histogram's error bound) */
static void opstat_cut(struct opstat *st, const struct opstat *x)
{
	struct hist *h = &st->lat;
	uint64_t lo, hi, mn = UINT64_MAX, mx = 0, n = 0;

	st->ops = sub0(st->ops, x->ops);
	st->bytes = sub0(st->bytes, x->bytes);
	st->over_2s = sub0(st->over_2s, x->over_2s);
	st->over_10s = sub0(st->over_10s, x->over_10s);
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		h->buckets[i] = sub0(h->buckets[i], x->lat.buckets[i]);
		if (!h->buckets[i])
			continue;
		n += h->buckets[i];
		hist_bucket_range(i, &lo, &hi);
		if (mn == UINT64_MAX)
			mn = lo > h->min ? lo : h->min;
		mx = hi < h->max ? hi : h->max;
	}
	h->sum = n ? sub0(h->sum, x->lat.sum) : 0;
	h->count = n;
	h->min = mn;
	h->max = mx;
}

static void wait_until(struct phase_limit *l, uint64_t at_ns)
{
	struct timespec ts = clock_ts(at_ns);

	while (!l->cancel && clock_ns() < at_ns)
		if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT)
			break;
}

/* Waits until `after` past the phase's start. The limit is armed at the release, just before
 * the window opens (core/run.c: phase_window_open stamps p->start_ns next); on a busy host
 * the two can be milliseconds apart, and a limit counted from the arming cut the window
 * short of it (0.481 s for a 0.5 s limit at load 12). So the wait is counted from the later
 * of the two: the window's start once it is stamped. */
static void wait_after_start(struct phase_limit *l, uint64_t after)
{
	uint64_t t0 = l->t0_ns, s;

	for (;;) {
		wait_until(l, t0 + after);
		s = __atomic_load_n(&l->p->start_ns, __ATOMIC_ACQUIRE);
		if (l->cancel || s <= t0)
			return;
		t0 = s;
	}
}

static void *limit_main(void *arg)
{
	struct phase_limit *l = arg;
	struct phase *p = l->p;

	pthread_mutex_lock(&l->mu);
	if (l->ramp_ns && l->snap) {
		wait_after_start(l, l->ramp_ns);
		if (!l->cancel) {
			for (unsigned i = 0; i < p->nworkers; i++)
				if (p->workers[i].live)
					snap_take(&l->snap[i], p->workers[i].live);
			l->snapped = true;
		}
	}
	if (l->limit_ns) {
		wait_after_start(l, l->limit_ns);
		if (!l->cancel) {
			int go = RUN_GO;

			/* an error or a signal that came first stays the reason */
			l->fired = atomic_compare_exchange_strong(&run_stop, &go, RUN_STOP_PHASE);
		}
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int phase_limit_arm(struct phase_limit *l, struct phase *p)
{
	int rc;

	if (!l->limit_ns && !l->ramp_ns)
		return 0;
	l->p = p;
	if (l->ramp_ns && !(l->snap = calloc(p->nworkers ? p->nworkers : 1, sizeof(*l->snap))))
		return -ENOMEM;
	clock_cond_init(&l->cv);
	pthread_mutex_init(&l->mu, NULL);
	l->t0_ns = clock_ns();
	if ((rc = pthread_create(&l->tid, NULL, limit_main, l))) {
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
		free(l->snap);
		l->snap = NULL;
		return -rc;
	}
	l->armed = true;
	return 0;
}

/* the ramp out of the figures; the samples that began in it marked */
static void ramp_apply(struct phase_limit *l, struct phase *p)
{
	p->ramp_ns = l->ramp_ns;
	p->ramp_ops = 0;
	for (unsigned i = 0; i < p->nworkers; i++) {
		if (!p->workers[i].live)
			continue;
		p->workers[i].ramp_ops = l->snap[i].ops;
		p->ramp_ops += l->snap[i].ops;
		opstat_cut(p->workers[i].live, &l->snap[i]);
	}
	for (unsigned i = 0; i < p->nsamples; i++)
		p->samples[i].ramp = p->samples[i].t_ns - p->samples[i].dt_ns < l->ramp_ns;
}

void phase_limit_disarm(struct phase_limit *l, struct phase *p)
{
	if (!l->armed)
		return;
	pthread_mutex_lock(&l->mu);
	l->cancel = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->tid, NULL);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	l->armed = false;
	if (l->snapped)
		ramp_apply(l, p);
	free(l->snap);
	l->snap = NULL;
	if (l->fired) {
		int phase = RUN_STOP_PHASE;

		p->stonewalled = true;
		/* a signal that came while the phase was stopping could not raise its own stop */
		if (atomic_compare_exchange_strong(&run_stop, &phase, RUN_GO) && run_signal()) {
			int go = RUN_GO;

			atomic_compare_exchange_strong(&run_stop, &go, RUN_STOP_SIGNAL);
		}
	}
}
