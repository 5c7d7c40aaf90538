/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A work directory of fsbench's inside a directory it does not own (fsbench matrix --target):
 * made fresh (mkdtemp: a new name, mode 0700, never an existing entry or a link), and removed
 * whole, walking by file descriptors from the directory opened with no symbolic link followed,
 * its device and inode checked first; nothing of another filesystem (a mount inside) and no
 * link's target is touched. Functions return 0 or -errno; why/how get one line. */
#ifndef FSB_SYS_WORKDIR_H
#define FSB_SYS_WORKDIR_H
#include <stddef.h>
#include <sys/stat.h>

/* parent/PREFIX.XXXXXX made; its path in out, its lstat in st. */
int workdir_make(const char *parent, const char *prefix, char *out, size_t outlen, struct stat *st);
/* Removes path and everything in it when it is still the directory (dev, ino). 0 (also when it is
 * gone: how says so), -EPERM when the name now holds something else (left), -EXDEV when another
 * filesystem is mounted inside (left), or the first error. */
int workdir_remove(const char *path, dev_t dev, ino_t ino, char *how, size_t len);
#endif
