/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A work directory of fsbench's inside a directory it does not own (fsbench matrix --target):
 * made fresh (a new random name, mode 0700, never an existing entry or a link), and removed
 * whole, walking by file descriptors from the directory opened with no symbolic link followed,
 * its device and inode checked first; nothing of another filesystem (a mount inside) and no
 * link's target is touched. Functions return 0 or -errno; why/how get one line. */
#ifndef FSB_SYS_WORKDIR_H
#define FSB_SYS_WORKDIR_H
#include <stddef.h>
#include <sys/stat.h>

/* Made in two steps, so that the caller records the name before the directory exists (a kill in
 * between leaves a record naming it): a fresh name parent/PREFIX.XXXXXX in out (six random
 * letters and digits), nothing made; then path made, mode 0700, its lstat in st (-EEXIST: the
 * name is taken, take another). */
int workdir_name(const char *parent, const char *prefix, char *out, size_t outlen);
int workdir_create(const char *path, struct stat *st);
/* Removes path and everything in it when it is still the directory (dev, ino). 0 (also when it is
 * gone: how says so), -EPERM when the name now holds something else (left), -EXDEV when another
 * filesystem is mounted inside (left), or the first error. */
int workdir_remove(const char *path, dev_t dev, ino_t ino, char *how, size_t len);
#endif
