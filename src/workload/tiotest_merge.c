/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's results of processes side by side (fsbench-mpi): merge, pack and unpack. */
#include "workload/tiotest_int.h"

/* Results of the same configuration from processes side by side: ops and histograms add up,
 * CPU adds up, the window runs from the first release to the last completion (the phases'
 * absolute release times), the threads are listed one process after the other; the figures
 * are recomputed from the merged counters. "First done" stays each process's own snapshot,
 * summed (a job's figure at its first rank's end is fsbench-mpi's, src/mpi/). */
static int merge_phase(struct tio_phase_result *x, const struct tio_phase_result *y)
{
	uint64_t start = x->start_ns < y->start_ns ? x->start_ns : y->start_ns;
	uint64_t dx = x->start_ns - start, dy = y->start_ns - start;
	uint64_t xfirst = x->first_done_ns + dx, yfirst = y->first_done_ns + dy;
	uint64_t xlast = x->last_done_ns + dx, ylast = y->last_done_ns + dy;
	struct tio_thread_result *t;

	if (!x->ran || !y->ran)
		return x->ran == y->ran ? 0 : -EINVAL;
	t = realloc(x->threads, (x->nthreads + y->nthreads + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	x->threads = t;
	for (unsigned i = 0; i < x->nthreads; i++) {
		t[i].start_ns += dx;
		t[i].end_ns += dx;
	}
	for (unsigned i = 0; i < y->nthreads; i++) {
		t[x->nthreads + i] = y->threads[i];
		t[x->nthreads + i].start_ns += dy;
		t[x->nthreads + i].end_ns += dy;
	}
	x->nthreads += y->nthreads;
	opstat_merge(&x->st, &y->st);
	/* each process mapped its own files: the sums add up, the figures are recomputed */
	x->layout.measured = x->layout.measured && y->layout.measured;
	x->layout.absent |= y->layout.absent;
	if (x->layout.measured && !x->layout.absent)
		layout_sum_merge(&x->layout.sum, &y->layout.sum);
	if (y->layout.absent)
		snprintf(x->layout.why, sizeof(x->layout.why), "%s", y->layout.why);
	free(x->layout.files);   /* this process's files alone no longer match the sums */
	x->layout.files = NULL;
	x->start_ns = start;
	x->first_done_ns = xfirst < yfirst ? xfirst : yfirst;
	x->last_done_ns = xlast > ylast ? xlast : ylast;
	x->time_limited |= y->time_limited;
	x->ramp_ns = x->ramp_ns > y->ramp_ns ? x->ramp_ns : y->ramp_ns;
	x->wall_ns = x->last_done_ns - (x->last_done_ns > x->ramp_ns ? x->ramp_ns : 0);
	x->first_done_ops += y->first_done_ops;
	x->first_done_bytes += y->first_done_bytes;
	x->usr_s += y->usr_s;
	x->sys_s += y->sys_s;
	x->has_workers |= y->has_workers;
	x->has_submit |= y->has_submit;
	driver_engine_merge(&x->wq, &x->sub, &y->wq, &y->sub);
	x->complete = x->complete && y->complete;
	/* one kernel view per host: the first one that was taken stands for the job */
	if (!x->obs.taken && y->obs.taken) {
		x->obs.taken = true;
		x->obs.k = y->obs.k;
	}
	return 0;
}

/* how a run ended, the worst first */
/* A phase that a stopped process entered but did no op in: a stop that reached one rank
 * after its check at the top of the phase loop and another before it leaves the first with
 * the phase marked run (its barrier then failed) and the second without it (t9030, rarely).
 * Such a phase is the same as one not run. */
static bool empty_in_stop(const struct tio_result *r, int p)
{
	return !r->head.complete && r->phase[p].ran && r->phase[p].st.ops == 0;
}

/* the last phase that ran and did not complete, leaving out the phases in the mask */
static int last_stopped(const struct tio_result *r, unsigned leave_out)
{
	int s = -1;

	for (int q = 0; q < TIO_NPHASES; q++)
		if (!(leave_out & 1u << q) && r->phase[q].ran && !r->phase[q].complete)
			s = q;
	return s;
}

static void phase_unrun(struct tio_result *r, int p)
{
	struct tio_phase_result *pr = &r->phase[p];

	free(pr->threads);
	free(pr->samples);
	free(pr->layout.files);
	observe_phase_free(&pr->obs);
	memset(pr, 0, sizeof(*pr));
	opstat_init(&pr->st);
	r->stopped_in = last_stopped(r, 0);
}

int tio_merge(void *dst, const void *src)
{
	struct tio_result *a = dst;
	const struct tio_result *b = src;
	unsigned b_left_out = 0; /* b's empty phases that a did not run */
	int rc, b_stopped_in = b->stopped_in;

	for (int p = 0; p < TIO_NPHASES; p++) {
		if (a->phase[p].ran == b->phase[p].ran)
			continue;
		if (a->head.complete || b->head.complete)
			return -EINVAL;
		if (empty_in_stop(a, p))
			phase_unrun(a, p);
		else if (empty_in_stop(b, p))
			b_left_out |= 1u << p;
		else
			return -EINVAL;
	}
	if (b_left_out)
		b_stopped_in = last_stopped(b, b_left_out);
	for (int p = 0; p < TIO_NPHASES; p++)
		if (a->phase[p].ran == b->phase[p].ran && (rc = merge_phase(&a->phase[p], &b->phase[p])))
			return rc;
	opstat_merge(&a->total, &b->total);
	if (b_stopped_in >= 0 && (a->stopped_in < 0 || b_stopped_in < a->stopped_in))
		a->stopped_in = b_stopped_in;
	tio_result_figures(a);
	driver_head_merge(&a->head, &b->head);
	return 0;
}

/* what merge and the report need, for the first process of a job (workload.h) */
int tio_pack(const void *result, int64_t off, struct pack *o)
{
	const struct tio_result *r = result;

	driver_head_pack(o, &r->head);
	pack_i64(o, r->stopped_in);
	pack_u64(o, r->seed);
	pack_i64(o, r->pid);
	pack_opstat(o, &r->total);
	for (int p = 0; p < TIO_NPHASES; p++) {
		const struct tio_phase_result *pr = &r->phase[p];

		pack_u64(o, pr->ran);
		if (!pr->ran)
			continue;
		pack_u64(o, pr->complete);
		pack_opstat(o, &pr->st);
		pack_u64(o, pr->start_ns - (uint64_t)off);
		pack_u64(o, pr->wall_ns);
		pack_u64(o, pr->time_limited);
		pack_u64(o, pr->ramp_ns);
		pack_u64(o, pr->first_done_ns);
		pack_u64(o, pr->last_done_ns);
		pack_u64(o, pr->first_done_ops);
		pack_u64(o, pr->first_done_bytes);
		pack_f64(o, pr->usr_s);
		pack_f64(o, pr->sys_s);
		pack_bytes(o, &pr->io, sizeof(pr->io));
		pack_u64(o, pr->has_workers);
		pack_u64(o, pr->wq.threads);
		pack_f64(o, pr->wq.cpu_s);
		pack_u64(o, pr->has_submit);
		if (pr->has_submit)
			engine_submit_stats_pack(o, &pr->sub);
		pack_u64(o, pr->obs.taken);
		if (pr->obs.taken)
			pack_kstat(o, &pr->obs.k);
		pack_u64(o, pr->nthreads);
		for (unsigned i = 0; i < pr->nthreads; i++) {
			const struct tio_thread_result *t = &pr->threads[i];

			pack_str(o, t->path);
			pack_u64(o, t->ops);
			pack_u64(o, t->bytes);
			pack_u64(o, t->start_ns);
			pack_u64(o, t->end_ns);
			pack_u64(o, t->flush_ns);
			pack_f64(o, t->usr_s);
			pack_f64(o, t->sys_s);
			pack_u64(o, t->nvcsw);
			pack_u64(o, t->nivcsw);
		}
	}
	return o->err;
}

int tio_unpack(void *result, struct unpack *u)
{
	struct tio_result *r = result;

	driver_head_unpack(u, &r->head);
	r->stopped_in = (int)unpack_i64(u);
	r->seed = unpack_u64(u);
	r->pid = (int)unpack_i64(u);
	unpack_opstat(u, &r->total);
	for (int p = 0; p < TIO_NPHASES && !u->err; p++) {
		struct tio_phase_result *pr = &r->phase[p];
		uint64_t n;

		opstat_init(&pr->st);
		engine_submit_stats_init(&pr->sub);
		pr->ran = unpack_u64(u);
		if (!pr->ran)
			continue;
		pr->complete = unpack_u64(u);
		unpack_opstat(u, &pr->st);
		pr->start_ns = unpack_u64(u);
		pr->wall_ns = unpack_u64(u);
		pr->time_limited = unpack_u64(u) != 0;
		pr->ramp_ns = unpack_u64(u);
		pr->first_done_ns = unpack_u64(u);
		pr->last_done_ns = unpack_u64(u);
		pr->first_done_ops = unpack_u64(u);
		pr->first_done_bytes = unpack_u64(u);
		pr->usr_s = unpack_f64(u);
		pr->sys_s = unpack_f64(u);
		unpack_bytes(u, &pr->io, sizeof(pr->io));
		pr->has_workers = unpack_u64(u);
		pr->wq.threads = unpack_u64(u);
		pr->wq.cpu_s = unpack_f64(u);
		pr->has_submit = unpack_u64(u);
		if (pr->has_submit)
			engine_submit_stats_unpack(u, &pr->sub);
		pr->obs.taken = unpack_u64(u);
		if (pr->obs.taken)
			unpack_kstat(u, &pr->obs.k);
		n = unpack_u64(u);
		if (u->err || n > 4096)
			return -EPROTO;
		if (!(pr->threads = calloc(n + 1, sizeof(*pr->threads))))
			return -ENOMEM;
		pr->nthreads = (unsigned)n;
		for (unsigned i = 0; i < pr->nthreads; i++) {
			struct tio_thread_result *t = &pr->threads[i];

			unpack_str_to(u, t->path, sizeof(t->path));
			t->ops = unpack_u64(u);
			t->bytes = unpack_u64(u);
			t->start_ns = unpack_u64(u);
			t->end_ns = unpack_u64(u);
			t->flush_ns = unpack_u64(u);
			t->usr_s = unpack_f64(u);
			t->sys_s = unpack_f64(u);
			t->nvcsw = unpack_u64(u);
			t->nivcsw = unpack_u64(u);
		}
	}
	if (unpack_done(u))
		return -EPROTO;
	tio_result_figures(r);
	return 0;
}

