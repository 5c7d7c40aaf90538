/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.json, the experiment runner's record in its result directory: what was planned, what
 * was set up (the undo list), what ran. It is rewritten whole after every change, through
 * outfile (a temporary renamed over it), so a runner killed at any point leaves a complete
 * file, from which `fsbench matrix --undo DIR` finishes the teardown. Layout: fsbench(1),
 * MATRIX, "The result directory". */
#ifndef FSB_CORE_MANIFEST_H
#define FSB_CORE_MANIFEST_H
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define MANIFEST_SCHEMA "fsbench-matrix"
#define MANIFEST_VERSION 1
#define MANIFEST_NAME "manifest.json"

struct manifest {
	json_t *root;
	char path[PATH_MAX];
};

/* A new manifest for the result directory dir (nothing written yet). 0 or -ENOMEM. */
int manifest_new(struct manifest *m, const char *dir);
/* Reads dir/manifest.json (a regular file, not a symbolic link; *st gets its fstat, for the
 * caller's ownership checks) and checks its schema. 0 or -errno with the reason in err. */
struct stat;
int manifest_load(struct manifest *m, const char *dir, struct stat *st, char *err, size_t errlen);
/* Writes it (complete or not at all). 0 or -errno. */
int manifest_commit(struct manifest *m);
void manifest_free(struct manifest *m);

/* "2024-05-01T12:00:00.123Z" */
json_t *manifest_now(void);

/* The undo list: an entry is added with state "pending" before its action (so a kill in
 * between leaves a record the identity checks can act on), set "done" after it, and marked
 * undone (with how) when the teardown or --undo dealt with it. Entries are borrowed. */
json_t *manifest_undo_add(struct manifest *m, const char *kind);
void manifest_undo_done(json_t *e);
void manifest_undo_mark(json_t *e, bool undone, const char *how);
/* Something applied that has nothing to undo (mkfs, cache drops) or that has: its command. */
json_t *manifest_applied(struct manifest *m, const char *command);
#endif
