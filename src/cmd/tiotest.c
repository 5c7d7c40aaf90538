/* fsbench tiotest: the options table, the run, and which report goes where. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run_opts.h"
#include "core/cleanup.h"
#include "core/opt.h"
#include "core/run.h"
#include "report/json.h"
#include "report/kstat_text.h"
#include "report/profile_text.h"
#include "report/tiotest_text.h"
#include "report/warn_text.h"
#include "workload/tiotest.h"

#define MIB (UINT64_C(1) << 20)
#define F(x) offsetof(struct tio_config, x)

/* Short options are tiotest 0.4.2's, with its units and defaults; long-only ones are fsbench's. */
static const struct opt tio_opts[] = {
	{ 'f', "size", OPT_SIZE, F(file_bytes), "MIB", 1, UINT64_C(1) << 50, MIB, 0,
	  "file size per thread in MiB; the long form also takes k/m/g/t suffixes" },
	{ 'b', "block-size", OPT_SIZE, F(block_bytes), "BYTES", 1, UINT64_C(1) << 30, 1, 0,
	  "block (I/O) size in bytes; the long form also takes k/m/g suffixes" },
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, 50,
	  "directory for the test files, repeatable (threads use them round-robin); with -R a block device" },
	{ 't', "threads", OPT_UINT, F(threads), "N", 1, 4096, 0, 0, "number of threads" },
	{ 'r', "random-ops", OPT_UINT, F(random_ops), "N", 1, UINT64_C(1) << 40, 0, 0,
	  "random I/O operations per thread (both random phases)" },
	{ 'k', "skip", OPT_UINTS, F(skip), "PHASE", 0, 3, 0, OPT_LIST_MAX,
	  "skip phase PHASE, repeatable: 0 write, 1 random write, 2 read, 3 random read" },
	{ 'L', "no-latency", OPT_FLAG, F(no_latency), NULL, 0, 0, 0, 0, "do not print the latency table" },
	{ 'T', "terse", OPT_FLAG, F(terse), NULL, 0, 0, 0, 0, "terse machine-readable output (five lines)" },
	{ 'W', "serial-write", OPT_FLAG, F(serial_write), NULL, 0, 0, 0, 0,
	  "run the sequential write phase one thread at a time (less fragmentation)" },
	{ 'S', "sync", OPT_FLAG, F(sync), NULL, 0, 0, 0, 0, "open the files with O_SYNC (every phase)" },
	{ 'X', "direct", OPT_FLAG, F(direct), NULL, 0, 0, 0, 0, "open the files with O_DIRECT (every phase)" },
	{ 'M', "mmap", OPT_FLAG, F(mmap), NULL, 0, 0, 0, 0, "use mmap and memcpy instead of pread/pwrite" },
	{ 'c', "verify", OPT_FLAG, F(verify), NULL, 0, 0, 0, 0,
	  "write self-describing checksummed blocks and verify every block read" },
	{ 'F', "drop-caches", OPT_FLAG, F(drop_caches), NULL, 0, 0, 0, 0,
	  "sync and drop the page cache before each phase (root only)" },
	{ 'R', "raw", OPT_FLAG, F(raw), NULL, 0, 0, 0, 0, "raw device mode: -d names unmounted block devices" },
	{ 'o', "raw-offset", OPT_SIZE, F(raw_offset_bytes), "MIB", 0, UINT64_C(1) << 50, MIB, 0,
	  "with -R: gap in MiB between threads' regions on one device" },
	{ 'O', "raw-offset-first", OPT_FLAG, F(raw_offset_first), NULL, 0, 0, 0, 0,
	  "with -R: the first thread on each device also starts at the -o offset" },
	{ 'D', "debug", OPT_UINT, F(debug), "LEVEL", 0, 100, 0, 0,
	  "debug messages on stderr (40: phases, 50: file sizing)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help (-h exits 1 as tiotest does, --help 0)" },
	{ 0, "percentiles", OPT_FLAG, F(percentiles), NULL, 0, 0, 0, 0,
	  "print a third table: IOPS, MB/s and latency p50/p90/p99/p99.9/max per phase" },
	{ 0, "seed", OPT_UINT, F(seed), "N", 0, UINT64_MAX, 0, 0,
	  "seed of the random offsets (each thread and phase derives its own stream)" },
	{ 0, "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the test files at the end" },
	{ 0, "between-phases", OPT_STR, F(between), "CMD", 0, 0, 0, 0,
	  "run 'sh -c CMD' between phases (env: FSBENCH_PHASE_DONE, FSBENCH_PHASE_NEXT, FSBENCH_FILES); a failure stops the run" },
	RUN_OPTS(F, "phase"),
	{ 0 },
};

const struct opt_cmd tio_cmd = {
	.name = "tiotest",
	.summary = "Threaded I/O test, compatible with tiotest 0.4.2: sequential write, random write,\n"
		   "sequential read and random read, one file per thread, with throughput, CPU and latency.",
	.opts = tio_opts,
};

void tio_defaults(struct tio_config *c)
{
	memset(c, 0, sizeof(*c));
	c->file_bytes = 10 * MIB;
	c->block_bytes = 4096;
	c->dirs.n = 1;
	c->dirs.v[0] = ".";
	c->threads = 4;
	/* tiotest HEAD's default since 2023; 0.3.3 and early 0.4.x used 1000 */
	c->random_ops = 100000;
	c->seed = UINT64_C(0x5eed);
	RUN_OPTS_DEFAULTS(c);
}

static void print_run(const struct tio_config *c, const struct tio_result *r, unsigned run,
		      unsigned nruns)
{
	if (nruns > 1 && !c->terse)
		printf("Run %u of %u:\n", run + 1, nruns);
	if (c->terse)
		tio_print_terse(stdout, c, r);
	else
		tio_print_tables(stdout, c, r);
	if (c->percentiles)
		tio_print_percentiles(stdout, c, r);
	if (!r->complete) {
		/* after the classic lines, so parsers that read the tables still do; the marker
		 * says these numbers do not describe the whole run */
		if (r->stopped_in >= 0)
			printf("Results incomplete: the run stopped during the %s phase.\n",
			       tio_phase_label[r->stopped_in]);
		else
			printf("Results incomplete: the run stopped before all phases ran.\n");
	}
	fflush(stdout);
}

/* the phases as the warnings on stderr name them */
static const char *const phase_words[TIO_NPHASES] = {
	"write", "random write", "read", "random read"
};

/* --sysstats and --profile output under the classic tables */
static void print_kernel(const struct tio_config *c, const struct tio_result *r, bool text)
{
	char label[64];

	if (text && c->sysstats) {
		kstat_text_header(stdout);
		for (int p = 0; p < TIO_NPHASES; p++)
			if (r->phase[p].ran && r->phase[p].obs.taken)
				kstat_text_row(stdout, tio_phase_label[p], &r->phase[p].obs.k);
	}
	for (int p = 0; text && p < TIO_NPHASES; p++)
		if (r->phase[p].ran && r->phase[p].obs.profile) {
			snprintf(label, sizeof(label), "%s phase", tio_phase_label[p]);
			profile_text_print(stdout, label, r->phase[p].obs.profile, (unsigned)c->profile_top);
		}
	fflush(stdout);
}

/* Warnings on stderr once for all runs, after the last one: a warning that fires in every
 * phase of every run is still one line (each phase's own is in the JSON). */
static void print_warnings(const struct tio_config *c, const struct warn_tally *t,
			   const struct observe *o, unsigned nruns, const char *prog)
{
	struct warn_text_ctx ctx = { .prog = prog, .targets = o->targets, .ntargets = o->ntargets,
				     .hint_reads = "use -X, or -F as root",
				     .hint_writes = "use -S or -X", .nruns = nruns };

	if (c->quiet || warn_tally_empty(t))
		return;
	fflush(stdout);
	warn_text_print(stderr, t, &ctx);
}

/* --profile-callgraph: every run's phases into one folded file, the phase as the root frame */
static int write_folded(const struct tio_config *c, const struct tio_result *runs, unsigned nruns,
			const char *prog)
{
	char path[PATH_MAX], root[64];
	int rc = 0;
	FILE *f = profile_folded_open(c->profile_folded, c->json, prog, path, sizeof(path), &rc);

	if (!f)
		return rc;
	for (unsigned i = 0; i < nruns; i++)
		for (int p = 0; p < TIO_NPHASES; p++) {
			if (!runs[i].phase[p].obs.profile)
				continue;
			if (nruns > 1)
				snprintf(root, sizeof(root), "run%u_%s", i + 1, tio_phase_name[p]);
			else
				snprintf(root, sizeof(root), "%s", tio_phase_name[p]);
			if (profile_write_folded(f, root, runs[i].phase[p].obs.profile))
				rc = -1;
		}
	if (fclose(f) || rc) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int write_json(const struct tio_config *c, const struct tio_result *runs, unsigned nruns,
		      int argc, char **argv, const char *prog, long long started)
{
	struct json_run_info ri = { .argc = argc, .argv = argv, .workload = "tiotest",
				    .targets = c->dirs.v, .ntargets = c->dirs.n, .started_unix_s = started };
	json_t *root = tio_json(c, runs, nruns, &ri);
	int rc = root ? json_write(root, c->json) : -ENOMEM;

	json_decref(root);
	if (rc) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, c->json, strerror(-rc));
		return -1;
	}
	return 0;
}

int cmd_tiotest(int argc, char **argv, const char *prog)
{
	struct tio_config c, defaults;
	struct tio_result *runs;
	char err[PATH_MAX + 256];
	unsigned nruns = 0;
	int code, rc = 0;
	long long started = (long long)time(NULL);
	bool json_stdout;
	struct observe obs;
	struct observe_config oc;
	struct warn_tally warns;

	tio_defaults(&c);
	defaults = c;
	if (opt_parse(&tio_cmd, argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (c.help) {
		opt_help(&tio_cmd, &defaults, prog, stdout);
		return c.help == 1 ? 1 : EXIT_OK;
	}
	if (tio_config_check(&c, err, sizeof(err), &code)) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return code;
	}
	if (c.json && (rc = json_check_writable(c.json))) {
		fprintf(stderr, "%s: option --json: cannot write '%s': %s\n", prog, c.json, strerror(-rc));
		return EXIT_USAGE;
	}
	json_stdout = c.json && !strcmp(c.json, "-");
	c.progress = !c.quiet && isatty(STDERR_FILENO);
	runs = calloc(c.repeat, sizeof(*runs));
	if (!runs) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		free(runs);
		return EXIT_FAILED;
	}
	/* the kernel-side view: devices resolved once, perf opened once for every run */
	c.profile |= c.profile_callgraph || c.profile_folded || c.profile_inclusive;
	oc = (struct observe_config){ .profile = c.profile, .hz = (unsigned)c.profile_hz,
				      .callgraph = c.profile_callgraph || c.profile_inclusive };
	if (observe_open(&obs, &oc, c.dirs.v, c.dirs.n, prog)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		free(runs);
		return EXIT_FAILED;
	}
	c.obs = &obs;
	warn_tally_init(&warns);
	code = EXIT_OK;
	while (nruns < c.repeat && !run_stopping()) {
		bool last = nruns + 1 == c.repeat;

		rc = tio_run(&c, &runs[nruns], prog);
		if (rc) {
			tio_result_free(&runs[nruns]);
			break;
		}
		if (!json_stdout)
			print_run(&c, &runs[nruns], nruns, (unsigned)c.repeat);
		print_kernel(&c, &runs[nruns], !json_stdout);
		/* a phase cut short by an error or a signal: its window is not the phase's, its
		 * warnings would be noise (no iteration numbers here, so the add cannot fail) */
		for (int p = 0; p < TIO_NPHASES; p++)
			if (runs[nruns].phase[p].ran && runs[nruns].phase[p].complete)
				warn_tally_add(&warns, &runs[nruns].phase[p].obs.warns, nruns + 1,
					       phase_words[p], 0);
		nruns++;
		/* fresh files for every run; with --keep only the last run's stay */
		if (cleanup_run(c.keep && last))
			code = EXIT_FAILED;
	}
	if (!json_stdout && nruns > 1 && !c.terse)
		tio_print_summary(stdout, &c, runs, nruns);
	print_warnings(&c, &warns, &obs, nruns, prog);
	warn_tally_free(&warns);
	if (c.profile_callgraph && obs.perf && nruns && write_folded(&c, runs, nruns, prog))
		code = EXIT_FAILED;
	if (c.json && nruns && write_json(&c, runs, nruns, argc, argv, prog, started))
		code = EXIT_FAILED;
	if (run_error_get()) {
		run_error_format(run_error_get(), err, sizeof(err));
		fprintf(stderr, "%s: %s\n", prog, err);
		code = EXIT_FAILED;
	} else if (rc) {
		/* setup failed (message already printed) */
		code = rc == -EOPNOTSUPP || rc == -EACCES || rc == -EPERM ? EXIT_UNSUPPORTED : EXIT_FAILED;
	}
	if (run_signal() && !run_error_get())
		fprintf(stderr, "%s: interrupted by SIG%s; the results are incomplete\n", prog,
			sigabbrev_np(run_signal()));
	if (cleanup_run(c.keep))
		code = code ? code : EXIT_FAILED;
	for (unsigned i = 0; i < nruns; i++)
		tio_result_free(&runs[i]);
	free(runs);
	observe_close(&obs);
	if (run_signal() && !run_error_get())
		return 128 + run_signal();
	return code;
}
