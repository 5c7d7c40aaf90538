/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages sent without waiting (MPI_Isend), their buffers kept until the library is done with
 * them: the stream's intervals and the reporting units on their way to rank 0, which must
 * never hold up the rank that sends them. Not locked: the owner serialises. */
#ifndef FSB_MPI_MPI_SENDQ_H
#define FSB_MPI_MPI_SENDQ_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct mpi_sendq_msg {
	MPI_Request rq;
	void *buf;
};

struct mpi_sendq {
	struct mpi_sendq_msg *v;
	unsigned n, cap;
};

/* Frees what was sent; returns how many are still in flight. */
unsigned mpi_sendq_reap(struct mpi_sendq *q);
/* Sends buf (len bytes, malloc'd; the queue owns it from here, freed on failure too) to dest.
 * 0, -ENOMEM, -EMSGSIZE or -EIO. */
int mpi_sendq_post(struct mpi_sendq *q, void *buf, size_t len, int dest, int tag, MPI_Comm comm);
/* Waits until every send completed or until_ns (clock_ns) passed; what is still in flight then
 * is released to the library (a peer that is gone never takes it) and the queue freed. */
void mpi_sendq_finish(struct mpi_sendq *q, uint64_t until_ns);
#endif
