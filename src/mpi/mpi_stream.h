/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --stream under fsbench-mpi: rank 0 writes the job's intervals to the one file it was given,
 * as they complete on every rank.
 *
 * Every rank's sampler hands its intervals here (a phase's intervals are on the same grid on
 * every rank: the ranks are released together). A rank numbers each one by the grid slot it
 * ends (a late wake-up's interval takes the later slot, the phase's short last one the next),
 * and sends it to rank 0 on a communicator of its own, then the end of each phase, and at the
 * end of the run FINAL; rank 0's receiving thread collects them, and once every rank has
 * passed a slot (sent a later one, ended the phase, died) the slot goes to the command's
 * sink as one line: ops and bytes summed, each rank's part with its latencies. Nothing waits
 * for rank 0: a rank's sends are non-blocking. A job killed keeps every line written. */
#ifndef FSB_MPI_MPI_STREAM_H
#define FSB_MPI_MPI_STREAM_H
#include <mpi.h>

#include "core/driver.h"

struct mpi_job;
struct mpi_stream;

/* Every rank, when --stream was given; sink: rank 0's command sink (its sample hook writes a
 * line). comm: this stream's own (MPI_Comm_dup). NULL: out of memory, no stream. */
struct mpi_stream *mpi_stream_start(struct mpi_job *j, MPI_Comm comm, const struct driver_sink *sink);
/* this rank's interval of phase number `phase` (counted in the run) of run `run` */
void mpi_stream_sample(struct mpi_stream *s, unsigned run, unsigned phase, const struct phase *p,
		       const struct sample *smp);
/* after the phase's last interval */
void mpi_stream_phase_end(struct mpi_stream *s, unsigned run, unsigned phase, const struct phase *p);
/* after the last run, before the results travel: the others say FINAL; rank 0 waits for
 * theirs (each rank's FINAL, its death, or 2 s) and writes what it still holds */
void mpi_stream_end(struct mpi_stream *s);
/* every send reaped or given up; NULL is fine */
void mpi_stream_free(struct mpi_stream *s);
#endif
