/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MPI side of a job (mpi/mpi_job.h): processes, hosts, clocks, the phase barrier, the
 * stop, liveness, results and the exit status. */
#include "mpi/mpi_job.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/observe.h"

enum { TAG_CTL = 1, TAG_ARRIVE = 10, TAG_GO, TAG_RESULT, TAG_EXIT, TAG_SYNC };
enum { CTL_HEARTBEAT, CTL_STOP, CTL_DONE, CTL_LEFT };
enum { STOP_ERROR, STOP_SIGNAL, STOP_DEAD, STOP_LEFT, STOP_FULL };

/* what the watch threads say to each other; sent with only as much text as there is */
struct ctl_msg {
	int32_t type, origin, kind, arg;
	uint64_t seq, t_ns;
	char text[1024];
};
#define CTL_HEAD offsetof(struct ctl_msg, text)

struct mpi_send {
	MPI_Request req;
	void *buf;
};

static uint64_t common_ns(const struct mpi_job *j)
{
	return clock_ns() - (uint64_t)j->clock_offset_ns;
}

/* ---- messages in flight ------------------------------------------------------------------- */
/* Sends buf (malloc'd, taken over) without waiting; it is freed once sent. A peer that is gone
 * makes the send fail or never complete: neither matters to the sender. */
static void post_send(struct mpi_job *j, MPI_Comm comm, int dest, int tag, void *buf, size_t len)
{
	MPI_Request req;

	pthread_mutex_lock(&j->mu);
	if (j->nsends == j->capsends) {
		unsigned cap = j->capsends ? j->capsends * 2 : 64;
		struct mpi_send *s = realloc(j->sends, cap * sizeof(*s));

		if (!s) {
			pthread_mutex_unlock(&j->mu);
			free(buf);
			return;
		}
		j->sends = s;
		j->capsends = cap;
	}
	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, comm, &req) != MPI_SUCCESS) {
		pthread_mutex_unlock(&j->mu);
		free(buf);
		return;
	}
	j->sends[j->nsends++] = (struct mpi_send){ .req = req, .buf = buf };
	pthread_mutex_unlock(&j->mu);
}

/* frees what was sent; returns how many are still in flight */
static unsigned reap_sends(struct mpi_job *j)
{
	unsigned left;

	pthread_mutex_lock(&j->mu);
	for (unsigned i = 0; i < j->nsends;) {
		int flag = 0;

		if (MPI_Test(&j->sends[i].req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) {
			free(j->sends[i].buf);
			j->sends[i] = j->sends[--j->nsends];
		} else {
			i++;
		}
	}
	left = j->nsends;
	pthread_mutex_unlock(&j->mu);
	return left;
}

static void send_ctl(struct mpi_job *j, int dest, const struct ctl_msg *m)
{
	size_t len = CTL_HEAD + strnlen(m->text, sizeof(m->text) - 1) + 1;
	struct ctl_msg *b = malloc(len);

	if (!b)
		return;
	memcpy(b, m, len - 1);
	((char *)b)[len - 1] = '\0';
	post_send(j, j->ctl, dest, TAG_CTL, b, len);
}

static void broadcast_ctl(struct mpi_job *j, const struct ctl_msg *m)
{
	for (int r = 0; r < j->size; r++)
		if (r != j->rank && !atomic_load(&j->dead[r]))
			send_ctl(j, r, m);
}

/* A wait that polls: yield for the first millisecond (a barrier all reach together ends
 * within it), then naps of 1/16 of the time waited, 20 us to 1 ms (timer slack is 1 us:
 * mpi_job_init). MPI_Test and its progress engine cost a few us a call: 20 us naps for the
 * whole wait took ~20 % of a CPU from the ranks still working, 1 ms naps take well under 1 %. */
#define POLL_YIELD_NS 1000000
#define POLL_NAP_MIN_NS 20000
#define POLL_NAP_MAX_NS 4000000
/* The waits at the end of the job (rank 0 for the results, the others for the exit status)
 * delay nothing that is measured: their naps grow to 20 ms, 50 wake-ups a second (at 4 ms,
 * 1.1-1.5 % of a CPU per waiting rank on a loaded 2-CPU host; the barrier's naps stay at 4 ms,
 * which bounds how late a release is put after the last rank arrives). */
#define POLL_END_NAP_MAX_NS 20000000

/* the nap of a wait that has lasted waited_ns (0: still yielding), at most max_ns */
static uint64_t nap_ns(uint64_t waited_ns, uint64_t max_ns)
{
	uint64_t n = waited_ns / 16;

	if (waited_ns < POLL_YIELD_NS)
		return 0;
	return n < POLL_NAP_MIN_NS ? POLL_NAP_MIN_NS : n > max_ns ? max_ns : n;
}

static void poll_pause(uint64_t since, uint64_t max_ns)
{
	uint64_t n = nap_ns(clock_ns() - since, max_ns);

	if (!n) {
		sched_yield();
	} else {
		struct timespec ts = { 0, (long)n };

		nanosleep(&ts, NULL);
	}
}

/* ---- start ---------------------------------------------------------------------------------- */
struct rank_info {
	char host[JOB_HOST_MAX];
	int32_t pid;
	uint32_t host_index;
};

int mpi_job_init(struct mpi_job *j, int *argc, char ***argv, char *err, size_t len)
{
	int provided = 0, hr = 0, leaders = 0, hi = 0, nh = 0;
	MPI_Comm hc, lc;
	struct rank_info me, *all = NULL;

	memset(j, 0, sizeof(*j));
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		snprintf(err, len, "MPI_Init_thread failed");
		return -EIO;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	if (provided < MPI_THREAD_MULTIPLE) {
		snprintf(err, len, "the MPI library gives MPI_THREAD %d, fsbench-mpi needs "
			 "MPI_THREAD_MULTIPLE (its watch thread talks while the main thread waits)", provided);
		return -EOPNOTSUPP;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &j->comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &j->ctl);
	/* a peer that died is the job's business, not a reason for MPI to abort this process */
	MPI_Comm_set_errhandler(j->comm, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(j->ctl, MPI_ERRORS_RETURN);
	/* nanosleep's default 50 us slack would make every 20 us poll a 70 us one */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	pthread_mutex_init(&j->mu, NULL);
	clock_cond_init(&j->watch_cv);

	/* hosts: the ranks sharing memory are on one host; its lowest rank reads the kernel view */
	MPI_Comm_split_type(j->comm, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &hc);
	MPI_Comm_rank(hc, &hr);
	j->host_leader = hr == 0;
	MPI_Comm_split(j->comm, j->host_leader ? 0 : MPI_UNDEFINED, j->rank, &lc);
	if (j->host_leader) {
		MPI_Comm_rank(lc, &hi);
		MPI_Comm_size(lc, &nh);
		MPI_Comm_free(&lc);
	}
	MPI_Bcast(&hi, 1, MPI_INT, 0, hc);
	leaders = j->host_leader;
	MPI_Allreduce(&leaders, &nh, 1, MPI_INT, MPI_SUM, j->comm);
	MPI_Comm_free(&hc);
	j->host = (unsigned)hi;
	j->nhosts = (unsigned)nh;
	if (gethostname(j->host_name, sizeof(j->host_name)) < 0)
		snprintf(j->host_name, sizeof(j->host_name), "host%u", j->host);
	j->host_name[sizeof(j->host_name) - 1] = '\0';

	memset(&me, 0, sizeof(me));
	memcpy(me.host, j->host_name, sizeof(me.host));
	me.pid = (int32_t)getpid();
	me.host_index = j->host;
	if (j->rank == 0 && !(all = calloc((size_t)j->size, sizeof(*all)))) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, j->comm);

	j->arrived = calloc((size_t)j->size, sizeof(*j->arrived));
	j->arrived_at = calloc((size_t)j->size, sizeof(*j->arrived_at));
	j->left = calloc((size_t)j->size, sizeof(*j->left));
	j->left_why = calloc((size_t)j->size, sizeof(*j->left_why));
	j->left_full = calloc((size_t)j->size, sizeof(*j->left_full));
	j->heard = calloc((size_t)j->size, sizeof(*j->heard));
	j->dead = calloc((size_t)j->size, sizeof(*j->dead));
	j->offsets = calloc((size_t)j->size, sizeof(*j->offsets));
	j->errors = calloc((size_t)j->size, sizeof(*j->errors));
	if (j->rank == 0) {
		j->host_names = calloc((size_t)j->size, sizeof(*j->host_names));
		j->rank_host = calloc((size_t)j->size, sizeof(*j->rank_host));
		j->rank_pid = calloc((size_t)j->size, sizeof(*j->rank_pid));
	}
	if (!j->arrived || !j->arrived_at || !j->left || !j->left_why || !j->left_full || !j->heard ||
	    !j->dead || !j->offsets || !j->errors ||
	    (j->rank == 0 && (!j->host_names || !j->rank_host || !j->rank_pid))) {
		free(all);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (int r = 0; j->rank == 0 && r < j->size; r++) {
		memcpy(j->host_names[r], all[r].host, JOB_HOST_MAX);
		j->host_names[r][JOB_HOST_MAX - 1] = '\0';
		j->rank_host[r] = all[r].host_index;
		j->rank_pid[r] = all[r].pid;
	}
	free(all);
	j->me.rank = (unsigned)j->rank;
	j->me.host = j->host;
	j->me.pid = (int)getpid();
	return 0;
}

int mpi_job_same_build(struct mpi_job *j, const char *id)
{
	char ref[256] = "";
	int differs, first = 0;

	snprintf(ref, sizeof(ref), "%s", id);
	MPI_Bcast(ref, (int)sizeof(ref), MPI_CHAR, 0, j->comm);
	differs = strncmp(ref, id, sizeof(ref) - 1) ? j->rank : 0;
	MPI_Allreduce(&differs, &first, 1, MPI_INT, MPI_MAX, j->comm);
	return first;
}

void mpi_job_sync_clocks(struct mpi_job *j, unsigned rounds)
{
	uint64_t worst = 0;

	j->clock_rounds = rounds;
	if (j->size == 1)
		return;
	MPI_Barrier(j->comm);
	if (j->rank == 0) {
		for (int r = 1; r < j->size; r++) {
			uint64_t best = UINT64_MAX;
			int64_t off = 0, res[2];

			/* round 0 warms the path up (connection setup, first-touch) and is not used */
			for (unsigned k = 0; k <= rounds; k++) {
				uint64_t t0 = clock_ns(), tr = 0, t1;

				MPI_Send(&t0, 1, MPI_UINT64_T, r, TAG_SYNC, j->comm);
				MPI_Recv(&tr, 1, MPI_UINT64_T, r, TAG_SYNC, j->comm, MPI_STATUS_IGNORE);
				t1 = clock_ns();
				if (k && t1 - t0 < best) {
					best = t1 - t0;
					off = (int64_t)(tr - (t0 + (t1 - t0) / 2));
				}
			}
			res[0] = off;
			res[1] = (int64_t)(best / 2);
			j->offsets[r] = off;
			j->errors[r] = best / 2;
			MPI_Send(res, 2, MPI_INT64_T, r, TAG_SYNC, j->comm);
		}
	} else {
		int64_t res[2];

		for (unsigned k = 0; k <= rounds; k++) {
			uint64_t t0, tr;

			MPI_Recv(&t0, 1, MPI_UINT64_T, 0, TAG_SYNC, j->comm, MPI_STATUS_IGNORE);
			tr = clock_ns();
			MPI_Send(&tr, 1, MPI_UINT64_T, 0, TAG_SYNC, j->comm);
		}
		MPI_Recv(res, 2, MPI_INT64_T, 0, TAG_SYNC, j->comm, MPI_STATUS_IGNORE);
		j->clock_offset_ns = res[0];
		j->clock_error_ns = (uint64_t)res[1];
	}
	j->me.clock_offset_ns = j->clock_offset_ns;
	j->me.clock_error_ns = j->clock_error_ns;
	/* the release margin (rank 0): GO must reach every rank first; a round trip is twice
	 * the error bound, and rank 0 sends one GO after the other */
	for (int r = 1; j->rank == 0 && r < j->size; r++)
		if (j->errors[r] > worst)
			worst = j->errors[r];
	j->release_margin_ns = 300000 + 4 * worst + (uint64_t)j->size * 2000;
}

int mpi_job_bcast_int(struct mpi_job *j, int *v)
{
	return MPI_Bcast(v, 1, MPI_INT, 0, j->comm) == MPI_SUCCESS ? 0 : -EIO;
}

int mpi_job_bcast_u64(struct mpi_job *j, uint64_t *v)
{
	return MPI_Bcast(v, 1, MPI_UINT64_T, 0, j->comm) == MPI_SUCCESS ? 0 : -EIO;
}

int mpi_job_bcast_bytes(struct mpi_job *j, void **buf, size_t *len)
{
	uint64_t n = *len;

	if (MPI_Bcast(&n, 1, MPI_UINT64_T, 0, j->comm) != MPI_SUCCESS)
		return -EIO;
	if (j->rank != 0) {
		*len = (size_t)n;
		if (!(*buf = malloc(n ? n : 1)))
			return -ENOMEM;   /* the others wait in the next bcast: abort */
	}
	return MPI_Bcast(*buf, (int)n, MPI_BYTE, 0, j->comm) == MPI_SUCCESS ? 0 : -EIO;
}

/* ---- the stop ------------------------------------------------------------------------------ */
static void stop_note(struct mpi_job *j, int origin, int kind, uint64_t t, const char *text)
{
	struct mpi_stop *s;

	pthread_mutex_lock(&j->mu);
	if ((s = realloc(j->stops, (j->nstops + 1) * sizeof(*s)))) {
		j->stops = s;
		s = &s[j->nstops++];
		s->origin = origin;
		s->kind = kind;
		s->t_ns = t;
		snprintf(s->text, sizeof(s->text), "%s", text);
	}
	pthread_mutex_unlock(&j->mu);
}

/* whether this rank's first error is the job's stop, not its own */
static bool is_echo(struct mpi_job *j, const struct run_error *e)
{
	return atomic_load(&j->stopped_by_job) && !e->syscall &&
	       !strncmp(e->detail, j->echo_text, sizeof(e->detail) - 1);
}

/* A stop from another rank (or rank 0's own finding about one): this rank stops too. A signal
 * is raised here as it was there, so the run ends as an interrupted one; anything else is
 * this rank's first error, marked as the job's (the report names the origin's instead). */
static void stop_here(struct mpi_job *j, int origin, int kind, int sig, uint64_t t, const char *text)
{
	stop_note(j, origin, kind, t, text);
	if (kind == STOP_SIGNAL) {
		if (!run_signal()) {
			atomic_store(&j->sig_from_job, true);
			raise(sig);
		}
		return;
	}
	if (kind == STOP_FULL) {
		/* not now: the iteration in progress completes, the fill ends at the next barrier */
		pthread_mutex_lock(&j->mu);
		if (!atomic_load(&j->full_stop))
			snprintf(j->full_text, sizeof(j->full_text), "%s", text);
		atomic_store(&j->full_stop, true);
		pthread_mutex_unlock(&j->mu);
		return;
	}
	if (run_error_get())
		return;
	pthread_mutex_lock(&j->mu);
	snprintf(j->echo_text, sizeof(j->echo_text), "stopped by rank %d: %s", origin, text);
	atomic_store(&j->stopped_by_job, true);
	pthread_mutex_unlock(&j->mu);
	run_fail_msg(ECANCELED, "%s", j->echo_text);
}

/* rank 0: a stop it decides (a dead rank, a rank gone before a barrier) goes to everyone */
static void stop_job(struct mpi_job *j, int origin, int kind, const char *text)
{
	struct ctl_msg m = { .type = CTL_STOP, .origin = origin, .kind = kind, .t_ns = common_ns(j) };

	snprintf(m.text, sizeof(m.text), "%s", text);
	broadcast_ctl(j, &m);
	stop_here(j, origin, kind, 0, m.t_ns, m.text);
}

/* this rank's own first error or signal, once, to every rank */
static void check_local(struct mpi_job *j)
{
	const struct run_error *e = run_error_get();
	struct ctl_msg m = { .type = CTL_STOP, .origin = j->rank };
	bool send_err = false, send_sig = false;
	int sig = run_signal();

	pthread_mutex_lock(&j->mu);
	if (!j->err_sent && e && !is_echo(j, e)) {
		j->err_sent = send_err = true;
		j->me.error_ns = common_ns(j);
	}
	if (!j->sig_sent && sig && !atomic_load(&j->sig_from_job))
		j->sig_sent = send_sig = true;
	pthread_mutex_unlock(&j->mu);
	if (send_err) {
		m.kind = STOP_ERROR;
		m.t_ns = j->me.error_ns;
		run_error_format(e, m.text, sizeof(m.text));
		stop_note(j, j->rank, STOP_ERROR, m.t_ns, m.text);
		broadcast_ctl(j, &m);
	}
	if (send_sig) {
		m.kind = STOP_SIGNAL;
		m.arg = sig;
		m.t_ns = common_ns(j);
		snprintf(m.text, sizeof(m.text), "interrupted by SIG%s", sigabbrev_np(sig));
		stop_note(j, j->rank, STOP_SIGNAL, m.t_ns, m.text);
		broadcast_ctl(j, &m);
	}
}

/* ---- the phase in progress ---------------------------------------------------------------- */
static void live_counts(const struct phase *p, uint64_t *ops, uint64_t *bytes)
{
	*ops = *bytes = 0;
	for (unsigned i = 0; i < p->nworkers; i++) {
		const struct opstat *s = p->workers[i].live;

		if (s) {
			*ops += HIST_PEEK(s->ops);
			*bytes += HIST_PEEK(s->bytes);
		}
	}
}

/* the work done when the job's first rank finished (under mu) */
static void snapshot(struct mpi_job *j)
{
	if (!j->cur || !j->cur_rec || j->cur_rec->at_first_set)
		return;
	live_counts(j->cur, &j->cur_rec->at_first_ops, &j->cur_rec->at_first_bytes);
	j->cur_rec->at_first_set = true;
}

static void send_done(struct mpi_job *j, uint64_t seq)
{
	struct ctl_msg m = { .type = CTL_DONE, .origin = j->rank, .seq = seq, .t_ns = common_ns(j) };

	broadcast_ctl(j, &m);
}

/* this rank's workers are all done: the first rank to get there sets everyone's snapshot */
static void check_done(struct mpi_job *j)
{
	uint64_t seq = 0;

	pthread_mutex_lock(&j->mu);
	if (j->cur && !j->done_sent &&
	    atomic_load((atomic_uint *)&j->cur->ndone) >= j->cur->nworkers) {
		j->done_sent = true;
		snapshot(j);
		seq = j->cur_seq;
	}
	pthread_mutex_unlock(&j->mu);
	if (seq)
		send_done(j, seq);
}

/* ---- the watch thread ----------------------------------------------------------------------- */
static void handle(struct mpi_job *j, const struct ctl_msg *m, int src)
{
	switch (m->type) {
	case CTL_STOP:
		if (m->kind == STOP_DEAD && m->origin >= 0 && m->origin < j->size)
			atomic_store(&j->dead[m->origin], true);
		stop_here(j, m->origin, m->kind, m->arg, m->t_ns, m->text);
		break;
	case CTL_DONE:
		pthread_mutex_lock(&j->mu);
		if (m->seq > j->done_seq)
			j->done_seq = m->seq;
		if (j->cur && j->cur_seq == m->seq)
			snapshot(j);
		pthread_mutex_unlock(&j->mu);
		break;
	case CTL_LEFT:
		pthread_mutex_lock(&j->mu);
		j->left[src] = m->seq ? m->seq : UINT64_MAX;
		j->left_full[src] = m->kind != 0;
		snprintf(j->left_why[src], sizeof(j->left_why[src]), "%.*s",
			 (int)sizeof(j->left_why[src]) - 1, m->text);
		pthread_mutex_unlock(&j->mu);
		break;
	default:
		break;
	}
}

/* The watch thread's period: the latency of a stop and the precision of the work-at-first-
 * end snapshot. Each round costs ~25 us of CPU (MPI progress under MPI_THREAD_MULTIPLE): at 1 ms
 * that was 2.5 % of a core per rank, measurable against the workload on a full host. While this
 * rank runs no phase (between phases, waiting at a barrier or for the others' results) neither
 * figure is at stake, only the stop of a wait, which can take a little longer: the period grows
 * with the time idle (1/8 of it) to WATCH_IDLE_MAX_NS, and mpi_job_release wakes the thread when
 * a phase begins. A waiting rank's watch thread took ~1 % of a CPU on a loaded host at 5 ms. */
#define WATCH_POLL_NS 5000000
#define WATCH_IDLE_MAX_NS 50000000

/* the next period: busy (a phase running here, its workers not all done) or idle since idle_ns */
static uint64_t watch_period_ns(struct mpi_job *j, uint64_t now, uint64_t *idle_ns)
{
	bool busy;
	uint64_t n;

	pthread_mutex_lock(&j->mu);
	busy = j->cur && !j->done_sent;
	pthread_mutex_unlock(&j->mu);
	if (busy) {
		*idle_ns = 0;
		return WATCH_POLL_NS;
	}
	if (!*idle_ns)
		*idle_ns = now;
	n = (now - *idle_ns) / 8;
	return n < WATCH_POLL_NS ? WATCH_POLL_NS : n > WATCH_IDLE_MAX_NS ? WATCH_IDLE_MAX_NS : n;
}

/* sleeps for ns, or until a phase begins or the thread is to end (watch_cv) */
static void watch_nap(struct mpi_job *j, uint64_t ns)
{
	struct timespec ts = clock_ts(clock_ns() + ns);

	pthread_mutex_lock(&j->mu);
	if (!atomic_load(&j->watch_stop) && !j->watch_kick)
		pthread_cond_timedwait(&j->watch_cv, &j->mu, &ts);
	j->watch_kick = false;
	pthread_mutex_unlock(&j->mu);
}

/* Longer than any nap of the watch thread and its round (WATCH_IDLE_MAX_NS), under load too:
 * a gap between two rounds beyond it is time this rank did not run (SIGSTOP, a VM paused). */
#define WATCH_PAUSED_NS UINT64_C(1000000000)

/* The time this rank was not running (since its last round ended at last) is nobody's silence:
 * the others' messages of that time wait in its queue. Every rank's last word moves on by the
 * gap, so that it is judged only on what this rank has had a chance to hear. Returns now. */
static uint64_t paused_credit(struct mpi_job *j, uint64_t last)
{
	uint64_t now = clock_ns(), gap = now - last;

	if (now > last && gap > WATCH_PAUSED_NS)
		for (int r = 0; r < j->size; r++)
			atomic_fetch_add(&j->heard[r], gap);
	return now;
}

static void *watch_main(void *arg)
{
	struct mpi_job *j = arg;
	struct ctl_msg *in = malloc(sizeof(*in));
	uint64_t period = j->timeout_ns / 4, last_hb = 0, idle_ns = 0, woke = clock_ns();
	MPI_Request rq;

	if (!in)
		return NULL;
	if (period < 50000000)
		period = 50000000;
	if (period > UINT64_C(5000000000))
		period = UINT64_C(5000000000);
	MPI_Irecv(in, (int)sizeof(*in), MPI_BYTE, MPI_ANY_SOURCE, TAG_CTL, j->ctl, &rq);
	while (!atomic_load(&j->watch_stop)) {
		uint64_t now;

		woke = paused_credit(j, woke);
		for (;;) {
			MPI_Status st;
			int flag = 0;

			if (MPI_Test(&rq, &flag, &st) != MPI_SUCCESS || !flag)
				break;
			if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < j->size)
				atomic_store(&j->heard[st.MPI_SOURCE], clock_ns());
			in->text[sizeof(in->text) - 1] = '\0';
			handle(j, in, st.MPI_SOURCE);
			MPI_Irecv(in, (int)sizeof(*in), MPI_BYTE, MPI_ANY_SOURCE, TAG_CTL, j->ctl, &rq);
		}
		check_local(j);
		check_done(j);
		now = clock_ns();
		if (now - last_hb >= period) {
			struct ctl_msg hb = { .type = CTL_HEARTBEAT, .origin = j->rank };

			last_hb = now;
			if (j->rank == 0)
				broadcast_ctl(j, &hb);
			else
				send_ctl(j, 0, &hb);
		}
		if (j->rank == 0) {
			for (int r = 1; r < j->size; r++) {
				char text[512];
				uint64_t heard = atomic_load(&j->heard[r]);

				if (atomic_load(&j->dead[r]) || now < heard || now - heard <= j->timeout_ns)
					continue;
				atomic_store(&j->dead[r], true);
				snprintf(text, sizeof(text), "rank %d on host %s stopped responding: nothing "
					 "heard from it for %.1f s (--mpi-timeout); was it killed?", r,
					 j->host_names[r], (double)(now - heard) / 1e9);
				stop_job(j, r, STOP_DEAD, text);
			}
		} else if (!atomic_load(&j->rank0_dead)) {
			uint64_t heard = atomic_load(&j->heard[0]);

			if (now > heard && now - heard > j->timeout_ns) {
				char text[256];

				atomic_store(&j->rank0_dead, true);
				snprintf(text, sizeof(text), "rank 0 stopped responding: nothing heard from "
					 "it for %.1f s (--mpi-timeout)", (double)(now - heard) / 1e9);
				stop_here(j, 0, STOP_DEAD, 0, common_ns(j), text);
			}
		}
		reap_sends(j);
		watch_nap(j, watch_period_ns(j, clock_ns(), &idle_ns));
	}
	MPI_Cancel(&rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	free(in);
	return NULL;
}

int mpi_job_watch_start(struct mpi_job *j, uint64_t timeout_ns)
{
	uint64_t now = clock_ns();
	int rc;

	j->timeout_ns = timeout_ns;
	for (int r = 0; r < j->size; r++)
		atomic_store(&j->heard[r], now);
	if (j->size == 1)
		return 0;
	if (j->rank == 0) {
		MPI_Irecv(j->arrive_msg, 2, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_ARRIVE, j->comm,
			  &j->arrive_req);
		j->arrive_posted = true;
	}
	if ((rc = pthread_create(&j->watch, NULL, watch_main, j)))
		return -rc;
	j->watching = true;
	return 0;
}

/* ---- the barrier ------------------------------------------------------------------------------ */
static void arrive_poll(struct mpi_job *j)
{
	for (;;) {
		MPI_Status st;
		int flag = 0;

		if (!j->arrive_posted || MPI_Test(&j->arrive_req, &flag, &st) != MPI_SUCCESS || !flag)
			return;
		if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < j->size) {
			j->arrived[st.MPI_SOURCE] = j->arrive_msg[0];
			j->arrived_at[st.MPI_SOURCE] = j->arrive_msg[1];
		}
		MPI_Irecv(j->arrive_msg, 2, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_ARRIVE, j->comm,
			  &j->arrive_req);
	}
}

/* rank 0: rank r's run ended before a barrier the others wait at (phase: its name, NULL when
 * rank 0 does not know it) */
static void stop_left(struct mpi_job *j, int r, const char *phase)
{
	char text[768], why[256];

	pthread_mutex_lock(&j->mu);
	snprintf(why, sizeof(why), "%s", j->left_why[r]);
	pthread_mutex_unlock(&j->mu);
	if (j->left_full[r]) {
		snprintf(text, sizeof(text), "rank %d on host %s found the filesystem full%s%s", r,
			 r == 0 ? j->host_name : j->host_names[r], why[0] ? ": " : "", why);
		stop_job(j, r, STOP_FULL, text);
		return;
	}
	snprintf(text, sizeof(text), "rank %d on host %s ended its run before the others' %s%s%s%s%s",
		 r, r == 0 ? j->host_name : j->host_names[r], phase ? "phase '" : "next phase",
		 phase ? phase : "", phase ? "'" : "", why[0] ? ": " : "", why);
	stop_job(j, r, STOP_LEFT, text);
}

/* a rank found the filesystem full: this rank's fill ends here, at a barrier, its first error
 * the stop's echo (mpi_cmd turns it into the fill's end) */
static bool full_here(struct mpi_job *j)
{
	if (!atomic_load(&j->full_stop))
		return false;
	pthread_mutex_lock(&j->mu);
	if (!run_error_get()) {
		snprintf(j->echo_text, sizeof(j->echo_text), "%s", j->full_text);
		atomic_store(&j->stopped_by_job, true);
		pthread_mutex_unlock(&j->mu);
		run_fail_msg(ECANCELED, "%s", j->echo_text);
		return true;
	}
	pthread_mutex_unlock(&j->mu);
	return true;
}

bool mpi_job_full_stopped(struct mpi_job *j, char *text, size_t len)
{
	const struct run_error *e = run_error_get();
	bool full;

	pthread_mutex_lock(&j->mu);
	full = atomic_load(&j->full_stop) && e && atomic_load(&j->stopped_by_job) && !e->syscall &&
	       !strncmp(e->detail, j->full_text, sizeof(e->detail) - 1);
	if (full)
		snprintf(text, len, "%s", j->full_text);
	pthread_mutex_unlock(&j->mu);
	return full;
}

/* sleeps until CLOCK_MONOTONIC reaches t (timer slack 1 us: mpi_job_init) */
static void release_at(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u), .tv_nsec = (long)(t % 1000000000u) };

	while (clock_ns() < t && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Rank 0: every rank, this one too, releases at one instant of the common timeline, a little
 * ahead: the GO messages have reached everyone by then, and no rank's workers run before the
 * others have even been told (on a busy host they would take the CPU the late ones need to
 * start). And after the longest nap a waiting rank can be in: it sees GO only when it wakes
 * (nap_ns of its wait so far, which the ARRIVE told). */
static uint64_t release_instant(struct mpi_job *j)
{
	uint64_t at = common_ns(j), nap = 0;

	for (int r = 1; r < j->size; r++) {
		uint64_t n = nap_ns(at > j->arrived_at[r] ? at - j->arrived_at[r] : 0, POLL_NAP_MAX_NS);

		nap = n > nap ? n : nap;
	}
	return at + j->release_margin_ns + nap;
}

int mpi_job_release(struct mpi_job *j, const struct phase *p, unsigned run, unsigned index)
{
	uint64_t seq = ++j->bseq, t0 = clock_ns(), at;
	struct job_phase *rec;

	if (j->size > 1 && (run_stopping() || full_here(j)))
		return -ECANCELED;
	if (j->size > 1 && j->rank != 0) {
		uint64_t go[2] = { 0, 0 }, *b = malloc(2 * sizeof(*b));
		MPI_Request rq;

		/* the barrier and when this rank began to wait: rank 0 bounds its naps by it */
		if (b) {
			b[0] = seq;
			b[1] = t0 - (uint64_t)j->clock_offset_ns;
			post_send(j, j->comm, 0, TAG_ARRIVE, b, 2 * sizeof(*b));
		}
		MPI_Irecv(go, 2, MPI_UINT64_T, 0, TAG_GO, j->comm, &rq);
		for (;;) {
			int flag = 0;

			MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
			if (flag && go[0] == seq) {
				release_at(go[1] + (uint64_t)j->clock_offset_ns);
				break;
			}
			if (flag) {
				/* a GO of a barrier this rank gave up on: not this one */
				MPI_Irecv(go, 2, MPI_UINT64_T, 0, TAG_GO, j->comm, &rq);
				continue;
			}
			if (run_stopping() || full_here(j) || atomic_load(&j->rank0_dead)) {
				MPI_Cancel(&rq);
				MPI_Wait(&rq, MPI_STATUS_IGNORE);
				return -ECANCELED;
			}
			poll_pause(t0, POLL_NAP_MAX_NS);
		}
	} else if (j->size > 1) {
		for (;;) {
			unsigned missing = 0;
			int gone = -1;

			arrive_poll(j);
			pthread_mutex_lock(&j->mu);
			for (int r = 1; r < j->size; r++)
				if (j->arrived[r] < seq) {
					missing++;
					if (j->left[r] && j->left[r] < seq)
						gone = r;
				}
			pthread_mutex_unlock(&j->mu);
			if (!missing)
				break;
			if (run_stopping())
				return -ECANCELED;
			if (gone >= 0) {
				stop_left(j, gone, p->name);
				full_here(j);
				return -ECANCELED;
			}
			poll_pause(t0, POLL_NAP_MAX_NS);
		}
		at = release_instant(j);
		for (int r = 1; r < j->size; r++) {
			uint64_t *b = malloc(2 * sizeof(*b));

			if (!b)
				continue;
			b[0] = seq;
			b[1] = at;
			post_send(j, j->comm, r, TAG_GO, b, 2 * sizeof(*b));
		}
		release_at(at);
	}
	pthread_mutex_lock(&j->mu);
	rec = job_rank_phase(&j->me, run, index, p->name, common_ns(j));
	j->cur = p;
	j->cur_rec = rec;
	j->cur_seq = seq;
	j->done_sent = false;
	/* a faster rank already finished this phase: this one had done nothing by then */
	if (rec && j->done_seq >= seq)
		rec->at_first_set = true;
	/* the watch thread may be in an idle nap: the phase needs its 5 ms period from now */
	j->watch_kick = true;
	pthread_cond_signal(&j->watch_cv);
	pthread_mutex_unlock(&j->mu);
	return 0;
}

bool mpi_job_phase_end(struct mpi_job *j, const struct phase *p, const struct observe_phase *obs,
		       struct job_phase *out)
{
	struct job_phase *rec;
	struct opstat *st = malloc(sizeof(*st));
	bool send = false;
	uint64_t seq;
	unsigned run = 0;
	char name[JOB_NAME_MAX] = "";

	pthread_mutex_lock(&j->mu);
	rec = j->cur == p ? j->cur_rec : NULL;
	seq = j->cur_seq;
	if (rec) {
		rec->release_ns = p->start_ns - (uint64_t)j->clock_offset_ns;
		rec->end_ns = p->end_ns - (uint64_t)j->clock_offset_ns;
		live_counts(p, &rec->ops, &rec->bytes);
		rec->usr_s = p->usr_s;
		rec->sys_s = p->sys_s;
		rec->stonewalled = p->stonewalled;
		/* no rank said it was done first: this one was */
		if (!rec->at_first_set) {
			rec->at_first_ops = rec->ops;
			rec->at_first_bytes = rec->bytes;
			rec->at_first_set = true;
		}
		if (obs && j->host_leader)
			job_phase_set_kstat(rec, &obs->k);
		run = rec->run;
		memcpy(name, rec->name, sizeof(name));
		send = !j->done_sent;
		j->done_sent = true;
		if (out) {
			size_t i = (size_t)(rec - j->me.phases);

			/* complete: the caller's from now on (a fill has thousands) */
			*out = *rec;
			memmove(rec, rec + 1, (j->me.nphases - i - 1) * sizeof(*rec));
			j->me.nphases--;
		}
	}
	j->cur = NULL;
	j->cur_rec = NULL;
	pthread_mutex_unlock(&j->mu);
	if (send && j->size > 1)
		send_done(j, seq);
	if (rec && st) {
		opstat_init(st);
		for (unsigned i = 0; i < p->nworkers; i++)
			if (p->workers[i].live)
				opstat_merge(st, p->workers[i].live);
		job_rank_lat_add(&j->me, run, name, st);
	}
	free(st);
	return rec && out;
}

void mpi_job_left(struct mpi_job *j, const char *why, bool full)
{
	struct ctl_msg m = { .type = CTL_LEFT, .origin = j->rank, .kind = full, .seq = j->bseq };

	if (j->size == 1)
		return;
	if (j->rank == 0) {
		j->left[0] = j->bseq ? j->bseq : UINT64_MAX;
		j->left_full[0] = full;
		snprintf(j->left_why[0], sizeof(j->left_why[0]), "%s", why);
		return;
	}
	snprintf(m.text, sizeof(m.text), "%s", why);
	send_ctl(j, 0, &m);
}

void mpi_job_note_end(struct mpi_job *j)
{
	const struct run_error *e;

	/* an error the watch thread has not seen yet is this rank's own: its time is now */
	if (j->size > 1)
		check_local(j);
	e = run_error_get();
	pthread_mutex_lock(&j->mu);
	j->me.failed = e != NULL;
	j->me.echo = e && is_echo(j, e);
	if (e && !j->me.error_ns)
		j->me.error_ns = common_ns(j);
	pthread_mutex_unlock(&j->mu);
}

/* ---- results and the end ---------------------------------------------------------------------- */
int mpi_job_gather(struct mpi_job *j, const void *msg, size_t len, void ***msgs, size_t **lens)
{
	uint64_t t0 = clock_ns(), t_sig = 0;

	*msgs = NULL;
	*lens = NULL;
	if (j->rank != 0) {
		void *b = malloc(len ? len : 1);

		if (!b)
			return -ENOMEM;
		memcpy(b, msg, len);
		post_send(j, j->comm, 0, TAG_RESULT, b, len);
		return 0;
	}
	*msgs = calloc((size_t)j->size, sizeof(**msgs));
	*lens = calloc((size_t)j->size, sizeof(**lens));
	if (!*msgs || !*lens || !((*msgs)[0] = malloc(len ? len : 1)))
		return -ENOMEM;
	memcpy((*msgs)[0], msg, len);
	(*lens)[0] = len;
	for (;;) {
		MPI_Status st;
		int flag = 0, count = 0;
		bool all = true;

		for (int r = 1; r < j->size; r++)
			if (!(*msgs)[r] && !atomic_load(&j->dead[r]))
				all = false;
		if (all)
			break;
		/* interrupted: mpirun kills the job a second after its SIGTERM; report what came */
		if (run_signal() && !t_sig)
			t_sig = clock_ns();
		if (t_sig && clock_ns() - t_sig > 500000000)
			break;
		if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, j->comm, &flag, &st) == MPI_SUCCESS && flag) {
			void *b;

			MPI_Get_count(&st, MPI_BYTE, &count);
			if (!(b = malloc(count ? (size_t)count : 1)))
				return -ENOMEM;
			MPI_Recv(b, count, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, j->comm, MPI_STATUS_IGNORE);
			if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < j->size && !(*msgs)[st.MPI_SOURCE]) {
				(*msgs)[st.MPI_SOURCE] = b;
				(*lens)[st.MPI_SOURCE] = (size_t)count;
			} else {
				free(b);
			}
			continue;
		}
		/* a rank waiting at a barrier rank 0 will never serve: rank 0's run ended first */
		arrive_poll(j);
		if (!j->left_stop_sent)
			for (int r = 1; r < j->size; r++)
				if (j->arrived[r] > j->bseq) {
					j->left_stop_sent = true;
					stop_left(j, 0, NULL);
					break;
				}
		poll_pause(t0, POLL_END_NAP_MAX_NS);
	}
	return 0;
}

const struct mpi_stop *mpi_job_first_stop(struct mpi_job *j)
{
	const struct mpi_stop *f = NULL;

	for (unsigned i = 0; i < j->nstops; i++)
		if (j->stops[i].kind != STOP_SIGNAL && j->stops[i].kind != STOP_FULL &&
		    (!f || j->stops[i].t_ns < f->t_ns))
			f = &j->stops[i];
	return f;
}

bool mpi_job_rank_dead(struct mpi_job *j, int rank)
{
	return rank >= 0 && rank < j->size && atomic_load(&j->dead[rank]);
}

static void watch_end(struct mpi_job *j)
{
	if (!j->watching)
		return;
	pthread_mutex_lock(&j->mu);
	atomic_store(&j->watch_stop, true);
	pthread_cond_signal(&j->watch_cv);
	pthread_mutex_unlock(&j->mu);
	pthread_join(j->watch, NULL);
	j->watching = false;
}

int mpi_job_exit_code(struct mpi_job *j, int code)
{
	bool abort_job = false;

	if (j->size > 1 && j->rank == 0) {
		for (int r = 1; r < j->size; r++) {
			int32_t *b;

			if (atomic_load(&j->dead[r])) {
				abort_job = true;
				continue;
			}
			if ((b = malloc(2 * sizeof(*b)))) {
				b[0] = code;
				b[1] = 0;
				post_send(j, j->comm, r, TAG_EXIT, b, 2 * sizeof(*b));
			}
		}
	} else if (j->size > 1) {
		int32_t msg[2] = { code, 0 };
		MPI_Request rq;

		uint64_t t0 = clock_ns();

		/* the others may still be working (this rank's last phase ended first): no fixed
		 * 1 ms polls (3-4 % of a CPU on a loaded host), growing naps */
		MPI_Irecv(msg, 2, MPI_INT32_T, 0, TAG_EXIT, j->comm, &rq);
		for (;;) {
			int flag = 0;

			MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
			if (flag) {
				code = msg[0];
				break;
			}
			if (atomic_load(&j->rank0_dead)) {
				MPI_Cancel(&rq);
				MPI_Wait(&rq, MPI_STATUS_IGNORE);
				fprintf(stderr, "fsbench-mpi: rank %d: rank 0 stopped responding; ending the job\n",
					j->rank);
				abort_job = true;
				code = code ? code : 1;
				break;
			}
			poll_pause(t0, POLL_END_NAP_MAX_NS);
		}
	}
	j->abort_job = abort_job;
	j->exit_agreed = true;
	return code;
}

/* Every rank waits here for the others before MPI_Finalize: Open MPI's finalize waits for a
 * slower rank in 100 us naps with a progress pass each (~20 % of a CPU per waiting rank while
 * a rank is stopped or still busy), this wait naps as the others do and leaves the CPU to the
 * ranks still working. The watch thread keeps judging liveness meanwhile: a rank found dead
 * (or rank 0 on a rank) ends the wait and the job is aborted. Returns false then. */
static bool end_barrier(struct mpi_job *j)
{
	uint64_t t0 = clock_ns();
	MPI_Request rq;

	if (j->size == 1 || MPI_Ibarrier(j->comm, &rq) != MPI_SUCCESS)
		return true;
	for (;;) {
		int flag = 0;
		bool dead = atomic_load(&j->rank0_dead);

		if (MPI_Test(&rq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
			return true;
		for (int r = 0; r < j->size && !dead; r++)
			dead = atomic_load(&j->dead[r]);
		if (dead)
			return false;
		poll_pause(t0, POLL_END_NAP_MAX_NS);
	}
}

int mpi_job_end(struct mpi_job *j, int code)
{
	uint64_t t0 = clock_ns();
	bool abort_job;

	if (!j->exit_agreed)
		code = mpi_job_exit_code(j, code);
	abort_job = j->abort_job;
	if (!abort_job && !end_barrier(j))
		abort_job = true;
	/* what is in flight goes out (a bounded wait: a peer gone takes nothing) */
	while (reap_sends(j) && clock_ns() - t0 < UINT64_C(5000000000)) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	watch_end(j);
	if (j->arrive_posted) {
		MPI_Cancel(&j->arrive_req);
		MPI_Wait(&j->arrive_req, MPI_STATUS_IGNORE);
		j->arrive_posted = false;
	}
	fflush(stdout);
	fflush(stderr);
	/* a dead rank would hang MPI_Finalize: the launcher ends the job */
	if (abort_job || reap_sends(j))
		MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
	MPI_Comm_free(&j->comm);
	MPI_Comm_free(&j->ctl);
	MPI_Finalize();
	mpi_job_free(j);
	return code;
}

void mpi_job_free(struct mpi_job *j)
{
	for (unsigned i = 0; i < j->nsends; i++)
		free(j->sends[i].buf);
	free(j->sends);
	free(j->stops);
	free(j->arrived);
	free(j->arrived_at);
	free(j->left);
	free(j->left_why);
	free(j->left_full);
	free(j->heard);
	free(j->dead);
	free(j->offsets);
	free(j->errors);
	free(j->host_names);
	free(j->rank_host);
	free(j->rank_pid);
	job_rank_free(&j->me);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->watch_cv);
	memset(j, 0, sizeof(*j));
}
