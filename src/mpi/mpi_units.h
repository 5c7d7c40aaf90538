/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload's reporting units (fs_mark's iterations, driver_unit) on their way to rank 0 as
 * they complete, so that no rank keeps them in memory: a fill has hundreds to thousands of
 * iterations, each a few KiB packed per rank, and rank 0 held every rank's until the end
 * (~49 KiB an iteration at 2 ranks).
 *
 * Every rank packs each unit as it completes; the others send it to rank 0 without waiting
 * (a communicator of their own, non-blocking sends reaped as they complete), rank 0 appends
 * its own and every one that has arrived to an unnamed spool file (report/json_spool.h's
 * json_spool_text) and keeps only where each one is (8 bytes a unit and rank). At the end each
 * rank's result message says how many units of each run it sent; rank 0 takes in the ones
 * still in flight and reads each back when it replays the job's units, one at a time. Memory
 * is bounded by the units in flight: the phase barrier keeps the ranks within an iteration
 * of each other. */
#ifndef FSB_MPI_MPI_UNITS_H
#define FSB_MPI_MPI_UNITS_H
#include <mpi.h>
#include <stddef.h>

struct mpi_units;

/* Every rank; comm: the units' own (MPI_Comm_dup). Rank 0 places its spool file as
 * json_spool_text(near) does. NULL with errno: out of memory, or no spool file could be made. */
struct mpi_units *mpi_units_start(int rank, int size, MPI_Comm comm, const char *near);
/* This rank's next unit of run (its packed bytes, copied): sent to rank 0, or on rank 0
 * spooled with whatever the others' arrived meanwhile. 0 or -errno. */
int mpi_units_add(struct mpi_units *u, unsigned run, const void *buf, size_t len);
/* The units this rank added to run so far. */
unsigned mpi_units_count(const struct mpi_units *u, unsigned run);
/* Rank 0, once the results are in: waits until rank r has count[r][run] units of each run
 * of nruns[r] (a NULL count[r]: a rank not heard from, skipped), or until nothing came for
 * wait_ns. 0, or -ETIMEDOUT (some are missing), -errno. */
int mpi_units_collect(struct mpi_units *u, const unsigned *const *count, const unsigned *nruns,
		      unsigned long long wait_ns);
/* Rank 0: rank r's unit k of run, read back into *buf (malloc'd, *len bytes). 0, -ENOENT
 * (never arrived), -EIO, -ENOMEM. */
int mpi_units_get(struct mpi_units *u, int rank, unsigned run, unsigned k, void **buf, size_t *len);
/* Every send reaped, or given up after 2 s; the spool closed. NULL is fine. */
void mpi_units_free(struct mpi_units *u);
#endif
