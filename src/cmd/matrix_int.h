/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench matrix, inside: the parsed command (matrix.c), the runner that sets up, runs and
 * tears down (matrix_run.c), and the undo of what the manifest records (matrix_undo.c). */
#ifndef FSB_CMD_MATRIX_INT_H
#define FSB_CMD_MATRIX_INT_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/manifest.h"
#include "core/matrix.h"
#include "core/opt.h"
#include "sys/devclaim.h"

struct workload_ops;
struct age_spec;

/* The options (fsbench matrix's table; the [experiment] keys of a file land here too). */
struct mxc_config {
	const char *output;
	struct opt_strs fs, mkfs, mount, knob;
	struct opt_strs target;      /* --target NAME=DIR (matrix_target.c) */
	struct opt_strs remount;     /* --remount-opts OPTS: an axis over the targets */
	const char *bdi_max, *bdi_strict;
	bool drop_caches, warmup, stop_on_error, dry_run;
	uint64_t repeat, seed, size, max_other_cpu;
	const char *order, *fresh, *dir, *device, *destroy, *name, *undo;
	const char *db;              /* --db FILE: the history database */
	const char *mpi;             /* --mpi LAUNCHER: each run as an MPI job (fsbench-mpi) */
	const char *after;           /* --after fsck,freespace */
	const char *age;             /* --age fill=P%,churn=N[,sizes=FILE] */
	const char *after_timeout;   /* --after-timeout SECONDS|auto */
	bool no_db;                  /* --no-db */
	const char *primary;         /* --primary FIG,...: the confirmatory figures */
	const char *equivalence;     /* --equivalence PCT */
	double equiv_pct;            /* its value; 0: the default */
	const char *repeat_s;        /* --repeat N|auto (NULL: repeat's default) */
	uint64_t max_rounds;         /* --repeat auto: at most this many rounds */
	uint64_t max_time;           /* --repeat auto: no new round after this many seconds (0: none) */
	int help;
};

/* What the command hands the runner: everything checked, nothing set up yet. */
struct mxc_plan {
	const char *prog;
	int argc;
	char **argv;                 /* the command line, for the manifest */
	struct mx_exp *e;
	const struct workload_ops *w;
	const struct mxc_config *cfg;
	enum mx_order order;
	uint64_t seed;
	unsigned repeat;             /* rounds; with auto_rounds, the most */
	bool auto_rounds;            /* --repeat auto: stop once every primary effect is decided */
	bool warmup;
	bool after_fsck, after_freespace;   /* --after: after each run, unmounted */
	const struct age_spec *age;  /* --age: each new filesystem aged before its first run; NULL */
	uint64_t after_timeout_ns;   /* each check's limit; FSDEV_TIMEOUT_AUTO: from the device's size */
	char out[PATH_MAX];          /* the result directory (absolute, created by the runner) */
	char scratch_parent[PATH_MAX];
	const char *device;          /* NULL: images; else claim->path, resolved once */
	struct devclaim *claim;      /* --device: held O_EXCL except while mkfs, a mount or a checker has it */
	int knob_lock[MX_MAX_AXES];  /* each knob axis' lock (sys/owned.h), -1: none */
	unsigned nknobs;             /* the distinct knobs and their values at the start */
	char knob_path[MX_MAX_AXES * 2][PATH_MAX];
};

/* The axes the options give (matrix_axes.c): --fs, --mount-opts, --knob (an axis per path), the
 * bdi limits, --mkfs-opts per type. 0, or -1 with one line in err. */
int mxc_flag_axes(struct mx_exp *e, const struct mxc_config *c, char *err, size_t errlen);
/* Every knob axis' path made absolute and resolved once (sys/owned.h's rules), two axes on one
 * file and empty values refused. 0, or -1 with one line in err. */
int mxc_knobs_resolve(struct mx_exp *e, char *err, size_t errlen);

/* --target (matrix_target.c): the axis from the options, then, with a target axis, every other
 * setting checked against it (what needs root: EXIT_UNSUPPORTED without it; fs, mkfs, mount,
 * bdi, --device, --after, --fresh: EXIT_USAGE) and each directory resolved and checked; the
 * experiment's target kind becomes "directory". 0, or the exit status with one line in err. */
int mxt_check(struct mx_exp *e, const struct mxc_config *c, char *err, size_t len);
/* The targets with their filesystems (type, source, mount point and options), for the manifest. */
json_t *mxt_json(const struct mx_exp *e);
/* As root with a remount axis: the targets' mount points recorded on the result directory
 * (OWNED_XATTR_REMOUNTS), where only root writes: what --undo may remount. 0 or -errno. */
int mxt_declare(const struct mx_exp *e, const char *out);
struct mxc_proof;
/* Undoes a remount entry (matrix_undo.c calls it): 0 restored, else -errno, how says. */
int mxt_undo_remount(const struct mxc_proof *pf, json_t *e, char *how, size_t len);

/* fsbench-mpi beside this binary (for --mpi): 0 with its path, or -ENOENT. */
int mxc_mpi_binary(char *path, size_t len);
/* Runs the plan: the result directory, the manifest, the targets, every run, the teardown, the
 * report. Returns the exit status. */
int mxc_run(struct mxc_plan *p);

/* What proves an undo entry's object is this experiment's, found outside the manifest: the
 * marker fsbench set on its scratch directory, images and mount points (sys/owned.h; its value,
 * the token, names the result directory by device and inode), and the knobs the experiment
 * declared (re-validated by the knob rules). */
struct mxc_proof {
	char token[96];
	char scratch[PATH_MAX];      /* the scratch directory as the manifest records it */
	int scratch_rc;              /* 0 proven, -ENOENT gone, -EPERM not fsbench's (why) */
	char scratch_why[PATH_MAX + 256];
	const json_t *exp;           /* the experiment record: its knob axes */
	const char *device;          /* --device: the device its mounts come from, else NULL */
	bool lock_knobs;             /* --undo: take each knob's lock (the runner holds them all) */
	bool own_process;            /* the runner: its unmarked --target subdirectories are proven by
				      * device, inode, owner and mode (matrix_undo.c) */
	char knobs[4096];            /* the result directory's OWNED_XATTR_KNOBS: a path a line */
	char remounts[4096];         /* its OWNED_XATTR_REMOUNTS: a mount point a line */
};
/* The marker's value for the result directory dir: 0 or -errno. */
int mxc_token(const char *dir, char *tok, size_t len);
/* Fills pf for the manifest root of the result directory dir whose token is given. */
void mxc_proof_init(struct mxc_proof *pf, const char *dir, const char *token, const json_t *root);
/* Undoes one entry of the undo list (core/manifest.h) by its kind, once its object is proven
 * this experiment's (anything else is left, with the reason in how); how says what happened.
 * 0 when nothing of ours is left, -errno when something is or an entry names what is not
 * proven ours. */
int mxc_undo_entry(const struct mxc_proof *pf, json_t *e, char *how, size_t len);
/* fsbench matrix --undo DIR */
int mxc_undo_dir(const char *prog, const char *dir);
/* The process that wrote the manifest is still running (pid and its start time match). */
bool mxc_owner_alive(const json_t *root);
/* This process's start time in clock ticks since boot (/proc/self/stat), 0 when unknown. */
unsigned long long mxc_start_ticks(long pid);
#endif
