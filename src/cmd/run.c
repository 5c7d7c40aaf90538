/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every workload command: parse the workload's options, check them and every output
 * destination, run the driver, and send what it returns where it belongs (the classic text on
 * stdout, warnings and errors on stderr, the JSON and the folded stacks to their files), then
 * choose the exit status. One file for every workload: a workload brings only its ops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "engine/engine.h"
#include "report/engine_text.h"
#include "core/opt.h"
#include "report/opt_text.h"
#include "core/run.h"
#include "core/sample.h"
#include "report/generic_report.h"
#include "report/json.h"
#include "report/profile_text.h"
#include "report/progress_text.h"
#include "report/warn_text.h"
#include "report/workload_report.h"
#include "workload/workload.h"

struct cmd_ctx {
	const struct workload_ops *w;
	const struct cmd_job *job;   /* a job of several processes (fsbench-mpi); NULL: one */
	const void *cfg;
	struct outfile *log;         /* the workload's own log (fs_mark -l), appended to */
	struct outfile *stream;      /* --stream, written in place as the run goes */
	uint64_t stream_t0_ns;       /* its elapsed_ns origin: when it was opened */
	int stream_err;              /* its first failed write, -errno */
	const struct workload_report *rep;
	void *st;                    /* the report's state */
	struct report_out out;
	const struct run_opts *opts;
	struct driver_hooks hooks;
	char *error;                 /* the first error as one line, for the caller; may be NULL */
	size_t errorlen;
};

/* A log line that did not get there fails the run (the log is a result), once. */
static void log_check(struct cmd_ctx *x)
{
	int rc;

	if (!x->log || x->out.log_err)
		return;
	fflush(x->out.log);
	if ((rc = outfile_error(x->log))) {
		x->out.log_err = rc;
		run_fail(-rc, "write", x->out.log_path, -1);
	}
}

static void sink_run_begin(void *arg, unsigned run, long long started)
{
	struct cmd_ctx *x = arg;

	if (x->rep && x->rep->run_begin)
		x->rep->run_begin(x->st, run, started);
	log_check(x);
}

static void sink_unit(void *arg, unsigned run, const void *unit)
{
	struct cmd_ctx *x = arg;

	if (x->rep && x->rep->unit)
		x->rep->unit(x->st, run, unit);
	log_check(x);
}

static void sink_run_end(void *arg, unsigned run, const void *result)
{
	struct cmd_ctx *x = arg;

	/* a reader that went away (| head): the run ends without a word */
	x->out.quiet_signal = cmd_signal_quiet(run_signal());
	x->out.keeps = x->w->keep && x->w->keep(x->cfg, result);
	if (x->rep && x->rep->run_end)
		x->rep->run_end(x->st, run, result);
}

/* one interval's figures; its latency only when an op completed in it (none: absent, never a
 * made-up number) and when it is one process's (a job's do not add up: each rank's is in its
 * part) */
static json_t *sample_json(const struct sample *s, bool part)
{
	json_t *o = part ? json_pack("{s:I}", "rank", (json_int_t)s->proc) : json_object();

	if (o && json_object_update_new(o, json_pack("{s:I, s:I, s:I, s:I}", "t_ns", (json_int_t)s->t_ns,
						     "dt_ns", (json_int_t)s->dt_ns, "ops", (json_int_t)s->ops,
						     "bytes", (json_int_t)s->bytes))) {
		json_decref(o);
		return NULL;
	}
	if (o && s->ops && !s->nparts)
		json_object_update_new(o, json_pack("{s:I, s:I, s:I, s:I}", "latency_p50_ns",
						    (json_int_t)s->p50_ns, "latency_p90_ns", (json_int_t)s->p90_ns,
						    "latency_p99_ns", (json_int_t)s->p99_ns, "latency_p99_9_ns",
						    (json_int_t)s->p999_ns));
	if (o && s->ramp)
		json_object_set_new(o, "ramp", json_true());
	return o;
}

/* --stream: one JSON line per interval, flushed at once, so a killed run keeps it; a job's
 * line (fsbench-mpi) adds each rank's part */
static void sink_sample(void *arg, unsigned run, const struct phase *p, const struct sample *s)
{
	struct cmd_ctx *x = arg;
	json_t *o, *fig, *parts = NULL;
	int rc;

	if (!x->stream || x->stream_err)
		return;
	o = json_pack("{s:I, s:s, s:I}", "run", (json_int_t)run + 1, "phase", p->name ? p->name : "",
		      "elapsed_ns", (json_int_t)(p->start_ns + s->t_ns - x->stream_t0_ns));
	fig = sample_json(s, false);
	if (o && fig)
		json_object_update(o, fig);
	json_decref(fig);
	if (o && s->nparts && !json_object_set_new(o, "ranks", parts = json_array()))
		for (unsigned i = 0; parts && i < s->nparts; i++)
			if (json_array_append_new(parts, sample_json(&s->parts[i], true)))
				parts = NULL;
	if (!o || !fig || (s->nparts && !parts) || json_dumpf(o, x->stream->f, JSON_COMPACT) < 0 ||
	    fputc('\n', x->stream->f) == EOF || fflush(x->stream->f) == EOF || outfile_error(x->stream)) {
		rc = outfile_error(x->stream) ? outfile_error(x->stream) : -ENOMEM;
		x->stream_err = rc;
		run_fail(-rc, "write", x->opts->stream, -1);
	}
	json_decref(o);
}

static void report_cleanup(const char *path, int err)
{
	if (err)
		fprintf(stderr, "fsbench: cannot remove '%s': %s\n", path, strerror(err));
	else
		fprintf(stderr, "fsbench: not removing '%s': it was replaced after fsbench created it\n",
			path);
}

static void sink_note(void *arg, const char *line)
{
	struct cmd_ctx *x = arg;

	fprintf(x->out.err, "%s\n", line);
}

/* The option that carries -h/--help, found in the table: 1 after -h, 2 after --help. */
static int help_asked(const struct opt_cmd *c, const void *cfg)
{
	for (const struct opt *o = c->opts; !opt_is_end(o); o++)
		if (o->type == OPT_HELP)
			return *(const int *)((const char *)cfg + o->off);
	return 0;
}

/* --profile-callgraph: every run's stacks into one folded file */
static int write_folded(struct cmd_ctx *x, const struct driver_result *res)
{
	const struct run_opts *o = x->opts;
	char path[PATH_MAX + 16];
	int rc;
	struct outfile *of = outputs_folded_open(x->out.prog, o->profile_folded, o->json, path,
						 sizeof(path), &rc);

	if (!of)
		return rc;
	x->rep->folded(x->st, of->f, res);
	return outputs_commit(x->out.prog, of, path);
}

/* --json and --csv: both from the one JSON document, so they cannot disagree */
static int write_results(struct cmd_ctx *x, const struct driver_result *res)
{
	json_t *root = x->rep->json(x->st, res);
	struct json_spool *sp = x->rep->spool ? x->rep->spool(x->st) : NULL;
	int rc = 0;

	if (!root) {
		fprintf(stderr, "%s: out of memory\n", x->out.prog);
		return -ENOMEM;
	}
	if (x->job && x->job->json)
		x->job->json(x->job->arg, root, sp);
	if (x->opts->json)
		rc = outputs_json_spooled(x->out.prog, x->opts->json, root, sp);
	if (x->opts->csv) {
		int crc = outputs_csv(x->out.prog, x->opts->csv, x->w->figs, root, sp);

		rc = rc ? rc : crc;
	}
	json_decref(root);
	return rc;
}

static void print_warnings(const struct cmd_ctx *x, const struct driver_result *res)
{
	struct warn_text_ctx ctx = { .prog = x->out.prog, .targets = res->targets,
				     .ntargets = res->ntargets, .nruns = res->nruns,
				     .hint_reads = x->rep ? x->rep->hint_reads : NULL,
				     .hint_writes = x->rep ? x->rep->hint_writes : NULL };

	if (x->opts->quiet || warn_tally_empty(&res->warns))
		return;
	fflush(stdout);
	warn_text_print(x->out.err, &res->warns, &ctx);
	if (res->warns_short)
		fprintf(x->out.err, "%s: out of memory: the warnings above name some of their iterations "
			"only\n", x->out.prog);
}

static bool any_run_ended(const struct workload_ops *w, const struct driver_result *res,
			  enum run_end end)
{
	for (unsigned i = 0; i < res->nruns; i++)
		if (((const struct run_head *)driver_result_run(w, res, i))->end == end)
			return true;
	return false;
}

static int run_workload(struct cmd_ctx *x, void *cfg)
{
	const struct workload_ops *w = x->w;
	const struct run_opts *o = x->opts;
	struct driver d = { .w = w, .cfg = cfg, .opts = o, .prog = x->out.prog,
			    .progress = !o->quiet && isatty(STDERR_FILENO),
			    .sink = { sink_run_begin, sink_unit, sink_run_end, sink_note, progress_text_draw,
				      x->stream ? sink_sample : NULL, x },
			    .hooks = x->hooks };
	struct driver_result res;
	char msg[PATH_MAX + 768];
	int code = EXIT_OK;
	const void *last;
	bool keep = false;

	if (x->job)
		x->job->prepare(x->job->arg, &d, cfg);
	if (driver_run(&d, &res)) {
		fprintf(x->out.err, "%s: out of memory\n", x->out.prog);
		driver_finish(w, &res, keep);
		driver_result_free(w, &res);
		return x->job ? x->job->finish(x->job->arg, EXIT_FAILED) : EXIT_FAILED;
	}
	/* the last run attempted decides whether its files stay (fs_mark keeps nothing when it
	 * created nothing) */
	last = res.nruns ? driver_result_run(w, &res, res.nruns - 1) : NULL;
	keep = w->keep && w->keep(cfg, res.nostart ? driver_result_run(w, &res, res.nruns) : last);
	if (x->job) {
		/* every process removes its files before the results travel */
		driver_finish(w, &res, keep);
		if (x->job->gather(x->job->arg, &d, &res) && x->job->leader)
			fprintf(x->out.err, "%s: out of memory\n", x->out.prog);
		if (!x->job->leader) {
			driver_result_free(w, &res);
			return x->job->finish(x->job->arg, EXIT_OK);
		}
	}
	if (res.perf_why[0])
		fprintf(x->out.err, "%s: --profile: %s; running without a profile\n", x->out.prog,
			res.perf_why);
	if (res.nruns > 1 && x->rep && x->rep->summary)
		x->rep->summary(x->st, &res);
	if (x->out.text)
		fflush(x->out.text);
	print_warnings(x, &res);
	if (res.stopped_between && !cmd_signal_quiet(res.signal))
		fprintf(x->out.err, "%s: interrupted after run %u of %llu; %s\n", x->out.prog, res.nruns,
			(unsigned long long)o->repeat, keep ? "the files are kept" : "removing the files");
	if (o->profile_callgraph && res.profiled && res.nruns && x->rep && x->rep->folded &&
	    write_folded(x, &res))
		code = EXIT_FAILED;
	if ((o->json || o->csv) && res.nruns && x->rep && x->rep->json && write_results(x, &res))
		code = EXIT_FAILED;
	/* a failed write was said as the run's first error */
	if (x->log && !x->out.log_err && outputs_commit(x->out.prog, x->log, x->out.log_path))
		code = EXIT_FAILED;
	else if (x->log && x->out.log_err)
		outfile_abort(x->log);
	x->log = NULL;
	x->out.log = NULL;
	/* a failed write was said as the run's first error */
	if (x->stream && !x->stream_err && outputs_commit(x->out.prog, x->stream, x->opts->stream))
		code = EXIT_FAILED;
	else if (x->stream && x->stream_err)
		outfile_abort(x->stream);
	x->stream = NULL;
	if (any_run_ended(w, &res, RUN_END_NOSPACE)) {
		code = EXIT_FAILED;
		for (unsigned i = 0; x->error && i < res.nruns; i++) {
			const struct run_head *h = driver_result_run(w, &res, i);

			if (h->end == RUN_END_NOSPACE)
				snprintf(x->error, x->errorlen, "%s", h->end_detail);
		}
	}
	if (res.failed) {
		run_error_format(&res.error, msg, sizeof(msg));
		fprintf(x->out.err, "%s: %s%s\n", x->out.prog, res.origin, msg);
		if (x->error)
			snprintf(x->error, x->errorlen, "%s", msg);
		code = cmd_exit_for_errno(res.error.err);
	} else if (res.signal) {
		char sig[32];

		run_signal_name(res.signal, sig, sizeof(sig));
		if (!any_run_ended(w, &res, RUN_END_SIGNAL) && !res.stopped_between &&
		    !cmd_signal_quiet(res.signal))
			fprintf(x->out.err, "%s: interrupted by %s; the results are incomplete\n",
				x->out.prog, sig);
		if (x->error)
			snprintf(x->error, x->errorlen, "interrupted by %s", sig);
		code = cmd_exit_for_signal(res.signal);
	}
	if ((!x->job && driver_finish(w, &res, keep)) || res.cleanup_failed)
		code = code ? code : EXIT_FAILED;
	driver_result_free(w, &res);
	return x->job ? x->job->finish(x->job->arg, code) : code;
}

/* What a run needs before it starts: every output destination checked, the log open, the
 * presentation's state. CMD_RUN, or the exit status (said). */
static int run_prepare(struct cmd_ctx *x, void *cfg)
{
	const char *prog = x->out.prog;
	int code;

	x->out.log_path = x->rep->log_path ? x->rep->log_path(cfg) : NULL;
	if ((code = outputs_check_run(prog, x->opts, x->out.log_path)))
		return code;
	if (x->out.log_path) {
		if (!(x->log = outputs_open(prog, x->out.log_path, OUTFILE_APPEND)))
			return EXIT_FAILED;
		x->out.log = x->log->f;
	}
	if (x->opts->stream) {
		if (!(x->stream = outputs_open(prog, x->opts->stream, OUTFILE_STREAM)))
			return EXIT_FAILED;
		x->stream_t0_ns = clock_ns();
	}
	if (x->rep && x->rep->state_size && !(x->st = calloc(1, x->rep->state_size))) {
		fprintf(x->out.err, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (x->rep && x->rep->begin && (code = x->rep->begin(x->st, cfg, &x->out)))
		return code == -ENOMEM || code == -EIO ? EXIT_FAILED : EXIT_USAGE;
	return CMD_RUN;
}

static void run_end(struct cmd_ctx *x)
{
	if (x->rep && x->rep->end && x->st)
		x->rep->end(x->st);
	if (x->log)
		outfile_abort(x->log);
	outfile_abort(x->stream);
	x->stream = NULL;
	free(x->st);
	x->st = NULL;
	x->log = NULL;
}

int cmd_workload_run(const struct workload_ops *w, void *cfg, struct cmd_run_io *io)
{
	struct cmd_ctx x = { .w = w, .rep = w->report ? w->report : &generic_report, .hooks = io->hooks };
	int code;

	if (io->error && io->errorlen)
		io->error[0] = '\0';
	x.error = io->error;
	x.errorlen = io->errorlen;
	x.cfg = cfg;
	x.opts = workload_run_opts(w, cfg);
	x.out = (struct report_out){ .w = w, .err = io->err, .prog = io->prog, .argc = io->argc,
				     .argv = io->argv, .text = io->text };
	if ((code = run_prepare(&x, cfg)) == CMD_RUN)
		code = run_workload(&x, cfg);
	run_end(&x);
	return code;
}

int cmd_workload(const struct workload_ops *w, int argc, char **argv, const char *prog)
{
	return cmd_workload_job(w, argc, argv, prog, NULL);
}

int cmd_workload_job(const struct workload_ops *w, int argc, char **argv, const char *prog,
		     const struct cmd_job *job)
{
	struct cmd_ctx x = { .w = w, .rep = w->report ? w->report : &generic_report, .job = job };
	char err[PATH_MAX + 768];
	void *cfg = calloc(1, w->config_size), *defaults = calloc(1, w->config_size);
	int code, help;

	if (!cfg || !defaults) {
		fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	w->defaults(cfg);
	memcpy(defaults, cfg, w->config_size);
	x.cfg = cfg;
	x.opts = workload_run_opts(w, cfg);
	if (job) {
		/* the checks see the whole job (fs_mark sizes its names for every process's files) */
		struct run_opts *ro = (struct run_opts *)((char *)cfg + w->run_opts_off);

		ro->proc = job->proc;
		ro->nprocs = job->nprocs;
		ro->job_salt = job->job_salt;
	}
	x.out = (struct report_out){ .w = w, .err = stderr, .prog = prog, .argc = argc, .argv = argv };
	if (job && !job->leader) {
		/* the leader decides and says nothing here: its verdict, then its config */
		if ((code = job->agree(job->arg, w, cfg, CMD_RUN)) != CMD_RUN)
			goto out;
		cleanup_set_reporter(report_cleanup);
		if (run_signals_install())
			fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		code = run_workload(&x, cfg);
		goto out;
	}
	if (opt_parse(w->cmd, argc, argv, cfg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		code = EXIT_USAGE;
		goto decided;
	}
	if ((help = help_asked(w->cmd, cfg))) {
		FILE *out = help == 1 && w->short_help_stderr ? stderr : stdout;

		/* -h as the original tool does it (exit 1; fs_mark on stderr), --help as fsbench */
		opt_text_help(w->cmd, defaults, prog, out);
		if (job && job->opts)
			opt_text_options(job->opts, job->opts_defaults, job->opts->summary, out);
		code = help == 1 ? 1 : EXIT_OK;
		goto decided;
	}
	if ((code = workload_checks(w, cfg, argc, argv, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		code = code == -EPERM || code == -EACCES || code == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_USAGE;
		goto decided;
	}
	cleanup_set_reporter(report_cleanup);
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		code = EXIT_FAILED;
		goto decided;
	}
	x.out.text = outfile_is_stdout(x.opts->json) ? NULL : stdout;
	code = run_prepare(&x, cfg);
decided:
	/* a job runs on the leader's word: one message from it, the same status everywhere */
	if (job)
		code = job->agree(job->arg, w, cfg, code);
	if (code == CMD_RUN)
		code = run_workload(&x, cfg);
out:
	run_end(&x);
	free(cfg);
	free(defaults);
	return code;
}

int cmd_list(int argc, char **argv, const char *prog)
{
	const struct workload_ops *w;
	const struct subcmd *s;
	bool man = argc == 3 && !strcmp(argv[2], "--man");

	if (argc == 1) {
		/* every command: the workloads, then the others (cmd/commands.c) */
		for (unsigned i = 0; (w = workload_at(i)); i++)
			if (!w->hidden)
				printf("%s\n", w->name);
		for (unsigned i = 0; (s = subcmd_at(i)); i++)
			if (!s->hidden)
				printf("%s\n", s->name);
		return EXIT_OK;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && !man) ||
	    (strcmp(argv[1], "workloads") && strcmp(argv[1], "engines"))) {
		fprintf(stderr, "%s: usage: fsbench list [workloads|engines] [--man]\n", prog);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "engines"))
		engine_text_list(stdout, man);
	if (!strcmp(argv[1], "workloads"))
		for (unsigned i = 0; (w = workload_at(i)); i++) {
			if (w->hidden)
				continue;
			if (man)
				printf(".TP\n.B %s\n%s\n", w->name, w->summary);
			else
				printf("%s\n", w->name);
		}
	return EXIT_OK;
}
