/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench-mpi: fsbench's workloads as MPI jobs (mpirun -np N fsbench-mpi tiotest ...). Every
 * rank runs the workload with its own threads; rank 0 decides the command line and prints the
 * whole job's result (mpi/mpi_cmd.h). Outside mpirun it is a job of one rank. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/outfile.h"
#include "core/quote.h"
#include "mpi/mpi_cmd.h"
#include "mpi/mpi_job.h"
#include "workload/workload.h"

/* rounds of the clock ping-pong: the best of 16 is tight on a quiet link, and 16 round trips
 * per rank cost ~1 ms on a cluster network */
#define CLOCK_ROUNDS 16

static void usage(FILE *out)
{
	const struct workload_ops *w;

	fprintf(out, "usage: mpirun [MPIRUN OPTION]... fsbench-mpi WORKLOAD [OPTION]...\n"
		     "fsbench's workloads as one job of many processes: every rank runs the workload "
		     "with its own\nthreads, in its own DIR/rank.R of each -d (or in DIR itself with "
		     "--shared-dir); rank 0\nprints the whole job's classic output. Workloads:\n\n");
	for (unsigned i = 0; (w = workload_at(i)); i++)
		if (!w->hidden && w->pack)
			fprintf(out, "  %-12s %s\n", w->name, w->summary);
	fprintf(out, "\n'fsbench-mpi WORKLOAD --help' lists its options and fsbench-mpi's; fsbench(1), "
		     "section MPI, has the rest.\n");
}

/* what every rank must share for the bytes that travel between them to mean the same */
static void build_id(char *id, size_t len)
{
	const struct workload_ops *w;
	size_t sizes = 0;

	for (unsigned i = 0; (w = workload_at(i)); i++)
		sizes = sizes * 31 + w->config_size * 7 + w->result_size + w->unit_size;
	snprintf(id, len, "fsbench-mpi %s %s %s %zx", FSB_VERSION, __DATE__, __TIME__, sizes);
}

int main(int argc, char **argv)
{
	struct mpi_job j;
	const struct workload_ops *w;
	char err[512], id[256], prog[64];
	int code = EXIT_OK, rc, other;

	if ((rc = outfile_std_fds())) {
		fprintf(stderr, "fsbench-mpi: cannot open /dev/null for a closed standard descriptor: %s\n",
			strerror(-rc));
		return EXIT_FAILED;
	}
	if (mpi_job_init(&j, &argc, &argv, err, sizeof(err))) {
		if (j.rank == 0)
			fprintf(stderr, "fsbench-mpi: %s\n", err);
		mpi_job_free(&j);
		return EXIT_UNSUPPORTED;
	}
	build_id(id, sizeof(id));
	if ((other = mpi_job_same_build(&j, id))) {
		if (j.rank == 0)
			fprintf(stderr, "fsbench-mpi: rank %d runs another fsbench-mpi build than rank 0; "
				"every rank must run the same one\n", other);
		return mpi_job_end(&j, EXIT_USAGE);
	}
	mpi_job_sync_clocks(&j, CLOCK_ROUNDS);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (j.rank == 0)
			usage(argc < 2 ? stderr : stdout);
		code = argc < 2 ? EXIT_USAGE : EXIT_OK;
	} else if (!strcmp(argv[1], "--version")) {
		if (j.rank == 0)
			printf("fsbench-mpi %s\n", FSB_VERSION);
	} else if ((w = workload_find(argv[1])) && !w->hidden && w->pack) {
		snprintf(prog, sizeof(prog), "fsbench-mpi %s", w->name);
		code = mpi_cmd_run(&j, w, argc - 1, argv + 1, prog);
		goto out;
	} else {
		if (j.rank == 0)
			fprintf(stderr, "fsbench-mpi: unknown workload '%s' (try 'fsbench-mpi --help')\n",
				quote_str(argv[1], err, sizeof(err)));
		code = EXIT_USAGE;
	}
	code = mpi_job_end(&j, code);
out:
	rc = outfile_close_stdout();
	if (rc && rc != -EPIPE)
		fprintf(stderr, "fsbench-mpi: cannot write standard output: %s\n", strerror(-rc));
	if (rc && code == EXIT_OK)
		code = EXIT_FAILED;
	return code;
}
