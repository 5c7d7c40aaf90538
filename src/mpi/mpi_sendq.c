/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sends without waiting (mpi/mpi_sendq.h). */
#include "mpi/mpi_sendq.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"

unsigned mpi_sendq_reap(struct mpi_sendq *q)
{
	unsigned k = 0;

	for (unsigned i = 0; i < q->n; i++) {
		int done = 0;

		MPI_Test(&q->v[i].rq, &done, MPI_STATUS_IGNORE);
		if (done)
			free(q->v[i].buf);
		else
			q->v[k++] = q->v[i];
	}
	q->n = k;
	return k;
}

int mpi_sendq_post(struct mpi_sendq *q, void *buf, size_t len, int dest, int tag, MPI_Comm comm)
{
	mpi_sendq_reap(q);
	if (len > INT_MAX) {
		free(buf);
		return -EMSGSIZE;
	}
	if (q->n == q->cap) {
		unsigned cap = q->cap ? q->cap * 2 : 8;
		struct mpi_sendq_msg *n = realloc(q->v, cap * sizeof(*n));

		if (!n) {
			free(buf);
			return -ENOMEM;
		}
		q->v = n;
		q->cap = cap;
	}
	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, comm, &q->v[q->n].rq) != MPI_SUCCESS) {
		free(buf);
		return -EIO;
	}
	q->v[q->n++].buf = buf;
	return 0;
}

void mpi_sendq_finish(struct mpi_sendq *q, uint64_t until_ns)
{
	const struct timespec pause = { 0, 1000000 };

	while (mpi_sendq_reap(q) && clock_ns() < until_ns)
		nanosleep(&pause, NULL);
	/* their buffers stay: the library may still read them */
	for (unsigned i = 0; i < q->n; i++)
		MPI_Request_free(&q->v[i].rq);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}
