/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench matrix: an experiment in one command. The command line (and an experiment file) say
 * what varies; this file parses and checks all of it before anything is set up (bad input:
 * exit 2 with one line; not root or a tool missing: exit 3), then hands the plan to the runner
 * (matrix_run.c). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_int.h"
#include "core/driver.h"
#include "core/quote.h"
#include "report/history.h"
#include "core/verdict.h"
#include "core/words.h"
#include "report/opt_text.h"
#include "sys/age.h"
#include "sys/freespace.h"
#include "sys/fsdev.h"
#include "sys/fsck.h"
#include "sys/fsimage.h"
#include "sys/fsopts.h"
#include "sys/mountlib.h"
#include "sys/owned.h"
#include "sys/spawn.h"
#include "workload/workload.h"

#define F(x) offsetof(struct mxc_config, x)
static const struct opt mx_opts[] = {
	{ 'o', "output", OPT_STR, F(output), "DIR", 0, 0, 0, 0,
	  "the result directory: manifest.json, every run's JSON, the report (created; it must not "
	  "exist or be empty; as root, root's alone, as every folder above it; default "
	  "./matrix-NAME-TIME)" },
	{ 0, "fs", OPT_STRS, F(fs), "TYPE[,TYPE]", 0, 0, 0, 16,
	  "filesystems, an axis (ext2, ext3, ext4, xfs, btrfs; default ext4)" },
	{ 0, "mkfs-opts", OPT_STRS, F(mkfs), "TYPE:OPTS", 0, 0, 0, 16,
	  "options for mkfs.TYPE (repeatable, once per type): options only, no device, file or -f "
	  "(the accepted ones: fsbench(1), MATRIX)" },
	{ 0, "mount-opts", OPT_STRS, F(mount), "OPTS", 0, 0, 0, MX_MAX_VALUES,
	  "mount options; repeated: an axis, one value each ('defaults': none); none of mount(8)'s "
	  "own (loop=, x-*), bind or remount, none naming a device or file" },
	{ 0, "knob", OPT_STRS, F(knob), "PATH=VALUE", 0, 0, 0, OPT_LIST_MAX,
	  "write VALUE to a /proc/sys or /sys file before each run and restore it after (the path "
	  "resolved now, locked for the experiment); the same PATH repeated with other values: an "
	  "axis" },
	{ 0, "target", OPT_STRS, F(target), "NAME=DIR", 0, 0, 0, MX_MAX_VALUES,
	  "run on an existing directory instead of a fresh filesystem (repeatable: an axis): no "
	  "mkfs, no mount; each run in a fresh subdirectory of DIR, removed after; without root "
	  "when no knob, mkfs or mount axis asks for it" },
	{ 0, "remount-opts", OPT_STRS, F(remount), "OPTS", 0, 0, 0, MX_MAX_VALUES,
	  "with --target, as root: remount each target (a mount point) with its options plus OPTS "
	  "before each run and back after (repeatable: an axis; 'defaults': as it is)" },
	{ 0, "bdi-max-bytes", OPT_STR, F(bdi_max), "SIZE", 0, 0, 0, 0,
	  "during each run, the filesystem's bdi max_bytes writeback limit (restored after)" },
	{ 0, "bdi-strict-limit", OPT_STR, F(bdi_strict), "0|1", 0, 0, 0, 0,
	  "during each run, the filesystem's bdi strict_limit (restored after)" },
	{ 0, "drop-caches", OPT_FLAG, F(drop_caches), NULL, 0, 0, 0, 0,
	  "sync and drop the page cache, dentries and inodes before each run" },
	{ 0, "repeat", OPT_STR, F(repeat_s), "N|auto", 0, 0, 0, 0,
	  "runs of every cell (1-10000, default 3); auto: rounds until every primary effect is decided "
	  "(fsbench(1) STATISTICS), at most --max-rounds" },
	{ 0, "max-rounds", OPT_UINT, F(max_rounds), "N", 3, 10000, 0, 0,
	  "--repeat auto: at most N rounds (default 20)" },
	{ 0, "max-time", OPT_UINT, F(max_time), "SECONDS", 1, UINT64_MAX, 0, 0,
	  "--repeat auto: start no round after SECONDS (the round under way completes)" },
	{ 0, "order", OPT_STR, F(order), "ORDER", 0, 0, 0, 0,
	  "interleaved (rounds of every cell, each round shuffled from --seed), rotated (round r "
	  "starts at cell r) or sequential (all runs of a cell, then the next)" },
	{ 0, "seed", OPT_UINT, F(seed), "N", 0, UINT64_MAX, 0, 0, "seed of the interleaved order" },
	{ 0, "fresh", OPT_STR, F(fresh), "WHEN", 0, 0, 0, 0,
	  "per-run: mkfs before every run; per-cell: once per cell; never: once per filesystem type "
	  "(and mkfs options), the cells taking turns on it, remounted with their options (default: "
	  "per-run when the workload keeps its files, as fs_mark -F does; per-cell otherwise)" },
	{ 0, "warmup", OPT_FLAG, F(warmup), NULL, 0, 0, 0, 0,
	  "one run of the first cell before the others, recorded and left out of the results" },
	{ 0, "size", OPT_SIZE, F(size), "SIZE", UINT64_C(16) << 20, UINT64_C(1) << 44, UINT64_C(1) << 20, 0,
	  "size of the sparse images (one for all cells under --fresh per-run, else one per cell or "
	  "filesystem type) (bare number: MiB; k/m/g/t)" },
	{ 0, "dir", OPT_STR, F(dir), "DIR", 0, 0, 0, 0,
	  "where the scratch folder with the images and mount points goes (default: $TMPDIR or /tmp; "
	  "as root, no folder on the way writable by others unless sticky)" },
	{ 0, "device", OPT_STR, F(device), "DEV", 0, 0, 0, 0,
	  "use this block device instead of images; refused when mounted, in use, or holding a "
	  "filesystem or partition table (unless --destroy names it too)" },
	{ 0, "destroy", OPT_STR, F(destroy), "DEV", 0, 0, 0, 0,
	  "with --device: the same device again, to allow overwriting what it holds" },
	{ 0, "max-other-cpu", OPT_UINT, F(max_other_cpu), "PCT", 0, 100, 0, 0,
	  "flag a run when other processes took more than PCT % of the machine's CPU during it" },
	{ 0, "mpi", OPT_STR, F(mpi), "LAUNCHER", 0, 0, 0, 0,
	  "run each run as an MPI job: LAUNCHER (e.g. 'mpirun -np 4 --host a,b') then fsbench-mpi "
	  "(built beside fsbench) and the workload's arguments; every rank's results merged in the "
	  "run's JSON" },
	{ 0, "after", OPT_STR, F(after), "CHECKS", 0, 0, 0, 0,
	  "after each run, with the filesystem unmounted: fsck (its own checker, read-only, timed: "
	  "e2fsck -fn, xfs_repair -n, btrfs check --readonly) and/or freespace (free extent sizes: "
	  "e2freefrag, xfs_db freesp), comma-separated; their figures are the cells' figures" },
	{ 0, "age", OPT_STR, F(age), "SPEC", 0, 0, 0, 0,
	  "age each new filesystem before its first run: fill=P% (files until P % full, sizes "
	  "log-normal as measured by Agrawal et al., FAST 2007, or sizes=FILE), churn=N (N rounds of "
	  "deleting a seeded 30 % and writing anew), from --seed; measured and said before the run" },
	{ 0, "age-cache", OPT_STR, F(age_cache), "DIR", 0, 0, 0, 0,
	  "with --age: keep each aged image in DIR (root's), keyed by filesystem, mkfs options, size, "
	  "recipe and seed, and start from it instead of mkfs and aging when the key is there (a "
	  "reflink where DIR's filesystem can, else a sparse copy)" },
	{ 0, "after-timeout", OPT_STR, F(after_timeout), "SECONDS", 0, 0, 0, 0,
	  "the time limit of each --after check (90, 90s, 10m, 2h): past it the tool's processes are "
	  "killed and the check is a finding (timed out); auto: 600 s plus 10 s per GiB of the "
	  "filesystem's device" },
	{ 0, "db", OPT_STR, F(db), "FILE", 0, 0, 0, 0,
	  "the history database the report records the runs in (default: "
	  "$XDG_DATA_HOME/fsbench/history.db)" },
	{ 0, "no-db", OPT_FLAG, F(no_db), NULL, 0, 0, 0, 0, "record the runs in no history database" },
	{ 0, "primary", OPT_STR, F(primary), "FIG,...", 0, 0, 0, 0,
	  "the primary figures (keys, e.g. write.rate_mib_per_s, or rate_mib_per_s for every phase): "
	  "the confirmatory family of the report (default: the workload's declared ones)" },
	{ 0, "equivalence", OPT_STR, F(equivalence), "PCT", 0, 0, 0, 0,
	  "the report's equivalence margin: a ratio within [1/(1+PCT/100), 1+PCT/100] (90 % interval) "
	  "is equivalent (default 5)" },
	{ 0, "stop-on-error", OPT_FLAG, F(stop_on_error), NULL, 0, 0, 0, 0,
	  "stop at the first failed run (default: record it and go on)" },
	{ 0, "name", OPT_STR, F(name), "NAME", 0, 0, 0, 0,
	  "the experiment's name (default: the file's name, or the workload's)" },
	{ 0, "dry-run", OPT_FLAG, F(dry_run), NULL, 0, 0, 0, 0,
	  "check everything, print the cells and the order of the runs, set up nothing" },
	{ 0, "undo", OPT_STR, F(undo), "DIR", 0, 0, 0, 0,
	  "undo what a killed experiment left set up, from DIR/manifest.json: only what proves to be "
	  "its own (fsbench(1), SECURITY)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

static const struct opt_cmd mx_cmd = {
	.name = "matrix",
	.summary = "Run a workload over configurations (filesystems, mkfs and mount options, kernel knobs)\n"
		   "on fresh loop-mounted images, runs interleaved, everything undone at the end.\n"
		   "After the options: -- WORKLOAD ARGS... (the target directory is supplied).",
	.opts = mx_opts,
};

/* --repeat N|auto: N into c->repeat (auto: the runner's --max-rounds, set later). 0, or -1
 * with the message in err */
static int repeat_parse(const char *s, struct mxc_config *c, char *err, size_t errlen)
{
	char *end, q[QUOTE_MAX];

	if (!strcmp(s, "auto"))
		return 0;
	errno = 0;
	c->repeat = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || c->repeat < 1 || c->repeat > 10000) {
		snprintf(err, errlen, "option --repeat: '%s' is not a count (1..10000) or auto", quote_str(s, q, sizeof(q)));
		return -1;
	}
	return 0;
}

static void mx_defaults(struct mxc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->repeat = 3;
	c->seed = 1;
	c->size = UINT64_C(1) << 30;
	c->max_other_cpu = 20;
	c->order = "interleaved";
	c->after_timeout = "auto";
}

static void mx_defaults_any(void *c)
{
	mx_defaults(c);
}

const struct cmd_options matrix_options = { &mx_cmd, sizeof(struct mxc_config), mx_defaults_any };

/* [experiment] keys: the long options, except those that name a device or act at once */
static int ini_key_valid(const char *key)
{
	static const char *const cli_only[] = { "device", "destroy", "undo", "help", "dry-run" };

	for (size_t i = 0; i < sizeof(cli_only) / sizeof(cli_only[0]); i++)
		if (!strcmp(key, cli_only[i]))
			return -1;
	for (const struct opt *o = mx_opts; !opt_is_end(o); o++)
		if (o->lname && !strcmp(o->lname, key))
			return o->type == OPT_FLAG ? 0 : 1;
	return -1;
}

/* Options before "--" (argv[0] first), the experiment file (at most one operand), and what
 * follows "--": the workload and its arguments. */
static int split_args(int argc, char **argv, char **opts, int *nopts, const char **ini, int *wi,
		      char *err, size_t errlen)
{
	*nopts = 0;
	*ini = NULL;
	*wi = argc;
	opts[(*nopts)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool takes = false;

		if (!strcmp(a, "--")) {
			*wi = i + 1;
			return 0;
		}
		if (a[0] != '-' || !a[1]) {
			if (*ini) {
				char q[QUOTE_MAX];

				snprintf(err, errlen, "one experiment file only ('%s' too; the workload goes "
					 "after '--')", quote_str(a, q, sizeof(q)));
				return -1;
			}
			*ini = a;
			continue;
		}
		opts[(*nopts)++] = argv[i];
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "=");

			for (const struct opt *o = mx_opts; !opt_is_end(o); o++)
				if (o->lname && strlen(o->lname) == n && !strncmp(o->lname, a + 2, n))
					takes = !a[2 + n] && opt_takes_arg(o);
		} else if (!a[2]) {
			for (const struct opt *o = mx_opts; !opt_is_end(o); o++)
				if (o->sname == a[1])
					takes = opt_takes_arg(o);
		}
		if (takes && i + 1 < argc)
			opts[(*nopts)++] = argv[++i];
	}
	return 0;
}

/* A cell's workload arguments parsed and checked as `fsbench WORKLOAD` would, with the target
 * the runner supplies (dir): 0, or EXIT_USAGE / EXIT_UNSUPPORTED with one line in err. */
static int workload_check(const struct workload_ops *w, const struct mx_cell *c, char *err, size_t errlen)
{
	const struct opt *t = workload_target_opt(w);
	void *cfg = calloc(1, w->config_size), *def = calloc(1, w->config_size);
	char **argv = calloc(c->nargs + 3, sizeof(char *)), msg[PATH_MAX + 768], target[PATH_MAX + 16];
	const struct run_opts *ro;
	int argc = 0, rc = EXIT_USAGE;

	if (!cfg || !def || !argv || !t) {
		snprintf(err, errlen, "%s", t ? "out of memory" : "the workload's target option is not in its table");
		goto out;
	}
	argv[argc++] = (char *)w->name;
	for (unsigned i = 0; i < c->nargs; i++)
		argv[argc++] = c->args[i];
	w->defaults(cfg);
	memcpy(def, cfg, w->config_size);
	if (opt_parse(w->cmd, argc, argv, cfg, msg, sizeof(msg))) {
		snprintf(err, errlen, "cell %s: %s: %s", c->name, w->name, msg);
		goto out;
	}
	/* the runner supplies the target: given here too, it would be a second one or ignored */
	if (t->type == OPT_STRS ? ((const struct opt_strs *)((char *)cfg + t->off))->user
				: memcmp((char *)cfg + t->off, (char *)def + t->off, sizeof(void *)) != 0) {
		snprintf(err, errlen, "cell %s: %s: the runner supplies --%s (the mounted filesystem): "
			 "leave it out of the workload's arguments", c->name, w->name, t->lname);
		goto out;
	}
	ro = workload_run_opts(w, cfg);
	if (ro->json || ro->repeat > 1 || ro->profile_folded) {
		snprintf(err, errlen, "cell %s: %s: %s", c->name, w->name,
			 ro->json ? "--json is the runner's: each run's JSON is DIR/runs/CELL/run-K.json" :
			 ro->repeat > 1 ? "--repeat is the runner's: give it to matrix (runs interleave)" :
			 "--profile-folded is the runner's: each run's stacks go beside its JSON");
		goto out;
	}
	memcpy(cfg, def, w->config_size);
	/* checked against a directory that exists now: the mount point does not yet */
	snprintf(target, sizeof(target), "--%s=/", t->lname);
	argv[argc++] = target;
	if (opt_parse(w->cmd, argc, argv, cfg, msg, sizeof(msg))) {
		snprintf(err, errlen, "cell %s: %s: %s", c->name, w->name, msg);
		goto out;
	}
	if ((rc = workload_checks(w, cfg, argc, argv, msg, sizeof(msg)))) {
		snprintf(err, errlen, "cell %s: %s: %s", c->name, w->name, msg);
		rc = rc == -EPERM || rc == -EACCES || rc == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_USAGE;
		goto out;
	}
	rc = 0;
out:
	free(cfg);
	free(def);
	free(argv);
	return rc;
}

/* Whether the workload keeps its files with these arguments (then --fresh defaults to
 * per-run: the next run would start on a filesystem the last one filled). */
static bool workload_keeps(const struct workload_ops *w, struct mx_exp *e)
{
	void *cfg = calloc(1, w->config_size);
	char **argv = calloc(e->nargs + 3, sizeof(char *)), msg[PATH_MAX + 768], target[64];
	bool keep = false;
	int argc = 0;

	if (cfg && argv) {
		argv[argc++] = (char *)w->name;
		for (unsigned i = 0; i < e->nargs; i++)
			argv[argc++] = e->args[i];
		/* check() derives what keeps the files (fs_mark: -k, -L, -F) */
		snprintf(target, sizeof(target), "--%s=/", workload_target_opt(w)->lname);
		argv[argc++] = target;
		w->defaults(cfg);
		if (!opt_parse(w->cmd, argc, argv, cfg, msg, sizeof(msg)) &&
		    !workload_checks(w, cfg, argc, argv, msg, sizeof(msg)))
			keep = w->keep && w->keep(cfg, NULL);
	}
	free(cfg);
	free(argv);
	return keep;
}

/* -o and --dir made absolute and resolved (the runner works in another directory); -o need
 * not exist yet, its parent must. */
static int paths_resolve(struct mxc_plan *p, const struct mxc_config *c, char *err, size_t errlen)
{
	char def[PATH_MAX], msg[PATH_MAX + 256];
	const char *dir = c->dir ? c->dir : getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct stat st;

	if (!c->output) {
		time_t now = time(NULL);
		struct tm tm;
		char ts[32];

		localtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
		snprintf(def, sizeof(def), "matrix-%s-%s", p->e->name, ts);
	}
	if (owned_abs_path(c->output ? c->output : def, true, p->out, sizeof(p->out), msg, sizeof(msg))) {
		snprintf(err, errlen, "option -o: %s", msg);
		return -1;
	}
	if (stat(p->out, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "option -o: '%s' is not a directory", p->out);
		return -1;
	}
	if (owned_abs_path(dir, false, p->scratch_parent, sizeof(p->scratch_parent), msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", c->dir ? "option --dir" : "the scratch parent ($TMPDIR)", msg);
		return -1;
	}
	if (stat(p->scratch_parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: '%s' is not a directory", c->dir ? "option --dir" : "$TMPDIR",
			 p->scratch_parent);
		return -1;
	}
	return 0;
}

/* As root, where root writes: the result directory and the scratch parent root's alone (with
 * the directories above them, sys/owned.h), and the scratch parent's filesystem able to keep
 * the marker --undo asks for. EXIT_USAGE or EXIT_UNSUPPORTED with one line in err. */
static int paths_check(const struct mxc_plan *p, bool device, char *err, size_t errlen)
{
	char msg[PATH_MAX + 256];
	struct stat st;
	bool exists = lstat(p->out, &st) == 0;
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s", p->out);
	if (!exists)
		*(strrchr(parent, '/') == parent ? parent + 1 : strrchr(parent, '/')) = '\0';
	if (owned_dir_chain(parent, exists, msg, sizeof(msg))) {
		snprintf(err, errlen, "option -o: refusing the result directory: %s", msg);
		return EXIT_USAGE;
	}
	if (owned_dir_chain(p->scratch_parent, false, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: refusing it: %s", device ? "the scratch parent" : "option --dir", msg);
		return EXIT_USAGE;
	}
	for (unsigned a = 0; a < p->e->naxes; a++)
		if (p->e->axes[a].kind == MX_KNOB && owned_xattr_supported(exists ? p->out : parent)) {
			snprintf(err, errlen, "option -o: its filesystem keeps no trusted.* extended "
				 "attributes, where fsbench records the knobs --undo may restore: -o elsewhere");
			return EXIT_UNSUPPORTED;
		}
	if (owned_xattr_supported(p->scratch_parent)) {
		snprintf(err, errlen, "'%s': its filesystem keeps no trusted.* extended attributes, which "
			 "mark what fsbench creates there (--undo acts on nothing else): --dir elsewhere",
			 p->scratch_parent);
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

/* Every knob: a file under /proc/sys or /sys the runner may write (before the root check: a
 * wrong path is bad input), and, once root, a value it can restore (or values marked one-way). */
static int knobs_check(struct mxc_plan *p, bool restore, char *err, size_t errlen)
{
	const struct mx_exp *e = p->e;

	for (unsigned a = 0; a < e->naxes; a++) {
		const struct mx_axis *ax = &e->axes[a];
		char real[PATH_MAX], cur[512], msg[PATH_MAX + 256];
		bool restorable, all_one_way = true;

		if (ax->kind != MX_KNOB)
			continue;
		if (fsimage_knob_check(ax->knob, real, sizeof(real), cur, sizeof(cur), &restorable, msg,
				       sizeof(msg))) {
			snprintf(err, errlen, "axis %s: %s", ax->name, msg);
			return -1;
		}
		/* "-" leaves the knob as it is: nothing to restore */
		for (unsigned v = 0; v < ax->nvalues; v++)
			all_one_way &= ax->values[v].one_way || !strcmp(ax->values[v].setting, "-");
		if (restore && !restorable && !all_one_way) {
			snprintf(err, errlen, "knob %s: its value cannot be read back as one line, so it "
				 "could not be restored; mark the values one-way in an experiment file "
				 "([axis NAME] knob = PATH, one-way = VALUE) if leaving it changed is fine",
				 ax->knob);
			return -1;
		}
	}
	return 0;
}

/* Each knob's lock for the whole experiment: a second experiment on the same knob refuses to
 * start (rather than wait an experiment's length), since each restores what it found. */
static int knobs_lock(struct mxc_plan *p, char *err, size_t errlen)
{
	for (unsigned a = 0; a < p->e->naxes; a++) {
		const struct mx_axis *ax = &p->e->axes[a];
		char msg[PATH_MAX + 256];
		int rc;

		if (ax->kind != MX_KNOB || !ax->knob)
			continue;
		if ((rc = owned_knob_lock(ax->knob, &p->knob_lock[a], msg, sizeof(msg)))) {
			snprintf(err, errlen, "knob %s: %s; run one experiment on it at a time", ax->knob, msg);
			return rc == -EBUSY ? EXIT_UNSUPPORTED : EXIT_FAILED;
		}
	}
	return 0;
}

/* --after: "fsck", "freespace", both (comma- or space-separated), "none" */
static int after_parse(const char *s, struct mxc_plan *p, char *err, size_t errlen)
{
	char q[QUOTE_MAX];

	p->after_fsck = p->after_freespace = false;
	while (s && *s) {
		size_t n;

		s += strspn(s, ", \t");
		if (!(n = strcspn(s, ", \t")))
			break;
		if (n == 4 && !strncmp(s, "fsck", 4))
			p->after_fsck = true;
		else if (n == 9 && !strncmp(s, "freespace", 9))
			p->after_freespace = true;
		else if (!(n == 4 && !strncmp(s, "none", 4))) {
			char w[64];

			snprintf(w, sizeof(w), "%.*s", (int)(n < 60 ? n : 60), s);
			snprintf(err, errlen, "option --after: '%s' is not fsck, freespace or none",
				 quote_str(w, q, sizeof(q)));
			return -1;
		}
		s += n;
	}
	return 0;
}

/* the Debian package of an after-run tool */
static const char *after_package(const char *tool)
{
	return !strcmp(tool, "xfs_repair") || !strcmp(tool, "xfs_db") ? "xfsprogs" :
	       !strcmp(tool, "btrfs") ? "btrfs-progs" : "e2fsprogs";
}

/* every cell's checker and free-space tool installed (a filesystem without a free-space tool,
 * btrfs, is absent with its reason in the results, not refused) */
static int after_tools_check(const struct mxc_plan *p, char *err, size_t errlen)
{
	for (unsigned i = 0; i < p->e->ncells; i++) {
		const char *fs = p->e->cells[i].fs, *tools[2] = {
			p->after_fsck ? fsck_tool(fs) : NULL, p->after_freespace ? freespace_tool(fs) : NULL };
		char path[PATH_MAX];

		if (p->after_fsck && !tools[0]) {
			snprintf(err, errlen, "--after fsck: fsbench knows no checker for %s", fs);
			return EXIT_USAGE;
		}
		for (int k = 0; k < 2; k++)
			if (tools[k] && spawn_find(tools[k], path, sizeof(path))) {
				snprintf(err, errlen, "--after %s: %s (for %s) is not installed (Debian: %s)",
					 k ? "freespace" : "fsck", tools[k], fs, after_package(tools[k]));
				return EXIT_UNSUPPORTED;
			}
	}
	return 0;
}

static void dry_run(const struct mxc_plan *p)
{
	const struct mx_exp *e = p->e;
	unsigned n = e->ncells * p->repeat, *cell = calloc(n ? n : 1, sizeof(unsigned)),
		 *rep = calloc(n ? n : 1, sizeof(unsigned));

	printf("experiment %s: %s, %u cells x %u runs, %s order (seed %llu), fresh %s\n", e->name,
	       e->workload, e->ncells, p->repeat, mx_order_name(p->order), (unsigned long long)p->seed,
	       mx_fresh_name(e->fresh));
	for (unsigned i = 0; i < e->ncells; i++) {
		const struct mx_cell *c = &e->cells[i];

		if (c->target_dir)
			printf("cell %s: target %s (%s)", c->name, c->target_name, c->target_dir);
		else
			printf("cell %s: %s", c->name, c->fs);
		if (*c->mkfs_opts)
			printf(", mkfs %s", c->mkfs_opts);
		printf(", mount %s", *c->mount_opts ? c->mount_opts : "defaults");
		for (unsigned k = 0; k < c->nknobs; k++)
			printf(", %s=%s%s", c->knobs[k].path, c->knobs[k].value, c->knobs[k].one_way ? " (one-way)" : "");
		if (c->bdi_max_set)
			printf(", bdi max_bytes %llu", (unsigned long long)c->bdi_max_bytes);
		if (c->bdi_strict_set)
			printf(", bdi strict_limit %u", c->bdi_strict_limit);
		printf(", args:");
		for (unsigned k = 0; k < c->nargs; k++)
			printf(" %s", c->args[k]);
		printf(" (%s)\n", c->hash);
	}
	if (p->after_fsck || p->after_freespace)
		printf("after each run, unmounted:%s%s\n", p->after_fsck ? " fsck" : "",
		       p->after_freespace ? " freespace" : "");
	if ((p->after_fsck || p->after_freespace) && p->after_timeout_ns != FSDEV_TIMEOUT_AUTO)
		printf(p->after_timeout_ns % 1000000000 ? "time limit of each check: %.3f s\n" :
		       "time limit of each check: %.0f s\n", (double)p->after_timeout_ns / 1e9);
	else if ((p->after_fsck || p->after_freespace) && p->device)
		printf("time limit of each check: auto, %d s plus %d s per GiB of the device\n",
		       FSDEV_TIMEOUT_BASE_S, FSDEV_TIMEOUT_S_PER_GIB);
	else if (p->after_fsck || p->after_freespace)
		printf("time limit of each check: auto, %llu s for the images\n",
		       (unsigned long long)(fsdev_timeout_ns(p->cfg->size) / 1000000000));
	if (cell && rep) {
		mx_schedule(e, p->order, p->repeat, p->seed, cell, rep);
		printf("order:");
		if (p->warmup && n)
			printf(" %s#warmup", e->cells[cell[0]].name);
		for (unsigned i = 0; i < n; i++)
			printf(" %s#%u", e->cells[cell[i]].name, rep[i] + 1);
		printf("\n");
	}
	free(cell);
	free(rep);
}

static void reset_user(struct mxc_config *c)
{
	c->fs.user = c->mkfs.user = c->mount.user = c->knob.user = c->target.user = c->remount.user = false;
}

/* The run's limits and rules (--after-timeout, --repeat auto and its budget, --primary,
 * --equivalence, --destroy, --dir, --db), checked before anything is set up: 0, or -1 with
 * the message in err. */
static int limits_check(struct mxc_config *cfg, struct mxc_plan *plan, char *err, size_t len)
{
	char q[QUOTE_MAX];

	if (after_timeout_parse(cfg->after_timeout, &plan->after_timeout_ns)) {
		snprintf(err, len, "option --after-timeout: '%s' is not auto or a time from 1 s to 30 days (90, "
			 "90s, 10m, 2h)", quote_str(cfg->after_timeout, q, sizeof(q)));
		return -1;
	}
	if (cfg->repeat_s && repeat_parse(cfg->repeat_s, cfg, err, len))
		return -1;
	if (cfg->repeat_s && !strcmp(cfg->repeat_s, "auto")) {
		plan->auto_rounds = true;
		cfg->repeat = cfg->max_rounds ? cfg->max_rounds : 20;
	}
	if (!plan->auto_rounds && (cfg->max_rounds || cfg->max_time)) {
		snprintf(err, len, "--max-rounds and --max-time are for --repeat auto");
		return -1;
	}
	if (cfg->primary && vd_primary_check(cfg->primary)) {
		snprintf(err, len, "option --primary: '%s' is not a comma-separated list of figure keys",
			 quote_str(cfg->primary, q, sizeof(q)));
		return -1;
	}
	if (cfg->equivalence && vd_parse_equiv(cfg->equivalence, &cfg->equiv_pct)) {
		snprintf(err, len, "option --equivalence: '%s' is not a percentage above 0 and below 100",
			 quote_str(cfg->equivalence, q, sizeof(q)));
		return -1;
	}
	if (cfg->destroy && !cfg->device) {
		snprintf(err, len, "--destroy names the --device to overwrite; there is no --device");
		return -1;
	}
	if (cfg->device && cfg->dir) {
		snprintf(err, len, "--dir is for images; with --device there are none");
		return -1;
	}
	if (cfg->db) {
		char why[512];

		if (history_check_path(cfg->db, why, sizeof(why))) {
			snprintf(err, len, "option --db: %s", why);
			return -1;
		}
	}
	return 0;
}

/* the workload and its arguments after '--', replacing the experiment file's: 0, or the exit code */
static int take_workload(struct mx_exp *e, int argc, char **argv, int wi, const char *prog)
{
	free(e->workload);
	for (unsigned i = 0; i < e->nargs; i++)
		free(e->args[i]);
	e->nargs = 0;
	if (!(e->workload = strdup(argv[wi]))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	for (int i = wi + 1; i < argc; i++) {
		if (e->nargs == MX_MAX_ARGS) {
			fprintf(stderr, "%s: more than %d workload arguments\n", prog, MX_MAX_ARGS);
			return EXIT_USAGE;
		}
		if (!(e->args[e->nargs] = strdup(argv[i]))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return EXIT_FAILED;
		}
		e->nargs++;
	}
	return 0;
}

/* the experiment's name when none is given: the file's base name without .ini, else the
 * workload's, in the characters a name may have (NULL when out of memory) */
static char *default_name(const char *ini, const char *workload)
{
	const char *b = ini ? strrchr(ini, '/') : NULL;
	char n[MX_NAME_MAX + 1];
	size_t k = 0;

	b = ini ? (b ? b + 1 : ini) : workload;
	for (; *b && k < MX_NAME_MAX && strcmp(b, ".ini"); b++)
		n[k++] = (strchr("._+=,:-", *b) || (*b >= '0' && *b <= '9') || ((*b | 32) >= 'a' && (*b | 32) <= 'z')) ? *b : '_';
	n[k] = '\0';
	return strdup(k ? n : "matrix");
}

/* --mpi LAUNCHER: words, and fsbench-mpi beside this fsbench: 0, or the exit code */
static int mpi_check(const char *mpi, const char *prog)
{
	char mpibin[PATH_MAX], err[512], q[QUOTE_MAX];
	char *w0[64];
	unsigned nw = 0;
	int bad = words_split(mpi, w0, 64, &nw, err, sizeof(err)) || !nw;

	if (bad)
		fprintf(stderr, "%s: option --mpi: '%s' is not a launcher command (%s)\n", prog,
			quote_str(mpi, q, sizeof(q)), nw ? err : "empty");
	for (unsigned i = 0; i < nw; i++)
		free(w0[i]);
	if (bad)
		return EXIT_USAGE;
	if (mxc_mpi_binary(mpibin, sizeof(mpibin))) {
		fprintf(stderr, "%s: option --mpi: no fsbench-mpi beside this fsbench (build it with "
			"Open MPI installed: deps.txt's mpi stage)\n", prog);
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

/* every cell's mkfs program found (cells on an existing --target need none): 0, or exit 3 */
static int mkfs_tools_check(const struct mx_exp *e, const char *prog)
{
	for (unsigned i = 0; i < e->ncells; i++) {
		char tool[PATH_MAX];

		if (!e->cells[i].target_dir && fsimage_mkfs_find(e->cells[i].fs, tool, sizeof(tool))) {
			fprintf(stderr, "%s: mkfs.%s not found (Debian: %s)\n", prog, e->cells[i].fs,
				!strcmp(e->cells[i].fs, "xfs") ? "xfsprogs" :
				!strcmp(e->cells[i].fs, "btrfs") ? "btrfs-progs" : "e2fsprogs");
			return EXIT_UNSUPPORTED;
		}
	}
	return 0;
}

/* --device: resolved once to the kernel's node, --destroy naming the same device, checked
 * and held (O_EXCL) in *claim for the plan: 0, or -1 said */
static int device_claim(const struct mxc_config *cfg, struct mxc_plan *plan, struct devclaim *claim,
			const char *prog)
{
	char err[PATH_MAX + 1024], q[QUOTE_MAX];
	struct stat b;
	bool destroy = false;

	/* one name from here on: the kernel's node of the device it leads to now */
	if (devclaim_resolve(cfg->device, claim, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	if (cfg->destroy) {
		if (stat(cfg->destroy, &b) || !S_ISBLK(b.st_mode) || b.st_rdev != claim->rdev) {
			fprintf(stderr, "%s: --destroy '%s' does not name the --device '%s'\n", prog,
				quote_str(cfg->destroy, q, sizeof(q)), cfg->device);
			return -1;
		}
		destroy = true;
	}
	if (fsimage_device_check(claim->path, destroy, &claim->fd, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	plan->device = claim->path;
	plan->claim = claim;
	return 0;
}

/* err said on stderr: code */
static int said(const char *prog, const char *err, int code)
{
	fprintf(stderr, "%s: %s\n", prog, err);
	return code;
}

/* The file first (its [experiment] keys), the command line over it, the workload after '--':
 * 0, or the exit status (said). */
static int exp_load(struct mx_exp *e, struct mxc_config *cfg, const char *ini, int nopts, char **opts,
		    int argc, char **argv, int wi, const char *prog)
{
	char err[PATH_MAX + 1024], q[QUOTE_MAX];
	int code;

	if (ini) {
		if (mx_ini_load(e, ini, ini_key_valid, err, sizeof(err)))
			return said(prog, err, EXIT_USAGE);
		for (unsigned i = 0; i < e->nopts; i++) {
			char *one[2] = { argv[0], e->opts[i] }, msg[1024];

			if (opt_parse(&mx_cmd, 2, one, cfg, msg, sizeof(msg)) ||
			    (!strncmp(e->opts[i], "--repeat=", 9) && repeat_parse(cfg->repeat_s, cfg, msg, sizeof(msg)))) {
				fprintf(stderr, "%s: %s:%u: %s\n", prog, quote_str(ini, q, sizeof(q)), e->opt_line[i], msg);
				return EXIT_USAGE;
			}
		}
		reset_user(cfg);
	}
	if (opt_parse(&mx_cmd, nopts, opts, cfg, err, sizeof(err)))
		return said(prog, err, EXIT_USAGE);
	if (wi < argc && (code = take_workload(e, argc, argv, wi, prog)))
		return code;
	if (!e->workload) {
		fprintf(stderr, "%s: no workload: give it after '--' (fsbench matrix --fs ext4,xfs -- tiotest "
			"-t 1 -f 64) or as workload = in [experiment]\n", prog);
		return EXIT_USAGE;
	}
	return 0;
}

/* The workload, the name, the axes the options give, and every setting but the cells': 0, or
 * the exit status (said). */
static int plan_options(struct mxc_plan *plan, struct mx_exp *e, const struct mxc_config *cfg, const char *ini)
{
	const char *prog = plan->prog;
	char err[PATH_MAX + 1024], q[QUOTE_MAX];
	int code;

	if (!(plan->w = workload_find(e->workload)) || plan->w->hidden) {
		fprintf(stderr, "%s: unknown workload '%s' (fsbench list workloads)\n", prog,
			quote_str(e->workload, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (!workload_target_opt(plan->w) || !workload_target_opt(plan->w)->lname) {
		fprintf(stderr, "%s: workload %s has no target directory the runner could supply\n", prog,
			plan->w->name);
		return EXIT_USAGE;
	}
	if (cfg->name) {
		if (mx_name_check("option --name", cfg->name, err, sizeof(err)))
			return said(prog, err, EXIT_USAGE);
		free(e->name);
		e->name = strdup(cfg->name);
	}
	if (!e->name)
		e->name = default_name(ini, plan->w->name);
	if (mxc_flag_axes(e, cfg, err, sizeof(err)) || fsopts_exp_check(e, false, err, sizeof(err)) ||
	    mxc_knobs_resolve(e, err, sizeof(err)))
		return said(prog, err, EXIT_USAGE);
	if ((code = mxt_check(e, cfg, err, sizeof(err))))
		return said(prog, err, code);
	if (mx_order_parse(cfg->order, &plan->order)) {
		fprintf(stderr, "%s: option --order: '%s' is not interleaved, rotated or sequential\n", prog,
			quote_str(cfg->order, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (cfg->fresh) {
		if (mx_fresh_parse(cfg->fresh, &e->fresh)) {
			fprintf(stderr, "%s: option --fresh: '%s' is not per-run, per-cell or never\n", prog,
				quote_str(cfg->fresh, q, sizeof(q)));
			return EXIT_USAGE;
		}
	} else {
		e->fresh = workload_keeps(plan->w, e) ? MX_FRESH_PER_RUN : MX_FRESH_PER_CELL;
	}
	if (cfg->mpi && (code = mpi_check(cfg->mpi, prog)))
		return code;
	return 0;
}

/* --age-cache DIR: with --age, on images; made absolute and resolved now, and root's (as every
 * directory above it) or, missing, under a parent that is: 0, or -1 with one line in err. */
static int age_cache_check(struct mxc_plan *plan, const struct mxc_config *cfg, char *err, size_t len)
{
	char why[PATH_MAX + 256], parent[PATH_MAX], *slash;
	struct stat st;

	if (!cfg->age || cfg->device) {
		snprintf(err, len, "option --age-cache: %s", cfg->age ? "images only (a --device is not copied)" :
			 "needs --age");
		return -1;
	}
	if (owned_abs_path(cfg->age_cache, true, plan->age_cache, sizeof(plan->age_cache), why, sizeof(why)))
		goto bad;
	snprintf(parent, sizeof(parent), "%s", plan->age_cache);
	if ((slash = strrchr(parent, '/')))
		slash[slash == parent] = '\0';
	if (lstat(plan->age_cache, &st) == 0 ? !owned_dir_chain(plan->age_cache, true, why, sizeof(why)) :
	    errno == ENOENT && !owned_dir_chain(parent, false, why, sizeof(why)))
		return 0;
bad:
	snprintf(err, len, "option --age-cache: %s", why);
	return -1;
}

/* --after, the limits, --age: 0, or the exit status (said). */
static int plan_extras(struct mxc_plan *plan, struct mx_exp *e, struct mxc_config *cfg)
{
	char err[PATH_MAX + 1024];

	if (after_parse(cfg->after, plan, err, sizeof(err)) || limits_check(cfg, plan, err, sizeof(err)))
		return said(plan->prog, err, EXIT_USAGE);
	if (cfg->age) {
		static struct age_spec age;

		if (age_parse(cfg->age, &age, err, sizeof(err)) || mx_target_axis(e) >= 0) {
			fprintf(stderr, "%s: option --age: %s\n", plan->prog, mx_target_axis(e) >= 0 ?
				"an existing --target is not aged (it is what it is)" : err);
			return EXIT_USAGE;
		}
		plan->age = &age;
	}
	if (cfg->age_cache && age_cache_check(plan, cfg, err, sizeof(err)))
		return said(plan->prog, err, EXIT_USAGE);
	return 0;
}

/* The cells (what every cell shares first), each checked with the workload; the knobs and paths
 * the plan uses: 0, or the exit status (said). */
static int plan_cells(struct mxc_plan *plan, struct mx_exp *e, const struct mxc_config *cfg)
{
	char err[PATH_MAX + 1024];
	int code;

	if (mx_target_axis(e) < 0)
		e->target_kind = cfg->device ? "device" : "image";
	e->size_bytes = cfg->device || mx_target_axis(e) >= 0 ? 0 : cfg->size;
	e->drop_caches = cfg->drop_caches;
	if (mx_finish(e, fsimage_mkfs_argv, err, sizeof(err)) ||
	    fsopts_exp_check(e, true, err, sizeof(err)))
		return said(plan->prog, err, EXIT_USAGE);
	for (unsigned i = 0; i < e->ncells; i++)
		if ((code = workload_check(plan->w, &e->cells[i], err, sizeof(err))))
			return said(plan->prog, err, code);
	plan->e = e;
	if (knobs_check(plan, false, err, sizeof(err)) || paths_resolve(plan, cfg, err, sizeof(err)))
		return said(plan->prog, err, EXIT_USAGE);
	plan->cfg = cfg;
	plan->seed = cfg->seed;
	plan->repeat = (unsigned)cfg->repeat;
	plan->warmup = cfg->warmup;
	plan->device = cfg->device;
	return 0;
}

/* The plan checked: a dry run, or, as root, what the run needs checked and held, then the run.
 * Returns the exit status. */
static int plan_run(struct mxc_plan *plan, const struct mxc_config *cfg, struct devclaim *claim)
{
	const char *prog = plan->prog;
	char err[PATH_MAX + 1024];
	int code;

	if (cfg->dry_run) {
		/* as root, the knobs' values are checked too (some are readable by root only) */
		if (geteuid() == 0 && knobs_check(plan, true, err, sizeof(err)))
			return said(prog, err, EXIT_USAGE);
		dry_run(plan);
		return EXIT_OK;
	}
	/* the closing report draws its plots */
	if ((code = cmd_plot_ready(prog)))
		return code;
	/* existing targets without root: mxt_check refused what would need it */
	if (geteuid() != 0 && mx_target_axis(plan->e) >= 0)
		return mxc_run(plan);
	if (geteuid() != 0) {
		fprintf(stderr, "%s: needs root (it makes filesystems, attaches loop devices, mounts, "
			"writes kernel knobs)\n", prog);
		return EXIT_UNSUPPORTED;
	}
	if (knobs_check(plan, true, err, sizeof(err)))
		return said(prog, err, EXIT_USAGE);
	if ((code = paths_check(plan, cfg->device != NULL, err, sizeof(err))) ||
	    (code = after_tools_check(plan, err, sizeof(err))))
		return said(prog, err, code);
	if ((code = mkfs_tools_check(plan->e, prog)))
		return code;
	if (cfg->device && device_claim(cfg, plan, claim, prog))
		return EXIT_USAGE;
	if ((code = knobs_lock(plan, err, sizeof(err))))
		return said(prog, err, code);
	return mxc_run(plan);
}

int cmd_matrix(int argc, char **argv, const char *prog)
{
	struct mxc_config cfg, defaults;
	struct mxc_plan plan = { .prog = prog, .argc = argc, .argv = argv };
	struct devclaim claim = { .fd = -1 };
	struct mx_exp *e = calloc(1, sizeof(*e));
	char **opts = calloc((size_t)argc + 1, sizeof(char *)), err[PATH_MAX + 1024];
	const char *ini;
	int nopts, wi, code = EXIT_USAGE;

	if (!e || !opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		free(e);
		free(opts);
		return EXIT_FAILED;
	}
	for (unsigned a = 0; a < MX_MAX_AXES; a++)
		plan.knob_lock[a] = -1;
	mx_init(e);
	mx_defaults(&cfg);
	defaults = cfg;
	if (split_args(argc, argv, opts, &nopts, &ini, &wi, err, sizeof(err)) ||
	    opt_parse(&mx_cmd, nopts, opts, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	if (cfg.help) {
		opt_text_help(&mx_cmd, &defaults, "fsbench matrix [EXPERIMENT.ini]", stdout);
		printf("\nThe experiment file (INI) and the result directory: fsbench(1), MATRIX.\n"
		       "Exit status: 0; 1 a run or the set-up failed; 2 bad input (nothing set up); 3 not\n"
		       "root or a tool missing; 130/143 interrupted (everything undone).\n");
		code = EXIT_OK;
		goto out;
	}
	if (cfg.undo) {
		struct mxc_config only = defaults;

		only.undo = cfg.undo;
		if (ini || wi < argc || memcmp(&only, &cfg, sizeof(cfg))) {
			fprintf(stderr, "%s: --undo DIR takes nothing else\n", prog);
			goto out;
		}
		code = mxc_undo_dir(prog, cfg.undo);
		goto out;
	}
	/* libblkid and libmount, loaded at run time (sys/mountlib.h): the checks below use them */
	if (mountlib_load(err, sizeof(err))) {
		code = said(prog, err, EXIT_UNSUPPORTED);
		goto out;
	}
	/* the file first, the command line over it */
	cfg = defaults;
	if (!(code = exp_load(e, &cfg, ini, nopts, opts, argc, argv, wi, prog)) &&
	    !(code = plan_options(&plan, e, &cfg, ini)) && !(code = plan_extras(&plan, e, &cfg)) &&
	    !(code = plan_cells(&plan, e, &cfg)))
		code = plan_run(&plan, &cfg, &claim);
out:
	devclaim_close(&claim);
	for (unsigned a = 0; plan.e && a < plan.e->naxes; a++)
		if (plan.knob_lock[a] >= 0)
			owned_knob_unlock(plan.e->axes[a].knob, plan.knob_lock[a]);
	mx_free(e);
	free(e);
	free(opts);
	return code;
}
