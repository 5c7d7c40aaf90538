/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --stream under fsbench-mpi (mpi/mpi_stream.h): each rank's intervals numbered by grid slot
 * and sent to rank 0, which writes a slot once every rank has passed it. */
#include "mpi/mpi_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/run.h"
#include "core/sample.h"
#include "mpi/mpi_job.h"
#include "mpi/mpi_sendq.h"

enum { MSG_SAMPLE = 1, MSG_PHASE_END, MSG_FINAL };

/* what travels: fixed-size integers (every rank runs the same build: mpi_job_same_build) */
struct smsg {
	uint32_t kind, run, phase;
	uint32_t ramp; /* the interval began inside the phase's --ramp */
	uint64_t slot, t_ns, dt_ns, ops, bytes, p50_ns, p90_ns, p99_ns, p999_ns;
};

struct pend {
	uint64_t slot;
	struct sample s;             /* s.proc: its rank */
};

/* rank 0: a phase of a run with intervals not yet written */
struct sphase {
	unsigned run, index;
	char name[64];
	uint64_t start_ns;           /* rank 0's release */
	bool named;                  /* rank 0's phase seen: name and start */
	int64_t *maxslot;            /* per rank: the latest slot it sent; -1 none */
	bool *ended;                 /* per rank: no more of this phase */
	struct pend *pend;
	unsigned npend, cappend;
};

struct mpi_stream {
	struct mpi_job *j;
	MPI_Comm comm;
	int rank, size;
	struct driver_sink sink;
	/* this rank's numbering */
	pthread_mutex_t mu;
	bool have_cur;
	unsigned cur_run, cur_phase;
	int64_t last_slot;
	struct mpi_sendq sends; /* to rank 0, in flight */
	/* rank 0 */
	pthread_mutex_t amu;
	struct sphase *ph;
	unsigned nph;
	bool *final;                 /* per rank: FINAL received (rank 0's own: its end) */
	pthread_t thr;
	bool thr_on;
	atomic_bool quit;
	_Atomic uint64_t deadline_ns;
};

/* ---- every rank ---------------------------------------------------------------------------- */
/* to rank 0 without waiting: a rank 0 that is gone must not stop this rank's sampler */
static void post(struct mpi_stream *s, const struct smsg *m)
{
	struct smsg *b;

	if (!(b = malloc(sizeof(*b))))
		return;
	*b = *m;
	pthread_mutex_lock(&s->mu);
	mpi_sendq_post(&s->sends, b, sizeof(*b), 0, 0, s->comm);
	pthread_mutex_unlock(&s->mu);
}

/* ---- rank 0: the job's lines ------------------------------------------------------------------ */
static struct sphase *phase_of(struct mpi_stream *s, unsigned run, unsigned index)
{
	struct sphase *n, *ph;

	for (unsigned i = 0; i < s->nph; i++)
		if (s->ph[i].run == run && s->ph[i].index == index)
			return &s->ph[i];
	if (!(n = realloc(s->ph, (s->nph + 1) * sizeof(*n))))
		return NULL;
	s->ph = n;
	ph = &s->ph[s->nph];
	*ph = (struct sphase){ .run = run, .index = index };
	ph->maxslot = malloc((size_t)s->size * sizeof(*ph->maxslot));
	ph->ended = calloc((size_t)s->size, sizeof(*ph->ended));
	if (!ph->maxslot || !ph->ended) {
		free(ph->maxslot);
		free(ph->ended);
		return NULL;
	}
	for (int r = 0; r < s->size; r++)
		ph->maxslot[r] = -1;
	s->nph++;
	return ph;
}

static void phase_free(struct mpi_stream *s, unsigned i)
{
	free(s->ph[i].maxslot);
	free(s->ph[i].ended);
	free(s->ph[i].pend);
	s->ph[i] = s->ph[--s->nph];
}

static bool passed(struct mpi_stream *s, const struct sphase *ph, uint64_t slot, bool force)
{
	for (int r = 0; r < s->size && !force; r++)
		if (!ph->ended[r] && !s->final[r] && ph->maxslot[r] < (int64_t)slot &&
		    !mpi_job_rank_dead(s->j, r))
			return false;
	return true;
}

/* the slot's line: ops and bytes summed, the interval the longest part's, the parts by rank */
static void write_slot(struct mpi_stream *s, struct sphase *ph, uint64_t slot)
{
	struct sample *parts = malloc((size_t)s->size * sizeof(*parts)), sum = { 0 };
	unsigned n = 0, k = 0;


	for (int r = 0; r < s->size; r++)
		for (unsigned i = 0; i < ph->npend; i++)
			if (parts && ph->pend[i].slot == slot && ph->pend[i].s.proc == (unsigned)r &&
			    n < (unsigned)s->size)
				parts[n++] = ph->pend[i].s;
	for (unsigned i = 0; i < ph->npend; i++)
		if (ph->pend[i].slot != slot)
			ph->pend[k++] = ph->pend[i];
	ph->npend = k;
	if (!parts)
		run_fail_msg(ENOMEM, "out of memory");
	if (!n || !ph->named || !s->sink.sample) {
		free(parts);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		sum.t_ns = parts[i].t_ns > sum.t_ns ? parts[i].t_ns : sum.t_ns;
		sum.dt_ns = parts[i].dt_ns > sum.dt_ns ? parts[i].dt_ns : sum.dt_ns;
		sum.ops += parts[i].ops;
		sum.bytes += parts[i].bytes;
		/* the ranks are released together: a slot that began in one rank's ramp began in
		 * the job's (the JSON series marks the same intervals) */
		sum.ramp |= parts[i].ramp;
	}
	sum.parts = parts;
	sum.nparts = n;
	{
		struct phase p = { .name = ph->name, .start_ns = ph->start_ns };

		s->sink.sample(s->sink.arg, ph->run, &p, &sum);
	}
	free(parts);
}

/* writes the phase's slots every rank has passed (all of them: force), in order; a phase with
 * nothing left to come goes */
static void flush(struct mpi_stream *s, struct sphase *ph, bool force)
{
	while (ph->npend) {
		uint64_t min = UINT64_MAX;

		for (unsigned i = 0; i < ph->npend; i++)
			if (ph->pend[i].slot < min)
				min = ph->pend[i].slot;
		if (!passed(s, ph, min, force))
			return;
		write_slot(s, ph, min);
	}
	for (int r = 0; r < s->size && !force; r++)
		if (!ph->ended[r] && !s->final[r] && !mpi_job_rank_dead(s->j, r))
			return;
	phase_free(s, (unsigned)(ph - s->ph));
}

static void flush_all(struct mpi_stream *s, bool force)
{
	/* flush may free the phase it is given: walk back */
	for (unsigned i = s->nph; i-- > 0;)
		if (i < s->nph)
			flush(s, &s->ph[i], force);
}

static void add(struct mpi_stream *s, int rank, const struct smsg *m, const struct phase *own)
{
	struct sphase *ph;

	if (rank < 0 || rank >= s->size)
		return;
	pthread_mutex_lock(&s->amu);
	if (m->kind == MSG_FINAL) {
		s->final[rank] = true;
		for (unsigned i = 0; i < s->nph; i++)
			s->ph[i].ended[rank] = true;
		flush_all(s, false);
		goto out;
	}
	if (!(ph = phase_of(s, m->run, m->phase))) {
		run_fail_msg(ENOMEM, "out of memory");
		goto out;
	}
	if (own && !ph->named) {
		snprintf(ph->name, sizeof(ph->name), "%s", own->name ? own->name : "");
		ph->start_ns = own->start_ns;
		ph->named = true;
	}
	if (m->kind == MSG_PHASE_END) {
		ph->ended[rank] = true;
	} else {
		if (ph->npend == ph->cappend) {
			unsigned cap = ph->cappend ? ph->cappend * 2 : 16;
			struct pend *n = realloc(ph->pend, cap * sizeof(*n));

			if (!n) {
				run_fail_msg(ENOMEM, "out of memory");
				goto out;
			}
			ph->pend = n;
			ph->cappend = cap;
		}
		ph->pend[ph->npend++] = (struct pend){ .slot = m->slot,
						       .s = { .t_ns = m->t_ns,
							      .dt_ns = m->dt_ns,
							      .ops = m->ops,
							      .bytes = m->bytes,
							      .p50_ns = m->p50_ns,
							      .p90_ns = m->p90_ns,
							      .p99_ns = m->p99_ns,
							      .p999_ns = m->p999_ns,
							      .proc = (unsigned)rank,
							      .ramp = m->ramp != 0 } };
		if ((int64_t)m->slot > ph->maxslot[rank])
			ph->maxslot[rank] = (int64_t)m->slot;
	}
	flush(s, ph, false);
out:
	pthread_mutex_unlock(&s->amu);
}

static bool all_final(struct mpi_stream *s)
{
	for (int r = 1; r < s->size; r++)
		if (!s->final[r] && !mpi_job_rank_dead(s->j, r))
			return false;
	return true;
}

/* rank 0's receiver: polls like the watch thread (MPI progress under MPI_THREAD_MULTIPLE),
 * every 2 ms; a rank found dead lets the slots it held back go */
static void *recv_main(void *arg)
{
	struct mpi_stream *s = arg;
	const struct timespec pause = { 0, 2000000 };
	struct smsg in;
	MPI_Request rq;
	unsigned tick = 0;

	for (;;) {
		MPI_Status st;
		int done = 0;

		MPI_Irecv(&in, (int)sizeof(in), MPI_BYTE, MPI_ANY_SOURCE, 0, s->comm, &rq);
		for (;;) {
			MPI_Test(&rq, &done, &st);
			if (done)
				break;
			if (atomic_load(&s->quit)) {
				bool stop;

				pthread_mutex_lock(&s->amu);
				stop = all_final(s) || clock_ns() >= atomic_load(&s->deadline_ns);
				pthread_mutex_unlock(&s->amu);
				if (stop) {
					MPI_Cancel(&rq);
					MPI_Wait(&rq, MPI_STATUS_IGNORE);
					return NULL;
				}
			}
			if (++tick % 50 == 0) {
				pthread_mutex_lock(&s->amu);
				flush_all(s, false);
				pthread_mutex_unlock(&s->amu);
			}
			nanosleep(&pause, NULL);
		}
		add(s, st.MPI_SOURCE, &in, NULL);
	}
}

/* ---- the interface ---------------------------------------------------------------------------- */
struct mpi_stream *mpi_stream_start(struct mpi_job *j, MPI_Comm comm, const struct driver_sink *sink)
{
	struct mpi_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->j = j;
	s->comm = comm;
	s->rank = j->rank;
	s->size = j->size;
	s->sink = *sink;
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->amu, NULL);
	if (s->rank != 0)
		return s;
	if (!(s->final = calloc((size_t)s->size, sizeof(*s->final)))) {
		mpi_stream_free(s);
		return NULL;
	}
	if (pthread_create(&s->thr, NULL, recv_main, s)) {
		mpi_stream_free(s);
		return NULL;
	}
	s->thr_on = true;
	return s;
}

void mpi_stream_sample(struct mpi_stream *s, unsigned run, unsigned phase, const struct phase *p,
		       const struct sample *smp)
{
	struct smsg m = { .kind = MSG_SAMPLE,
			  .run = run,
			  .phase = phase,
			  .t_ns = smp->t_ns,
			  .dt_ns = smp->dt_ns,
			  .ops = smp->ops,
			  .bytes = smp->bytes,
			  .p50_ns = smp->p50_ns,
			  .p90_ns = smp->p90_ns,
			  .p99_ns = smp->p99_ns,
			  .p999_ns = smp->p999_ns,
			  .ramp = smp->ramp };
	uint64_t g;

	if (!s || !p->interval_ns)
		return;
	if (!s->have_cur || s->cur_run != run || s->cur_phase != phase) {
		s->have_cur = true;
		s->cur_run = run;
		s->cur_phase = phase;
		s->last_slot = -1;
	}
	/* the grid point it ended at or after: a periodic interval ends just after its point, the
	 * phase's last one (shorter) after the previous one's, so it takes the next slot */
	g = smp->t_ns / p->interval_ns;
	m.slot = g ? g - 1 : 0;
	if ((int64_t)m.slot <= s->last_slot)
		m.slot = (uint64_t)(s->last_slot + 1);
	s->last_slot = (int64_t)m.slot;
	if (s->rank == 0)
		add(s, 0, &m, p);
	else
		post(s, &m);
}

void mpi_stream_phase_end(struct mpi_stream *s, unsigned run, unsigned phase, const struct phase *p)
{
	struct smsg m = { .kind = MSG_PHASE_END, .run = run, .phase = phase };

	if (!s)
		return;
	if (s->rank == 0)
		add(s, 0, &m, p);
	else
		post(s, &m);
}

void mpi_stream_end(struct mpi_stream *s)
{
	struct smsg m = { .kind = MSG_FINAL };

	if (!s)
		return;
	if (s->rank != 0) {
		post(s, &m);
		return;
	}
	if (s->thr_on) {
		atomic_store(&s->deadline_ns, clock_ns() + 2000000000ull);
		atomic_store(&s->quit, true);
		pthread_join(s->thr, NULL);
		s->thr_on = false;
	}
	pthread_mutex_lock(&s->amu);
	s->final[0] = true;
	flush_all(s, true);
	pthread_mutex_unlock(&s->amu);
}

void mpi_stream_free(struct mpi_stream *s)
{
	if (!s)
		return;
	if (s->thr_on) {
		atomic_store(&s->deadline_ns, 0);
		atomic_store(&s->quit, true);
		pthread_join(s->thr, NULL);
	}
	/* a rank 0 that is gone never takes the last sends: given up after 2 s */
	pthread_mutex_lock(&s->mu);
	mpi_sendq_finish(&s->sends, clock_ns() + 2000000000ull);
	pthread_mutex_unlock(&s->mu);
	while (s->nph)
		phase_free(s, 0);
	free(s->ph);
	free(s->final);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->amu);
	free(s);
}
