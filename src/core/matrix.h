/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment model of `fsbench matrix`: the axes (what varies and how it is applied), the
 * cells (the cross product of the axes, or cells listed by name), each cell's full effective
 * configuration with a stable hash of it, the experiment file (INI, libinih), and the seeded
 * order of the runs. Nothing here touches the system: cmd/matrix.c applies what this describes
 * through sys/fsimage.h.
 *
 * Axes. Every setting is an axis; one with a single value is a constant. Kinds:
 *   fs                the filesystem type (one fs axis at most; default ext4)
 *   mkfs              options for mkfs ("TYPE:OPTS" applies to cells of that type only)
 *   mount             mount options, joined with commas over the mount axes ("defaults": none)
 *   knob              a /proc/sys or /sys file: written before a run, restored after
 *   bdi-max-bytes     /sys/class/bdi/<the filesystem's bdi>/max_bytes during a run
 *   bdi-strict-limit  .../strict_limit (0 or 1) during a run
 *   args              workload arguments appended to the experiment's
 *   target            an existing directory (label: its name, setting: the directory): no
 *                     mkfs, no mount, the workload in a fresh subdirectory of it
 *   remount           options a target is remounted with before the cell's runs (restored after)
 * A value has a label (cell names, reports) and a setting (what is applied); they are the same
 * unless the file gives labels.
 *
 * The hash: FNV-1a 64 of the cell's "config" object (mx_cell_json) serialised by jansson with
 * JSON_COMPACT | JSON_SORT_KEYS, written as "fnv1a64:" and 16 lowercase hex digits. The config
 * holds what decides the measurement (workload and arguments, filesystem, mkfs command, mount
 * options, knobs, bdi limits, target kind and size, freshness, cache dropping), never paths
 * that change from one experiment to the next (images, mount points, loop devices). */
#ifndef FSB_CORE_MATRIX_H
#define FSB_CORE_MATRIX_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>


#define MX_MAX_AXES 16
#define MX_MAX_VALUES 64
#define MX_MAX_CELLS 256
#define MX_MAX_ARGS 256
#define MX_MAX_INI_OPTS 128
#define MX_NAME_MAX 64

enum mx_kind { MX_FS, MX_MKFS, MX_MOUNT, MX_KNOB, MX_BDI_MAX_BYTES, MX_BDI_STRICT_LIMIT, MX_ARGS, MX_TARGET,
	       MX_REMOUNT };

enum mx_order { MX_ORDER_INTERLEAVED, MX_ORDER_ROTATED, MX_ORDER_SEQUENTIAL };
/* never: one filesystem per type and mkfs options, made once; the cells on it take turns */
enum mx_fresh { MX_FRESH_PER_RUN, MX_FRESH_PER_CELL, MX_FRESH_NEVER };

struct mx_value {
	char *label;
	char *setting;
	bool one_way;            /* knob: cannot be restored; written once, its cells run last */
};

struct mx_axis {
	char *name;
	enum mx_kind kind;
	char *knob;              /* MX_KNOB: the file */
	unsigned nvalues;
	struct mx_value values[MX_MAX_VALUES];
};

struct mx_knob {
	const char *path;
	const char *value;
	bool one_way;
};

struct mx_cell {
	char *name;
	unsigned vi[MX_MAX_AXES];    /* each axis' value */
	/* the effective configuration (mx_finish) */
	const char *fs;              /* "" on an existing target */
	const char *target_name;     /* MX_TARGET: the target's name and directory; NULL: none */
	const char *target_dir;
	const char *remount_opts;    /* MX_REMOUNT: over the target's own; NULL: not remounted */
	char *mkfs_opts;             /* the options given for mkfs.FS, "" for none */
	char *mount_opts;            /* "" for the defaults */
	unsigned nknobs;
	struct mx_knob knobs[MX_MAX_AXES];
	bool bdi_max_set, bdi_strict_set;
	uint64_t bdi_max_bytes;
	unsigned bdi_strict_limit;
	unsigned nargs;
	char *args[MX_MAX_ARGS];     /* the workload's arguments, without the target */
	bool one_way;                /* writes a one-way knob value */
	json_t *config;
	char hash[32];
};

/* A cell listed in the file: axis name = label pairs, resolved by mx_finish. */
struct mx_listed {
	char *name;
	unsigned n;
	char *key[MX_MAX_AXES], *label[MX_MAX_AXES];
	unsigned line;
};

struct mx_exp {
	char *name;
	char *file;                  /* the experiment file, NULL for none */
	char *workload;
	unsigned nargs;
	char *args[MX_MAX_ARGS];     /* the experiment's workload arguments */
	unsigned naxes;
	struct mx_axis axes[MX_MAX_AXES];
	unsigned nlisted;
	struct mx_listed listed[MX_MAX_CELLS];
	unsigned ncells;
	struct mx_cell cells[MX_MAX_CELLS];
	/* what every cell shares and its config records */
	const char *target_kind;     /* "image" or "device" */
	uint64_t size_bytes;
	enum mx_fresh fresh;
	bool drop_caches;
	unsigned nmkfs;              /* --mkfs-opts TYPE:OPTS, per type */
	char *mkfs_type[16], *mkfs_opts[16];
	/* [experiment] keys as options ("--key=value" or "--flag"), in file order, with lines */
	unsigned nopts;
	char *opts[MX_MAX_INI_OPTS];
	unsigned opt_line[MX_MAX_INI_OPTS];
};

/* The kinds by name ("fs", "bdi-max-bytes", ...) and back; -1 for an unknown name. */
int mx_kind_parse(const char *s);
const char *mx_kind_name(enum mx_kind k);
const char *mx_order_name(enum mx_order o);
const char *mx_fresh_name(enum mx_fresh f);
int mx_order_parse(const char *s, enum mx_order *o);
int mx_fresh_parse(const char *s, enum mx_fresh *f);

void mx_init(struct mx_exp *e);
void mx_free(struct mx_exp *e);

/* Reads an experiment file. [experiment] keys are checked against the long options the command
 * accepts (valid(key): 1 takes a value, 0 a flag written yes/no, -1 unknown) and kept as
 * options in e->opts; name, workload and args are the file's own. [axis NAME], [knob NAME] and
 * [cell NAME] become axes and listed cells; [target NAME] (dir = DIR) a value of the axis
 * "target". 0, or -EINVAL / -errno with "FILE:LINE: what" in
 * err. */
int mx_ini_load(struct mx_exp *e, const char *path, int (*valid)(const char *key), char *err,
		size_t errlen);

/* A name that becomes a directory name (experiment, cell, axis): 1 to MX_NAME_MAX letters,
 * digits and ._+=,:-, not starting with '.' or '-'. 0, or -1 with the reason in err. */
int mx_name_check(const char *what, const char *s, char *err, size_t len);
/* Adds an axis, replacing one of the same name (an option given on the command line replaces
 * the file's). Returns its index, or -1 with the reason in err. */
int mx_axis_add(struct mx_exp *e, const char *name, enum mx_kind kind, const char *knob, char *err,
		size_t errlen);
/* Adds a value to axis a (label NULL: the setting). 0, or -1 with the reason in err. */
int mx_value_add(struct mx_exp *e, unsigned a, const char *label, const char *setting, bool one_way,
		 char *err, size_t errlen);

/* After every axis is in: checks the axes, builds the cells (listed, or the cross product) with
 * their names, configurations and hashes. mkfs_argv(fs, opts, argv, max) fills the mkfs
 * command without the device and returns its length, or -1 (opts unparsable). 0, or -1 with
 * one line in err. */
int mx_finish(struct mx_exp *e, int (*mkfs_argv)(const char *fs, const char *opts, char **argv,
						 unsigned max, char *err, size_t errlen),
	      char *err, size_t errlen);

/* The first cell with cell ci's filesystem and mkfs options: under --fresh never, the one whose
 * image ci's runs use. */
unsigned mx_fs_group(const struct mx_exp *e, unsigned ci);

/* The index of the experiment's target axis, -1 without one. */
int mx_target_axis(const struct mx_exp *e);

/* The experiment as the manifest records it: name, file, workload, argv, axes, cells. */
json_t *mx_json(const struct mx_exp *e);

/* "fnv1a64:" + 16 hex digits of FNV-1a 64 over the bytes */
void mx_hash(const char *s, size_t len, char out[32]);

/* The runs in order: `repeat` rounds of every cell (cells writing a one-way knob after the
 * others). interleaved: each round in an order shuffled from seed; rotated: round r starts at
 * cell r; sequential: all runs of a cell, then the next. out gets ncells * repeat entries of
 * cell indexes; rep[i] is that run's repeat index within its cell. */
int mx_schedule(const struct mx_exp *e, enum mx_order order, unsigned repeat, uint64_t seed,
		unsigned *cell, unsigned *rep);
#endif
