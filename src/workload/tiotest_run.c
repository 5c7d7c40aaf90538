/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's run: the four phases, their figures and warnings, the files' layout, the result. */
#include "workload/tiotest_int.h"

#include "core/phase_limit.h"

static void lat_figs(const struct opstat *s, double *mean, double *p50, double *p90, double *p99,
		     double *p999, double *max, double *over2, double *over10)
{
	const struct hist *h = &s->lat;
	double n = s->ops ? (double)s->ops : 1.0;

	*mean = hist_mean(h);
	if (p50) {
		*p50 = (double)hist_percentile(h, 50);
		*p90 = (double)hist_percentile(h, 90);
	}
	*p99 = (double)hist_percentile(h, 99);
	if (p999)
		*p999 = (double)hist_percentile(h, 99.9);
	*max = s->ops ? (double)h->max : 0.0;
	*over2 = 100.0 * (double)s->over_2s / n;
	*over10 = 100.0 * (double)s->over_10s / n;
}

static void layout_figures(const struct tio_layout *l, double *f)
{
	const bool ok = l->measured && !l->absent;

	f[TIO_FIG_LAYOUT_EXTENTS_PER_MIB] = ok ? layout_extents_per_mib(&l->sum) : NAN;
	f[TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES] = ok ? layout_mean_extent_bytes(&l->sum) : NAN;
	f[TIO_FIG_LAYOUT_DISCONT_PER_MIB] = ok ? layout_discontinuities_per_mib(&l->sum) : NAN;
}

static void phase_figures(struct tio_phase_result *pr)
{
	double wall_s = (double)pr->wall_ns / 1e9;
	double *f = pr->fig;

	f[TIO_FIG_RATE] = wall_s > 0 ? (double)pr->st.bytes / 1048576.0 / wall_s : 0;
	f[TIO_FIG_IOPS] = wall_s > 0 ? (double)pr->st.ops / wall_s : 0;
	f[TIO_FIG_USR_PCT] = wall_s > 0 ? 100.0 * pr->usr_s / wall_s : 0;
	f[TIO_FIG_SYS_PCT] = wall_s > 0 ? 100.0 * pr->sys_s / wall_s : 0;
	lat_figs(&pr->st, &f[TIO_FIG_LAT_MEAN], &f[TIO_FIG_LAT_P50], &f[TIO_FIG_LAT_P90],
		 &f[TIO_FIG_LAT_P99], &f[TIO_FIG_LAT_P999], &f[TIO_FIG_LAT_MAX], &f[TIO_FIG_OVER_2S_PCT],
		 &f[TIO_FIG_OVER_10S_PCT]);
	layout_figures(&pr->layout, f);
	/* from the threads (every process's, after a merge), so a merged phase recomputes it */
	pr->cost = (struct cost_raw){ .ops = pr->st.ops };
	for (unsigned i = 0; i < pr->nthreads; i++) {
		const struct tio_thread_result *t = &pr->threads[i];

		cost_add_worker(&pr->cost, t->usr_s, t->sys_s, t->end_ns - t->start_ns, t->nvcsw, t->nivcsw);
	}
	if (pr->obs.taken)
		cost_add_kstat(&pr->cost, &pr->obs.k);
	cost_figures(&pr->cost, &f[TIO_FIG_COST]);
}

void tio_result_figures(struct tio_result *r)
{
	double *f = r->fig;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			phase_figures(&r->phase[p]);

	lat_figs(&r->total, &f[TIO_RFIG_LAT_MEAN], NULL, NULL, &f[TIO_RFIG_LAT_P99], NULL,
		 &f[TIO_RFIG_LAT_MAX], &f[TIO_RFIG_OVER_2S_PCT], &f[TIO_RFIG_OVER_10S_PCT]);
}

static void collect(const struct tio_config *c, struct phase *ph, struct tio_worker *tw,
		    struct tio_phase_result *pr, struct tio_thread *th)
{
	pr->start_ns = ph->start_ns;
	pr->nthreads = (unsigned)c->threads;
	pr->wall_ns = ph->end_ns - phase_measured_start(ph);   /* after --ramp */
	pr->time_limited = ph->stonewalled;
	pr->ramp_ns = ph->ramp_ns;
	pr->first_done_ns = ph->first_done_ns - ph->start_ns;
	pr->first_done_ops = ph->first_done_ops;
	pr->first_done_bytes = ph->first_done_bytes;
	pr->last_done_ns = ph->end_ns - ph->start_ns;
	pr->usr_s = ph->usr_s;
	pr->sys_s = ph->sys_s;
	pr->samples = ph->samples;
	pr->nsamples = ph->nsamples;
	pr->sample_interval_ns = ph->sample_interval_ns;
	pr->complete = !run_stopping();
	pr->has_workers = tio_queued(c) && c->eng.ops->workers;
	pr->has_submit = tio_queued(c) && c->eng.ops->submit_stats;
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread_result *t = &pr->threads[i];
		struct worker *w = &ph->workers[i];

		opstat_merge(&pr->st, &tw[i].st);
		snprintf(t->path, sizeof(t->path), "%s", th[i].path);
		t->ops = tw[i].st.ops;
		t->bytes = tw[i].st.bytes;
		t->start_ns = w->started ? w->start_ns - ph->start_ns : 0;
		t->end_ns = w->started ? w->end_ns - ph->start_ns : 0;
		if (t->start_ns < ph->ramp_ns && t->end_ns > ph->ramp_ns)
			t->start_ns = ph->ramp_ns;   /* its ops after the ramp, over its time after it */
		t->flush_ns = tw[i].flush_ns;
		pr->wq.threads += tw[i].wq.threads;
		pr->wq.cpu_s += tw[i].wq.cpu_s;
		/* the context lives across phases: taken, and reset for the next one */
		if (th[i].ctx.submit) {
			engine_submit_stats_merge(&pr->sub, th[i].ctx.submit);
			engine_submit_stats_init(th[i].ctx.submit);
		}
		t->usr_s = w->usr_s;
		t->sys_s = w->sys_s;
		t->nvcsw = w->nvcsw;
		t->nivcsw = w->nivcsw;
	}
	phase_figures(pr);
}

/* the honesty warnings (core/warn.h) from this phase's figures */
static void phase_warn(struct driver *d, const struct tio_config *c, struct tio_phase_result *pr,
		       int p)
{
	/* the phases as the warnings on stderr name them */
	static const char *const words[TIO_NPHASES] = { "write", "random write", "read", "random read" };
	struct warn_phase w = { .name = tio_phase_name[p], .direct = c->direct, .sync = c->sync,
				.data_set_bytes = c->threads * c->blocks * c->block_bytes,
				.threads = (unsigned)c->threads, .wall_ns = pr->wall_ns,
				.first_done_ns = pr->first_done_ns, .last_done_ns = pr->last_done_ns,
				.sys_s = 0, .cut_short = !pr->complete };

	/* the workers' own system time ("near 100 % of one core per thread"), not the process's,
	 * which also holds the main and reporter threads */
	for (unsigned i = 0; i < c->threads; i++)
		w.sys_s += pr->threads[i].sys_s;
	if (phase_writes[p])
		w.write_bytes = pr->st.bytes;
	else
		w.read_bytes = pr->st.bytes;
	/* a phase cut short by an error or a signal: its window is not the phase's, its warnings
	 * would be noise; they are computed (for the JSON) but not tallied */
	if (pr->complete)
		driver_warn(d, &pr->obs, &w, words[p], 0);
}

static uint64_t phase_seed(uint64_t seed, unsigned thread, unsigned phase)
{
	/* distinct per (thread, phase), reproducible from --seed */
	uint64_t s = seed ^ ((uint64_t)thread << 32) ^ ((uint64_t)phase << 56);

	return rng_next(&s);
}

/* ---- the test files' layout (struct tio_layout): outside every phase window ----------------- */
/* Read-only descriptors of the test files, opened once right after setup, while each name is
 * certainly the file fsbench just created (dev, ino checked): FIEMAP needs an open file, and the
 * phases keep their own opens exactly as tiotest does them. -1 where none (-R, a failed open). */
static int *layout_open(const struct tio_config *c, const struct tio_thread *th)
{
	int *fd = malloc(c->threads * sizeof(int));

	for (unsigned i = 0; fd && i < c->threads; i++) {
		struct stat st;

		fd[i] = c->raw ? -1 : open(th[i].path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd[i] >= 0 && (fstat(fd[i], &st) < 0 || st.st_dev != th[i].dev || st.st_ino != th[i].ino)) {
			close(fd[i]);
			fd[i] = -1;
		}
	}
	return fd;
}

static void layout_close(const struct tio_config *c, int *fd)
{
	for (unsigned i = 0; fd && i < c->threads; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
}

/* every test file's layout now, into the phase that just ended; absent with a reason, never
 * zeros, when there is none to be had */
static void layout_take(const struct tio_config *c, const int *fd, const struct tio_thread *th,
			struct tio_phase_result *pr)
{
	struct tio_layout *l = &pr->layout;

	l->measured = true;
	memset(&l->sum, 0, sizeof(l->sum));
	if (c->raw) {
		l->absent = true;
		snprintf(l->why, sizeof(l->why), "-R: the threads' regions are ranges of a raw device, not files");
		goto out;
	}
	free(l->files);
	l->files = calloc(c->threads, sizeof(*l->files));
	for (unsigned i = 0; i < c->threads; i++) {
		int rc = !l->files ? -ENOMEM : fd && fd[i] >= 0 ? layout_fd(fd[i], &l->files[i]) : -EBADF;

		if (rc) {
			l->absent = true;
			if (rc == -EBADF)
				snprintf(l->why, sizeof(l->why), "the test file '%.80s' could not be opened read-only",
					 th[i].path);
			else if (rc == -ENOMEM)
				snprintf(l->why, sizeof(l->why), "out of memory");
			else
				layout_absent_reason(fd[i], rc, l->why, sizeof(l->why));
			free(l->files);
			l->files = NULL;
			memset(&l->sum, 0, sizeof(l->sum));
			break;
		}
		layout_sum_add(&l->sum, &l->files[i]);
	}
out:
	layout_figures(l, pr->fig);
}

/* with -k, the last phase that ran also gets the layout its files have at the end (a read phase
 * after skipped writes reads what setup and earlier writes left) */
static void layout_last(const struct tio_config *c, const int *fd, const struct tio_thread *th,
			struct tio_result *r)
{
	int last = -1;

	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			last = p;
	if (c->skip.n && last >= 0 && !r->phase[last].layout.measured && !run_stopping())
		layout_take(c, fd, th, &r->phase[last]);
}

/* Before phase p, the previous one `last` (or -1): --between-phases' command and -F's cache
 * drop. True when the run stops here: a signal during either stops it before this phase,
 * which then never ran, rather than inside it with no ops. */
static bool before_phase(const struct tio_config *c, int last, int p, struct tio_thread *th,
			 const struct tio_list *list)
{
	int rc;

	if (last >= 0 && c->between) {
		rc = tio_run_between(c, (enum tio_phase)last, p, th, list);
		if (rc == -EINTR)
			return true;   /* the run was stopped by a signal, and the command with it */
		if (rc) {
			/* reported once, with the run's first error, after the results */
			run_fail_detail(ECANCELED, "between-phases", c->between, -1,
					"the command failed after the %s phase (%s)", tio_phase_name[last],
					rc == -ECANCELED ? "non-zero exit" : strerror(-rc));
			return true;
		}
	}
	if (c->drop_caches && (rc = tio_drop_caches())) {
		run_fail(-rc, "write", "/proc/sys/vm/drop_caches", -1);
		return true;
	}
	return run_stopping();
}

/* Every thread's worker for phase p */
static void arm_workers(const struct tio_config *c, struct tio_thread *th, struct tio_worker *tw,
			struct worker *workers, int p)
{
	for (unsigned i = 0; i < c->threads; i++) {
		/* the job's thread number: every process of a job draws its own offsets */
		tw[i] = (struct tio_worker){ .c = c, .t = &th[i], .phase = (enum tio_phase)p,
					     .seed = phase_seed(c->seed, c->run.proc * (unsigned)c->threads + i,
								(unsigned)p) };
		opstat_init(&tw[i].st);
		workers[i].ctx = &tw[i];
		workers[i].live = &tw[i].st;
	}
}

int tio_run(struct driver *d, const void *cfg, void *result)
{
	const struct tio_config *c = cfg;
	struct tio_result *r = result;
	struct tio_thread *th = calloc(c->threads, sizeof(*th));
	struct tio_worker *tw = calloc(c->threads, sizeof(*tw));
	struct worker *workers = calloc(c->threads, sizeof(*workers));
	int *excl = calloc(c->dirs.n, sizeof(*excl));
	struct tio_list list = { .dir = "", .path = "" };
	int *lay_fd = NULL;
	int rc = -ENOMEM;

	r->stopped_in = -1;
	r->seed = c->seed;
	r->pid = getpid();
	opstat_init(&r->total);
	if (!th || !tw || !workers || !excl)
		goto out;
	for (unsigned i = 0; i < c->dirs.n; i++)
		excl[i] = -1;
	for (int p = 0; p < TIO_NPHASES; p++) {
		opstat_init(&r->phase[p].st);
		engine_submit_stats_init(&r->phase[p].sub);
		r->phase[p].threads = calloc(c->threads, sizeof(*r->phase[p].threads));
		if (!r->phase[p].threads)
			goto out;
	}
	rc = tio_setup_threads(d, c, th, r->pid, excl);
	if (rc)
		goto out;
	lay_fd = layout_open(c, th);
	if (c->between && (rc = tio_list_create(c, th, &list))) {
		run_fail_msg(-rc, "cannot write the file list for --between-phases in '%s': %s",
			     list.dir[0] ? list.dir : "$TMPDIR", strerror(-rc));
		goto out;
	}
	for (int p = 0, last = -1; p < TIO_NPHASES && !run_stopping(); p++) {
		struct tio_phase_result *pr = &r->phase[p];
		struct phase ph = { .name = tio_phase_name[p], .nworkers = (unsigned)c->threads,
				    /* -W: only the sequential write phase runs one thread at a time */
				    .serial = c->serial_write && p == TIO_WRITE,
				    .work = tio_work, .workers = workers,
				    .interval_ns = c->run.interval_ns, .label = "tiotest",
				    .expected_ops = c->threads * (phase_random[p] ? c->random_ops : c->blocks) };

		if (!c->run_phase[p])
			continue;
		ph.prepare = tio_queued(c) ? tio_prepare : NULL;
		ph.finish = tio_queued(c) && c->eng.ops->workers ? tio_finish : NULL;
		if (before_phase(c, last, p, th, &list))
			break;
		if (c->debug >= 40)
			driver_note(d, "tiotest: starting phase %s", tio_phase_name[p]);
		arm_workers(c, th, tw, workers, p);
		pr->ran = true;
		rc = driver_phase(d, &ph, &pr->obs, &pr->io);
		collect(c, &ph, tw, pr, th);
		for (unsigned i = 0; p == TIO_WRITE && pr->time_limited && i < c->threads; i++) {
			uint64_t wrote = tw[i].st.ops + workers[i].ramp_ops;

			th[i].written = wrote ? wrote : 1;
		}
		phase_warn(d, c, pr, p);
		opstat_merge(&r->total, &pr->st);
		if (!pr->complete)
			r->stopped_in = p;
		last = p;
		if (phase_writes[p] && !run_stopping())
			layout_take(c, lay_fd, th, pr);
	}
	layout_last(c, lay_fd, th, r);
	rc = 0;
	tio_result_figures(r);
	r->head.complete = !run_stopping();
	r->head.end = r->head.complete ? RUN_END_DONE : run_error_get() ? RUN_END_ERROR : RUN_END_SIGNAL;
out:
	if (rc == -ENOMEM)
		run_fail_msg(ENOMEM, "out of memory");
	tio_list_remove(&list);
	layout_close(c, lay_fd);
	for (unsigned i = 0; excl && i < c->dirs.n; i++)
		if (excl[i] >= 0)
			close(excl[i]);
	free(excl);
	for (unsigned i = 0; th && i < c->threads; i++) {
		free(th[i].buf);
		free(th[i].gen);
		tio_queue_free(&th[i]);
	}
	free(th);
	free(tw);
	free(workers);
	return rc;
}

void tio_result_free(void *result)
{
	struct tio_result *r = result;

	for (int p = 0; p < TIO_NPHASES; p++) {
		free(r->phase[p].threads);
		r->phase[p].threads = NULL;
		free(r->phase[p].samples);
		r->phase[p].samples = NULL;
		free(r->phase[p].layout.files);
		r->phase[p].layout.files = NULL;
		observe_phase_free(&r->phase[p].obs);
	}
}
