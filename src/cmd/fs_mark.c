/* fsbench fs_mark: the options table, the log file, the run, and which report goes where. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run_opts.h"
#include "core/cleanup.h"
#include "core/opt.h"
#include "core/run.h"
#include "report/fs_mark_text.h"
#include "report/json_fs_mark.h"
#include "report/kstat_text.h"
#include "report/profile_text.h"
#include "report/warn_text.h"
#include "workload/fs_mark.h"

#define F(x) offsetof(struct fsm_config, x)

/* Short options are fs_mark 3.3's (getopt "vhkFr:S:N:D:d:l:L:n:p:s:t:w:"), with its units and
 * defaults; the long spellings and the long-only options are fsbench's. */
static const struct opt fsm_opts[] = {
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, OPT_LIST_MAX,
	  "test directory, repeatable; created if missing; threads are split evenly over them" },
	{ 'D', "subdirs", OPT_UINT, F(subdirs), "N", 0, 1000000, 0, 0,
	  "subdirectories in each test directory (at least 2); without -N a thread stays in one for 180 s" },
	{ 'N', "files-per-subdir", OPT_UINT, F(files_per_subdir), "N", 0, UINT32_MAX, 0, 0,
	  "round robin: files a thread puts in a subdirectory before moving to the next (needs -D)" },
	{ 'n', "files", OPT_UINT, F(nfiles), "N", 1, FSM_MAX_FILES, 0, 0,
	  "files per thread per iteration" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, 64, 0, 0,
	  "threads; a multiple of the number of -d directories" },
	{ 's', "size", OPT_SIZE, F(file_bytes), "BYTES", 0, UINT64_C(1) << 40, 1, 0,
	  "size of each file in bytes; the long form also takes k/m/g suffixes" },
	{ 'w', "io-size", OPT_SIZE, F(io_bytes), "BYTES", 1, FSM_MAX_IO, 1, 0,
	  "bytes per write() call" },
	{ 'S', "sync-method", OPT_UINT, F(sync_method), "M", 0, 6, 0, 0,
	  "0 no sync, 1 fsync per file, 2 sync() and one fsync, 3 reverse reopen+fsync, "
	  "4 sync() then 3, 5 in-order reopen+fsync, 6 sync() then 5" },
	{ 'p', "name-length", OPT_UINT, F(name_len), "N", 1, 255, 0, 0, "file name length" },
	{ 'r', "random-length", OPT_UINT, F(rand_len), "N", 0, 255, 0, 0,
	  "random characters at the end of each name (raised to what unique names need)" },
	{ 'L', "iterations", OPT_UINT, F(iterations), "N", 0, UINT32_MAX, 0, 0,
	  "iterations (rows); implies -k" },
	{ 'F', "fill", OPT_FLAG, F(fill), NULL, 0, 0, 0, 0,
	  "iterate until the filesystem is full, then end cleanly (exit 0); implies -k" },
	{ 'k', "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the files (no unlink phase)" },
	{ 'l', "log", OPT_STR, F(log), "FILE", 0, 0, 0, 0,
	  "log file, appended to: the same header and rows as stdout" },
	{ 'v', "verbose", OPT_FLAG, F(verbose), NULL, 0, 0, 0, 0,
	  "min/avg/max microseconds of each system call type (18 more columns)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0,
	  "show this help (-h on stderr with exit 1 as fs_mark does, --help 0)" },
	{ 0, "summary", OPT_FLAG, F(summary), NULL, 0, 0, 0, 0,
	  "add the aggregate files/sec (files / iteration wall time) column and a closing summary" },
	{ 0, "percentiles", OPT_FLAG, F(percentiles), NULL, 0, 0, 0, 0,
	  "add p50 and p99 create latency columns (microseconds)" },
	{ 0, "inodes", OPT_FLAG, F(inodes), NULL, 0, 0, 0, 0, "add an inode use % column" },
	{ 0, "dirsync", OPT_FLAG, F(dirsync), NULL, 0, 0, 0, 0,
	  "fsync the directory after each file (timed, inside the loop)" },
	{ 0, "fdatasync", OPT_FLAG, F(fdatasync), NULL, 0, 0, 0, 0,
	  "fdatasync instead of fsync wherever the sync method fsyncs" },
	{ 0, "xattr", OPT_UINT, F(xattr_bytes), "BYTES", 0, 65536, 0, 0,
	  "set a BYTES-byte extended attribute (user.fsbench) on each file" },
	{ 0, "stat", OPT_FLAG, F(stat), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that stats every file" },
	{ 0, "read", OPT_FLAG, F(read), NULL, 0, 0, 0, 0,
	  "after the create loop, a timed phase that reads every file back" },
	{ 0, "spread", OPT_FLAG, F(spread), NULL, 0, 0, 0, 0,
	  "with -D: spread files evenly over the subdirectories, file by file" },
	RUN_OPTS(F, "create loop"),
	{ 0 },
};

const struct opt_cmd fsm_cmd = {
	.name = "fs_mark",
	.summary = "File creation benchmark, compatible with fs_mark 3.3: threads create, write and sync\n"
		   "files in the -S method's order, then unlink them, one row per iteration.",
	.opts = fsm_opts,
};

void fsm_defaults(struct fsm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nfiles = 1000;
	c->threads = 1;
	c->file_bytes = 51200;
	c->io_bytes = 16384;
	c->sync_method = 1;
	c->name_len = 40;
	c->rand_len = 24;
	c->iterations = 1;
	c->log = "fs_log.txt";
	RUN_OPTS_DEFAULTS(c);
}

struct out {
	FILE *log;
	bool text;               /* stdout carries the text (not --json -) */
	json_t *iters;           /* the current run's iterations */
	/* --sysstats: the current run's kstat rows, printed under the classic rows */
	char *krows;
	size_t krows_len;
	FILE *kbuf;
	struct warn_tally warns;     /* every run's iterations, for stderr after the last run */
	bool warns_short;            /* out of memory: an iteration list is incomplete */
};

static void on_iter(const struct fsm_config *c, const struct fsm_iter *it, void *arg)
{
	struct out *o = arg;

	if (o->text) {
		fsm_print_row(stdout, c, it);
		fflush(stdout);
	}
	if (o->log) {
		fsm_print_row(o->log, c, it);
		fflush(o->log);
	}
	if (o->iters)
		json_array_append_new(o->iters, fsm_json_iter(c, it));
	if (warn_tally_add(&o->warns, &it->obs.warns, c->run_no, "iteration", it->index + 1))
		o->warns_short = true;
	if (o->kbuf && it->obs.taken) {
		char label[32];

		snprintf(label, sizeof(label), "iteration %u", it->index + 1);
		kstat_text_row(o->kbuf, label, &it->obs.k);
	}
}

/* a new run: fresh iteration array and kstat rows */
static int out_begin_run(struct out *o, const struct fsm_config *c)
{
	o->iters = NULL;
	if (c->json && !(o->iters = json_array()))
		return -ENOMEM;
	if (c->sysstats && o->text && !(o->kbuf = open_memstream(&o->krows, &o->krows_len)))
		return -ENOMEM;
	return 0;
}

/* --sysstats and --profile output under the run's classic output */
static void print_kernel(const struct fsm_config *c, const struct fsm_result *r, struct out *o)
{
	char label[96];

	if (o->kbuf) {
		fclose(o->kbuf);
		o->kbuf = NULL;
		kstat_text_header(stdout);
		fwrite(o->krows, 1, o->krows_len, stdout);
		free(o->krows);
		o->krows = NULL;
		o->krows_len = 0;
	}
	if (o->text && r->profile) {
		if (r->niters > 1)
			snprintf(label, sizeof(label), "create loop, iterations 1-%u together", r->niters);
		else
			snprintf(label, sizeof(label), "create loop");
		profile_text_print(stdout, label, r->profile, (unsigned)c->profile_top);
	}
	fflush(stdout);
}

/* Warnings on stderr once for all runs, after the last one: one line per kind naming the
 * iterations that had it (each iteration's own is in the JSON). */
static void print_warnings(const struct fsm_config *c, const struct out *o,
			   const struct observe *obs, unsigned nruns, const char *prog)
{
	struct warn_text_ctx ctx = { .prog = prog, .targets = obs->targets, .ntargets = obs->ntargets,
				     .hint_writes = "-S 0 syncs nothing", .nruns = nruns };

	if (c->quiet || warn_tally_empty(&o->warns))
		return;
	fflush(stdout);
	warn_text_print(stderr, &o->warns, &ctx);
	if (o->warns_short)
		fprintf(stderr, "%s: out of memory: the warnings above name some of their iterations "
			"only\n", prog);
}

/* --profile-callgraph: every run's merged create loops into one folded file */
static int write_folded(const struct fsm_config *c, const struct fsm_result *runs, unsigned nruns,
			const char *prog)
{
	char path[PATH_MAX], root[64];
	int rc = 0;
	FILE *f = profile_folded_open(c->profile_folded, c->json, prog, path, sizeof(path), &rc);

	if (!f)
		return rc;
	for (unsigned i = 0; i < nruns; i++) {
		if (!runs[i].profile)
			continue;
		if (nruns > 1)
			snprintf(root, sizeof(root), "run%u_create", i + 1);
		else
			snprintf(root, sizeof(root), "create");
		if (profile_write_folded(f, root, runs[i].profile))
			rc = -1;
	}
	if (fclose(f) || rc) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* The kernel view resolves the targets before the run, when a -d may not exist yet: it is
 * then resolved through its nearest existing ancestor, the filesystem it will be created on. */
static char *existing_ancestor(const char *dir)
{
	char *p = strdup(dir);
	struct stat st;

	while (p && stat(p, &st) < 0) {
		char *d = strdup(dirname(p));

		if (d && !strcmp(d, p)) {
			free(d);
			break;
		}
		free(p);
		p = d;
	}
	return p;
}

/* -L given at all (even -L 0 or -L 1) implies -k in fs_mark */
static bool iterations_given(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--iterations") || !strncmp(a, "--iterations=", 13))
			return true;
		if (a[0] != '-' || a[1] == '-')
			continue;
		for (const char *p = a + 1; *p; p++) {
			if (*p == 'L')
				return true;
			if (strchr("vhkF", *p))
				continue;
			if (!p[1])
				i++;             /* the value is the next argument */
			break;                   /* the rest of this one is the value */
		}
	}
	return false;
}

static FILE *open_log(const char *path, const char *prog)
{
	/* appended to, as fs_mark does; never through a symlink */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f;

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open log file '%s': %s\n", prog, path,
			errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "a");
	if (!f)
		close(fd);
	return f;
}

static void free_runs(struct fsm_result *runs, json_t **iters, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		fsm_result_free(&runs[i]);
		json_decref(iters[i]);
	}
	free(runs);
	free(iters);
}

int cmd_fs_mark(int argc, char **argv, const char *prog)
{
	struct fsm_config c, defaults;
	struct fsm_result *runs;
	json_t **iters;
	struct out o = { 0 };
	char err[PATH_MAX + 768];
	char *targets[OPT_LIST_MAX] = { 0 };
	int code, rc = 0;
	unsigned nruns = 0;
	time_t started = time(NULL);
	struct observe obs;
	struct observe_config oc;

	fsm_defaults(&c);
	defaults = c;
	if (opt_parse(&fsm_cmd, argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (c.help) {
		opt_help(&fsm_cmd, &defaults, prog, c.help == 1 ? stderr : stdout);
		return c.help == 1 ? 1 : EXIT_OK;
	}
	c.iterations_given = iterations_given(argc, argv);
	if (fsm_config_check(&c, err, sizeof(err), &code)) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return code;
	}
	if (c.json && (rc = json_check_writable(c.json))) {
		fprintf(stderr, "%s: option --json: cannot write '%s': %s\n", prog, c.json, strerror(-rc));
		return EXIT_USAGE;
	}
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		return EXIT_FAILED;
	}
	c.progress = !c.quiet && isatty(STDERR_FILENO);
	o.text = !(c.json && !strcmp(c.json, "-"));
	runs = calloc(c.repeat, sizeof(*runs));
	iters = calloc(c.repeat, sizeof(*iters));
	for (unsigned i = 0; i < c.dirs.n; i++)
		if (!(targets[i] = existing_ancestor(c.dirs.v[i])))
			runs = NULL;
	if (!runs || !iters) {
		fprintf(stderr, "%s: out of memory\n", prog);
		free(runs);
		free(iters);
		for (unsigned i = 0; i < c.dirs.n; i++)
			free(targets[i]);
		return EXIT_FAILED;
	}
	o.log = open_log(c.log, prog);
	/* the kernel-side view: devices resolved once, perf opened once for every run */
	c.profile |= c.profile_callgraph || c.profile_folded || c.profile_inclusive;
	oc = (struct observe_config){ .profile = c.profile, .hz = (unsigned)c.profile_hz,
				      .callgraph = c.profile_callgraph || c.profile_inclusive };
	if (o.log && observe_open(&obs, &oc, (const char *const *)targets, c.dirs.n, prog)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		fclose(o.log);
		o.log = NULL;
	}
	for (unsigned i = 0; i < c.dirs.n; i++)
		free(targets[i]);
	if (!o.log) {
		free_runs(runs, iters, 0);
		return EXIT_FAILED;
	}
	c.obs = &obs;
	warn_tally_init(&o.warns);
	code = EXIT_OK;
	while (nruns < c.repeat && !run_stopping()) {
		struct fsm_result *r = &runs[nruns];
		time_t t0 = nruns ? time(NULL) : started;
		bool stop;

		if (out_begin_run(&o, &c)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			code = EXIT_FAILED;
			break;
		}
		/* each run prints exactly what a single run prints */
		if (o.text) {
			fsm_print_header(stdout, false, &c, argc, argv, t0);
			fflush(stdout);
		}
		fsm_print_header(o.log, true, &c, argc, argv, t0);
		fflush(o.log);
		iters[nruns] = o.iters;
		c.run_no = nruns + 1;
		rc = fsm_run(&c, r, prog, on_iter, &o);
		nruns++;
		if (rc) {
			code = EXIT_FAILED;
			if (o.kbuf)
				fclose(o.kbuf);
			free(o.krows);
			o.kbuf = NULL;
			o.krows = NULL;
			/* not a result: nothing of it goes into the JSON */
			json_decref(iters[--nruns]);
			iters[nruns] = NULL;
			break;
		}
		switch (r->end) {
		case FSM_END_DONE:
			break;
		case FSM_END_FULL:
			fprintf(stderr, "%s: fill ended, the filesystem is full: %s\n", prog, r->end_detail);
			break;
		case FSM_END_NOSPACE:
			fprintf(stderr, "%s: not enough free space: %s\n", prog, r->end_detail);
			code = EXIT_FAILED;
			break;
		case FSM_END_SIGNAL:
			fprintf(stderr, "%s: interrupted; %s\n", prog, c.keep_files ?
				"the files are kept" : "removing the files");
			fsm_print_summary(stderr, &c, r);
			code = 128 + run_signal();
			break;
		case FSM_END_ERROR:
			break;
		}
		if (o.text && c.summary && r->end != FSM_END_SIGNAL) {
			fsm_print_summary(stdout, &c, r);
			fflush(stdout);
		}
		print_kernel(&c, r, &o);
		stop = run_stopping() || r->end == FSM_END_NOSPACE || r->end == FSM_END_ERROR;
		if (stop || nruns == c.repeat)
			break;
		/* fresh files for the next run; the last run's are removed (or kept) after the
		 * JSON, which describes the -d directories while they exist */
		if (cleanup_run(false))
			code = EXIT_FAILED;
		fsm_result_drop_state(r);
	}
	if (o.text && nruns > 1) {
		fsm_print_runs_summary(stdout, &c, runs, nruns);
		fflush(stdout);
	}
	print_warnings(&c, &o, &obs, nruns, prog);
	if (c.profile_callgraph && obs.perf && nruns && write_folded(&c, runs, nruns, prog))
		code = code ? code : EXIT_FAILED;
	if (run_signal() && nruns && runs[nruns - 1].end != FSM_END_SIGNAL) {
		/* between two runs: the runs so far are complete */
		fprintf(stderr, "%s: interrupted after run %u of %llu; %s\n", prog, nruns,
			(unsigned long long)c.repeat, c.keep_files ? "the files are kept" : "removing the files");
		code = 128 + run_signal();
	}
	if (run_error_get()) {
		const struct run_error *e = run_error_get();

		run_error_format(e, err, sizeof(err));
		fprintf(stderr, "%s: %s\n", prog, err);
		code = e->err == EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_FAILED;
	}
	if (c.json && nruns) {
		struct json_run_info ri = { .argc = argc, .argv = argv, .workload = "fs_mark",
					    .targets = c.dirs.v, .ntargets = c.dirs.n,
					    .started_unix_s = (long long)started };
		json_t *root = fsm_json(&c, runs, iters, nruns, &ri);
		int wrc = root ? json_write(root, c.json) : -ENOMEM;

		json_decref(root);
		if (wrc) {
			fprintf(stderr, "%s: cannot write '%s': %s\n", prog, c.json, strerror(-wrc));
			code = code ? code : EXIT_FAILED;
		}
	}
	if (cleanup_run(c.keep_files))
		code = code ? code : EXIT_FAILED;
	/* the failed run's state too (its directories were registered for cleanup) */
	free_runs(runs, iters, nruns < c.repeat && rc ? nruns + 1 : nruns);
	fclose(o.log);
	warn_tally_free(&o.warns);
	observe_close(&obs);
	return code;
}
