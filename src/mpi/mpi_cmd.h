/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload command run as an MPI job: cmd/run.c's command flow with the job's hooks
 * (struct cmd_job, cmd/cmd.h), built on mpi_job.h. Reusable by anything that launches a
 * workload under mpirun (fsbench-mpi's main; an experiment runner's MPI cells). */
#ifndef FSB_MPI_MPI_CMD_H
#define FSB_MPI_MPI_CMD_H
#include "mpi/mpi_job.h"
#include "workload/workload.h"

/* Runs w with argv (the workload's options, the job's --shared-dir, --stonewall, --mpi-timeout
 * among them) on every rank of j; prog names the command in messages. Returns the exit status,
 * the same on every rank, after MPI has ended (mpi_job_end). */
int mpi_cmd_run(struct mpi_job *j, const struct workload_ops *w, int argc, char **argv,
		const char *prog);
#endif
