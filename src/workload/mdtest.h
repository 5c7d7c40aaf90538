/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mdtest workload (hpc/ior's metadata benchmark): per iteration a directory tree, then
 * directory and file creation, stat, read, rename and removal over its items, then the tree's
 * removal; each operation a phase of its own with a synchronized start. mdt_run() fills
 * mdt_result, report/mdtest_text.c prints mdtest's header and SUMMARY tables from it.
 * Compatibility notes say which mdtest (IOR 4.x, src/mdtest.c) behaviour each choice keeps or
 * fixes; fsbench(1) lists them. */
#ifndef FSB_WORKLOAD_MDTEST_H
#define FSB_WORKLOAD_MDTEST_H
#include <stdbool.h>
#include <stdint.h>

#include "core/driver.h"
#include "core/opt.h"
#include "core/run.h"
#include "engine/engine.h"

/* mdtest's test numbers, in its order (mdtest.h's mdtest_test_num_t) */
enum mdt_test {
	MDT_DIR_CREATE, MDT_DIR_STAT, MDT_DIR_READ, MDT_DIR_RENAME, MDT_DIR_REMOVE,
	MDT_FILE_CREATE, MDT_FILE_STAT, MDT_FILE_READ, MDT_FILE_REMOVE,
	MDT_TREE_CREATE, MDT_TREE_REMOVE, MDT_NTESTS
};
/* "Directory creation" ... as mdtest names them in its tables */
extern const char *const mdt_test_name[MDT_NTESTS];
/* "dir_create" ...: the JSON's keys */
extern const char *const mdt_test_key[MDT_NTESTS];

/* the version whose output layout is reproduced (the header's "mdtest-VERSION") */
#define MDT_COMPAT_VERSION "4.1.0+dev"
#define MDT_MAX_RANKS 1024       /* ranks whose host the Nodemap line shows */

struct mdt_config {
	/* mdtest's options, its units and defaults */
	uint64_t items;              /* -n, per task */
	uint64_t items_per_dir;      /* -I */
	uint64_t depth;              /* -z */
	uint64_t branch;             /* -b */
	const char *dir;             /* -d */
	bool unique;                 /* -u */
	bool files_only, dirs_only;  /* -F -D */
	bool create, stat, read, remove, rename;   /* -C -T -E -r -U */
	uint64_t read_bytes, write_bytes;          /* -e -w */
	bool leaf_only;              /* -L */
	uint64_t nstride;            /* -N */
	uint64_t iterations;         /* -i */
	bool shared_file;            /* -S */
	bool time_unique;            /* -t */
	bool verbose;                /* -v */
	uint64_t verbosity;          /* -V */
	bool print_time, print_both; /* -Z -P */
	bool random;                 /* -R */
	uint64_t random_seed;        /* --random-seed */
	uint64_t stonewall_s;        /* -W */
	uint64_t no_barriers;        /* -B (takes a value, as in mdtest) */
	uint64_t pre_delay_s;        /* -p */
	bool sync_file, call_sync;   /* -y -Y */
	bool mknod;                  /* -k */
	bool collective;             /* -c */
	uint64_t first, last, stride;   /* -f -l -s */
	const char *api;             /* -a */
	uint64_t buffer_offset;      /* -G */
	const char *packet_type;     /* --dataPacketType */
	bool verify_read, verify_write;   /* -X --verify-write */
	const char *stonewall_file;  /* -x */
	const char *cmd_before, *cmd_after;  /* --run-cmd-before-phase, --run-cmd-after-phase */
	bool warnings_as_errors;     /* --warningAsErrors */
	const char *save_rank_csv, *save_op_csv;
	bool show_rank_stats, print_all_procs;
	int help;
	struct run_opts run;         /* the options every workload shares */
	struct engine_opts eng;      /* --engine, --iodepth */
	/* derived by the check */
	uint64_t num_dirs;           /* directories in one tree */
	uint64_t leaves;             /* of them at the deepest level (b^z) */
	bool random_order;           /* stat and read in a shuffled order (-R, --random-seed) */
};

/* One test of one iteration, this process or (merged) the job: the items its phase did, and
 * the phase's window on the common timeline (release .. last completion). */
struct mdt_cell {
	bool ran;
	uint64_t items;
	uint64_t start_ns, end_ns;   /* the measured window: after the ramp (--ramp) */
	bool time_limited;           /* stopped by --time-limit (a job: by it on any task) */
	uint64_t ramp_ns;            /* --ramp left out of the window, 0: none */
	/* this process's kernel view of the phase (a job's are the job's, per host: src/mpi/);
	 * its profile moves to mdt_result.profile */
	struct observe_phase obs;
};

/* SUMMARY columns */
enum { MDT_MAX, MDT_MIN, MDT_MEAN, MDT_SD, MDT_NCOLS };

/* the run's figures: a rate per test (the SUMMARY rate's Mean), then p50 and p99 latency per
 * item test, then the sync after the run (core/afterrun.h: after.sync_s, after.sync_mib) */
#define MDT_NRATES 10
#define MDT_NLATS 8
#define MDT_FIG_AFTER (MDT_NRATES + 2 * MDT_NLATS)
#define MDT_NFIGS     (MDT_FIG_AFTER + AFTERRUN_NFIGS)

struct mdt_state;

struct mdt_result {
	struct run_head head;        /* must stay first */
	double fig[MDT_NFIGS];
	unsigned niters;             /* iterations begun */
	struct mdt_cell (*cell)[MDT_NTESTS];   /* [iteration][test] */
	struct opstat op[MDT_NTESTS];   /* every iteration's items, merged */
	/* requests the engine handed to the kernel per test and op, every iteration (io_uring:
	 * ring operations; 0 for an engine that does not count them) */
	uint64_t engine_ops[MDT_NTESTS][ENGINE_NOPS];
	/* --profile: each test's profile, every iteration merged (NULL: none) */
	struct perf_profile *profile[MDT_NTESTS];
	/* the SUMMARY tables (rate, time): [0] rate, [1] time; NAN where the test did not run */
	double table[2][MDT_NTESTS][MDT_NCOLS];
	unsigned nprocs;             /* tasks merged into this result */
	uint64_t items;              /* items per task after mdtest's rounding to the tree */
	uint64_t tree_dirs;          /* directories of one tree */
	int64_t seed;                /* the random seed of the first task (0: sequential) */
	/* statfs of -d at the start (first task) */
	uint64_t fs_bytes, fs_free_bytes, fs_files, fs_free_files;
	bool fs_ok;
	long long finished_unix_s;
	/* the hosts: rank_host[i] identifies rank i's host; nhosts distinct ones */
	unsigned nranks;
	uint64_t rank_host[MDT_MAX_RANKS];
	unsigned nhosts;
	struct mdt_state *state;     /* this process's names and what it created, until run_done */
};

extern const struct workload_ops workload_mdtest;
#endif
