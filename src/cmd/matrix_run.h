/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment runner's state, shared by its two files: matrix_run.c (the targets, each run's
 * set-up, the workload, the undo) and matrix_exp.c (the result directory and the manifest's
 * first record, --repeat auto's looks, the closing report). Private to cmd/matrix_*.c. */
#ifndef FSB_CMD_MATRIX_RUN_H
#define FSB_CMD_MATRIX_RUN_H
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/matrix_int.h"
#include "core/manifest.h"
#include "core/run.h"
#include "sys/agecache.h"

struct target {
	char dev[PATH_MAX];          /* /dev/loopN or the --device */
	char image[PATH_MAX + 96];   /* scratch/CELL.img */
	char mnt[PATH_MAX + 96];     /* scratch/CELL */
	int fd;                      /* the loop device held open, -1 */
	int holds;                   /* the cell whose filesystem is on it, -1: none */
	bool dio;
};

struct runner {
	struct mxc_plan *p;
	struct manifest m;
	struct mxc_proof proof;      /* what its undo may touch (matrix_int.h) */
	char token[96];              /* the marker on what it creates: the result directory's */
	char scratch[PATH_MAX];
	struct target *t;
	unsigned nt;
	int cwd;
	unsigned done, failed, flagged;
	unsigned findings;           /* runs after which the checker found errors or could not check */
	bool stop;                   /* a set-up step failed or the manifest cannot be written */
	bool commit_said;
	struct timespec start;       /* --max-time counts from here */
	char age_key[96];            /* --age-cache: the entry of the image aged or restored last */
	struct agecache_counts age_hit;   /* ... and what its aging did */
};

static inline struct mx_cell *cell_of(struct runner *r, unsigned i)
{
	return &r->p->e->cells[i];
}

/* Images under --fresh per-run: one image and loop device for every cell. Each run makes its
 * filesystem anew, so nothing of a cell stays on it; what stays is the image's place on the
 * host's disk and the loop device's own workers, and those are then the same for every cell of a
 * round instead of a difference between the cells that pairing by round cannot take out. */
static inline bool mxr_one_image(const struct mxc_plan *p)
{
	return !p->device && p->e->fresh == MX_FRESH_PER_RUN && mx_target_axis(p->e) < 0;
}

/* The target a cell's runs use: the --device, the one image above, under --fresh never one per
 * filesystem type and mkfs options, else the cell's own. */
static inline struct target *target_of(struct runner *r, unsigned cell)
{
	if (r->p->device || mxr_one_image(r->p))
		return &r->t[0];
	return &r->t[r->p->e->fresh == MX_FRESH_NEVER ? mx_fs_group(r->p->e, cell) : cell];
}

static inline void say(struct runner *r, const char *f, ...) __attribute__((format(printf, 2, 3)));
static inline void say(struct runner *r, const char *f, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", r->p->prog);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The manifest is what --undo repairs from: if it cannot be written, stop. */
static inline int commit(struct runner *r)
{
	int rc = manifest_commit(&r->m);

	if (rc && !r->commit_said) {
		say(r, "cannot write '%s': %s; stopping (what is set up is undone now)", r->m.path, strerror(-rc));
		r->commit_said = true;
	}
	if (rc)
		r->stop = true;
	return rc;
}

static inline bool interrupted(void)
{
	return run_signal() != 0;
}

/* matrix_run.c: a fresh directory parent/PREFIX.XXXXXX for the undo entry e (kind workdir, its
 * parent and cell set), its name recorded (committed) before it is made, so that a runner killed
 * at any point leaves a record naming it, then marked as root (*marked). Its path in out, its
 * lstat in st; 0, or -errno with e marked undone ("not made"), nothing said. */
int mxr_workdir(struct runner *r, json_t *e, const char *parent, const char *prefix, char *out, size_t outlen,
		struct stat *st, bool *marked);

/* matrix_exp.c: the result directory (made, or an empty one of this user's), the knobs and
 * remounted targets declared on it, the manifest's first record (host, plan, the schedule of
 * the n runs) written and said, the cells' run directories. 0, or the exit status (said). */
int mxr_begin(struct runner *r, const unsigned *cell, const unsigned *rep, unsigned n);
/* --repeat auto after round `round`: true stops the experiment (every primary effect decided,
 * --max-time); recorded in experiment.repeat_auto. */
bool mxr_auto_stop(struct runner *r, unsigned round);
/* The report of a complete experiment (report/matrix_report.h), its status in the manifest. */
void mxr_report(struct runner *r);

/* matrix_age.c, on a new filesystem: --age-cache before mkfs: the cell's entry, when the cache
 * has a usable one, copied into the target's image (*restored; no mkfs then). 0, or -errno
 * when the copy failed (said). */
int mxr_age_restore(struct runner *r, struct target *t, unsigned ci, json_t *run, bool *restored);
/* --age once mounted: aged now (the step recorded, then age_run), or, restored, its state
 * measured; in the run, the manifest's "aged" and said. 0 or -errno (said). */
int mxr_age(struct runner *r, struct target *t, const struct mx_cell *c, json_t *run, bool restored);
/* --age-cache after aging, the filesystem unmounted: the image kept in the cache (a temporary
 * directory there on the run's undo list, renamed into place). Not keeping it is said, not an
 * error: -errno only when the manifest cannot be written. */
int mxr_age_store(struct runner *r, struct target *t, const struct mx_cell *c);
#endif
