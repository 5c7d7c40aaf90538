/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a matrix result directory back (what `fsbench matrix -o DIR` writes): manifest.json
 * (schema "fsbench-matrix", version 1: the experiment's axes and cells, every run with its
 * order, times, exit status and the CPU other processes took) and each run's result file,
 * runs/CELL/run-K.json, through the result reader. Per cell, its usable runs as the runs of
 * one result (rr_concat) and its median run; per run, the kernel profiles its result has.
 *
 * The manifest is outside input: types and sizes checked, strings made printable, run paths
 * relative and inside DIR; a problem with the manifest is one line in err. A run whose file is
 * missing, unreadable or whose exit status is not 0 is left out of the statistics with a
 * warning, never fatal. */
#ifndef FSB_REPORT_MATRIX_READ_H
#define FSB_REPORT_MATRIX_READ_H
#include <stdbool.h>
#include <stddef.h>

#include "report/after_read.h"
#include "report/result_read.h"
#include "core/perf_profile.h"

#define MX_MAX_AXES 8
#define MX_MAX_VALUES 64
#define MX_MAX_CELLS 256
#define MX_MAX_RUNS 10000
#define MX_MAX_WARNINGS 200

struct mread_axis {
	char *name;
	unsigned nvalues;
	char **values;
};

/* one profile group of a run: a tiotest phase ("write"), or fs_mark's iterations merged
 * ("create loops") */
struct mread_profile {
	char name[48];
	struct perf_profile *p;
	uint64_t ops;            /* the ops (files) of the windows profiled: cost per op */
	char window[128];        /* which windows: "the phase's timed window", "create loops at ..." */
};

struct mread_run {
	unsigned cell;
	unsigned repeat, order;
	char *started_at, *ended_at;  /* as the manifest has them ("" when absent) */
	char *json;                   /* relative to the directory */
	int exit_status;
	double other_cpu_pct;         /* NaN when absent */
	double steal_pct;             /* cpu.steal_pct: CPU the hypervisor gave other guests; NaN */
	bool other_cpu_flag;
	bool loaded;                  /* its result was read */
	bool used;                    /* in the statistics */
	bool flag_excluded;           /* usable, left out only by --exclude-flagged */
	char *problem;                /* why not loaded or not used; NULL */
	struct rr_result r;
	struct mread_profile *prof;
	unsigned nprof;
	char *after_json;             /* fsbench matrix --after: its file, relative; NULL */
	bool has_after;               /* read: after (its figures are in r when loaded) */
	char *after_problem;          /* why it could not be read; NULL */
	struct after_data after;
	double umount_s;              /* the runner's unmount after it (after.umount_s); NaN */
};

struct mread_cell {
	char *name;
	unsigned value[MX_MAX_AXES];  /* the index of its value on each axis */
	char *config_json;            /* the cell's config, compact JSON */
	char *config_hash;
	unsigned *run;                /* indices into mx.run of the runs used */
	unsigned nrun;
	unsigned nflagged;            /* runs flagged for other CPU (used or not) */
	struct rr_result merged;      /* the used runs as the runs of one result, named after the cell */
	int median;                   /* index into run[] of the median run; -1 without runs */
	char median_fig[96];          /* the figure that decided it */
	struct mread_profile *prof;      /* merged over the used runs, per group */
	unsigned nprof;
	/* --after, over the used runs: the checker's verdicts, free extents summed per size */
	unsigned nfsck, nfsck_clean, nfsck_absent, nfindings;   /* nfindings: over every run */
	unsigned nfree;               /* runs with a free-space histogram */
	const char *free_absent;      /* a used run's reason there is none (its after.free_absent) */
	double free_extents[AFTER_BUCKETS], free_bytes[AFTER_BUCKETS];
};

struct mx {
	char *dir;
	char *name;                   /* the experiment */
	char *workload;
	char **wargs;
	unsigned nwargs;
	char *kernel_release, *host, *fsbench_version, *target_kind;
	struct mread_axis *axis;
	unsigned naxes;
	struct mread_cell *cell;
	unsigned ncells;
	struct mread_run *run;
	unsigned nruns;
	bool exclude_flagged;
	bool fresh_never;             /* --fresh never: one filesystem per type, the cells in turn on it */
	long long mkfs_count;         /* the filesystems made (manifest mkfs_count); -1 unknown */
	unsigned naged;               /* --age: the filesystems aged (manifest aged[]); the first's state: */
	char aged_recipe[128];        /* printable */
	double aged_used_pct, aged_epf;   /* NaN when absent */
	long long aged_files;
	bool rounds;                  /* the runs were scheduled in rounds of every cell (a blocked
				       * design: interleaved or rotated, not sequential) */
	unsigned nused, nflagged, nexcluded;   /* runs used; flagged; left out by --exclude-flagged */
	bool has_after;               /* some run has --after results */
	char *primary;                /* the run's --primary (printable); NULL: the declared figures */
	double equiv_pct;             /* the run's --equivalence; 0: the default */
	double alpha;                 /* the verdicts' level: VD_ALPHA, or VD_ALPHA / looks after
				       * --repeat auto (experiment.alpha) */
	unsigned nfindings;           /* runs after which the checker found errors or could not check */
	char **warn;                  /* printable lines */
	unsigned nwarn;
};

/* Loads DIR. exclude_flagged: runs with other_cpu_flag are left out of the statistics (else
 * they count, and are marked). 0, or -1 with the reason in err; m is safe to mread_free. */
int mread_load(const char *dir, bool exclude_flagged, struct mx *m, char *err, size_t errlen);
void mread_free(struct mx *m);
/* a cell's value of an axis: "ext4" */
const char *mread_value(const struct mx *m, unsigned cell, unsigned axis);
/* the run behind a cell's median; NULL without runs */
const struct mread_run *mread_median_run(const struct mx *m, unsigned cell);
#endif
