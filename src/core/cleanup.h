/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cleanup registry: every file and directory fsbench creates is registered right after it
 * was created (O_EXCL), and removed in reverse order at the end, on error and on interrupt,
 * unless the user asked to keep it. Removal checks the entry is still the inode fsbench
 * created, so fsbench never deletes what it did not create. */
#ifndef FSB_CLEANUP_H
#define FSB_CLEANUP_H
#include <stdbool.h>
#include <sys/stat.h>

/* Register a path fsbench has just created; st is its stat (dev/ino identify it later).
 * Returns 0 or -ENOMEM. Thread-safe. */
int cleanup_add(const char *path, const struct stat *st);
/* Register a callback for bulk removal (a workload whose names are regenerable); it returns
 * how many of its entries it could not remove, each reported with cleanup_report(). */
int cleanup_add_fn(int (*fn)(void *arg), void *arg);
/* What could not be removed goes to the reporter the command sets (it prints); err 0 means
 * "not removed: replaced after fsbench created it". */
typedef void (*cleanup_reporter)(const char *path, int err);
void cleanup_set_reporter(cleanup_reporter fn);
void cleanup_report(const char *path, int err);
/* Remove everything registered, newest first; returns the number of entries that could not be
 * removed (each reported). With keep, forget them instead. */
int cleanup_run(bool keep);
/* Remove one registered path now (e.g. a workload deleting its own file), and forget it. */
int cleanup_remove_now(const char *path);
/* Create a file with O_EXCL|O_NOFOLLOW and register it; returns the fd or -errno. */
int cleanup_create_file(const char *path, int flags, mode_t mode);
/* Create a directory and register it; returns 0 or -errno. */
int cleanup_mkdir(const char *path, mode_t mode);
#endif
