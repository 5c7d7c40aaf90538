/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MPI side of a job (fsbench-mpi): the processes, their hosts and clocks, the phase start
 * barrier, the stop that one rank's error or signal sends to all, the liveness that ends a job
 * whose rank died, the results shipped to rank 0, the agreed exit status. What is recorded and
 * reported is core/job.h's; how a command runs as a job is mpi_cmd.c's.
 *
 * Only point-to-point messages cross the run, each one carrying its phase number: a rank that
 * stops early (an error, a full filesystem, a kill) skips the phases still to come, and a
 * collective the others then entered could never complete nor be abandoned cleanly, while an
 * unanswered message is only a message. Collectives are used at start, when every rank is
 * there by construction (MPI_Init succeeded everywhere).
 *
 *   main thread   the barrier in every phase (hooks.release): each rank tells rank 0 it has
 *                 parked its workers (ARRIVE); once all have, rank 0 sends every rank the
 *                 instant to release at, a little ahead on the common timeline (GO), and
 *                 every rank, rank 0 too, sleeps until then: the release skew is the clocks'
 *                 error plus a wake-up, not a fan-out of messages. Rank 0 knows who is
 *                 missing. Then the results (RESULT) and the exit status (EXIT). Waits poll
 *                 (MPI's own blocking waits poll without sleeping: busy, or sched_yield in
 *                 a loop under Open MPI's mpi_yield_when_idle, its default when it sees the
 *                 node oversubscribed, which still keeps a CPU busy whenever no other
 *                 task is runnable there): a yield for 1 ms, then naps of 1/16
 *                 of the time waited so far, from 20 us up to 4 ms (20 ms in the waits
 *                 for the results and the exit status), so that a rank waiting
 *                 for slower ones does not take their CPU (2-4 % of a CPU, watch thread
 *                 included, on a loaded 2-CPU host where 20 us naps took 17-20 %). ARRIVE
 *                 carries the instant the rank began to wait, and rank 0 puts the release
 *                 later by the longest nap a waiting rank can be in, so a long wait costs
 *                 no skew.
 *   watch thread  every 5 ms while this rank runs a phase (up to every 50 ms while it
 *                 has none: between phases, at a barrier, at the end; woken when a phase
 *                 begins): the local first error or signal goes to every rank
 *                 (STOP), a STOP received stops this rank at its workers' next op (the
 *                 workers' loops only look at run_stopping(), as always); when this rank's
 *                 phase is done it says so (DONE) and each rank notes the work it had done
 *                 when the first DONE of a phase came (the stonewall figure); heartbeats
 *                 between rank 0 and every rank, and a rank not heard from for --mpi-timeout
 *                 is taken for dead: rank 0 stops the job naming it. */
#ifndef FSB_MPI_MPI_JOB_H
#define FSB_MPI_MPI_JOB_H
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/job.h"
#include "core/observe.h"
#include "core/run.h"

struct mpi_send;

/* a STOP rank 0 knows of: who stopped the job, and why */
struct mpi_stop {
	int origin;                  /* the rank whose error, signal or death it was */
	int kind;
	uint64_t t_ns;               /* common timeline */
	char text[1024];
};

struct mpi_job {
	int rank, size;
	MPI_Comm comm;               /* the main thread's messages */
	MPI_Comm ctl;                /* the watch thread's */
	bool host_leader;            /* the rank that takes its host's kernel view */
	unsigned host, nhosts;
	char host_name[JOB_HOST_MAX];
	char (*host_names)[JOB_HOST_MAX];   /* per rank (rank 0) */
	unsigned *rank_host;         /* per rank: its host (rank 0) */
	int *rank_pid;               /* per rank (rank 0) */
	int64_t clock_offset_ns;     /* this rank's CLOCK_MONOTONIC minus rank 0's */
	uint64_t clock_error_ns;
	int64_t *offsets;            /* per rank (rank 0) */
	uint64_t *errors;
	unsigned clock_rounds;
	uint64_t release_margin_ns;  /* rank 0: how far ahead of its GO the release is */
	uint64_t timeout_ns;

	/* this rank's record (core/job.h), filled by the hooks and the watch thread */
	struct job_rank me;
	pthread_mutex_t mu;          /* me.phases, the phase in progress, the stops, the sends */
	const struct phase *cur;     /* the phase in progress, NULL between phases */
	struct job_phase *cur_rec;
	uint64_t cur_seq;
	uint64_t done_seq;           /* the latest phase some rank said it finished */
	bool done_sent;
	uint64_t bseq;               /* barriers entered (every run's phases counted together) */

	/* rank 0's view of the others (main and watch thread) */
	uint64_t *arrived;           /* the last barrier each rank arrived at */
	uint64_t *arrived_at;        /* ... and when it began to wait there (common timeline) */
	uint64_t *left;              /* the barriers a rank had entered when its run ended; 0: not */
	char (*left_why)[256];
	/* ... because it found the filesystem full (a fill's end) */
	bool *left_full;
	_Atomic uint64_t *heard;     /* when each rank was last heard from (clock_ns) */
	atomic_bool *dead;
	uint64_t arrive_msg[2];      /* barrier, when (common timeline) */
	MPI_Request arrive_req;
	bool arrive_posted;

	/* the stops: the first one this rank acted on, and (rank 0) every one it knows */
	struct mpi_stop *stops;
	unsigned nstops;
	atomic_bool stopped_by_job;  /* this rank's first error is the job's stop (an echo) */
	char echo_text[256];
	bool err_sent, sig_sent;
	bool left_stop_sent;         /* rank 0 stopped ranks waiting at a barrier it left */
	atomic_bool sig_from_job;
	/* a rank found the filesystem full: this rank's fill ends at its next barrier (STOP_FULL) */
	atomic_bool full_stop;
	char full_text[256];

	/* the watch thread */
	pthread_t watch;
	bool watching;
	atomic_bool watch_stop;
	/* (with mu) a phase began (watch_kick) or the thread is to end: its nap ends */
	pthread_cond_t watch_cv;
	bool watch_kick;
	struct mpi_send *sends;      /* messages in flight: buffers freed when sent */
	unsigned nsends, capsends;
	atomic_bool rank0_dead;
	bool exit_agreed, abort_job;
};

/* MPI_Init_thread (MPI_THREAD_MULTIPLE), the communicators, the hosts (MPI_Comm_split_type
 * MPI_COMM_TYPE_SHARED; the lowest rank of each reads its kernel view), each rank's host name
 * and pid to rank 0. 0, or -errno with a message in err (then the job cannot run). */
int mpi_job_init(struct mpi_job *j, int *argc, char ***argv, char *err, size_t len);
/* The build check: every rank runs the same fsbench-mpi (the bytes that travel assume it).
 * 0, or the first rank that differs (> 0). Collective. */
int mpi_job_same_build(struct mpi_job *j, const char *id);
/* Ping-pong best-of-rounds against rank 0's CLOCK_MONOTONIC (core/job.h explains the bound).
 * Collective. */
void mpi_job_sync_clocks(struct mpi_job *j, unsigned rounds);
/* From rank 0 to every rank: an int, and a byte string (*buf malloc'd on the others).
 * Collective; 0 or -errno. */
int mpi_job_bcast_int(struct mpi_job *j, int *v);
int mpi_job_bcast_u64(struct mpi_job *j, uint64_t *v);
int mpi_job_bcast_bytes(struct mpi_job *j, void **buf, size_t *len);

/* Starts the watch thread (after the signal handlers are installed). */
int mpi_job_watch_start(struct mpi_job *j, uint64_t timeout_ns);
/* The phase barrier (driver hooks.release): 0, or -ECANCELED when the job is stopping. */
int mpi_job_release(struct mpi_job *j, const struct phase *p, unsigned run, unsigned index);
/* After the phase (driver hooks.phase_end): its record, completed. With out: moved there out
 * of this rank's record (true; its kernel view the caller's), so that it need not stay in
 * memory. */
bool mpi_job_phase_end(struct mpi_job *j, const struct phase *p, const struct observe_phase *obs,
		       struct job_phase *out);
/* This rank's run ended (why: "" or one line, for a rank still waiting at a barrier); full:
 * because its fill found the filesystem full. A rank that ends so is no error: the others'
 * fills end too, each at its next barrier (the iteration in progress completes), as full. */
void mpi_job_left(struct mpi_job *j, const char *why, bool full);
/* This rank's run ended at a barrier because another rank found the filesystem full: its
 * first error is that stop's echo. The stop's text into text. */
bool mpi_job_full_stopped(struct mpi_job *j, char *text, size_t len);
/* This rank's first error, noted for its record: whether it was its own, and when. */
void mpi_job_note_end(struct mpi_job *j);
/* The results: every rank sends msg to rank 0, which gets them all (msgs[r], lens[r]; NULL
 * for a rank that died or, after a signal, did not answer within a second). 0 or -ENOMEM. */
int mpi_job_gather(struct mpi_job *j, const void *msg, size_t len, void ***msgs, size_t **lens);
/* Rank 0's exit status to every rank (the others wait for it: when it comes, every rank has
 * delivered its result, so every rank has removed its files). Returns the status. */
int mpi_job_exit_code(struct mpi_job *j, int code);
/* The status agreed (mpi_job_exit_code, if not done yet), the watch thread stopped, MPI ended:
 * MPI_Finalize, or MPI_Abort when a rank died (a dead rank would hang it). Returns the status
 * each process exits with. */
int mpi_job_end(struct mpi_job *j, int code);
/* The earliest stop rank 0 knows of (NULL for none); a full filesystem's is none. */
const struct mpi_stop *mpi_job_first_stop(struct mpi_job *j);
/* What init allocated, when the job ends before mpi_job_end (which calls it). */
void mpi_job_free(struct mpi_job *j);
bool mpi_job_rank_dead(struct mpi_job *j, int rank);
#endif
