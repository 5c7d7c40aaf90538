/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload command as an MPI job (mpi/mpi_cmd.h): the leader's options and config for every
 * rank, per-rank directories, the driver's hooks (barrier, phase records, stonewall, kernel view
 * once per host), each rank's result and units to rank 0, merged there and replayed into the
 * command's sink so that the classic output describes the whole job. */
#include "engine/engine.h"
#include "mpi/mpi_cmd.h"
#include "mpi/mpi_stream.h"
#include "mpi/mpi_units.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/job_opts.h"
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/outfile.h"
#include "core/pack.h"
#include "report/job_text.h"
#include "report/json_job.h"

/* where a rank's message holds each run's result, and how many units it sent of each */
struct msg_index {
	unsigned nruns;
	struct { size_t off, len; } *res;
	unsigned *nunits; /* per run */
	unsigned nphases; /* its phase records, sent as they completed */
};

struct mpi_cmd {
	struct mpi_job *j;
	const struct workload_ops *w;
	const char *prog;
	struct job_opts jo;
	struct cmd_job ops;
	bool ended;
	int code;
	/* the leader's config strings, on the others */
	char **strs;
	unsigned nstrs;
	/* per-rank directories: DIR/rank.R for each -d DIR */
	unsigned ndirs;
	char *orig[OPT_LIST_MAX], *rankdir[OPT_LIST_MAX];
	bool made_parent[OPT_LIST_MAX];  /* this rank created DIR (fs_mark's missing -d) */
	dev_t parent_dev[OPT_LIST_MAX];
	ino_t parent_ino[OPT_LIST_MAX];
	/* the run */
	const struct run_opts *opts;
	const void *cfg;
	struct driver_sink sink;     /* the command's */
	unsigned run, phase;
	long long *started;
	unsigned nstarted;
	/* the units (driver_unit) to rank 0 as they complete (mpi_units.h) */
	MPI_Comm ucomm;
	struct mpi_units *units;
	/* the job's phase records to rank 0 as they complete, the same way (one "run", k: the
	 * rank's phase number): a fill has thousands, each ~0.6 KiB with a kernel view */
	MPI_Comm pcomm;
	struct mpi_units *punits;
	struct job_phase_src psrc;
	/* rank 0: the job */
	struct job job;
	bool have_job;
	/* this rank's fill ended because another found the filesystem full */
	bool full_told;
	/* --stream: the job's intervals to rank 0 (mpi_stream.h) */
	MPI_Comm scomm;
	struct mpi_stream *stream;
};

/* ---- options and config: the leader's, everywhere ------------------------------------------ */
static void pack_config(const struct workload_ops *w, const void *cfg, struct pack *o)
{
	pack_bytes(o, cfg, w->config_size);
	/* a config holds no pointers but its options' strings (workload.h): they travel as text */
	for (const struct opt *op = w->cmd->opts; !opt_is_end(op); op++) {
		const char *base = cfg;

		if (op->type == OPT_STR) {
			pack_str(o, *(const char *const *)(base + op->off));
		} else if (op->type == OPT_STRS) {
			const struct opt_strs *l = (const void *)(base + op->off);

			pack_u64(o, l->n);
			for (unsigned i = 0; i < l->n; i++)
				pack_str(o, l->v[i]);
		}
	}
}

static int keep_str(struct mpi_cmd *x, char *s, const char **slot)
{
	char **n;

	*slot = s;
	if (!s)
		return 0;
	if (!(n = realloc(x->strs, (x->nstrs + 1) * sizeof(*n)))) {
		free(s);
		*slot = NULL;
		return -ENOMEM;
	}
	x->strs = n;
	x->strs[x->nstrs++] = s;
	return 0;
}

static int unpack_config(struct mpi_cmd *x, void *cfg, struct unpack *u)
{
	const struct workload_ops *w = x->w;
	struct engine_opts *e;

	unpack_bytes(u, cfg, w->config_size);
	for (const struct opt *op = w->cmd->opts; !opt_is_end(op) && !u->err; op++) {
		char *base = cfg;

		if (op->type == OPT_STR) {
			if (keep_str(x, unpack_str(u), (const char **)(base + op->off)))
				return -ENOMEM;
		} else if (op->type == OPT_STRS) {
			struct opt_strs *l = (void *)(base + op->off);
			uint64_t n = unpack_u64(u);

			if (n > OPT_LIST_MAX)
				return -EPROTO;
			l->n = (unsigned)n;
			for (unsigned i = 0; i < l->n; i++)
				if (keep_str(x, unpack_str(u), &l->v[i]))
					return -ENOMEM;
		}
	}
	/* the one pointer into this binary's static data a config holds: the engine's ops. Each
	 * process has the binary at another address (ASLR), so it is found again by its name,
	 * which the leader set from the engine it selected */
	if ((e = workload_engine(w, cfg)) && !u->err) {
		e->ops = e->name ? engine_find(e->name) : NULL;
		if (e->name && !e->ops)
			return -EPROTO;
	}
	return unpack_done(u);
}

static int agree(void *arg, const struct workload_ops *w, void *cfg, int code)
{
	struct mpi_cmd *x = arg;
	struct mpi_job *j = x->j;
	void *buf = NULL;
	size_t len = 0;
	struct pack p = { 0 };
	struct opt_strs *dirs;
	int rc;

	if (j->rank == 0 && code == CMD_RUN && !x->jo.shared_dir && workload_rank_dirs(w, cfg, &dirs)) {
		fprintf(stderr, "%s: each rank works in its own DIR/rank.R, which needs -d directories "
			"(not devices); use --shared-dir to share them\n", x->prog);
		code = EXIT_USAGE;
	}
	if (mpi_job_bcast_int(j, &code))
		return EXIT_FAILED;
	if (code != CMD_RUN)
		return code;
	if (j->rank == 0) {
		/* the engine the checks selected travels by name (unpack_config), its own options
		 * (flags and numbers: engine.h) in the config's bytes */
		struct engine_opts *e = workload_engine(w, cfg);

		if (e && e->ops)
			e->name = e->ops->name;
		pack_config(w, cfg, &p);
		buf = p.buf;
		len = p.len;
	}
	rc = mpi_job_bcast_bytes(j, &buf, &len);
	if (!rc && j->rank != 0) {
		struct unpack u;

		unpack_init(&u, buf, len);
		rc = unpack_config(x, cfg, &u);
		free(buf);
	}
	pack_free(&p);
	if (rc) {
		fprintf(stderr, "%s: rank %d: the leader's configuration did not arrive whole (%s)\n",
			x->prog, j->rank, strerror(-rc));
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILED);
	}
	((struct run_opts *)((char *)cfg + w->run_opts_off))->proc = (unsigned)j->rank;
	return CMD_RUN;
}

/* ---- per-rank directories -------------------------------------------------------------------- */
/* DIR/rank.R of every -d, through the cleanup registry (each run: the registry empties between
 * runs); a missing DIR (fs_mark creates one level) is created first and removed at the end by
 * the rank that created it. report: say what failed as the run's first error. */
static int make_rank_dirs(struct mpi_cmd *x, bool report)
{
	for (unsigned i = 0; i < x->ndirs; i++) {
		struct stat st;
		int rc;

		if (!x->made_parent[i] && mkdir(x->orig[i], 0777) == 0 && stat(x->orig[i], &st) == 0) {
			x->made_parent[i] = true;
			x->parent_dev[i] = st.st_dev;
			x->parent_ino[i] = st.st_ino;
		}
		rc = cleanup_mkdir(x->rankdir[i], 0777);
		if (rc == -EEXIST && stat(x->rankdir[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = 0;         /* left by someone: used, not removed (fsbench did not make it) */
		else if (rc == -EEXIST)
			rc = -ENOTDIR;
		if (rc) {
			if (report)
				run_fail_msg(-rc, "cannot create the rank's directory '%s': %s", x->rankdir[i],
					     strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void remove_parents(struct mpi_cmd *x)
{
	for (unsigned i = 0; i < x->ndirs; i++) {
		struct stat st;

		if (!x->made_parent[i] || stat(x->orig[i], &st) || st.st_dev != x->parent_dev[i] ||
		    st.st_ino != x->parent_ino[i])
			continue;
		/* kept files (-k, --keep) keep it too */
		if (rmdir(x->orig[i]) && errno != ENOTEMPTY && errno != EEXIST)
			cleanup_report(x->orig[i], errno);
	}
}

static int rank_dirs(struct mpi_cmd *x, void *cfg)
{
	struct opt_strs *l = NULL;

	if (!x->jo.shared_dir && workload_rank_dirs(x->w, cfg, &l))
		l = NULL;

	for (unsigned i = 0; l && i < l->n; i++) {
		size_t n = strlen(l->v[i]) + 32;

		if (!(x->orig[i] = strdup(l->v[i])) || !(x->rankdir[i] = malloc(n)))
			return -ENOMEM;
		snprintf(x->rankdir[i], n, "%s/rank.%d", l->v[i], x->j->rank);
		l->v[i] = x->rankdir[i];
		x->ndirs = i + 1;
	}
	return 0;
}

/* an option of the workload's table by its long name: what the job's report shows per host
 * follows the workload's own switches (--percentiles) and sizes (--threads) */
static const void *opt_value(const struct workload_ops *w, const void *cfg, const char *lname,
			     enum opt_type type)
{
	for (const struct opt *o = w->cmd->opts; !opt_is_end(o); o++)
		if (o->lname && o->type == type && !strcmp(o->lname, lname))
			return (const char *)cfg + o->off;
	return NULL;
}

/* ---- the driver's hooks and the recording sink ------------------------------------------------ */
static int h_release(void *arg, const struct phase *p)
{
	struct mpi_cmd *x = arg;

	return mpi_job_release(x->j, p, x->run, x->phase++);
}

static int h_prepare_run(void *arg, unsigned run)
{
	struct mpi_cmd *x = arg;

	x->run = run;
	x->phase = 0;
	return make_rank_dirs(x, true);
}

/* a complete phase record of this rank on its way to rank 0 (its spool, on rank 0) */
static void phase_send(struct mpi_cmd *x, const struct job_phase *rec)
{
	struct pack o = { 0 };
	int rc = -ENOMEM;

	if (!x->punits)
		return;
	job_phase_pack(rec, &o);
	if (!o.err)
		rc = mpi_units_add(x->punits, 0, o.buf, o.len);
	pack_free(&o);
	if (rc == -ENOMEM)
		run_fail_msg(ENOMEM, "out of memory");
	else if (rc)
		run_fail_msg(-rc, "cannot pass a phase's record to rank 0");
}

/* rank 0: rank r's phase i back from the spool (job_phase_src) */
static int phase_get(void *arg, unsigned rank, unsigned i, struct job_phase *p)
{
	struct mpi_cmd *x = arg;
	struct unpack u;
	void *buf;
	size_t len;
	int rc;

	if ((rc = mpi_units_get(x->punits, (int)rank, 0, i, &buf, &len)))
		return rc;
	unpack_init(&u, buf, len);
	if (!(rc = job_phase_unpack(&u, p)) && (rc = unpack_done(&u)))
		job_phase_clear(p);
	free(buf);
	return rc ? -EPROTO : 0;
}

static void h_phase_end(void *arg, const struct phase *p, const struct observe_phase *obs)
{
	struct mpi_cmd *x = arg;
	struct job_phase rec;

	if (mpi_job_phase_end(x->j, p, obs, &rec)) {
		phase_send(x, &rec);
		job_phase_clear(&rec);
	}
	mpi_stream_phase_end(x->stream, x->run, x->phase - 1, p);
}

static void s_sample(void *arg, unsigned run, const struct phase *p, const struct sample *smp)
{
	struct mpi_cmd *x = arg;

	mpi_stream_sample(x->stream, run, x->phase - 1, p, smp);
}

static void s_run_begin(void *arg, unsigned run, long long started)
{
	struct mpi_cmd *x = arg;
	long long *n;

	if (run < x->nstarted)
		return;
	if (!(n = realloc(x->started, (run + 1) * sizeof(*n))))
		return;
	x->started = n;
	while (x->nstarted <= run)
		x->started[x->nstarted++] = started;
}

static void s_unit(void *arg, unsigned run, const void *unit)
{
	struct mpi_cmd *x = arg;
	struct pack p = { 0 };
	int rc;

	if (!x->units)
		return;
	if (x->w->pack_unit(unit, x->j->clock_offset_ns, &p))
		rc = -ENOMEM;
	else
		rc = mpi_units_add(x->units, run, p.buf, p.len);
	pack_free(&p);
	if (rc == -ENOMEM)
		run_fail_msg(ENOMEM, "out of memory");
	else if (rc)
		run_fail_msg(-rc, "cannot pass an iteration's record to rank 0");
}

static void s_note(void *arg, const char *line)
{
	struct mpi_cmd *x = arg;

	if (x->j->rank == 0 && x->sink.note)
		x->sink.note(x->sink.arg, line);
	else
		fprintf(stderr, "rank %d: %s\n", x->j->rank, line);
}

static void prepare(void *arg, struct driver *d, void *cfg)
{
	struct mpi_cmd *x = arg;

	x->opts = d->opts;
	x->cfg = cfg;
	x->sink = d->sink;
	d->sink = (struct driver_sink){ .run_begin = s_run_begin, .unit = s_unit, .note = s_note,
					.progress = x->j->rank == 0 ? x->sink.progress : NULL, .arg = x };
	d->progress = d->progress && x->j->rank == 0;
	/* --stream: rank 0 opened the file (its sink writes), every rank sends it its intervals */
	if (x->opts->stream && (x->j->rank != 0 || x->sink.sample)) {
		if (!(x->stream = mpi_stream_start(x->j, x->scomm, &x->sink)))
			run_fail_msg(ENOMEM, "out of memory");
		d->sink.sample = s_sample;
	}
	d->hooks = (struct driver_hooks){ .release = h_release, .prepare_run = h_prepare_run,
					  .phase_end = h_phase_end, .arg = x };
	d->stonewall_ns = x->jo.stonewall_ns;
	/* one rank per host reads diskstats, /proc/stat, vmstat: the others' would be the same */
	d->no_kernel_view = !x->j->host_leader;
	if (rank_dirs(x, cfg))
		run_fail_msg(ENOMEM, "out of memory");
	if (x->w->pack_unit && x->w->unit_size &&
	    !(x->units = mpi_units_start(x->j->rank, x->j->size, x->ucomm,
					 x->opts->json ? x->opts->json : x->opts->csv)))
		run_fail_msg(errno, "cannot make a spool file for the ranks' iterations");
	if (!(x->punits = mpi_units_start(x->j->rank, x->j->size, x->pcomm,
					  x->opts->json ? x->opts->json : x->opts->csv)))
		run_fail_msg(errno, "cannot make a spool file for the ranks' phases");
	/* now, so that the kernel view finds them; each run makes them again (h_prepare_run) */
	make_rank_dirs(x, false);
	if (mpi_job_watch_start(x->j, x->jo.timeout_ns)) {
		fprintf(stderr, "%s: rank %d: cannot start the watch thread\n", x->prog, x->j->rank);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILED);
	}
}

/* ---- results to rank 0 ------------------------------------------------------------------------- */
/* why this rank's run ended, for ranks still waiting for it at a barrier */
static void left_why(const struct workload_ops *w, const struct driver_result *res, char *why,
		     size_t len)
{
	const struct run_head *h = res->nruns ? driver_result_run(w, res, res->nruns - 1) : NULL;

	why[0] = '\0';
	if (res->failed)
		run_error_format(&res->error, why, len);
	else if (res->signal)
		snprintf(why, len, "interrupted by SIG%s", sigabbrev_np(res->signal));
	else if (h && h->end == RUN_END_NOSPACE)
		snprintf(why, len, "not enough free space: %.400s", h->end_detail);
	else if (h && h->end == RUN_END_FULL)
		snprintf(why, len, "the filesystem is full: %.400s", h->end_detail);
}

/* a phase released and never ended (a stop) is still in this rank's record: it follows the
 * others to rank 0 */
static void phases_left(struct mpi_cmd *x)
{
	struct mpi_job *j = x->j;

	pthread_mutex_lock(&j->mu);
	for (unsigned i = 0; i < j->me.nphases; i++)
		phase_send(x, &j->me.phases[i]);
	job_rank_free_phases(&j->me);
	pthread_mutex_unlock(&j->mu);
}

/* the last run's head (NULL for none) */
static struct run_head *last_head(const struct workload_ops *w, const struct driver_result *res)
{
	return res->nruns ? driver_result_run(w, res, res->nruns - 1) : NULL;
}

/* Another rank found the filesystem full and this rank's fill ended at a barrier: no error,
 * the fill's end, as the rank that found it full ends its own (fs_mark -F). */
static void full_end(struct mpi_cmd *x, struct driver_result *res)
{
	struct run_head *h = last_head(x->w, res);
	char text[256];

	if (!res->failed || !h || !mpi_job_full_stopped(x->j, text, sizeof(text)))
		return;
	res->failed = false;
	memset(&res->error, 0, sizeof(res->error));
	h->end = RUN_END_FULL;
	h->end_err = ENOSPC;
	h->complete = true;
	snprintf(h->end_detail, sizeof(h->end_detail), "%s", text);
	x->j->me.failed = false;
	x->j->me.echo = false;
}

/* this rank's run ended: rank 0 told, how noted (a fill ended by another rank's full
 * filesystem is its own end, not an error) */
static void run_ended(struct mpi_cmd *x, struct driver_result *res)
{
	char why[512];

	left_why(x->w, res, why, sizeof(why));
	mpi_job_left(x->j, why, last_head(x->w, res) && last_head(x->w, res)->end == RUN_END_FULL);
	mpi_job_note_end(x->j);
	full_end(x, res);
	x->full_told = !res->failed && mpi_job_full_stopped(x->j, why, sizeof(why));
}

static void build_msg(struct mpi_cmd *x, const struct driver_result *res, struct pack *o)
{
	const struct workload_ops *w = x->w;
	struct job_rank *me = &x->j->me;

	me->nruns = res->nruns;
	me->nostart = res->nostart;
	me->cleanup_failed = res->cleanup_failed;
	me->signal = res->signal;
	if (!x->full_told && last_head(w, res) && last_head(w, res)->end == RUN_END_FULL) {
		me->full = true;
		me->full_run = res->nruns - 1;
		me->full_units = mpi_units_count(x->units, res->nruns - 1);
		snprintf(me->full_detail, sizeof(me->full_detail), "%s", last_head(w, res)->end_detail);
	}
	if (res->failed) {
		me->error = res->error;
		snprintf(me->syscall, sizeof(me->syscall), "%s", res->error.syscall ? res->error.syscall : "");
		me->error.syscall = res->error.syscall ? me->syscall : NULL;
	}
	job_rank_pack(me, o);
	pack_u64(o, res->nruns);
	for (unsigned i = 0; i < res->nruns; i++) {
		struct pack r = { 0 };
		if (w->pack(driver_result_run(w, res, i), x->j->clock_offset_ns, &r))
			o->err = -ENOMEM;
		pack_u64(o, r.len);
		pack_bytes(o, r.buf, r.len);
		pack_free(&r);
		/* the units went to rank 0 as they completed: how many */
		pack_u64(o, mpi_units_count(x->units, i));
	}
	pack_u64(o, mpi_units_count(x->punits, 0));
}

/* reads a rank's message: its record into rk, where its results and units are into ix */
static int read_msg(const void *buf, size_t len, struct job_rank *rk, struct msg_index *ix)
{
	struct unpack u;
	uint64_t n;
	int rc;

	memset(ix, 0, sizeof(*ix));
	unpack_init(&u, buf, len);
	if ((rc = job_rank_unpack(rk, &u)))
		return rc;
	n = unpack_u64(&u);
	if (u.err || n > 100000)
		return -EPROTO;
	ix->nruns = (unsigned)n;
	ix->res = calloc(n + 1, sizeof(*ix->res));
	ix->nunits = calloc(n + 1, sizeof(*ix->nunits));
	if (!ix->res || !ix->nunits)
		return -ENOMEM;
	for (unsigned i = 0; i < ix->nruns; i++) {
		uint64_t l = unpack_u64(&u), m;

		if (u.err || l > len - u.off)
			return -EPROTO;
		ix->res[i].off = u.off;
		ix->res[i].len = (size_t)l;
		u.off += (size_t)l;
		m = unpack_u64(&u);
		if (u.err || m > UINT32_MAX)
			return -EPROTO;
		ix->nunits[i] = (unsigned)m;
	}
	n = unpack_u64(&u);
	if (u.err || n > UINT32_MAX)
		return -EPROTO;
	ix->nphases = (unsigned)n;
	return unpack_done(&u);
}

static void index_free(struct msg_index *ix)
{
	free(ix->res);
	free(ix->nunits);
	memset(ix, 0, sizeof(*ix));
}

/* the job's first error: the earliest own error of a rank, or a stop rank 0 decided (a dead
 * rank, a rank gone before a barrier) when that came first or its rank could not tell */
static void job_error(struct mpi_cmd *x, struct driver_result *res)
{
	struct job *jb = &x->job;
	const struct job_rank *best = NULL, *any = NULL;
	const struct mpi_stop *stop = mpi_job_first_stop(x->j);

	for (unsigned r = 0; r < jb->nranks; r++) {
		const struct job_rank *rk = &jb->ranks[r];

		if (!rk->delivered || !rk->failed)
			continue;
		if (!any)
			any = rk;
		if (!rk->echo && (!best || rk->error_ns < best->error_ns))
			best = rk;
	}
	if (stop && (stop->origin < 0 || (unsigned)stop->origin >= jb->nranks ||
		     !jb->ranks[stop->origin].delivered || !jb->ranks[stop->origin].failed ||
		     jb->ranks[stop->origin].echo) && (!best || stop->t_ns < best->error_ns)) {
		/* a stop with no error of its origin's behind it: its text names the rank */
		res->failed = true;
		res->nostart = false;
		memset(&res->error, 0, sizeof(res->error));
		res->error.err = EIO;
		res->error.offset = -1;
		snprintf(res->error.detail, sizeof(res->error.detail), "%.*s",
			 (int)sizeof(res->error.detail) - 1, stop->text);
		res->origin[0] = '\0';
		jb->error_rank = stop->origin;
		snprintf(jb->error_text, sizeof(jb->error_text), "%s", stop->text);
		return;
	}
	if (!best)
		best = any;
	if (!best) {
		res->failed = false;
		jb->error_rank = -1;
		return;
	}
	res->failed = true;
	res->error = best->error;
	res->nostart = best->nostart;
	snprintf(res->origin, sizeof(res->origin), "rank %u on host %s: ", best->rank,
		 jb->hosts[best->host].name);
	jb->error_rank = (int)best->rank;
	run_error_format(&best->error, jb->error_text, sizeof(jb->error_text));
}

static void job_hosts(struct mpi_cmd *x)
{
	struct mpi_job *j = x->j;
	struct job *jb = &x->job;

	jb->nhosts = j->nhosts;
	for (int r = 0; r < j->size; r++) {
		struct job_host *h = &jb->hosts[j->rank_host[r] < jb->nhosts ? j->rank_host[r] : 0];

		if (!h->nranks) {
			memcpy(h->name, j->host_names[r], sizeof(h->name));
			h->first_rank = (unsigned)r;
		}
		h->nranks++;
	}
}

/* the job's runs from every rank's, and each run's units merged and handed to the command's
 * sink in order, as one process would have */
static int merge_runs(struct mpi_cmd *x, void **msgs, struct msg_index *ix, struct driver_result *res)
{
	const struct workload_ops *w = x->w;
	struct job *jb = &x->job;
	unsigned nruns = 0;
	void *runs;

	for (unsigned r = 0; r < jb->nranks; r++)
		if (jb->ranks[r].delivered && ix[r].nruns > nruns)
			nruns = ix[r].nruns;
	if (!(runs = calloc(nruns ? nruns : 1, w->result_size)))
		return -ENOMEM;
	for (unsigned i = 0; i < nruns; i++) {
		void *dst = (char *)runs + (size_t)i * w->result_size;
		bool first = true;

		for (unsigned r = 0; r < jb->nranks; r++) {
			void *tmp;
			struct unpack u;

			if (!jb->ranks[r].delivered || ix[r].nruns <= i || !(tmp = calloc(1, w->result_size)))
				continue;
			unpack_init(&u, (char *)msgs[r] + ix[r].res[i].off, ix[r].res[i].len);
			if (!w->unpack(tmp, &u)) {
				if (first) {
					memcpy(dst, tmp, w->result_size);
					first = false;
					free(tmp);
					continue;
				}
				if (w->merge(dst, tmp))
					fprintf(stderr, "%s: rank %u's run %u does not merge with the others' "
						"(another configuration?); left out\n", x->prog, r, i + 1);
			}
			if (w->result_free)
				w->result_free(tmp);
			free(tmp);
		}
	}
	/* the leader's own runs give way to the job's */
	for (unsigned i = 0; i < res->nruns; i++) {
		if (w->run_done)
			w->run_done(driver_result_run(w, res, i));
		if (w->result_free)
			w->result_free(driver_result_run(w, res, i));
	}
	free(res->runs);
	res->runs = runs;
	res->nruns = nruns;
	return 0;
}

/* unit k of run i merged over the ranks that delivered it (NULL: none), for replay. A unit
 * can be large (fs_mark's iteration with its histograms: ~0.5 MiB), so one spare buffer is
 * reused for every rank's copy: a calloc and free each made the heap fault its pages in again,
 * and ~40 % of rank 0's CPU in a 1,000-iteration fill went to that. */
static void *unit_merged(struct mpi_cmd *x, const struct msg_index *ix, unsigned i, unsigned k, void **spare)
{
	const struct workload_ops *w = x->w;
	const struct job *jb = &x->job;
	void *acc = NULL;

	for (unsigned r = 0; r < jb->nranks; r++) {
		struct unpack u;
		void *tmp, *buf;
		size_t len;
		bool ok;

		if (!jb->ranks[r].delivered || ix[r].nruns <= i || ix[r].nunits[i] <= k ||
		    mpi_units_get(x->units, (int)r, i, k, &buf, &len))
			continue;
		if (!*spare && !(*spare = malloc(w->unit_size))) {
			free(buf);
			continue;
		}
		tmp = *spare;
		memset(tmp, 0, w->unit_size);
		unpack_init(&u, buf, len);
		ok = !w->unpack_unit(tmp, &u);
		free(buf);
		if (ok && !acc) {
			acc = tmp;
			*spare = NULL;
			continue;
		}
		if (ok)
			w->merge_unit(acc, tmp);
		w->unit_free(tmp);
	}
	return acc;
}

static void replay(struct mpi_cmd *x, struct msg_index *ix, const struct driver_result *res)
{
	const struct workload_ops *w = x->w;
	struct job *jb = &x->job;
	const struct driver_sink *s = &x->sink;
	FILE *text = outfile_is_stdout(x->opts->json) ? NULL : stdout;
	const bool *percentiles = opt_value(w, x->cfg, "percentiles", OPT_FLAG);
	void *spare = NULL;

	for (unsigned i = 0; i < res->nruns; i++) {
		const struct run_head *h = driver_result_run(w, res, i);
		unsigned nu = 0;

		if (s->run_begin)
			s->run_begin(s->arg, i, i < x->nstarted ? x->started[i] : h->started_unix_s);
		for (unsigned r = 0; r < jb->nranks; r++)
			if (jb->ranks[r].delivered && ix[r].nruns > i && ix[r].nunits[i] > nu)
				nu = ix[r].nunits[i];
		for (unsigned k = 0; k < nu && w->unit_size; k++) {
			void *acc = unit_merged(x, ix, i, k, &spare);

			if (acc && s->unit)
				s->unit(s->arg, i, acc);
			if (acc) {
				w->unit_free(acc);
				if (spare)
					free(acc);
				else
					spare = acc;
			}
		}
		if (s->run_end)
			s->run_end(s->arg, i, h);
		if (text)
			job_text_run(text, jb, i, x->opts->sysstats, percentiles && *percentiles);
	}
	free(spare);
	if (text)
		fflush(text);
}

/* the units still in flight (each delivered rank said how many it sent) */
static void collect_units(struct mpi_cmd *x, const struct msg_index *ix)
{
	const struct job *jb = &x->job;
	const unsigned **count = calloc(jb->nranks, sizeof(*count));
	unsigned *nruns = calloc(jb->nranks, sizeof(*nruns));
	int rc = -ENOMEM;

	if (!x->units)
		goto out;
	for (unsigned r = 0; count && nruns && r < jb->nranks; r++)
		if (jb->ranks[r].delivered) {
			count[r] = ix[r].nunits;
			nruns[r] = ix[r].nruns;
		}
	/* they were sent before the results, which are in: 10 s of silence is a lost rank */
	if (count && nruns)
		rc = mpi_units_collect(x->units, count, nruns, 10000000000ull);
	if (rc)
		fprintf(stderr, "%s: iterations of some ranks are missing (%s)\n", x->prog, strerror(-rc));
out:
	free(count);
	free(nruns);
}

/* the phase records still in flight */
static void collect_phases(struct mpi_cmd *x, const struct msg_index *ix)
{
	const struct job *jb = &x->job;
	const unsigned **count = calloc(jb->nranks, sizeof(*count));
	unsigned *one = calloc(jb->nranks, sizeof(*one));
	int rc = -ENOMEM;

	if (x->punits && count && one) {
		for (unsigned r = 0; r < jb->nranks; r++)
			if (jb->ranks[r].delivered) {
				count[r] = &ix[r].nphases;
				one[r] = 1;
			}
		rc = mpi_units_collect(x->punits, count, one, 10000000000ull);
	}
	if (rc)
		fprintf(stderr, "%s: phase records of some ranks are missing (%s)\n", x->prog, strerror(-rc));
	free(count);
	free(one);
}

/* rank 0: the job's record, before the ranks' are read into it */
static int job_begin(struct mpi_cmd *x)
{
	struct mpi_job *j = x->j;
	struct job *jb = &x->job;
	const uint64_t *t = opt_value(x->w, x->cfg, "threads", OPT_UINT);

	memset(jb, 0, sizeof(*jb));
	jb->nranks = (unsigned)j->size;
	jb->ranks = calloc(jb->nranks, sizeof(*jb->ranks));
	jb->hosts = calloc(j->nhosts ? j->nhosts : 1, sizeof(*jb->hosts));
	if (!jb->ranks || !jb->hosts) {
		free(jb->ranks);
		free(jb->hosts);
		memset(jb, 0, sizeof(*jb));
		return -ENOMEM;
	}
	x->have_job = true;
	job_hosts(x);
	jb->threads_per_rank = t ? *t : 0;
	jb->shared_dir = x->jo.shared_dir;
	jb->stonewall_ns = x->jo.stonewall_ns;
	jb->timeout_ns = x->jo.timeout_ns;
	jb->clock_rounds = j->clock_rounds;
	return 0;
}

static int gather(void *arg, struct driver *d, struct driver_result *res)
{
	struct mpi_cmd *x = arg;
	struct mpi_job *j = x->j;
	struct job *jb = &x->job;
	struct msg_index *ix = NULL;
	struct pack msg = { 0 };
	void **msgs = NULL;
	size_t *lens = NULL;
	int rc = 0;

	(void)d;
	run_ended(x, res);
	/* the others' FINAL before their results: rank 0 has every line once it has those */
	if (j->rank != 0)
		mpi_stream_end(x->stream);
	phases_left(x);
	build_msg(x, res, &msg);
	/* packed: the records travel in msg */
	pthread_mutex_lock(&j->mu);
	job_rank_free_records(&j->me);
	pthread_mutex_unlock(&j->mu);
	if (msg.err) {
		/* an empty record still tells rank 0 this rank is done */
		pack_free(&msg);
		job_rank_pack(&(struct job_rank){ .rank = (unsigned)j->rank, .failed = true,
						  .error = { .err = ENOMEM, .offset = -1,
							     .detail = "out of memory" } }, &msg);
		pack_u64(&msg, 0);
	}
	rc = mpi_job_gather(j, msg.buf, msg.len, &msgs, &lens);
	pack_free(&msg);
	if (j->rank == 0)
		mpi_stream_end(x->stream);
	if (j->rank != 0 || rc)
		goto out;

	ix = calloc((size_t)j->size, sizeof(*ix));
	if (!ix || (rc = job_begin(x))) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned r = 0; r < jb->nranks; r++) {
		struct job_rank *rk = &jb->ranks[r];

		if (msgs[r] && !read_msg(msgs[r], lens[r], rk, &ix[r])) {
			rk->delivered = true;
			/* its phases are in the spool, read back as the reports need them */
			job_rank_free_phases(rk);
			rk->nphases = ix[r].nphases;
			rk->src = &x->psrc;
		} else {
			job_rank_free(rk);
			index_free(&ix[r]);
			rk->delivered = false;
		}
		rk->rank = r;
		rk->host = j->rank_host[r];
		rk->pid = j->rank_pid[r];
		rk->clock_offset_ns = j->offsets[r];
		rk->clock_error_ns = j->errors[r];
		if (!rk->delivered) {
			size_t n = strlen(jb->missing);

			snprintf(jb->missing + n, sizeof(jb->missing) - n, "%s%u%s", n ? ", " : "ranks ", r,
				 mpi_job_rank_dead(j, (int)r) ? " (dead)" : "");
		}
		res->cleanup_failed |= rk->delivered && rk->cleanup_failed;
		if (!res->signal && rk->delivered)
			res->signal = rk->signal;
	}
	if ((rc = merge_runs(x, msgs, ix, res)))
		goto out;
	/* everything in the messages is unpacked or merged by now */
	for (unsigned r = 0; r < jb->nranks; r++) {
		free(msgs[r]);
		msgs[r] = NULL;
	}
	job_error(x, res);
	collect_units(x, ix);
	collect_phases(x, ix);
	replay(x, ix, res);
	if (jb->missing[0])
		fprintf(stderr, "%s: no result from %s: the job's figures leave them out\n", x->prog,
			jb->missing);
out:
	for (int r = 0; msgs && r < j->size; r++) {
		free(msgs[r]);
		if (ix)
			index_free(&ix[r]);
	}
	free(msgs);
	free(lens);
	free(ix);
	return rc;
}

static void json(void *arg, struct json_t *root, struct json_spool *sp)
{
	struct mpi_cmd *x = arg;

	/* the document is built for --csv too, which reads only the workload's figures: the
	 * job's object (every phase of every rank and host) only for --json */
	if (x->have_job && x->opts->json)
		json_object_set_new(root, "mpi", json_job(&x->job, sp));
}

static int finish(void *arg, int code)
{
	struct mpi_cmd *x = arg;

	if (x->ended)
		return x->code;
	x->ended = true;
	code = mpi_job_exit_code(x->j, code);
	mpi_stream_free(x->stream);
	x->stream = NULL;
	MPI_Comm_free(&x->scomm);
	mpi_units_free(x->units);
	x->units = NULL;
	MPI_Comm_free(&x->ucomm);
	mpi_units_free(x->punits);
	x->punits = NULL;
	MPI_Comm_free(&x->pcomm);
	/* every rank's directories are gone by now: the -d made for the job can go */
	remove_parents(x);
	x->code = mpi_job_end(x->j, code);
	return x->code;
}

/* ---- the command --------------------------------------------------------------------------- */
int mpi_cmd_run(struct mpi_job *j, const struct workload_ops *w, int argc, char **argv,
		const char *prog)
{
	struct mpi_cmd *x = calloc(1, sizeof(*x));
	char **jargv = calloc((size_t)argc + 1, sizeof(*jargv));
	char err[512];
	int jargc = 0, code = CMD_RUN;
	void *buf;
	size_t len = sizeof(x->jo);

	if (!x || !jargv) {
		fprintf(stderr, "%s: out of memory\n", prog);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILED);
	}
	x->j = j;
	x->w = w;
	x->prog = prog;
	x->psrc = (struct job_phase_src){ .get = phase_get, .arg = x };
	job_opts_defaults(&x->jo);
	job_opts_split(&argc, argv, &jargc, jargv);
	/* the job's options: rank 0 decides, as for the workload's */
	if (j->rank == 0 && opt_parse(&job_opt_cmd, jargc, jargv, &x->jo, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		code = EXIT_USAGE;
	}
	free(jargv);
	mpi_job_bcast_int(j, &code);
	buf = &x->jo;
	if (code == CMD_RUN)
		mpi_job_bcast_bytes(j, &buf, &len);
	if (buf != &x->jo) {
		if (len == sizeof(x->jo))
			memcpy(&x->jo, buf, sizeof(x->jo));
		free(buf);
	}
	if (code != CMD_RUN) {
		code = mpi_job_end(j, code);
		free(x);
		return code;
	}
	x->ops = (struct cmd_job){ .leader = j->rank == 0, .opts = &job_opt_cmd,
				   .opts_defaults = &x->jo, .proc = (unsigned)j->rank,
				   .nprocs = (unsigned)j->size, .agree = agree, .prepare = prepare,
				   .gather = gather, .json = json, .finish = finish, .arg = x };
	/* names unique across the job's processes come from one seed, rank 0's */
	x->ops.job_salt = clock_ns() ^ ((uint64_t)getpid() << 32) ^ 0x6a6f62;
	mpi_job_bcast_u64(j, &x->ops.job_salt);
	/* --stream's messages on a communicator of their own (collective: every rank is here) */
	if (MPI_Comm_dup(MPI_COMM_WORLD, &x->scomm) != MPI_SUCCESS ||
	    MPI_Comm_dup(MPI_COMM_WORLD, &x->ucomm) != MPI_SUCCESS ||
	    MPI_Comm_dup(MPI_COMM_WORLD, &x->pcomm) != MPI_SUCCESS) {
		fprintf(stderr, "%s: rank %d: MPI_Comm_dup failed\n", prog, j->rank);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAILED);
	}
	code = cmd_workload_job(w, argc, argv, prog, &x->ops);
	if (!x->ended)
		code = finish(x, code);
	for (unsigned i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(x->strs);
	for (unsigned i = 0; i < x->ndirs; i++) {
		free(x->orig[i]);
		free(x->rankdir[i]);
	}
	free(x->started);
	if (x->have_job)
		job_free(&x->job);
	free(x);
	return code;
}
