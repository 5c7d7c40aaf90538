/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment around its runs (matrix_run.h): the result directory and the manifest's first
 * record (host, plan, schedule), --repeat auto's looks at the effects, the closing report. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_run.h"
#include "core/quote.h"
#include "core/verdict.h"
#include "report/matrix_report.h"
#include "sys/env.h"
#include "sys/owned.h"

static void host_json(struct runner *r)
{
	struct env_host h;
	json_t *o = json_object();

	if (env_host_read(&h) == 0) {
		json_object_set_new(o, "hostname", json_string(h.hostname));
		json_object_set_new(o, "kernel_release", json_string(h.kernel_release));
		json_object_set_new(o, "kernel_version", json_string(h.kernel_version));
		json_object_set_new(o, "machine", json_string(h.machine));
		json_object_set_new(o, "cpu_model", json_string(h.cpu_model));
		json_object_set_new(o, "cpus_online", json_integer(h.cpus_online));
		json_object_set_new(o, "mem_total_bytes", json_integer((json_int_t)h.mem_total_bytes));
		json_object_set_new(r->m.root, "kernel_release", json_string(h.kernel_release));
	}
	json_object_set_new(r->m.root, "host", o);
}

/* The result directory (absolute, checked by cmd/matrix.c): created, or an existing empty one
 * of root's; its device and inode are the marker's token. */
static int out_dir(struct runner *r)
{
	struct mxc_plan *p = r->p;
	char q[QUOTE_MAX];
	struct stat st;
	DIR *d;
	int fd;

	quote_str(p->out, q, sizeof(q));
	if (mkdir(p->out, 0755) < 0) {
		struct dirent *de;
		int n = 0;

		if (errno != EEXIST || (fd = open(p->out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			say(r, "cannot create the result directory '%s': %s", q, strerror(errno));
			return EXIT_USAGE;
		}
		if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022) || !(d = fdopendir(fd))) {
			say(r, "the result directory '%s' is not this user's alone", q);
			close(fd);
			return EXIT_USAGE;
		}
		while ((de = readdir(d)))
			n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
		closedir(d);
		if (n) {
			say(r, "the result directory '%s' is not empty (an earlier experiment's?)", q);
			return EXIT_USAGE;
		}
	}
	if (mxc_token(p->out, r->token, sizeof(r->token))) {
		say(r, "'%s': %s", q, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* The knobs the experiment writes, recorded on the result directory where only root can (an
 * empty directory's earlier list removed): what --undo may restore. */
static int knobs_declare(struct runner *r)
{
	const struct mx_exp *e = r->p->e;
	char list[sizeof(r->proof.knobs)];
	size_t k = 0;
	int rc;

	list[0] = '\0';
	/* without root there are no knobs (matrix_target.c) and no trusted.* attribute to clear */
	if (geteuid() != 0)
		return 0;
	for (unsigned a = 0; a < e->naxes; a++)
		if (e->axes[a].kind == MX_KNOB && e->axes[a].knob) {
			int n = snprintf(list + k, sizeof(list) - k, "%s%s", k ? "\n" : "", e->axes[a].knob);

			if (n < 0 || (size_t)n >= sizeof(list) - k) {
				say(r, "the knobs' paths are too long to record together (%zu bytes at most)",
				    sizeof(list) - 1);
				return EXIT_USAGE;
			}
			k += (size_t)n;
		}
	if ((rc = owned_set(r->p->out, OWNED_XATTR_KNOBS, k ? list : NULL)) && (k || rc != -EOPNOTSUPP)) {
		say(r, "cannot record the knobs on '%s' (%s): %s", r->p->out, OWNED_XATTR_KNOBS, strerror(-rc));
		return rc == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_FAILED;
	}
	return 0;
}

static int runs_dirs(struct runner *r)
{
	char path[PATH_MAX + MX_NAME_MAX + 16];

	snprintf(path, sizeof(path), "%s/runs", r->p->out);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		goto fail;
	for (unsigned i = 0; i < r->p->e->ncells; i++) {
		snprintf(path, sizeof(path), "%s/runs/%s", r->p->out, cell_of(r, i)->name);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			goto fail;
	}
	return 0;
fail:
	say(r, "cannot create '%s': %s", path, strerror(errno));
	return -errno;
}

static void plan_json(struct runner *r, const unsigned *cell, const unsigned *rep, unsigned n)
{
	struct mxc_plan *p = r->p;
	json_t *x = mx_json(p->e), *sched = json_array(), *cl = json_array(), *tg = json_object();
	const char *images;

	json_object_set_new(x, "repeat", json_integer(p->repeat));
	json_object_set_new(x, "order", json_string(mx_order_name(p->order)));
	json_object_set_new(x, "seed", json_integer((json_int_t)p->seed));
	json_object_set_new(x, "fresh", json_string(mx_fresh_name(p->e->fresh)));
	json_object_set_new(x, "warmup", json_boolean(p->warmup));
	json_object_set_new(x, "drop_caches", json_boolean(p->e->drop_caches));
	json_object_set_new(x, "max_other_cpu_pct", json_integer((json_int_t)p->cfg->max_other_cpu));
	/* the report's families and margin, so that `fsbench report DIR` decides as the run did */
	json_object_set_new(x, "primary", p->cfg->primary ? json_string(p->cfg->primary) : json_null());
	json_object_set_new(x, "equivalence_pct", p->cfg->equiv_pct > 0 ? json_real(p->cfg->equiv_pct) : json_null());
	if (p->auto_rounds) {
		unsigned looks[VD_MAX_LOOKS], nl = vd_looks(p->repeat, looks);
		json_t *la = json_array();

		for (unsigned k = 0; k < nl; k++)
			json_array_append_new(la, json_integer(looks[k]));
		/* the verdicts' level after optional stopping (weighted Bonferroni over the looks),
		 * updated after every round by auto_stop */
		json_object_set_new(x, "alpha", json_real(vd_stop_alpha(looks, nl, 0)));
		json_object_set_new(x, "repeat_auto", json_pack("{s:i,s:o,s:o,s:i,s:n}", "max_rounds", (int)p->repeat,
			"max_time_s", p->cfg->max_time ? json_integer((json_int_t)p->cfg->max_time) : json_null(),
			"looks", la, "rounds_used", 0, "stopped"));
	}
	json_object_set_new(x, "size_bytes", json_integer((json_int_t)p->e->size_bytes));
	json_object_set_new(x, "age_cache", p->age_cache[0] ? json_string(p->age_cache) : json_null());
	json_object_set_new(x, "after", json_array());
	if (p->after_fsck)
		json_array_append_new(json_object_get(x, "after"), json_string("fsck"));
	if (p->after_freespace)
		json_array_append_new(json_object_get(x, "after"), json_string("freespace"));
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(sched, json_pack("{s:s, s:i}", "cell", cell_of(r, cell[i])->name,
							"repeat", rep[i] + 1));
	json_object_set_new(x, "schedule", sched);
	json_object_set_new(r->m.root, "experiment", x);
	for (int i = 0; i < p->argc; i++)
		json_array_append_new(cl, json_string(p->argv[i]));
	json_object_set_new(r->m.root, "command_line", cl);
	json_object_set_new(tg, "kind", json_string(p->e->target_kind));
	json_object_set_new(tg, "device", p->device ? json_string(p->device) : json_null());
	json_object_set_new(tg, "destroy", json_boolean(p->cfg->destroy != NULL));
	json_object_set_new(tg, "scratch", json_null());
	if (p->device || mx_target_axis(p->e) >= 0)
		images = NULL;
	else if (mxr_one_image(p))
		images = "one";
	else
		images = p->e->fresh == MX_FRESH_NEVER ? "per-filesystem" : "per-cell";
	json_object_set_new(tg, "images", images ? json_string(images) : json_null());
	if (mx_target_axis(p->e) >= 0)
		json_object_set_new(tg, "targets", mxt_json(p->e));
	json_object_set_new(r->m.root, "target", tg);
}

static double mxc_elapsed_s(const struct runner *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->start.tv_sec) + (now.tv_nsec - r->start.tv_nsec) / 1e9;
}

/* 1-based number of the look at `round` */
static unsigned look_no(const unsigned looks[], unsigned nl, unsigned round)
{
	unsigned k = 0;

	while (k < nl && looks[k] != round)
		k++;
	return k + 1;
}

/* --repeat auto, after round `round`: at a look (vd_looks), stop when every primary effect is
 * decided at the look's level (vd_look_alpha); stop at --max-time; recorded in
 * experiment.repeat_auto, and experiment.alpha the level of a stop here (vd_stop_alpha) */
bool mxr_auto_stop(struct runner *r, unsigned round)
{
	const struct mxc_plan *p = r->p;
	unsigned looks[VD_MAX_LOOKS], nl = vd_looks(p->repeat, looks), undecided = 0;
	json_t *ra = json_object_get(json_object_get(r->m.root, "experiment"), "repeat_auto");
	const char *why = NULL;
	bool look = false, decided = false;
	double alpha = VD_ALPHA;
	char err[512];

	for (unsigned k = 0; k < nl; k++)
		if (looks[k] == round)
			look = true, alpha = vd_look_alpha(nl, k);
	json_object_set_new(ra, "rounds_used", json_integer(round));
	json_object_set_new(json_object_get(r->m.root, "experiment"), "alpha",
			    json_real(vd_stop_alpha(looks, nl, round)));
	if (look) {
		struct matrix_report_opts ro = { .primary = p->cfg->primary, .equiv_pct = p->cfg->equiv_pct };

		commit(r);
		if (matrix_decided(p->out, &ro, alpha, &decided, &undecided, err, sizeof(err)))
			say(r, "round %u: cannot look at the effects (%s): going on", round, err);
		else if (decided)
			why = "decided";
		else
			say(r, "round %u: %u primary effect%s undecided at alpha %.3g (look %u of %u): going on", round,
			    undecided, undecided == 1 ? "" : "s", alpha, look_no(looks, nl, round), nl);
	}
	if (!why && p->cfg->max_time && round < p->repeat && mxc_elapsed_s(r) >= (double)p->cfg->max_time)
		why = "max-time";
	if (!why && round >= p->repeat)
		why = "max-rounds";
	if (!why)
		return false;
	json_object_set_new(ra, "stopped", json_string(why));
	commit(r);
	say(r, "--repeat auto: %u round%s; %s", round, round == 1 ? "" : "s",
	    !strcmp(why, "decided") ? "every primary effect decided" :
	    !strcmp(why, "max-time") ? "--max-time reached, some primary effects undecided" :
	    "--max-rounds reached, some primary effects undecided");
	return round < p->repeat;
}

int mxr_begin(struct runner *r, const unsigned *cell, const unsigned *rep, unsigned n)
{
	struct mxc_plan *p = r->p;
	int code, rc;

	if ((code = out_dir(r)) || (code = knobs_declare(r)))
		return code;
	if ((rc = mxt_declare(p->e, p->out))) {
		say(r, "cannot record the targets it remounts on '%s': %s", p->out, strerror(-rc));
		return EXIT_FAILED;
	}
	/* only to fchdir back: a working directory the user may enter but not list is fine */
	if ((r->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		say(r, "cannot open the working directory: %s", strerror(errno));
		return EXIT_FAILED;
	}
	if (manifest_new(&r->m, p->out)) {
		say(r, "out of memory");
		return EXIT_FAILED;
	}
	json_object_set_new(r->m.root, "fsbench_version", json_string(FSB_VERSION));
	json_object_set_new(r->m.root, "state", json_string("setting-up"));
	json_object_set_new(r->m.root, "created_at", manifest_now());
	json_object_set_new(r->m.root, "pid", json_integer(getpid()));
	json_object_set_new(r->m.root, "pid_start", json_integer((json_int_t)mxc_start_ticks(getpid())));
	json_object_set_new(r->m.root, "dir", json_string(p->out));
	host_json(r);
	plan_json(r, cell, rep, n);
	json_object_set_new(r->m.root, "report", json_null());
	json_object_set_new(r->m.root, "mkfs_count", json_integer(0));
	/* written first: from here on, what is set up is recorded before it is */
	if ((rc = manifest_commit(&r->m))) {
		say(r, "cannot write '%s': %s", r->m.path, strerror(-rc));
		return EXIT_FAILED;
	}
	say(r, "experiment %s: %s on %u cells x %u runs, %s order (seed %llu), mkfs %s; results in %s",
	    p->e->name, p->w->name, p->e->ncells, p->repeat, mx_order_name(p->order),
	    (unsigned long long)p->seed, mx_target_axis(p->e) >= 0 ? "never (existing targets)" :
	    p->e->fresh == MX_FRESH_PER_RUN ? "before every run" : p->e->fresh == MX_FRESH_NEVER ?
	    "once per filesystem type, the cells in turn on it" : "once per cell", p->out);
	return runs_dirs(r) ? EXIT_FAILED : 0;
}

void mxr_report(struct runner *r)
{
	const struct mxc_plan *p = r->p;
	json_t *rep_json = json_object();
	struct matrix_report_opts ro = { .db = p->cfg->db, .no_db = p->cfg->no_db, .stop = interrupted,
					 .primary = p->cfg->primary, .equiv_pct = p->cfg->equiv_pct };
	char err[1024];
	int rc;

	if ((rc = matrix_report_opts(p->out, &ro, stdout, err, sizeof(err))) == -EINTR) {
		say(r, "experiment complete; report %s by SIG%s: 'fsbench report %s' writes it", err,
		    sigabbrev_np(run_signal()), p->out);
		json_object_set_new(rep_json, "status", json_string("interrupted"));
	} else if (rc) {
		say(r, "report: %s", err);
		json_object_set_new(rep_json, "status", json_string("failed"));
		json_object_set_new(rep_json, "error", json_string(err));
	} else {
		json_object_set_new(rep_json, "status", json_string("written"));
		if (interrupted())
			say(r, "SIG%s during the report: the experiment and its report are complete",
			    sigabbrev_np(run_signal()));
	}
	json_object_set_new(r->m.root, "report", rep_json);
	commit(r);
}
