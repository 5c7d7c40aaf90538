/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mdtest's options (IOR 3.3/4.0's set, with what fsbench accepts, ignores or refuses), their
 * defaults and checks, and the workload's ops struct. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workload/mdtest.h"
#include "workload/mdtest_int.h"
#include "workload/run_opts.h"
#include "workload/workload.h"

/* ---- options ------------------------------------------------------------------------------- */
#define F(x) offsetof(struct mdt_config, x)
#define U64MAX UINT64_C(0xffffffffffff)
static const struct opt mdt_opts[] = {
	{ 'n', NULL, OPT_UINT, F(items), "N", 0, U64MAX, 0, 0,
	  "every task creates/stats/reads/removes N directories and N files" },
	{ 'I', NULL, OPT_UINT, F(items_per_dir), "N", 0, U64MAX, 0, 0,
	  "items per directory of the tree (instead of -n)" },
	{ 'z', NULL, OPT_UINT, F(depth), "N", 0, 1000, 0, 0, "depth of the directory tree" },
	{ 'b', NULL, OPT_UINT, F(branch), "N", 0, 1000000, 0, 0, "branching factor of the tree" },
	{ 'd', "dir", OPT_STR, F(dir), "DIR", 0, 0, OPT_F_TARGET | OPT_F_TARGET_SHARED, 0,
	  "directory the test runs in (created when missing, and removed with -r)" },
	{ 'u', NULL, OPT_FLAG, F(unique), NULL, 0, 0, 0, 0, "a tree of its own for each task" },
	{ 'F', NULL, OPT_FLAG, F(files_only), NULL, 0, 0, 0, 0, "files only (no directory tests)" },
	{ 'D', NULL, OPT_FLAG, F(dirs_only), NULL, 0, 0, 0, 0, "directories only (no file tests)" },
	{ 'C', NULL, OPT_FLAG, F(create), NULL, 0, 0, 0, 0, "only the creation phases (and the tree's)" },
	{ 'T', NULL, OPT_FLAG, F(stat), NULL, 0, 0, 0, 0, "only the stat phases" },
	{ 'E', NULL, OPT_FLAG, F(read), NULL, 0, 0, 0, 0, "only the read phase" },
	{ 'r', NULL, OPT_FLAG, F(remove), NULL, 0, 0, 0, 0,
	  "only the removal phases (and the tree's): removes what a run with -C left" },
	{ 'U', NULL, OPT_FLAG, F(rename), NULL, 0, 0, 0, 0, "the directory rename phase" },
	{ 'e', NULL, OPT_SIZE, F(read_bytes), "BYTES", 0, UINT64_C(1) << 30, 1, 0,
	  "bytes to read from each file" },
	{ 'w', NULL, OPT_SIZE, F(write_bytes), "BYTES", 0, UINT64_C(1) << 30, 1, 0,
	  "bytes to write to each file after it is created" },
	{ 'L', NULL, OPT_FLAG, F(leaf_only), NULL, 0, 0, 0, 0, "items only in the tree's leaves" },
	{ 'N', NULL, OPT_UINT, F(nstride), "N", 0, 1000000, 0, 0,
	  "stride between tasks from phase to phase (fsbench-mpi; 1 defeats a client cache)" },
	{ 'i', NULL, OPT_UINT, F(iterations), "N", 1, 1000000, 0, 0, "iterations" },
	{ 'S', NULL, OPT_FLAG, F(shared_file), NULL, 0, 0, 0, 0,
	  "every task the same file names (files only)" },
	{ 't', NULL, OPT_FLAG, F(time_unique), NULL, 0, 0, 0, 0,
	  "accepted; no effect: every task's window opens at one release" },
	{ 'v', NULL, OPT_FLAG, F(verbose), NULL, 0, 0, 0, 0, "accepted; mdtest's traces are not printed" },
	{ 'V', NULL, OPT_UINT, F(verbosity), "N", 0, 100, 0, 0, "accepted, as -v" },
	{ 'Z', NULL, OPT_FLAG, F(print_time), NULL, 0, 0, 0, 0, "SUMMARY time instead of SUMMARY rate" },
	{ 'P', NULL, OPT_FLAG, F(print_both), NULL, 0, 0, 0, 0, "SUMMARY rate and SUMMARY time" },
	{ 'R', NULL, OPT_FLAG, F(random), NULL, 0, 0, 0, 0,
	  "stat and read the items in a random order" },
	{ 0, "random-seed", OPT_UINT, F(random_seed), "N", 0, 2147483647, 0, 0,
	  "the seed of -R (also turns the random order on, as in mdtest)" },
	{ 'W', NULL, OPT_UINT, F(stonewall_s), "S", 0, 1000000, 0, 0,
	  "mdtest's stonewall: not supported (only 0); --time-limit ends every phase" },
	{ 'B', NULL, OPT_UINT, F(no_barriers), "N", 0, 1, 0, 0,
	  "accepted; phases always start together (each is one window)" },
	{ 'p', NULL, OPT_UINT, F(pre_delay_s), "S", 0, 3600, 0, 0,
	  "seconds to wait before the directory and the file tests" },
	{ 'y', NULL, OPT_FLAG, F(sync_file), NULL, 0, 0, 0, 0, "fsync each file after its write" },
	{ 'Y', NULL, OPT_FLAG, F(call_sync), NULL, 0, 0, 0, 0,
	  "sync(2) at the end of each phase, inside its window" },
	{ 'k', NULL, OPT_FLAG, F(mknod), NULL, 0, 0, 0, 0, "create the files with mknod" },
	{ 'c', NULL, OPT_FLAG, F(collective), NULL, 0, 0, 0, 0, "collective creates: not supported" },
	{ 'f', NULL, OPT_UINT, F(first), "N", 0, 1000000, 0, 0,
	  "first task count: not supported (every task runs)" },
	{ 'l', NULL, OPT_UINT, F(last), "N", 0, 1000000, 0, 0,
	  "last task count: not supported (every task runs)" },
	{ 's', NULL, OPT_UINT, F(stride), "N", 1, 1000000, 0, 0,
	  "task count stride: not supported (only 1)" },
	{ 'a', NULL, OPT_STR, F(api), "API", 0, 0, 0, 0,
	  "mdtest's I/O API: POSIX only (--engine picks how the calls are made)" },
	{ 'G', NULL, OPT_UINT, F(buffer_offset), "N", 0, UINT64_MAX, 0, 0,
	  "accepted; the data written is not verified" },
	{ 0, "dataPacketType", OPT_STR, F(packet_type), "TYPE", 0, 0, 0, 0,
	  "accepted; the data written is not verified" },
	{ 'X', "verify-read", OPT_FLAG, F(verify_read), NULL, 0, 0, 0, 0, "not supported" },
	{ 0, "verify-write", OPT_FLAG, F(verify_write), NULL, 0, 0, 0, 0, "not supported" },
	{ 'x', NULL, OPT_STR, F(stonewall_file), "FILE", 0, 0, 0, 0, "not supported (as -W)" },
	{ 0, "run-cmd-before-phase", OPT_STR, F(cmd_before), "CMD", 0, 0, 0, 0,
	  "not supported: fsbench runs no shell command" },
	{ 0, "run-cmd-after-phase", OPT_STR, F(cmd_after), "CMD", 0, 0, 0, 0,
	  "not supported: fsbench runs no shell command" },
	{ 0, "warningAsErrors", OPT_FLAG, F(warnings_as_errors), NULL, 0, 0, 0, 0,
	  "accepted; every failed call is an error that ends the run" },
	{ 0, "saveRankPerformanceDetails", OPT_STR, F(save_rank_csv), "FILE", 0, 0, 0, 0,
	  "not supported: --json has every task's phases (fsbench-mpi)" },
	{ 0, "savePerOpDataCSV", OPT_STR, F(save_op_csv), "PREFIX", 0, 0, 0, 0,
	  "not supported: --json has each operation's latency histogram" },
	{ 0, "showRankStatistics", OPT_FLAG, F(show_rank_stats), NULL, 0, 0, 0, 0, "not supported" },
	{ 0, "print-all-procs", OPT_FLAG, F(print_all_procs), NULL, 0, 0, 0, 0, "not supported" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	RUN_OPTS(F, "phase"),
	ENGINE_OPTS(F),
	{ 0 },
};

static const struct opt_cmd mdt_cmd = {
	.name = "mdtest",
	.summary = "mdtest: directory and file create/stat/read/remove rates over a tree (hpc/ior)",
	.opts = mdt_opts,
	ENGINE_OPT_GROUPS,
};

static void mdt_defaults(void *cfg)
{
	struct mdt_config *c = cfg;

	memset(c, 0, sizeof(*c));
	c->branch = 1;
	c->dir = "./out";
	c->iterations = 1;
	c->stride = 1;
	RUN_OPTS_DEFAULTS(c);
	ENGINE_OPTS_DEFAULTS(c);
}

/* the checks' error line: the one every workload shares (workload/target.c) */
#define bad workload_bad

static uint64_t upow(uint64_t b, uint64_t e, bool *over)
{
	uint64_t x = 1;

	while (e--) {
		if (b && x > MDT_MAX_DIRS / b) {
			*over = true;
			return MDT_MAX_DIRS;
		}
		x *= b;
	}
	return x;
}

static int mdt_check(void *cfg, int argc, char **argv, char *err, size_t len)
{
	struct mdt_config *c = cfg;
	bool over = false;
	int rc;

	(void)argc;
	(void)argv;
	/* options fsbench does not reproduce: refused rather than ignored */
	if (c->collective)
		return bad(err, len, "option -c (collective creates) is not supported");
	if (c->stonewall_s || c->stonewall_file)
		return bad(err, len, "options -W and -x are not supported (--time-limit "
			   "ends every phase at a time)");
	if (c->first || c->last || c->stride != 1)
		return bad(err, len, "options -f, -l and -s are not supported: every task runs once");
	if (c->verify_read || c->verify_write)
		return bad(err, len, "options -X and --verify-write are not supported");
	if (c->cmd_before || c->cmd_after)
		return bad(err, len, "options --run-cmd-before-phase and --run-cmd-after-phase are not "
			   "supported: fsbench runs no shell command");
	if (c->save_rank_csv || c->save_op_csv)
		return bad(err, len, "options --saveRankPerformanceDetails and --savePerOpDataCSV are "
			   "not supported: --json has every figure");
	if (c->show_rank_stats || c->print_all_procs)
		return bad(err, len, "options --showRankStatistics and --print-all-procs are not supported");
	if (c->api && strcmp(c->api, "POSIX"))
		return bad(err, len, "option -a: only the POSIX API is supported (--engine picks how "
			   "the calls are made)");
	if (!*c->dir || strchr(c->dir, '@'))
		return bad(err, len, "option -d: one directory (mdtest's DIR1@DIR2 lists are not supported)");
	if ((rc = workload_check_new_dir(c->dir, err, len)))
		return rc;
	/* mdtest's own checks, its messages */
	if (!c->create && !c->stat && !c->read && !c->remove && !c->rename)
		c->create = c->stat = c->read = c->remove = c->rename = true;
	if (!c->dirs_only && !c->files_only)
		c->dirs_only = c->files_only = true;
	if (c->shared_file)
		c->dirs_only = false;
	if (c->branch < 1 && c->depth > 0)
		return bad(err, len, "branch factor must be greater than or equal to zero");
	if (c->items && c->items_per_dir) {
		if (c->unique)
			return bad(err, len, "only specify the number of items or the number of items per directory");
		if (c->items % c->items_per_dir)
			return bad(err, len, "items must be a multiple of items per directory");
		return bad(err, len, "-n with -I (mdtest's directory loops) is not supported: give one of them");
	}
	if (c->write_bytes && c->mknod)
		return bad(err, len, "-k not compatible with -w");
	if (c->unique && c->shared_file)
		return bad(err, len, "-u not compatible with -S");
	if (c->create && c->read && c->read_bytes > c->write_bytes)
		return bad(err, len, "When writing and reading files, read bytes must be smaller than write bytes");
	/* the tree and the item counts, as mdtest computes them */
	if (c->depth == 0 || c->branch < 1)
		c->num_dirs = 1;
	else if (c->branch == 1)
		c->num_dirs = c->depth + 1;
	else
		c->num_dirs = (upow(c->branch, c->depth + 1, &over) - 1) / (c->branch - 1);
	c->leaves = c->branch <= 1 ? 1 : upow(c->branch, c->depth, &over);
	if (over || c->num_dirs > MDT_MAX_DIRS)
		return bad(err, len, "-b and -z make a tree of more than %llu directories",
			   (unsigned long long)MDT_MAX_DIRS);
	if (c->items_per_dir) {
		c->items = c->items_per_dir * (c->leaf_only ? c->leaves : c->num_dirs);
	} else if (c->leaf_only) {
		c->items_per_dir = c->branch <= 1 ? c->items : c->items / c->leaves;
		c->items = c->items_per_dir * (c->branch <= 1 ? 1 : c->leaves);
	} else {
		c->items_per_dir = c->items / c->num_dirs;
		c->items = c->items_per_dir * c->num_dirs;
	}
	if (!c->items_per_dir)
		c->items_per_dir = 1;    /* no item: only keeps the divisions defined */
	if (c->items > UINT64_C(1) << 32)
		return bad(err, len, "more than 2^32 items per task");
	c->random_order = c->random || c->random_seed;
	if (c->eng.iodepth > 1 && c->mknod)
		return bad(err, len, "-k with --iodepth above 1: mknod is not a request of the engines");
	rc = engine_select(&c->eng, "mdtest", ENGINE_META | (c->read_bytes || c->write_bytes ? ENGINE_DATA : 0),
			   false, false, err, len);
	if (rc)
		return rc;
	return 0;
}

/* without -r (mdtest's -C, -T, -E runs) the tree and items stay for a later run */
static bool mdt_keep(const void *cfg, const void *result)
{
	(void)result;
	return !((const struct mdt_config *)cfg)->remove;
}

extern const struct workload_report mdtest_report;

const struct workload_ops workload_mdtest = {
	.name = "mdtest",
	.summary = "mdtest: directory and file create/stat/read/remove rates over a tree (hpc/ior)",
	.cmd = &mdt_cmd,
	.config_size = sizeof(struct mdt_config),
	.run_opts_off = offsetof(struct mdt_config, run),
	.result_size = sizeof(struct mdt_result),
	.defaults = mdt_defaults,
	.check = mdt_check,
	.run = mdt_run,
	.run_done = mdt_run_done,
	.result_free = mdt_result_free,
	.merge = mdt_merge,
	.keep = mdt_keep,
	.figs = &mdt_figs,
	.report = &mdtest_report,
	.pack = mdt_pack,
	.unpack = mdt_unpack,
};
